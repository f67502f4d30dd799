/** How ls sorts and prints entries: the orders, long format, columns, quoting of names. */
import { Buffer } from 'node:buffer';
import { byteCmp } from '../kit/bytes.js';
import { filevercmp } from '../kit/version-sort.js';
import { type FsStat, type IFileSystem } from '../kit/command.js';
import { shellQuote } from '../kit/quote.js';
import { GID, GROUP, MONTHS, OWNER, UID, fullTime, humanSize, inode, isDevice, isoDate, kib, linkCount, modeString, p2 } from '../kit/file-info.js';
import { type Ent, type LsOpts } from './options.js';

const NAMED: Record<number, string> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r' };
export const printable = (b: number) => b >= 0x20 && b < 0x7f;

/** C-style quoting (ls -Q / -b): non-printable bytes as octal escapes. */
function cQuote(name: string, quotes: boolean): string {
  let out = '';
  for (const b of Buffer.from(name, 'utf8')) {
    const c = String.fromCharCode(b);
    if (c === '\\') out += '\\\\';
    else if (c === '"' && quotes) out += '\\"';
    else if (printable(b)) out += c === ' ' && !quotes ? '\\ ' : c;
    else out += '\\' + (NAMED[b] ?? b.toString(8).padStart(3, '0'));
  }
  return quotes ? `"${out}"` : out;
}

/** Display width in the C locale: printable ASCII bytes count one column, other bytes none. */
function cWidth(s: string): number {
  let n = 0;
  for (const b of Buffer.from(s, 'utf8')) if (printable(b)) n++;
  return n;
}

function extOf(name: string): string {
  const i = name.lastIndexOf('.');
  return i <= 0 ? '' : name.slice(i);
}

export function sortEnts(ents: Ent[], o: LsOpts): Ent[] {
  if (o.sort === 'none') return ents;
  const nameCmp = (a: Ent, b: Ent) => byteCmp(a.name, b.name);
  let cmp: (a: Ent, b: Ent) => number;
  switch (o.sort) {
    case 'time':
      cmp = (a, b) => b.st.mtime.getTime() - a.st.mtime.getTime() || nameCmp(a, b);
      break;
    case 'size':
      cmp = (a, b) => b.st.size - a.st.size || nameCmp(a, b);
      break;
    case 'extension':
      cmp = (a, b) => byteCmp(extOf(a.name), extOf(b.name)) || nameCmp(a, b);
      break;
    case 'version':
      // coreutils' cmp_version: filevercmp, ties by byte order.
      cmp = (a, b) => filevercmp(a.name, b.name) || byteCmp(a.name, b.name);
      break;
    case 'width':
      cmp = (a, b) => [...a.name].length - [...b.name].length || nameCmp(a, b);
      break;
    default:
      cmp = nameCmp;
  }
  const dir = o.reverse ? -1 : 1;
  const dirFirst = (a: Ent, b: Ent) => (o.groupDirs ? Number(b.st.isDirectory) - Number(a.st.isDirectory) : 0);
  return [...ents].sort((a, b) => dirFirst(a, b) || dir * cmp(a, b));
}

function indicatorOf(st: FsStat, o: LsOpts): string {
  if (o.indicator === 'none') return '';
  if (st.isDirectory) return '/';
  if (o.indicator === 'slash') return '';
  const t = st.mode & 0o170000;
  if (st.isSymbolicLink) return '@';
  if (t === 0o010000) return '|';
  if (t === 0o140000) return '=';
  if (o.indicator === 'classify' && st.isFile && !isDevice(st) && (st.mode & 0o111) !== 0) return '*';
  return '';
}

function lsDate(d: Date, o: LsOpts, now: number): string {
  const t = d.getTime();
  const recent = t > now - (31556952 / 2) * 1000 && t <= now;
  switch (o.timeStyle) {
    case 'full-iso':
      return fullTime(d);
    case 'long-iso':
      return `${isoDate(d)} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}`;
    case 'iso':
      return recent ? `${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}` : `${isoDate(d)} `;
    default: {
      const md = `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')}`;
      return recent ? `${md} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}` : `${md}  ${d.getUTCFullYear()}`;
    }
  }
}

export function displayName(name: string, o: LsOpts): string {
  switch (o.quoting) {
    case 'c':
      return cQuote(name, true);
    case 'escape':
      return cQuote(name, false);
    case 'shell':
      return shellQuote(name, false);
    case 'shell-always':
      return shellQuote(name, true);
    default:
      return name;
  }
}

/** Lines for a group of entries (a directory's content or the file operands). */
export async function formatEnts(ents: Ent[], o: LsOpts, fs: IFileSystem, now: number): Promise<string> {
  if (ents.length === 0) return '';
  const names = ents.map((e) => displayName(e.name, o) + indicatorOf(e.st, o));
  const inodes = o.inode ? ents.map((e) => String(inode(e.path))) : [];
  const blocks = o.size ? ents.map((e) => (o.human ? humanSize(kib(e.st) * 1024) : String(kib(e.st)))) : [];
  const eol = o.zero ? '\0' : '\n';
  const prefix = (i: number) => {
    let s = '';
    if (o.inode) s += inodes[i]!.padStart(Math.max(...inodes.map((x) => x.length)), ' ') + ' ';
    if (o.size) s += blocks[i]!.padStart(Math.max(...blocks.map((x) => x.length)), ' ') + ' ';
    return s;
  };
  if (o.format === 'long') {
    await Promise.all(ents.map(async (e) => (e.links ??= await linkCount(fs, e.path, e.st))));
    const links = ents.map((e) => String(e.links));
    const owners = ents.map(() => (o.numeric ? String(UID) : OWNER));
    const groups = ents.map(() => (o.numeric ? String(GID) : GROUP));
    const sizes = ents.map((e) => (isDevice(e.st) ? '1, 3' : o.human ? humanSize(e.st.size) : String(e.st.size)));
    const w = (xs: string[]) => Math.max(...xs.map((x) => x.length));
    const [wl, wo, wg, ws] = [w(links), w(owners), w(groups), w(sizes)];
    const out: string[] = [];
    ents.forEach((e, i) => {
      let line = prefix(i) + modeString(e.st) + ' ' + links[i]!.padStart(wl, ' ') + ' ';
      if (o.showOwner) line += owners[i]!.padEnd(wo, ' ') + ' ';
      if (o.showGroup) line += groups[i]!.padEnd(wg, ' ') + ' ';
      line += sizes[i]!.padStart(ws, ' ') + ' ' + lsDate(e.st.mtime, o, now) + ' ' + names[i]!;
      out.push(line + eol);
    });
    return out.join('');
  }
  const items = ents.map((_, i) => prefix(i) + names[i]!);
  if (o.format === 'one') return items.map((x) => x + eol).join('');
  const widths = items.map(cWidth);
  if (o.format === 'commas') {
    // GNU print_with_separator
    let out = '';
    let pos = 0;
    items.forEach((x, i) => {
      const len = widths[i]!;
      if (i !== 0) {
        if (pos + len + 2 < o.width) {
          out += ', ';
          pos += 2;
        } else {
          out += ',' + eol;
          pos = 0;
        }
      }
      out += x;
      pos += len;
    });
    return out + eol;
  }
  return columns(items, widths, o.format === 'across', o.width, eol);
}

/** GNU's indent(): tabs (tab stops every 8) then spaces from column `from` to `to`. */
export function indent(from: number, to: number): string {
  let s = '';
  while (from < to) {
    if (Math.floor(to / 8) > Math.floor((from + 1) / 8)) {
      s += '\t';
      from += 8 - (from % 8);
    } else {
      s += ' ';
      from++;
    }
  }
  return s;
}

/** GNU's calculate_columns + print_many_per_line (-C) / print_horizontal (-x). */
export function columns(items: string[], lens: number[], across: boolean, width: number, eol: string): string {
  const n = items.length;
  const MIN = 3;
  const maxIdx = Math.max(1, Number.isFinite(width) ? Math.floor(width / MIN) : n);
  const maxCols = Math.min(maxIdx, n);
  const info = Array.from({ length: maxCols }, (_, i) => ({ valid: true, lineLen: (i + 1) * MIN, cols: new Array<number>(i + 1).fill(MIN) }));
  for (let f = 0; f < n; f++) {
    for (let i = 0; i < maxCols; i++) {
      const ci = info[i]!;
      if (!ci.valid) continue;
      const idx = across ? f % (i + 1) : Math.floor(f / Math.floor((n + i) / (i + 1)));
      const real = lens[f]! + (idx === i ? 0 : 2);
      if (ci.cols[idx]! < real) {
        ci.lineLen += real - ci.cols[idx]!;
        ci.cols[idx] = real;
        ci.valid = ci.lineLen < width;
      }
    }
  }
  let cols = maxCols;
  for (; cols > 1; cols--) if (info[cols - 1]!.valid) break;
  const fmt = info[cols - 1]!.cols;
  let out = '';
  if (across) {
    let pos = 0;
    let nameLen = lens[0]!;
    let maxLen = fmt[0]!;
    out += items[0]!;
    for (let f = 1; f < n; f++) {
      const col = f % cols;
      if (col === 0) {
        out += eol;
        pos = 0;
      } else {
        out += indent(pos + nameLen, pos + maxLen);
        pos += maxLen;
      }
      out += items[f]!;
      nameLen = lens[f]!;
      maxLen = fmt[col]!;
    }
    return out + eol;
  }
  const rows = Math.ceil(n / cols);
  for (let r = 0; r < rows; r++) {
    let col = 0;
    let f = r;
    let pos = 0;
    for (;;) {
      const maxLen = fmt[col++]!;
      out += items[f]!;
      const nameLen = lens[f]!;
      f += rows;
      if (f >= n) break;
      out += indent(pos + nameLen, pos + maxLen);
      pos += maxLen;
    }
    out += eol;
  }
  return out;
}

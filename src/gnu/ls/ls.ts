/**
 * GNU `ls` (coreutils 9.1) for the bash tool, as it behaves with LC_ALL=C (byte-order sorting)
 * and TZ=UTC when stdout is not a terminal (always the case here): one name per line unless a
 * layout is asked for (-l, -C, -x, -m), names printed literally.
 *
 * Operands: files first (sorted like the listing), then each directory as a `dir:` block when
 * there is more than one operand (or -R), blocks separated by one blank line; a missing operand
 * is reported (`ls: cannot access 'x': No such file or directory`, exit 2). Sorting: name (byte
 * order), -t (newest first, ties by name), -S (largest first, ties by name), -U/-f (store
 * order), -X (extension), -v (version), all reversed by -r; --group-directories-first.
 *
 * Long format: `total N` in 1 KiB blocks, GNU column widths (widest value per column), dates
 * `Mon DD HH:MM` within six months of now else `Mon DD  YYYY`, in UTC.
 *
 * What the store has no notion of, and the fixed values used instead (shared by stat and du):
 *   - blocks: a file occupies ceil(size / 4096) 4 KiB blocks (ext4's allocation for a
 *     non-sparse file), a directory one; `total`, -s, stat's Blocks and du count these;
 *   - owner and group: `agent` / `agent`, uid and gid 1000;
 *   - link count: 1 for a file; 2 + its number of subdirectories for a directory (as on ext4);
 *   - inode: a stable 32-bit hash of the path (FNV-1a), never 0; device 0,42 (stat);
 *   - atime and ctime are the mtime; birth time is unknown (stat prints `-`).
 */
import { Buffer } from 'node:buffer';
import { byteCmp } from '../kit/bytes.js';
import { defineCommand, type Ctx, type CustomCommand, type FsStat, type IFileSystem, type Result } from '../kit/command.js';
import { errnoMessage } from '../kit/errno.js';
import { fnmatch } from '../kit/fnmatch.js';
import { getopt, type LongOpt } from '../kit/getopt.js';
import { shellQuote } from '../kit/quote.js';

// ---------------------------------------------------------------------------------------
// Shared helpers (also used by stat.ts and du.ts)
// ---------------------------------------------------------------------------------------

export const OWNER = 'agent';
export const GROUP = 'agent';
export const UID = 1000;
export const GID = 1000;

/** 1 KiB blocks allocated for an entry (ext4-like: whole 4 KiB blocks; a directory takes one). */
export function kib(st: FsStat): number {
  if (st.isDirectory) return 4;
  if (!st.isFile || isDevice(st)) return 0;
  return Math.ceil(st.size / 4096) * 4;
}

export function isDevice(st: FsStat): boolean {
  const t = st.mode & 0o170000;
  return t === 0o020000 || t === 0o060000;
}

/** A stable fake inode number for a path. */
export function inode(path: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(path, 'utf8')) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h === 0 ? 1 : h;
}

/** Link count: 1 for files, 2 + subdirectories for directories (as on ext4). */
export async function linkCount(fs: IFileSystem, path: string, st: FsStat): Promise<number> {
  if (!st.isDirectory) return 1;
  try {
    const kids = await fs.readdirWithFileTypes!(path);
    return 2 + kids.filter((k) => k.isDirectory).length;
  } catch {
    return 2;
  }
}

/** The ten-character mode string (`-rw-r--r--`). */
export function modeString(st: FsStat): string {
  const m = st.mode;
  const t = m & 0o170000;
  const type = st.isDirectory
    ? 'd'
    : st.isSymbolicLink
      ? 'l'
      : t === 0o020000
        ? 'c'
        : t === 0o060000
          ? 'b'
          : t === 0o010000
            ? 'p'
            : t === 0o140000
              ? 's'
              : '-';
  const rwx = (bits: number, special: boolean, ch: string) =>
    (bits & 4 ? 'r' : '-') + (bits & 2 ? 'w' : '-') + (special ? (bits & 1 ? ch : ch.toUpperCase()) : bits & 1 ? 'x' : '-');
  return type + rwx((m >> 6) & 7, (m & 0o4000) !== 0, 's') + rwx((m >> 3) & 7, (m & 0o2000) !== 0, 's') + rwx(m & 7, (m & 0o1000) !== 0, 't');
}

/** Permission bits of a mode (as GNU's %a): type bits stripped. */
export function permBits(st: FsStat): number {
  return st.mode & 0o7777;
}

const SUFFIXES = 'KMGTPEZYRQ';

/**
 * GNU human_readable with human_ceiling | human_autoscale | human_base_1024 | human_SI:
 * `1023`, `1.0K`, `2.1K` (2049 bytes, rounded up), `10K`, `40K`, `1.0M`.
 */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return String(bytes);
  let e = 0;
  let div = 1;
  while (Math.floor(bytes / (div * 1024)) >= 1024 && e < SUFFIXES.length - 1) {
    div *= 1024;
    e++;
  }
  div *= 1024;
  const amt = Math.floor(bytes / div);
  if (amt < 10) {
    const tenths = Math.ceil((bytes * 10) / div);
    if (tenths < 100) return `${Math.floor(tenths / 10)}.${tenths % 10}${SUFFIXES[e]}`;
    return `10${SUFFIXES[e]}`;
  }
  const v = Math.ceil(bytes / div);
  if (v >= 1024 && e < SUFFIXES.length - 1) return `1.0${SUFFIXES[e + 1]}`;
  return `${v}${SUFFIXES[e]}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number) => String(n).padStart(2, '0');

/** `2026-01-02 03:04:05.678000000 +0000` (UTC, nanoseconds from the millisecond mtime). */
export function fullTime(d: Date): string {
  const ms = d.getTime();
  const nanos = String(((ms % 1000) + 1000) % 1000).padStart(3, '0') + '000000';
  return `${isoDate(d)} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${nanos} +0000`;
}

function isoDate(d: Date): string {
  const y = d.getUTCFullYear();
  return `${y < 0 ? '-' + String(-y).padStart(4, '0') : String(y).padStart(4, '0')}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())}`;
}

/** Seconds since the epoch (floor), as %Y. */
export function epochSeconds(d: Date): number {
  return Math.floor(d.getTime() / 1000);
}

const NAMED: Record<number, string> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r' };
const printable = (b: number) => b >= 0x20 && b < 0x7f;

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

// ---------------------------------------------------------------------------------------
// ls
// ---------------------------------------------------------------------------------------

const LS_LONGS: LongOpt[] = [
  ['all', 'a'],
  ['almost-all', 'A'],
  ['author', 'author'],
  ['escape', 'b'],
  ['block-size', 'block-size', 'required'],
  ['ignore-backups', 'B'],
  ['classify', 'F', 'optional'],
  ['color', 'color', 'optional'],
  ['colour', 'color', 'optional'],
  ['directory', 'd'],
  ['dired', 'D'],
  ['file-type', 'file-type'],
  ['format', 'format', 'required'],
  ['full-time', 'full-time'],
  ['group-directories-first', 'gdf'],
  ['no-group', 'G'],
  ['human-readable', 'h'],
  ['si', 'si'],
  ['dereference-command-line', 'H'],
  ['dereference-command-line-symlink-to-dir', 'dcl'],
  ['hide', 'hide', 'required'],
  ['hyperlink', 'hyperlink', 'optional'],
  ['indicator-style', 'indicator-style', 'required'],
  ['inode', 'i'],
  ['ignore', 'I', 'required'],
  ['kibibytes', 'k'],
  ['dereference', 'L'],
  ['numeric-uid-gid', 'n'],
  ['literal', 'N'],
  ['hide-control-chars', 'q'],
  ['show-control-chars', 'show-control-chars'],
  ['quote-name', 'Q'],
  ['quoting-style', 'quoting-style', 'required'],
  ['reverse', 'r'],
  ['recursive', 'R'],
  ['size', 's'],
  ['sort', 'sort', 'required'],
  ['time', 'time', 'required'],
  ['time-style', 'time-style', 'required'],
  ['tabsize', 'T', 'required'],
  ['width', 'w', 'required'],
  ['context', 'Z'],
  ['zero', 'zero'],
  ['help', 'help'],
  ['version', 'version'],
].map(([name, key, arg]) => ({ name: name!, key: key!, arg: (arg ?? 'none') as LongOpt['arg'] }));

const LS_TRY = "Try 'ls --help' for more information.\n";

interface Ent {
  /** Name as printed (operand as given, or the entry name in a directory). */
  name: string;
  /** Absolute path. */
  path: string;
  st: FsStat;
  links?: number;
}

type SortKey = 'name' | 'time' | 'size' | 'none' | 'extension' | 'version' | 'width';
type Format = 'one' | 'long' | 'columns' | 'across' | 'commas';

interface LsOpts {
  all: boolean;
  almostAll: boolean;
  directory: boolean;
  recursive: boolean;
  reverse: boolean;
  sort: SortKey;
  format: Format;
  human: boolean;
  indicator: 'none' | 'slash' | 'file-type' | 'classify';
  showOwner: boolean;
  showGroup: boolean;
  numeric: boolean;
  inode: boolean;
  size: boolean;
  timeStyle: 'locale' | 'full-iso' | 'long-iso' | 'iso' | string;
  groupDirs: boolean;
  ignore: string[];
  hide: string[];
  ignoreBackups: boolean;
  width: number;
  zero: boolean;
  quoting: 'literal' | 'c' | 'escape' | 'shell' | 'shell-always';
}

/** GNU's filevercmp, simplified: digit runs compare numerically. */
function versionCmp(a: string, b: string): number {
  const split = (s: string) => s.match(/\d+|\D+/g) ?? [];
  const x = split(a);
  const y = split(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q) continue;
    const dp = /^\d/.test(p);
    const dq = /^\d/.test(q);
    if (dp && dq) {
      const d = BigInt(p) - BigInt(q);
      if (d !== 0n) return d < 0n ? -1 : 1;
      continue;
    }
    return byteCmp(p, q);
  }
  return x.length - y.length || byteCmp(a, b);
}

function extOf(name: string): string {
  const i = name.lastIndexOf('.');
  return i <= 0 ? '' : name.slice(i);
}

function sortEnts(ents: Ent[], o: LsOpts): Ent[] {
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
      cmp = (a, b) => versionCmp(a.name, b.name);
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

function displayName(name: string, o: LsOpts): string {
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
async function formatEnts(ents: Ent[], o: LsOpts, fs: IFileSystem, now: number): Promise<string> {
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
function indent(from: number, to: number): string {
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
function columns(items: string[], lens: number[], across: boolean, width: number, eol: string): string {
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

async function tryStat(fs: IFileSystem, path: string): Promise<FsStat | null> {
  try {
    return await fs.stat(path);
  } catch {
    return null;
  }
}

function joinName(dir: string, name: string): string {
  return dir.endsWith('/') ? dir + name : dir + '/' + name;
}

function parseLs(args: string[]): (LsOpts & { operands: string[] }) | { error: string; code: number; stdout?: string } {
  const p = getopt('ls', args, 'aAbBcCdDfFgGhHiI:klLmnNopqQrRsStT:uUvw:xXZ1', LS_LONGS);
  if ('error' in p) return { error: p.error + LS_TRY, code: 2 };
  const o: LsOpts = {
    all: false,
    almostAll: false,
    directory: false,
    recursive: false,
    reverse: false,
    sort: 'name',
    format: 'one',
    human: false,
    indicator: 'none',
    showOwner: true,
    showGroup: true,
    numeric: false,
    inode: false,
    size: false,
    timeStyle: 'locale',
    groupDirs: false,
    ignore: [],
    hide: [],
    ignoreBackups: false,
    width: 80,
    zero: false,
    quoting: 'literal',
  };
  const bad = (what: string, v: string, valid: string[]) => ({
    error: `ls: invalid argument '${v}' for '--${what}'\nValid arguments are:\n${valid
      .map(
        (x) =>
          `  - ${x
            .split('|')
            .map((y) => `'${y}'`)
            .join(', ')}`,
      )
      .join('\n')}\n${LS_TRY}`,
    code: 1,
  });
  for (const [k, v] of p.opts) {
    switch (k) {
      case 'a':
        o.all = true;
        o.almostAll = false;
        break;
      case 'A':
        o.almostAll = true;
        o.all = false;
        break;
      case 'B':
        o.ignoreBackups = true;
        break;
      case 'c':
      case 'u':
        break; // ctime/atime: the store has only mtime
      case 'C':
        o.format = 'columns';
        break;
      case 'x':
        o.format = 'across';
        break;
      case 'm':
        o.format = 'commas';
        break;
      case '1':
        if (o.format !== 'long') o.format = 'one';
        break;
      case 'd':
        o.directory = true;
        break;
      case 'f':
        o.all = true;
        o.sort = 'none';
        break;
      case 'F': {
        if (v !== undefined && !['always', 'yes', 'force', 'auto', 'tty', 'if-tty', 'never', 'no', 'none'].includes(v))
          return bad('classify', v, ['always|yes|force', 'never|no|none', 'auto|tty|if-tty']);
        if (v === undefined || ['always', 'yes', 'force'].includes(v)) o.indicator = 'classify';
        else if (['never', 'no', 'none'].includes(v)) o.indicator = 'none';
        break;
      }
      case 'file-type':
        o.indicator = 'file-type';
        break;
      case 'p':
        o.indicator = 'slash';
        break;
      case 'indicator-style': {
        const valid = ['none', 'slash', 'file-type', 'classify'];
        if (!valid.includes(v!)) return bad('indicator-style', v!, valid);
        o.indicator = v as LsOpts['indicator'];
        break;
      }
      case 'l':
        o.format = 'long';
        break;
      case 'g':
        o.format = 'long';
        o.showOwner = false;
        break;
      case 'o':
        o.format = 'long';
        o.showGroup = false;
        break;
      case 'G':
        o.showGroup = false;
        break;
      case 'n':
        o.format = 'long';
        o.numeric = true;
        break;
      case 'h':
        o.human = true;
        break;
      case 'i':
        o.inode = true;
        break;
      case 's':
        o.size = true;
        break;
      case 'I':
        o.ignore.push(v!);
        break;
      case 'hide':
        o.hide.push(v!);
        break;
      case 'r':
        o.reverse = true;
        break;
      case 'R':
        o.recursive = true;
        break;
      case 't':
        o.sort = 'time';
        break;
      case 'S':
        o.sort = 'size';
        break;
      case 'U':
        o.sort = 'none';
        break;
      case 'v':
        o.sort = 'version';
        break;
      case 'X':
        o.sort = 'extension';
        break;
      case 'Q':
        o.quoting = 'c';
        break;
      case 'b':
        o.quoting = 'escape';
        break;
      case 'N':
        o.quoting = 'literal';
        break;
      case 'quoting-style': {
        const map: Record<string, LsOpts['quoting']> = {
          literal: 'literal',
          shell: 'shell',
          'shell-always': 'shell-always',
          'shell-escape': 'shell',
          'shell-escape-always': 'shell-always',
          c: 'c',
          escape: 'escape',
        };
        if (!Object.hasOwn(map, v!)) return bad('quoting-style', v!, Object.keys(map).concat(['locale', 'clocale']));
        o.quoting = map[v!] ?? 'literal';
        break;
      }
      case 'sort': {
        const valid = ['none', 'time', 'size', 'extension', 'version', 'width'];
        if (!valid.includes(v!)) return bad('sort', v!, valid);
        o.sort = v === 'none' ? 'none' : (v as SortKey);
        break;
      }
      case 'format': {
        const map: Record<string, Format> = {
          verbose: 'long',
          long: 'long',
          commas: 'commas',
          horizontal: 'across',
          across: 'across',
          vertical: 'columns',
          'single-column': 'one',
        };
        if (!Object.hasOwn(map, v!)) return bad('format', v!, ['verbose|long', 'commas', 'horizontal|across', 'vertical', 'single-column']);
        o.format = map[v!]!;

        break;
      }
      case 'full-time':
        o.format = 'long';
        o.timeStyle = 'full-iso';
        break;
      case 'time-style': {
        const s = v!.replace(/^posix-/, '');
        o.timeStyle = ['full-iso', 'long-iso', 'iso'].includes(s) ? s : 'locale';
        break;
      }
      case 'gdf':
        o.groupDirs = true;
        break;
      case 'w': {
        const n = Number(v);
        if (!/^\d+$/.test(v!)) return { error: `ls: invalid line width: '${v}'\n`, code: 2 };
        o.width = n === 0 ? Infinity : n;
        break;
      }
      case 'zero':
        o.zero = true;
        break;
      case 'help':
        return {
          error: '',
          code: 0,
          stdout:
            'Usage: ls [OPTION]... [FILE]...\nList information about the FILEs (the current directory by default).\nSort entries alphabetically if none of -cftuvSUX nor --sort is specified.\n',
        };
      case 'version':
        return { error: '', code: 0, stdout: 'ls (GNU coreutils) 9.1\n' };
      default:
        break; // accepted and without effect here: -b -D -H -k -L -N -q -T -Z --color --si --author ...
    }
  }
  return { ...o, operands: p.operands };
}

export function lsCommand(): CustomCommand {
  return defineCommand('ls', async (args, ctx: Ctx): Promise<Result> => {
    const parsed = parseLs(args);
    if ('error' in parsed) return { stdout: parsed.stdout ?? '', stderr: parsed.error, exitCode: parsed.code };
    const o = parsed;
    const operands = o.operands;
    const fs = ctx.fs;
    const now = Date.now();
    let stderr = '';
    let exitCode = 0;
    const chunks: string[] = [];

    const visible = (name: string) => {
      if (!o.all && !o.almostAll && name.startsWith('.')) return false;
      if (o.ignoreBackups && name.endsWith('~')) return false;
      if (o.ignore.some((g) => fnmatch(g, name))) return false;
      if (!o.all && !o.almostAll && o.hide.some((g) => fnmatch(g, name))) return false;
      return true;
    };

    /** The content of a directory as entries (with . and .. under -a). */
    const listDir = async (path: string): Promise<Ent[]> => {
      const kids = await fs.readdirWithFileTypes!(path);
      const ents: Ent[] = [];
      if (o.all) {
        const self = await fs.stat(path);
        const parentPath = path === '/' ? '/' : path.replace(/\/[^/]+\/?$/, '') || '/';
        const parent = (await tryStat(fs, parentPath)) ?? self;
        ents.push({ name: '.', path, st: self }, { name: '..', path: parentPath, st: parent });
      }
      const shown = kids.filter((k) => visible(k.name));
      const stats = await Promise.all(shown.map((k) => tryStat(fs, joinName(path, k.name))));
      shown.forEach((k, i) => {
        const st = stats[i];
        if (st) ents.push({ name: k.name, path: joinName(path, k.name), st });
      });
      return ents;
    };

    /** GNU print_dir: header, total, entries; then (with -R) the subdirectories, depth first. */
    let first = true;
    let printDirName = true;
    const printDir = async (name: string, path: string): Promise<void> => {
      let ents: Ent[];
      try {
        ents = sortEnts(await listDir(path), o);
      } catch (err) {
        stderr += `ls: cannot open directory ${shellQuote(name)}: ${errnoMessage(err)}\n`;
        exitCode = 2;
        return;
      }
      let out = '';
      if (o.recursive || printDirName) {
        if (!first) out += '\n';
        out += `${name}:\n`;
      }
      first = false;
      if (o.format === 'long' || o.size) {
        const total = ents.reduce((s, e) => s + kib(e.st), 0);
        out += `total ${o.human ? humanSize(total * 1024) : total}\n`;
      }
      out += await formatEnts(ents, o, fs, now);
      chunks.push(out);
      if (o.recursive) {
        for (const e of ents) {
          if (!e.st.isDirectory || e.name === '.' || e.name === '..') continue;
          await printDir(joinName(name, e.name), e.path);
        }
      }
    };

    const targets = operands.length ? operands : ['.'];
    const files: Ent[] = [];
    const dirs: Ent[] = [];
    for (const op of targets) {
      const path = fs.resolvePath(ctx.cwd, op);
      const st = await tryStat(fs, path);
      if (!st) {
        stderr += `ls: cannot access ${shellQuote(op)}: No such file or directory\n`;
        exitCode = 2;
        continue;
      }
      if (op.endsWith('/') && !st.isDirectory) {
        stderr += `ls: cannot access ${shellQuote(op)}: Not a directory\n`;
        exitCode = 2;
        continue;
      }
      const e = { name: op, path, st };
      if (st.isDirectory && !o.directory) dirs.push(e);
      else files.push(e);
    }
    const sortedFiles = sortEnts(files, o);
    const sortedDirs = sortEnts(dirs, o);
    if (sortedFiles.length) {
      chunks.push(await formatEnts(sortedFiles, o, fs, now));
      first = false;
    } else if (targets.length <= 1 && sortedDirs.length === 1) printDirName = false;
    for (const d of sortedDirs) await printDir(d.name, d.path);
    return { stdout: chunks.join(''), stderr, exitCode };
  });
}

/**
 * GNU `diff` (diffutils 3.8) for two files, in its normal format (`2c2`, `< old`, `---`,
 * `> new`) and unified format (`-u`, `-U N`, headers with GNU's timestamps), with -q, -s, -i,
 * -w, -b, -B and --strip-trailing-cr. just-bash's prints a unified-style diff under a banner
 * for every format. Anything else (directories, -r, -c, -y, process substitutions it cannot
 * read) goes to just-bash's own diff.
 */
import { diffArrays } from 'diff';
import { defineCommand, decodeBytesToUtf8, type CustomCommand, type Ctx, type Result } from '../kit/command.js';
import { getopt, type LongOpt } from '../kit/getopt.js';

const LONGS: LongOpt[] = [
  { name: 'unified', key: 'unified', arg: 'optional' },
  { name: 'brief', key: 'q', arg: 'none' },
  { name: 'report-identical-files', key: 's', arg: 'none' },
  { name: 'ignore-case', key: 'i', arg: 'none' },
  { name: 'ignore-all-space', key: 'w', arg: 'none' },
  { name: 'ignore-space-change', key: 'b', arg: 'none' },
  { name: 'ignore-blank-lines', key: 'B', arg: 'none' },
  { name: 'strip-trailing-cr', key: 'strip-cr', arg: 'none' },
  { name: 'text', key: 'a', arg: 'none' },
];

interface Side {
  name: string;
  lines: string[]; // without their newline
  lastHasNewline: boolean;
  mtimeMs: number;
}

function splitLines(text: string): { lines: string[]; lastHasNewline: boolean } {
  if (text === '') return { lines: [], lastHasNewline: true };
  const lastHasNewline = text.endsWith('\n');
  const lines = (lastHasNewline ? text.slice(0, -1) : text).split('\n');
  return { lines, lastHasNewline };
}

/** GNU's timestamp in unified headers: 2026-11-22 08:00:00.123000000 +0000 (the bash tool runs in UTC). */
function stamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${p(d.getUTCMilliseconds(), 3)}000000 +0000`;
}

/** An edit: lines [a1, a2) of the old side replaced by [b1, b2) of the new side. */
interface Change {
  a1: number;
  a2: number;
  b1: number;
  b2: number;
}

function changes(a: Side, b: Side, key: (line: string) => string, ignoreBlank: boolean): Change[] {
  // A last line without its newline is a different line from the same text with one.
  const tag = (s: Side) => s.lines.map((l, i) => key(l) + (i === s.lines.length - 1 && !s.lastHasNewline ? '\u0000nonl' : ''));
  const parts = diffArrays(tag(a), tag(b));
  const out: Change[] = [];
  let i = 0;
  let j = 0;
  let cur: Change | null = null;
  for (const part of parts) {
    const n = part.count ?? part.value.length;
    if (!part.added && !part.removed) {
      if (cur) out.push(cur);
      cur = null;
      i += n;
      j += n;
      continue;
    }
    cur ??= { a1: i, a2: i, b1: j, b2: j };
    if (part.removed) {
      i += n;
      cur.a2 = i;
    } else {
      j += n;
      cur.b2 = j;
    }
  }
  if (cur) out.push(cur);
  if (!ignoreBlank) return out;
  return out.filter((c) => a.lines.slice(c.a1, c.a2).some((l) => l.trim() !== '') || b.lines.slice(c.b1, c.b2).some((l) => l.trim() !== ''));
}

const range = (lo: number, hi: number) => (hi - lo <= 1 ? String(hi - lo === 1 ? lo + 1 : lo) : `${lo + 1},${hi}`);

function lineOut(prefix: string, s: Side, i: number): string {
  const text = `${prefix}${s.lines[i]}\n`;
  return i === s.lines.length - 1 && !s.lastHasNewline ? text + '\\ No newline at end of file\n' : text;
}

function normalFormat(a: Side, b: Side, cs: Change[]): string {
  let out = '';
  for (const c of cs) {
    const op = c.a1 === c.a2 ? 'a' : c.b1 === c.b2 ? 'd' : 'c';
    const left = op === 'a' ? String(c.a1) : range(c.a1, c.a2);
    const right = op === 'd' ? String(c.b1) : range(c.b1, c.b2);
    out += `${left}${op}${right}\n`;
    for (let i = c.a1; i < c.a2; i++) out += lineOut('< ', a, i);
    if (op === 'c') out += '---\n';
    for (let j = c.b1; j < c.b2; j++) out += lineOut('> ', b, j);
  }
  return out;
}

function unifiedFormat(a: Side, b: Side, cs: Change[], context: number): string {
  let out = `--- ${a.name}\t${stamp(a.mtimeMs)}\n+++ ${b.name}\t${stamp(b.mtimeMs)}\n`;
  // Changes closer than 2 × context share a hunk.
  const groups: Change[][] = [];
  for (const c of cs) {
    const g = groups[groups.length - 1];
    if (g && c.a1 - g[g.length - 1]!.a2 <= 2 * context) g.push(c);
    else groups.push([c]);
  }
  for (const g of groups) {
    const first = g[0]!;
    const last = g[g.length - 1]!;
    const a1 = Math.max(0, first.a1 - context);
    const a2 = Math.min(a.lines.length, last.a2 + context);
    const b1 = first.b1 - (first.a1 - a1);
    const b2 = last.b2 + (a2 - last.a2);
    const span = (lo: number, hi: number) => (hi - lo === 1 ? `${lo + 1}` : `${hi - lo === 0 ? lo : lo + 1},${hi - lo}`);
    out += `@@ -${span(a1, a2)} +${span(b1, b2)} @@\n`;
    let i = a1;
    for (const c of g) {
      for (; i < c.a1; i++) out += lineOut(' ', a, i);
      for (let k = c.a1; k < c.a2; k++) out += lineOut('-', a, k);
      for (let k = c.b1; k < c.b2; k++) out += lineOut('+', b, k);
      i = c.a2;
    }
    for (; i < a2; i++) out += lineOut(' ', a, i);
  }
  return out;
}

export function diffCommand(): CustomCommand {
  return defineCommand('diff', async (args, ctx: Ctx): Promise<Result> => {
    const fallback = () => ctx.origCommand!(args);
    const p = getopt('diff', args, 'uU:qsiwbBa', LONGS);
    if ('error' in p) return { stdout: '', stderr: `${p.error}diff: Try 'diff --help' for more information.\n`, exitCode: 2 };
    let context = -1;
    let brief = false;
    let reportSame = false;
    let ignoreCase = false;
    let allSpace = false;
    let spaceChange = false;
    let ignoreBlank = false;
    let stripCr = false;
    for (const [k, v] of p.opts) {
      if (k === 'u') context = 3;
      else if (k === 'U' || k === 'unified') {
        const n = v === undefined ? 3 : Number(v);
        if (!Number.isInteger(n) || n < 0)
          return { stdout: '', stderr: `diff: invalid context length '${v}'\ndiff: Try 'diff --help' for more information.\n`, exitCode: 2 };
        context = n;
      } else if (k === 'q') brief = true;
      else if (k === 's') reportSame = true;
      else if (k === 'i') ignoreCase = true;
      else if (k === 'w') allSpace = true;
      else if (k === 'b') spaceChange = true;
      else if (k === 'B') ignoreBlank = true;
      else if (k === 'strip-cr') stripCr = true;
    }
    if (p.operands.length !== 2) {
      const msg = p.operands.length < 2 ? `missing operand after '${p.operands[0] ?? 'diff'}'` : `extra operand '${p.operands[2]}'`;
      return { stdout: '', stderr: `diff: ${msg}\ndiff: Try 'diff --help' for more information.\n`, exitCode: 2 };
    }
    const sides: Side[] = [];
    for (const name of p.operands) {
      let text: string;
      let mtimeMs = Date.now();
      if (name === '-') text = decodeBytesToUtf8(ctx.stdin);
      else {
        const path = ctx.fs.resolvePath(ctx.cwd, name);
        let st;
        try {
          st = await ctx.fs.stat(path);
        } catch {
          if (name.startsWith('/dev/fd/')) return fallback();
          return { stdout: '', stderr: `diff: ${name}: No such file or directory\n`, exitCode: 2 };
        }
        if (st.isDirectory) return fallback();
        mtimeMs = st.mtime.getTime();
        try {
          text = await ctx.fs.readFile(path);
        } catch {
          return fallback();
        }
      }
      if (stripCr) text = text.replace(/\r\n/g, '\n');
      sides.push({ name, ...splitLines(text), mtimeMs });
    }
    const [a, b] = sides as [Side, Side];
    const key = (line: string) => {
      let k = ignoreCase ? line.toLowerCase() : line;
      if (allSpace) k = k.replace(/\s+/g, '');
      else if (spaceChange) k = k.replace(/\s+/g, ' ').replace(/ $/, '');
      return k;
    };
    const cs = changes(a, b, key, ignoreBlank);
    if (cs.length === 0) {
      return { stdout: reportSame ? `Files ${a.name} and ${b.name} are identical\n` : '', stderr: '', exitCode: 0 };
    }
    if (brief) return { stdout: `Files ${a.name} and ${b.name} differ\n`, stderr: '', exitCode: 1 };
    return { stdout: context >= 0 ? unifiedFormat(a, b, cs, context) : normalFormat(a, b, cs), stderr: '', exitCode: 1 };
  });
}

/** GNU wc (coreutils 9.1): counts, column widths, --total. */
import { Buffer } from 'node:buffer';
import { bytesResult, utf8ToLatin1 } from '../kit/bytes.js';
import { defineCommand, type Command, type Ctx, type Result } from '../kit/command.js';
import { passHelp, usage } from '../kit/coreutils.js';
import { GetoptError, parseOptions, type Parsed } from '../kit/getopt.js';
import { Inputs } from '../kit/input.js';
import { inOrder, OrderedErrors } from '../kit/order.js';
import { quote, quotef } from '../kit/quote.js';

// ---------------------------------------------------------------------------------------
// wc
// ---------------------------------------------------------------------------------------

interface Counts {
  lines: number;
  words: number;
  chars: number;
  bytes: number;
  maxLen: number;
}

function countBytes(b: string, wantChars: boolean, wantMax: boolean): Counts {
  let lines = 0;
  let words = 0;
  let inWord = false;
  let linepos = 0;
  let maxLen = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b.charCodeAt(i);
    if (c === 10) {
      lines++;
      if (linepos > maxLen) maxLen = linepos;
      linepos = 0;
      if (inWord) words++;
      inWord = false;
    } else if (c === 13 || c === 12) {
      if (linepos > maxLen) maxLen = linepos;
      linepos = 0;
      if (inWord) words++;
      inWord = false;
    } else if (c === 9) {
      linepos += 8 - (linepos % 8);
      if (inWord) words++;
      inWord = false;
    } else if (c === 32 || c === 11) {
      if (c === 32) linepos++;
      if (inWord) words++;
      inWord = false;
    } else if (c > 32 && c < 127) {
      linepos++;
      inWord = true;
    }
  }
  if (inWord) words++;
  if (linepos > maxLen) maxLen = linepos;
  let chars = b.length;
  if (wantChars) {
    // C.UTF-8: count well-formed characters; invalid bytes are not characters.
    chars = 0;
    const buf = Buffer.from(b, 'latin1');
    for (let i = 0; i < buf.length;) {
      const c = buf[i]!;
      const len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
      if (len === 0 || i + len > buf.length) {
        i++;
        continue;
      }
      let ok = true;
      for (let k = 1; k < len; k++) if ((buf[i + k]! & 0xc0) !== 0x80) ok = false;
      if (ok && len === 3 && ((c === 0xe0 && buf[i + 1]! < 0xa0) || (c === 0xed && buf[i + 1]! > 0x9f))) ok = false;
      if (ok && len === 4 && ((c === 0xf0 && buf[i + 1]! < 0x90) || (c === 0xf4 && buf[i + 1]! > 0x8f))) ok = false;
      if (!ok) {
        i++;
        continue;
      }
      chars++;
      i += len;
    }
  }
  void wantMax;
  return { lines, words, chars, bytes: b.length, maxLen };
}

type Want = { l: boolean; w: boolean; m: boolean; c: boolean; L: boolean };
type Total = 'auto' | 'always' | 'only' | 'never';

/** --total's argument: an unambiguous prefix of a choice counts, as argmatch allows. */
function totalArg(v: string): Total | Result {
  const opts = ['auto', 'always', 'only', 'never'] as const;
  const hit = opts.filter((o) => o.startsWith(v));
  if (hit.length !== 1 || v === '') {
    return usage(
      'wc',
      `wc: ${hit.length > 1 ? 'ambiguous' : 'invalid'} argument ${quote(v)} for '--total'\nValid arguments are:\n  - 'auto'\n  - 'always'\n  - 'only'\n  - 'never'\n`,
    );
  }
  return hit[0]!;
}

/** The counts asked for and --total, or the error to answer with. */
function wcOptions(opts: Parsed['opts']): { want: Want; total: Total } | Result {
  const want: Want = { l: false, w: false, m: false, c: false, L: false };
  let total: Total = 'auto';
  for (const [k, v] of opts) {
    if (k === 'T') {
      const t = totalArg(v!);
      if (typeof t !== 'string') return t;
      total = t;
    } else if (k === 'F') return { stdout: '', stderr: 'wc: --files0-from is not supported\n', exitCode: 1 };
    else want[k as keyof Want] = true;
  }
  if (!want.l && !want.w && !want.m && !want.c && !want.L) want.l = want.w = want.c = true;
  return { want, total };
}

/** The column width, from a stat of every operand first, as GNU does. */
async function columnWidth(ctx: Ctx, files: (string | null)[], nprint: number): Promise<number> {
  if (files.length === 1 && nprint === 1) return 1;
  type St = { failed: boolean; regular: boolean; size: number };
  const stats: St[] = [];
  for (const f of files) {
    if (f === null || f === '-') {
      stats.push({ failed: false, regular: false, size: 0 });
      continue;
    }
    try {
      const st = await ctx.fs.stat(ctx.fs.resolvePath(ctx.cwd, f));
      stats.push({ failed: false, regular: st.isFile, size: st.isFile ? st.size : 0 });
    } catch {
      stats.push({ failed: true, regular: false, size: 0 });
    }
  }
  if (stats[0]!.failed) return 1;
  let minimum = 1;
  let regularTotal = 0;
  for (const s of stats) {
    if (s.failed) continue;
    if (s.regular) regularTotal += s.size;
    else minimum = 7;
  }
  return Math.max(String(regularTotal).length, minimum);
}

function formatCounts(c: Counts, name: string | null, want: Want, width: number): string {
  const cols: number[] = [];
  if (want.l) cols.push(c.lines);
  if (want.w) cols.push(c.words);
  if (want.m) cols.push(c.chars);
  if (want.c) cols.push(c.bytes);
  if (want.L) cols.push(c.maxLen);
  const s = cols.map((x) => String(x).padStart(width)).join(' ');
  return (name === null ? s : `${s} ${utf8ToLatin1(name)}`) + '\n';
}

function addCounts(sum: Counts, c: Counts): void {
  sum.lines += c.lines;
  sum.words += c.words;
  sum.chars += c.chars;
  sum.bytes += c.bytes;
  if (c.maxLen > sum.maxLen) sum.maxLen = c.maxLen;
}

/** A directory is reported and counted as empty; any other failure is reported and skipped. */
async function readOperand(io: Inputs, f: string | null): Promise<{ bytes: string | null; err: string }> {
  if (f === null || f === '-') return { bytes: io.stdin(), err: '' };
  const inp = await io.read(f);
  if (inp.ok) return { bytes: inp.bytes, err: '' };
  return { bytes: inp.code === 'EISDIR' ? '' : null, err: `wc: ${quotef(f)}: ${inp.text}\n` };
}

export function wcCommand(): Command {
  return defineCommand('wc', async (argv, ctx) => {
    const help = await passHelp(argv, ctx);
    if (help) return help;
    let parsed: Parsed;
    try {
      parsed = parseOptions(argv, 'clLmw', [
        { name: 'bytes', key: 'c', arg: 'none' },
        { name: 'chars', key: 'm', arg: 'none' },
        { name: 'lines', key: 'l', arg: 'none' },
        { name: 'words', key: 'w', arg: 'none' },
        { name: 'max-line-length', key: 'L', arg: 'none' },
        { name: 'files0-from', key: 'F', arg: 'required' },
      ]);
    } catch (e) {
      if (e instanceof GetoptError) return usage('wc', `wc: ${e.message}\n`);
      throw e;
    }
    const options = wcOptions(parsed.opts);
    if (!('want' in options)) return options;
    const { want, total } = options;
    const nprint = Number(want.l) + Number(want.w) + Number(want.m) + Number(want.c) + Number(want.L);
    const files = parsed.operands.length ? parsed.operands : [null];
    const io = new Inputs(ctx);
    const width = total === 'only' ? 1 : await columnWidth(ctx, files, nprint);
    const sum: Counts = { lines: 0, words: 0, chars: 0, bytes: 0, maxLen: 0 };
    const out: string[] = [];
    const errors = new OrderedErrors(out);
    for (const f of files) {
      const r = await readOperand(io, f);
      if (r.err) errors.push(r.err);
      if (r.bytes === null) continue;
      const c = countBytes(r.bytes, want.m, want.L);
      addCounts(sum, c);
      if (total !== 'only') out.push(formatCounts(c, f, want, width));
    }
    if (total === 'always' || total === 'only' || (total === 'auto' && files.length > 1))
      out.push(formatCounts(sum, total === 'only' ? null : 'total', want, width));
    const err = errors.join();
    // For `2>&1`: each message after the lines printed before it (kit/order.ts).
    const result = bytesResult(out.join(''), err, err ? 1 : 0);
    return inOrder(result, () => errors.chunks(result.stdout));
  });
}

/**
 * `head`, `tail`, `wc`, `cat`, `sort` and `uniq` for the bash tool, faithful to GNU coreutils 9.1
 * under LC_ALL=C: the same options (getopt_long parsing with permutation and abbreviations),
 * output layout (headers, column widths, `%7d` counts), diagnostics (coreutils' shell-escape
 * quoting of file names) and exit codes.
 *
 * Data is handled as bytes throughout (a latin1 string is a byte string: char code = byte), so
 * `sort` compares bytes like `LC_ALL=C`, `head -c` cuts bytes, and binary files pass through
 * unchanged. Output is returned as bytes (`stdoutKind: 'bytes'`), so pipes see the exact bytes.
 *
 * Known differences from GNU:
 * - just-bash shows a top-level byte output that is not valid UTF-8 as Latin-1. `head -c` /
 *   `tail -c` output that is valid UTF-8 except for a character cut at its start or end is
 *   therefore returned as text with U+FFFD (what a UTF-8 reader of GNU's output sees); piped into
 *   a byte counter such a cut character counts 3 bytes instead of its remaining 1–3.
 * - `wc` on standard input cannot tell a redirected regular file from a pipe: it uses the pipe's
 *   column width (7) when several counts are printed.
 * - `wc -m` counts characters as in C.UTF-8 (the service's locale); words and `-L` follow C.
 * - `sort -R`, `--parallel`, `-T`, `--compress-program` and `--files0-from` are not supported.
 */
import { Buffer } from 'node:buffer';
import { bytesResult, isValidUtf8, utf8ToLatin1 } from '../gnu/kit/bytes.js';
import { defineCommand, type Ctx, type Command, type CustomCommand, type Result } from '../gnu/kit/command.js';
import { errnoMessage } from '../gnu/kit/errno.js';
import { GetoptError, parseOptions, type Parsed } from '../gnu/kit/getopt.js';
import { Inputs, type Input } from '../gnu/kit/input.js';
import { quote, quotef } from '../gnu/kit/quote.js';

// ---------------------------------------------------------------------------------------
// Shared: output
// ---------------------------------------------------------------------------------------

/**
 * Output of a byte cut (`head -c`, `tail -c`): bytes, unless it is UTF-8 text whose first or
 * last character was cut, which just-bash would show as Latin-1 — then text with U+FFFD.
 */
function cutResult(stdout: string, stderr: string, exitCode: number): Result {
  const buf = Buffer.from(stdout, 'latin1');
  if (isValidUtf8(buf)) return bytesResult(stdout, stderr, exitCode);
  let s = 0;
  while (s < 3 && s < buf.length && (buf[s]! & 0xc0) === 0x80) s++;
  let e = buf.length;
  for (let k = 0; k < 3 && e > s; k++) {
    const c = buf[e - 1]!;
    if ((c & 0xc0) === 0x80) e--;
    else {
      if (c >= 0xc0) e--;
      break;
    }
  }
  if (isValidUtf8(buf.subarray(s, e))) return { stdout: buf.toString('utf8'), stderr, exitCode, stdoutKind: 'text' } as Result;
  return bytesResult(stdout, stderr, exitCode);
}

function usage(prog: string, msg: string, code = 1): Result {
  return { stdout: '', stderr: `${msg}Try '${prog} --help' for more information.\n`, exitCode: code };
}

async function passHelp(args: string[], ctx: Ctx): Promise<Result | null> {
  const stop = args.indexOf('--');
  const scan = stop === -1 ? args : args.slice(0, stop);
  if ((scan.includes('--help') || scan.includes('--version')) && ctx.origCommand) return ctx.origCommand(args);
  return null;
}

/** xstrtoumax with coreutils' size suffixes (b k K m M G T P E Z Y R Q, with B / iB). */
function parseSize(s: string, blockB = true): bigint | null {
  const m = /^\+?(\d+)(?:([bkKmMGTPEZYRQ])(iB|B)?)?$/.exec(s);
  if (!m) return null;
  let n = BigInt(m[1]!);
  const suf = m[2];
  if (!suf) return n;
  if (suf === 'b') {
    if (!blockB || m[3]) return null;
    return n * 512n;
  }
  const pow = 'kKmMGTPEZYRQ'.indexOf(suf);
  const exp = BigInt(suf === 'k' || suf === 'K' ? 1 : suf === 'm' || suf === 'M' ? 2 : pow - 2);
  const base = m[3] === 'B' ? 1000n : 1024n;
  n *= base ** exp;
  return n;
}

const MAXN = BigInt(Number.MAX_SAFE_INTEGER);
const clampN = (n: bigint) => Number(n > MAXN ? MAXN : n);

// ---------------------------------------------------------------------------------------
// head
// ---------------------------------------------------------------------------------------

function headCommand(): Command {
  return defineCommand('head', async (argv, ctx) => {
    const help = await passHelp(argv, ctx);
    if (help) return help;
    let args = argv;
    let countLines = true;
    let n = 10n;
    let elide = false;
    let header: 'auto' | 'never' | 'always' = 'auto';
    let delim = '\n';
    const first = args[0];
    if (first && /^-\d/.test(first)) {
      const m = /^-(\d+)(.*)$/.exec(first)!;
      let mult = 1n;
      for (const c of m[2]!) {
        if (c === 'c') {
          countLines = false;
          mult = 1n;
        } else if (c === 'b' || c === 'k' || c === 'm') {
          countLines = false;
          mult = c === 'b' ? 512n : c === 'k' ? 1024n : 1048576n;
        } else if (c === 'l') countLines = true;
        else if (c === 'q') header = 'never';
        else if (c === 'v') header = 'always';
        else if (c === 'z') delim = '\0';
        else return usage('head', `head: invalid trailing option -- ${c}\n`);
      }
      n = BigInt(m[1]!) * mult;
      args = args.slice(1);
    }
    let parsed: Parsed;
    try {
      parsed = parseOptions(args, 'c:n:qvz', [
        { name: 'bytes', key: 'c', arg: 'required' },
        { name: 'lines', key: 'n', arg: 'required' },
        { name: 'quiet', key: 'q', arg: 'none' },
        { name: 'silent', key: 'q', arg: 'none' },
        { name: 'verbose', key: 'v', arg: 'none' },
        { name: 'zero-terminated', key: 'z', arg: 'none' },
      ]);
    } catch (e) {
      if (e instanceof GetoptError) return usage('head', `head: ${e.message}\n`);
      throw e;
    }
    for (const [k, v] of parsed.opts) {
      if (k === 'c' || k === 'n') {
        countLines = k === 'n';
        let s = v!;
        elide = s.startsWith('-');
        if (elide) s = s.slice(1);
        const x = parseSize(s);
        if (x === null) return { stdout: '', stderr: `head: invalid number of ${countLines ? 'lines' : 'bytes'}: ${quote(v!)}\n`, exitCode: 1 };
        n = x;
      } else if (k === 'q') header = 'never';
      else if (k === 'v') header = 'always';
      else if (k === 'z') delim = '\0';
    }
    const files = parsed.operands.length ? parsed.operands : ['-'];
    const showHeaders = header === 'always' || (header === 'auto' && files.length > 1);
    const io = new Inputs(ctx);
    const out: string[] = [];
    let err = '';
    let code = 0;
    let firstHeader = true;
    const N = clampN(n);
    for (const f of files) {
      const isStdin = f === '-';
      const inp = isStdin ? ({ ok: true, bytes: io.stdin() } as Input) : await io.read(f);
      if (!inp.ok && inp.code !== 'EISDIR') {
        err += `head: cannot open ${quote(f)} for reading: ${inp.text}\n`;
        code = 1;
        continue;
      }
      if (showHeaders) {
        out.push(`${firstHeader ? '' : '\n'}==> ${utf8ToLatin1(isStdin ? 'standard input' : f)} <==\n`);
        firstHeader = false;
      }
      if (!inp.ok) {
        err += `head: error reading ${quote(f)}: ${inp.text}\n`;
        code = 1;
        continue;
      }
      const b = inp.bytes;
      if (!countLines) out.push(elide ? b.slice(0, Math.max(0, b.length - N)) : b.slice(0, N));
      else if (!elide) {
        let pos = 0;
        for (let i = 0; i < N && pos < b.length; i++) {
          const j = b.indexOf(delim, pos);
          pos = j === -1 ? b.length : j + 1;
        }
        out.push(b.slice(0, pos));
      } else {
        // All but the last N lines; a final line without its delimiter counts as a line.
        let end = b.length;
        if (end > 0 && b[end - 1] !== delim) {
          if (N === 0) {
            out.push(b);
            continue;
          }
          const j = b.lastIndexOf(delim, end - 1);
          end = j + 1;
          for (let i = 1; i < N && end > 0; i++) end = b.lastIndexOf(delim, end - 2) + 1;
        } else {
          for (let i = 0; i < N && end > 0; i++) end = b.lastIndexOf(delim, end - 2) + 1;
        }
        out.push(b.slice(0, end));
      }
    }
    return countLines ? bytesResult(out.join(''), err, code) : cutResult(out.join(''), err, code);
  });
}

// ---------------------------------------------------------------------------------------
// tail
// ---------------------------------------------------------------------------------------

function tailCommand(): Command {
  return defineCommand('tail', async (argv, ctx) => {
    const help = await passHelp(argv, ctx);
    if (help) return help;
    let countLines = true;
    let n = 10n;
    let fromStart = false;
    let header: 'auto' | 'never' | 'always' = 'auto';
    let delim = '\n';
    let args = argv;
    // Obsolete forms: `tail -5`, `tail +5`, `tail -5c FILE` (one option, at most one file).
    const a1 = args[0];
    if (a1 && (args.length === 1 || (args.length === 2 && !(args[1]!.startsWith('-') && args[1]!.length > 1)))) {
      const m = /^([+-])(\d*)([bcl]?)(f?)$/.exec(a1);
      if (m && !(m[1] === '-' && m[2] === '' && m[3] !== 'b' && m[3] !== 'l') && !(m[1] === '+' && a1 === '+')) {
        fromStart = m[1] === '+';
        countLines = m[3] !== 'b' && m[3] !== 'c';
        n = m[2] ? BigInt(m[2]) * (m[3] === 'b' ? 512n : 1n) : m[3] === 'b' ? 5120n : 10n;
        args = args.slice(1);
      }
    }
    let parsed: Parsed;
    try {
      parsed = parseOptions(args, 'c:n:fFqs:vz', [
        { name: 'bytes', key: 'c', arg: 'required' },
        { name: 'lines', key: 'n', arg: 'required' },
        { name: 'follow', key: 'f', arg: 'optional' },
        { name: 'retry', key: 'r', arg: 'none' },
        { name: 'pid', key: 'p', arg: 'required' },
        { name: 'sleep-interval', key: 's', arg: 'required' },
        { name: 'max-unchanged-stats', key: 'm', arg: 'required' },
        { name: 'quiet', key: 'q', arg: 'none' },
        { name: 'silent', key: 'q', arg: 'none' },
        { name: 'verbose', key: 'v', arg: 'none' },
        { name: 'zero-terminated', key: 'z', arg: 'none' },
      ]);
    } catch (e) {
      if (e instanceof GetoptError) return usage('tail', `tail: ${e.message}\n`);
      throw e;
    }
    for (const [k, v] of parsed.opts) {
      if (k === 'c' || k === 'n') {
        countLines = k === 'n';
        let s = v!;
        fromStart = s.startsWith('+');
        if (s.startsWith('+') || s.startsWith('-')) s = s.slice(1);
        const x = parseSize(s);
        if (x === null || s.startsWith('+'))
          return { stdout: '', stderr: `tail: invalid number of ${countLines ? 'lines' : 'bytes'}: ${quote(v!)}\n`, exitCode: 1 };
        n = x;
      } else if (k === 'q') header = 'never';
      else if (k === 'v') header = 'always';
      else if (k === 'z') delim = '\0';
    }
    const files = parsed.operands.length ? parsed.operands : ['-'];
    const showHeaders = header === 'always' || (header === 'auto' && files.length > 1);
    const io = new Inputs(ctx);
    const out: string[] = [];
    let err = '';
    let code = 0;
    let firstHeader = true;
    const N = clampN(n);
    for (const f of files) {
      const isStdin = f === '-';
      const inp = isStdin ? ({ ok: true, bytes: io.stdin() } as Input) : await io.read(f);
      if (!inp.ok && inp.code !== 'EISDIR') {
        err += `tail: cannot open ${quote(f)} for reading: ${inp.text}\n`;
        code = 1;
        continue;
      }
      if (showHeaders) {
        out.push(`${firstHeader ? '' : '\n'}==> ${utf8ToLatin1(isStdin ? 'standard input' : f)} <==\n`);
        firstHeader = false;
      }
      if (!inp.ok) {
        err += `tail: error reading ${quote(f)}: ${inp.text}\n`;
        code = 1;
        continue;
      }
      const b = inp.bytes;
      if (!countLines) {
        if (fromStart) out.push(b.slice(Math.max(0, N - 1)));
        else out.push(N === 0 ? '' : b.slice(Math.max(0, b.length - N)));
      } else if (fromStart) {
        let pos = 0;
        for (let i = 1; i < N && pos < b.length; i++) {
          const j = b.indexOf(delim, pos);
          pos = j === -1 ? b.length : j + 1;
        }
        out.push(b.slice(pos));
      } else {
        if (N === 0) continue;
        let end = b.length;
        // The last line is counted whether or not it ends with the delimiter.
        let pos = b.length > 0 && b[end - 1] === delim ? end - 1 : end;
        let start = 0;
        let found = 0;
        while (pos > 0) {
          const j = b.lastIndexOf(delim, pos - 1);
          if (j === -1) break;
          found++;
          if (found === N) {
            start = j + 1;
            break;
          }
          pos = j;
        }
        out.push(b.slice(start, end));
        end = 0;
      }
    }
    return countLines ? bytesResult(out.join(''), err, code) : cutResult(out.join(''), err, code);
  });
}

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

function wcCommand(): Command {
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
    const want = { l: false, w: false, m: false, c: false, L: false };
    let total: 'auto' | 'always' | 'only' | 'never' = 'auto';
    for (const [k, v] of parsed.opts) {
      if (k === 'T') {
        const opts = ['auto', 'always', 'only', 'never'] as const;
        const hit = opts.filter((o) => o.startsWith(v!));
        if (hit.length !== 1 || v === '') {
          return usage(
            'wc',
            `wc: ${hit.length > 1 ? 'ambiguous' : 'invalid'} argument ${quote(v!)} for '--total'\nValid arguments are:\n  - 'auto'\n  - 'always'\n  - 'only'\n  - 'never'\n`,
          );
        }
        total = hit[0]!;
      } else if (k === 'F') return { stdout: '', stderr: 'wc: --files0-from is not supported\n', exitCode: 1 };
      else want[k as keyof typeof want] = true;
    }
    if (!want.l && !want.w && !want.m && !want.c && !want.L) want.l = want.w = want.c = true;
    const nprint = Number(want.l) + Number(want.w) + Number(want.m) + Number(want.c) + Number(want.L);
    const files = parsed.operands.length ? parsed.operands : [null];
    const io = new Inputs(ctx);
    // Stat first, as GNU does, for the column width.
    type St = { failed: boolean; regular: boolean; size: number };
    const stats: St[] = [];
    const skipStat = files.length === 1 && nprint === 1;
    for (const f of files) {
      if (skipStat) break;
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
    let width = 1;
    if (!skipStat && !stats[0]!.failed) {
      let minimum = 1;
      let regularTotal = 0;
      for (const s of stats) {
        if (s.failed) continue;
        if (s.regular) regularTotal += s.size;
        else minimum = 7;
      }
      width = String(regularTotal).length;
      if (width < minimum) width = minimum;
    }
    if (total === 'only') width = 1;
    const fmt = (c: Counts, name: string | null) => {
      const cols: number[] = [];
      if (want.l) cols.push(c.lines);
      if (want.w) cols.push(c.words);
      if (want.m) cols.push(c.chars);
      if (want.c) cols.push(c.bytes);
      if (want.L) cols.push(c.maxLen);
      const s = cols.map((x) => String(x).padStart(width)).join(' ');
      return (name === null ? s : `${s} ${utf8ToLatin1(name)}`) + '\n';
    };
    const sum: Counts = { lines: 0, words: 0, chars: 0, bytes: 0, maxLen: 0 };
    let out = '';
    let err = '';
    let code = 0;
    for (const f of files) {
      let bytes: string;
      if (f === null || f === '-') bytes = io.stdin();
      else {
        const inp = await io.read(f);
        if (!inp.ok) {
          err += `wc: ${quotef(f)}: ${inp.text}\n`;
          code = 1;
          if (inp.code !== 'EISDIR') continue;
          bytes = '';
        } else bytes = inp.bytes;
      }
      const c = countBytes(bytes, want.m, want.L);
      sum.lines += c.lines;
      sum.words += c.words;
      sum.chars += c.chars;
      sum.bytes += c.bytes;
      if (c.maxLen > sum.maxLen) sum.maxLen = c.maxLen;
      if (total !== 'only') out += fmt(c, f);
    }
    if (total === 'always' || total === 'only' || (total === 'auto' && files.length > 1)) out += fmt(sum, total === 'only' ? null : 'total');
    return bytesResult(out, err, code);
  });
}

// ---------------------------------------------------------------------------------------
// cat
// ---------------------------------------------------------------------------------------

function catCommand(): Command {
  return defineCommand('cat', async (argv, ctx) => {
    const help = await passHelp(argv, ctx);
    if (help) return help;
    let parsed: Parsed;
    try {
      parsed = parseOptions(argv, 'AbeEnstTuv', [
        { name: 'show-all', key: 'A', arg: 'none' },
        { name: 'number-nonblank', key: 'b', arg: 'none' },
        { name: 'show-ends', key: 'E', arg: 'none' },
        { name: 'number', key: 'n', arg: 'none' },
        { name: 'squeeze-blank', key: 's', arg: 'none' },
        { name: 'show-tabs', key: 'T', arg: 'none' },
        { name: 'show-nonprinting', key: 'v', arg: 'none' },
      ]);
    } catch (e) {
      if (e instanceof GetoptError) return usage('cat', `cat: ${e.message}\n`);
      throw e;
    }
    let number = false;
    let nonblank = false;
    let ends = false;
    let squeeze = false;
    let tabs = false;
    let nonprint = false;
    for (const [k] of parsed.opts) {
      if (k === 'A') nonprint = ends = tabs = true;
      else if (k === 'b') number = nonblank = true;
      else if (k === 'e') nonprint = ends = true;
      else if (k === 'E') ends = true;
      else if (k === 'n') number = true;
      else if (k === 's') squeeze = true;
      else if (k === 't') nonprint = tabs = true;
      else if (k === 'T') tabs = true;
      else if (k === 'v') nonprint = true;
    }
    const plain = !number && !ends && !squeeze && !tabs && !nonprint;
    const files = parsed.operands.length ? parsed.operands : ['-'];
    const io = new Inputs(ctx);
    const out: string[] = [];
    let err = '';
    let code = 0;
    // State carried across files, as GNU cat treats its inputs as one stream.
    let lineNo = 0;
    let atStart = true;
    let blankRun = 0;
    for (const f of files) {
      const inp = await io.read(f);
      if (!inp.ok) {
        err += `cat: ${quotef(f)}: ${inp.text}\n`;
        code = 1;
        continue;
      }
      const b = inp.bytes;
      if (plain) {
        out.push(b);
        continue;
      }
      let pos = 0;
      while (pos < b.length) {
        const j = b.indexOf('\n', pos);
        const line = b.slice(pos, j === -1 ? b.length : j);
        const hasNl = j !== -1;
        pos = hasNl ? j + 1 : b.length;
        if (atStart && line === '' && hasNl) {
          blankRun++;
          if (squeeze && blankRun > 1) continue;
        } else if (atStart) blankRun = 0;
        let s = '';
        if (atStart && number && !(nonblank && line === '' && hasNl)) s += `${String(++lineNo).padStart(6)}\t`;
        if (nonprint || tabs) {
          for (let i = 0; i < line.length; i++) {
            const c = line.charCodeAt(i);
            if (c === 9) s += tabs ? '^I' : '\t';
            else if (!nonprint) s += line[i];
            else if (c >= 128) {
              const d = c - 128;
              s += 'M-' + (d < 32 ? '^' + String.fromCharCode(d + 64) : d === 127 ? '^?' : String.fromCharCode(d));
            } else if (c < 32) s += '^' + String.fromCharCode(c + 64);
            else if (c === 127) s += '^?';
            else s += line[i];
          }
        } else s += line;
        if (hasNl) s += ends ? '$\n' : '\n';
        out.push(s);
        atStart = hasNl;
      }
    }
    return bytesResult(out.join(''), err, code);
  });
}

// ---------------------------------------------------------------------------------------
// sort
// ---------------------------------------------------------------------------------------

interface Key {
  sword: number; // -1: from line start
  schar: number;
  eword: number; // -1: to line end
  echar: number;
  skipsblanks: boolean;
  skipeblanks: boolean;
  ignore: 'none' | 'dict' | 'nonprint';
  translate: boolean;
  numeric: boolean;
  general: boolean;
  human: boolean;
  month: boolean;
  version: boolean;
  random: boolean;
  reverse: boolean;
}

const newKey = (): Key => ({
  sword: -1,
  schar: 0,
  eword: -1,
  echar: 0,
  skipsblanks: false,
  skipeblanks: false,
  ignore: 'none',
  translate: false,
  numeric: false,
  general: false,
  human: false,
  month: false,
  version: false,
  random: false,
  reverse: false,
});

const isBlank = (c: number) => c === 32 || c === 9 || c === 10;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isAlnum = (c: number) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isAlpha = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

function defaultKeyCompare(k: Key): boolean {
  return !(
    k.ignore !== 'none' ||
    k.translate ||
    k.skipsblanks ||
    k.skipeblanks ||
    k.month ||
    k.numeric ||
    k.general ||
    k.human ||
    k.version ||
    k.random
  );
}

/** Applies ordering letters (bdfgiMhnRrV) to a key; returns the rest of the string. */
function setOrdering(s: string, k: Key, end: boolean): string {
  let i = 0;
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (c === 'b') {
      if (end) k.skipeblanks = true;
      else k.skipsblanks = true;
    } else if (c === 'd') k.ignore = 'dict';
    else if (c === 'f') k.translate = true;
    else if (c === 'g') k.general = true;
    else if (c === 'h') k.human = true;
    else if (c === 'i') {
      if (k.ignore === 'none') k.ignore = 'nonprint';
    } else if (c === 'M') k.month = true;
    else if (c === 'n') k.numeric = true;
    else if (c === 'R') k.random = true;
    else if (c === 'r') k.reverse = true;
    else if (c === 'V') k.version = true;
    else break;
  }
  return s.slice(i);
}

function begfield(t: string, k: Key, tab: number): number {
  let ptr = 0;
  const lim = t.length;
  if (k.sword > 0) {
    let sword = k.sword;
    if (tab !== -1) {
      while (ptr < lim && sword--) {
        while (ptr < lim && t.charCodeAt(ptr) !== tab) ++ptr;
        if (ptr < lim) ++ptr;
      }
    } else {
      while (ptr < lim && sword--) {
        while (ptr < lim && isBlank(t.charCodeAt(ptr))) ++ptr;
        while (ptr < lim && !isBlank(t.charCodeAt(ptr))) ++ptr;
      }
    }
  }
  if (k.skipsblanks) while (ptr < lim && isBlank(t.charCodeAt(ptr))) ++ptr;
  return Math.min(lim, ptr + k.schar);
}

function limfield(t: string, k: Key, tab: number): number {
  let ptr = 0;
  const lim = t.length;
  let eword = k.eword;
  const echar = k.echar;
  if (echar === 0) eword++;
  if (tab !== -1) {
    while (ptr < lim && eword--) {
      while (ptr < lim && t.charCodeAt(ptr) !== tab) ++ptr;
      if (ptr < lim && (eword || echar)) ++ptr;
    }
  } else {
    while (ptr < lim && eword--) {
      while (ptr < lim && isBlank(t.charCodeAt(ptr))) ++ptr;
      while (ptr < lim && !isBlank(t.charCodeAt(ptr))) ++ptr;
    }
  }
  if (echar !== 0) {
    if (k.skipeblanks) while (ptr < lim && isBlank(t.charCodeAt(ptr))) ++ptr;
    ptr = Math.min(lim, ptr + echar);
  }
  return ptr;
}

/** strnumcmp for C-locale numbers: [-]digits[.digits], leading blanks skipped; anything else is 0. */
function parseNum(s: string): { neg: boolean; int: string; frac: string } {
  let i = 0;
  while (i < s.length && isBlank(s.charCodeAt(i))) i++;
  let neg = false;
  if (s[i] === '-') {
    neg = true;
    i++;
  }
  const st = i;
  while (i < s.length && isDigit(s.charCodeAt(i))) i++;
  let int = s.slice(st, i).replace(/^0+/, '');
  let frac = '';
  if (s[i] === '.') {
    const fs = ++i;
    while (i < s.length && isDigit(s.charCodeAt(i))) i++;
    frac = s.slice(fs, i).replace(/0+$/, '');
  }
  if (int === '' && frac === '') neg = false;
  if (int === '') int = '';
  return { neg, int, frac };
}

function cmpMag(a: { int: string; frac: string }, b: { int: string; frac: string }): number {
  if (a.int.length !== b.int.length) return a.int.length < b.int.length ? -1 : 1;
  if (a.int !== b.int) return a.int < b.int ? -1 : 1;
  if (a.frac !== b.frac) return a.frac < b.frac ? -1 : 1;
  return 0;
}

function numcompare(a: string, b: string): number {
  const x = parseNum(a);
  const y = parseNum(b);
  if (x.neg !== y.neg) return x.neg ? -1 : 1;
  const m = cmpMag(x, y);
  return x.neg ? -m : m;
}

function unitOrder(s: string): number {
  let i = 0;
  while (i < s.length && isBlank(s.charCodeAt(i))) i++;
  const neg = s[i] === '-';
  if (neg) i++;
  let nonzero = false;
  for (; i < s.length && isDigit(s.charCodeAt(i)); i++) nonzero ||= s[i] !== '0';
  if (s[i] === '.') {
    i++;
    for (; i < s.length && isDigit(s.charCodeAt(i)); i++) nonzero ||= s[i] !== '0';
  }
  if (!nonzero) return 0;
  const order = ' KMGTPEZYRQ'.indexOf(s[i] ?? ' ');
  const o = s[i] === 'k' ? 1 : order > 0 ? order : 0;
  return neg ? -o : o;
}

function humancompare(a: string, b: string): number {
  const d = unitOrder(a) - unitOrder(b);
  return d || numcompare(a, b);
}

const STRTOD =
  /^[ \t\n\v\f\r]*([+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?))/i;

function strtod(s: string): number | null {
  const m = STRTOD.exec(s);
  if (!m) return null;
  let t = m[1]!.toLowerCase();
  const neg = t.startsWith('-');
  t = t.replace(/^[+-]/, '');
  let v: number;
  if (t.startsWith('inf')) v = Infinity;
  else if (t.startsWith('nan')) v = NaN;
  else if (t.startsWith('0x')) {
    const hm = /^0x([0-9a-f]*)\.?([0-9a-f]*)(?:p([+-]?\d+))?$/.exec(t)!;
    v = parseInt(hm[1] || '0', 16) + (hm[2] ? parseInt(hm[2], 16) / 16 ** hm[2].length : 0);
    if (hm[3]) v *= 2 ** Number(hm[3]);
  } else v = Number(t);
  return neg ? -v : v;
}

function generalcompare(a: string, b: string): number {
  const x = strtod(a);
  const y = strtod(b);
  if (x === null) return y === null ? 0 : -1;
  if (y === null) return 1;
  if (x < y) return -1;
  if (x > y) return 1;
  if (x === y) return 0;
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1;
  return 1;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
function getmonth(s: string): number {
  let i = 0;
  while (i < s.length && isBlank(s.charCodeAt(i))) i++;
  const m = s.slice(i, i + 3).toUpperCase();
  return MONTHS.indexOf(m) + 1;
}

// gnulib filevercmp
function fileprefixlen(s: string): number {
  const n = s.length;
  let prefixlen = 0;
  for (let i = 0; ;) {
    if (i === n) return prefixlen;
    i++;
    prefixlen = i;
    while (i + 1 < n && s[i] === '.' && (isAlpha(s.charCodeAt(i + 1)) || s[i + 1] === '~')) {
      for (i += 2; i < n && (isAlnum(s.charCodeAt(i)) || s[i] === '~'); i++);
    }
  }
}
function verOrder(s: string, pos: number, len: number): number {
  if (pos === len) return -1;
  const c = s.charCodeAt(pos);
  if (isDigit(c)) return 0;
  if (isAlpha(c)) return c;
  if (c === 126) return -2;
  return c + 256;
}
function verrevcmp(s1: string, l1: number, s2: string, l2: number): number {
  let p1 = 0;
  let p2 = 0;
  while (p1 < l1 || p2 < l2) {
    let firstDiff = 0;
    while ((p1 < l1 && !isDigit(s1.charCodeAt(p1))) || (p2 < l2 && !isDigit(s2.charCodeAt(p2)))) {
      const c1 = verOrder(s1, p1, l1);
      const c2 = verOrder(s2, p2, l2);
      if (c1 !== c2) return c1 - c2;
      p1++;
      p2++;
    }
    while (p1 < l1 && s1[p1] === '0') p1++;
    while (p2 < l2 && s2[p2] === '0') p2++;
    while (p1 < l1 && p2 < l2 && isDigit(s1.charCodeAt(p1)) && isDigit(s2.charCodeAt(p2))) {
      if (!firstDiff) firstDiff = s1.charCodeAt(p1) - s2.charCodeAt(p2);
      p1++;
      p2++;
    }
    if (p1 < l1 && isDigit(s1.charCodeAt(p1))) return 1;
    if (p2 < l2 && isDigit(s2.charCodeAt(p2))) return -1;
    if (firstDiff) return firstDiff;
  }
  return 0;
}
export function filevercmp(a: string, b: string): number {
  if (!a.length) return b.length ? -1 : 0;
  if (!b.length) return 1;
  if (a[0] === '.') {
    if (b[0] !== '.') return -1;
    const adot = a.length === 1;
    const bdot = b.length === 1;
    if (adot) return bdot ? 0 : -1;
    if (bdot) return 1;
    const add = a[1] === '.' && a.length === 2;
    const bdd = b[1] === '.' && b.length === 2;
    if (add) return bdd ? 0 : -1;
    if (bdd) return 1;
  } else if (b[0] === '.') return 1;
  const ap = fileprefixlen(a);
  const bp = fileprefixlen(b);
  const onePass = ap === a.length && bp === b.length;
  const r = verrevcmp(a, ap, b, bp);
  return r || onePass ? r : verrevcmp(a, a.length, b, b.length);
}

function keep(k: Key, c: number): boolean {
  if (k.ignore === 'dict') return isAlnum(c) || isBlank(c);
  if (k.ignore === 'nonprint') return c >= 32 && c < 127;
  return true;
}
const fold = (c: number) => (c >= 97 && c <= 122 ? c - 32 : c);

function compareText(k: Key, a: string, b: string): number {
  if (k.ignore === 'none' && !k.translate) return a < b ? -1 : a > b ? 1 : 0;
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < a.length && !keep(k, a.charCodeAt(i))) i++;
    while (j < b.length && !keep(k, b.charCodeAt(j))) j++;
    if (!(i < a.length && j < b.length)) break;
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(j);
    if (k.translate) {
      x = fold(x);
      y = fold(y);
    }
    if (x !== y) return x - y;
    i++;
    j++;
  }
  return Number(i < a.length) - Number(j < b.length);
}

function filtered(k: Key, s: string): string {
  if (k.ignore === 'none' && !k.translate) return s;
  let o = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (keep(k, c)) o += String.fromCharCode(k.translate ? fold(c) : c);
  }
  return o;
}

function keyCompare(keys: Key[], a: string, b: string, tab: number): number {
  for (const k of keys) {
    const la = k.eword === -1 ? a.length : limfield(a, k, tab);
    const lb = k.eword === -1 ? b.length : limfield(b, k, tab);
    const ba = begfield(a, k, tab);
    const bb = begfield(b, k, tab);
    const ta = a.slice(ba, Math.max(ba, la));
    const tb = b.slice(bb, Math.max(bb, lb));
    let d: number;
    if (k.numeric || k.general || k.human || k.month || k.version) {
      const fa = filtered(k, ta);
      const fb = filtered(k, tb);
      if (k.numeric) d = numcompare(fa, fb);
      else if (k.general) d = generalcompare(fa, fb);
      else if (k.human) d = humancompare(fa, fb);
      else if (k.month) d = getmonth(fa) - getmonth(fb);
      else d = filevercmp(fa, fb);
    } else d = compareText(k, ta, tb);
    if (d) return k.reverse ? -d : d;
  }
  return 0;
}

function sortCommand(): Command {
  return defineCommand('sort', async (argv, ctx) => {
    const help = await passHelp(argv, ctx);
    if (help) return help;
    let parsed: Parsed;
    const fail = (msg: string): Result => ({ stdout: '', stderr: msg, exitCode: 2 });
    try {
      parsed = parseOptions(argv, 'bcCdfghik:mMno:rRsS:t:T:uVz', [
        { name: 'ignore-leading-blanks', key: 'b', arg: 'none' },
        { name: 'check', key: 'check', arg: 'optional' },
        { name: 'dictionary-order', key: 'd', arg: 'none' },
        { name: 'ignore-case', key: 'f', arg: 'none' },
        { name: 'general-numeric-sort', key: 'g', arg: 'none' },
        { name: 'human-numeric-sort', key: 'h', arg: 'none' },
        { name: 'ignore-nonprinting', key: 'i', arg: 'none' },
        { name: 'key', key: 'k', arg: 'required' },
        { name: 'merge', key: 'm', arg: 'none' },
        { name: 'month-sort', key: 'M', arg: 'none' },
        { name: 'numeric-sort', key: 'n', arg: 'none' },
        { name: 'output', key: 'o', arg: 'required' },
        { name: 'reverse', key: 'r', arg: 'none' },
        { name: 'random-sort', key: 'R', arg: 'none' },
        { name: 'stable', key: 's', arg: 'none' },
        { name: 'buffer-size', key: 'S', arg: 'required' },
        { name: 'field-separator', key: 't', arg: 'required' },
        { name: 'temporary-directory', key: 'T', arg: 'required' },
        { name: 'unique', key: 'u', arg: 'none' },
        { name: 'version-sort', key: 'V', arg: 'none' },
        { name: 'zero-terminated', key: 'z', arg: 'none' },
        { name: 'parallel', key: 'P', arg: 'required' },
        { name: 'sort', key: 'sort', arg: 'required' },
        { name: 'random-source', key: 'rs', arg: 'required' },
        { name: 'debug', key: 'debug', arg: 'none' },
        { name: 'batch-size', key: 'bs', arg: 'required' },
        { name: 'compress-program', key: 'cp', arg: 'required' },
        { name: 'files0-from', key: 'F', arg: 'required' },
      ]);
    } catch (e) {
      if (e instanceof GetoptError) return usage('sort', `sort: ${e.message}\n`, 2);
      throw e;
    }
    const g = newKey();
    g.sword = -1;
    const keys: Key[] = [];
    let check: '' | 'diagnose' | 'quiet' = '';
    let unique = false;
    let stable = false;
    let tab = -1;
    let delim = '\n';
    let outFile: string | null = null;
    for (const [k, v] of parsed.opts) {
      switch (k) {
        case 'c':
          check = 'diagnose';
          break;
        case 'C':
          check = 'quiet';
          break;
        case 'check': {
          if (v === undefined) check = 'diagnose';
          else if (['quiet', 'silent'].some((x) => x.startsWith(v) && v)) check = 'quiet';
          else if ('diagnose-first'.startsWith(v) && v) check = 'diagnose';
          else
            return usage(
              'sort',
              `sort: invalid argument ${quote(v)} for '--check'\nValid arguments are:\n  - 'quiet', 'silent'\n  - 'diagnose-first'\n`,
              2,
            );
          break;
        }
        case 'k': {
          const key = newKey();
          const spec = v!;
          const bad = (why: string) => fail(`sort: ${why}: invalid field specification ${quote(spec)}\n`);
          let m = /^(\d+)/.exec(spec);
          if (!m) return fail(`sort: invalid number at field start: invalid count at start of ${quote(spec)}\n`);
          let rest = spec.slice(m[1]!.length);
          const sw = Number(m[1]);
          if (sw === 0) return bad('field number is zero');
          key.sword = sw - 1;
          if (rest.startsWith('.')) {
            m = /^(\d+)/.exec(rest.slice(1));
            if (!m) return fail(`sort: invalid number after '.': invalid count at start of ${quote(rest.slice(1))}\n`);
            const sc = Number(m[1]);
            if (sc === 0) return bad('character offset is zero');
            key.schar = sc - 1;
            rest = rest.slice(1 + m[1]!.length);
          }
          if (key.sword === 0 && key.schar === 0) key.sword = -1;
          rest = setOrdering(rest, key, false);
          if (rest.startsWith(',')) {
            m = /^(\d+)/.exec(rest.slice(1));
            if (!m) return fail(`sort: invalid number after ',': invalid count at start of ${quote(rest.slice(1))}\n`);
            const ew = Number(m[1]);
            if (ew === 0) return bad('field number is zero');
            key.eword = ew - 1;
            rest = rest.slice(1 + m[1]!.length);
            if (rest.startsWith('.')) {
              m = /^(\d+)/.exec(rest.slice(1));
              if (!m) return fail(`sort: invalid number after '.': invalid count at start of ${quote(rest.slice(1))}\n`);
              key.echar = Number(m[1]);
              rest = rest.slice(1 + m[1]!.length);
            }
            rest = setOrdering(rest, key, true);
          } else {
            key.eword = -1;
            key.echar = 0;
          }
          if (rest) return bad('stray character in field spec');
          keys.push(key);
          break;
        }
        case 'm':
        case 'S':
        case 'T':
        case 'P':
        case 'debug':
        case 'bs':
        case 'cp':
        case 'rs':
          break;
        case 'o':
          outFile = v!;
          break;
        case 's':
          stable = true;
          break;
        case 't': {
          const t = utf8ToLatin1(v!);
          if (t.length === 0) return fail('sort: empty tab\n');
          if (t.length > 1) {
            if (t === '\\0') tab = 0;
            else return fail(`sort: multi-character tab ${quote(v!)}\n`);
          } else {
            const c = t.charCodeAt(0);
            if (tab !== -1 && tab !== c) return fail('sort: incompatible tabs\n');
            tab = c;
          }
          break;
        }
        case 'u':
          unique = true;
          break;
        case 'z':
          delim = '\0';
          break;
        case 'sort': {
          const map: Record<string, string> = { general: 'g', human: 'h', month: 'M', numeric: 'n', random: 'R', version: 'V' };
          const hit = Object.keys(map).filter((x) => x.startsWith(v!) && v);
          if (hit.length !== 1) return usage('sort', `sort: invalid argument ${quote(v!)} for '--sort'\n`, 2);
          setOrdering(map[hit[0]!]!, g, false);
          break;
        }
        case 'F':
          return fail('sort: --files0-from is not supported\n');
        default:
          setOrdering(k, g, false);
      }
    }
    if (g.random || keys.some((k) => k.random)) {
      // Unsupported: fall back to the bundled sort (it shuffles).
      if (ctx.origCommand) return ctx.origCommand(argv);
    }
    // Keys without ordering options inherit the global ones.
    for (const k of keys) {
      if (defaultKeyCompare(k) && !k.reverse) {
        k.ignore = g.ignore;
        k.translate = g.translate;
        k.skipsblanks = g.skipsblanks;
        k.skipeblanks = g.skipeblanks;
        k.month = g.month;
        k.numeric = g.numeric;
        k.general = g.general;
        k.human = g.human;
        k.version = g.version;
        k.random = g.random;
        k.reverse = g.reverse;
      }
    }
    const nOrder = (k: Key) => Number(k.numeric) + Number(k.general) + Number(k.human) + Number(k.month) + Number(k.version);
    for (const k of [g, ...keys]) {
      if (nOrder(k) > 1 || (nOrder(k) && k.ignore !== 'none' && !k.numeric && !k.general && !k.human && false)) {
        const opts = (k.general ? 'g' : '') + (k.human ? 'h' : '') + (k.month ? 'M' : '') + (k.numeric ? 'n' : '') + (k.version ? 'V' : '');
        return fail(`sort: options '-${opts}' are incompatible\n`);
      }
    }
    if (!keys.length && !defaultKeyCompare(g)) {
      const k = { ...g, sword: -1, schar: 0, eword: -1, echar: 0 };
      keys.push(k);
    }
    const reverse = g.reverse;
    const files = parsed.operands.length ? parsed.operands : ['-'];
    if (check && files.length > 1)
      return usage('sort', `sort: extra operand ${quote(files[1]!)} not allowed with -${check === 'quiet' ? 'C' : 'c'}\n`, 2);
    const io = new Inputs(ctx);
    const lines: string[] = [];
    for (const f of files) {
      const inp = await io.read(f);
      if (!inp.ok) {
        if (inp.code === 'EISDIR') return fail(`sort: read failed: ${quotef(f)}: ${inp.text}\n`);
        return fail(`sort: cannot read: ${quotef(f)}: ${inp.text}\n`);
      }
      const b = inp.bytes;
      if (!b.length) continue;
      const parts = b.split(delim);
      if (b.endsWith(delim)) parts.pop();
      for (const p of parts) lines.push(p);
    }
    const cmp = (a: string, b: string): number => {
      if (keys.length) {
        const d = keyCompare(keys, a, b, tab);
        if (d || unique || stable) return d;
      }
      const d = a < b ? -1 : a > b ? 1 : 0;
      return reverse ? -d : d;
    };
    if (check) {
      for (let i = 1; i < lines.length; i++) {
        const d = cmp(lines[i - 1]!, lines[i]!);
        if (d > 0 || (unique && d === 0)) {
          const name = files[0] === '-' ? '-' : files[0]!;
          const msg = check === 'diagnose' ? `sort: ${utf8ToLatin1(name)}:${i + 1}: disorder: ${lines[i]}\n` : '';
          return { stdout: '', stderr: Buffer.from(msg, 'latin1').toString('utf8'), exitCode: 1 };
        }
      }
      return { stdout: '', stderr: '', exitCode: 0 };
    }
    const idx = lines.map((_, i) => i);
    idx.sort((x, y) => cmp(lines[x]!, lines[y]!) || x - y);
    let out: string[] = [];
    if (unique) {
      let last: string | null = null;
      for (const i of idx) {
        const l = lines[i]!;
        if (last !== null && cmp(last, l) === 0) continue;
        out.push(l);
        last = l;
      }
    } else out = idx.map((i) => lines[i]!);
    const text = out.length ? out.join(delim) + delim : '';
    if (outFile !== null) {
      try {
        await ctx.fs.writeFile(ctx.fs.resolvePath(ctx.cwd, outFile), Buffer.from(text, 'latin1'));
      } catch (e) {
        return fail(`sort: open failed: ${quotef(outFile)}: ${errnoMessage(e)}\n`);
      }
      return bytesResult('', '', 0);
    }
    return bytesResult(text, '', 0);
  });
}

// ---------------------------------------------------------------------------------------
// uniq
// ---------------------------------------------------------------------------------------

function uniqCommand(): Command {
  return defineCommand('uniq', async (argv, ctx) => {
    const help = await passHelp(argv, ctx);
    if (help) return help;
    let parsed: Parsed;
    try {
      parsed = parseOptions(argv, 'cdDf:is:uw:z', [
        { name: 'count', key: 'c', arg: 'none' },
        { name: 'repeated', key: 'd', arg: 'none' },
        { name: 'all-repeated', key: 'D', arg: 'optional' },
        { name: 'group', key: 'group', arg: 'optional' },
        { name: 'skip-fields', key: 'f', arg: 'required' },
        { name: 'ignore-case', key: 'i', arg: 'none' },
        { name: 'skip-chars', key: 's', arg: 'required' },
        { name: 'unique', key: 'u', arg: 'none' },
        { name: 'check-chars', key: 'w', arg: 'required' },
        { name: 'zero-terminated', key: 'z', arg: 'none' },
      ]);
    } catch (e) {
      if (e instanceof GetoptError) return usage('uniq', `uniq: ${e.message}\n`);
      throw e;
    }
    let count = false;
    let repeated = false;
    let allRepeated: null | 'none' | 'prepend' | 'separate' = null;
    let group: null | 'separate' | 'prepend' | 'append' | 'both' = null;
    let skipFields = 0;
    let skipChars = 0;
    let checkChars = Infinity;
    let ignoreCase = false;
    let uniqueOnly = false;
    let delim = '\n';
    const num = (v: string, what: string): number | Result => {
      const x = parseSize(v, false);
      if (x === null || !/^\d+$/.test(v)) return { stdout: '', stderr: `uniq: ${v}: invalid number of ${what}\n`, exitCode: 1 };
      return clampN(x);
    };
    for (const [k, v] of parsed.opts) {
      if (k === 'c') count = true;
      else if (k === 'd') repeated = true;
      else if (k === 'D') {
        const m = v === undefined ? 'none' : ['none', 'prepend', 'separate'].find((x) => x.startsWith(v) && v);
        if (!m)
          return usage(
            'uniq',
            `uniq: invalid argument ${quote(v!)} for '--all-repeated'\nValid arguments are:\n  - 'none'\n  - 'prepend'\n  - 'separate'\n`,
          );
        allRepeated = m as 'none' | 'prepend' | 'separate';
      } else if (k === 'group') {
        const m = v === undefined ? 'separate' : ['prepend', 'append', 'separate', 'both'].find((x) => x.startsWith(v) && v);
        if (!m)
          return usage(
            'uniq',
            `uniq: invalid argument ${quote(v!)} for '--group'\nValid arguments are:\n  - 'prepend'\n  - 'append'\n  - 'separate'\n  - 'both'\n`,
          );
        group = m as 'separate' | 'prepend' | 'append' | 'both';
      } else if (k === 'f') {
        const r = num(v!, 'fields to skip');
        if (typeof r !== 'number') return r;
        skipFields = r;
      } else if (k === 's') {
        const r = num(v!, 'bytes to skip');
        if (typeof r !== 'number') return r;
        skipChars = r;
      } else if (k === 'w') {
        const r = num(v!, 'bytes to compare');
        if (typeof r !== 'number') return r;
        checkChars = r;
      } else if (k === 'i') ignoreCase = true;
      else if (k === 'u') uniqueOnly = true;
      else if (k === 'z') delim = '\0';
    }
    if (group && (count || repeated || uniqueOnly || allRepeated)) {
      return usage('uniq', 'uniq: --group is mutually exclusive with -c/-d/-D/-u\n');
    }
    if (count && allRepeated) return usage('uniq', 'uniq: printing all duplicated lines and repeat counts is meaningless\n');
    if (parsed.operands.length > 2) return usage('uniq', `uniq: extra operand ${quote(parsed.operands[2]!)}\n`);
    const inName = parsed.operands[0] ?? '-';
    const outName = parsed.operands[1];
    const io = new Inputs(ctx);
    const inp = await io.read(inName);
    if (!inp.ok) {
      if (inp.code === 'EISDIR') return { stdout: '', stderr: `uniq: error reading ${quote(inName)}\n`, exitCode: 1 };
      return { stdout: '', stderr: `uniq: ${quotef(inName)}: ${inp.text}\n`, exitCode: 1 };
    }
    const b = inp.bytes;
    const lines = b.length ? b.split(delim) : [];
    if (b.endsWith(delim)) lines.pop();
    const keyOf = (l: string) => {
      let i = 0;
      for (let f = 0; f < skipFields; f++) {
        while (i < l.length && (l[i] === ' ' || l[i] === '\t')) i++;
        while (i < l.length && l[i] !== ' ' && l[i] !== '\t') i++;
      }
      i = Math.min(l.length, i + skipChars);
      let k = checkChars === Infinity ? l.slice(i) : l.slice(i, i + checkChars);
      if (ignoreCase) k = k.replace(/[a-z]+/g, (s) => s.toUpperCase());
      return k;
    };
    const out: string[] = [];
    const groups: string[][] = [];
    for (let i = 0; i < lines.length;) {
      const k = keyOf(lines[i]!);
      let j = i + 1;
      while (j < lines.length && keyOf(lines[j]!) === k) j++;
      groups.push(lines.slice(i, j));
      i = j;
    }
    if (group) {
      // --group separate: a delimiter between groups only; prepend: before each; append: after each.
      const fixed: string[] = [];
      groups.forEach((gr, gi) => {
        if (group === 'prepend' || group === 'both' || (group === 'separate' && gi > 0)) fixed.push(delim);
        if (group === 'append' && gi > 0) fixed.push(delim);
        for (const l of gr) fixed.push(l + delim);
      });
      if ((group === 'append' || group === 'both') && groups.length) fixed.push(delim);
      out.push(...fixed);
    } else if (allRepeated) {
      let first = true;
      for (const gr of groups) {
        if (gr.length < 2) continue;
        if (allRepeated === 'prepend' || (allRepeated === 'separate' && !first)) out.push(delim);
        first = false;
        for (const l of gr) out.push(l + delim);
      }
    } else {
      for (const gr of groups) {
        if (repeated && gr.length < 2) continue;
        if (uniqueOnly && gr.length > 1) continue;
        out.push((count ? `${String(gr.length).padStart(7)} ` : '') + gr[0] + delim);
      }
    }
    const text = out.join('');
    if (outName !== undefined && outName !== '-') {
      try {
        await ctx.fs.writeFile(ctx.fs.resolvePath(ctx.cwd, outName), Buffer.from(text, 'latin1'));
      } catch (e) {
        return { stdout: '', stderr: `uniq: ${quotef(outName)}: ${errnoMessage(e)}\n`, exitCode: 1 };
      }
      return bytesResult('', '', 0);
    }
    return bytesResult(text, '', 0);
  });
}

export function textCommands(): CustomCommand[] {
  return [headCommand(), tailCommand(), wcCommand(), catCommand(), sortCommand(), uniqCommand()];
}

/**
 * GNU `xargs` (findutils 4.9) for the bash tool: just-bash's rejects -n and -I and passes the
 * command's exit status through where GNU reports 123.
 *
 * Input: blank- and newline-separated items with '…', "…" and backslash quoting (GNU's default),
 * or -0 / -d DELIM items taken verbatim; -I and -L read whole lines. Options: -n N, -L N, -I R,
 * -i[R], -0, -d D, -r, -t, -a FILE, -E EOF, -s N, -x and -P N (accepted; runs one at a time).
 * Like GNU, a command line holds at most 131,072 bytes (arguments counted with their NUL), so
 * `find / | xargs grep x` over a big tree runs grep several times; -s N lowers that (a larger N
 * is used as 131,072). One command line of all the items could exceed the interpreter's 1 MB
 * script limit and failed with a parse error.
 * Exit status: 0; 123 when an invocation exited 1–125; 124 (and stop) on 255; 126/127 when the
 * command cannot run or is not found; 1 for bad usage or unmatched quotes.
 */
import { Buffer } from 'node:buffer';
import { defineCommand, decodeBytesToUtf8, type CustomCommand, type Ctx, type Result } from '../kit/command.js';
import { getopt, type LongOpt } from '../kit/getopt.js';
import { shellWord } from '../kit/quote.js';

const LONGS: LongOpt[] = [
  { name: 'null', key: '0', arg: 'none' },
  { name: 'arg-file', key: 'a', arg: 'required' },
  { name: 'delimiter', key: 'd', arg: 'required' },
  { name: 'eof', key: 'E', arg: 'required' },
  { name: 'replace', key: 'i', arg: 'optional' },
  { name: 'max-lines', key: 'l', arg: 'optional' },
  { name: 'max-args', key: 'n', arg: 'required' },
  { name: 'no-run-if-empty', key: 'r', arg: 'none' },
  { name: 'max-chars', key: 's', arg: 'required' },
  { name: 'verbose', key: 't', arg: 'none' },
  { name: 'exit', key: 'x', arg: 'none' },
  { name: 'max-procs', key: 'P', arg: 'required' },
  { name: 'help', key: 'help', arg: 'none' },
  { name: 'version', key: 'version', arg: 'none' },
];

const TRY = "Try 'xargs --help' for more information.\n";

const SHORT_WITH_VALUE = new Set(['a', 'd', 'E', 'I', 'L', 'n', 'P', 's']);
const LONG_WITH_VALUE = new Set(['arg-file', 'delimiter', 'max-args', 'max-chars', 'max-procs']);

/** Index of the command's first word: after xargs's options and their values (or after `--`). */
function commandStart(args: string[]): number {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return i + 1;
    if (!a.startsWith('-') || a === '-') return i;
    if (a.startsWith('--')) {
      if (!a.includes('=') && LONG_WITH_VALUE.has(a.slice(2))) i++;
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      if (SHORT_WITH_VALUE.has(a[j]!)) {
        if (j === a.length - 1) i++; // the value is the next word
        break;
      }
      if ('eil'.includes(a[j]!)) break; // optional values are attached
    }
  }
  return args.length;
}

/** Single-quotes a word for the shell (the command line is run by the interpreter). */
/** GNU's command buffer on Linux (`xargs --show-limits`: "Size of command buffer we are actually using"). */
const MAX_CHARS = 131_072;

/**
 * Items in invocations of at most `maxArgs` items and `maxChars` bytes of command line (each
 * word with its NUL, the command's words included); null when one item alone does not fit.
 */
function bySize(command: string[], items: string[], maxArgs: number, maxChars: number): string[][] | null {
  const base = command.reduce((n, w) => n + Buffer.byteLength(w) + 1, 0);
  const out: string[][] = [];
  let cur: string[] = [];
  let size = base;
  for (const item of items) {
    const len = Buffer.byteLength(item) + 1;
    if (cur.length && (size + len > maxChars || cur.length >= maxArgs)) {
      out.push(cur);
      cur = [];
      size = base;
    }
    if (size + len > maxChars) return null;
    cur.push(item);
    size += len;
  }
  if (cur.length || out.length === 0) out.push(cur);
  return out;
}

const q = shellWord;

/** GNU's default input syntax: blanks separate, quotes and backslashes group. */
function splitQuoted(text: string): { items: string[] } | { error: string } {
  const items: string[] = [];
  let cur = '';
  let has = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n') {
      if (has) items.push(cur);
      cur = '';
      has = false;
    } else if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      const nl = text.indexOf('\n', i + 1);
      if (end === -1 || (nl !== -1 && nl < end)) {
        const kind = c === "'" ? 'single' : 'double';
        return { error: `xargs: unmatched ${kind} quote; by default quotes are special to xargs unless you use the -0 option\n` };
      }
      cur += text.slice(i + 1, end);
      has = true;
      i = end;
    } else if (c === '\\' && i + 1 < text.length) {
      cur += text[++i];
      has = true;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has) items.push(cur);
  return { items };
}

/** GNU's wording for a bad -n / -L value, or null when it is a positive integer. */
function badCount(text: string, n: number, opt: string): string | null {
  if (!/^\s*[+-]?\d+$/.test(text) || !Number.isFinite(n)) return `xargs: invalid number "${text}" for -${opt} option\n`;
  return n < 1 ? `xargs: value ${text} for -${opt} option should be >= 1\n` : null;
}

/** -d's argument: a character or an escape (\n, \t, \0, \\, \xHH, \NNN). */
function delimiter(spec: string): string | null {
  if (spec.length === 1) return spec;
  const esc: Record<string, string> = {
    '\\n': '\n',
    '\\t': '\t',
    '\\0': '\0',
    '\\\\': '\\',
    '\\r': '\r',
    '\\a': '\x07',
    '\\b': '\b',
    '\\f': '\f',
    '\\v': '\v',
  };
  if (Object.hasOwn(esc, spec)) return esc[spec]!;
  const hex = /^\\x([0-9a-fA-F]{1,2})$/.exec(spec);
  if (hex) return String.fromCharCode(parseInt(hex[1]!, 16));
  const oct = /^\\([0-7]{1,3})$/.exec(spec);
  if (oct) return String.fromCharCode(parseInt(oct[1]!, 8));
  return null;
}

export function xargsCommand(): CustomCommand {
  return defineCommand('xargs', async (args, ctx: Ctx): Promise<Result> => {
    // Options stop at the first operand (the command): `xargs grep -n x` must not see grep's -n.
    const cmdAt = commandStart(args);
    // -i, -l and -e take their (optional) value attached only: bare, they mean -I {}, -L 1, no EOF string.
    const optArgs = args
      .slice(0, cmdAt)
      .filter((a, i, all) => !(a === '--' && i === all.length - 1) && a !== '-e')
      .map((a) => (a === '-i' ? '-I{}' : a === '-l' ? '-L1' : a));
    const p = getopt('xargs', optArgs, '0a:d:E:e:I:i:L:l:n:P:prs:tx', LONGS);
    if ('error' in p) return { stdout: '', stderr: p.error + TRY, exitCode: 1 };
    if (p.opts.some(([k]) => k === 'help' || k === 'version')) return ctx.origCommand!(args);
    let mode: 'quoted' | 'delim' | 'lines' = 'quoted';
    let delim = '\n';
    let maxArgs = Infinity;
    let maxLines = 0;
    let replace: string | null = null;
    let noRunIfEmpty = false;
    let verbose = false;
    let eof: string | null = null;
    let argFile: string | null = null;
    let maxChars = MAX_CHARS;
    for (const [k, v] of p.opts) {
      switch (k) {
        case '0':
          mode = 'delim';
          delim = '\0';
          break;
        case 'd': {
          const d = delimiter(v!);
          if (d === null)
            return {
              stdout: '',
              stderr: `xargs: invalid input delimiter specification ${v}: the delimiter must be either a single character or an escape sequence starting with \\.\n`,
              exitCode: 1,
            };
          mode = 'delim';
          delim = d;
          break;
        }
        case 'a':
          argFile = v!;
          break;
        case 'E':
        case 'e':
          eof = v ?? null;
          break;
        case 'I':
        case 'i':
          replace = v ?? '{}';
          maxLines = 1;
          maxArgs = Infinity;
          break;
        case 'L':
        case 'l': {
          const n = v === undefined ? 1 : Number(v);
          const bad = badCount(v ?? '1', n, 'L');
          if (bad) return { stdout: '', stderr: bad + TRY, exitCode: 1 };
          maxLines = n;
          replace = null;
          break;
        }
        case 'n': {
          const n = Number(v);
          const bad = badCount(v!, n, 'n');
          if (bad) return { stdout: '', stderr: bad + TRY, exitCode: 1 };
          maxArgs = n;
          if (replace === null) maxLines = 0;
          break;
        }
        case 's': {
          const n = Number(v);
          if (!/^\s*[+-]?\d+$/.test(v!)) return { stdout: '', stderr: `xargs: invalid number "${v}" for -s option\n` + TRY, exitCode: 1 };
          if (n < 1)
            return {
              stdout: '',
              stderr: `xargs: value ${v} for -s option should be >= 1\nxargs: cannot fit single argument within argument list size limit\n`,
              exitCode: 1,
            };
          maxChars = Math.min(n, MAX_CHARS);
          break;
        }
        case 'r':
          noRunIfEmpty = true;
          break;
        case 't':
          verbose = true;
          break;
        case 'p':
          return { stdout: '', stderr: 'xargs: -p (interactive) is not supported here: there is no terminal to ask.\n', exitCode: 1 };
        default:
          break; // -x, -P: a limit and parallelism that change nothing for one-at-a-time runs
      }
    }
    const command = cmdAt >= args.length ? ['echo'] : args.slice(cmdAt);

    let text: string;
    if (argFile !== null) {
      try {
        text = await ctx.fs.readFile(ctx.fs.resolvePath(ctx.cwd, argFile));
      } catch {
        return { stdout: '', stderr: `xargs: ${argFile}: No such file or directory\n`, exitCode: 1 };
      }
    } else text = decodeBytesToUtf8(ctx.stdin);

    // Items, grouped into the lines they came from when -L / -I count lines.
    let lines: string[][];
    if (mode === 'delim') {
      const parts = text.split(delim);
      if (parts.length && parts[parts.length - 1] === '') parts.pop();
      lines = parts.map((x) => [x]);
    } else if (replace !== null) {
      lines = text
        .split('\n')
        .map((l) => l.replace(/^[ \t]+/, ''))
        .filter((l) => l !== '')
        .map((l) => [l]);
    } else {
      lines = [];
      for (const raw of text.split('\n')) {
        const s = splitQuoted(raw);
        if ('error' in s) return { stdout: '', stderr: s.error, exitCode: 1 };
        if (s.items.length) lines.push(s.items);
      }
    }
    if (eof !== null && mode !== 'delim') {
      const cut: string[][] = [];
      for (const l of lines) {
        const at = l.indexOf(eof);
        if (at === -1) cut.push(l);
        else {
          if (at > 0) cut.push(l.slice(0, at));
          break;
        }
      }
      lines = cut;
    }

    // Invocations: -I one per line; -L N lines each; -n N items each; else all items at once.
    const batches: string[][] = [];
    if (replace !== null) for (const l of lines) batches.push(l);
    else if (maxLines > 0) for (let i = 0; i < lines.length; i += maxLines) batches.push(lines.slice(i, i + maxLines).flat());
    else {
      const sized = bySize(command, lines.flat(), maxArgs, maxChars);
      if (sized === null) return { stdout: '', stderr: 'xargs: argument line too long\n', exitCode: 1 };
      batches.push(...sized);
    }
    if (batches.length === 0 || (batches.length === 1 && batches[0]!.length === 0)) {
      if (noRunIfEmpty || replace !== null) return { stdout: '', stderr: '', exitCode: 0 };
      batches.length = 0;
      batches.push([]);
    }

    let stdout = '';
    let stderr = '';
    let status = 0;
    for (const batch of batches) {
      const argv = replace !== null ? command.map((w) => w.split(replace!).join(batch[0] ?? '')) : [...command, ...batch];
      if (verbose) stderr += argv.join(' ') + '\n';
      const r = await ctx.exec!(argv.map(q).join(' '), { cwd: ctx.cwd, stdin: '' });
      stdout += r.stdout;
      if (r.exitCode === 127 && /command not found/.test(r.stderr)) {
        return { stdout, stderr: stderr + `xargs: ${command[0]}: No such file or directory\n`, exitCode: 127 };
      }
      stderr += r.stderr;
      if (r.exitCode === 255) return { stdout, stderr: stderr + `xargs: ${command[0]}: exited with status 255; aborting\n`, exitCode: 124 };
      if (r.exitCode === 126) return { stdout, stderr, exitCode: 126 };
      if (r.exitCode >= 1 && r.exitCode <= 125) status = 123;
    }
    return { stdout, stderr, exitCode: status };
  });
}

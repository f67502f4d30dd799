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

interface XargsOptions {
  mode: 'quoted' | 'delim' | 'lines';
  delim: string;
  maxArgs: number;
  maxLines: number;
  replace: string | null;
  noRunIfEmpty: boolean;
  verbose: boolean;
  eof: string | null;
  argFile: string | null;
  maxChars: number;
  /** GNU's warnings for options that exclude each other (-I, -L, -n), printed before anything runs. */
  warnings: string;
}

/** GNU xargs 4.9: the later of two exclusive options wins, and says which one it ignored. */
function exclusive(o: XargsOptions, previous: string, now: string): void {
  o.warnings += `xargs: warning: options ${previous} and ${now} are mutually exclusive, ignoring previous ${previous} value\n`;
}

const fail = (stderr: string, exitCode = 1): Result => ({ stdout: '', stderr, exitCode });

function delimiterArg(o: XargsOptions, v: string): Result | undefined {
  const d = delimiter(v);
  if (d === null)
    return fail(
      `xargs: invalid input delimiter specification ${v}: the delimiter must be either a single character or an escape sequence starting with \\.\n`,
    );
  o.mode = 'delim';
  o.delim = d;
  return undefined;
}

function maxLinesArg(o: XargsOptions, v: string | undefined, name: string): Result | undefined {
  const n = v === undefined ? 1 : Number(v);
  const bad = badCount(v ?? '1', n, 'L');
  if (bad) return fail(bad + TRY);
  if (o.maxArgs !== Infinity) exclusive(o, '--max-args', name);
  if (o.replace !== null) exclusive(o, '--replace', name);
  o.maxArgs = Infinity;
  o.maxLines = n;
  o.replace = null;
  return undefined;
}

function maxArgsArg(o: XargsOptions, v: string): Result | undefined {
  const n = Number(v);
  const bad = badCount(v, n, 'n');
  if (bad) return fail(bad + TRY);
  if (o.replace !== null) {
    if (n === 1) return undefined; // -I already runs one line (one item) at a time: `-I{} -n1` changes nothing
    exclusive(o, '--replace', '--max-args/-n');
    o.replace = null;
  } else if (o.maxLines > 0) exclusive(o, '--max-lines', '--max-args/-n');
  o.maxArgs = n;
  o.maxLines = 0;
  return undefined;
}

function maxCharsArg(o: XargsOptions, v: string): Result | undefined {
  const n = Number(v);
  if (!/^\s*[+-]?\d+$/.test(v)) return fail(`xargs: invalid number "${v}" for -s option\n` + TRY);
  if (n < 1) return fail(`xargs: value ${v} for -s option should be >= 1\nxargs: cannot fit single argument within argument list size limit\n`);
  o.maxChars = Math.min(n, MAX_CHARS);
  return undefined;
}

function replaceArg(o: XargsOptions, v: string | undefined): undefined {
  if (o.maxArgs !== Infinity) exclusive(o, '--max-args', '--replace/-I/-i');
  if (o.replace === null && o.maxLines > 0) exclusive(o, '--max-lines', '--replace/-I/-i');
  o.replace = v ?? '{}';
  o.maxLines = 1;
  o.maxArgs = Infinity;
  return undefined;
}

type Handler = (o: XargsOptions, v: string | undefined) => Result | undefined;

/** What each option does, by getopt key; -x and -P are missing: a limit and parallelism that change nothing for one-at-a-time runs. */
const HANDLERS: Readonly<Record<string, Handler>> = {
  '0': (o) => void Object.assign(o, { mode: 'delim', delim: '\0' } satisfies Partial<XargsOptions>),
  d: (o, v) => delimiterArg(o, v!),
  a: (o, v) => void (o.argFile = v!),
  E: (o, v) => void (o.eof = v ?? null),
  e: (o, v) => void (o.eof = v ?? null),
  I: replaceArg,
  i: replaceArg,
  L: (o, v) => maxLinesArg(o, v, '-L'),
  l: (o, v) => maxLinesArg(o, v, '--max-lines/-l'),
  n: (o, v) => maxArgsArg(o, v!),
  s: (o, v) => maxCharsArg(o, v!),
  r: (o) => void (o.noRunIfEmpty = true),
  t: (o) => void (o.verbose = true),
  p: () => fail('xargs: -p (interactive) is not supported here: there is no terminal to ask.\n'),
};

/** xargs's options, up to the command (`xargs grep -n x` must not see grep's -n); 'help' for --help / --version. */
function parseXargs(args: string[], cmdAt: number): XargsOptions | Result | 'help' {
  // -i, -l and -e take their (optional) value attached only: bare, they mean -I {}, -L 1, no EOF string.
  const optArgs = args
    .slice(0, cmdAt)
    .filter((a, i, all) => !(a === '--' && i === all.length - 1) && a !== '-e')
    .map((a) => (a === '-i' ? '-I{}' : a === '-l' ? '-l1' : a));
  const p = getopt('xargs', optArgs, '0a:d:E:e:I:i:L:l:n:P:prs:tx', LONGS);
  if ('error' in p) return fail(p.error + TRY);
  if (p.opts.some(([k]) => k === 'help' || k === 'version')) return 'help';
  const o: XargsOptions = {
    mode: 'quoted',
    delim: '\n',
    maxArgs: Infinity,
    maxLines: 0,
    replace: null,
    noRunIfEmpty: false,
    verbose: false,
    eof: null,
    argFile: null,
    maxChars: MAX_CHARS,
    warnings: '',
  };
  for (const [k, v] of p.opts) {
    const done = Object.hasOwn(HANDLERS, k) ? HANDLERS[k]!(o, v) : undefined;
    if (done) return done;
  }
  return o;
}

async function readInput(ctx: Ctx, argFile: string | null): Promise<string | Result> {
  if (argFile === null) return decodeBytesToUtf8(ctx.stdin);
  try {
    return await ctx.fs.readFile(ctx.fs.resolvePath(ctx.cwd, argFile));
  } catch {
    return fail(`xargs: ${argFile}: No such file or directory\n`);
  }
}

/** Items, grouped into the lines they came from (-L / -I count lines); an -E string ends them. */
function itemLines(text: string, o: XargsOptions): string[][] | Result {
  if (o.mode === 'delim') {
    const parts = text.split(o.delim);
    if (parts.length && parts[parts.length - 1] === '') parts.pop();
    return parts.map((x) => [x]);
  }
  let lines: string[][] = [];
  if (o.replace !== null) {
    lines = text
      .split('\n')
      .map((l) => l.replace(/^[ \t]+/, ''))
      .filter((l) => l !== '')
      .map((l) => [l]);
  } else {
    for (const raw of text.split('\n')) {
      const s = splitQuoted(raw);
      if ('error' in s) return fail(s.error);
      if (s.items.length) lines.push(s.items);
    }
  }
  return o.eof === null ? lines : cutAtEof(lines, o.eof);
}

function cutAtEof(lines: string[][], eof: string): string[][] {
  const cut: string[][] = [];
  for (const l of lines) {
    const at = l.indexOf(eof);
    if (at === -1) cut.push(l);
    else {
      if (at > 0) cut.push(l.slice(0, at));
      break;
    }
  }
  return cut;
}

/** Invocations: -I one per line; -L N lines each; -n N items each; else all items at once, in command lines that fit. */
function batchesOf(lines: string[][], command: string[], o: XargsOptions): string[][] | Result {
  const batches: string[][] = [];
  if (o.replace !== null) for (const l of lines) batches.push(l);
  else if (o.maxLines > 0) for (let i = 0; i < lines.length; i += o.maxLines) batches.push(lines.slice(i, i + o.maxLines).flat());
  else {
    const sized = bySize(command, lines.flat(), o.maxArgs, o.maxChars);
    if (sized === null) return fail('xargs: argument line too long\n');
    batches.push(...sized);
  }
  return batches;
}

/** Runs each invocation in turn; GNU's statuses: 123 for 1–125, stop at 255 (124), 126 or not found (127). */
async function run(ctx: Ctx, command: string[], batches: string[][], o: XargsOptions): Promise<Result> {
  let stdout = '';
  let stderr = '';
  let status = 0;
  for (const batch of batches) {
    const argv = o.replace !== null ? command.map((w) => w.split(o.replace!).join(batch[0] ?? '')) : [...command, ...batch];
    if (o.verbose) stderr += argv.join(' ') + '\n';
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
}

export function xargsCommand(): CustomCommand {
  return defineCommand('xargs', async (args, ctx: Ctx): Promise<Result> => {
    const cmdAt = commandStart(args);
    const o = parseXargs(args, cmdAt);
    if (o === 'help') return ctx.origCommand!(args);
    if (!('mode' in o)) return o;
    const r = await xargsRun(ctx, args, cmdAt, o);
    return o.warnings ? { ...r, stderr: o.warnings + r.stderr } : r;
  });
}

/** What xargs does once its options are read: the input's items, the invocations, their run. */
async function xargsRun(ctx: Ctx, args: string[], cmdAt: number, o: XargsOptions): Promise<Result> {
  const command = cmdAt >= args.length ? ['echo'] : args.slice(cmdAt);
  const text = await readInput(ctx, o.argFile);
  if (typeof text !== 'string') return text;
  const lines = itemLines(text, o);
  if (!Array.isArray(lines)) return lines;
  const batches = batchesOf(lines, command, o);
  if (!Array.isArray(batches)) return batches;
  if (batches.length === 0 || (batches.length === 1 && batches[0]!.length === 0)) {
    if (o.noRunIfEmpty || o.replace !== null) return { stdout: '', stderr: '', exitCode: 0 };
    batches.length = 0;
    batches.push([]);
  }
  return run(ctx, command, batches, o);
}

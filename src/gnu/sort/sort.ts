/**
 * GNU sort (coreutils 9.1) under LC_ALL=C: keys (-k, -t), orderings (-b -d -f -g -h -i -M -n -V -r),
 * -c/-C, -m, -o, -s, -u, -z, byte for byte. Not supported: -R, --parallel, -T, --compress-program,
 * --files0-from.
 */
import { Buffer } from 'node:buffer';
import { bytesResult, utf8ToLatin1 } from '../kit/bytes.js';
import { defineCommand, type Command, type Result } from '../kit/command.js';
import { errnoMessage } from '../kit/errno.js';
import { GetoptError, parseOptions, type LongOpt, type Parsed } from '../kit/getopt.js';
import { Inputs } from '../kit/input.js';
import { quote, quotef } from '../kit/quote.js';
import { passHelp, usage } from '../kit/coreutils.js';
import { defaultKeyCompare, keyCompare, newKey, setOrdering, type Key } from './compare.js';

// ---------------------------------------------------------------------------------------
// sort
// ---------------------------------------------------------------------------------------

const SORT_LONGS: LongOpt[] = [
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
];

/** A -k KEYDEF (F[.C][OPTS][,F[.C][OPTS]]), or the message sort prints for a bad one. */
function parseKeySpec(spec: string): Key | string {
  const key = newKey();
  const bad = (why: string) => `sort: ${why}: invalid field specification ${quote(spec)}\n`;
  let m = /^(\d+)/.exec(spec);
  if (!m) return `sort: invalid number at field start: invalid count at start of ${quote(spec)}\n`;
  let rest = spec.slice(m[1]!.length);
  const sw = Number(m[1]);
  if (sw === 0) return bad('field number is zero');
  key.sword = sw - 1;
  if (rest.startsWith('.')) {
    m = /^(\d+)/.exec(rest.slice(1));
    if (!m) return `sort: invalid number after '.': invalid count at start of ${quote(rest.slice(1))}\n`;
    const sc = Number(m[1]);
    if (sc === 0) return bad('character offset is zero');
    key.schar = sc - 1;
    rest = rest.slice(1 + m[1]!.length);
  }
  if (key.sword === 0 && key.schar === 0) key.sword = -1;
  rest = setOrdering(rest, key, false);
  if (rest.startsWith(',')) {
    m = /^(\d+)/.exec(rest.slice(1));
    if (!m) return `sort: invalid number after ',': invalid count at start of ${quote(rest.slice(1))}\n`;
    const ew = Number(m[1]);
    if (ew === 0) return bad('field number is zero');
    key.eword = ew - 1;
    rest = rest.slice(1 + m[1]!.length);
    if (rest.startsWith('.')) {
      m = /^(\d+)/.exec(rest.slice(1));
      if (!m) return `sort: invalid number after '.': invalid count at start of ${quote(rest.slice(1))}\n`;
      key.echar = Number(m[1]);
      rest = rest.slice(1 + m[1]!.length);
    }
    rest = setOrdering(rest, key, true);
  } else {
    key.eword = -1;
    key.echar = 0;
  }
  if (rest) return bad('stray character in field spec');
  return key;
}

type Check = '' | 'diagnose' | 'quiet';

interface SortOptions {
  /** The global ordering options, as a key over the whole line. */
  g: Key;
  keys: Key[];
  check: Check;
  unique: boolean;
  stable: boolean;
  /** -t's byte, -1 for blank-separated fields. */
  tab: number;
  delim: string;
  outFile: string | null;
}

const fail = (msg: string): Result => ({ stdout: '', stderr: msg, exitCode: 2 });

function checkArg(o: SortOptions, v: string | undefined): Result | undefined {
  if (v === undefined) o.check = 'diagnose';
  else if (['quiet', 'silent'].some((x) => x.startsWith(v) && v)) o.check = 'quiet';
  else if ('diagnose-first'.startsWith(v) && v) o.check = 'diagnose';
  else
    return usage('sort', `sort: invalid argument ${quote(v)} for '--check'\nValid arguments are:\n  - 'quiet', 'silent'\n  - 'diagnose-first'\n`, 2);
  return undefined;
}

function keyArg(o: SortOptions, v: string): Result | undefined {
  const key = parseKeySpec(v);
  if (typeof key === 'string') return fail(key);
  o.keys.push(key);
  return undefined;
}

/** -t: one byte, or `\0` for NUL; repeating the same one is allowed. */
function tabArg(o: SortOptions, v: string): Result | undefined {
  const t = utf8ToLatin1(v);
  if (t.length === 0) return fail('sort: empty tab\n');
  if (t.length > 1) {
    if (t !== '\\0') return fail(`sort: multi-character tab ${quote(v)}\n`);
    o.tab = 0;
    return undefined;
  }
  const c = t.charCodeAt(0);
  if (o.tab !== -1 && o.tab !== c) return fail('sort: incompatible tabs\n');
  o.tab = c;
  return undefined;
}

const SORT_WORDS: Record<string, string> = { general: 'g', human: 'h', month: 'M', numeric: 'n', random: 'R', version: 'V' };

function sortWordArg(o: SortOptions, v: string): Result | undefined {
  const hit = Object.keys(SORT_WORDS).filter((x) => x.startsWith(v) && v);
  if (hit.length !== 1) return usage('sort', `sort: invalid argument ${quote(v)} for '--sort'\n`, 2);
  setOrdering(SORT_WORDS[hit[0]!]!, o.g, false);
  return undefined;
}

type Handler = (o: SortOptions, v: string | undefined) => Result | undefined;
const ignored: Handler = () => undefined;

/**
 * Options other than orderings, by getopt key; every other key is an ordering letter (-b -d -f
 * -g -h -i -M -n -r -R -V) for the global key. -m, -S, -T, --parallel and the like change
 * nothing here.
 */
const HANDLERS: Readonly<Record<string, Handler>> = {
  c: (o) => void (o.check = 'diagnose'),
  C: (o) => void (o.check = 'quiet'),
  check: checkArg,
  k: (o, v) => keyArg(o, v!),
  m: ignored,
  S: ignored,
  T: ignored,
  P: ignored,
  debug: ignored,
  bs: ignored,
  cp: ignored,
  rs: ignored,
  o: (o, v) => void (o.outFile = v!),
  s: (o) => void (o.stable = true),
  t: (o, v) => tabArg(o, v!),
  u: (o) => void (o.unique = true),
  z: (o) => void (o.delim = '\0'),
  sort: (o, v) => sortWordArg(o, v!),
  F: () => fail('sort: --files0-from is not supported\n'),
};

function parseSort(argv: string[]): { o: SortOptions; operands: string[] } | Result {
  let parsed: Parsed;
  try {
    parsed = parseOptions(argv, 'bcCdfghik:mMno:rRsS:t:T:uVz', SORT_LONGS);
  } catch (e) {
    if (e instanceof GetoptError) return usage('sort', `sort: ${e.message}\n`, 2);
    throw e;
  }
  const g = newKey();
  g.sword = -1;
  const o: SortOptions = { g, keys: [], check: '', unique: false, stable: false, tab: -1, delim: '\n', outFile: null };
  for (const [k, v] of parsed.opts) {
    if (!Object.hasOwn(HANDLERS, k)) {
      setOrdering(k, g, false);
      continue;
    }
    const done = HANDLERS[k]!(o, v);
    if (done) return done;
  }
  return { o, operands: parsed.operands };
}

/** Keys without ordering options inherit the global ones. */
function inheritGlobal(keys: Key[], g: Key): void {
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
}

/** The error for a key with more than one of -g -h -M -n -V, or null. */
function incompatible(keys: Key[]): Result | null {
  const nOrder = (k: Key) => Number(k.numeric) + Number(k.general) + Number(k.human) + Number(k.month) + Number(k.version);
  for (const k of keys) {
    if (nOrder(k) > 1 || (nOrder(k) && k.ignore !== 'none' && !k.numeric && !k.general && !k.human && false)) {
      const opts = (k.general ? 'g' : '') + (k.human ? 'h' : '') + (k.month ? 'M' : '') + (k.numeric ? 'n' : '') + (k.version ? 'V' : '');
      return fail(`sort: options '-${opts}' are incompatible\n`);
    }
  }
  return null;
}

/** Every input's lines, in order; sort stops at the first input it cannot read. */
async function readLines(io: Inputs, files: string[], delim: string): Promise<string[] | Result> {
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
  return lines;
}

/** The keys, then (unless -u or -s) the whole line as the last resort, -r reversing it too. */
function comparator(o: SortOptions): (a: string, b: string) => number {
  const { keys, unique, stable, tab } = o;
  const reverse = o.g.reverse;
  return (a, b) => {
    if (keys.length) {
      const d = keyCompare(keys, a, b, tab);
      if (d || unique || stable) return d;
    }
    const d = a < b ? -1 : a > b ? 1 : 0;
    return reverse ? -d : d;
  };
}

/** -c / -C: exit 1 at the first line out of order (-c names it). */
function checkOrder(lines: string[], cmp: (a: string, b: string) => number, o: SortOptions, name: string): Result {
  for (let i = 1; i < lines.length; i++) {
    const d = cmp(lines[i - 1]!, lines[i]!);
    if (d > 0 || (o.unique && d === 0)) {
      const msg = o.check === 'diagnose' ? `sort: ${utf8ToLatin1(name)}:${i + 1}: disorder: ${lines[i]}\n` : '';
      return { stdout: '', stderr: Buffer.from(msg, 'latin1').toString('utf8'), exitCode: 1 };
    }
  }
  return { stdout: '', stderr: '', exitCode: 0 };
}

/** A stable sort (ties keep input order); -u keeps the first of each run of equal lines. */
function sorted(lines: string[], cmp: (a: string, b: string) => number, unique: boolean): string[] {
  const idx = lines.map((_, i) => i);
  idx.sort((x, y) => cmp(lines[x]!, lines[y]!) || x - y);
  if (!unique) return idx.map((i) => lines[i]!);
  const out: string[] = [];
  let last: string | null = null;
  for (const i of idx) {
    const l = lines[i]!;
    if (last !== null && cmp(last, l) === 0) continue;
    out.push(l);
    last = l;
  }
  return out;
}

export function sortCommand(): Command {
  return defineCommand('sort', async (argv, ctx) => {
    const help = await passHelp(argv, ctx);
    if (help) return help;
    const parsed = parseSort(argv);
    if (!('o' in parsed)) return parsed;
    const { o } = parsed;
    const { g, keys, check } = o;
    // Unsupported: fall back to the bundled sort (it shuffles).
    if ((g.random || keys.some((k) => k.random)) && ctx.origCommand) return ctx.origCommand(argv);
    inheritGlobal(keys, g);
    const bad = incompatible([g, ...keys]);
    if (bad) return bad;
    if (!keys.length && !defaultKeyCompare(g)) keys.push({ ...g, sword: -1, schar: 0, eword: -1, echar: 0 });
    const files = parsed.operands.length ? parsed.operands : ['-'];
    if (check && files.length > 1)
      return usage('sort', `sort: extra operand ${quote(files[1]!)} not allowed with -${check === 'quiet' ? 'C' : 'c'}\n`, 2);
    const lines = await readLines(new Inputs(ctx), files, o.delim);
    if (!Array.isArray(lines)) return lines;
    const cmp = comparator(o);
    if (check) return checkOrder(lines, cmp, o, files[0]!);
    const out = sorted(lines, cmp, o.unique);
    const text = out.length ? out.join(o.delim) + o.delim : '';
    if (o.outFile === null) return bytesResult(text, '', 0);
    try {
      await ctx.fs.writeFile(ctx.fs.resolvePath(ctx.cwd, o.outFile), Buffer.from(text, 'latin1'));
    } catch (e) {
      return fail(`sort: open failed: ${quotef(o.outFile)}: ${errnoMessage(e)}\n`);
    }
    return bytesResult('', '', 0);
  });
}

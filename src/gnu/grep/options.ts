/** grep: the options (getopt_long table, what each one sets) and their parsing. */
import { Buffer } from 'node:buffer';
import { latin1FromBytes } from '../kit/command.js';
import { errnoMessage } from '../kit/errno.js';
import { GetoptError, longOpts, tokens, type LongOpt } from '../kit/getopt.js';
import { GrepExit, HELP, USAGE_TAIL, VERSION } from './texts.js';
import { type PatternLoc } from './matcher.js';
import { ExcludeList } from './exclude.js';
import type { Grep } from './search.js';

const LONG_OPTIONS: LongOpt[] = longOpts([
  ['basic-regexp', 'G'],
  ['extended-regexp', 'E'],
  ['fixed-regexp', 'F'],
  ['fixed-strings', 'F'],
  ['perl-regexp', 'P'],
  ['after-context', 'A', 'required'],
  ['before-context', 'B', 'required'],
  ['binary-files', 'binary-files', 'required'],
  ['byte-offset', 'b'],
  ['context', 'C', 'required'],
  ['color', 'color', 'optional'],
  ['colour', 'color', 'optional'],
  ['count', 'c'],
  ['devices', 'D', 'required'],
  ['directories', 'd', 'required'],
  ['exclude', 'exclude', 'required'],
  ['exclude-from', 'exclude-from', 'required'],
  ['exclude-dir', 'exclude-dir', 'required'],
  ['file', 'f', 'required'],
  ['files-with-matches', 'l'],
  ['files-without-match', 'L'],
  ['group-separator', 'group-separator', 'required'],
  ['help', 'help'],
  ['include', 'include', 'required'],
  ['ignore-case', 'i'],
  ['no-ignore-case', 'no-ignore-case'],
  ['initial-tab', 'T'],
  ['label', 'label', 'required'],
  ['line-buffered', 'line-buffered'],
  ['line-number', 'n'],
  ['line-regexp', 'x'],
  ['max-count', 'm', 'required'],
  ['no-filename', 'h'],
  ['no-group-separator', 'no-group-separator'],
  ['no-messages', 's'],
  ['null', 'Z'],
  ['null-data', 'z'],
  ['only-matching', 'o'],
  ['quiet', 'q'],
  ['recursive', 'r'],
  ['dereference-recursive', 'R'],
  ['regexp', 'e', 'required'],
  ['invert-match', 'v'],
  ['silent', 'q'],
  ['text', 'a'],
  ['binary', 'U'],
  ['unix-byte-offsets', 'u'],
  ['version', 'V'],
  ['with-filename', 'H'],
  ['word-regexp', 'w'],
]);
const SHORT_OPTIONS = '0123456789A:B:C:D:EFGHIPTUVX:abcd:e:f:hiLlm:noqRrsuvwxyZz';

export interface Options {
  matcher: 'G' | 'E' | 'F' | 'P' | null;
  keys: PatternLoc[] | null;
  after: number;
  before: number;
  context: number;
  icase: boolean;
  words: boolean;
  lines: boolean;
  invert: boolean;
  count: boolean;
  list: 0 | 1 | 2; // none, -l, -L
  lineNumbers: boolean;
  byteOffset: boolean;
  onlyMatching: boolean;
  quiet: boolean;
  suppress: boolean;
  filenameOpt: -1 | 0 | 1;
  binaryFiles: 'binary' | 'text' | 'without-match';
  directories: 'read' | 'recurse' | 'skip';
  deref: boolean;
  lastRecursive: boolean;
  maxCount: number;
  nullName: boolean;
  nullData: boolean;
  label: string | null;
  groupSeparator: string | null;
  color: boolean;
  alignTabs: boolean;
  files: ExcludeList[]; // [recursion (anchored), command line]
  dirs: ExcludeList[];
}

/** Parses a context length like xstrtoimax; null if invalid. */
export function parseCount(s: string): number | null {
  const m = /^[ \t\n\v\f\r]*([+-]?)([0-9]+)$/.exec(s);
  if (!m) return null;
  const v = Number(m[2]);
  if (m[1] === '-' && v !== 0) return -Math.min(v, Number.MAX_SAFE_INTEGER);
  return Math.min(v, Number.MAX_SAFE_INTEGER);
}

/** What parsing carries from one option to the next, besides the options themselves. */
interface ParseState {
  g: Grep;
  o: Options;
  showHelp: boolean;
  showVersion: boolean;
  /** The digits of a pending -NUM context length, and the argument they came from. */
  digits: string;
  digitElem: number;
}

function defaultOptions(): Options {
  return {
    matcher: null,
    keys: null,
    after: -1,
    before: -1,
    context: -1,
    icase: false,
    words: false,
    lines: false,
    invert: false,
    count: false,
    list: 0,
    lineNumbers: false,
    byteOffset: false,
    onlyMatching: false,
    quiet: false,
    suppress: false,
    filenameOpt: 0,
    binaryFiles: 'binary',
    directories: 'read',
    deref: false,
    lastRecursive: false,
    maxCount: Infinity,
    nullName: false,
    nullData: false,
    label: null,
    groupSeparator: '--',
    color: false,
    alignTabs: false,
    files: [new ExcludeList(true), new ExcludeList(false)],
    dirs: [new ExcludeList(true), new ExcludeList(false)],
  };
}

function fail(g: Grep, message: string): never {
  g.error(message);
  throw new GrepExit(2);
}

function flushDigits(p: ParseState): void {
  if (!p.digits) return;
  const v = parseCount(p.digits);
  if (v === null || v < 0) fail(p.g, `${p.digits}: invalid context length argument`);
  p.o.context = v;
  p.digits = '';
}

function setMatcher(p: ParseState, m: 'G' | 'E' | 'F' | 'P'): void {
  if (p.o.matcher !== null && p.o.matcher !== m) fail(p.g, 'conflicting matchers specified');
  p.o.matcher = m;
}

function ctxArg(g: Grep, s: string): number {
  const v = parseCount(s);
  if (v === null || v < 0) fail(g, `${s}: invalid context length argument`);
  return v;
}

function addKeys(o: Options, text: string, file: string): void {
  const pats = text.split('\n');
  pats.pop();
  o.keys ??= [];
  pats.forEach((p, k) => o.keys!.push({ text: p, file, line: k + 1 }));
}

const MATCHER_NAMES: Record<string, 'G' | 'E' | 'F' | 'P'> = { grep: 'G', egrep: 'E', fgrep: 'F', perl: 'P' };

function matcherByName(p: ParseState, arg: string): void {
  const m = Object.hasOwn(MATCHER_NAMES, arg) ? MATCHER_NAMES[arg] : undefined;
  if (!m) fail(p.g, `invalid matcher ${arg}`);
  setMatcher(p, m);
}

/** --directories: an unambiguous prefix of a choice counts, as argmatch allows. */
function directoriesArg(p: ParseState, v: string): void {
  const choices = ['read', 'recurse', 'skip'];
  const hits = choices.filter((c) => c.startsWith(v));
  const pick = choices.includes(v) ? v : hits.length === 1 ? hits[0]! : null;
  if (pick === null || v === '') {
    p.g.err.push(
      `grep: ${hits.length > 1 ? 'ambiguous' : 'invalid'} argument \u2018${v}\u2019 for \u2018--directories\u2019\nValid arguments are:\n  - \u2018read\u2019\n  - \u2018recurse\u2019\n  - \u2018skip\u2019\n${USAGE_TAIL}`,
    );
    throw new GrepExit(1);
  }
  p.o.directories = pick as Options['directories'];
  if (pick === 'recurse') p.o.lastRecursive = true;
}

async function readPatternFile(g: Grep, arg: string): Promise<string> {
  if (arg === '-') {
    g.stdinUsed = true;
    return Buffer.from(latin1FromBytes(g.ctx.stdin), 'latin1').toString('utf8');
  }
  try {
    const abs = g.fs.resolvePath(g.ctx.cwd, arg);
    const st = await g.fs.stat(abs);
    // fopen succeeds on a directory; reading it fails.
    if (st.isDirectory) fail(g, `${arg}: Is a directory`);
    return Buffer.from(await g.fs.readFileBuffer(abs)).toString('utf8');
  } catch (e) {
    if (e instanceof GrepExit) throw e;
    fail(g, `${arg}: ${errnoMessage(e, null)}`);
  }
}

async function patternFile(p: ParseState, arg: string): Promise<void> {
  let content = await readPatternFile(p.g, arg);
  if (content.length && !content.endsWith('\n')) content += '\n';
  addKeys(p.o, content, arg);
  if (p.o.keys === null) p.o.keys = [];
}

function maxCountArg(p: ParseState, arg: string): void {
  const v = parseCount(arg);
  if (v === null) fail(p.g, 'invalid max count');
  p.o.maxCount = v;
}

function binaryFilesArg(p: ParseState, arg: string): void {
  if (arg === 'binary' || arg === 'text' || arg === 'without-match') p.o.binaryFiles = arg;
  else fail(p.g, 'unknown binary-files type');
}

function colorArg(p: ParseState, arg: string | undefined): void {
  if (arg === undefined) return;
  if (/^(always|yes|force)$/i.test(arg)) p.o.color = true;
  else if (/^(never|no|none|auto|tty|if-tty)$/i.test(arg)) p.o.color = false;
  else p.showHelp = true;
}

function addFileGlob(o: Options, glob: string, include: boolean): void {
  o.files[0]!.add(glob, include);
  o.files[1]!.add(glob, include);
}

async function excludeFrom(p: ParseState, arg: string): Promise<void> {
  const { g } = p;
  let content: string;
  try {
    content = Buffer.from(await g.fs.readFileBuffer(g.fs.resolvePath(g.ctx.cwd, arg))).toString('utf8');
  } catch (e) {
    fail(g, `${arg}: ${errnoMessage(e, null)}`);
  }
  for (const line of content.split('\n')) if (line) addFileGlob(p.o, line, false);
}

function excludeDir(o: Options, arg: string): void {
  let v = arg;
  while (v.length > 1 && v.endsWith('/')) v = v.slice(0, -1);
  o.dirs[0]!.add(v, false);
  o.dirs[1]!.add(v, false);
}

function recurse(o: Options, deref: boolean): void {
  if (deref) o.deref = true;
  o.directories = 'recurse';
  o.lastRecursive = true;
}

type Handler = (p: ParseState, arg: string | undefined) => void | Promise<void>;

/** What each option does, by its getopt key; a key missing here (-U, --line-buffered) is accepted and ignored. */
const HANDLERS: Readonly<Record<string, Handler>> = {
  A: (p, a) => void (p.o.after = ctxArg(p.g, a!)),
  B: (p, a) => void (p.o.before = ctxArg(p.g, a!)),
  C: (p, a) => void (p.o.context = ctxArg(p.g, a!)),
  D: (p, a) => {
    if (a !== 'read' && a !== 'skip') fail(p.g, 'unknown devices method');
  },
  E: (p) => setMatcher(p, 'E'),
  F: (p) => setMatcher(p, 'F'),
  P: (p) => setMatcher(p, 'P'),
  G: (p) => setMatcher(p, 'G'),
  X: (p, a) => matcherByName(p, a!),
  H: (p) => void (p.o.filenameOpt = 1),
  I: (p) => void (p.o.binaryFiles = 'without-match'),
  T: (p) => void (p.o.alignTabs = true),
  u: (p) => p.g.error('warning: --unix-byte-offsets (-u) is obsolete'),
  V: (p) => void (p.showVersion = true),
  a: (p) => void (p.o.binaryFiles = 'text'),
  b: (p) => void (p.o.byteOffset = true),
  c: (p) => void (p.o.count = true),
  d: (p, a) => directoriesArg(p, a!),
  e: (p, a) => addKeys(p.o, a! + '\n', ''),
  f: (p, a) => patternFile(p, a!),
  h: (p) => void (p.o.filenameOpt = -1),
  i: (p) => void (p.o.icase = true),
  'no-ignore-case': (p) => void (p.o.icase = false),
  L: (p) => void (p.o.list = 2),
  l: (p) => void (p.o.list = 1),
  m: (p, a) => maxCountArg(p, a!),
  n: (p) => void (p.o.lineNumbers = true),
  o: (p) => void (p.o.onlyMatching = true),
  q: (p) => void (p.o.quiet = true),
  R: (p) => recurse(p.o, true),
  r: (p) => recurse(p.o, false),
  s: (p) => void (p.o.suppress = true),
  v: (p) => void (p.o.invert = true),
  w: (p) => void (p.o.words = true),
  x: (p) => void (p.o.lines = true),
  y: (p) => void (p.o.icase = true),
  Z: (p) => void (p.o.nullName = true),
  z: (p) => void (p.o.nullData = true),
  'binary-files': (p, a) => binaryFilesArg(p, a!),
  color: (p, a) => colorArg(p, a),
  exclude: (p, a) => addFileGlob(p.o, a!, false),
  include: (p, a) => addFileGlob(p.o, a!, true),
  'exclude-from': (p, a) => excludeFrom(p, a!),
  'exclude-dir': (p, a) => excludeDir(p.o, a!),
  'group-separator': (p, a) => void (p.o.groupSeparator = a!),
  'no-group-separator': (p) => void (p.o.groupSeparator = null),
  label: (p, a) => void (p.o.label = a!),
  help: (p) => void (p.showHelp = true),
};

/** -NUM: the digits of one argument make one context length (`-1 -5` is 5, `-15` 15). */
function contextDigit(p: ParseState, digit: string, index: number): void {
  if (p.digitElem !== index || !p.digits) p.digits = '';
  if (p.digits === '0') p.digits = '';
  p.digits += digit;
  p.digitElem = index;
}

/** grep's options, parsed as getopt_long does (permutation, -NUM context), applied in order. */
export async function parseArgs(g: Grep, argv: string[]): Promise<{ o: Options; operands: string[] }> {
  const o = defaultOptions();
  g.o = o;
  const p: ParseState = { g, o, showHelp: false, showVersion: false, digits: '', digitElem: -1 };
  const operands: string[] = [];
  try {
    for (const t of tokens(argv, SHORT_OPTIONS, LONG_OPTIONS)) {
      if (t.kind === 'operand') operands.push(t.value);
      else if (t.key >= '0' && t.key <= '9' && t.key.length === 1) contextDigit(p, t.key, t.index);
      else {
        flushDigits(p);
        if (Object.hasOwn(HANDLERS, t.key)) await HANDLERS[t.key]!(p, t.arg);
      }
    }
  } catch (e) {
    if (!(e instanceof GetoptError)) throw e;
    if (!e.long) flushDigits(p);
    g.usageError(e.message);
  }
  flushDigits(p);

  if (p.showVersion) {
    g.write(VERSION);
    throw new GrepExit(0);
  }
  if (p.showHelp) {
    g.write(HELP);
    throw new GrepExit(0);
  }
  return { o, operands };
}

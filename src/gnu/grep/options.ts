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

/** grep's options, parsed as getopt_long does (permutation, -NUM context), applied in order. */
export async function parseArgs(g: Grep, argv: string[]): Promise<{ o: Options; operands: string[] }> {
  const o: Options = {
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
  g.o = o;
  const operands: string[] = [];
  let showHelp = false;
  let showVersion = false;
  let digits = '';
  let digitElem = -1;
  const flushDigits = () => {
    if (digits) {
      const v = parseCount(digits);
      if (v === null || v < 0) {
        g.error(`${digits}: invalid context length argument`);
        throw new GrepExit(2);
      }
      o.context = v;
      digits = '';
    }
  };
  const setMatcher = (m: 'G' | 'E' | 'F' | 'P') => {
    if (o.matcher !== null && o.matcher !== m) {
      g.error('conflicting matchers specified');
      throw new GrepExit(2);
    }
    o.matcher = m;
  };
  const ctxArg = (s: string): number => {
    const v = parseCount(s);
    if (v === null || v < 0) {
      g.error(`${s}: invalid context length argument`);
      throw new GrepExit(2);
    }
    return v;
  };
  const addKeys = (text: string, file: string) => {
    const pats = text.split('\n');
    pats.pop();
    o.keys ??= [];
    pats.forEach((p, k) => o.keys!.push({ text: p, file, line: k + 1 }));
  };

  const apply = async (key: string, arg: string | undefined): Promise<void> => {
    if (key !== 'digit') flushDigits();
    switch (key) {
      case 'A':
        o.after = ctxArg(arg!);
        break;
      case 'B':
        o.before = ctxArg(arg!);
        break;
      case 'C':
        o.context = ctxArg(arg!);
        break;
      case 'D':
        if (arg !== 'read' && arg !== 'skip') {
          g.error('unknown devices method');
          throw new GrepExit(2);
        }
        break;
      case 'E':
        setMatcher('E');
        break;
      case 'F':
        setMatcher('F');
        break;
      case 'P':
        setMatcher('P');
        break;
      case 'G':
        setMatcher('G');
        break;
      case 'X': {
        const map: Record<string, 'G' | 'E' | 'F' | 'P'> = { grep: 'G', egrep: 'E', fgrep: 'F', perl: 'P' };
        const m = Object.hasOwn(map, arg!) ? map[arg!] : undefined;
        if (!m) {
          g.error(`invalid matcher ${arg}`);
          throw new GrepExit(2);
        }
        setMatcher(m);
        break;
      }
      case 'H':
        o.filenameOpt = 1;
        break;
      case 'I':
        o.binaryFiles = 'without-match';
        break;
      case 'T':
        o.alignTabs = true;
        break;
      case 'U':
        break;
      case 'u':
        g.error('warning: --unix-byte-offsets (-u) is obsolete');
        break;
      case 'V':
        showVersion = true;
        break;
      case 'a':
        o.binaryFiles = 'text';
        break;
      case 'b':
        o.byteOffset = true;
        break;
      case 'c':
        o.count = true;
        break;
      case 'd': {
        const v = arg!;
        const choices = ['read', 'recurse', 'skip'];
        const hits = choices.filter((c) => c.startsWith(v));
        const pick = choices.includes(v) ? v : hits.length === 1 ? hits[0]! : null;
        if (pick === null || v === '') {
          g.err.push(
            `grep: ${hits.length > 1 ? 'ambiguous' : 'invalid'} argument \u2018${v}\u2019 for \u2018--directories\u2019\nValid arguments are:\n  - \u2018read\u2019\n  - \u2018recurse\u2019\n  - \u2018skip\u2019\n${USAGE_TAIL}`,
          );
          throw new GrepExit(1);
        }
        o.directories = pick as Options['directories'];
        if (pick === 'recurse') o.lastRecursive = true;
        break;
      }
      case 'e':
        addKeys(arg! + '\n', '');
        break;
      case 'f': {
        let content: string;
        if (arg === '-') {
          content = Buffer.from(latin1FromBytes(g.ctx.stdin), 'latin1').toString('utf8');
          g.stdinUsed = true;
        } else {
          try {
            const abs = g.fs.resolvePath(g.ctx.cwd, arg!);
            const st = await g.fs.stat(abs);
            if (st.isDirectory) {
              // fopen succeeds on a directory; reading it fails.
              g.error(`${arg}: Is a directory`);
              throw new GrepExit(2);
            }
            content = Buffer.from(await g.fs.readFileBuffer(abs)).toString('utf8');
          } catch (e) {
            if (e instanceof GrepExit) throw e;
            g.error(`${arg}: ${errnoMessage(e, null)}`);
            throw new GrepExit(2);
          }
        }
        if (content.length && !content.endsWith('\n')) content += '\n';
        addKeys(content, arg!);
        if (o.keys === null) o.keys = [];
        break;
      }
      case 'h':
        o.filenameOpt = -1;
        break;
      case 'i':
        o.icase = true;
        break;
      case 'no-ignore-case':
        o.icase = false;
        break;
      case 'L':
        o.list = 2;
        break;
      case 'l':
        o.list = 1;
        break;
      case 'm': {
        const v = parseCount(arg!);
        if (v === null) {
          g.error('invalid max count');
          throw new GrepExit(2);
        }
        o.maxCount = v;
        break;
      }
      case 'n':
        o.lineNumbers = true;
        break;
      case 'o':
        o.onlyMatching = true;
        break;
      case 'q':
        o.quiet = true;
        break;
      case 'R':
        o.deref = true;
        o.directories = 'recurse';
        o.lastRecursive = true;
        break;
      case 'r':
        o.directories = 'recurse';
        o.lastRecursive = true;
        break;
      case 's':
        o.suppress = true;
        break;
      case 'v':
        o.invert = true;
        break;
      case 'w':
        o.words = true;
        break;
      case 'x':
        o.lines = true;
        break;
      case 'y':
        o.icase = true;
        break;
      case 'Z':
        o.nullName = true;
        break;
      case 'z':
        o.nullData = true;
        break;
      case 'binary-files':
        if (arg === 'binary' || arg === 'text' || arg === 'without-match') o.binaryFiles = arg;
        else {
          g.error('unknown binary-files type');
          throw new GrepExit(2);
        }
        break;
      case 'color':
        if (arg === undefined) break;
        if (/^(always|yes|force)$/i.test(arg)) o.color = true;
        else if (/^(never|no|none|auto|tty|if-tty)$/i.test(arg)) o.color = false;
        else showHelp = true;
        break;
      case 'exclude':
      case 'include':
        o.files[0]!.add(arg!, key === 'include');
        o.files[1]!.add(arg!, key === 'include');
        break;
      case 'exclude-from': {
        let content: string;
        try {
          content = Buffer.from(await g.fs.readFileBuffer(g.fs.resolvePath(g.ctx.cwd, arg!))).toString('utf8');
        } catch (e) {
          g.error(`${arg}: ${errnoMessage(e, null)}`);
          throw new GrepExit(2);
        }
        for (const line of content.split('\n')) {
          if (!line) continue;
          o.files[0]!.add(line, false);
          o.files[1]!.add(line, false);
        }
        break;
      }
      case 'exclude-dir': {
        let v = arg!;
        while (v.length > 1 && v.endsWith('/')) v = v.slice(0, -1);
        o.dirs[0]!.add(v, false);
        o.dirs[1]!.add(v, false);
        break;
      }
      case 'group-separator':
        o.groupSeparator = arg!;
        break;
      case 'no-group-separator':
        o.groupSeparator = null;
        break;
      case 'line-buffered':
        break;
      case 'label':
        o.label = arg!;
        break;
      case 'help':
        showHelp = true;
        break;
    }
  };

  try {
    for (const t of tokens(argv, SHORT_OPTIONS, LONG_OPTIONS)) {
      if (t.kind === 'operand') operands.push(t.value);
      else if (t.key >= '0' && t.key <= '9' && t.key.length === 1) {
        // -NUM: the digits of one argument make one context length (`-1 -5` is 5, `-15` 15).
        if (digitElem !== t.index || !digits) digits = '';
        if (digits === '0') digits = '';
        digits += t.key;
        digitElem = t.index;
      } else await apply(t.key, t.arg);
    }
  } catch (e) {
    if (!(e instanceof GetoptError)) throw e;
    if (!e.long) flushDigits();
    g.usageError(e.message);
  }
  flushDigits();

  if (showVersion) {
    g.write(VERSION);
    throw new GrepExit(0);
  }
  if (showHelp) {
    g.write(HELP);
    throw new GrepExit(0);
  }
  return { o, operands };
}

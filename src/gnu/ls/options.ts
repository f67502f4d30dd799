/** ls's options (coreutils 9.1): getopt_long, then what each option sets, in GNU's order of precedence. */
import { type FsStat } from '../kit/command.js';
import { getopt, type LongOpt } from '../kit/getopt.js';

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

export interface Ent {
  /** Name as printed (operand as given, or the entry name in a directory). */
  name: string;
  /** Absolute path. */
  path: string;
  st: FsStat;
  links?: number;
}

type SortKey = 'name' | 'time' | 'size' | 'none' | 'extension' | 'version' | 'width';
type Format = 'one' | 'long' | 'columns' | 'across' | 'commas';

export interface LsOpts {
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

/** What parseLs answers instead of options: a usage error, or the text of --help / --version. */
export interface LsExit {
  error: string;
  code: number;
  stdout?: string;
}

function defaultOptions(): LsOpts {
  return {
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
}

/** argmatch's message; `a|b` in `valid` lists synonyms on one line. */
function bad(what: string, v: string, valid: string[]): LsExit {
  const lines = valid.map(
    (x) =>
      `  - ${x
        .split('|')
        .map((y) => `'${y}'`)
        .join(', ')}`,
  );
  return { error: `ls: invalid argument '${v}' for '--${what}'\nValid arguments are:\n${lines.join('\n')}\n${LS_TRY}`, code: 1 };
}

function classifyArg(o: LsOpts, v: string | undefined): LsExit | undefined {
  if (v !== undefined && !['always', 'yes', 'force', 'auto', 'tty', 'if-tty', 'never', 'no', 'none'].includes(v))
    return bad('classify', v, ['always|yes|force', 'never|no|none', 'auto|tty|if-tty']);
  if (v === undefined || ['always', 'yes', 'force'].includes(v)) o.indicator = 'classify';
  else if (['never', 'no', 'none'].includes(v)) o.indicator = 'none';
  return undefined;
}

function indicatorStyleArg(o: LsOpts, v: string): LsExit | undefined {
  const valid = ['none', 'slash', 'file-type', 'classify'];
  if (!valid.includes(v)) return bad('indicator-style', v, valid);
  o.indicator = v as LsOpts['indicator'];
  return undefined;
}

const QUOTING_STYLES: Record<string, LsOpts['quoting']> = {
  literal: 'literal',
  shell: 'shell',
  'shell-always': 'shell-always',
  'shell-escape': 'shell',
  'shell-escape-always': 'shell-always',
  c: 'c',
  escape: 'escape',
};

function quotingStyleArg(o: LsOpts, v: string): LsExit | undefined {
  if (!Object.hasOwn(QUOTING_STYLES, v)) return bad('quoting-style', v, Object.keys(QUOTING_STYLES).concat(['locale', 'clocale']));
  o.quoting = QUOTING_STYLES[v] ?? 'literal';
  return undefined;
}

function sortArg(o: LsOpts, v: string): LsExit | undefined {
  const valid = ['none', 'time', 'size', 'extension', 'version', 'width'];
  if (!valid.includes(v)) return bad('sort', v, valid);
  o.sort = v === 'none' ? 'none' : (v as SortKey);
  return undefined;
}

const FORMATS: Record<string, Format> = {
  verbose: 'long',
  long: 'long',
  commas: 'commas',
  horizontal: 'across',
  across: 'across',
  vertical: 'columns',
  'single-column': 'one',
};

function formatArg(o: LsOpts, v: string): LsExit | undefined {
  if (!Object.hasOwn(FORMATS, v)) return bad('format', v, ['verbose|long', 'commas', 'horizontal|across', 'vertical', 'single-column']);
  o.format = FORMATS[v]!;
  return undefined;
}

function widthArg(o: LsOpts, v: string): LsExit | undefined {
  const n = Number(v);
  if (!/^\d+$/.test(v)) return { error: `ls: invalid line width: '${v}'\n`, code: 2 };
  o.width = n === 0 ? Infinity : n;
  return undefined;
}

const HELP =
  'Usage: ls [OPTION]... [FILE]...\nList information about the FILEs (the current directory by default).\nSort entries alphabetically if none of -cftuvSUX nor --sort is specified.\n';

type Handler = (o: LsOpts, v: string | undefined) => LsExit | undefined;

/** A handler for an option that only sets fields. */
const set =
  (fields: Partial<LsOpts>): Handler =>
  (o) =>
    void Object.assign(o, fields);

/**
 * What each option sets, by getopt key, in command-line order (a later option overrides).
 * Accepted and without effect here, so not listed: -D -H -k -L -q -T -Z --color --si --author …,
 * and -c / -u (ctime, atime: the store has only mtime).
 */
const HANDLERS: Readonly<Record<string, Handler>> = {
  a: set({ all: true, almostAll: false }),
  A: set({ almostAll: true, all: false }),
  B: set({ ignoreBackups: true }),
  C: set({ format: 'columns' }),
  x: set({ format: 'across' }),
  m: set({ format: 'commas' }),
  '1': (o) => {
    if (o.format !== 'long') o.format = 'one';
    return undefined;
  },
  d: set({ directory: true }),
  f: set({ all: true, sort: 'none' }),
  F: classifyArg,
  'file-type': set({ indicator: 'file-type' }),
  p: set({ indicator: 'slash' }),
  'indicator-style': (o, v) => indicatorStyleArg(o, v!),
  l: set({ format: 'long' }),
  g: set({ format: 'long', showOwner: false }),
  o: set({ format: 'long', showGroup: false }),
  G: set({ showGroup: false }),
  n: set({ format: 'long', numeric: true }),
  h: set({ human: true }),
  i: set({ inode: true }),
  s: set({ size: true }),
  I: (o, v) => void o.ignore.push(v!),
  hide: (o, v) => void o.hide.push(v!),
  r: set({ reverse: true }),
  R: set({ recursive: true }),
  t: set({ sort: 'time' }),
  S: set({ sort: 'size' }),
  U: set({ sort: 'none' }),
  v: set({ sort: 'version' }),
  X: set({ sort: 'extension' }),
  Q: set({ quoting: 'c' }),
  b: set({ quoting: 'escape' }),
  N: set({ quoting: 'literal' }),
  'quoting-style': (o, v) => quotingStyleArg(o, v!),
  sort: (o, v) => sortArg(o, v!),
  format: (o, v) => formatArg(o, v!),
  'full-time': set({ format: 'long', timeStyle: 'full-iso' }),
  'time-style': (o, v) => {
    const s = v!.replace(/^posix-/, '');
    o.timeStyle = ['full-iso', 'long-iso', 'iso'].includes(s) ? s : 'locale';
    return undefined;
  },
  gdf: set({ groupDirs: true }),
  w: (o, v) => widthArg(o, v!),
  zero: set({ zero: true }),
  help: () => ({ error: '', code: 0, stdout: HELP }),
  version: () => ({ error: '', code: 0, stdout: 'ls (GNU coreutils) 9.1\n' }),
};

export function parseLs(args: string[]): (LsOpts & { operands: string[] }) | LsExit {
  const p = getopt('ls', args, 'aAbBcCdDfFgGhHiI:klLmnNopqQrRsStT:uUvw:xXZ1', LS_LONGS);
  if ('error' in p) return { error: p.error + LS_TRY, code: 2 };
  const o = defaultOptions();
  for (const [k, v] of p.opts) {
    const exit = Object.hasOwn(HANDLERS, k) ? HANDLERS[k]!(o, v) : undefined;
    if (exit) return exit;
  }
  return { ...o, operands: p.operands };
}

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

export function parseLs(args: string[]): (LsOpts & { operands: string[] }) | { error: string; code: number; stdout?: string } {
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

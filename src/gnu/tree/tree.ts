/**
 * `tree` (GNU/Linux tree 2.1) for the bash tool, as it prints in the C locale (ASCII lines):
 * just-bash's own rejects -I. Entries in byte order (tree's strcoll in the C locale).
 *
 * Options: -a (dotfiles), -d (directories only), -f (full path), -i (no indentation lines),
 * -F (append / to directories), -L level, -I pattern (exclude; `a|b` alternatives, repeatable),
 * -P pattern (list only matching files), --noreport, --dirsfirst; -n/-N/-C accepted (no colour).
 */
import { defineCommand, type CustomCommand, type Ctx, type IFileSystem, type Result } from '../kit/command.js';
import { isMountPoint } from '../kit/file-info.js';
import { fnmatch } from '../kit/fnmatch.js';
import { getopt, type LongOpt } from '../kit/getopt.js';

const USAGE = 'usage: tree [-adfiFnNC] [-L level] [-P pattern] [-I pattern] [--noreport] [--dirsfirst] [--] [directory ...]\n';

const LONGS: LongOpt[] = [
  { name: 'noreport', key: 'noreport', arg: 'none' },
  { name: 'dirsfirst', key: 'dirsfirst', arg: 'none' },
  { name: 'help', key: 'help', arg: 'none' },
];

interface Options {
  all: boolean;
  dirsOnly: boolean;
  fullPath: boolean;
  noIndent: boolean;
  classify: boolean;
  level: number;
  exclude: string[];
  only: string[];
  report: boolean;
  dirsFirst: boolean;
}

const matchesAny = (patterns: string[], name: string) => patterns.some((p) => p.split('|').some((alt) => fnmatch(alt, name)));

/** getopt's message in tree's own words. */
function optionError(error: string): Result {
  const missing = /requires an argument -- '(.)'/.exec(error);
  const short = /invalid option -- '(.)'/.exec(error);
  const long = /(?:unrecognized|ambiguous|doesn't allow)[^']*'([^']+)'/.exec(error);
  const text = missing
    ? `tree: Missing argument to -${missing[1]} option.\n`
    : `tree: Invalid argument ${short ? `-\`${short[1]}'` : `\`${long?.[1] ?? '?'}'`}.\n${USAGE}`;
  return { stdout: '', stderr: text, exitCode: 1 };
}

/** Applies one option; a Result ends the command (--help, a bad -L). -n -N -C: colour and character handling, nothing to do here. */
function applyOption(o: Options, k: string, v: string | undefined): Result | null {
  if (k === 'a') o.all = true;
  else if (k === 'd') o.dirsOnly = true;
  else if (k === 'f') o.fullPath = true;
  else if (k === 'i') o.noIndent = true;
  else if (k === 'F') o.classify = true;
  else if (k === 'I') o.exclude.push(v!);
  else if (k === 'P') o.only.push(v!);
  else if (k === 'noreport') o.report = false;
  else if (k === 'dirsfirst') o.dirsFirst = true;
  else if (k === 'help') return { stdout: USAGE, stderr: '', exitCode: 0 };
  else if (k === 'L') {
    const n = /^\d+$/.test(v!) ? Number(v) : NaN;
    if (!(n >= 1)) return { stdout: '', stderr: 'tree: Invalid level, must be greater than 0.\n', exitCode: 1 };
    o.level = n;
  }
  return null;
}

function parseTree(args: string[]): { o: Options; roots: string[] } | Result {
  const p = getopt('tree', args, 'adfiFL:I:P:nNC', LONGS);
  if ('error' in p) return optionError(p.error);
  const o: Options = {
    all: false,
    dirsOnly: false,
    fullPath: false,
    noIndent: false,
    classify: false,
    level: Infinity,
    exclude: [],
    only: [],
    report: true,
    dirsFirst: false,
  };
  for (const [k, v] of p.opts) {
    const done = applyOption(o, k, v);
    if (done) return done;
  }
  return { o, roots: p.operands.length ? p.operands : ['.'] };
}

/** One run's listing and its counts. */
class TreeWalk {
  out = '';
  dirs = 0;
  files = 0;
  /** The job's own filesystem (it answers isMountPoint; ctx.fs is a membrane that does not). */
  mountFs: IFileSystem | undefined;
  constructor(
    private readonly ctx: Ctx,
    private readonly o: Options,
  ) {}

  private shows(e: { name: string; isDirectory: boolean }): boolean {
    const o = this.o;
    if (!o.all && e.name.startsWith('.')) return false;
    if (o.exclude.length && matchesAny(o.exclude, e.name)) return false;
    if (o.dirsOnly && !e.isDirectory) return false;
    if (o.only.length && !e.isDirectory && !matchesAny(o.only, e.name)) return false;
    return true;
  }

  async walk(abs: string, shown: string, prefix: string, depth: number): Promise<void> {
    const o = this.o;
    let entries = (await this.ctx.fs.readdirWithFileTypes!(abs)).filter((e) => this.shows(e));
    if (o.dirsFirst) entries = [...entries.filter((e) => e.isDirectory), ...entries.filter((e) => !e.isDirectory)];
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      const last = i === entries.length - 1;
      const childAbs = abs === '/' ? `/${e.name}` : `${abs}/${e.name}`;
      const childShown = shown.endsWith('/') ? shown + e.name : `${shown}/${e.name}`;
      const label = (o.fullPath ? childShown : e.name) + (o.classify && e.isDirectory ? '/' : '');
      this.out += (o.noIndent ? '' : prefix + (last ? '`-- ' : '|-- ')) + label + '\n';
      if (e.isDirectory) {
        this.dirs++;
        if (depth < o.level && !isMountPoint(this.mountFs ?? this.ctx.fs, childAbs))
          await this.walk(childAbs, childShown, prefix + (last ? '    ' : '|   '), depth + 1);
      } else this.files++;
    }
  }

  /** A root that is not a directory is an error line; false then. */
  async root(root: string): Promise<boolean> {
    const abs = this.ctx.fs.resolvePath(this.ctx.cwd, root);
    let isDir = false;
    try {
      isDir = (await this.ctx.fs.stat(abs)).isDirectory;
    } catch {
      isDir = false;
    }
    if (!isDir) {
      this.out += `${root} [error opening dir]\n`;
      return false;
    }
    this.out += (this.o.classify && !root.endsWith('/') ? `${root}/` : root) + '\n';
    await this.walk(abs, root, '', 1);
    return true;
  }

  report(): string {
    const { dirs, files } = this;
    const d = `${dirs} ${dirs === 1 ? 'directory' : 'directories'}`;
    return this.o.dirsOnly ? `\n${d}\n` : `\n${d}, ${files} ${files === 1 ? 'file' : 'files'}\n`;
  }
}

export function treeCommand(direct?: () => IFileSystem): CustomCommand {
  return defineCommand('tree', async (args, ctx: Ctx) => {
    const parsed = parseTree(args);
    if (!('o' in parsed)) return parsed;
    const { o, roots } = parsed;
    const t = new TreeWalk(ctx, o);
    t.mountFs = direct?.();
    let errors = 0;
    for (const root of roots) if (!(await t.root(root))) errors++;
    if (o.report) t.out += t.report();
    return { stdout: t.out, stderr: '', exitCode: errors ? 2 : 0 };
  });
}

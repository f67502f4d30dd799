/**
 * `tree` (GNU/Linux tree 2.1) for the bash tool, as it prints in the C locale (ASCII lines):
 * just-bash's own rejects -I. Entries in byte order (tree's strcoll in the C locale).
 *
 * Options: -a (dotfiles), -d (directories only), -f (full path), -i (no indentation lines),
 * -F (append / to directories), -L level, -I pattern (exclude; `a|b` alternatives, repeatable),
 * -P pattern (list only matching files), --noreport, --dirsfirst; -n/-N/-C accepted (no colour).
 */
import { defineCommand, type CustomCommand, type Ctx } from '../kit/command.js';
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

export function treeCommand(): CustomCommand {
  return defineCommand('tree', async (args, ctx: Ctx) => {
    const p = getopt('tree', args, 'adfiFL:I:P:nNC', LONGS);
    if ('error' in p) {
      const missing = /requires an argument -- '(.)'/.exec(p.error);
      const short = /invalid option -- '(.)'/.exec(p.error);
      const long = /(?:unrecognized|ambiguous|doesn't allow)[^']*'([^']+)'/.exec(p.error);
      const text = missing
        ? `tree: Missing argument to -${missing[1]} option.\n`
        : `tree: Invalid argument ${short ? `-\`${short[1]}'` : `\`${long?.[1] ?? '?'}'`}.\n${USAGE}`;
      return { stdout: '', stderr: text, exitCode: 1 };
    }
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
      switch (k) {
        case 'a':
          o.all = true;
          break;
        case 'd':
          o.dirsOnly = true;
          break;
        case 'f':
          o.fullPath = true;
          break;
        case 'i':
          o.noIndent = true;
          break;
        case 'F':
          o.classify = true;
          break;
        case 'I':
          o.exclude.push(v!);
          break;
        case 'P':
          o.only.push(v!);
          break;
        case 'noreport':
          o.report = false;
          break;
        case 'dirsfirst':
          o.dirsFirst = true;
          break;
        case 'help':
          return { stdout: USAGE, stderr: '', exitCode: 0 };
        case 'L': {
          const n = /^\d+$/.test(v!) ? Number(v) : NaN;
          if (!(n >= 1)) return { stdout: '', stderr: 'tree: Invalid level, must be greater than 0.\n', exitCode: 1 };
          o.level = n;
          break;
        }
        default:
          break; // -n -N -C: colour and character handling, nothing to do here
      }
    }
    const roots = p.operands.length ? p.operands : ['.'];
    let out = '';
    let dirs = 0;
    let files = 0;
    let errors = 0;

    const walk = async (abs: string, shown: string, prefix: string, depth: number): Promise<void> => {
      let entries = await ctx.fs.readdirWithFileTypes!(abs);
      entries = entries.filter((e) => {
        if (!o.all && e.name.startsWith('.')) return false;
        if (o.exclude.length && matchesAny(o.exclude, e.name)) return false;
        if (o.dirsOnly && !e.isDirectory) return false;
        if (o.only.length && !e.isDirectory && !matchesAny(o.only, e.name)) return false;
        return true;
      });
      if (o.dirsFirst) entries = [...entries.filter((e) => e.isDirectory), ...entries.filter((e) => !e.isDirectory)];
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i]!;
        const last = i === entries.length - 1;
        const childAbs = abs === '/' ? `/${e.name}` : `${abs}/${e.name}`;
        const childShown = shown.endsWith('/') ? shown + e.name : `${shown}/${e.name}`;
        const label = (o.fullPath ? childShown : e.name) + (o.classify && e.isDirectory ? '/' : '');
        out += (o.noIndent ? '' : prefix + (last ? '`-- ' : '|-- ')) + label + '\n';
        if (e.isDirectory) {
          dirs++;
          if (depth < o.level) await walk(childAbs, childShown, prefix + (last ? '    ' : '|   '), depth + 1);
        } else files++;
      }
    };

    for (const root of roots) {
      const abs = ctx.fs.resolvePath(ctx.cwd, root);
      let isDir = false;
      try {
        isDir = (await ctx.fs.stat(abs)).isDirectory;
      } catch {
        isDir = false;
      }
      if (!isDir) {
        out += `${root} [error opening dir]\n`;
        errors++;
        continue;
      }
      out += (o.classify && !root.endsWith('/') ? `${root}/` : root) + '\n';
      await walk(abs, root, '', 1);
    }
    if (o.report) {
      const d = `${dirs} ${dirs === 1 ? 'directory' : 'directories'}`;
      out += o.dirsOnly ? `\n${d}\n` : `\n${d}, ${files} ${files === 1 ? 'file' : 'files'}\n`;
    }
    return { stdout: out, stderr: '', exitCode: errors ? 2 : 0 };
  });
}

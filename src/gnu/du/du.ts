/**
 * GNU `du` (coreutils 9.1) for the bash tool. Disk usage is counted in 1 KiB units of whole
 * 4 KiB blocks (ceil(size / 4096) * 4 per file, 4 per directory, summed: what ext4 reports for
 * these files; the store has no blocks, see kit/file-info.ts); --apparent-size / -b count bytes (a
 * directory 4096). Paths print as given (`du -a .` → `./docs/a.md`), a directory after its
 * contents (children in byte order: GNU uses the filesystem's readdir order), every operand
 * once (a directory met twice is counted once, as GNU does with more than one operand).
 *
 * Options: -a -s -c -h -k -m -b --apparent-size -B/--block-size (K, M, G, 1, KB…), -d/--max-depth,
 * -S/--separate-dirs, -0/--null, --exclude=PATTERN, -t/--threshold; -x -L -P -H -D -l are accepted
 * without effect (one filesystem, no links).
 */
import { defineCommand, type CustomCommand, type FsStat, type Ctx } from '../kit/command.js';
import { errnoMessage } from '../kit/errno.js';
import { fnmatch } from '../kit/fnmatch.js';
import { getopt, type LongOpt } from '../kit/getopt.js';
import { shellQuote } from '../kit/quote.js';
import { humanSize, kib } from '../kit/file-info.js';

const TRY = "Try 'du --help' for more information.\n";

const LONGS: LongOpt[] = [
  ['null', '0'],
  ['all', 'a'],
  ['apparent-size', 'apparent'],
  ['block-size', 'B', 'required'],
  ['bytes', 'b'],
  ['total', 'c'],
  ['dereference-args', 'D'],
  ['max-depth', 'd', 'required'],
  ['files0-from', 'files0-from', 'required'],
  ['human-readable', 'h'],
  ['inodes', 'inodes'],
  ['si', 'si'],
  ['kibibytes', 'k'],
  ['count-links', 'l'],
  ['dereference', 'L'],
  ['no-dereference', 'P'],
  ['separate-dirs', 'S'],
  ['summarize', 's'],
  ['threshold', 't', 'required'],
  ['time', 'time', 'optional'],
  ['time-style', 'time-style', 'required'],
  ['exclude-from', 'X', 'required'],
  ['exclude', 'exclude', 'required'],
  ['one-file-system', 'x'],
  ['help', 'help'],
  ['version', 'version'],
].map(([name, key, arg]) => ({ name: name!, key: key!, arg: (arg ?? 'none') as LongOpt['arg'] }));

/** Parses a --block-size / -B value: `K`, `1M`, `KB`, `1024`… into bytes (null if invalid). */
function blockSize(v: string): number | null {
  const m = /^(\d*)([KMGTPEZY]?)(iB|B)?$/i.exec(v);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  const n = m[1] === '' ? 1 : Number(m[1]);
  const pow = m[2] ? 'KMGTPEZY'.indexOf(m[2].toUpperCase()) + 1 : 0;
  const base = m[3] === 'B' ? 1000 : 1024;
  const size = n * base ** pow;
  return size > 0 ? size : null;
}

export function duCommand(): CustomCommand {
  return defineCommand('du', async (args, ctx: Ctx) => {
    const p = getopt('du', args, '0abB:cd:DhHklLmPsSt:xX:', LONGS);
    if ('error' in p) return { stdout: '', stderr: p.error + TRY, exitCode: 1 };
    let all = false;
    let summarize = false;
    let total = false;
    let human = false;
    let apparent = false;
    let unit = 1024;
    let maxDepth = Infinity;
    let separate = false;
    let eol = '\n';
    let threshold = 0;
    const exclude: string[] = [];
    for (const [k, v] of p.opts) {
      switch (k) {
        case 'a':
          all = true;
          break;
        case 's':
          summarize = true;
          break;
        case 'c':
          total = true;
          break;
        case 'h':
          human = true;
          break;
        case 'k':
          human = false;
          unit = 1024;
          break;
        case 'm':
          human = false;
          unit = 1024 * 1024;
          break;
        case 'b':
          apparent = true;
          human = false;
          unit = 1;
          break;
        case 'apparent':
          apparent = true;
          break;
        case 'B': {
          const b = blockSize(v!);
          if (b === null) return { stdout: '', stderr: `du: invalid --block-size argument '${v}'\n`, exitCode: 1 };
          human = false;
          unit = b;
          break;
        }
        case 'd': {
          if (!/^\d+$/.test(v!)) return { stdout: '', stderr: `du: invalid maximum depth '${v}'\n`, exitCode: 1 };
          maxDepth = Number(v);
          break;
        }
        case 'S':
          separate = true;
          break;
        case '0':
          eol = '\0';
          break;
        case 't': {
          const m = /^(-?\d+)([KMGTPEZY]?)$/i.exec(v!);
          if (!m) return { stdout: '', stderr: `du: invalid --threshold argument '${v}'\n`, exitCode: 1 };
          threshold = Number(m[1]) * 1024 ** (m[2] ? 'KMGTPEZY'.indexOf(m[2].toUpperCase()) + 1 : 0);
          break;
        }
        case 'exclude':
          exclude.push(v!);
          break;
        case 'help':
          return {
            stdout: 'Usage: du [OPTION]... [FILE]...\nSummarize device usage of the set of FILEs, recursively for directories.\n',
            stderr: '',
            exitCode: 0,
          };
        case 'version':
          return { stdout: 'du (GNU coreutils) 9.1\n', stderr: '', exitCode: 0 };
        default:
          break;
      }
    }
    if (summarize && all) return { stdout: '', stderr: `du: cannot both summarize and show all entries\n${TRY}`, exitCode: 1 };
    if (summarize && maxDepth !== Infinity && maxDepth !== 0) {
      return { stdout: '', stderr: `du: warning: summarizing conflicts with --max-depth=${maxDepth}\n${TRY}`, exitCode: 1 };
    }
    if (summarize) maxDepth = 0;

    const fs = ctx.fs;
    const size = (st: FsStat) => (apparent ? (st.isDirectory || st.isFile ? st.size : 0) : kib(st) * 1024);
    const show = (bytes: number) => (human ? humanSize(bytes) : String(Math.ceil(bytes / unit)));
    const passes = (bytes: number) => (threshold >= 0 ? bytes >= threshold : bytes <= -threshold);
    const out: string[] = [];
    let stderr = '';
    let exitCode = 0;
    let grand = 0;
    const operands = p.operands.length ? p.operands : ['.'];
    // Like GNU's hash_all: with several operands every entry is counted once; with one, only
    // directories need it (there are no hard links).
    const hashAll = operands.length > 1;
    const seen = new Set<string>();

    const join = (dir: string, name: string) => (dir.endsWith('/') ? dir + name : dir + '/' + name);

    /** Returns the bytes below (and including) the entry; prints what the options ask for. */
    const walk = async (shown: string, path: string, st: FsStat, depth: number): Promise<number> => {
      const own = size(st);
      if (!st.isDirectory) {
        if ((depth === 0 || (all && depth <= maxDepth)) && passes(own)) out.push(`${show(own)}\t${shown}${eol}`);
        return own;
      }
      let sub = 0;
      let kids: Array<{ name: string }> = [];
      try {
        kids = await fs.readdirWithFileTypes!(path);
      } catch {
        stderr += `du: cannot read directory ${shellQuote(shown)}: Permission denied\n`;
        exitCode = 1;
      }
      for (const k of kids) {
        if (exclude.some((g) => fnmatch(g, k.name))) continue;
        const kp = join(path, k.name);
        let kst: FsStat;
        try {
          kst = await fs.stat(kp);
        } catch {
          continue;
        }
        if (kst.isDirectory || hashAll) {
          if (seen.has(kp)) continue;
          seen.add(kp);
        }
        const n = await walk(join(shown, k.name), kp, kst, depth + 1);
        if (!(kst.isDirectory && separate)) sub += n;
      }
      // -S: a directory's own figure excludes its subdirectories (their files still count).
      const mine = own + sub;
      if (depth <= maxDepth && passes(mine)) out.push(`${show(mine)}\t${shown}${eol}`);
      return mine;
    };

    for (const op of operands) {
      const path = fs.resolvePath(ctx.cwd, op);
      let st: FsStat;
      try {
        st = await fs.stat(path);
        if (op.endsWith('/') && !st.isDirectory) throw Object.assign(new Error('ENOTDIR'), { code: 'ENOTDIR' });
      } catch (err) {
        const why = errnoMessage(err);
        stderr += `du: cannot access ${shellQuote(op)}: ${why}\n`;
        exitCode = 1;
        continue;
      }
      if (st.isDirectory || hashAll) {
        if (seen.has(path)) continue;
        seen.add(path);
      }
      grand += await walk(op, path, st, 0);
    }
    if (total) out.push(`${show(grand)}\ttotal${eol}`);
    return { stdout: out.join(''), stderr, exitCode };
  });
}

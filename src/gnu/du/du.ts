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
import { defineCommand, type CustomCommand, type FsStat, type Ctx, type IFileSystem, type Result } from '../kit/command.js';
import { errnoMessage } from '../kit/errno.js';
import { fnmatch } from '../kit/fnmatch.js';
import { getopt, type LongOpt } from '../kit/getopt.js';
import { shellQuote } from '../kit/quote.js';
import { humanSize, isMountPoint, kib } from '../kit/file-info.js';

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

interface DuOptions {
  all: boolean;
  summarize: boolean;
  total: boolean;
  human: boolean;
  apparent: boolean;
  unit: number;
  maxDepth: number;
  separate: boolean;
  eol: string;
  threshold: number;
  exclude: string[];
}

const fail = (stderr: string): Result => ({ stdout: '', stderr, exitCode: 1 });

/** -k, -m, -b and -B: a unit of their own, and no -h. */
function setUnit(o: DuOptions, unit: number): undefined {
  o.human = false;
  o.unit = unit;
  return undefined;
}

function thresholdArg(o: DuOptions, v: string): Result | undefined {
  const m = /^(-?\d+)([KMGTPEZY]?)$/i.exec(v);
  if (!m) return fail(`du: invalid --threshold argument '${v}'\n`);
  o.threshold = Number(m[1]) * 1024 ** (m[2] ? 'KMGTPEZY'.indexOf(m[2].toUpperCase()) + 1 : 0);
}

/** What each option does, by getopt key; a Result ends the command. Keys missing here are accepted without effect. */
const HANDLERS: Readonly<Record<string, (o: DuOptions, v: string) => Result | undefined>> = {
  a: (o) => void (o.all = true),
  s: (o) => void (o.summarize = true),
  c: (o) => void (o.total = true),
  h: (o) => void (o.human = true),
  k: (o) => setUnit(o, 1024),
  m: (o) => setUnit(o, 1024 * 1024),
  b: (o) => {
    o.apparent = true;
    return setUnit(o, 1);
  },
  apparent: (o) => void (o.apparent = true),
  B: (o, v) => {
    const b = blockSize(v);
    if (b === null) return fail(`du: invalid --block-size argument '${v}'\n`);
    return setUnit(o, b);
  },
  d: (o, v) => {
    if (!/^\d+$/.test(v)) return fail(`du: invalid maximum depth '${v}'\n`);
    o.maxDepth = Number(v);
  },
  S: (o) => void (o.separate = true),
  '0': (o) => void (o.eol = '\0'),
  t: thresholdArg,
  exclude: (o, v) => void o.exclude.push(v),
  help: () => ({
    stdout: 'Usage: du [OPTION]... [FILE]...\nSummarize device usage of the set of FILEs, recursively for directories.\n',
    stderr: '',
    exitCode: 0,
  }),
  version: () => ({ stdout: 'du (GNU coreutils) 9.1\n', stderr: '', exitCode: 0 }),
};

function parseDu(args: string[]): { o: DuOptions; operands: string[] } | Result {
  const p = getopt('du', args, '0abB:cd:DhHklLmPsSt:xX:', LONGS);
  if ('error' in p) return fail(p.error + TRY);
  const o: DuOptions = {
    all: false,
    summarize: false,
    total: false,
    human: false,
    apparent: false,
    unit: 1024,
    maxDepth: Infinity,
    separate: false,
    eol: '\n',
    threshold: 0,
    exclude: [],
  };
  for (const [k, v] of p.opts) {
    const done = Object.hasOwn(HANDLERS, k) ? HANDLERS[k]!(o, v!) : undefined;
    if (done) return done;
  }
  if (o.summarize && o.all) return fail(`du: cannot both summarize and show all entries\n${TRY}`);
  if (o.summarize && o.maxDepth !== Infinity && o.maxDepth !== 0) {
    return fail(`du: warning: summarizing conflicts with --max-depth=${o.maxDepth}\n${TRY}`);
  }
  if (o.summarize) o.maxDepth = 0;
  return { o, operands: p.operands.length ? p.operands : ['.'] };
}

const join = (dir: string, name: string) => (dir.endsWith('/') ? dir + name : dir + '/' + name);

/** One run: the lines printed, errors, and the entries already counted. */
class DuWalk {
  readonly out: string[] = [];
  stderr = '';
  exitCode = 0;
  private readonly seen = new Set<string>();
  /** The job's own filesystem (it answers isMountPoint; ctx.fs is a membrane that does not). */
  mountFs: IFileSystem | undefined;

  /**
   * Like GNU's hash_all: with several operands every entry is counted once; with one, only
   * directories need it (there are no hard links).
   */
  constructor(
    private readonly fs: IFileSystem,
    private readonly o: DuOptions,
    private readonly hashAll: boolean,
  ) {}

  private size(st: FsStat): number {
    return this.o.apparent ? (st.isDirectory || st.isFile ? st.size : 0) : kib(st) * 1024;
  }

  show(bytes: number): string {
    return this.o.human ? humanSize(bytes) : String(Math.ceil(bytes / this.o.unit));
  }

  private print(bytes: number, shown: string): void {
    const t = this.o.threshold;
    if (t >= 0 ? bytes >= t : bytes <= -t) this.out.push(`${this.show(bytes)}\t${shown}${this.o.eol}`);
  }

  /** False if the entry was counted already. */
  firstVisit(path: string, st: FsStat): boolean {
    if (!st.isDirectory && !this.hashAll) return true;
    if (this.seen.has(path)) return false;
    this.seen.add(path);
    return true;
  }

  /** Returns the bytes below (and including) the entry; prints what the options ask for. */
  async walk(shown: string, path: string, st: FsStat, depth: number): Promise<number> {
    const own = this.size(st);
    if (!st.isDirectory) {
      if (depth === 0 || (this.o.all && depth <= this.o.maxDepth)) this.print(own, shown);
      return own;
    }
    // -S: a directory's own figure excludes its subdirectories (their files still count). A mount
    // point below the start counts as an empty directory.
    const mine = own + (depth > 0 && isMountPoint(this.mountFs ?? this.fs, path) ? 0 : await this.children(shown, path, depth));
    if (depth <= this.o.maxDepth) this.print(mine, shown);
    return mine;
  }

  private async children(shown: string, path: string, depth: number): Promise<number> {
    let sub = 0;
    let kids: Array<{ name: string }> = [];
    try {
      kids = await this.fs.readdirWithFileTypes!(path);
    } catch {
      this.stderr += `du: cannot read directory ${shellQuote(shown)}: Permission denied\n`;
      this.exitCode = 1;
    }
    for (const k of kids) {
      if (this.o.exclude.some((g) => fnmatch(g, k.name))) continue;
      const kp = join(path, k.name);
      let kst: FsStat;
      try {
        kst = await this.fs.stat(kp);
      } catch {
        continue;
      }
      if (!this.firstVisit(kp, kst)) continue;
      const n = await this.walk(join(shown, k.name), kp, kst, depth + 1);
      if (!(kst.isDirectory && this.o.separate)) sub += n;
    }
    return sub;
  }

  /** The operand's total; 0 if it cannot be accessed or was counted already. */
  async operand(cwd: string, op: string): Promise<number> {
    const path = this.fs.resolvePath(cwd, op);
    let st: FsStat;
    try {
      st = await this.fs.stat(path);
      if (op.endsWith('/') && !st.isDirectory) throw Object.assign(new Error('ENOTDIR'), { code: 'ENOTDIR' });
    } catch (err) {
      this.stderr += `du: cannot access ${shellQuote(op)}: ${errnoMessage(err)}\n`;
      this.exitCode = 1;
      return 0;
    }
    if (!this.firstVisit(path, st)) return 0;
    return this.walk(op, path, st, 0);
  }
}

export function duCommand(direct?: () => IFileSystem): CustomCommand {
  return defineCommand('du', async (args, ctx: Ctx) => {
    const parsed = parseDu(args);
    if (!('o' in parsed)) return parsed;
    const { o, operands } = parsed;
    const w = new DuWalk(ctx.fs, o, operands.length > 1);
    w.mountFs = direct?.();
    let grand = 0;
    for (const op of operands) grand += await w.operand(ctx.cwd, op);
    if (o.total) w.out.push(`${w.show(grand)}\ttotal${o.eol}`);
    return { stdout: w.out.join(''), stderr: w.stderr, exitCode: w.exitCode };
  });
}

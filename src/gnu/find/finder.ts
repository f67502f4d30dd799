/** find's running state (the walk's options, output, exit status) and the evaluation of a parsed expression on one entry. */
import type { Ctx, FsStat, IFileSystem, Result } from '../kit/command.js';
import { bytesOf } from '../kit/fnmatch.js';
import { shellWord } from '../kit/quote.js';

export class FindError extends Error {}

/** findutils' quoting in the C locale: 'name', with C escapes for quotes, controls and non-ASCII. */
export function fq(name: string): string {
  const b = bytesOf(name);
  const esc: Record<number, string> = { 7: 'a', 8: 'b', 12: 'f', 10: 'n', 13: 'r', 9: 't', 11: 'v' };
  let out = "'";
  for (let i = 0; i < b.length; i++) {
    const c = b.charCodeAt(i);
    if (c === 0x27) out += "\\'";
    else if (c === 0x5c) out += '\\\\';
    else if (c < 0x20 || c >= 0x7f) out += esc[c] ? '\\' + esc[c] : '\\' + c.toString(8).padStart(3, '0');
    else out += b[i];
  }
  return out + "'";
}

// ---- the expression -----------------------------------------------------------------------

export interface Entry {
  /** The path as printed. */
  path: string;
  /** Absolute path in the filesystem. */
  abs: string;
  name: string;
  depth: number;
  isDir: boolean;
  st?: FsStat;
  children?: Array<{ name: string; isDirectory: boolean }>;
  start: string;
}

export type Node =
  | { k: 'and' | 'or' | 'comma'; a: Node; b: Node }
  | { k: 'not'; a: Node }
  | { k: 'test'; fn: (e: Entry, f: Finder) => boolean | Promise<boolean>; stat?: boolean; action?: boolean; name: string };

export const DAY = 86400;

export class Finder {
  out: string[] = [];
  bytes = false;
  err = '';
  code = 0;
  quit = false;
  maxdepth = Infinity;
  mindepth = 0;
  depthFirst = false;
  needStat = false;
  pendingBatches: Array<{ cmd: string[]; paths: string[]; cwd: string }> = [];
  readonly now = Date.now();

  constructor(
    readonly ctx: Ctx,
    readonly fs: IFileSystem,
  ) {}

  print(s: string): void {
    this.out.push(this.bytes ? bytesOf(s) : s);
  }

  fail(msg: string): void {
    this.err += `find: ${msg}\n`;
    this.code = 1;
  }

  async stat(e: Entry): Promise<FsStat> {
    if (!e.st) e.st = await this.fs.stat(e.abs);
    return e.st;
  }

  async children(e: Entry): Promise<Array<{ name: string; isDirectory: boolean }>> {
    if (!e.children) {
      if (this.fs.readdirWithFileTypes) e.children = await this.fs.readdirWithFileTypes(e.abs);
      else {
        const names = await this.fs.readdir(e.abs);
        const base = e.abs === '/' ? '/' : e.abs + '/';
        e.children = await Promise.all(names.map(async (name) => ({ name, isDirectory: (await this.fs.stat(base + name)).isDirectory })));
      }
    }
    return e.children;
  }

  async run(argv: string[], cwd: string): Promise<Result> {
    const exec = this.ctx.exec;
    if (!exec) throw new Error('find: -exec is not available');
    const r = await exec(shellWord(argv[0]!), { cwd, args: argv.slice(1), signal: this.ctx.signal });
    const isBytes = r.stdoutKind === 'bytes' || (r.stdoutKind === undefined && r.stdoutEncoding === 'binary');
    this.out.push(isBytes ? r.stdout : bytesOf(r.stdout));
    if (r.stderr) this.err += r.stderr;
    return r;
  }
}

export function evalNode(n: Node, e: Entry, f: Finder): boolean | Promise<boolean> {
  switch (n.k) {
    case 'test':
      return n.fn(e, f);
    case 'not': {
      const r = evalNode(n.a, e, f);
      return typeof r === 'boolean' ? !r : r.then((x) => !x);
    }
    case 'and': {
      const r = evalNode(n.a, e, f);
      if (typeof r === 'boolean') return r && !f.quit ? evalNode(n.b, e, f) : r;
      return r.then((x) => (x && !f.quit ? evalNode(n.b, e, f) : x));
    }
    case 'or': {
      const r = evalNode(n.a, e, f);
      if (typeof r === 'boolean') return r || f.quit ? r : evalNode(n.b, e, f);
      return r.then((x) => (x || f.quit ? x : evalNode(n.b, e, f)));
    }
    case 'comma': {
      const r = evalNode(n.a, e, f);
      if (typeof r === 'boolean') return f.quit ? r : evalNode(n.b, e, f);
      return r.then(() => (f.quit ? false : evalNode(n.b, e, f)));
    }
  }
}

export function hasAction(n: Node): boolean {
  if (n.k === 'test') return !!n.action;
  if (n.k === 'not') return hasAction(n.a);
  return hasAction(n.a) || hasAction(n.b);
}

export function needsStat(n: Node): boolean {
  if (n.k === 'test') return !!n.stat;
  if (n.k === 'not') return needsStat(n.a);
  return needsStat(n.a) || needsStat(n.b);
}

export const pruned = new WeakSet<Entry>();

const refTimes = new WeakMap<Finder, Map<string, number>>();
export async function refTime(f: Finder, p: string): Promise<number> {
  let m = refTimes.get(f);
  if (!m) refTimes.set(f, (m = new Map()));
  let t = m.get(p);
  if (t === undefined) {
    t = (await f.fs.stat(f.fs.resolvePath(f.ctx.cwd, p))).mtime.getTime();
    m.set(p, t);
  }
  return t;
}

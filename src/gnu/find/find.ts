/**
 * `find` for the bash tool, faithful to GNU findutils 4.9 under LC_ALL=C: the same expression
 * grammar (`!`/-not, -a/-and and juxtaposition, -o/-or, `,`, parentheses), global options,
 * tests, actions, diagnostics (findutils' `'name'` quoting and backquoted predicate names) and
 * exit codes. Paths are printed as GNU builds them (`./a` below `.`, no doubled slash after a
 * start point ending in `/`), each directory before its contents (after them with -depth or
 * -delete), entries in the filesystem's readdir order (byte order here).
 *
 * Names and patterns are compared as bytes (`?` matches one byte, -iname folds ASCII only),
 * like fnmatch in the C locale. Time tests use GNU's arithmetic (-mtime counts whole days back
 * from the start time, `-N` ends one second short). The store keeps one time per entry: a-, c-
 * and m-times are all the modification time.
 *
 * Known differences from GNU: -ok/-okdir, -ls/-fls, -fprint*, -user/-group/-uid/-gid/-nouser,
 * -links, -inum, -samefile and the -newerXY family are not supported (reported as unknown);
 * -regex uses JavaScript regular expressions after translating emacs/posix-basic group syntax;
 * `-exec … {} +` runs one command for all files (GNU splits at the argument-size limit).
 */
import { posix } from 'node:path';
import type { Command, Ctx, FsStat, IFileSystem, Result } from '../kit/command.js';
import { errnoMessage } from '../kit/errno.js';
import { bytesOf, fnmatchRegExp } from '../kit/fnmatch.js';
import { SEARCH, watched } from '../kit/search-watch.js';

class FindError extends Error {}

/** findutils' quoting in the C locale: 'name', with C escapes for quotes, controls and non-ASCII. */
function fq(name: string): string {
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

const lowerAscii = (s: string) => s.replace(/[A-Z]+/g, (x) => x.toLowerCase());

function globMatcher(pattern: string, fold: boolean): (s: string) => boolean {
  const p = bytesOf(pattern);
  const re = fnmatchRegExp(fold ? lowerAscii(p) : p);
  // A literal pattern (the common `-name file.txt`) needs no regex.
  if (!/[*?[\\]/.test(p)) {
    const lit = fold ? lowerAscii(p) : p;
    return fold ? (s) => lowerAscii(bytesOf(s)) === lit : (s) => bytesOf(s) === lit;
  }
  // `*.ext`: a suffix test.
  const suffix = /^\*([^*?[\\]*)$/.exec(p);
  if (suffix && !fold) {
    const suf = suffix[1]!;
    return (s) => bytesOf(s).endsWith(suf);
  }
  return fold ? (s) => re.test(lowerAscii(bytesOf(s))) : (s) => re.test(bytesOf(s));
}

// ---- the expression -----------------------------------------------------------------------

interface Entry {
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

type Node =
  | { k: 'and' | 'or' | 'comma'; a: Node; b: Node }
  | { k: 'not'; a: Node }
  | { k: 'test'; fn: (e: Entry, f: Finder) => boolean | Promise<boolean>; stat?: boolean; action?: boolean; name: string };

const DAY = 86400;

class Finder {
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
    const r = await exec(shq(argv[0]!), { cwd, args: argv.slice(1), signal: this.ctx.signal });
    const isBytes = r.stdoutKind === 'bytes' || (r.stdoutKind === undefined && r.stdoutEncoding === 'binary');
    this.out.push(isBytes ? r.stdout : bytesOf(r.stdout));
    if (r.stderr) this.err += r.stderr;
    return r;
  }
}

const shq = (s: string) => (/^[A-Za-z0-9_./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function evalNode(n: Node, e: Entry, f: Finder): boolean | Promise<boolean> {
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

function hasAction(n: Node): boolean {
  if (n.k === 'test') return !!n.action;
  if (n.k === 'not') return hasAction(n.a);
  return hasAction(n.a) || hasAction(n.b);
}

function needsStat(n: Node): boolean {
  if (n.k === 'test') return !!n.stat;
  if (n.k === 'not') return needsStat(n.a);
  return needsStat(n.a) || needsStat(n.b);
}

class Parser {
  i = 0;
  regextype = 'emacs';
  constructor(
    readonly toks: string[],
    readonly f: Finder,
    readonly ctx: Ctx,
  ) {}

  peek(): string | undefined {
    return this.toks[this.i];
  }

  parseExpr(): Node | null {
    let left = this.parseOr();
    while (this.peek() === ',') {
      this.i++;
      const right = this.parseOr();
      if (!right) throw new FindError("expected an expression after ','");
      if (!left) throw new FindError("invalid expression; you have used a binary operator ',' with nothing before it.");
      left = { k: 'comma', a: left, b: right };
    }
    return left;
  }

  parseOr(): Node | null {
    let left = this.parseAnd();
    while (this.peek() === '-o' || this.peek() === '-or') {
      const op = this.toks[this.i++]!;
      if (!left) throw new FindError(`invalid expression; you have used a binary operator '${op}' with nothing before it.`);
      const right = this.parseAnd();
      if (!right) throw new FindError(`expected an expression after '${op}'`);
      left = { k: 'or', a: left, b: right };
    }
    return left;
  }

  parseAnd(): Node | null {
    let left = this.parseUnary();
    for (;;) {
      const t = this.peek();
      if (t === undefined || t === ')' || t === ',' || t === '-o' || t === '-or') return left;
      if (t === '-a' || t === '-and') {
        this.i++;
        if (!left) throw new FindError(`invalid expression; you have used a binary operator '${t}' with nothing before it.`);
        const right = this.parseUnary();
        if (!right) throw new FindError(`expected an expression after '${t}'`);
        left = { k: 'and', a: left, b: right };
        continue;
      }
      const right = this.parseUnary();
      if (!right) return left;
      left = left ? { k: 'and', a: left, b: right } : right;
    }
  }

  parseUnary(): Node | null {
    const t = this.peek();
    if (t === undefined) return null;
    if (t === '!' || t === '-not') {
      this.i++;
      const a = this.parseUnary();
      if (!a) throw new FindError(`expected an expression after '${t}'`);
      return { k: 'not', a };
    }
    if (t === '(') {
      this.i++;
      const inner = this.parseExpr();
      if (this.peek() !== ')') throw new FindError("invalid expression; I was expecting to find a ')' somewhere but did not see one.");
      this.i++;
      if (!inner) throw new FindError('invalid expression; empty parentheses are not allowed.');
      return inner;
    }
    if (t === ')') throw new FindError("invalid expression; you have too many ')'");
    if (t === '-a' || t === '-and' || t === '-o' || t === '-or' || t === ',') {
      throw new FindError(`invalid expression; you have used a binary operator '${t}' with nothing before it.`);
    }
    this.i++;
    return this.primary(t);
  }

  arg(name: string): string {
    const v = this.toks[this.i];
    if (v === undefined) throw new FindError(`missing argument to \`${name}'`);
    this.i++;
    return v;
  }

  primary(t: string): Node | null {
    const f = this.f;
    const T = (fn: (e: Entry, f: Finder) => boolean | Promise<boolean>, o: { stat?: boolean; action?: boolean } = {}): Node => ({
      k: 'test',
      fn,
      name: t,
      ...o,
    });
    switch (t) {
      // ---- global options (true, like GNU) ----
      case '-maxdepth':
      case '-mindepth': {
        const v = this.arg(t);
        if (!/^\d+$/.test(v)) throw new FindError(`Expected a positive decimal integer argument to ${t}, but got ${fq(v)}`);
        if (t === '-maxdepth') f.maxdepth = Number(v);
        else f.mindepth = Number(v);
        return T(() => true);
      }
      case '-depth':
      case '-d':
        f.depthFirst = true;
        return T(() => true);
      case '-regextype':
        this.regextype = this.arg(t);
        return T(() => true);
      case '-xdev':
      case '-mount':
      case '-noleaf':
      case '-ignore_readdir_race':
      case '-noignore_readdir_race':
      case '-follow':
      case '-warn':
      case '-nowarn':
        return T(() => true);
      case '-daystart':
        return T(() => true);
      // ---- tests ----
      case '-true':
        return T(() => true);
      case '-false':
        return T(() => false);
      case '-name':
      case '-iname': {
        const m = globMatcher(this.arg(t), t === '-iname');
        return T((e) => m(e.name));
      }
      case '-path':
      case '-wholename':
      case '-ipath':
      case '-iwholename': {
        const m = globMatcher(this.arg(t), t === '-ipath' || t === '-iwholename');
        return T((e) => m(e.path));
      }
      case '-lname':
      case '-ilname':
        this.arg(t);
        return T(() => false);
      case '-regex':
      case '-iregex': {
        const src = this.arg(t);
        let js = src;
        if (this.regextype === 'emacs' || this.regextype === 'posix-basic' || this.regextype === 'grep' || this.regextype === 'sed') {
          // GNU (checked against findutils 4.9): emacs has \( \) \| and plain + ? as operators,
          // braces are literal; the basic syntaxes \( \) \| \{ \} \+ \?. Everything else of
          // (){}|+? is literal; other escapes (\\, \.) stay as they are.
          const emacs = this.regextype === 'emacs';
          const escapedOps = emacs ? '()|' : '(){}|+?';
          js = src.replace(/\\([^])|([(){}|+?])/g, (_m, esc: string | undefined, plain: string | undefined) => {
            if (esc !== undefined) return escapedOps.includes(esc) ? esc : '\\' + esc;
            return emacs && (plain === '+' || plain === '?') ? plain : '\\' + plain;
          });
        }
        let re: RegExp;
        try {
          re = new RegExp(`^(?:${js})$`, t === '-iregex' ? 'is' : 's');
        } catch {
          throw new FindError(`Invalid regular expression ${fq(src)}`);
        }
        // A pattern may backtrack for long: the pool watches each match (search-watch.ts).
        return T((e) => watched(SEARCH.findRegex, () => re.test(e.path)));
      }
      case '-type':
      case '-xtype': {
        const v = this.arg(t);
        const types = v.split(',');
        for (const x of types) {
          if (x.length !== 1 || !'bcdpflsD'.includes(x)) {
            if (x === '') throw new FindError(`Last file type in list argument to ${t} is missing, i.e., list is ending on: ','`);
            throw new FindError(`Unknown argument to ${t}: ${x}`);
          }
        }
        const wantF = types.includes('f');
        const wantD = types.includes('d');
        return T((e) => (e.isDir ? wantD : wantF));
      }
      case '-size': {
        const v = this.arg(t);
        const m = /^([+-]?)(\d+)([bcwkMG]?)$/.exec(v);
        if (!m) {
          const bad = /^[+-]?\d+(.)/.exec(v);
          if (bad) throw new FindError(`invalid -size type \`${bad[1]}'`);
          throw new FindError(`invalid argument \`${v}' to \`-size'`);
        }
        const unit = { b: 512, c: 1, w: 2, k: 1024, M: 1048576, G: 1073741824, '': 512 }[m[3] as 'b']!;
        const n = Number(m[2]);
        const cmp = m[1];
        return T(
          async (e, fi) => {
            const size = (await fi.stat(e)).size;
            const units = Math.ceil(size / unit);
            return cmp === '+' ? units > n : cmp === '-' ? units < n : units === n;
          },
          { stat: true },
        );
      }
      case '-empty':
        return T(
          async (e, fi) => {
            if (e.isDir) return (await fi.children(e)).length === 0;
            return (await fi.stat(e)).size === 0;
          },
          { stat: true },
        );
      case '-mtime':
      case '-atime':
      case '-ctime':
      case '-mmin':
      case '-amin':
      case '-cmin': {
        const v = this.arg(t);
        const m = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)$/.exec(v);
        if (!m) throw new FindError(`invalid argument \`${v}' to \`${t}'`);
        const days = t.endsWith('time');
        const unit = days ? DAY : 60;
        // GNU: origin is the start time less a day for -Xtime (plus a day less a second for -N).
        let origin = f.now / 1000 - (days ? DAY : 0);
        if (days && m[1] === '-') origin += DAY - 1;
        const ref = origin - Number(m[2]) * unit;
        const cmp = m[1];
        return T(
          async (e, fi) => {
            const mt = (await fi.stat(e)).mtime.getTime() / 1000;
            return cmp === '+' ? mt < ref : cmp === '-' ? mt > ref : mt >= ref && mt < ref + unit;
          },
          { stat: true },
        );
      }
      case '-newer':
      case '-anewer':
      case '-cnewer': {
        const v = this.arg(t);
        const refNode: Node = T(
          async (e, fi) => {
            const ref = await refTime(fi, v);
            return (await fi.stat(e)).mtime.getTime() > ref;
          },
          { stat: true },
        );
        this.pendingRefs.push(v);
        return refNode;
      }
      case '-used':
        this.arg(t);
        return T(() => false);
      case '-readable':
        return T(() => true);
      case '-writable':
        return T(() => true);
      case '-executable':
        return T((e) => e.isDir);
      case '-perm': {
        const v = this.arg(t);
        const m = /^([-/]?)([0-7]{1,4})$/.exec(v);
        if (!m) throw new FindError(`invalid mode ${fq(v)}`);
        const want = parseInt(m[2]!, 8);
        return T(
          async (e, fi) => {
            const mode = (await fi.stat(e)).mode & 0o7777;
            if (m[1] === '-') return (mode & want) === want;
            if (m[1] === '/') return want === 0 || (mode & want) !== 0;
            return mode === want;
          },
          { stat: true },
        );
      }
      // ---- actions ----
      case '-print':
        return T((e, fi) => (fi.print(e.path + '\n'), true), { action: true });
      case '-print0':
        return T((e, fi) => (fi.print(e.path + '\0'), true), { action: true });
      case '-printf': {
        const fmt = this.arg(t);
        return T(
          async (e, fi) => {
            fi.print(await printf(fmt, e, fi));
            return true;
          },
          { action: true, stat: /%[-+ #0-9.]*[skmMtTaAcC]/.test(fmt) },
        );
      }
      case '-prune':
        return T((e) => {
          if (e.isDir && !f.depthFirst) pruned.add(e);
          return true;
        });
      case '-quit':
        return T((_e, fi) => {
          fi.quit = true;
          return true;
        });
      case '-delete':
        f.depthFirst = true;
        return T(
          async (e, fi) => {
            if (e.path === '.' || e.path === './') return true;
            try {
              await fi.fs.rm(e.abs, { recursive: false, force: false });
              return true;
            } catch (err) {
              fi.fail(`cannot delete ${fq(e.path)}: ${errnoMessage(err)}`);
              return false;
            }
          },
          { action: true },
        );
      case '-exec':
      case '-execdir': {
        if (!this.ctx.exec) throw new FindError(`${t} is not available here`);
        const cmd: string[] = [];
        let plus = false;
        for (;;) {
          const a = this.toks[this.i];
          if (a === undefined) throw new FindError(`missing argument to \`${t}'`);
          this.i++;
          if (a === ';') break;
          if (a === '+' && cmd.length && cmd[cmd.length - 1] === '{}') {
            plus = true;
            cmd.pop();
            break;
          }
          cmd.push(a);
        }
        if (!cmd.length) throw new FindError(`missing argument to \`${t}'`);
        f.bytes = true;
        const dir = t === '-execdir';
        if (plus) {
          const batches = new Map<string, { cmd: string[]; paths: string[]; cwd: string }>();
          return T(
            (e, fi) => {
              const cwd = dir ? posix.dirname(e.abs) : fi.ctx.cwd;
              let b = batches.get(cwd);
              if (!b) {
                b = { cmd, paths: [], cwd };
                batches.set(cwd, b);
                fi.pendingBatches.push(b);
              }
              b.paths.push(dir ? './' + e.name : e.path);
              return true;
            },
            { action: true },
          );
        }
        return T(
          async (e, fi) => {
            const p = dir ? './' + (e.depth === 0 ? posix.basename(e.abs) || '/' : e.name) : e.path;
            const argv = cmd.map((a) => a.split('{}').join(p));
            const r = await fi.run(argv, dir ? posix.dirname(e.abs) : fi.ctx.cwd);
            return r.exitCode === 0;
          },
          { action: true },
        );
      }
      default:
        if (t.startsWith('-') && t.length > 1) throw new FindError(`unknown predicate \`${t}'`);
        throw new FindError(`paths must precede expression: \`${t}'`);
    }
  }

  pendingRefs: string[] = [];
}

const pruned = new WeakSet<Entry>();

const refTimes = new WeakMap<Finder, Map<string, number>>();
async function refTime(f: Finder, p: string): Promise<number> {
  let m = refTimes.get(f);
  if (!m) refTimes.set(f, (m = new Map()));
  let t = m.get(p);
  if (t === undefined) {
    t = (await f.fs.stat(f.fs.resolvePath(f.ctx.cwd, p))).mtime.getTime();
    m.set(p, t);
  }
  return t;
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

async function printf(fmt: string, e: Entry, f: Finder): Promise<string> {
  let out = '';
  for (let i = 0; i < fmt.length; i++) {
    const c = fmt[i]!;
    if (c === '\\') {
      const d = fmt[++i];
      const map: Record<string, string> = { n: '\n', t: '\t', '0': '\0', '\\': '\\', a: '\x07', b: '\b', f: '\f', r: '\r', v: '\v' };
      if (d !== undefined && /[0-7]/.test(d) && d !== '0') {
        const m = /^[0-7]{1,3}/.exec(fmt.slice(i))![0];
        out += String.fromCharCode(parseInt(m, 8));
        i += m.length - 1;
      } else if (d !== undefined && d in map) out += map[d];
      else if (d === 'c') break;
      else out += '\\' + (d ?? '');
      continue;
    }
    if (c !== '%') {
      out += c;
      continue;
    }
    const m = /^([-+ #0]*)(\d*)(?:\.(\d+))?/.exec(fmt.slice(i + 1))!;
    i += m[0].length;
    const d = fmt[++i];
    const width = m[2] ? Number(m[2]) : 0;
    const left = m[1]!.includes('-');
    const fit = (s: string) => (s.length >= width ? s : left ? s.padEnd(width) : s.padStart(width));
    let v: string;
    const slash = e.path.lastIndexOf('/');
    switch (d) {
      case '%':
        v = '%';
        break;
      case 'p':
        v = e.path;
        break;
      case 'f':
        v = e.depth === 0 ? e.path.replace(/\/+$/, '').split('/').pop() || '/' : e.name;
        break;
      case 'h':
        v = slash === -1 ? '.' : slash === 0 ? '/' : e.path.slice(0, slash);
        if (e.depth === 0 && slash === -1) v = '.';
        break;
      case 'P':
        v = e.depth === 0 ? '' : e.path.slice(e.start.length + (e.start.endsWith('/') ? 0 : 1));
        break;
      case 'H':
        v = e.start;
        break;
      case 'd':
        v = String(e.depth);
        break;
      case 'y':
      case 'Y':
        v = e.isDir ? 'd' : 'f';
        break;
      case 's':
        v = String((await f.stat(e)).size);
        break;
      case 'k':
        v = String(Math.ceil((await f.stat(e)).size / 4096) * 4);
        break;
      case 'm':
        v = ((await f.stat(e)).mode & 0o7777).toString(8);
        break;
      case 'M': {
        const mode = (await f.stat(e)).mode;
        const bits = 'rwxrwxrwx';
        v = (e.isDir ? 'd' : '-') + [...bits].map((b, k) => (mode & (1 << (8 - k)) ? b : '-')).join('');
        break;
      }
      case 'n':
        v = '1';
        break;
      case 'u':
      case 'g':
        v = 'agent';
        break;
      case 'U':
      case 'G':
        v = '1000';
        break;
      case 'T':
      case 'A':
      case 'C': {
        const k = fmt[++i];
        const ms = (await f.stat(e)).mtime.getTime();
        const dt = new Date(ms);
        const frac = String(ms % 1000).padStart(3, '0') + '0000000';
        const H = pad(dt.getUTCHours());
        const M = pad(dt.getUTCMinutes());
        const S = pad(dt.getUTCSeconds());
        const F = `${dt.getUTCFullYear()}-${pad(dt.getUTCMonth() + 1)}-${pad(dt.getUTCDate())}`;
        const tbl: Record<string, string> = {
          '@': `${Math.floor(ms / 1000)}.${frac}`,
          Y: String(dt.getUTCFullYear()),
          m: pad(dt.getUTCMonth() + 1),
          d: pad(dt.getUTCDate()),
          H,
          M,
          S: `${S}.${frac}`,
          T: `${H}:${M}:${S}.${frac}`,
          F,
          '+': `${F}+${H}:${M}:${S}.${frac}`,
          D: `${pad(dt.getUTCMonth() + 1)}/${pad(dt.getUTCDate())}/${pad(dt.getUTCFullYear() % 100)}`,
          s: String(Math.floor(ms / 1000)),
        };
        v = tbl[k ?? ''] ?? '';
        break;
      }
      default:
        v = '%' + (d ?? '');
    }
    out += fit(v);
  }
  return out;
}

function childPath(parent: string, name: string): string {
  return parent.endsWith('/') ? parent + name : parent + '/' + name;
}

async function walk(f: Finder, expr: Node, e: Entry): Promise<void> {
  if (f.quit) return;
  if (f.needStat && !e.st) {
    try {
      await f.stat(e);
    } catch {
      return;
    }
  }
  const evalHere = e.depth >= f.mindepth;
  if (!f.depthFirst && evalHere) {
    const r = evalNode(expr, e, f);
    if (typeof r !== 'boolean') await r;
  }
  if (e.isDir && e.depth < f.maxdepth && !pruned.has(e) && !f.quit) {
    let kids: Array<{ name: string; isDirectory: boolean }>;
    try {
      kids = await f.children(e);
    } catch (err) {
      f.fail(`${fq(e.path)}: ${errnoMessage(err)}`);
      kids = [];
    }
    const base = e.abs === '/' ? '/' : e.abs + '/';
    for (const k of kids) {
      if (f.quit) break;
      await walk(f, expr, {
        path: childPath(e.path, k.name),
        abs: base + k.name,
        name: k.name,
        depth: e.depth + 1,
        isDir: k.isDirectory,
        start: e.start,
      });
    }
  }
  if (f.depthFirst && evalHere && !f.quit) {
    const r = evalNode(expr, e, f);
    if (typeof r !== 'boolean') await r;
  }
}

/** Walks every start point in turn. */
async function findAll(f: Finder, full: Node, paths: string[], fs: IFileSystem, cwd: string): Promise<void> {
  for (const p of paths) {
    if (f.quit) break;
    const abs = fs.resolvePath(cwd, p);
    let st: FsStat;
    try {
      if (p === '') throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      st = await fs.stat(abs);
    } catch (err) {
      let why = errnoMessage(err);
      if (why === 'No such file or directory' && p !== '') {
        // A file used as a directory on the way: ENOTDIR, as the kernel says.
        for (let d = posix.dirname(abs); d !== '/' && d !== '.'; d = posix.dirname(d)) {
          try {
            if ((await fs.stat(d)).isFile) why = 'Not a directory';
            break;
          } catch {
            continue;
          }
        }
      }
      f.fail(`${fq(p)}: ${why}`);
      continue;
    }
    // A deep walk: bulk-load the subtree's metadata first, where the filesystem offers it
    // (one paged range scan instead of a query per directory).
    if (st.isDirectory && f.maxdepth >= 2) {
      await (fs as IFileSystem & { prefetchMetadata?: (dir: string) => Promise<void> }).prefetchMetadata?.(abs);
    }
    const trimmed = p.replace(/\/+$/, '');
    const name = trimmed === '' ? '/' : trimmed.slice(trimmed.lastIndexOf('/') + 1);
    await walk(f, full, { path: p, abs, name, depth: 0, isDir: st.isDirectory, st, start: p });
  }
}

/** `direct`: see installGnuCommands (taken once, when the command starts). */
export function findCommand(direct?: () => IFileSystem): Command {
  return {
    name: 'find',
    async execute(args: string[], ctx: Ctx): Promise<Result> {
      if ((args[0] === '--help' || args[0] === '--version') && ctx.origCommand) return ctx.origCommand(args);
      const fs = direct?.() ?? ctx.fs;
      const f = new Finder(ctx, fs);
      let i = 0;
      // Leading options -P -L -H -D.. -O..
      while (i < args.length && /^-[PLH]+$/.test(args[i]!)) i++;
      const paths: string[] = [];
      while (i < args.length) {
        const a = args[i]!;
        if ((a.startsWith('-') && a.length > 1) || a === '(' || a === '!' || a === ')' || a === ',') break;
        paths.push(a);
        i++;
      }
      const parser = new Parser(args.slice(i), f, ctx);
      let expr: Node | null;
      try {
        expr = parser.parseExpr();
        if (parser.i < parser.toks.length) {
          const t = parser.toks[parser.i]!;
          if (t === ')') throw new FindError("invalid expression; you have too many ')'");
          throw new FindError(`paths must precede expression: \`${t}'`);
        }
        for (const r of parser.pendingRefs) {
          try {
            await refTime(f, r);
          } catch (err) {
            throw new FindError(`${fq(r)}: ${errnoMessage(err)}`);
          }
        }
      } catch (err) {
        if (err instanceof FindError) return { stdout: '', stderr: `find: ${err.message}\n`, exitCode: 1 };
        throw err;
      }
      const print: Node = { k: 'test', fn: (e, fi) => (fi.print(e.path + '\n'), true), action: true, name: '-print' };
      const full: Node = !expr ? print : hasAction(expr) ? expr : { k: 'and', a: expr, b: print };
      f.needStat = false; // stats are fetched lazily by the tests that need them
      void needsStat;
      if (!paths.length) paths.push('.');
      await findAll(f, full, paths, fs, ctx.cwd);
      for (const b of f.pendingBatches) {
        if (!b.paths.length) continue;
        const r = await f.run([...b.cmd, ...b.paths], b.cwd);
        if (r.exitCode !== 0) f.code = 1;
      }
      const stdout = f.out.join('');
      return f.bytes
        ? ({ stdout, stderr: f.err, exitCode: f.code, stdoutKind: 'bytes', stdoutEncoding: 'binary' } as Result)
        : { stdout, stderr: f.err, exitCode: f.code };
    },
  };
}

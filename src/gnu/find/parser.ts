/** find's expression grammar (findutils 4.9): operators, global options, tests and actions, with GNU's diagnostics. */
import { posix } from 'node:path';
import type { Ctx } from '../kit/command.js';
import { errnoMessage } from '../kit/errno.js';
import { bytesOf, fnmatchRegExp } from '../kit/fnmatch.js';
import { SEARCH, watched } from '../kit/search-watch.js';
import { DAY, FindError, Finder, fq, pruned, refTime, type Entry, type Node } from './finder.js';
import { printf } from './printf.js';

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

export class Parser {
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
    if (Object.hasOwn(PRIMARIES, t)) return PRIMARIES[t]!(this, t);
    if (t.startsWith('-') && t.length > 1) throw new FindError(`unknown predicate \`${t}'`);
    throw new FindError(`paths must precede expression: \`${t}'`);
  }

  pendingRefs: string[] = [];
}

type TestFn = (e: Entry, f: Finder) => boolean | Promise<boolean>;

/** A primary's node: `stat` when it needs the entry's stat, `action` when it prints or runs something. */
function test(name: string, fn: TestFn, o: { stat?: boolean; action?: boolean } = {}): Node {
  return { k: 'test', fn, name, ...o };
}

const always = (_p: Parser, t: string): Node => test(t, () => true);

function depthLimit(p: Parser, t: string): Node {
  const v = p.arg(t);
  if (!/^\d+$/.test(v)) throw new FindError(`Expected a positive decimal integer argument to ${t}, but got ${fq(v)}`);
  if (t === '-maxdepth') p.f.maxdepth = Number(v);
  else p.f.mindepth = Number(v);
  return test(t, () => true);
}

/**
 * GNU (checked against findutils 4.9): emacs has \( \) \| and plain + ? as operators, braces
 * are literal; the basic syntaxes \( \) \| \{ \} \+ \?. Everything else of (){}|+? is literal;
 * other escapes (\\, \.) stay as they are.
 */
function jsRegexSource(src: string, regextype: string): string {
  if (regextype !== 'emacs' && regextype !== 'posix-basic' && regextype !== 'grep' && regextype !== 'sed') return src;
  const emacs = regextype === 'emacs';
  const escapedOps = emacs ? '()|' : '(){}|+?';
  return src.replace(/\\([^])|([(){}|+?])/g, (_m, esc: string | undefined, plain: string | undefined) => {
    if (esc !== undefined) return escapedOps.includes(esc) ? esc : '\\' + esc;
    return emacs && (plain === '+' || plain === '?') ? plain : '\\' + plain;
  });
}

function regex(p: Parser, t: string): Node {
  const src = p.arg(t);
  const js = jsRegexSource(src, p.regextype);
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${js})$`, t === '-iregex' ? 'is' : 's');
  } catch {
    throw new FindError(`Invalid regular expression ${fq(src)}`);
  }
  // A pattern may backtrack for long: the pool watches each match (search-watch.ts).
  return test(t, (e) => watched(SEARCH.findRegex, () => re.test(e.path)));
}

function type(p: Parser, t: string): Node {
  const types = p.arg(t).split(',');
  for (const x of types) {
    if (x.length !== 1 || !'bcdpflsD'.includes(x)) {
      if (x === '') throw new FindError(`Last file type in list argument to ${t} is missing, i.e., list is ending on: ','`);
      throw new FindError(`Unknown argument to ${t}: ${x}`);
    }
  }
  const wantF = types.includes('f');
  const wantD = types.includes('d');
  return test(t, (e) => (e.isDir ? wantD : wantF));
}

function size(p: Parser, t: string): Node {
  const v = p.arg(t);
  const m = /^([+-]?)(\d+)([bcwkMG]?)$/.exec(v);
  if (!m) {
    const bad = /^[+-]?\d+(.)/.exec(v);
    if (bad) throw new FindError(`invalid -size type \`${bad[1]}'`);
    throw new FindError(`invalid argument \`${v}' to \`-size'`);
  }
  const unit = { b: 512, c: 1, w: 2, k: 1024, M: 1048576, G: 1073741824, '': 512 }[m[3] as 'b']!;
  const n = Number(m[2]);
  const cmp = m[1];
  const fn: TestFn = async (e, fi) => {
    const units = Math.ceil((await fi.stat(e)).size / unit);
    return cmp === '+' ? units > n : cmp === '-' ? units < n : units === n;
  };
  return test(t, fn, { stat: true });
}

function empty(_p: Parser, t: string): Node {
  const fn: TestFn = async (e, fi) => (e.isDir ? (await fi.children(e)).length === 0 : (await fi.stat(e)).size === 0);
  return test(t, fn, { stat: true });
}

/** -mtime and -mmin (and the a/c forms: the store has only the mtime). */
function age(p: Parser, t: string): Node {
  const v = p.arg(t);
  const m = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)$/.exec(v);
  if (!m) throw new FindError(`invalid argument \`${v}' to \`${t}'`);
  const days = t.endsWith('time');
  const unit = days ? DAY : 60;
  // GNU: origin is the start time less a day for -Xtime (plus a day less a second for -N).
  let origin = p.f.now / 1000 - (days ? DAY : 0);
  if (days && m[1] === '-') origin += DAY - 1;
  const ref = origin - Number(m[2]) * unit;
  const cmp = m[1];
  const fn: TestFn = async (e, fi) => {
    const mt = (await fi.stat(e)).mtime.getTime() / 1000;
    return cmp === '+' ? mt < ref : cmp === '-' ? mt > ref : mt >= ref && mt < ref + unit;
  };
  return test(t, fn, { stat: true });
}

function newer(p: Parser, t: string): Node {
  const v = p.arg(t);
  const fn: TestFn = async (e, fi) => {
    const ref = await refTime(fi, v);
    return (await fi.stat(e)).mtime.getTime() > ref;
  };
  const node = test(t, fn, { stat: true });
  p.pendingRefs.push(v);
  return node;
}

function perm(p: Parser, t: string): Node {
  const v = p.arg(t);
  const m = /^([-/]?)([0-7]{1,4})$/.exec(v);
  if (!m) throw new FindError(`invalid mode ${fq(v)}`);
  const want = parseInt(m[2]!, 8);
  const fn: TestFn = async (e, fi) => {
    const mode = (await fi.stat(e)).mode & 0o7777;
    if (m[1] === '-') return (mode & want) === want;
    if (m[1] === '/') return want === 0 || (mode & want) !== 0;
    return mode === want;
  };
  return test(t, fn, { stat: true });
}

function printfAction(p: Parser, t: string): Node {
  const fmt = p.arg(t);
  const fn: TestFn = async (e, fi) => {
    fi.print(await printf(fmt, e, fi));
    return true;
  };
  return test(t, fn, { action: true, stat: /%[-+ #0-9.]*[skmMtTaAcC]/.test(fmt) });
}

function prune(p: Parser, t: string): Node {
  const f = p.f;
  return test(t, (e) => {
    if (e.isDir && !f.depthFirst) pruned.add(e);
    return true;
  });
}

function quit(_p: Parser, t: string): Node {
  return test(t, (_e, fi) => {
    fi.quit = true;
    return true;
  });
}

function deleteAction(p: Parser, t: string): Node {
  p.f.depthFirst = true;
  const fn: TestFn = async (e, fi) => {
    if (e.path === '.' || e.path === './') return true;
    try {
      await fi.fs.rm(e.abs, { recursive: false, force: false });
      return true;
    } catch (err) {
      fi.fail(`cannot delete ${fq(e.path)}: ${errnoMessage(err)}`);
      return false;
    }
  };
  return test(t, fn, { action: true });
}

/** -exec's command, up to `;` or `{} +` (then `plus`). */
function execCommand(p: Parser, t: string): { cmd: string[]; plus: boolean } {
  const cmd: string[] = [];
  for (;;) {
    const a = p.toks[p.i];
    if (a === undefined) throw new FindError(`missing argument to \`${t}'`);
    p.i++;
    if (a === ';') break;
    if (a === '+' && cmd.length && cmd[cmd.length - 1] === '{}') {
      cmd.pop();
      return { cmd, plus: true };
    }
    cmd.push(a);
  }
  return { cmd, plus: false };
}

/** `{} +`: the paths are collected, one batch per directory the command runs in, and run at the end. */
function execBatched(t: string, cmd: string[], dir: boolean): Node {
  const batches = new Map<string, { cmd: string[]; paths: string[]; cwd: string }>();
  const fn: TestFn = (e, fi) => {
    const cwd = dir ? posix.dirname(e.abs) : fi.ctx.cwd;
    let b = batches.get(cwd);
    if (!b) {
      b = { cmd, paths: [], cwd };
      batches.set(cwd, b);
      fi.pendingBatches.push(b);
    }
    b.paths.push(dir ? './' + e.name : e.path);
    return true;
  };
  return test(t, fn, { action: true });
}

function exec(p: Parser, t: string): Node {
  if (!p.ctx.exec) throw new FindError(`${t} is not available here`);
  const { cmd, plus } = execCommand(p, t);
  if (!cmd.length) throw new FindError(`missing argument to \`${t}'`);
  p.f.bytes = true;
  const dir = t === '-execdir';
  if (plus) return execBatched(t, cmd, dir);
  const fn: TestFn = async (e, fi) => {
    const path = dir ? './' + (e.depth === 0 ? posix.basename(e.abs) || '/' : e.name) : e.path;
    const argv = cmd.map((a) => a.split('{}').join(path));
    const r = await fi.run(argv, dir ? posix.dirname(e.abs) : fi.ctx.cwd);
    return r.exitCode === 0;
  };
  return test(t, fn, { action: true });
}

function name(p: Parser, t: string): Node {
  const m = globMatcher(p.arg(t), t === '-iname');
  return test(t, (e) => m(e.name));
}

function path(p: Parser, t: string): Node {
  const m = globMatcher(p.arg(t), t === '-ipath' || t === '-iwholename');
  return test(t, (e) => m(e.path));
}

/** A primary that takes an argument and never matches here (no links, no access times). */
function neverWithArg(p: Parser, t: string): Node {
  p.arg(t);
  return test(t, () => false);
}

/**
 * Each primary by name. Global options are true, like GNU; those about links, filesystems and
 * warnings change nothing here.
 */
const PRIMARIES: Readonly<Record<string, (p: Parser, t: string) => Node>> = {
  // ---- global options ----
  '-maxdepth': depthLimit,
  '-mindepth': depthLimit,
  '-depth': (p, t) => {
    p.f.depthFirst = true;
    return test(t, () => true);
  },
  '-d': (p, t) => PRIMARIES['-depth']!(p, t),
  '-regextype': (p, t) => {
    p.regextype = p.arg(t);
    return test(t, () => true);
  },
  '-xdev': always,
  '-mount': always,
  '-noleaf': always,
  '-ignore_readdir_race': always,
  '-noignore_readdir_race': always,
  '-follow': always,
  '-warn': always,
  '-nowarn': always,
  '-daystart': always,
  // ---- tests ----
  '-true': always,
  '-false': (_p, t) => test(t, () => false),
  '-name': name,
  '-iname': name,
  '-path': path,
  '-wholename': path,
  '-ipath': path,
  '-iwholename': path,
  '-lname': neverWithArg,
  '-ilname': neverWithArg,
  '-regex': regex,
  '-iregex': regex,
  '-type': type,
  '-xtype': type,
  '-size': size,
  '-empty': empty,
  '-mtime': age,
  '-atime': age,
  '-ctime': age,
  '-mmin': age,
  '-amin': age,
  '-cmin': age,
  '-newer': newer,
  '-anewer': newer,
  '-cnewer': newer,
  '-used': neverWithArg,
  '-readable': always,
  '-writable': always,
  '-executable': (_p, t) => test(t, (e) => e.isDir),
  '-perm': perm,
  // ---- actions ----
  '-print': (_p, t) => test(t, (e, fi) => (fi.print(e.path + '\n'), true), { action: true }),
  '-print0': (_p, t) => test(t, (e, fi) => (fi.print(e.path + '\0'), true), { action: true }),
  '-printf': printfAction,
  '-prune': prune,
  '-quit': quit,
  '-delete': deleteAction,
  '-exec': exec,
  '-execdir': exec,
};

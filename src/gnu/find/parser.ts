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

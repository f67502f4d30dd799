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
import { isMountPoint } from '../kit/file-info.js';
import { FindError, Finder, evalNode, fq, hasAction, needsStat, pruned, refTime, type Entry, type Node } from './finder.js';
import { Parser } from './parser.js';

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
  if (e.isDir && e.depth < f.maxdepth && !pruned.has(e) && !f.quit && !(e.depth > 0 && isMountPoint(f.fs, e.abs))) {
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

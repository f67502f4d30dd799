/** grep's run: options and patterns, then each operand, recursing into directories. */
import { Buffer } from 'node:buffer';
import { latin1FromBytes, type IFileSystem } from '../kit/command.js';
import { errnoMessage } from '../kit/errno.js';
import { isMountPoint } from '../kit/file-info.js';
import { type PatternLoc, compile } from './matcher.js';
import { parseArgs } from './options.js';
import { GrepBuffer } from './buffer.js';

export class Grep extends GrepBuffer {
  // ---- main ----

  async run(argv: string[]): Promise<number> {
    const { o, operands } = await parseArgs(this, argv);
    let keys: PatternLoc[];
    if (o.keys !== null) {
      keys = o.keys;
    } else if (operands.length) {
      let pat = operands.shift()!;
      if (o.matcher !== 'F' && pat.startsWith('\\-')) pat = pat.slice(1);
      keys = pat.split('\n').map((text, k) => ({ text, file: '', line: k + 1 }));
    } else {
      this.usageError(null);
    }
    // Duplicate patterns are dropped (the first one stays).
    const seen = new Set<string>();
    keys = keys.filter((k) => (seen.has(k.text) ? false : (seen.add(k.text), true)));
    if (keys.length === 0) {
      // No pattern at all (e.g. -f /dev/null): the empty pattern, inverted, matches nothing.
      o.invert = !o.invert;
      o.lines = o.words = false;
      keys = [{ text: '', file: '', line: 1 }];
    }

    if (o.quiet) o.list = 0;
    if (o.quiet || o.list) {
      o.count = false;
      this.doneOnMatch = true;
    }
    this.outQuiet = o.count || this.doneOnMatch;
    if (o.after < 0) o.after = o.context;
    if (o.before < 0) o.before = o.context;
    this.eol = o.nullData ? '\0' : '\n';

    // Nothing can be selected: GNU fails without reading any input.
    if ((o.maxCount === 0 || (keys.length === 1 && keys[0]!.text === '' && o.invert && !o.lines && !o.words)) && o.list !== 2) {
      return 1;
    }

    this.m = compile(this, keys, o);

    const numOperands = operands.length;
    this.outFile = o.filenameOpt === 0 && numOperands <= 1 ? -(o.directories === 'recurse' ? 1 : 0) : o.filenameOpt >= 0 ? 1 : 0;

    let files: string[];
    if (numOperands > 0) files = operands;
    else if (o.directories === 'recurse' && o.lastRecursive) {
      files = ['.'];
      this.omitDotSlash = true;
    } else files = ['-'];

    let status = true;
    for (const f of files) {
      status = (await this.commandLineArg(f)) && status;
      if (this.outputFull()) break;
    }
    return this.errseen ? 2 : status ? 1 : 0;
  }

  protected outputFull(): boolean {
    return this.maxOutput > 0 && this.outBytes > this.maxOutput;
  }

  // ---- files ----

  protected async commandLineArg(arg: string): Promise<boolean> {
    if (arg === '-') {
      this.filename = this.o.label ?? '(standard input)';
      const bytes = this.stdinUsed ? Buffer.alloc(0) : Buffer.from(latin1FromBytes(this.ctx.stdin), 'latin1');
      this.stdinUsed = true;
      if (this.outFile < 0) this.outFile = 0;
      return this.grepBytes(bytes, Number.MAX_SAFE_INTEGER, true);
    }
    this.filename = arg;
    return this.grepFile(arg, arg, true);
  }

  protected async grepFile(display: string, path: string, commandLine: boolean): Promise<boolean> {
    const fs = this.fs;
    const abs = fs.resolvePath(this.ctx.cwd, path);
    this.filename = display;
    let st;
    try {
      st = await fs.stat(abs);
    } catch (e) {
      this.suppressible(display, errnoMessage(e, null));
      return true;
    }
    if (!st.isDirectory && /\/$/.test(path)) {
      this.suppressible(display, 'Not a directory');
      return true;
    }
    const isDir = st.isDirectory;
    if (commandLine && this.skipped(display, true, isDir)) return true;
    if (this.outFile < 0) this.outFile = isDir ? 1 : 0;
    if (isDir && this.o.directories === 'recurse') {
      // Walk the real directory (a symlink operand is followed; not every filesystem
      // resolves symlinks in the middle of a path).
      let real = abs;
      try {
        real = await fs.realpath(abs);
      } catch {
        /* keep the path */
      }
      await (fs as IFileSystem & { prefetchSubtree?: (d: string) => Promise<void> }).prefetchSubtree?.(real);
      return this.walk(display, real, new Set([real]));
    }
    if (isDir && this.o.directories === 'skip') return true;
    if (isDir) {
      // Reading a directory fails inside the search: it still counts as a file without matches.
      this.suppressible(display, 'Is a directory');
      return this.finishFile(0);
    }
    let bytes: Uint8Array;
    try {
      bytes = await fs.readFileBuffer(abs);
    } catch (e) {
      this.suppressible(display, errnoMessage(e, null));
      return true;
    }
    this.filename = display;
    return this.grepBytes(bytes, st.size, false);
  }

  /** gnulib fts order: the directory's entries in the filesystem's order, depth first. */
  protected async walk(display: string, abs: string, ancestors: Set<string>): Promise<boolean> {
    const fs = this.fs;
    let entries: Array<{ name: string; isFile: boolean; isDirectory: boolean; isSymbolicLink: boolean }>;
    try {
      if (fs.readdirWithFileTypes) entries = await fs.readdirWithFileTypes(abs);
      else {
        entries = [];
        for (const name of await fs.readdir(abs)) {
          const st = await fs.lstat(fs.resolvePath(abs, name));
          entries.push({ name, isFile: st.isFile, isDirectory: st.isDirectory, isSymbolicLink: st.isSymbolicLink });
        }
      }
    } catch (e) {
      this.suppressible(this.shown(display), errnoMessage(e, null));
      return true;
    }
    // fts trims a run of trailing slashes on the root to one, and joins without doubling it.
    let base = display;
    if (base.length > 2 && base.endsWith('/')) while (base.length > 1 && base[base.length - 2] === '/') base = base.slice(0, -1);
    const prefix = base.endsWith('/') ? base : `${base}/`;
    let status = true;
    for (const ent of entries) {
      if (this.ctx.signal?.aborted || this.outputFull()) break;
      const childDisplay = prefix + ent.name;
      let childAbs = abs === '/' ? `/${ent.name}` : `${abs}/${ent.name}`;
      let isDir = ent.isDirectory;
      if (ent.isSymbolicLink) {
        if (!this.o.deref) continue;
        try {
          const st = await fs.stat(childAbs);
          isDir = st.isDirectory;
        } catch {
          isDir = false;
        }
      }
      if (this.skipped(ent.name, false, isDir)) continue;
      if (isDir && isMountPoint(fs, childAbs)) continue;
      if (isDir) {
        let key = childAbs;
        if (this.o.deref) {
          try {
            key = await fs.realpath(childAbs);
          } catch {
            /* keep the path */
          }
          childAbs = key;
          if (ancestors.has(key)) {
            if (!this.o.suppress) this.error(`${this.shown(childDisplay)}: warning: recursive directory loop`);
            continue;
          }
        }
        ancestors.add(key);
        status = (await this.walk(childDisplay, childAbs, ancestors)) && status;
        ancestors.delete(key);
        continue;
      }
      const shown = this.shown(childDisplay);
      let bytes: Uint8Array;
      let size = 0;
      try {
        bytes = await fs.readFileBuffer(childAbs);
        size = bytes.length;
      } catch (e) {
        this.suppressible(shown, errnoMessage(e, null));
        continue;
      }
      this.filename = shown;
      status = this.grepBytes(bytes, size, false) && status;
    }
    return status;
  }

  protected shown(path: string): string {
    return this.omitDotSlash && path.startsWith('./') && path.length > 2 ? path.slice(2) : path;
  }

  protected skipped(name: string, commandLine: boolean, isDir: boolean): boolean {
    const o = this.o;
    if (!isDir) return o.files[commandLine ? 1 : 0]!.excluded(name);
    if (o.directories === 'skip') return true;
    if (commandLine && this.omitDotSlash) return false;
    return o.dirs[commandLine ? 1 : 0]!.excluded(name);
  }
}

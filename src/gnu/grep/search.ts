/** grep: the search. */
import { Buffer, isUtf8 } from 'node:buffer';
import { latin1FromBytes, type Ctx, type IFileSystem, type Result } from '../kit/command.js';
import { errnoMessage } from '../kit/errno.js';
import { SEARCH, watched } from '../kit/search-watch.js';
import { FN_COLOR, GrepExit, MATCH_COLOR, NUM_COLOR, SEP_COLOR, USAGE_TAIL } from './texts.js';
import { wordClass } from './classes.js';
import { type Engine, type Matcher, type PatternLoc, asciiEngine, asciiSource, compile } from './matcher.js';
import { type Options, parseArgs } from './options.js';
import { decodeLossless, hasEncodingError, toRawBytes } from './decode.js';

export class Grep {
  private readonly out: string[] = [];
  private outBytes = 0;
  readonly err: string[] = [];
  private errseen = false;
  private rawOutput = false;
  private used = false;
  private readonly maxOutput: number;

  o!: Options;
  private m!: Matcher;
  /** The engine for the current buffer. */
  private eng!: Engine;
  eol = '\n';
  private outQuiet = false;
  private doneOnMatch = false;
  private outFile = 0;
  private omitDotSlash = false;
  stdinUsed = false;

  // per file
  private text = '';
  private filename = '';
  private lastout = -1;
  private pending = 0;
  private outleft = 0;
  private lnPos = 0;
  private lnCount = 0;
  private bytePos = 0;
  private byteIdx = 0;
  private ascii = true;
  private encErrors = false;
  private encodingErrorOutput = false;
  private offsetWidth = 0;

  readonly fs: IFileSystem;

  constructor(
    readonly ctx: Ctx,
    direct?: IFileSystem,
  ) {
    this.maxOutput = ctx.limits?.maxOutputSize ?? 0;
    this.fs = direct ?? ctx.fs;
  }

  write(s: string): void {
    this.out.push(s);
    this.outBytes += s.length;
  }

  error(msg: string): void {
    this.err.push(`grep: ${msg}\n`);
  }

  private suppressible(name: string, msg: string): void {
    if (!this.o.suppress) this.error(`${name}: ${msg}`);
    this.errseen = true;
  }

  usageError(msg: string | null): never {
    if (msg !== null) this.error(msg);
    this.err.push(USAGE_TAIL);
    throw new GrepExit(2);
  }

  /**
   * stdout is returned as bytes: that is what grep writes, and just-bash handles byte output
   * much faster than text (it measures text by walking it in JavaScript, several times).
   */
  result(code: number): Result {
    const text = this.out.join('');
    const stdout = this.rawOutput ? toRawBytes(text) : Buffer.from(text, 'utf8').toString('latin1');
    return { stdout, stderr: this.err.join(''), exitCode: code, stdoutKind: 'bytes', stdoutEncoding: 'binary' } as Result;
  }

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

  private outputFull(): boolean {
    return this.maxOutput > 0 && this.outBytes > this.maxOutput;
  }

  // ---- files ----

  private async commandLineArg(arg: string): Promise<boolean> {
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

  private async grepFile(display: string, path: string, commandLine: boolean): Promise<boolean> {
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
  private async walk(display: string, abs: string, ancestors: Set<string>): Promise<boolean> {
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

  private shown(path: string): string {
    return this.omitDotSlash && path.startsWith('./') && path.length > 2 ? path.slice(2) : path;
  }

  private skipped(name: string, commandLine: boolean, isDir: boolean): boolean {
    const o = this.o;
    if (!isDir) return o.files[commandLine ? 1 : 0]!.excluded(name);
    if (o.directories === 'skip') return true;
    if (commandLine && this.omitDotSlash) return false;
    return o.dirs[commandLine ? 1 : 0]!.excluded(name);
  }

  // ---- one file ----

  /** Searches one input; returns GNU's status (true: nothing selected). */
  private grepBytes(bytes: Uint8Array, size: number, isStdin: boolean): boolean {
    const o = this.o;
    const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const eol = this.eol;
    let binary = false;
    if (o.binaryFiles !== 'text' && eol === '\n' && buf.indexOf(0) >= 0) {
      if (o.binaryFiles === 'without-match') return this.finishFile(0);
      binary = true;
    }
    let text: string;
    const valid = isUtf8(buf);
    if (valid) {
      text = buf.toString('utf8');
      this.encErrors = false;
    } else {
      text = decodeLossless(buf);
      this.encErrors = o.binaryFiles !== 'text';
      if (!this.encErrors) this.rawOutput = true;
    }
    this.ascii = text.length === buf.length && valid;
    this.eng = this.ascii && !this.m.pure ? asciiEngine(this.m) : this.m.uni;
    if (binary) text = text.replaceAll('\0', '\n');
    this.text = text;

    const doneOnMatch0 = this.doneOnMatch;
    const outQuiet0 = this.outQuiet;
    if (binary && !o.count) this.doneOnMatch = this.outQuiet = true;
    this.lastout = -1;
    this.pending = 0;
    this.outleft = o.maxCount;
    this.lnPos = 0;
    this.lnCount = 0;
    this.bytePos = 0;
    this.byteIdx = 0;
    this.encodingErrorOutput = false;
    if (o.alignTabs) {
      let num = isStdin ? Number.MAX_SAFE_INTEGER : size;
      if (o.lineNumbers && !isStdin) num += 1;
      this.offsetWidth = isStdin ? 19 : String(num).length;
    } else this.offsetWidth = 0;

    let nlines: number;
    try {
      // A regex search may backtrack for long: the pool watches it (search-watch.ts). A literal cannot.
      nlines = this.m.pure ? this.search() : watched(SEARCH.grep, () => this.search());
    } finally {
      this.doneOnMatch = doneOnMatch0;
      this.outQuiet = outQuiet0;
    }
    if (o.binaryFiles === 'binary' && !this.outQuiet && (this.encodingErrorOutput || (binary && nlines > 0))) {
      this.err.push(`grep: ${this.filename}: binary file matches\n`);
    }
    return this.finishFile(nlines);
  }

  private finishFile(count: number): boolean {
    const o = this.o;
    if (o.count) {
      if (this.outFile) this.write(`${this.sgr(FN_COLOR, this.filename)}${o.nullName ? '\0' : this.sgr(SEP_COLOR, ':')}`);
      this.write(`${count}\n`);
    }
    const status = count === 0;
    if (o.list && o.list === (status ? 2 : 1)) this.write(`${this.sgr(FN_COLOR, this.filename)}${o.nullName ? '\0' : '\n'}`);
    return status;
  }

  /** Wraps text in GNU's default --color=always escapes. */
  private sgr(color: string, text: string): string {
    return this.o.color ? `\x1b[${color}m\x1b[K${text}\x1b[m\x1b[K` : text;
  }

  /** The first line start at or after pos holding a match, or -1. pos is a line start. */
  private nextMatchLine(pos: number): number {
    const filter = this.eng.filterRe;
    for (;;) {
      const ls = this.rawNextMatchLine(pos);
      if (ls < 0 || filter === null) return ls;
      filter.lastIndex = ls;
      if (filter.test(this.text)) return ls;
      pos = this.lineEnd(ls) + 1;
      if (pos > this.text.length) return -1;
    }
  }

  private rawNextMatchLine(pos: number): number {
    const m = this.m;
    const text = this.text;
    const eol = this.eol;
    let at: number;
    if (m.pure) {
      at = text.indexOf(m.lit!, pos);
    } else if (m.lit !== null) {
      const lineRe = this.eng.lineRe!;
      for (;;) {
        const i = text.indexOf(m.lit, pos);
        if (i < 0) return -1;
        const ls = i === 0 ? 0 : text.lastIndexOf(eol, i - 1) + 1;
        lineRe.lastIndex = ls;
        if (lineRe.test(text)) return ls;
        const le = text.indexOf(eol, i);
        if (le < 0) return -1;
        pos = le + 1;
      }
    } else {
      const re = this.eng.re;
      re.lastIndex = pos;
      for (;;) {
        const r = re.exec(text);
        if (r === null) return -1;
        at = r.index;
        if (r[0].length || this.m.wordEmpty === null || this.wordEmptyOk(at)) break;
        if (at >= text.length) return -1;
        const c = text.charCodeAt(at);
        re.lastIndex = at + (c >= 0xd800 && c <= 0xdbff ? 2 : 1);
      }
    }
    if (at < 0) return -1;
    const len = text.length;
    if (at >= len && (len === 0 || text.charCodeAt(len - 1) === eol.charCodeAt(0))) return -1;
    return at === 0 ? 0 : text.lastIndexOf(eol, at - 1) + 1;
  }

  /**
   * GNU's -w loop takes, at each start, the longest match and then shorter non-empty ones: an
   * empty word-bounded match at s counts only if nothing longer matches at s, or if a
   * non-empty match at s is word-bounded too.
   */
  private wordEmptyOk(s: number): boolean {
    const text = this.text;
    const eng = this.eng;
    let prev = 0;
    if (s > 0) {
      const c = text.charCodeAt(s - 1);
      prev = s > 1 && c >= 0xdc00 && c <= 0xdfff && text.charCodeAt(s - 2) >= 0xd800 && text.charCodeAt(s - 2) <= 0xdbff ? 2 : 1;
    }
    const unicode = eng.flags.includes('v');
    const need = (unicode ? Math.min(prev, 1) : prev) + 1;
    let pair = eng.nonEmpty.get(need);
    if (!pair) {
      const inner = unicode ? this.m.wordEmpty! : asciiSource(this.m.wordEmpty!, this.m.icase);
      const W = unicode ? wordClass() : asciiSource(wordClass(), this.m.icase);
      const body = `(?:${inner})(?<=^[\\s\\S]{${need},})`;
      pair = [new RegExp(body, `y${eng.flags}`), new RegExp(`${body}(?!${W})`, `y${eng.flags}`)];
      eng.nonEmpty.set(need, pair);
    }
    const sub = text.slice(s - prev);
    pair[0].lastIndex = prev;
    if (!pair[0].test(sub)) return true;
    pair[1].lastIndex = prev;
    return pair[1].test(sub);
  }

  private lineEnd(ls: number): number {
    const e = this.text.indexOf(this.eol, ls);
    return e < 0 ? this.text.length : e;
  }

  /** grep(): the selection loop over one buffer. Returns the number of selected lines. */
  private search(): number {
    const o = this.o;
    const text = this.text;
    const len = text.length;
    const terminated = len > 0 && text.charCodeAt(len - 1) === this.eol.charCodeAt(0);
    const dataEnd = terminated ? len : len === 0 ? 0 : len + 1; // start of the line after the last
    let nlines = 0;
    if (this.outleft !== 0) {
      let p = 0;
      if (!o.invert) {
        while (p < dataEnd) {
          const ls = this.nextMatchLine(p);
          if (ls < 0) break;
          const le = this.lineEnd(ls);
          nlines += this.prtext(ls, le + 1);
          if (!this.outleft || this.doneOnMatch) break;
          p = le + 1;
        }
      } else {
        while (p < dataEnd) {
          const ms = this.nextMatchLine(p);
          const stop = ms < 0 ? dataEnd : ms;
          if (p < stop) {
            nlines += this.prtext(p, stop);
            if (!this.outleft || this.doneOnMatch) break;
          }
          if (ms < 0) break;
          p = this.lineEnd(ms) + 1;
        }
      }
    }
    if (this.pending > 0) this.prpending(dataEnd);
    return nlines;
  }

  /** Output the selected lines [beg, lim) with their context; returns how many were selected. */
  private prtext(beg: number, lim: number): number {
    const o = this.o;
    const text = this.text;
    const eol = this.eol;
    if (!this.outQuiet && this.pending > 0) this.prpending(beg);
    let p = beg;
    if (!this.outQuiet) {
      const bp = this.lastout >= 0 ? this.lastout : 0;
      for (let i = 0; i < o.before; i++) {
        if (p > bp) p = p - 2 < 0 ? 0 : text.lastIndexOf(eol, p - 2) + 1;
        else break;
      }
      if ((o.before >= 0 || o.after >= 0) && this.used && p !== this.lastout && o.groupSeparator !== null) {
        this.write(`${this.sgr(SEP_COLOR, o.groupSeparator)}\n`);
      }
      while (p < beg) {
        const nl = this.lineEnd(p);
        this.prline(p, nl, '-');
        p = nl + 1;
      }
    }
    let n: number;
    if (o.invert) {
      n = 0;
      while (p < lim && n < this.outleft) {
        const nl = this.lineEnd(p);
        if (!this.outQuiet) this.prline(p, nl, ':');
        p = nl + 1;
        n++;
      }
    } else {
      if (!this.outQuiet) this.prline(beg, this.lineEnd(beg), ':');
      n = 1;
    }
    if (o.quiet && n > 0) throw new GrepExit(0);
    this.pending = this.outQuiet ? 0 : Math.max(0, o.after);
    this.used = true;
    this.outleft -= n;
    return n;
  }

  private prpending(lim: number): void {
    if (this.lastout < 0) this.lastout = 0;
    while (this.pending > 0 && this.lastout < lim) {
      this.prline(this.lastout, this.lineEnd(this.lastout), '-');
      this.pending--;
    }
  }

  private lineNumber(at: number): number {
    const text = this.text;
    const eol = this.eol;
    let pos = this.lnPos;
    let n = this.lnCount;
    for (;;) {
      const i = text.indexOf(eol, pos);
      if (i < 0 || i >= at) break;
      n++;
      pos = i + 1;
    }
    this.lnPos = pos;
    this.lnCount = n;
    return n + 1;
  }

  private byteOffset(at: number): number {
    if (this.ascii) return at;
    if (at < this.byteIdx) {
      this.byteIdx = 0;
      this.bytePos = 0;
    }
    this.bytePos += Buffer.byteLength(this.text.slice(this.byteIdx, at));
    this.byteIdx = at;
    return this.bytePos;
  }

  private num(n: number): string {
    const s = String(n);
    return this.offsetWidth > s.length ? ' '.repeat(this.offsetWidth - s.length) + s : s;
  }

  /** print_line_head; false if the line (or match) is suppressed for an encoding error. */
  private head(beg: number, len: number, lineStart: number, sep: string): string | null {
    const o = this.o;
    if (this.encErrors && hasEncodingError(this.text, beg, beg + len)) {
      this.encodingErrorOutput = true;
      return null;
    }
    let h = '';
    const s = this.sgr(SEP_COLOR, sep);
    if (this.outFile) h += this.sgr(FN_COLOR, this.filename) + (o.nullName ? '\0' : s);
    if (o.lineNumbers) h += this.sgr(NUM_COLOR, this.num(this.lineNumber(lineStart))) + s;
    if (o.byteOffset) h += this.sgr(NUM_COLOR, this.num(this.byteOffset(beg))) + s;
    if (o.alignTabs && (this.outFile || o.lineNumbers || o.byteOffset) && len !== 0) h += '\t';
    return h;
  }

  private prline(beg: number, nl: number, sep: string): void {
    const o = this.o;
    const text = this.text;
    if (!o.onlyMatching) {
      const h = this.head(beg, nl - beg, beg, sep);
      if (h === null) return;
      if (o.color && (sep === ':') !== o.invert) this.write(h + this.colorMatches(beg, nl) + this.eol);
      else this.write(h + text.slice(beg, nl) + this.eol);
    } else if ((sep === ':') !== o.invert) {
      if (!this.printMatches(beg, nl, o.invert ? '-' : ':')) return;
    }
    this.lastout = nl + 1;
  }

  /** print_line_middle for -o: each non-empty leftmost(-longest) match on its own line. */
  private printMatches(beg: number, nl: number, sep: string): boolean {
    const line = this.text.slice(beg, nl);
    const re = this.eng.oRe;
    let cur = 0;
    while (cur < line.length) {
      re.lastIndex = cur;
      const r = re.exec(line);
      if (r === null) break;
      const b = r.index;
      let e = b + r[0].length;
      if (this.m.longest) e = this.extend(line, b, e);
      if (e === b) {
        const c = line.charCodeAt(b);
        cur = b + (c >= 0xd800 && c <= 0xdbff ? 2 : 1);
        continue;
      }
      const h = this.head(beg + b, e - b, beg, sep);
      if (h === null) return false;
      this.write(h + this.sgr(MATCH_COLOR, line.slice(b, e)) + this.eol);
      cur = e;
    }
    return true;
  }

  /** print_line_middle with --color: the line with each non-empty match highlighted. */
  private colorMatches(beg: number, nl: number): string {
    const line = this.text.slice(beg, nl);
    const re = this.eng.oRe;
    let out = '';
    let done = 0;
    let cur = 0;
    while (cur < line.length) {
      re.lastIndex = cur;
      const r = re.exec(line);
      if (r === null) break;
      const b = r.index;
      let e = b + r[0].length;
      if (this.m.longest) e = this.extend(line, b, e);
      if (e === b) {
        const c = line.charCodeAt(b);
        cur = b + (c >= 0xd800 && c <= 0xdbff ? 2 : 1);
        continue;
      }
      out += line.slice(done, b) + this.sgr(MATCH_COLOR, line.slice(b, e));
      done = cur = e;
    }
    return out + line.slice(done);
  }

  /**
   * The longest match starting at b (POSIX), given one ending at e: asks the engine for a
   * match at b ending later, until there is none. The search runs on the rest of the line
   * with one character of left context (all a translated pattern's lookbehinds need), and
   * "ends later" is a lookbehind over that short prefix, so each try costs about the match.
   */
  private extend(line: string, b: number, e: number): number {
    const m = this.eng;
    const off = b > 0 ? 1 : 0;
    const sub = line.slice(b - off);
    const unicode = m.flags.includes('v');
    for (;;) {
      if (e >= line.length) return e;
      // Required end, in code points (the `v` flag counts those) of sub, plus one.
      let need = off + (e - b) + 1;
      if (unicode) {
        need = 1;
        for (let i = 0; i < off + (e - b); i++) {
          const c = sub.charCodeAt(i);
          if (!(c >= 0xdc00 && c <= 0xdfff && i > 0 && sub.charCodeAt(i - 1) >= 0xd800 && sub.charCodeAt(i - 1) <= 0xdbff)) need++;
        }
      }
      let rx = m.extend.get(need);
      if (!rx) {
        if (m.extend.size > 256) m.extend.clear();
        rx = new RegExp(`(?:${m.oSrc})(?<=^[\\s\\S]{${need},})`, `y${m.flags}`);
        m.extend.set(need, rx);
      }
      rx.lastIndex = off;
      const r = rx.exec(sub);
      if (r === null) return e;
      e = b + r[0].length;
    }
  }
}

/** grep on one buffer: decoding, finding each matching line (with -w/-x/-v), counting. */
import { Buffer, isUtf8 } from 'node:buffer';
import { SEARCH, watched } from '../kit/search-watch.js';
import { FN_COLOR, SEP_COLOR } from './texts.js';
import { wordClass } from './classes.js';
import { asciiEngine, asciiSource } from './matcher.js';
import { decodeLossless } from './decode.js';
import { GrepPrinter } from './printer.js';

export class GrepBuffer extends GrepPrinter {
  // ---- one file ----

  /** Searches one input; returns GNU's status (true: nothing selected). */
  protected grepBytes(bytes: Uint8Array, size: number, isStdin: boolean): boolean {
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

  protected finishFile(count: number): boolean {
    const o = this.o;
    if (o.count) {
      if (this.outFile) this.write(`${this.sgr(FN_COLOR, this.filename)}${o.nullName ? '\0' : this.sgr(SEP_COLOR, ':')}`);
      this.write(`${count}\n`);
    }
    const status = count === 0;
    if (o.list && o.list === (status ? 2 : 1)) this.write(`${this.sgr(FN_COLOR, this.filename)}${o.nullName ? '\0' : '\n'}`);
    return status;
  }

  /** The first line start at or after pos holding a match, or -1. pos is a line start. */
  protected nextMatchLine(pos: number): number {
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

  protected rawNextMatchLine(pos: number): number {
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
  protected wordEmptyOk(s: number): boolean {
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

  /** grep(): the selection loop over one buffer. Returns the number of selected lines. */
  protected search(): number {
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
}

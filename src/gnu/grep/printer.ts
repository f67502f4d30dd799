/** grep's printing: selected lines with their context, prefixes, colours and -o matches. */
import { Buffer } from 'node:buffer';
import { FN_COLOR, GrepExit, MATCH_COLOR, NUM_COLOR, SEP_COLOR } from './texts.js';
import { hasEncodingError } from './decode.js';
import { GrepState } from './state.js';

export class GrepPrinter extends GrepState {
  /** Wraps text in GNU's default --color=always escapes. */
  protected sgr(color: string, text: string): string {
    return this.o.color ? `\x1b[${color}m\x1b[K${text}\x1b[m\x1b[K` : text;
  }

  protected lineEnd(ls: number): number {
    const e = this.text.indexOf(this.eol, ls);
    return e < 0 ? this.text.length : e;
  }

  /** Output the selected lines [beg, lim) with their context; returns how many were selected. */
  protected prtext(beg: number, lim: number): number {
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

  protected prpending(lim: number): void {
    if (this.lastout < 0) this.lastout = 0;
    while (this.pending > 0 && this.lastout < lim) {
      this.prline(this.lastout, this.lineEnd(this.lastout), '-');
      this.pending--;
    }
  }

  protected lineNumber(at: number): number {
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

  protected byteOffset(at: number): number {
    if (this.ascii) return at;
    if (at < this.byteIdx) {
      this.byteIdx = 0;
      this.bytePos = 0;
    }
    this.bytePos += Buffer.byteLength(this.text.slice(this.byteIdx, at));
    this.byteIdx = at;
    return this.bytePos;
  }

  protected num(n: number): string {
    const s = String(n);
    return this.offsetWidth > s.length ? ' '.repeat(this.offsetWidth - s.length) + s : s;
  }

  /** print_line_head; false if the line (or match) is suppressed for an encoding error. */
  protected head(beg: number, len: number, lineStart: number, sep: string): string | null {
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

  protected prline(beg: number, nl: number, sep: string): void {
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

  /**
   * print_line_middle's loop, which -o and --color share: each non-empty leftmost(-longest)
   * match in the line, as [start, end); an empty match moves the search on one character.
   */
  protected *matches(line: string): Generator<[number, number]> {
    const re = this.eng.oRe;
    let cur = 0;
    while (cur < line.length) {
      re.lastIndex = cur;
      const r = re.exec(line);
      if (r === null) return;
      const b = r.index;
      let e = b + r[0].length;
      if (this.m.longest) e = this.extend(line, b, e);
      if (e === b) {
        const c = line.charCodeAt(b);
        cur = b + (c >= 0xd800 && c <= 0xdbff ? 2 : 1);
        continue;
      }
      yield [b, e];
      cur = e;
    }
  }

  /** print_line_middle for -o: each match on its own line. */
  protected printMatches(beg: number, nl: number, sep: string): boolean {
    const line = this.text.slice(beg, nl);
    for (const [b, e] of this.matches(line)) {
      const h = this.head(beg + b, e - b, beg, sep);
      if (h === null) return false;
      this.write(h + this.sgr(MATCH_COLOR, line.slice(b, e)) + this.eol);
    }
    return true;
  }

  /** print_line_middle with --color: the line with each match highlighted. */
  protected colorMatches(beg: number, nl: number): string {
    const line = this.text.slice(beg, nl);
    let out = '';
    let done = 0;
    for (const [b, e] of this.matches(line)) {
      out += line.slice(done, b) + this.sgr(MATCH_COLOR, line.slice(b, e));
      done = e;
    }
    return out + line.slice(done);
  }

  /**
   * The longest match starting at b (POSIX), given one ending at e: asks the engine for a
   * match at b ending later, until there is none. The search runs on the rest of the line
   * with one character of left context (all a translated pattern's lookbehinds need), and
   * "ends later" is a lookbehind over that short prefix, so each try costs about the match.
   */
  protected extend(line: string, b: number, e: number): number {
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

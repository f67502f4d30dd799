/** grep's POSIX regex translation: bracket expressions (glibc parse_bracket_exp, the DFA's [:space:] check). */
import { Buffer } from 'node:buffer';
import { BADBYTES, esc, posixClass } from './classes.js';
import { Atom, PatternError, PosixLexer } from './posix-lexer.js';

type BTok = { t: 'END' | 'CHAR' | 'RANGE' | 'CLOSE' | 'COLL' | 'EQUIV' | 'CLASS'; c: string; len: number };
type Elem = { type: 'char' | 'coll' | 'equiv' | 'class'; v: string };

const UNMATCHED = 'Unmatched [, [^, [:, [., or [=';

/** glibc's tokens inside a bracket expression, from a cursor the bracket parse moves. */
class BracketScanner {
  constructor(
    readonly cs: string[],
    public i: number,
  ) {}

  peek(j = this.i): BTok {
    const cs = this.cs;
    if (j >= cs.length) return { t: 'END', c: '', len: 0 };
    const c = cs[j]!;
    if (c === '[') {
      const c2 = cs[j + 1];
      if (c2 === '.') return { t: 'COLL', c: '.', len: 2 };
      if (c2 === '=') return { t: 'EQUIV', c: '=', len: 2 };
      if (c2 === ':') return { t: 'CLASS', c: ':', len: 2 };
      return { t: 'CHAR', c, len: 1 };
    }
    if (c === '-') return { t: 'RANGE', c, len: 1 };
    if (c === ']') return { t: 'CLOSE', c, len: 1 };
    return { t: 'CHAR', c, len: 1 };
  }

  /** The name in `[.x.]`, `[=x=]` or `[:x:]`, the cursor just past its opening. */
  private name(close: string): string {
    const cs = this.cs;
    let name = '';
    if (this.i >= cs.length) throw new PatternError(UNMATCHED);
    for (;;) {
      if (Buffer.byteLength(name) >= 32) throw new PatternError(UNMATCHED);
      const ch = cs[this.i++]!;
      if (this.i >= cs.length) throw new PatternError(UNMATCHED);
      if (ch === close && cs[this.i] === ']') break;
      name += ch;
    }
    this.i++;
    return name;
  }

  elem(tok: BTok, acceptHyphen: boolean): Elem {
    this.i += tok.len;
    if (tok.t === 'COLL' || tok.t === 'EQUIV' || tok.t === 'CLASS') {
      const v = this.name(tok.c);
      return { type: tok.t === 'COLL' ? 'coll' : tok.t === 'EQUIV' ? 'equiv' : 'class', v };
    }
    if (tok.t === 'RANGE' && !acceptHyphen) {
      if (this.peek().t !== 'CLOSE') throw new PatternError('Invalid range end');
    }
    return { type: 'char', v: tok.c };
  }

  /** After a start point: its range end, if a '-' that does not close the bracket follows; and the next token. */
  rangeEnd(start: Elem, tok: BTok): { end: Elem | null; tok: BTok } {
    if (start.type === 'class' || start.type === 'equiv') return { end: null, tok };
    if (tok.t === 'END') throw new PatternError(UNMATCHED);
    if (tok.t !== 'RANGE') return { end: null, tok };
    const save = this.i;
    this.i += tok.len;
    const tok2 = this.peek();
    if (tok2.t === 'END') throw new PatternError(UNMATCHED);
    if (tok2.t === 'CLOSE') {
      this.i = save;
      return { end: null, tok: { t: 'CHAR', c: '-', len: 1 } };
    }
    const end = this.elem(tok2, true);
    return { end, tok: this.peek() };
  }
}

/** A collating symbol or equivalence class must name one single-byte character. */
function single(e: Elem): string {
  if (e.type !== 'char' && Buffer.byteLength(e.v) !== 1) throw new PatternError('Invalid collation character');
  return e.v;
}

/** What a bracket expression's terms build up. */
interface BracketItems {
  items: string[];
  /** Ranges or classes: the class is intersected with "not end of line". */
  complex: boolean;
  /** The DFA's "[:space:]" check: bit 1 first is ':', 2 last is ':', 4 other chars, 8 ranges/classes. */
  colon: number;
}

export class PosixBracket extends PosixLexer {
  // ---- bracket expressions (glibc parse_bracket_exp, DFA's [:space:] check) ----

  protected parseBracket(): Atom {
    const cs = this.cs;
    const sc = new BracketScanner(cs, this.i);
    let tok = sc.peek();
    if (tok.t === 'END') throw new PatternError('Invalid regular expression');
    let neg = false;
    if (cs[sc.i] === '^') {
      neg = true;
      sc.i++;
      tok = sc.peek();
      if (tok.t === 'END') throw new PatternError('Invalid regular expression');
    }
    if (tok.t === 'CLOSE') tok = { t: 'CHAR', c: ']', len: 1 };
    const b: BracketItems = { items: [], complex: false, colon: cs[sc.i] === ':' ? 1 : 0 };
    let firstRound = true;
    for (;;) {
      b.colon &= ~2;
      const start = sc.elem(tok, firstRound);
      firstRound = false;
      const r = sc.rangeEnd(start, sc.peek());
      tok = r.tok;
      this.bracketTerm(start, r.end, neg, b);
      if (tok.t === 'END') throw new PatternError(UNMATCHED);
      if (tok.t === 'CLOSE') break;
    }
    this.i = sc.i + 1;
    if (b.colon === 7) this.dfa.push({ error: 'character class syntax is [[:space:]], not [:space:]' });
    this.laststart = false;
    this.fetch();
    const E = esc(this.eol);
    const items = b.items.join('');
    let src: string;
    if (neg) src = `[^${items}${E}${BADBYTES}]`;
    else if (b.complex) src = `[[${items}]--[${E}]]`;
    else src = `[${items}]`;
    return { src, single: true, lit: null };
  }

  /** One term: a range, a class, or one character; and whether the DFA can take it. */
  private bracketTerm(start: Elem, rangeEnd: Elem | null, neg: boolean, b: BracketItems): void {
    if (neg || start.type !== 'char' || /[^\x00-\x7f]/.test(start.v)) this.unsupported = true;
    if (start.type === 'class' && start.v === 'digit') this.unsupported = neg || this.unsupported;
    if (rangeEnd) {
      if (!/^[0-9]$/.test(start.v) || !/^[0-9]$/.test(rangeEnd.v)) this.unsupported = true;
      if (rangeEnd.type === 'class' || rangeEnd.type === 'equiv') throw new PatternError('Invalid range end');
      const a = single(start);
      const z = single(rangeEnd);
      // C.UTF-8 has no collation order beyond single bytes: multibyte endpoints are refused.
      if (Buffer.byteLength(a) > 1 || Buffer.byteLength(z) > 1) throw new PatternError('Invalid collation character');
      if (a.codePointAt(0)! > z.codePointAt(0)!) throw new PatternError('Invalid range end');
      b.items.push(`${esc(a)}-${esc(z)}`);
      b.complex = true;
      b.colon |= 8;
    } else if (start.type === 'class') {
      const cls = posixClass(start.v, this.icase);
      if (cls === null) throw new PatternError('Invalid character class name');
      b.items.push(cls);
      b.complex = true;
      b.colon |= 8;
    } else {
      const ch = single(start);
      b.items.push(esc(ch));
      if (start.type !== 'char') b.colon |= 8;
      else b.colon |= ch === ':' ? 2 : 4;
    }
  }
}

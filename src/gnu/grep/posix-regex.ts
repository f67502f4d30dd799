/** grep: POSIX basic/extended regular expressions -> JavaScript. */
import { Buffer } from 'node:buffer';
import { BADBYTES, SPACE_SET, alpha, esc, posixClass, wordClass } from './classes.js';

export class PatternError {
  constructor(readonly message: string) {}
}

export const enum T {
  CHAR,
  ALT,
  BACKREF,
  ANCHOR,
  WORD,
  NOTWORD,
  SPACE,
  NOTSPACE,
  OPEN,
  CLOSE,
  STAR,
  PLUS,
  QMARK,
  OPEN_DUP,
  CLOSE_DUP,
  BRACKET,
  PERIOD,
  BACKSLASH,
  END,
}
interface Tok {
  t: T;
  c: string;
  len: number;
}
interface Atom {
  src: string;
  /** A superset stand-in (`[^EOL]*`): a following *, + or ? is absorbed. */
  relaxed?: boolean;
  /** Can take a quantifier without a wrapping group. */
  single: boolean;
  /** The literal character this atom is, if it is one (for the required-literal prefilter). */
  lit: string | null;
}

const RE_DUP_MAX = 0x7fff;

export interface Translation {
  src: string;
  groups: number;
  /** Some match may not be the longest at its start (alternation or several quantifiers). */
  ambiguous: boolean;
  /** A literal every match contains, or null. */
  lit: string | null;
  /** The pattern is exactly `lit`: no metacharacters. */
  pure: boolean;
  /** DFA diagnostics in order: warnings, or a fatal error (last). */
  dfa: Array<{ warn: string } | { error: string }>;
  /**
   * The pattern uses something GNU's DFA cannot do in a UTF-8 locale (word anchors, \w \s,
   * back-references, brackets other than plain ASCII characters and digit ranges): GNU then
   * lets glibc's regex decide which lines match, not the DFA.
   */
  unsupported: boolean;
  /** An ERE ')' without its '(' (an ordinary character, but it closes a -w/-x wrapper). */
  unmatchedClose: boolean;
}

/**
 * Translates one POSIX pattern (BRE, or ERE with `ere`) following glibc's regcomp parser
 * (whose errors GNU grep reports first) and the DFA's choices where they differ.
 */
export class PosixTranslator {
  private readonly cs: string[];
  private i = 0;
  private tok!: Tok;
  private nsub = 0;
  private readonly completed = new Set<number>();
  private laststart = true;
  private quants = 0;
  private alt = false;
  private unsupported = false;
  private unmatchedClose = false;
  private readonly dfa: Translation['dfa'] = [];
  private readonly notEol: string;

  constructor(
    pattern: string,
    private readonly ere: boolean,
    private readonly icase: boolean,
    private readonly eol: string,
    private readonly groupBase: number,
    /** Follow glibc's regex rather than the DFA where they differ (what -o reports). */
    private readonly glibc = false,
    /**
     * The DFA's superset (what GNU uses to skip lines before asking glibc when the DFA cannot
     * decide): what the DFA cannot do matches anything (word anchors, nothing).
     */
    private readonly superset = false,
  ) {
    this.cs = Array.from(pattern);
    this.notEol = `[^${esc(eol)}${BADBYTES}]`;
  }

  translate(): Translation {
    this.fetch(true);
    const top = this.parseRegExp(0);
    if (this.tok.t !== T.END) throw new PatternError('Unmatched ) or \\)');
    const lit = this.alt ? null : top.lit;
    return {
      src: top.src,
      groups: this.nsub,
      ambiguous: this.alt || this.quants > 1,
      lit: lit && lit.length ? lit : null,
      pure: !this.alt && top.pure,
      dfa: this.dfa,
      unsupported: this.unsupported,
      unmatchedClose: this.unmatchedClose,
    };
  }

  // ---- tokens (glibc peek_token) ----

  private peek(i: number, caretHere: boolean): Tok {
    const cs = this.cs;
    if (i >= cs.length) return { t: T.END, c: '', len: 0 };
    const c = cs[i]!;
    if (c === '\\') {
      if (i + 1 >= cs.length) return { t: T.BACKSLASH, c: '\\', len: 1 };
      const c2 = cs[i + 1]!;
      const tok = (t: T): Tok => ({ t, c: c2, len: 2 });
      switch (c2) {
        case '|':
          return tok(this.ere ? T.CHAR : T.ALT);
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
        case '6':
        case '7':
        case '8':
        case '9':
          return tok(T.BACKREF);
        case '<':
        case '>':
        case 'b':
        case 'B':
        case '`':
        case "'":
          return tok(T.ANCHOR);
        case 'w':
          return tok(T.WORD);
        case 'W':
          return tok(T.NOTWORD);
        case 's':
          return tok(T.SPACE);
        case 'S':
          return tok(T.NOTSPACE);
        case '(':
          return tok(this.ere ? T.CHAR : T.OPEN);
        case ')':
          return tok(this.ere ? T.CHAR : T.CLOSE);
        case '+':
          return tok(this.ere ? T.CHAR : T.PLUS);
        case '?':
          return tok(this.ere ? T.CHAR : T.QMARK);
        case '{':
          return tok(this.ere ? T.CHAR : T.OPEN_DUP);
        case '}':
          return tok(this.ere ? T.CHAR : T.CLOSE_DUP);
        default:
          return tok(T.CHAR);
      }
    }
    const tok = (t: T): Tok => ({ t, c, len: 1 });
    switch (c) {
      case '|':
        return tok(this.ere ? T.ALT : T.CHAR);
      case '*':
        return tok(T.STAR);
      case '+':
        return tok(this.ere ? T.PLUS : T.CHAR);
      case '?':
        return tok(this.ere ? T.QMARK : T.CHAR);
      case '{':
        return tok(this.ere ? T.OPEN_DUP : T.CHAR);
      case '}':
        return tok(this.ere ? T.CLOSE_DUP : T.CHAR);
      case '(':
        return tok(this.ere ? T.OPEN : T.CHAR);
      case ')':
        return tok(this.ere ? T.CLOSE : T.CHAR);
      case '[':
        return tok(T.BRACKET);
      case '.':
        return tok(T.PERIOD);
      case '^':
        if (!this.ere && i !== 0 && !caretHere) return tok(T.CHAR);
        return tok(T.ANCHOR);
      case '$':
        if (!this.ere && i + 1 !== cs.length) {
          const next = this.peek(i + 1, false);
          if (next.t !== T.ALT && next.t !== T.CLOSE) return tok(T.CHAR);
        }
        return tok(T.ANCHOR);
      default:
        return tok(T.CHAR);
    }
  }

  /** The current token's type (a method, so TypeScript does not narrow it across calls). */
  private cur(): T {
    return this.tok.t;
  }

  private fetch(caretHere = false): void {
    this.tok = this.peek(this.i, caretHere);
    this.i += this.tok.len;
  }

  // ---- grammar (glibc parse_reg_exp / parse_branch / parse_expression) ----

  private parseRegExp(nest: number): { src: string; lit: string | null; pure: boolean } {
    // Groups closed in one alternative cannot be referred to from the next (glibc).
    const initial = new Set(this.completed);
    const first = this.parseBranch(nest);
    if (this.tok.t !== T.ALT) return first;
    const alts = [first.src];
    while (this.tok.t === T.ALT) {
      this.alt = true;
      this.laststart = true;
      this.fetch(true);
      if (this.tok.t !== T.ALT && this.tok.t !== T.END && (nest === 0 || this.tok.t !== T.CLOSE)) {
        const accumulated = new Set(this.completed);
        this.completed.clear();
        for (const n of initial) this.completed.add(n);
        alts.push(this.parseBranch(nest).src);
        for (const n of accumulated) this.completed.add(n);
      } else {
        alts.push('');
      }
    }
    return { src: alts.join('|'), lit: null, pure: false };
  }

  private parseBranch(nest: number): { src: string; lit: string | null; pure: boolean } {
    let src = '';
    let run = '';
    let best = '';
    let pure = true;
    while (this.tok.t !== T.ALT && this.tok.t !== T.END && !(nest > 0 && this.tok.t === T.CLOSE)) {
      const a = this.parseExpression(nest);
      src += a.src;
      if (a.lit !== null) {
        run += a.lit;
      } else {
        pure = false;
        if (run.length > best.length) best = run;
        run = '';
      }
    }
    if (run.length > best.length) best = run;
    return { src, lit: best, pure };
  }

  private literal(c: string): Atom {
    this.laststart = false;
    return { src: esc(c), single: true, lit: c };
  }

  private anchorSrc(c: string): string {
    const W = wordClass();
    const E = esc(this.eol);
    switch (c) {
      case '^':
      case '`':
        return `(?<=^|${E})`;
      case '$':
      case "'":
        return `(?=${E}|$)`;
      case '<':
        return `(?<!${W})(?=${W})`;
      case '>':
        return `(?<=${W})(?!${W})`;
      case 'b':
        return `(?:(?<!${W})(?=${W})|(?<=${W})(?!${W}))`;
      default:
        return `(?:(?<=${W})(?=${W})|(?<!${W})(?!${W}))`;
    }
  }

  private isDup(t: T): boolean {
    return t === T.STAR || t === T.PLUS || t === T.QMARK || t === T.OPEN_DUP;
  }

  private parseExpression(nest: number): Atom {
    const tok = this.tok;
    let atom: Atom;
    switch (tok.t) {
      case T.CHAR:
        atom = this.literal(tok.c);
        this.fetch();
        break;
      case T.OPEN:
        atom = this.parseSubExp(nest + 1);
        break;
      case T.BRACKET: {
        const before = this.unsupported;
        this.unsupported = false;
        atom = this.parseBracket();
        if (this.superset && this.unsupported) atom = this.relaxedAtom();
        this.unsupported ||= before;
        break;
      }
      case T.BACKREF: {
        this.unsupported = true;
        const n = Number(tok.c);
        if (!this.completed.has(n) && !this.superset) throw new PatternError('Invalid back reference');
        this.laststart = false;
        atom = this.superset ? this.relaxedAtom() : { src: `\\${this.groupBase + n}`, single: true, lit: null };
        this.fetch();
        break;
      }
      case T.OPEN_DUP:
      case T.STAR:
      case T.PLUS:
      case T.QMARK:
        // A repetition operator with nothing to repeat.
        if (!this.ere) {
          atom = this.literal(tok.c);
          this.fetch();
          break;
        }
        if (this.glibc) {
          // glibc skips the operator token alone and parses what follows as an expression.
          this.fetch();
          if (this.cur() === T.ALT || this.cur() === T.END || this.cur() === T.CLOSE) return { src: '', single: false, lit: null };
          return this.parseExpression(nest);
        }
        // ERE: the DFA repeats the empty string: it matches as if the operator were absent.
        {
          let brace = false;
          while (this.isDup(this.tok.t)) {
            if (!this.startDup()) {
              brace = true;
              break;
            }
          }
          if (!brace) return { src: '', single: false, lit: null };
          atom = this.literalBrace();
          break;
        }
      case T.CLOSE:
        if (!this.ere) throw new PatternError('Unmatched ) or \\)');
        this.unmatchedClose = true;
        atom = this.literal(')');
        this.fetch();
        break;
      case T.CLOSE_DUP:
        atom = this.literal('}');
        this.fetch();
        break;
      case T.ANCHOR: {
        if (!"^$`'".includes(tok.c)) this.unsupported = true;
        // glibc makes a repetition after an anchor literal (BRE) or ignores it (ERE); the DFA,
        // which decides what matches, repeats the anchor unless the BRE is at its start.
        let src = this.superset && !"^$`'".includes(tok.c) ? '' : this.anchorSrc(tok.c);
        this.fetch();
        if (this.glibc) return { src, single: false, lit: null };
        while (this.isDup(this.tok.t) && !(!this.ere && this.laststart)) {
          if (this.ere && this.laststart && (this.tok.t !== T.OPEN_DUP || this.intervalValid())) this.warnStart(this.tok);
          const q = this.parseDup();
          if (q === null) break;
          src = `(?:${src})${q}`;
        }
        return { src, single: false, lit: null };
      }
      case T.PERIOD:
        this.laststart = false;
        atom = this.superset ? this.relaxedAtom() : { src: this.notEol, single: true, lit: null };
        this.fetch();
        break;
      case T.WORD:
      case T.NOTWORD:
      case T.SPACE:
      case T.NOTSPACE: {
        this.unsupported = true;
        this.laststart = false;
        const E = esc(this.eol);
        const src =
          tok.t === T.WORD
            ? wordClass()
            : tok.t === T.NOTWORD
              ? `[^${alpha()}0-9_${E}${BADBYTES}]`
              : tok.t === T.SPACE
                ? `[[${SPACE_SET}]--[${E}]]`
                : `[^${SPACE_SET}${E}${BADBYTES}]`;
        atom = this.superset ? this.relaxedAtom() : { src, single: true, lit: null };
        this.fetch();
        break;
      }
      case T.BACKSLASH:
        throw new PatternError('Trailing backslash');
      default:
        return { src: '', single: false, lit: null };
    }
    if (atom.relaxed && (this.tok.t === T.STAR || this.tok.t === T.PLUS || this.tok.t === T.QMARK)) this.fetch();
    while (this.isDup(this.tok.t)) {
      const q = this.parseDup();
      if (q === null) {
        // ERE: an invalid interval is an ordinary '{', which ends this expression.
        return { src: atom.src, single: false, lit: null };
      }
      if (q !== '{1}' && q !== '{1,1}') {
        atom = { src: atom.single ? atom.src + q : `(?:${atom.src})${q}`, single: false, lit: null };
      } else {
        atom = { src: atom.src, single: atom.single, lit: null };
      }
    }
    return atom;
  }

  private relaxedAtom(): Atom {
    return { src: `[^${esc(this.eol)}]*`, single: false, lit: null, relaxed: true };
  }

  /** A literal '{' for an ERE interval that is not one (the tokenizer sits on the '{'). */
  private literalBrace(): Atom {
    const a = this.literal('{');
    this.fetch();
    return { ...a, lit: null };
  }

  private warnStart(tok: Tok): void {
    const what = tok.t === T.STAR ? '*' : tok.t === T.PLUS ? '+' : tok.t === T.QMARK ? '?' : '{...}';
    this.dfa.push({ warn: `${what} at start of expression` });
  }

  /** Consumes a repetition operator at the start of an ERE expression; false if it is a literal '{'. */
  private startDup(): boolean {
    const tok = this.tok;
    if (tok.t === T.OPEN_DUP) {
      const save = this.i;
      const interval = this.scanInterval();
      if (interval === null) {
        // Not an interval: an ordinary '{' (the tokenizer already stands after it).
        this.i = save;
        this.tok = { t: T.CHAR, c: '{', len: 1 };
        return false;
      }
      if (this.laststart) this.dfa.push({ warn: '{...} at start of expression' });
      if (interval.tooBig) this.dfa.push({ error: 'regular expression too big' });
      this.laststart = false;
      this.fetch();
      return true;
    }
    if (this.laststart) this.warnStart(tok);
    this.fetch();
    return true;
  }

  /**
   * The DFA's reading of an interval at the current position (just after '{'): valid or not,
   * without glibc's error reporting (used where only the DFA looks at it).
   */
  private scanInterval(): { tooBig: boolean } | null {
    const cs = this.cs;
    let p = this.i;
    let min = -1;
    let max = -1;
    for (; p < cs.length && /[0-9]/.test(cs[p]!); p++) min = min < 0 ? Number(cs[p]) : Math.min(RE_DUP_MAX + 1, min * 10 + Number(cs[p]));
    if (p < cs.length) {
      if (cs[p] !== ',') max = min;
      else {
        if (min < 0) min = 0;
        while (++p < cs.length && /[0-9]/.test(cs[p]!)) max = max < 0 ? Number(cs[p]) : Math.min(RE_DUP_MAX + 1, max * 10 + Number(cs[p]));
      }
    }
    let ok = true;
    if (!this.ere) {
      if (!(p < cs.length && cs[p++] === '\\')) ok = false;
    }
    if (ok && !(p < cs.length && cs[p++] === '}')) ok = false;
    if (ok && !(min >= 0 && (max < 0 || min <= max))) ok = false;
    if (!ok) return null;
    this.i = p;
    return { tooBig: RE_DUP_MAX < max };
  }

  /** Would the DFA read an interval here (the tokenizer just after a '{')? */
  private intervalValid(): boolean {
    const save = this.i;
    const ok = this.scanInterval() !== null;
    this.i = save;
    return ok;
  }

  /** glibc fetch_number. */
  private fetchNumber(): number {
    let num = -1;
    for (;;) {
      this.fetch();
      const c = this.tok.c;
      if (this.tok.t === T.END) return -2;
      if (this.tok.t === T.CLOSE_DUP || c === ',') break;
      num = this.tok.t !== T.CHAR || c < '0' || c > '9' || num === -2 ? -2 : num === -1 ? Number(c) : Math.min(RE_DUP_MAX + 1, num * 10 + Number(c));
    }
    return num;
  }

  /**
   * glibc parse_dup_op: returns the JS quantifier, or null when an ERE '{' is not an interval
   * (the tokenizer is then positioned on that '{' as an ordinary character).
   */
  private parseDup(): string | null {
    const tok = this.tok;
    if (tok.t !== T.OPEN_DUP) {
      this.quants++;
      this.fetch();
      return tok.t === T.STAR ? '*' : tok.t === T.PLUS ? '+' : '?';
    }
    const startIdx = this.i;
    let start = this.fetchNumber();
    let end = 0;
    if (start === -1) {
      if (this.tok.t === T.CHAR && this.tok.c === ',') start = 0;
      else throw new PatternError('Invalid content of \\{\\}');
    }
    if (start !== -2) {
      end = this.tok.t === T.CLOSE_DUP ? start : this.tok.t === T.CHAR && this.tok.c === ',' ? this.fetchNumber() : -2;
    }
    if (start === -2 || end === -2) {
      if (!this.ere) throw new PatternError(this.tok.t === T.END ? 'Unmatched \\{' : 'Invalid content of \\{\\}');
      // ERE: not an interval; the '{' is an ordinary character, read next.
      this.i = startIdx;
      this.tok = { t: T.CHAR, c: '{', len: 1 };
      return null;
    }
    if ((end !== -1 && start > end) || this.tok.t !== T.CLOSE_DUP) throw new PatternError('Invalid content of \\{\\}');
    if (RE_DUP_MAX < (end === -1 ? start : end)) throw new PatternError('Regular expression too big');
    this.fetch();
    this.laststart = false;
    if (end === -1) {
      this.quants++;
      return `{${start},}`;
    }
    if (start !== end) this.quants++;
    return start === end ? `{${start}}` : `{${start},${end}}`;
  }

  private parseSubExp(nest: number): Atom {
    const n = ++this.nsub;
    this.laststart = true;
    this.fetch(true);
    let inner = '';
    if (this.tok.t !== T.CLOSE) {
      inner = this.parseRegExp(nest).src;
      if (this.cur() !== T.CLOSE) throw new PatternError('Unmatched ( or \\(');
    }
    this.completed.add(n);
    this.laststart = false;
    this.fetch();
    return { src: `(${inner})`, single: true, lit: null };
  }

  // ---- bracket expressions (glibc parse_bracket_exp, DFA's [:space:] check) ----

  private parseBracket(): Atom {
    const cs = this.cs;
    let i = this.i;
    type BTok = { t: 'END' | 'CHAR' | 'RANGE' | 'CLOSE' | 'COLL' | 'EQUIV' | 'CLASS'; c: string; len: number };
    const peekB = (j: number): BTok => {
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
    };
    type Elem = { type: 'char' | 'coll' | 'equiv' | 'class'; v: string };
    const parseElem = (tok: BTok, acceptHyphen: boolean): Elem => {
      i += tok.len;
      if (tok.t === 'COLL' || tok.t === 'EQUIV' || tok.t === 'CLASS') {
        let name = '';
        if (i >= cs.length) throw new PatternError('Unmatched [, [^, [:, [., or [=');
        for (;;) {
          if (Buffer.byteLength(name) >= 32) throw new PatternError('Unmatched [, [^, [:, [., or [=');
          const ch = cs[i++]!;
          if (i >= cs.length) throw new PatternError('Unmatched [, [^, [:, [., or [=');
          if (ch === tok.c && cs[i] === ']') break;
          name += ch;
        }
        i++;
        return { type: tok.t === 'COLL' ? 'coll' : tok.t === 'EQUIV' ? 'equiv' : 'class', v: name };
      }
      if (tok.t === 'RANGE' && !acceptHyphen) {
        if (peekB(i).t !== 'CLOSE') throw new PatternError('Invalid range end');
      }
      return { type: 'char', v: tok.c };
    };
    const single = (e: Elem): string => {
      // A collating symbol or equivalence class must name one single-byte character.
      if (e.type !== 'char' && Buffer.byteLength(e.v) !== 1) throw new PatternError('Invalid collation character');
      return e.v;
    };

    let tok = peekB(i);
    if (tok.t === 'END') throw new PatternError('Invalid regular expression');
    let neg = false;
    if (cs[i] === '^') {
      neg = true;
      i++;
      tok = peekB(i);
      if (tok.t === 'END') throw new PatternError('Invalid regular expression');
    }
    if (tok.t === 'CLOSE') tok = { t: 'CHAR', c: ']', len: 1 };
    // The DFA's "[:space:]" check: bit 1 first is ':', 2 last is ':', 4 other chars, 8 ranges/classes.
    let colon = cs[i] === ':' ? 1 : 0;
    const items: string[] = [];
    let complex = false;
    let firstRound = true;
    for (;;) {
      colon &= ~2;
      const start = parseElem(tok, firstRound);
      firstRound = false;
      tok = peekB(i);
      let rangeEnd: Elem | null = null;
      if (start.type !== 'class' && start.type !== 'equiv') {
        if (tok.t === 'END') throw new PatternError('Unmatched [, [^, [:, [., or [=');
        if (tok.t === 'RANGE') {
          const save = i;
          i += tok.len;
          const tok2 = peekB(i);
          if (tok2.t === 'END') throw new PatternError('Unmatched [, [^, [:, [., or [=');
          if (tok2.t === 'CLOSE') {
            i = save;
            tok = { t: 'CHAR', c: '-', len: 1 };
          } else {
            rangeEnd = parseElem(tok2, true);
            tok = peekB(i);
          }
        }
      }
      if (neg || start.type !== 'char' || /[^\x00-\x7f]/.test(start.v)) this.unsupported = true;
      if (start.type === 'class' && start.v === 'digit') this.unsupported = neg || this.unsupported;
      if (rangeEnd) {
        if (!/^[0-9]$/.test(start.v) || !/^[0-9]$/.test(rangeEnd.v)) this.unsupported = true;
        if (rangeEnd.type === 'class' || rangeEnd.type === 'equiv') throw new PatternError('Invalid range end');
        const a = single(start);
        const b = single(rangeEnd);
        // C.UTF-8 has no collation order beyond single bytes: multibyte endpoints are refused.
        if (Buffer.byteLength(a) > 1 || Buffer.byteLength(b) > 1) throw new PatternError('Invalid collation character');
        if (a.codePointAt(0)! > b.codePointAt(0)!) throw new PatternError('Invalid range end');
        items.push(`${esc(a)}-${esc(b)}`);
        complex = true;
        colon |= 8;
      } else if (start.type === 'class') {
        const cls = posixClass(start.v, this.icase);
        if (cls === null) throw new PatternError('Invalid character class name');
        items.push(cls);
        complex = true;
        colon |= 8;
      } else {
        const ch = single(start);
        items.push(esc(ch));
        if (start.type !== 'char') colon |= 8;
        else colon |= ch === ':' ? 2 : 4;
      }
      if (tok.t === 'END') throw new PatternError('Unmatched [, [^, [:, [., or [=');
      if (tok.t === 'CLOSE') break;
    }
    i += 1;
    this.i = i;
    if (colon === 7) this.dfa.push({ error: 'character class syntax is [[:space:]], not [:space:]' });
    this.laststart = false;
    this.fetch();
    const E = esc(this.eol);
    let src: string;
    if (neg) src = `[^${items.join('')}${E}${BADBYTES}]`;
    else if (complex) src = `[[${items.join('')}]--[${E}]]`;
    else src = `[${items.join('')}]`;
    return { src, single: true, lit: null };
  }
}

/** grep's POSIX regex translation, first layer: the pattern's tokens (glibc peek_token) and the types the layers share. */

import { BADBYTES, esc } from './classes.js';

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
export interface Tok {
  t: T;
  c: string;
  len: number;
}
export interface Atom {
  src: string;
  /** A superset stand-in (`[^EOL]*`): a following *, + or ? is absorbed. */
  relaxed?: boolean;
  /** Can take a quantifier without a wrapping group. */
  single: boolean;
  /** The literal character this atom is, if it is one (for the required-literal prefilter). */
  lit: string | null;
}

export const RE_DUP_MAX = 0x7fff;

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

/** The pattern read token by token; the fields the grammar layers above it share. */
export class PosixLexer {
  protected readonly cs: string[];
  protected i = 0;
  protected tok!: Tok;
  protected nsub = 0;
  protected readonly completed = new Set<number>();
  protected laststart = true;
  protected quants = 0;
  protected alt = false;
  protected unsupported = false;
  protected unmatchedClose = false;
  protected readonly dfa: Translation['dfa'] = [];
  protected readonly notEol: string;

  constructor(
    pattern: string,
    protected readonly ere: boolean,
    protected readonly icase: boolean,
    protected readonly eol: string,
    protected readonly groupBase: number,
    /** Follow glibc's regex rather than the DFA where they differ (what -o reports). */
    protected readonly glibc = false,
    /**
     * The DFA's superset (what GNU uses to skip lines before asking glibc when the DFA cannot
     * decide): what the DFA cannot do matches anything (word anchors, nothing).
     */
    protected readonly superset = false,
  ) {
    this.cs = Array.from(pattern);
    this.notEol = `[^${esc(eol)}${BADBYTES}]`;
  }

  // ---- tokens (glibc peek_token) ----

  protected peek(i: number, caretHere: boolean): Tok {
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
  protected cur(): T {
    return this.tok.t;
  }

  protected fetch(caretHere = false): void {
    this.tok = this.peek(this.i, caretHere);
    this.i += this.tok.len;
  }
}

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
/** A token by its character, as [in a BRE, in an ERE]; a character not listed is itself. */
type BySyntax = Readonly<Record<string, readonly [T, T]>>;

/** Characters that are the same token in both syntaxes. */
const either = (chars: string, t: T): BySyntax => Object.fromEntries([...chars].map((c): [string, readonly [T, T]] => [c, [t, t]]));

/** After a backslash. */
const ESCAPED: BySyntax = {
  '|': [T.ALT, T.CHAR],
  ...either('123456789', T.BACKREF),
  ...either("<>bB`'", T.ANCHOR),
  w: [T.WORD, T.WORD],
  W: [T.NOTWORD, T.NOTWORD],
  s: [T.SPACE, T.SPACE],
  S: [T.NOTSPACE, T.NOTSPACE],
  '(': [T.OPEN, T.CHAR],
  ')': [T.CLOSE, T.CHAR],
  '+': [T.PLUS, T.CHAR],
  '?': [T.QMARK, T.CHAR],
  '{': [T.OPEN_DUP, T.CHAR],
  '}': [T.CLOSE_DUP, T.CHAR],
};

/** Unescaped; '^' and '$' depend on where they stand (see peek). */
const PLAIN: BySyntax = {
  '|': [T.CHAR, T.ALT],
  '*': [T.STAR, T.STAR],
  '+': [T.CHAR, T.PLUS],
  '?': [T.CHAR, T.QMARK],
  '{': [T.CHAR, T.OPEN_DUP],
  '}': [T.CHAR, T.CLOSE_DUP],
  '(': [T.CHAR, T.OPEN],
  ')': [T.CHAR, T.CLOSE],
  '[': [T.BRACKET, T.BRACKET],
  '.': [T.PERIOD, T.PERIOD],
};

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
    const syntax = this.ere ? 1 : 0;
    if (c === '\\') {
      if (i + 1 >= cs.length) return { t: T.BACKSLASH, c: '\\', len: 1 };
      const c2 = cs[i + 1]!;
      return { t: Object.hasOwn(ESCAPED, c2) ? ESCAPED[c2]![syntax] : T.CHAR, c: c2, len: 2 };
    }
    if (c === '^') return { t: this.caretIsAnchor(i, caretHere) ? T.ANCHOR : T.CHAR, c, len: 1 };
    if (c === '$') return { t: this.dollarIsAnchor(i) ? T.ANCHOR : T.CHAR, c, len: 1 };
    return { t: Object.hasOwn(PLAIN, c) ? PLAIN[c]![syntax] : T.CHAR, c, len: 1 };
  }

  /** In a BRE, '^' anchors only first, or where the caller says an anchor may start (after \( or \|). */
  private caretIsAnchor(i: number, caretHere: boolean): boolean {
    return this.ere || i === 0 || caretHere;
  }

  /** In a BRE, '$' anchors only last, or before \) or \|. */
  private dollarIsAnchor(i: number): boolean {
    if (this.ere || i + 1 === this.cs.length) return true;
    const next = this.peek(i + 1, false);
    return next.t === T.ALT || next.t === T.CLOSE;
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

/** grep: POSIX basic/extended regular expressions -> JavaScript. */

import { BADBYTES, SPACE_SET, alpha, esc, wordClass } from './classes.js';
import { Atom, PatternError, RE_DUP_MAX, T, Tok, Translation } from './posix-lexer.js';
import { PosixBracket } from './posix-bracket.js';

/**
 * Translates one POSIX pattern (BRE, or ERE with `ere`) following glibc's regcomp parser
 * (whose errors GNU grep reports first) and the DFA's choices where they differ.
 */
export class PosixTranslator extends PosixBracket {
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

  // ---- grammar (glibc parse_reg_exp / parse_branch / parse_expression) ----

  protected parseRegExp(nest: number): { src: string; lit: string | null; pure: boolean } {
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

  protected parseBranch(nest: number): { src: string; lit: string | null; pure: boolean } {
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

  protected literal(c: string): Atom {
    this.laststart = false;
    return { src: esc(c), single: true, lit: c };
  }

  protected anchorSrc(c: string): string {
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

  protected isDup(t: T): boolean {
    return t === T.STAR || t === T.PLUS || t === T.QMARK || t === T.OPEN_DUP;
  }

  protected parseExpression(nest: number): Atom {
    const step = this.expressionAtom(nest);
    return step.final ? step.atom : this.repeated(step.atom);
  }

  /** The atom at the current token; `final` when no repetition may follow (it was parsed already, or cannot be). */
  private expressionAtom(nest: number): { atom: Atom; final: boolean } {
    const tok = this.tok;
    const next = (atom: Atom) => ({ atom, final: false });
    switch (tok.t) {
      case T.CHAR:
        return next(this.fetched(this.literal(tok.c)));
      case T.OPEN:
        return next(this.parseSubExp(nest + 1));
      case T.BRACKET:
        return next(this.bracketAtom());
      case T.BACKREF:
        return next(this.backrefAtom(tok));
      case T.OPEN_DUP:
      case T.STAR:
      case T.PLUS:
      case T.QMARK:
        return this.nothingToRepeat(tok, nest);
      case T.CLOSE:
        if (!this.ere) throw new PatternError('Unmatched ) or \\)');
        this.unmatchedClose = true;
        return next(this.fetched(this.literal(')')));
      case T.CLOSE_DUP:
        return next(this.fetched(this.literal('}')));
      case T.ANCHOR:
        return { atom: this.anchorExpression(tok), final: true };
      case T.PERIOD:
        this.laststart = false;
        return next(this.fetched(this.superset ? this.relaxedAtom() : { src: this.notEol, single: true, lit: null }));
      case T.WORD:
      case T.NOTWORD:
      case T.SPACE:
      case T.NOTSPACE:
        return next(this.fetched(this.classEscapeAtom(tok.t)));
      case T.BACKSLASH:
        throw new PatternError('Trailing backslash');
      default:
        return { atom: { src: '', single: false, lit: null }, final: true };
    }
  }

  /** Moves past the current token; returns the atom it stood for. */
  private fetched(atom: Atom): Atom {
    this.fetch();
    return atom;
  }

  private bracketAtom(): Atom {
    const before = this.unsupported;
    this.unsupported = false;
    let atom = this.parseBracket();
    if (this.superset && this.unsupported) atom = this.relaxedAtom();
    this.unsupported ||= before;
    return atom;
  }

  private backrefAtom(tok: Tok): Atom {
    this.unsupported = true;
    const n = Number(tok.c);
    if (!this.completed.has(n) && !this.superset) throw new PatternError('Invalid back reference');
    this.laststart = false;
    return this.fetched(this.superset ? this.relaxedAtom() : { src: `\\${this.groupBase + n}`, single: true, lit: null });
  }

  /** A repetition operator with nothing to repeat. */
  private nothingToRepeat(tok: Tok, nest: number): { atom: Atom; final: boolean } {
    const empty = { atom: { src: '', single: false, lit: null }, final: true };
    if (!this.ere) return { atom: this.fetched(this.literal(tok.c)), final: false };
    if (this.glibc) {
      // glibc skips the operator token alone and parses what follows as an expression.
      this.fetch();
      if (this.cur() === T.ALT || this.cur() === T.END || this.cur() === T.CLOSE) return empty;
      return { atom: this.parseExpression(nest), final: true };
    }
    // ERE: the DFA repeats the empty string: it matches as if the operator were absent.
    while (this.isDup(this.tok.t)) {
      if (!this.startDup()) return { atom: this.literalBrace(), final: false };
    }
    return empty;
  }

  private anchorExpression(tok: Tok): Atom {
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

  /** \w \W \s \S. */
  private classEscapeAtom(t: T): Atom {
    this.unsupported = true;
    this.laststart = false;
    const E = esc(this.eol);
    const src =
      t === T.WORD
        ? wordClass()
        : t === T.NOTWORD
          ? `[^${alpha()}0-9_${E}${BADBYTES}]`
          : t === T.SPACE
            ? `[[${SPACE_SET}]--[${E}]]`
            : `[^${SPACE_SET}${E}${BADBYTES}]`;
    return this.superset ? this.relaxedAtom() : { src, single: true, lit: null };
  }

  /** The atom with the repetitions that follow it. */
  private repeated(atom: Atom): Atom {
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

  protected relaxedAtom(): Atom {
    return { src: `[^${esc(this.eol)}]*`, single: false, lit: null, relaxed: true };
  }

  /** A literal '{' for an ERE interval that is not one (the tokenizer sits on the '{'). */
  protected literalBrace(): Atom {
    const a = this.literal('{');
    this.fetch();
    return { ...a, lit: null };
  }

  protected warnStart(tok: Tok): void {
    const what = tok.t === T.STAR ? '*' : tok.t === T.PLUS ? '+' : tok.t === T.QMARK ? '?' : '{...}';
    this.dfa.push({ warn: `${what} at start of expression` });
  }

  /** Consumes a repetition operator at the start of an ERE expression; false if it is a literal '{'. */
  protected startDup(): boolean {
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
  protected scanInterval(): { tooBig: boolean } | null {
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
  protected intervalValid(): boolean {
    const save = this.i;
    const ok = this.scanInterval() !== null;
    this.i = save;
    return ok;
  }

  /** glibc fetch_number. */
  protected fetchNumber(): number {
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
  protected parseDup(): string | null {
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

  protected parseSubExp(nest: number): Atom {
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
}

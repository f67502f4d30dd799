/** grep: perl-compatible patterns (-P) -> JavaScript. */

import { esc, hex } from './classes.js';
import { PatternError } from './posix-lexer.js';

const PCRE_CLASSES: Record<string, string> = {
  alpha: 'A-Za-z',
  digit: '0-9',
  alnum: 'A-Za-z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  space: '\\t-\\r\\u{20}',
  blank: '\\t\\u{20}',
  punct: '\\u{21}-\\u{2f}\\u{3a}-\\u{40}\\u{5b}-\\u{60}\\u{7b}-\\u{7e}',
  xdigit: '0-9A-Fa-f',
  word: 'A-Za-z0-9_',
  cntrl: '\\u{0}-\\u{1f}\\u{7f}',
  graph: '\\u{21}-\\u{7e}',
  print: '\\u{20}-\\u{7e}',
  ascii: '\\u{0}-\\u{7f}',
};

/** A backslash escape's class contents (or, where the class cannot hold it, a whole class): '' for one it does not know. */
function escapeChar(d: string, inClass: boolean, E: string): string {
  switch (d) {
    case 'd':
    case 'w':
      return `\\${d}`;
    case 'D':
      return inClass ? '\\D' : `[^0-9${E}]`;
    case 'W':
      return inClass ? '\\W' : `[^A-Za-z0-9_${E}]`;
    case 's':
      return '\\t\\u{b}\\f\\r\\u{20}';
    case 'S':
      return inClass ? '\\S' : `[^\\t\\n\\u{b}\\f\\r ${E}]`;
    case 'h':
      return '\\t\\u{20}\\u{a0}\\u{1680}\\u{180e}\\u{2000}-\\u{200a}\\u{202f}\\u{205f}\\u{3000}';
    case 'v':
      return '\\u{b}\\f\\r\\u{85}\\u{2028}\\u{2029}';
    default:
      return Object.hasOwn(CONTROL_ESCAPES, d) ? CONTROL_ESCAPES[d]! : '';
  }
}

const CONTROL_ESCAPES: Record<string, string> = { n: '\\n', t: '\\t', r: '\\r', f: '\\f', e: '\\u{1b}', a: '\\u{7}' };

type EscapeHandler = (t: PerlTranslator, d: string) => void;

/** Outside a class, a backslash and the letter `d` (the cursor past both). */
const ESCAPES: Readonly<Record<string, EscapeHandler>> = {
  s: (t) => t.emit(`[${escapeChar('s', false, t.E)}]`),
  h: (t) => t.emit(`[${escapeChar('h', false, t.E)}]`),
  v: (t) => t.emit(`[${escapeChar('v', false, t.E)}]`),
  H: (t) => t.emit(`[^${escapeChar('h', false, t.E)}${t.E}]`),
  V: (t) => t.emit(`[^${escapeChar('v', false, t.E)}${t.E}]`),
  N: (t) => t.emit(`[^${t.E}]`),
  R: (t) => t.emit('[\\u{b}\\f\\r\\u{85}\\u{2028}\\u{2029}]'),
  A: (t) => t.emit(`(?<=^|${t.E})`),
  G: (t) => t.emit(`(?<=^|${t.E})`),
  Z: (t) => t.emit(`(?=${t.E}|$)`),
  z: (t) => t.emit(`(?=${t.E}|$)`),
  Q: (t) => t.quoted(),
  E: () => undefined,
  x: (t) => t.hexEscape(),
  o: (t) => t.octalBraceEscape(),
  '0': (t) => t.octalEscape(),
  g: (t) => t.groupReference(),
  k: (t) => t.namedReference(),
  p: (t, d) => t.property(d),
  P: (t, d) => t.property(d),
  K: () => {
    throw new PatternError('\\K is not supported');
  },
};

/** One -P pattern's translation: a cursor over its characters, the JavaScript source so far. */
class PerlTranslator {
  readonly cs: string[];
  i = 0;
  out = '';
  icase = false;

  constructor(
    pattern: string,
    /** The end of line, escaped. */
    readonly E: string,
  ) {
    this.cs = Array.from(pattern);
    if (pattern.startsWith('(?i)')) {
      this.icase = true;
      this.i = 4;
    }
  }

  emit(s: string): void {
    this.out += s;
  }

  translate(): { src: string; icase: boolean } {
    const cs = this.cs;
    while (this.i < cs.length) {
      const c = cs[this.i]!;
      if (c === '\\') this.escape();
      else if (c === '[') this.charClass();
      else if (c === '(') this.group();
      else if (c === '{') this.brace();
      else this.plain(c);
    }
    return { src: this.out, icase: this.icase };
  }

  private escape(): void {
    const d = this.cs[this.i + 1];
    if (d === undefined) throw new PatternError('\\ at end of pattern');
    this.i += 2;
    if (Object.hasOwn(ESCAPES, d)) ESCAPES[d]!(this, d);
    else this.otherEscape(d);
  }

  private otherEscape(d: string): void {
    const cs = this.cs;
    if (/[1-9]/.test(d)) {
      let n = d;
      while (this.i < cs.length && /[0-9]/.test(cs[this.i]!)) n += cs[this.i++];
      this.out += `\\${n}`;
    } else if (/[dwbB]/.test(d)) this.out += `\\${d}`;
    else if (/[DWS]/.test(d)) this.out += escapeChar(d, false, this.E);
    else if (/[ntrfea]/.test(d)) this.out += `[${escapeChar(d, false, this.E)}]`;
    else if (/[A-Za-z0-9]/.test(d)) throw new PatternError('unrecognized character follows \\');
    else this.out += esc(d);
  }

  /** \Q…\E: literal text. */
  quoted(): void {
    const cs = this.cs;
    while (this.i < cs.length && !(cs[this.i] === '\\' && cs[this.i + 1] === 'E')) this.out += esc(cs[this.i++]!);
    if (this.i < cs.length) this.i += 2;
  }

  /** \xHH or \x{H…}. */
  hexEscape(): void {
    const cs = this.cs;
    let h = '';
    if (cs[this.i] === '{') {
      const close = cs.indexOf('}', this.i);
      if (close < 0) throw new PatternError('missing terminating } in \\x{}');
      h = cs.slice(this.i + 1, close).join('');
      this.i = close + 1;
    } else {
      while (h.length < 2 && this.i < cs.length && /[0-9a-fA-F]/.test(cs[this.i]!)) h += cs[this.i++];
    }
    this.out += hex(h ? parseInt(h, 16) : 0);
  }

  /** \o{NNN}. */
  octalBraceEscape(): void {
    const cs = this.cs;
    const close = cs.indexOf('}', this.i);
    if (cs[this.i] !== '{' || close < 0) throw new PatternError('missing opening brace after \\o');
    this.out += hex(parseInt(cs.slice(this.i + 1, close).join(''), 8));
    this.i = close + 1;
  }

  /** \0, \0N, \0NN. */
  octalEscape(): void {
    const cs = this.cs;
    let o = '';
    while (o.length < 2 && this.i < cs.length && /[0-7]/.test(cs[this.i]!)) o += cs[this.i++];
    this.out += hex(o ? parseInt(o, 8) : 0);
  }

  /** \gN, \g{N}, \g{name}. */
  groupReference(): void {
    const cs = this.cs;
    let ref = '';
    if (cs[this.i] === '{') {
      const close = cs.indexOf('}', this.i);
      ref = cs.slice(this.i + 1, close).join('');
      this.i = close + 1;
    } else {
      while (this.i < cs.length && /[0-9]/.test(cs[this.i]!)) ref += cs[this.i++];
    }
    this.out += /^[0-9]+$/.test(ref) ? `\\${ref}` : `\\k<${ref}>`;
  }

  /** \k<name>, \k{name}, \k'name'. */
  namedReference(): void {
    const cs = this.cs;
    const open = cs[this.i];
    const closeCh = open === '<' ? '>' : open === '{' ? '}' : "'";
    const close = cs.indexOf(closeCh, this.i + 1);
    this.out += `\\k<${cs.slice(this.i + 1, close).join('')}>`;
    this.i = close + 1;
  }

  /** \p{…} / \P{…} (with PCRE's \p{^…}), or the one-letter \pL. */
  property(d: string): void {
    const cs = this.cs;
    if (cs[this.i] !== '{') {
      this.out += `\\${d}{${cs[this.i] ?? ''}}`;
      this.i++;
      return;
    }
    const close = cs.indexOf('}', this.i);
    let name = cs.slice(this.i + 1, close).join('');
    let neg = d === 'P';
    if (name.startsWith('^')) {
      neg = !neg;
      name = name.slice(1);
    }
    this.out += `\\${neg ? 'P' : 'p'}{${name}}`;
    this.i = close + 1;
  }

  /** A character class: copied with its contents escaped for the `v` flag. */
  private charClass(): void {
    const cs = this.cs;
    this.i++;
    let neg = false;
    if (cs[this.i] === '^') {
      neg = true;
      this.i++;
    }
    const items: string[] = [];
    let first = true;
    let closed = false;
    while (this.i < cs.length) {
      if (cs[this.i] === ']' && !first) {
        closed = true;
        this.i++;
        break;
      }
      first = false;
      const item = this.classItem();
      // Ranges: item '-' item.
      if (item.canRange && cs[this.i] === '-' && cs[this.i + 1] !== undefined && cs[this.i + 1] !== ']') items.push(`${item.src}-${this.rangeEnd()}`);
      else items.push(item.src);
    }
    if (!closed) throw new PatternError('missing terminating ] for character class');
    const E = this.E;
    this.out += neg ? `[^${items.join('')}${E}]` : `[[${items.join('')}]--[${E}]]`;
  }

  /** One item of a class; a POSIX class cannot start a range. */
  private classItem(): { src: string; canRange: boolean } {
    const cs = this.cs;
    const ch = cs[this.i]!;
    if (ch === '[' && cs[this.i + 1] === ':') {
      const set = this.posixClass();
      if (set !== null) return { src: set, canRange: false };
    } else if (ch === '\\') return { src: this.classEscape(), canRange: true };
    this.i++;
    return { src: esc(ch), canRange: true };
  }

  /** `[:name:]` or `[:^name:]` at the cursor, as a class; null when the '[' does not start one. */
  private posixClass(): string | null {
    const cs = this.cs;
    const end = cs.indexOf(']', this.i + 2);
    const name = end > 0 && cs[end - 1] === ':' ? cs.slice(this.i + 2, end - 1).join('') : '';
    const negc = name.startsWith('^');
    const nm = negc ? name.slice(1) : name;
    const set = Object.hasOwn(PCRE_CLASSES, nm) ? PCRE_CLASSES[nm] : undefined;
    if (name && set === undefined) throw new PatternError('unknown POSIX class name');
    if (set === undefined) return null;
    this.i = end + 1;
    return negc ? `[^${set}]` : `[${set}]`;
  }

  /** A backslash escape inside a class. */
  private classEscape(): string {
    const cs = this.cs;
    const d = cs[this.i + 1];
    if (d === undefined) throw new PatternError('missing terminating ] for character class');
    this.i += 2;
    if (/[dwDWS]/.test(d)) return `\\${d}`;
    if (d === 's' || d === 'h' || d === 'v' || /[ntrfea]/.test(d)) return escapeChar(d, true, this.E);
    if (d === 'x') {
      let h = '';
      if (cs[this.i] === '{') {
        const close = cs.indexOf('}', this.i);
        h = cs.slice(this.i + 1, close).join('');
        this.i = close + 1;
      } else while (h.length < 2 && this.i < cs.length && /[0-9a-fA-F]/.test(cs[this.i]!)) h += cs[this.i++];
      return hex(h ? parseInt(h, 16) : 0);
    }
    if (d === 'p' || d === 'P') {
      if (cs[this.i] !== '{') return `\\${d}{${cs[this.i++] ?? ''}}`;
      const close = cs.indexOf('}', this.i);
      const item = `\\${d}{${cs.slice(this.i + 1, close).join('')}}`;
      this.i = close + 1;
      return item;
    }
    if (d === 'b') return '\\u{8}';
    return esc(d);
  }

  /** The high end of a range, the cursor on its '-'. */
  private rangeEnd(): string {
    const cs = this.cs;
    const hi = cs[this.i + 1]!;
    if (hi !== '\\') {
      this.i += 2;
      return esc(hi);
    }
    const d = cs[this.i + 2] ?? '';
    this.i += 3;
    return /[ntrfea]/.test(d) ? escapeChar(d, true, this.E) : esc(d);
  }

  private group(): void {
    const cs = this.cs;
    const i = this.i;
    if (cs[i + 1] === '*' && /[A-Z:]/.test(cs[i + 2] ?? '')) {
      const verb = /^\(\*(UTF8?|UCP|NO_AUTO_POSSESS|NO_START_OPT|NO_DOTSTAR_ANCHOR|NO_JIT)\)/.exec(cs.slice(i, i + 24).join(''));
      if (!verb) throw new PatternError('(*VERB) not recognized or malformed');
      this.i += verb[0].length;
    } else if (cs[i + 1] === '?') this.extendedGroup();
    else {
      this.out += '(';
      this.i++;
    }
  }

  /** `(?…`: comments, named groups and references, atomic and branch-reset groups, lookarounds, inline options. */
  private extendedGroup(): void {
    const cs = this.cs;
    const i = this.i;
    const rest = cs.slice(i + 2, i + 5).join('');
    if (rest.startsWith('#')) {
      const close = cs.indexOf(')', i);
      this.i = close < 0 ? cs.length : close + 1;
    } else if (rest.startsWith('P<') || /^<[A-Za-z_]/.test(rest)) {
      // A named group: the name is copied as is.
      const from = rest.startsWith('P') ? i + 4 : i + 3;
      const close = cs.indexOf('>', from);
      if (close < 0) throw new PatternError('syntax error in subpattern name (missing terminator?)');
      this.out += `(?<${cs.slice(from, close).join('')}>`;
      this.i = close + 1;
    } else if (rest.startsWith('P=')) {
      const close = cs.indexOf(')', i);
      this.out += `\\k<${cs.slice(i + 4, close).join('')}>`;
      this.i = close + 1;
    } else if (rest.startsWith("'")) {
      const close = cs.indexOf("'", i + 3);
      this.out += `(?<${cs.slice(i + 3, close).join('')}>`;
      this.i = close + 1;
    } else if (rest.startsWith('>') || rest.startsWith('|')) {
      this.out += '(?:';
      this.i += 3;
    } else if (/^[:=!]/.test(rest)) {
      this.out += `(?${rest[0]}`;
      this.i += 3;
    } else if (/^<[=!]/.test(rest)) {
      this.out += `(?<${rest[1]}`;
      this.i += 4;
    } else this.inlineOptions();
  }

  /** Inline option settings other than a leading (?i): only (?i) can be honoured. */
  private inlineOptions(): void {
    const cs = this.cs;
    const i = this.i;
    if (
      !/^[a-zA-Z-]+\)/.test(
        cs
          .slice(i + 2)
          .join('')
          .slice(0, 12),
      )
    )
      throw new PatternError('unrecognized character after (? or (?-');
    const close = cs.indexOf(')', i);
    const flags = cs.slice(i + 2, close).join('');
    if (flags.includes('i') && !flags.startsWith('-')) this.icase = true;
    this.i = close + 1;
  }

  /** `{n}`, `{n,}`, `{n,m}` (a possessive '+' after it dropped); any other '{' is literal. */
  private brace(): void {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.cs.slice(this.i, this.i + 24).join(''));
    if (!m) {
      this.out += esc('{');
      this.i++;
      return;
    }
    this.out += m[0];
    this.i += m[0].length;
    if (this.cs[this.i] === '+') this.i++;
  }

  /** Any other character: '.', anchors, quantifiers (possessive ones as greedy), literals. */
  private plain(c: string): void {
    const E = this.E;
    let len = 1;
    if (c === '.') this.out += `[^${E}]`;
    else if (c === '^') this.out += `(?<=^|${E})`;
    else if (c === '$') this.out += `(?=${E}|$)`;
    else if (c === '}' || c === ']') this.out += esc(c);
    else if ((c === '*' || c === '+' || c === '?') && this.cs[this.i + 1] === '+') {
      this.out += c;
      len = 2;
    } else if (c === '*' || c === '+' || c === '?' || c === '|' || c === ')') this.out += c;
    else this.out += esc(c);
    this.i += len;
  }
}

export function translatePerl(pattern: string, eol: string): { src: string; icase: boolean } {
  return new PerlTranslator(pattern, esc(eol)).translate();
}

export function pcreMessage(jsMessage: string): string {
  const m = jsMessage.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
  if (/Unterminated group/i.test(m)) return 'missing closing parenthesis';
  if (/Unmatched '\)'/i.test(m)) return 'unmatched closing parenthesis';
  if (/Unterminated character class/i.test(m)) return 'missing terminating ] for character class';
  if (/Nothing to repeat/i.test(m)) return 'quantifier does not follow a repeatable item';
  if (/numbers out of order/i.test(m)) return 'numbers out of order in {} quantifier';
  if (/Invalid named capture referenced|Invalid named reference/i.test(m)) return 'reference to non-existent subpattern';
  if (/Invalid escape|Invalid Unicode escape|Invalid decimal escape/i.test(m)) return 'reference to non-existent subpattern';
  if (/Invalid property name/i.test(m)) return 'unknown property name after \\P or \\p';
  if (/Invalid capture group name|Duplicate capture group name/i.test(m)) return 'two named subpatterns have the same name (PCRE2_DUPNAMES not set)';
  if (/Lone quantifier brackets|Incomplete quantifier|Invalid quantifier/i.test(m)) return 'quantifier does not follow a repeatable item';
  if (/Range out of order/i.test(m)) return 'range out of order in character class';
  if (/Invalid group/i.test(m)) return 'unrecognized character after (? or (?-';
  return m;
}

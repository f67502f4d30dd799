/** grep: the compiled matcher. */

import { GrepExit } from './texts.js';
import { esc, wordClass } from './classes.js';
import { PatternError, type Translation } from './posix-lexer.js';
import { PosixTranslator } from './posix-regex.js';
import { pcreMessage, translatePerl } from './perl-regex.js';
import { type Options } from './options.js';
import type { Grep } from './search.js';

/** One compiled form of the pattern. */
export interface Engine {
  /** Global: scans a whole buffer; a match never crosses an end of line. */
  re: RegExp;
  /** Global, for -o: glibc's reading of the pattern (same as `re` unless they differ). */
  oRe: RegExp;
  oSrc: string;
  /** Sticky: `[^EOL]*?(?:…)`, tests the line starting at lastIndex. */
  lineRe: RegExp | null;
  flags: string;
  /** For -o: `(?:…)(?<=^[\s\S]{n,})` by n, to look for longer matches. */
  extend: Map<number, RegExp>;
  /** For -w with a pattern that can match empty: [non-empty at lastIndex, same and word-bounded], by prefix length. */
  nonEmpty: Map<number, [RegExp, RegExp]>;
  /** Sticky `[^EOL]*?(?:filter)` for Matcher.filter. */
  filterRe: RegExp | null;
}

export interface Matcher {
  /** Unicode (`v` flag) form: right for any text. */
  uni: Engine;
  /** Lazily built form without the `v` flag, for pure-ASCII buffers, where V8 is faster. */
  ascii: Engine | null;
  /** A literal (case-exact) every match contains, for an indexOf prefilter. */
  lit: string | null;
  /** The whole pattern is `lit`: indexOf alone decides. */
  pure: boolean;
  /** -o must search for a longer match at the same start (POSIX leftmost-longest). */
  longest: boolean;
  src: string;
  oSrc: string;
  icase: boolean;
  eol: string;
  /** -w and the bare pattern (this source) can match the empty string. */
  wordEmpty: string | null;
  /** The DFA superset every selected line must also match, if it can differ. */
  filter: string | null;
}

export interface PatternLoc {
  text: string;
  file: string;
  line: number;
}

function buildEngine(src: string, oSrc: string, flags: string, withLineRe: boolean, eol: string): Engine {
  const re = new RegExp(src, `g${flags}`);
  const oRe = oSrc === src ? re : new RegExp(oSrc, `g${flags}`);
  const e = flags.includes('v') ? esc(eol) : eol === '\n' ? '\\n' : '\\x00';
  const lineRe = withLineRe ? new RegExp(`[^${e}]*?(?:${src})`, `y${flags}`) : null;
  return { re, oRe, oSrc, lineRe, flags, extend: new Map(), nonEmpty: new Map(), filterRe: null };
}

function buildMatcher(src: string, icase: boolean, lit: string | null, pure: boolean, longest: boolean, eol: string, oSrc = src): Matcher {
  const uni = buildEngine(src, oSrc, `v${icase ? 'i' : ''}`, lit !== null && !pure, eol);
  return { uni, ascii: null, lit, pure, longest, src, oSrc, icase, eol, wordEmpty: null, filter: null };
}

/**
 * Rewrites a `v`-flag source produced by this module into an equivalent one without the flag,
 * valid for text made only of ASCII characters: every class (or class escape, or non-ASCII
 * character) is replaced by the ASCII characters it matches.
 */
export function asciiSource(src: string, icase: boolean): string {
  const flags = `v${icase ? 'i' : ''}`;
  const project = (cls: string): string => {
    const re = new RegExp(`^${cls}$`, flags);
    let out = '';
    for (let c = 0; c < 128; c++) {
      if (!re.test(String.fromCharCode(c))) continue;
      let d = c;
      while (d + 1 < 128 && re.test(String.fromCharCode(d + 1))) d++;
      const x = (n: number) => `\\x${n.toString(16).padStart(2, '0')}`;
      out += d === c ? x(c) : d === c + 1 ? x(c) + x(d) : `${x(c)}-${x(d)}`;
      c = d;
    }
    return out ? `[${out}]` : '[]';
  };
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\\') {
      const d = src[i + 1]!;
      if ((d === 'u' || d === 'p' || d === 'P') && src[i + 2] === '{') {
        const close = src.indexOf('}', i);
        const atom = src.slice(i, close + 1);
        out += d === 'u' && parseInt(src.slice(i + 3, close), 16) < 128 && !icase ? `\\x${src.slice(i + 3, close).padStart(2, '0')}` : project(atom);
        i = close + 1;
        continue;
      }
      if (d === 'k') {
        const close = src.indexOf('>', i);
        out += src.slice(i, close + 1);
        i = close + 1;
        continue;
      }
      out += c + d;
      i += 2;
      continue;
    }
    if (c === '[') {
      let depth = 0;
      let j = i;
      for (; j < src.length; j++) {
        const ch = src[j];
        if (ch === '\\') {
          if (src[j + 2] === '{' && /[upP]/.test(src[j + 1]!)) j = src.indexOf('}', j);
          else j++;
        } else if (ch === '[') depth++;
        else if (ch === ']' && --depth === 0) break;
      }
      out += project(src.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    const cp = src.codePointAt(i)!;
    if (cp >= 128) {
      const ch = String.fromCodePoint(cp);
      out += project(`[${esc(ch)}]`);
      i += ch.length;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

export function asciiEngine(m: Matcher): Engine {
  if (!m.ascii) {
    const src = asciiSource(m.src, m.icase);
    const oSrc = m.oSrc === m.src ? src : asciiSource(m.oSrc, m.icase);
    m.ascii = buildEngine(src, oSrc, m.icase ? 'i' : '', m.lit !== null && !m.pure, m.eol);
    if (m.filter !== null)
      m.ascii.filterRe = new RegExp(`[^${m.eol === '\n' ? '\\n' : '\\x00'}]*?(?:${asciiSource(m.filter, m.icase)})`, `y${m.icase ? 'i' : ''}`);
  }
  return m.ascii;
}

function fail(g: Grep, message: string): never {
  g.error(message);
  throw new GrepExit(2);
}

/** -P: one pattern, translated from PCRE. */
function compilePerl(g: Grep, keys: PatternLoc[], o: Options, eol: string): Matcher {
  if (keys.length > 1) fail(g, 'the -P option only supports a single pattern');
  let t: { src: string; icase: boolean };
  try {
    // -w is pasted around the pattern as text (so a trailing backslash escapes its ')').
    const text = keys[0]?.text ?? '';
    t = translatePerl(o.words && !o.lines ? `(?<!\\w)(?:${text})(?!\\w)` : text, eol);
  } catch (e) {
    if (e instanceof PatternError) fail(g, e.message);
    throw e;
  }
  let src = t.src;
  if (o.lines) src = `(?<=^|${esc(eol)})(?:${src})(?=${esc(eol)}|$)`;
  try {
    return buildMatcher(src, o.icase || t.icase, null, false, false, eol);
  } catch (e) {
    fail(g, pcreMessage(String((e as Error).message)));
  }
}

/** The translated patterns, before -w / -x wrap them, and what the prefilter may use. */
interface Parts {
  parts: string[];
  /** For -o: glibc's reading. */
  oParts: string[];
  /** -x as the DFA reads it, when that differs from wrapping the parts. */
  wrappedLines: string | null;
  filter: string | null;
  lit: string | null;
  pure: boolean;
  ambiguous: boolean;
}

function fixedParts(keys: PatternLoc[]): Parts {
  const parts = keys.map((k) => Array.from(k.text).map(esc).join(''));
  const single = keys.length === 1;
  return {
    parts,
    oParts: [...parts],
    wrappedLines: null,
    filter: null,
    lit: single ? keys[0]!.text : null,
    pure: single,
    ambiguous: keys.length > 1,
  };
}

/** glibc checks every pattern first and reports each error; then the DFA parses them all. */
function translateAll(g: Grep, keys: PatternLoc[], ere: boolean, o: Options, eol: string): Translation[] {
  const results: Translation[] = [];
  let failed = false;
  let groups = 0;
  for (const k of keys) {
    try {
      const t = new PosixTranslator(k.text, ere, o.icase, eol, groups).translate();
      groups += t.groups;
      results.push(t);
    } catch (e) {
      if (!(e instanceof PatternError)) throw e;
      failed = true;
      g.error(k.file ? `${k.file}:${k.line}: ${e.message}` : e.message);
    }
  }
  if (failed) throw new GrepExit(2);
  return results;
}

/** The patterns as glibc's regex reads them. */
function glibcTranslations(keys: PatternLoc[], ere: boolean, o: Options, eol: string): Translation[] {
  const glibc: Translation[] = [];
  let groups = 0;
  for (const k of keys) {
    const t = new PosixTranslator(k.text, ere, o.icase, eol, groups, true).translate();
    groups += t.groups;
    glibc.push(t);
  }
  return glibc;
}

/** The DFA's warnings, and its first error (which ends grep). */
function reportDfa(g: Grep, results: Translation[]): void {
  for (const t of results) {
    for (const ev of t.dfa) {
      if ('warn' in ev) g.error(`warning: ${ev.warn}`);
      else fail(g, ev.error);
    }
  }
}

/**
 * The DFA's superset still screens lines first: it matters where the DFA reads the patterns
 * differently (odd repetitions, or a ')' closing the -w/-x wrapper early).
 */
function dfaFilter(keys: PatternLoc[], ere: boolean, o: Options, eol: string): string | null {
  let text = keys.map((k) => k.text).join(ere ? '|' : '\\|');
  if (o.words) text = ere ? `(^|[^[:alnum:]_])(${text})([^[:alnum:]_]|$)` : `\\(^\\|[^[:alnum:]_]\\)\\(${text}\\)\\([^[:alnum:]_]\\|$\\)`;
  else if (o.lines) text = ere ? `^(${text})$` : `^\\(${text}\\)$`;
  try {
    return new PosixTranslator(text, ere, o.icase, eol, 0, false, true).translate().src;
  } catch {
    return null; // no screening
  }
}

/**
 * The DFA reads -x as the text `^(PATTERNS)$`, so an unmatched ')' in an ERE closes that group
 * early ('a|)|' then matches every line): translate exactly that text.
 */
function dfaLines(keys: PatternLoc[], ere: boolean, o: Options, eol: string): string | null {
  const text = (ere ? '^(' : '^\\(') + keys.map((k) => k.text).join(ere ? '|' : '\\|') + (ere ? ')$' : '\\)$');
  try {
    return new PosixTranslator(text, ere, o.icase, eol, 0).translate().src;
  } catch {
    return null; // keep the plain wrapping
  }
}

function posixParts(g: Grep, keys: PatternLoc[], o: Options, ere: boolean, eol: string): Parts {
  const results = translateAll(g, keys, ere, o, eol);
  // Where the DFA gives up, glibc's regex decides what matches, and it reads a few odd
  // patterns (repetitions after anchors or at the start) differently; -o always uses it.
  // -w wraps the patterns in [^[:alnum:]_] brackets, which the DFA cannot do in UTF-8.
  const useGlibc = o.words || results.some((t) => t.unsupported);
  const glibc = useGlibc || o.onlyMatching || o.color ? glibcTranslations(keys, ere, o, eol) : [];
  reportDfa(g, results);
  const sel = useGlibc ? glibc : results;
  const p: Parts = { parts: [], oParts: [], wrappedLines: null, filter: null, lit: null, pure: false, ambiguous: keys.length > 1 };
  for (const t of sel) {
    p.parts.push(t.src);
    if (t.ambiguous) p.ambiguous = true;
  }
  for (const t of glibc) {
    p.oParts.push(t.src);
    if (t.ambiguous) p.ambiguous = true;
  }
  if (sel.length === 1) {
    p.lit = sel[0]!.lit;
    p.pure = sel[0]!.pure;
  }
  if (useGlibc && (results.some((t, k) => t.src !== glibc[k]!.src) || ((o.words || o.lines) && results.some((t) => t.unmatchedClose))))
    p.filter = dfaFilter(keys, ere, o, eol);
  if (o.lines && !useGlibc) {
    p.wrappedLines = dfaLines(keys, ere, o, eol);
    if (p.wrappedLines !== null) p.lit = null;
  }
  return p;
}

/** GNU's -w accepts an empty match only where no longer match starts (see Grep.wordEmptyOk): the pattern when it can match empty. */
function wordEmptySource(inner: string, icase: boolean): string | null {
  const probe = new RegExp(inner, `gv${icase ? 'i' : ''}`);
  for (const t of ['', 'a', ' ', ' a', 'a ', 'a a']) {
    probe.lastIndex = 0;
    let r: RegExpExecArray | null;
    while ((r = probe.exec(t)) !== null && r[0].length) probe.lastIndex = r.index + r[0].length;
    if (r !== null) return inner;
  }
  return null;
}

/** The literal prefilter: not under -w / -x, and case-exact, so under -i only when folding cannot change it. */
function prefilter(p: Parts, o: Options): { lit: string | null; pure: boolean } {
  let { lit, pure } = p;
  if (o.lines || o.words) pure = false;
  if (o.icase && lit !== null) {
    if (!/^[\x00-\x40\x5b-\x60\x7b-\x7f]*$/.test(lit)) lit = null;
    pure = false;
  }
  if (lit === '' && !pure) lit = null;
  return { lit, pure: pure && lit !== null };
}

/** The patterns compiled into one matcher, with GNU's diagnostics for bad ones. */
export function compile(g: Grep, keys: PatternLoc[], o: Options): Matcher {
  const eol = g.eol;
  const matcher = o.matcher ?? 'G';
  if (matcher === 'P') return compilePerl(g, keys, o, eol);
  const p = matcher === 'F' ? fixedParts(keys) : posixParts(g, keys, o, matcher === 'E', eol);
  const E = esc(eol);
  const W = wordClass();
  const join = (ps: string[]): string => (ps.length === 1 ? ps[0]! : ps.map((x) => `(?:${x})`).join('|'));
  const combine = (ps: string[]): string => {
    const s = join(ps);
    return o.lines ? `(?<=^|${E})(?:${s})(?=${E}|$)` : o.words ? `(?<!${W})(?:${s})(?!${W})` : s;
  };
  const src = p.wrappedLines ?? combine(p.parts);
  const oSrc = p.oParts.length ? combine(p.oParts) : combine(p.parts);
  const wordEmpty = o.words ? wordEmptySource(join(p.parts), o.icase) : null;
  const { lit, pure } = prefilter(p, o);
  const m = buildMatcher(src, o.icase, lit, pure, p.ambiguous && (o.onlyMatching || o.color), eol, oSrc);
  m.wordEmpty = wordEmpty;
  if (p.filter !== null) {
    m.filter = p.filter;
    m.uni.filterRe = new RegExp(`[^${E}]*?(?:${p.filter})`, `y${m.uni.flags}`);
  }
  return m;
}

/**
 * What the edit engine tells an agent when old_string is not in the file: the likely reason
 * (line endings, quotes, tabs, whitespace) and the closest line, with its context; and the line
 * numbers MULTIPLE_MATCHES lists. Linear, resumable work whatever the file and old_string:
 * substring checks go through core/find.ts, the transformed copies are built in windows, and
 * the closest-line search has a budget of edit-distance cells (a 300-character old_string
 * against a 6 MB file used to cost 11.8 s: 20,000 unbounded 300×300 distances).
 */
import { countNewlines, find, scan, WINDOW } from './find.js';
import { boundedDistance, type CellMeter } from './suggest.js';
import type { Work } from './work.js';

/** 1-based line numbers of increasing offsets, in one pass over the text. */
export function* lineNumbers(text: string, offsets: number[]): Work<number[]> {
  const out: number[] = [];
  let line = 1;
  let pos = 0;
  for (const o of offsets) {
    while (pos < o) {
      const end = Math.min(o, pos + WINDOW);
      line += countNewlines(text, pos, end);
      pos = end;
      if (pos < o) yield;
    }
    out.push(line);
  }
  return out;
}

function* has(hay: string, needle: string): Work<boolean> {
  return (yield* find(hay, needle)) !== -1;
}

/** True when `re` (no g flag) matches somewhere in s; tested a window at a time. */
function* anyMatch(s: string, re: RegExp): Work<boolean> {
  for (let start = 0; start < s.length; start += WINDOW) {
    if (re.test(s.slice(start, start + WINDOW))) return true;
    yield;
  }
  return false;
}

/**
 * s.replace(re, replacement) a window at a time; `cut` moves a window's end to where no match
 * can straddle it (same result as one replace over the whole string).
 */
function* replaceChunked(s: string, re: RegExp, replacement: string | ((c: string) => string), cut = (_: string, end: number) => end): Work<string> {
  const parts: string[] = [];
  for (let start = 0; start < s.length;) {
    const end = cut(s, Math.min(s.length, start + WINDOW));
    parts.push(s.slice(start, end).replace(re, replacement as string));
    start = end;
    if (start < s.length) yield;
  }
  return parts.join('');
}

/** Never between '\r' and '\n'. */
const crlfCut = (s: string, end: number) => (end < s.length && s.charCodeAt(end - 1) === 13 ? end + 1 : end);

const CURLY: Record<string, string> = { '\u2018': "'", '\u2019': "'", '\u201c': '"', '\u201d': '"' };
const straighten = (s: string) => replaceChunked(s, /[\u2018\u2019\u201c\u201d]/g, (c) => CURLY[c]!);
const detab = (s: string) => replaceChunked(s, /\t/g, '    ');

const isBlank = (c: number) => c === 32 || c === 9;
const isSpace = (c: number) => c === 32 || c === 9 || c === 13 || c === 10;
const nonSpace = /[^ \t\r\n]/g;

/**
 * collapse() on s[from, to), a character at a time: for stretches of whitespace where one
 * native replace would meet millions of matches. Only what changes becomes a new piece.
 */
function* collapseLoop(s: string, from: number, to: number): Work<string> {
  const pieces: string[] = [];
  let last = from;
  const emit = (start: number, end: number, replacement: string) => {
    pieces.push(s.slice(last, start), replacement);
    last = end;
  };
  const blanksFrom = (k: number) => {
    while (k < to && isBlank(s.charCodeAt(k))) k++;
    return k;
  };
  for (let i = from, since = 0; i < to; since++) {
    const c = s.charCodeAt(i);
    if (isBlank(c)) {
      // A run of blanks is one ' '; with a following (\r)\n and the blanks after it, one '\n'.
      const r = blanksFrom(i + 1);
      const k = s.charCodeAt(r) === 13 && s.charCodeAt(r + 1) === 10 ? r + 1 : r;
      if (s.charCodeAt(k) === 10) {
        const e = blanksFrom(k + 1);
        emit(i, e, '\n');
        i = e;
      } else {
        if (r - i > 1 || c === 9) emit(i, r, ' ');
        i = r;
      }
    } else if (c === 10 || (c === 13 && s.charCodeAt(i + 1) === 10)) {
      const e = blanksFrom(c === 10 ? i + 1 : i + 2);
      if (c !== 10 || e !== i + 1) emit(i, e, '\n');
      i = e;
    } else {
      i++;
    }
    if (since >= WINDOW) {
      since = 0;
      yield;
    }
  }
  pieces.push(s.slice(last, to));
  return pieces.join('');
}

/**
 * s.replace(/[ \t]+/g, ' ').replace(/ ?\r?\n ?/g, '\n').trim(), a window at a time. A window
 * ends after a character that is not whitespace, where no match of either pattern can straddle
 * it; where the last 4 Ki of a window are all whitespace, the stretch goes through collapseLoop.
 */
export function* collapse(s: string): Work<string> {
  return (yield* collapseRaw(s)).trim();
}

/** collapse() without the final trim(). */
function* collapseRaw(s: string): Work<string> {
  const parts: string[] = [];
  for (let start = 0; start < s.length;) {
    const target = Math.min(s.length, start + WINDOW);
    let cut = target === s.length ? target : -1;
    for (let k = target; cut === -1 && k > start && k > target - 4096; k--) if (!isSpace(s.charCodeAt(k - 1))) cut = k;
    if (cut !== -1) {
      parts.push(
        s
          .slice(start, cut)
          .replace(/[ \t]+/g, ' ')
          .replace(/ ?\r?\n ?/g, '\n'),
      );
    } else {
      nonSpace.lastIndex = target;
      const m = nonSpace.exec(s);
      cut = m ? m.index + 1 : s.length;
      parts.push(yield* collapseLoop(s, start, cut));
    }
    start = cut;
    if (start < s.length) yield;
  }
  return parts.join('');
}

/** Candidates checked one window at a time before collapsing the whole file instead. */
const MAX_ANCHORS = 16;

/**
 * collapse(text).includes(x) for x = collapse(old), without collapsing a large file when it can
 * be avoided. x's longest stretch without ' ', '\t', '\r', '\n' comes out of collapse() as it
 * went in, so every match of x covers an occurrence of it in the file, with the same number of
 * such characters before and after it as x has. When it occurs at most MAX_ANCHORS times, only
 * the stretch of the file around each occurrence is collapsed (cut after such a character, where
 * collapse() can restart); a near-miss in a 6 MB file then costs ~5 ms instead of ~200 ms.
 */
function* collapsedContains(text: string, x: string): Work<boolean> {
  const anchor = (x.match(/[^ \t\r\n]+/g) ?? []).reduce((a, b) => (b.length > a.length ? b : a), '');
  if (anchor.length > 0) {
    const at: number[] = [];
    yield* scan(text, anchor, (p) => at.push(p) > MAX_ANCHORS);
    if (at.length <= MAX_ANCHORS) {
      const ax = x.indexOf(anchor);
      const countIn = (s: string) => s.length - (s.match(/[ \t\r\n]/g)?.length ?? 0);
      const before = countIn(x.slice(0, ax));
      const after = countIn(x.slice(ax + anchor.length));
      for (const p of at) {
        let a = p;
        for (let need = before; need > 0 && a > 0;) if (!isSpace(text.charCodeAt(--a))) need--;
        while (a > 0 && isSpace(text.charCodeAt(a - 1))) a--;
        let b = p + anchor.length;
        for (let need = after; need > 0 && b < text.length; b++) if (!isSpace(text.charCodeAt(b))) need--;
        if (yield* has(yield* collapseRaw(text.slice(a, b)), x)) return true;
      }
      return false;
    }
  }
  return yield* has(yield* collapse(text), x);
}

/** old_strings longer than this get no diagnosis (each check builds a transformed copy of it). */
const MAX_DIAGNOSE = 1 << 20;

/**
 * Up to 8 of the longest stretches of old_string's first 64 Ki without whitespace or quotes.
 * Every transformation diagnose() tries leaves such a stretch as it is, so each must occur in
 * the file for any reason to apply: one fast search each settles most misses.
 */
function plainTokens(old: string): string[] {
  const found = new Set<string>();
  const re = /[^\s'"\u2018\u2019\u201c\u201d]+/g;
  const head = old.slice(0, 1 << 16);
  for (let m = re.exec(head); m; m = re.exec(head)) found.add(m[0]);
  return [...found].sort((x, y) => y.length - x.length).slice(0, 8);
}

/** Why old_string does not match, checked against common near-misses, most specific first. */
export function* diagnose(text: string, old: string): Work<string[]> {
  const reasons: string[] = [];
  if (old.length > MAX_DIAGNOSE) return reasons;
  for (const token of plainTokens(old)) if (!(yield* has(text, token))) return reasons;
  const oldCrlf = yield* has(old, '\r\n');
  const textCrlf = yield* has(text, '\r\n');
  if (!oldCrlf && textCrlf && (yield* has(old, '\n')) && (yield* has(text, yield* replaceChunked(old, /\n/g, '\r\n')))) {
    reasons.push('line_endings: the file uses CRLF (\\r\\n) line endings and old_string uses LF (\\n)');
  } else if (oldCrlf && !textCrlf && (yield* has(text, yield* replaceChunked(old, /\r\n/g, '\n', crlfCut)))) {
    reasons.push('line_endings: the file uses LF (\\n) line endings and old_string uses CRLF (\\r\\n)');
  }
  // Without a curly quote on either side, straightening changes nothing and cannot explain a miss.
  const curly = /[\u2018\u2019\u201c\u201d]/;
  if ((yield* anyMatch(old, curly)) || (yield* anyMatch(text, curly))) {
    if ((yield* has(yield* straighten(text), yield* straighten(old))) && !(yield* has(text, old))) {
      reasons.push('quotes: the text matches if curly and straight quotes are treated alike; copy the quotes exactly as the file has them');
    }
  }
  if (reasons.length === 0) {
    const fileTabs = yield* has(text, '\t');
    if ((fileTabs || (yield* has(old, '\t'))) && (yield* has(yield* detab(text), yield* detab(old)))) {
      reasons.push('tabs_vs_spaces: the text matches if tabs and spaces are treated alike; the file indents with ' + (fileTabs ? 'tabs' : 'spaces'));
    }
  }
  if (reasons.length === 0 && (yield* collapsedContains(text, yield* collapse(old)))) {
    reasons.push('whitespace: the text matches if spaces and indentation are ignored; copy the whitespace exactly (indentation, trailing spaces)');
  }
  return reasons;
}

/** Lines of the file compared with old_string's first line. */
const SCAN_LINES = 20_000;
/** Characters of each line compared. */
const COMPARE_CHARS = 300;
/**
 * Edit-distance cells one search may compute. 4 M cells take ~15 ms on the test VM; a normal
 * near-miss (a 60-character line in a 5,000-line file) needs ~0.2 M: the banded distance stops
 * at the best score so far, and lines whose length alone rules them out cost nothing.
 */
const CELL_BUDGET = 4_000_000;
/** Longest line echoed in details (closest, context); longer ones are cut and say so. */
const MAX_ECHO_LINE = 1_000;

export interface LineEcho {
  line: number;
  text: string;
  truncated?: true;
  length?: number;
}

export interface Closest {
  closest: LineEcho;
  context: LineEcho[];
  /** The closest line's first 200 characters, for the message. */
  preview: string;
}

/** old_string's first non-blank line (what the closest line is compared with), or all of it. */
function* firstNonBlankLine(old: string): Work<string> {
  let since = 0;
  for (let start = 0; start <= old.length;) {
    let nl = old.indexOf('\n', start);
    if (nl === -1) nl = old.length;
    const line = old.slice(start, nl);
    if (line.trim().length > 0) return line;
    since += nl - start + 1;
    start = nl + 1;
    if (since >= WINDOW) {
      since = 0;
      yield;
    }
  }
  return old;
}

function echo(text: string, line: number): LineEcho {
  const t = text.replace(/\r$/, '');
  return t.length > MAX_ECHO_LINE ? { line, text: t.slice(0, MAX_ECHO_LINE), truncated: true, length: t.length } : { line, text: t };
}

/**
 * The first of the file's first 20,000 lines closest to old_string's first non-blank line (edit
 * distance over the first 300 characters, at most half its length, at least 3), with 3 lines
 * of context each side; null when no line is that close.
 */
export function* closestLine(current: string, old: string): Work<Closest | null> {
  const target = (yield* firstNonBlankLine(old)).trim();
  const cmp = target.slice(0, COMPARE_CHARS);
  const threshold = Math.max(3, Math.floor(target.length / 2));
  const slack = Math.max(target.length, 40);
  const meter: CellMeter = { cells: 0 };
  let best = -1;
  let bestStart = 0;
  let bestScore = Infinity;
  let since = 0;
  let cellsAtYield = 0;
  for (let index = 0, start = 0; index < SCAN_LINES && start <= current.length; index++) {
    let nl = current.indexOf('\n', start);
    if (nl === -1) nl = current.length;
    const lineStart = start;
    start = nl + 1;
    since += nl - lineStart + 1;
    if (since >= WINDOW || meter.cells - cellsAtYield >= WINDOW) {
      since = 0;
      cellsAtYield = meter.cells;
      yield;
    }
    const candidate = current.slice(lineStart, nl).trim();
    if (candidate.length === 0 || Math.abs(candidate.length - target.length) > slack) continue;
    if (candidate === target) {
      [best, bestStart, bestScore] = [index, lineStart, 0];
      break;
    }
    const limit = Math.min(bestScore - 1, threshold);
    const d = boundedDistance(candidate.slice(0, COMPARE_CHARS), cmp, limit, meter);
    if (d <= limit) {
      [best, bestStart, bestScore] = [index, lineStart, d];
      if (d === 0) break;
    }
    if (meter.cells >= CELL_BUDGET) break;
  }
  if (best < 0) return null;
  return context(current, best, bestStart);
}

/** The line at `start` (0-based index `index`) with up to 3 lines before and after it. */
function context(text: string, index: number, start: number): Closest {
  const lineAt = (s: number) => {
    const nl = text.indexOf('\n', s);
    return text.slice(s, nl === -1 ? text.length : nl);
  };
  const before: LineEcho[] = [];
  for (let s = start, i = index; i > 0 && before.length < 3; i--) {
    s = text.lastIndexOf('\n', s - 2) + 1;
    before.unshift(echo(lineAt(s), i));
  }
  const own = lineAt(start);
  const after: LineEcho[] = [];
  for (let s = start + own.length + 1, i = index + 2; s <= text.length && after.length < 3; i++) {
    const t = lineAt(s);
    after.push(echo(t, i));
    s += t.length + 1;
  }
  const closest = echo(own, index + 1);
  return { closest, context: [...before, closest, ...after], preview: own.replace(/\r$/, '').slice(0, 200) };
}

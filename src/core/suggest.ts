/**
 * "Did you mean" helpers: edit distance over short strings, always bounded. A suggestion is a
 * courtesy: it must never cost more than the call it decorates (a missing 255-character name
 * among 500 siblings of 250 characters used to cost 0.36 s of CPU).
 */

/** Names longer than this are never compared (nor suggested). */
export const MAX_SUGGEST_LENGTH = 64;
/** At most this many candidates get a distance computed per lookup. */
export const MAX_SUGGEST_COMPARISONS = 100;
/** At most this many candidates are looked at per lookup (length checks included). */
const MAX_SUGGEST_CANDIDATES = 2_000;

/** Plain Levenshtein distance. O(|a|·|b|): callers bound the lengths (see boundedDistance). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

/** Counts the DP cells boundedDistance computed, for callers that hold a budget. */
export interface CellMeter {
  cells: number;
}

let rowA = new Int32Array(512);
let rowB = new Int32Array(512);

/**
 * Levenshtein distance when it is ≤ max, else max + 1 (Ukkonen's band: only cells within max
 * of the diagonal, and a stop as soon as a whole row exceeds max). O(min(|a|, |b|)·(2·max+1)).
 */
export function boundedDistance(a: string, b: string, max: number, meter?: CellMeter): number {
  if (a === b) return 0;
  const over = max + 1;
  if (max < 0) return over;
  if (Math.abs(a.length - b.length) > max) return over;
  if (a.length > b.length) [a, b] = [b, a];
  const la = a.length;
  const lb = b.length;
  // Two rows reused across calls: the closest-line search makes thousands of calls.
  if (rowA.length <= lb) [rowA, rowB] = [new Int32Array(lb + 1), new Int32Array(lb + 1)];
  let prev = rowA;
  let cur = rowB;
  for (let j = 0; j <= lb; j++) prev[j] = j <= max ? j : over;
  for (let i = 1; i <= la; i++) {
    const lo = Math.max(1, i - max);
    const hi = Math.min(lb, i + max);
    cur[lo - 1] = lo === 1 && i <= max ? i : over;
    let rowMin = cur[lo - 1]!;
    const ca = a.charCodeAt(i - 1);
    for (let j = lo; j <= hi; j++) {
      let v = prev[j - 1]! + (ca === b.charCodeAt(j - 1) ? 0 : 1);
      const del = prev[j]! + 1;
      if (del < v) v = del;
      const ins = cur[j - 1]! + 1;
      if (ins < v) v = ins;
      if (v > over) v = over;
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (hi < lb) cur[hi + 1] = over;
    if (meter) meter.cells += hi - lo + 1;
    if (rowMin > max) return over;
    [prev, cur] = [cur, prev];
  }
  return prev[lb]! <= max ? prev[lb]! : over;
}

/**
 * Candidates closest to `word`, best first, within a distance that scales with length (a third
 * of the longer name, at least 2); a candidate containing the word, or contained in it, counts
 * as distance 1. Bounded: names over MAX_SUGGEST_LENGTH are skipped, only candidates whose
 * length could be within the limit get a (banded) distance, at most MAX_SUGGEST_COMPARISONS of them.
 */
export function closest(word: string, candidates: Iterable<string>, max = 3): string[] {
  if (word.length > MAX_SUGGEST_LENGTH) return [];
  const w = word.toLowerCase();
  const scored: Array<{ c: string; d: number }> = [];
  let looked = 0;
  let compared = 0;
  for (const c of candidates) {
    if (++looked > MAX_SUGGEST_CANDIDATES) break;
    if (c.length > MAX_SUGGEST_LENGTH) continue;
    const lc = c.toLowerCase();
    const limit = Math.max(2, Math.floor(Math.max(w.length, lc.length) / 3));
    let d: number;
    if (lc === w) d = 0;
    else if (lc.includes(w) || w.includes(lc)) d = 1;
    else if (Math.abs(lc.length - w.length) > limit || compared >= MAX_SUGGEST_COMPARISONS) continue;
    else {
      compared++;
      d = boundedDistance(w, lc, limit);
    }
    if (d <= limit) scored.push({ c, d });
  }
  scored.sort((x, y) => x.d - y.d || x.c.localeCompare(y.c));
  return scored.slice(0, max).map((s) => s.c);
}

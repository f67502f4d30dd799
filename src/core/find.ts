/**
 * Literal substring search whose cost stays linear in the text whatever the needle.
 *
 * V8's String.prototype.indexOf is fast on ordinary text but not linear: it keeps Boyer-Moore
 * tables for the last 250 characters of a pattern only, so 'a'.repeat(10 MiB).indexOf(
 * 'a'.repeat(2500) + 'b' + 'a'.repeat(2500)) took 13.9 s on the test VM, and enumerating the
 * overlapping occurrences of a periodic needle costs a full comparison per occurrence. So the
 * scan runs indexOf on windows of the text with a needle of at most 250 characters (each
 * window's call then costs ≤ ~15 ns per character, measured worst case), charges every call
 * and verification to a budget of twice the text, and when the budget runs out continues with
 * Knuth-Morris-Pratt, which never looks at a character of the text twice.
 */
import type { Work } from './work.js';

/**
 * Work (characters compared) between two checkpoints. 256 Ki: the slowest window (indexOf of
 * 'aaaaab' in 'aaaa…', every position a partial match) takes ~4 ms on the test VM, ~10 ms
 * while the VM is loaded.
 */
export const WINDOW = 1 << 18;
/** Longest needle handed to indexOf (V8's Boyer-Moore tables cover 250 characters). */
const NATIVE_MAX = 250;
/** Work units charged per indexOf call and per match, beyond the characters compared. */
const CALL_COST = 16;

/** Called with the start offset of each occurrence; return true to stop the scan. */
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- visitors that never stop return nothing
export type Visit = (at: number) => boolean | void;

/**
 * Visits the start of every occurrence of `needle` in `text`, overlapping ones included, in
 * increasing order. Yields after each window of the text.
 */
export function* scan(text: string, needle: string, visit: Visit): Work<void> {
  const n = text.length;
  const m = needle.length;
  if (m === 0 || m > n) return;
  const last = n - m; // the last offset where an occurrence can start
  const prefix = m > NATIVE_MAX ? needle.slice(0, NATIVE_MAX) : needle;
  const pm = prefix.length;
  let budget = 2 * n + 65_536;
  let from = 0;
  while (from <= last) {
    const end = Math.min(last + 1, from + WINDOW); // this window holds the starts in [from, end)
    const base = from;
    const hay = text.slice(base, end + pm - 1);
    budget -= hay.length;
    let since = hay.length;
    for (let p = hay.indexOf(prefix); p !== -1; p = hay.indexOf(prefix, p + 1)) {
      const at = base + p;
      const cost = pm + CALL_COST + (pm < m ? m : 0);
      budget -= cost;
      since += cost;
      if ((pm === m || text.startsWith(needle, at)) && visit(at) === true) return;
      if (budget < 0) {
        // Dense or periodic matches: the rest goes to KMP, from the next possible start.
        yield* kmp(text, needle, at + 1, visit);
        return;
      }
      if (since >= WINDOW) {
        yield;
        since = 0;
      }
    }
    from = end;
    yield;
  }
}

/** The first occurrence at or after `from`, or -1 (linear, like scan). */
export function* find(text: string, needle: string, from = 0): Work<number> {
  if (needle.length === 0) return Math.min(from, text.length);
  let found = -1;
  const offset = Math.max(0, from);
  yield* scan(offset === 0 ? text : text.slice(offset), needle, (at) => {
    found = at + offset;
    return true;
  });
  return found;
}

/** KMP failure function: fail[i] is the length of the longest proper border of needle[0..i]. */
function* failureTable(needle: string): Work<Int32Array> {
  const m = needle.length;
  const fail = new Int32Array(m);
  let k = 0;
  for (let i = 1; i < m; i++) {
    const c = needle.charCodeAt(i);
    while (k > 0 && needle.charCodeAt(k) !== c) k = fail[k - 1]!;
    if (needle.charCodeAt(k) === c) k++;
    fail[i] = k;
    if ((i & (WINDOW - 1)) === 0) yield;
  }
  return fail;
}

function* kmp(text: string, needle: string, from: number, visit: Visit): Work<void> {
  const n = text.length;
  const m = needle.length;
  const fail = yield* failureTable(needle);
  let k = 0;
  for (let i = from; i < n;) {
    const end = Math.min(n, i + WINDOW);
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      while (k > 0 && needle.charCodeAt(k) !== c) k = fail[k - 1]!;
      if (needle.charCodeAt(k) === c && ++k === m) {
        if (visit(i - m + 1) === true) return;
        k = fail[m - 1]!;
      }
    }
    yield;
  }
}

/** Number of '\n' in text[from, to). A char loop: indexOf per line costs ~30 ns a call when lines are short. */
export function countNewlines(text: string, from = 0, to = text.length): number {
  let n = 0;
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

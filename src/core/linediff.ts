/**
 * Line diffs of the changed middle of two texts (core/diff.ts trims the common ends), as runs
 * of equal / removed / added lines given by character ranges, with bounded work:
 *
 * - exact: Myers' O(ND) greedy algorithm exactly as jsdiff runs it (same tie-breaks, so the same
 *   hunks as before for every diff it finishes), over interned line ids, stopped after
 *   MYERS_BUDGET steps. jsdiff itself needed 30 s for two versions of 10,000 different lines.
 * - approximate, when the middle is too large or Myers runs out of budget: a walk that skips
 *   equal lines with native string comparison and, at each difference, looks for the nearest
 *   pair of equal lines ahead on both sides (16 lines pair by pair, then 1,024 through a map).
 *   It is a correct diff, not always a minimal one, linear in the texts (a work budget of their
 *   size; past it the rest is one removal and one addition).
 */
import { countNewlines, WINDOW } from './find.js';
import type { Work } from './work.js';

export const EQUAL = 0;
export const REMOVED = 1;
export const ADDED = 2;

/** Runs of lines: kind, character range [start, end) in the old text (equal, removed) or new text (added), line count. */
export class Runs {
  kind = new Uint8Array(16);
  start = new Int32Array(16);
  end = new Int32Array(16);
  lines = new Int32Array(16);
  length = 0;
  push(kind: number, start: number, end: number, lines: number): void {
    if (lines === 0) return;
    const n = this.length;
    if (n && this.kind[n - 1] === kind && this.end[n - 1] === start) {
      this.end[n - 1] = end;
      this.lines[n - 1]! += lines;
      return;
    }
    if (n === this.kind.length) this.grow();
    this.kind[n] = kind;
    this.start[n] = start;
    this.end[n] = end;
    this.lines[n] = lines;
    this.length++;
  }
  private grow(): void {
    const g = <T extends Uint8Array | Int32Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(a.length * 2);
      b.set(a);
      return b;
    };
    [this.kind, this.start, this.end, this.lines] = [g(this.kind), g(this.start), g(this.end), g(this.lines)];
  }
}

/** Lines in text[start, end): the '\n's, plus a last line without one (only at the end of a text). */
export function* linesIn(text: string, start: number, end: number): Work<number> {
  let n = 0;
  for (let from = start; from < end;) {
    const to = Math.min(end, from + WINDOW);
    n += countNewlines(text, from, to);
    from = to;
    if (from < end) yield;
  }
  return end > start && text.charCodeAt(end - 1) !== 10 ? n + 1 : n;
}

/** The middle of one side: its line ids and where each line starts (lineStart[count] = end). */
interface Side {
  ids: Int32Array;
  lineStart: Int32Array;
}

function* splitSide(text: string, start: number, end: number, count: number, intern: Map<string, number>): Work<Side> {
  const ids = new Int32Array(count);
  const lineStart = new Int32Array(count + 1);
  let pos = start;
  for (let i = 0; i < count; i++) {
    const nl = text.indexOf('\n', pos);
    const next = nl === -1 || nl >= end ? end : nl + 1;
    const line = text.slice(pos, next);
    let id = intern.get(line);
    if (id === undefined) intern.set(line, (id = intern.size));
    ids[i] = id;
    lineStart[i] = pos;
    pos = next;
    if ((i & 4095) === 4095) yield;
  }
  lineStart[count] = end;
  return { ids, lineStart };
}

/**
 * Diagonal steps plus snake steps one exact diff may take: an edit distance up to ~1,400 lines
 * when nothing is common, more when runs of equal lines separate the changes. 1 M steps took
 * ~55 ms on the test VM while it was loaded (a few other test runs at once).
 */
export const MYERS_BUDGET = 1_000_000;
/** Myers steps between checkpoints (~50 ns a step while the VM is loaded: ~3 ms). */
const YIELD_STEPS = 1 << 16;

/** Nodes of Myers' search, one per diagonal step: where it came from, its move, the snake after it. */
class Nodes {
  parent = new Int32Array(4096);
  move = new Uint8Array(4096);
  snake = new Int32Array(4096);
  length = 0;
  add(parent: number, move: number, snake: number): number {
    const n = this.length;
    if (n === this.parent.length) this.grow();
    this.parent[n] = parent;
    this.move[n] = move;
    this.snake[n] = snake;
    this.length = n + 1;
    return n;
  }
  private grow(): void {
    const size = this.parent.length * 2;
    const parent = new Int32Array(size);
    parent.set(this.parent);
    this.parent = parent;
    const move = new Uint8Array(size);
    move.set(this.move);
    this.move = move;
    const snake = new Int32Array(size);
    snake.set(this.snake);
    this.snake = snake;
  }
}

/** Index of the last equal pair on the diagonal from (oldPos, oldPos - d) (jsdiff's extractCommon). */
function snakeEnd(a: Int32Array, b: Int32Array, oldPos: number, d: number): number {
  let newPos = oldPos - d;
  while (newPos + 1 < b.length && oldPos + 1 < a.length && a[oldPos + 1] === b[newPos + 1]) {
    oldPos++;
    newPos++;
  }
  return oldPos;
}

/**
 * jsdiff's answer when it is known without searching: past the equal lines at both ends (the
 * context core/diff.ts keeps), no line of one side occurs anywhere in the other, so every path
 * of the edit graph is a removal of one side and an addition of the other, and jsdiff takes
 * the removals first. Two versions of 10,000 different lines are answered at once.
 */
function disjoint(a: Int32Array, b: Int32Array, ids: number): Array<[number, number]> | null {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const inA = new Uint8Array(ids);
  const inB = new Uint8Array(ids);
  for (let i = 0; i < a.length; i++) inA[a[i]!] = 1;
  for (let j = 0; j < b.length; j++) inB[b[j]!] = 1;
  for (let i = pre; i < a.length - suf; i++) if (inB[a[i]!]) return null;
  for (let j = pre; j < b.length - suf; j++) if (inA[b[j]!]) return null;
  const out: Array<[number, number]> = [];
  for (const [kind, count] of [
    [EQUAL, pre],
    [REMOVED, a.length - pre - suf],
    [ADDED, b.length - pre - suf],
    [EQUAL, suf],
  ] as const) {
    if (count > 0) out.push([kind, count]);
  }
  return out;
}

/**
 * jsdiff's diffWithOptionsObj (diff 8.0.4, base.js) on int arrays: the same frontier, the same
 * choice between an insertion and a removal, the same pruning of diagonals that reached an
 * edge. Each step records a node so the path can be read back. Returns the components (kind,
 * count) in order, or null past the budget.
 */
function* myers(a: Int32Array, b: Int32Array, budget: number): Work<Array<[number, number]> | null> {
  const oldLen = a.length;
  const newLen = b.length;
  const offset = newLen + 1; // diagonal d = oldPos - newPos lies in [-newLen - 1, oldLen + 1]
  const bestOld = new Int32Array(oldLen + newLen + 3).fill(-2); // -2: no path on this diagonal
  const bestNode = new Int32Array(oldLen + newLen + 3);
  const nodes = new Nodes();
  let oldPos = snakeEnd(a, b, -1, 0);
  budget -= oldPos + 1;
  bestOld[offset] = oldPos;
  bestNode[offset] = nodes.add(-1, EQUAL, oldPos + 1);
  let last = oldPos + 1 >= oldLen && oldPos + 1 >= newLen ? 0 : -1;
  // Small integers, not ±Infinity: the diagonals then stay int32 in the optimised loop.
  let minDiagonal = -(newLen + 2);
  let maxDiagonal = oldLen + 2;
  let atYield = budget;
  for (let editLength = 1; last < 0; editLength++) {
    // The bound is read on every turn, as jsdiff does: reaching the old text's end lowers it.
    for (let d = Math.max(minDiagonal, -editLength); d <= Math.min(maxDiagonal, editLength); d += 2) {
      const removeOld = bestOld[d - 1 + offset]!;
      const addOld = bestOld[d + 1 + offset]!;
      if (removeOld !== -2) bestOld[d - 1 + offset] = -2;
      const addNewPos = addOld - d;
      const canAdd = addOld !== -2 && addNewPos >= 0 && addNewPos < newLen;
      const canRemove = removeOld !== -2 && removeOld + 1 < oldLen;
      if (!canAdd && !canRemove) {
        bestOld[d + offset] = -2;
        continue;
      }
      const add = !canRemove || (canAdd && removeOld < addOld);
      const from = add ? addOld : removeOld + 1;
      oldPos = snakeEnd(a, b, from, d);
      budget -= oldPos - from + 1;
      const n = nodes.add(bestNode[(add ? d + 1 : d - 1) + offset]!, add ? ADDED : REMOVED, oldPos - from);
      const newPos = oldPos - d;
      if (oldPos + 1 >= oldLen && newPos + 1 >= newLen) {
        last = n;
        break;
      }
      bestOld[d + offset] = oldPos;
      bestNode[d + offset] = n;
      if (oldPos + 1 >= oldLen) maxDiagonal = Math.min(maxDiagonal, d - 1);
      if (newPos + 1 >= newLen) minDiagonal = Math.max(minDiagonal, d + 1);
    }
    if (last >= 0) break;
    if (budget < 0) return null;
    if (atYield - budget >= YIELD_STEPS) {
      atYield = budget;
      yield;
    }
  }
  // Read the path back (root first) into components, merging adjacent moves of one kind as jsdiff does.
  const path: number[] = [];
  for (let n = last; n !== -1; n = nodes.parent[n]!) path.push(n);
  const out: Array<[number, number]> = [];
  const emit = (kind: number, count: number) => {
    if (count === 0) return;
    const top = out[out.length - 1];
    if (top && top[0] === kind && kind !== EQUAL) top[1] += count;
    else out.push([kind, count]);
  };
  for (let i = path.length - 1; i >= 0; i--) {
    const n = path[i]!;
    if (nodes.move[n] !== EQUAL) emit(nodes.move[n]!, 1);
    emit(EQUAL, nodes.snake[n]!);
  }
  return out;
}

/** The exact diff of old[aStart, aEnd) and new[bStart, bEnd) into `runs`, or false past the budget. */
export function* exactRuns(
  a: string,
  aStart: number,
  aEnd: number,
  aLines: number,
  b: string,
  bStart: number,
  bEnd: number,
  bLines: number,
  runs: Runs,
): Work<boolean> {
  const intern = new Map<string, number>();
  const A = yield* splitSide(a, aStart, aEnd, aLines, intern);
  const B = yield* splitSide(b, bStart, bEnd, bLines, intern);
  const comps = disjoint(A.ids, B.ids, intern.size) ?? (yield* myers(A.ids, B.ids, MYERS_BUDGET));
  if (!comps) return false;
  let i = 0;
  let j = 0;
  for (const [kind, count] of comps) {
    if (kind === ADDED) {
      runs.push(ADDED, B.lineStart[j]!, B.lineStart[j + count]!, count);
      j += count;
    } else {
      runs.push(kind, A.lineStart[i]!, A.lineStart[i + count]!, count);
      i += count;
      if (kind === EQUAL) j += count;
    }
  }
  return true;
}

/** Length of the common prefix of a[ia, ia+limit) and b[ib, ib+limit), compared natively in growing chunks. */
export function commonPrefix(a: string, ia: number, b: string, ib: number, limit: number): number {
  let n = 0;
  let step = 64;
  while (n < limit) {
    const len = Math.min(step, limit - n);
    if (a.slice(ia + n, ia + n + len) === b.slice(ib + n, ib + n + len)) {
      n += len;
      step = Math.min(step * 2, WINDOW);
      continue;
    }
    for (let k = 0; k < len; k++) if (a.charCodeAt(ia + n + k) !== b.charCodeAt(ib + n + k)) return n + k;
  }
  return n;
}

/** The lines of text[from, end), at most `max`: their texts and end offsets. */
function nextLines(text: string, from: number, end: number, max: number): { lines: string[]; ends: number[] } {
  const lines: string[] = [];
  const ends: number[] = [];
  for (let pos = from; pos < end && lines.length < max;) {
    const nl = text.indexOf('\n', pos);
    const next = nl === -1 || nl >= end ? end : nl + 1;
    lines.push(text.slice(pos, next));
    ends.push(next);
    pos = next;
  }
  return { lines, ends };
}

/** Lines of each side searched first for a pair of equal lines (all pairs compared: 16² = 256). */
const NEAR_LINES = 16;
/** Lines of each side searched next, through a map of one side (a block of up to 1,024 inserted or removed lines). */
const FAR_LINES = 1_024;

interface Resync {
  /** Lines skipped on each side before the next equal pair (all of the window when none was found), and where they end. */
  x: number;
  y: number;
  i: number;
  j: number;
  /** Work done: characters read plus line comparisons. */
  spent: number;
}

/**
 * The nearest pair of equal lines after a difference at old offset i and new offset j (fewest
 * lines skipped on both sides together): first among NEAR_LINES of each side, pair by pair,
 * then among FAR_LINES through a map of the new side's lines. The first lines differ (the
 * common part before would have taken them).
 */
function resync(a: string, i: number, aEnd: number, b: string, j: number, bEnd: number): Resync {
  const near = (A: { lines: string[]; ends: number[] }, B: { lines: string[]; ends: number[] }): [number, number] | null => {
    for (let s = 1; s < A.lines.length + B.lines.length - 1; s++) {
      for (let x = Math.max(0, s - B.lines.length + 1); x <= Math.min(s, A.lines.length - 1); x++) {
        if (A.lines[x] === B.lines[s - x]) return [x, s - x];
      }
    }
    return null;
  };
  let A = nextLines(a, i, aEnd, NEAR_LINES);
  let B = nextLines(b, j, bEnd, NEAR_LINES);
  let spent = A.ends[A.ends.length - 1]! - i + B.ends[B.ends.length - 1]! - j + A.lines.length * B.lines.length;
  let pair = near(A, B);
  if (!pair && (A.lines.length === NEAR_LINES || B.lines.length === NEAR_LINES)) {
    A = nextLines(a, i, aEnd, FAR_LINES);
    B = nextLines(b, j, bEnd, FAR_LINES);
    spent += A.ends[A.ends.length - 1]! - i + B.ends[B.ends.length - 1]! - j + 16 * (A.lines.length + B.lines.length);
    const first = new Map<string, number>();
    B.lines.forEach((line, y) => {
      if (!first.has(line)) first.set(line, y);
    });
    let best = Infinity;
    for (let x = 0; x < A.lines.length && x < best; x++) {
      const y = first.get(A.lines[x]!);
      if (y !== undefined && x + y < best && x + y > 0) {
        best = x + y;
        pair = [x, y];
      }
    }
  }
  const [x, y] = pair ?? [A.lines.length, B.lines.length];
  return { x, y, i: x ? A.ends[x - 1]! : i, j: y ? B.ends[y - 1]! : j, spent };
}

/**
 * A correct line diff of old[aStart, aEnd) and new[bStart, bEnd) into `runs`, not always
 * minimal. Work is charged to a budget of the characters plus a constant (every character
 * compared or read into a line, every pair of lines compared); past it the rest is one removal
 * and one addition. ~10 ns a unit on the test VM: ≤ ~250 ms of CPU for two texts of 10 MiB,
 * in slices.
 */
export function* approximateRuns(a: string, aStart: number, aEnd: number, b: string, bStart: number, bEnd: number, runs: Runs): Work<void> {
  let budget = aEnd - aStart + bEnd - bStart + 1_000_000;
  let i = aStart;
  let j = bStart;
  // Lines removed and added since the last equal run, reported as one block each.
  let [removedFrom, removedLines, addedFrom, addedLines] = [i, 0, j, 0];
  const flush = () => {
    runs.push(REMOVED, removedFrom, i, removedLines);
    runs.push(ADDED, addedFrom, j, addedLines);
  };
  let since = 0;
  while (i < aEnd && j < bEnd) {
    const c = commonPrefix(a, i, b, j, Math.min(aEnd - i, bEnd - j));
    budget -= c;
    since += c;
    // Whole lines only: up to the last '\n' of the common part (i is a line start, so the search
    // stops at i - 1 at the latest), or all of it when both sides end there.
    const nl = c > 0 ? a.lastIndexOf('\n', i + c - 1) : -1;
    const same = i + c === aEnd && j + c === bEnd ? c : nl >= i ? nl + 1 - i : 0;
    if (same > 0) {
      flush();
      runs.push(EQUAL, i, i + same, yield* linesIn(a, i, i + same));
      i += same;
      j += same;
      [removedFrom, removedLines, addedFrom, addedLines] = [i, 0, j, 0];
      if (i >= aEnd || j >= bEnd) break;
    }
    if (budget < 0) break;
    const r = resync(a, i, aEnd, b, j, bEnd);
    [i, j] = [r.i, r.j];
    removedLines += r.x;
    addedLines += r.y;
    budget -= r.spent;
    since += r.spent;
    if (since >= WINDOW) {
      since = 0;
      yield;
    }
  }
  removedLines += yield* linesIn(a, i, aEnd);
  addedLines += yield* linesIn(b, j, bEnd);
  [i, j] = [aEnd, bEnd];
  flush();
}

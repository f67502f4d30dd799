/**
 * Unified diffs (3 lines of context) between two texts, capped with a note when long.
 *
 * Bounded work for any pair of texts up to MAX_FILE_BYTES: the common head and tail are cut
 * off by native comparison of growing chunks (never split into lines), the changed middle gets
 * an exact diff (jsdiff's algorithm, so the same hunks as before) when it is small enough and
 * the exact diff finishes within its budget, and a correct but possibly non-minimal diff
 * otherwise, said so in the text and in stats.approximate (core/linediff.ts). Only the lines
 * shown are rendered; the rest are counted. Runs as resumable Work (core/work.ts).
 */
import { ADDED, approximateRuns, commonPrefix, EQUAL, exactRuns, linesIn, Runs } from './linediff.js';
import { runSliced, runSync, type Work } from './work.js';

export interface DiffStats {
  hunks: number;
  added: number;
  removed: number;
  /** Present when the diff is correct but may not be minimal (the files differ too much). */
  approximate?: true;
}

export interface DiffResult {
  diff: string;
  truncated: boolean;
  stats: DiffStats;
}

export interface DiffLabels {
  path: string;
  oldLabel: string;
  newLabel: string;
}

export const MAX_DIFF_LINES = 400;
/** Characters of diff body shown at most: a 10 MiB line would otherwise be echoed whole. */
export const MAX_DIFF_CHARS = 1 << 20;
const CONTEXT = 3;
/**
 * Changed middles up to 50,000 lines (both sides) and 8 MiB get an exact diff: splitting and
 * interning that many lines takes ~35 ms on the test VM (10,000: 7 ms), then Myers runs up to
 * MYERS_BUDGET steps.
 */
const EXACT_MAX_LINES = 50_000;
const EXACT_MAX_CHARS = 8 << 20;

/**
 * A git-style unified diff. `null` on a side renders as /dev/null (a missing or deleted
 * version). Lines keep their own endings, so CRLF shows as it is stored.
 */
export function unifiedDiff(oldText: string | null, newText: string | null, labels: DiffLabels, maxLines = MAX_DIFF_LINES): DiffResult {
  return runSync(diffWork(oldText, newText, labels, maxLines));
}

/** unifiedDiff, giving the event loop back between slices of work. */
export function unifiedDiffSliced(
  oldText: string | null,
  newText: string | null,
  labels: DiffLabels,
  maxLines = MAX_DIFF_LINES,
): Promise<DiffResult> {
  return runSliced(diffWork(oldText, newText, labels, maxLines));
}

/** The work behind unifiedDiff and unifiedDiffSliced (resumable: core/work.ts). */
export function* diffWork(oldText: string | null, newText: string | null, labels: DiffLabels, maxLines: number): Work<DiffResult> {
  const a = oldText ?? '';
  const b = newText ?? '';
  if (a === b) return { diff: '', truncated: false, stats: { hunks: 0, added: 0, removed: 0 } };
  const rel = labels.path.replace(/^\//, '');
  const header = [
    oldText === null ? '--- /dev/null' : `--- a/${rel}\t(${labels.oldLabel})`,
    newText === null ? '+++ /dev/null' : `+++ b/${rel}\t(${labels.newLabel})`,
  ];
  const mid = yield* middle(a, b);
  const aLines = yield* linesIn(a, mid.start, mid.aEnd);
  const bLines = yield* linesIn(b, mid.start, mid.bEnd);
  const small = aLines + bLines <= EXACT_MAX_LINES && mid.aEnd + mid.bEnd - 2 * mid.start <= EXACT_MAX_CHARS;
  let runs = new Runs();
  let approximate = false;
  if (!small || !(yield* exactRuns(a, mid.start, mid.aEnd, aLines, b, mid.start, mid.bEnd, bLines, runs))) {
    runs = new Runs();
    yield* approximateRuns(a, mid.start, mid.aEnd, b, mid.start, mid.bEnd, runs);
    approximate = true;
  }
  return yield* render(a, b, runs, mid.line, header, maxLines, approximate);
}

interface Middle {
  /** Where the compared middle starts (same offset in both texts: everything before is common). */
  start: number;
  aEnd: number;
  bEnd: number;
  /** Lines before `start`. */
  line: number;
}

/** Length of the common suffix of a and b, at most `limit`. */
function commonSuffix(a: string, b: string, limit: number): number {
  let n = 0;
  let step = 64;
  while (n < limit) {
    const len = Math.min(step, limit - n);
    if (a.slice(a.length - n - len, a.length - n) === b.slice(b.length - n - len, b.length - n)) {
      n += len;
      step = Math.min(step * 2, 1 << 20);
      continue;
    }
    for (let k = 1; k <= len; k++) if (a.charCodeAt(a.length - n - k) !== b.charCodeAt(b.length - n - k)) return n + k - 1;
  }
  return n;
}

/**
 * The lines that differ, with CONTEXT common lines each side. Whole lines common to both
 * starts and both ends are cut off (as jsdiff would find them: trimming a common prefix and
 * suffix never changes a longest common subsequence), the tail never overlapping the head.
 */
function* middle(a: string, b: string): Work<Middle> {
  const [la, lb] = [a.length, b.length];
  const p = commonPrefix(a, 0, b, 0, Math.min(la, lb));
  const head = p > 0 ? a.lastIndexOf('\n', p - 1) + 1 : 0; // the first line that differs starts here
  const s = commonSuffix(a, b, Math.min(la, lb) - head);
  // The first offset of the common tail that starts a line in both texts.
  let tail = la - s;
  const bTail = lb - s;
  if (!((tail === 0 || a.charCodeAt(tail - 1) === 10) && (bTail === 0 || b.charCodeAt(bTail - 1) === 10))) {
    const nl = a.indexOf('\n', tail);
    tail = nl === -1 ? la : nl + 1;
  }
  const headLines = yield* linesIn(a, 0, head);
  const tailLines = yield* linesIn(a, tail, la);
  let start = head;
  for (let k = 0; k < Math.min(CONTEXT, headLines); k++) start = start >= 2 ? a.lastIndexOf('\n', start - 2) + 1 : 0;
  let aEnd = tail;
  for (let k = 0; k < Math.min(CONTEXT, tailLines); k++) {
    const nl = a.indexOf('\n', aEnd);
    aEnd = nl === -1 ? la : nl + 1;
  }
  return { start, aEnd, bEnd: aEnd - la + lb, line: headLines - Math.min(CONTEXT, headLines) };
}

interface Segment {
  prefix: string;
  text: string;
  start: number;
  end: number;
  lines: number;
}

/** The rows of the diff body: rendered up to maxLines and MAX_DIFF_CHARS, counted beyond. */
class Body {
  rows: string[] = [];
  total = 0;
  chars = 0;
  full = false;
  cut = false;
  constructor(private readonly maxLines: number) {}

  push(row: string): void {
    this.total++;
    if (this.full) return;
    if (this.rows.length >= this.maxLines) {
      this.full = true;
    } else if (this.chars + row.length + 1 > MAX_DIFF_CHARS) {
      this.full = true;
      this.rows.push(row.slice(0, Math.max(0, MAX_DIFF_CHARS - this.chars)) + ' …');
      this.cut = true;
    } else {
      this.rows.push(row);
      this.chars += row.length + 1;
    }
  }

  /** One row per line ("\ No newline at end of file" after a last line without one). */
  *segment(seg: Segment): Work<void> {
    let pos = seg.start;
    for (let k = 0; k < seg.lines; k++) {
      if (this.full) {
        const marker = seg.end === seg.text.length && seg.text.charCodeAt(seg.end - 1) !== 10 ? 1 : 0;
        this.total += seg.lines - k + marker;
        return;
      }
      const nl = seg.text.indexOf('\n', pos);
      const hasNl = nl !== -1 && nl < seg.end;
      const lineEnd = hasNl ? nl : seg.end;
      // Never build a row longer than could be shown.
      this.push(seg.prefix + seg.text.slice(pos, Math.min(lineEnd, pos + MAX_DIFF_CHARS + 1)));
      if (!hasNl) this.push('\\ No newline at end of file');
      pos = hasNl ? nl + 1 : seg.end;
      if ((k & 1023) === 1023) yield;
    }
  }
}

/** Offset where the last n lines of text[start, end) begin. */
function lastLines(text: string, start: number, end: number, n: number): number {
  let pos = end;
  for (let k = 0; k < n && pos > start; k++) pos = pos >= 2 ? Math.max(start, text.lastIndexOf('\n', pos - 2) + 1) : start;
  return pos;
}

/** Offset after the first n lines of text[start, end). */
function firstLines(text: string, start: number, end: number, n: number): number {
  let pos = start;
  for (let k = 0; k < n && pos < end; k++) {
    const nl = text.indexOf('\n', pos);
    pos = nl === -1 || nl >= end ? end : nl + 1;
  }
  return pos;
}

/**
 * Hunks from runs, exactly as jsdiff's structuredPatch builds them from its components: a
 * hunk opens with up to CONTEXT lines of the equal run before it, equal runs of at most
 * 2·CONTEXT lines between changes stay inside it (except the last run), others close it
 * after CONTEXT lines.
 */
function* render(a: string, b: string, runs: Runs, firstLine: number, header: string[], maxLines: number, approximate: boolean): Work<DiffResult> {
  const body = new Body(maxLines);
  let [added, removed, hunks] = [0, 0, 0];
  let open = false;
  let [oldStart, newStart, oldLine, newLine] = [0, 0, firstLine + 1, firstLine + 1];
  let segs: Segment[] = [];
  const n = runs.length;
  for (let r = 0; r <= n; r++) {
    const kind = r < n ? runs.kind[r]! : EQUAL; // r === n: an empty equal run closes the last hunk
    const lines = r < n ? runs.lines[r]! : 0;
    const [start, end] = r < n ? [runs.start[r]!, runs.end[r]!] : [0, 0];
    if (kind !== EQUAL) {
      if (!open) {
        open = true;
        [oldStart, newStart, segs] = [oldLine, newLine, []];
        const ctx = r > 0 ? Math.min(CONTEXT, runs.lines[r - 1]!) : 0;
        if (ctx > 0) {
          segs.push({ prefix: ' ', text: a, start: lastLines(a, runs.start[r - 1]!, runs.end[r - 1]!, ctx), end: runs.end[r - 1]!, lines: ctx });
          oldStart -= ctx;
          newStart -= ctx;
        }
      }
      segs.push({ prefix: kind === ADDED ? '+' : '-', text: kind === ADDED ? b : a, start, end, lines });
      if (kind === ADDED) [newLine, added] = [newLine + lines, added + lines];
      else [oldLine, removed] = [oldLine + lines, removed + lines];
      continue;
    }
    if (open) {
      if (lines <= 2 * CONTEXT && r < n - 1) {
        segs.push({ prefix: ' ', text: a, start, end, lines });
      } else {
        const ctx = Math.min(lines, CONTEXT);
        if (ctx > 0) segs.push({ prefix: ' ', text: a, start, end: firstLines(a, start, end, ctx), lines: ctx });
        const [oldLines, newLines] = [oldLine - oldStart + ctx, newLine - newStart + ctx];
        body.push(
          `@@ -${oldLines === 0 ? oldStart - 1 : oldStart}${oldLines === 1 ? '' : `,${oldLines}`} ` +
            `+${newLines === 0 ? newStart - 1 : newStart}${newLines === 1 ? '' : `,${newLines}`} @@`,
        );
        for (const seg of segs) yield* body.segment(seg);
        hunks++;
        open = false;
      }
    }
    oldLine += lines;
    newLine += lines;
  }
  const stats: DiffStats = { hunks, added, removed, ...(approximate ? { approximate: true as const } : {}) };
  const rows = body.rows;
  const truncated = body.total > rows.length || body.cut;
  if (truncated) {
    rows.push(
      `... diff truncated: ${body.total - rows.length} more lines (${added} added, ${removed} removed in ${hunks} hunks). ` +
        (body.cut ? `The last line shown is cut at ${MAX_DIFF_CHARS} characters. ` : '') +
        'Use the diff tool or read the file for the rest.',
    );
  }
  if (approximate) {
    rows.push(
      `... the files differ too much for an exact diff (${removed} lines removed, ${added} added as shown): this diff is correct but not necessarily minimal.`,
    );
  }
  return { diff: [...header, ...rows].join('\n') + '\n', truncated, stats };
}

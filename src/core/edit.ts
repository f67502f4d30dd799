/**
 * The edit engine (docs/contract/files.md#the-edit-contract): literal, exact string replacement with
 * uniqueness checks, several edits applied in order all-or-nothing, and a diagnosis of why
 * an old_string did not match. Pure: text in, text out.
 *
 * Cost: every step is linear in the text (files up to MAX_FILE_BYTES, old_string up to the
 * body limit, 100 edits a call) and runs as resumable Work, so the tool gives the event loop
 * back between slices (core/work.ts). One scan per edit finds the occurrences (core/find.ts,
 * linear whatever the needle), counts them, checks them against the text earlier edits
 * inserted and notes the first lines; inserted regions are kept sorted and merged, and updated
 * with one sweep per edit.
 */
import { ToolError } from './errors.js';
import { scan, WINDOW } from './find.js';
import { closestLine, diagnose, lineNumbers } from './nomatch.js';
import { runSliced, runSync, type Work } from './work.js';

export interface EditSpec {
  old_string: string;
  new_string: string;
  replace_all?: boolean | undefined;
}

export interface EditOutcome {
  text: string;
  replacements: number;
}

export interface EditLimits {
  /**
   * Longest text (UTF-16 units) an edit may produce, after any edit of the call: a text longer
   * than the file size limit in units is longer in UTF-8 bytes too. Unbounded when absent.
   */
  maxLength?: number;
}

/** MULTIPLE_MATCHES lists the first 100 distinct lines (details.count stays exact). */
export const MAX_MATCH_LINES = 100;

/**
 * A growable list of int32 (offsets: a string has < 2^30 units) in blocks of 64 Ki, so that
 * 10 M offsets never need one 40 MB copy: the first block doubles up to that size, then
 * blocks are added.
 */
class IntList {
  private blocks: Int32Array[] = [new Int32Array(64)];
  length = 0;
  push(v: number): void {
    const b = this.length >>> 16;
    let block = this.blocks[b];
    if (!block) this.blocks.push((block = new Int32Array(1 << 16)));
    else if ((this.length & 0xffff) === block.length) {
      const bigger = new Int32Array(block.length * 2);
      bigger.set(block);
      this.blocks[b] = block = bigger;
    }
    block[this.length & 0xffff] = v;
    this.length++;
  }
  at(i: number): number {
    return this.blocks[i >>> 16]![i & 0xffff]!;
  }
  set(i: number, v: number): void {
    this.blocks[i >>> 16]![i & 0xffff] = v;
  }
}

/** Applies edits in order to `text`, at once. Throws ToolError as applyEditsSliced does. */
export function applyEdits(text: string, edits: EditSpec[], path: string, limits: EditLimits = {}): EditOutcome {
  return runSync(editWork(text, edits, path, limits));
}

/**
 * Applies edits in order to `text`, giving the event loop back between slices. Throws ToolError
 * NO_MATCH / MULTIPLE_MATCHES / NO_CHANGE / INVALID_INPUT / FILE_TOO_LARGE (with
 * details.editIndex when there are several edits).
 */
export function applyEditsSliced(text: string, edits: EditSpec[], path: string, limits: EditLimits = {}): Promise<EditOutcome> {
  return runSliced(editWork(text, edits, path, limits));
}

/** The work behind applyEdits and applyEditsSliced (resumable: core/work.ts). */
export function* editWork(text: string, edits: EditSpec[], path: string, limits: EditLimits): Work<EditOutcome> {
  const many = edits.length > 1;
  let current = text;
  let replacements = 0;
  // Regions of `current` produced by earlier edits' new_string: [start, end) pairs, sorted, disjoint, not adjacent.
  let inserted = new IntList();
  for (let index = 0; index < edits.length; index++) {
    const edit = edits[index]!;
    const where = many ? ` (edit ${index + 1} of ${edits.length})` : '';
    const indexDetail = many ? { editIndex: index } : {};
    const old = edit.old_string;
    if (old.length === 0) {
      throw new ToolError('INVALID_INPUT', `old_string is empty${where}. Give the exact text to replace; to create a file use write.`, {
        field: many ? `edits[${index}].old_string` : 'old_string',
        ...indexDetail,
      });
    }
    if (old === edit.new_string) {
      throw new ToolError(
        'NO_CHANGE',
        `old_string and new_string are identical${where}, so nothing would change. Give the replacement text in new_string.`,
        {
          path,
          ...indexDetail,
        },
      );
    }
    const found = yield* survey(current, old, inserted, edit.replace_all === true);
    if (found.count === 0) throw yield* noMatch(current, old, path, where, indexDetail, text);
    if (inserted.length && !found.free) {
      throw new ToolError(
        'INVALID_INPUT',
        `old_string${where} only matches text inserted by an earlier edit's new_string. Edits apply in order to the original text; merge these edits into one.`,
        { field: `edits[${index}].old_string`, ...indexDetail },
      );
    }
    if (found.count > 1 && !edit.replace_all) throw yield* multipleMatches(current, found, path, where, indexDetail);
    const offsets = found.offsets;
    const resultLength = current.length + offsets.length * (edit.new_string.length - old.length);
    if (limits.maxLength !== undefined && resultLength > limits.maxLength) {
      throw new ToolError(
        'FILE_TOO_LARGE',
        `The edit${where} would make ${path} ${resultLength} characters long; the limit is ${limits.maxLength} bytes per file. Replace fewer places or split the file.`,
        { path, size: resultLength, limit: limits.maxLength, ...indexDetail },
      );
    }
    // The last edit's inserted text is never looked at again.
    if (index < edits.length - 1) inserted = yield* shiftRegions(inserted, offsets, old.length, edit.new_string.length);
    current = yield* spliceAll(current, offsets, old.length, edit.new_string);
    replacements += offsets.length;
  }
  if (current === text) {
    throw new ToolError('NO_CHANGE', `The edits leave ${path} exactly as it was. Nothing to do.`, { path });
  }
  return { text: current, replacements };
}

interface Survey {
  /** Occurrences, overlapping ones included. */
  count: number;
  /** What the edit replaces: the first occurrence, or the non-overlapping ones left to right with replace_all. */
  offsets: IntList;
  /** Some occurrence lies entirely outside the text earlier edits inserted. */
  free: boolean;
  /** The first occurrence on each of the first MAX_MATCH_LINES + 1 lines that have one. */
  lineStarts: number[];
}

/** One scan: counts, picks what to replace, checks inserted regions, notes distinct lines. */
function* survey(text: string, needle: string, inserted: IntList, replaceAll: boolean): Work<Survey> {
  const m = needle.length;
  const out: Survey = { count: 0, offsets: new IntList(), free: inserted.length === 0, lineStarts: [] };
  let nextFree = 0; // replace_all: the first offset not covered by the last replaced occurrence
  let r = 0; // the first inserted region that ends after the current occurrence
  let lineEnd = -1; // the '\n' ending the line of the last noted occurrence (-1: none yet; Infinity: last line)
  yield* scan(text, needle, (at) => {
    out.count++;
    if (replaceAll ? at >= nextFree : out.count === 1) {
      out.offsets.push(at);
      nextFree = at + m;
    }
    if (!out.free) {
      while (r < inserted.length && inserted.at(r + 1) <= at) r += 2;
      if (r >= inserted.length || inserted.at(r) >= at + m) out.free = true;
    }
    if (!replaceAll && out.lineStarts.length <= MAX_MATCH_LINES && at > lineEnd) {
      out.lineStarts.push(at);
      const nl = text.indexOf('\n', at);
      lineEnd = nl === -1 ? Infinity : nl;
    }
  });
  return out;
}

function* multipleMatches(text: string, found: Survey, path: string, where: string, indexDetail: object): Work<ToolError> {
  const all = yield* lineNumbers(text, found.lineStarts);
  const lines = all.slice(0, MAX_MATCH_LINES);
  const more = all.length > MAX_MATCH_LINES;
  return new ToolError(
    'MULTIPLE_MATCHES',
    `old_string matches ${found.count} places${where} in ${path} (line${lines.length > 1 ? 's' : ''} ${lines.slice(0, 20).join(', ')}${lines.length > 20 ? ', …' : ''}). ` +
      'Add surrounding lines so it matches once, or set replace_all: true.',
    { path, count: found.count, lines, ...(more ? { linesTruncated: true } : {}), ...indexDetail },
  );
}

/**
 * The inserted regions after replacing `oldLen` units at each offset with `newLen` units: the
 * parts of old regions no occurrence replaced (shifted), merged with the new_string regions.
 * Two sweeps: every (region, occurrence) pair that overlaps is visited once, then two sorted
 * lists are merged.
 */
function* shiftRegions(regions: IntList, offsets: IntList, oldLen: number, newLen: number): Work<IntList> {
  const delta = newLen - oldLen;
  // The parts of old regions that survive, in the new coordinates: sorted and disjoint.
  const kept = new IntList();
  let t = 0; // the first occurrence that ends after the current region starts
  let since = 0;
  for (let i = 0; i < regions.length; i += 2) {
    const s = regions.at(i);
    const e = regions.at(i + 1);
    while (t < offsets.length && offsets.at(t) + oldLen <= s) t++;
    let ps = s;
    let u = t;
    for (; u < offsets.length && offsets.at(u) < e; u++) {
      if (offsets.at(u) > ps) {
        kept.push(ps + u * delta);
        kept.push(offsets.at(u) + u * delta);
      }
      ps = Math.max(ps, offsets.at(u) + oldLen);
    }
    if (ps < e) {
      kept.push(ps + u * delta);
      kept.push(e + u * delta);
    }
    since += 2 + u - t;
    if (since >= WINDOW) {
      since = 0;
      yield;
    }
  }
  // Merged with the new_string regions (offsets[k] + k * delta, newLen long); adjacent regions join.
  const out = new IntList();
  const add = (s: number, e: number) => {
    const n = out.length;
    if (n && out.at(n - 1) === s) out.set(n - 1, e);
    else {
      out.push(s);
      out.push(e);
    }
  };
  const news = newLen > 0 ? offsets.length : 0;
  for (let i = 0, k = 0; i < kept.length || k < news;) {
    const ns = k < news ? offsets.at(k) + k * delta : Infinity;
    if (i < kept.length && kept.at(i) < ns) {
      add(kept.at(i), kept.at(i + 1));
      i += 2;
    } else {
      add(ns, ns + newLen);
      k++;
    }
    if (++since >= WINDOW) {
      since = 0;
      yield;
    }
  }
  return out;
}

/**
 * Replaces at the given offsets, literally (no `$&` patterns: plain concatenation). Sparse
 * replacements join string pieces; dense ones (pieces shorter than 64 units on average) write
 * UTF-16 code units into one buffer, since a string per piece costs ~0.5 µs: 10 M one-character
 * replacements took 3-6 s as pieces and 0.1-0.3 s through the buffer on the test VM.
 */
function* spliceAll(text: string, offsets: IntList, oldLen: number, replacement: string): Work<string> {
  const count = offsets.length;
  const total = text.length + count * (replacement.length - oldLen);
  if (count * 64 <= total) {
    const chunks: string[] = [];
    let pieces: string[] = [];
    let last = 0;
    let since = 0;
    for (let i = 0; i < count; i++) {
      const o = offsets.at(i);
      if (o > last) pieces.push(text.slice(last, o));
      pieces.push(replacement);
      since += o - last + replacement.length + 16;
      last = o + oldLen;
      if (since >= WINDOW) {
        chunks.push(pieces.join(''));
        pieces = [];
        since = 0;
        yield;
      }
    }
    pieces.push(text.slice(last));
    chunks.push(pieces.join(''));
    return chunks.length === 1 ? chunks[0]! : chunks.join('');
  }
  // One byte a unit when every unit fits (most files): half the memory to fill and to copy.
  const wide = /[^\u0000-\u00ff]/.test(replacement) || /[^\u0000-\u00ff]/.test(text);
  const [size, encoding] = wide ? [2, 'utf16le' as const] : [1, 'latin1' as const];
  const out = Buffer.allocUnsafe(total * size);
  const units = wide ? new Uint16Array(out.buffer, out.byteOffset, total) : out;
  const rep = Buffer.from(replacement, encoding);
  // Long stretches are copied natively, short ones a unit at a time.
  const copy = (from: number, to: number, at: number) => {
    if (to - from > 64) out.write(text.slice(from, to), at * size, encoding);
    else for (let k = from; k < to; k++) units[at++] = text.charCodeAt(k);
  };
  let pos = 0;
  let last = 0;
  let since = 0;
  for (let i = 0; i < count; i++) {
    const o = offsets.at(i);
    copy(last, o, pos);
    pos += o - last;
    if (replacement.length > 64) rep.copy(out, pos * size);
    else for (let k = 0; k < replacement.length; k++) units[pos + k] = replacement.charCodeAt(k);
    pos += replacement.length;
    since += o - last + replacement.length + 16;
    last = o + oldLen;
    if (since >= WINDOW) {
      since = 0;
      yield;
    }
  }
  copy(last, text.length, pos);
  // Both encodings keep every unit as it is (utf16le keeps lone surrogates).
  return out.toString(encoding);
}

function* noMatch(current: string, old: string, path: string, where: string, indexDetail: object, original: string): Work<ToolError> {
  const closest = yield* closestLine(current, old);
  const reasons = yield* diagnose(current, old);
  const details: { path: string } & Record<string, unknown> = { path, reasons, ...indexDetail };
  let message = `old_string was not found${where} in ${path}.`;
  if (reasons.length) message += ` Likely cause: ${reasons[0]}.`;
  if (closest) {
    details.closest = closest.closest;
    details.context = closest.context;
    message += ` The closest line is ${closest.closest.line}: ${JSON.stringify(closest.preview)}.`;
  }
  if (current !== original) message += ' (Earlier edits in this call already changed the text.)';
  message += ' Read the file again and copy old_string exactly, including whitespace.';
  return new ToolError('NO_MATCH', message, details);
}

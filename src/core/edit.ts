/**
 * The edit engine (contract "The edit contract"): literal, exact string replacement with
 * uniqueness checks, several edits applied in order all-or-nothing, and a diagnosis of why
 * an old_string did not match. Pure: text in, text out.
 */
import { ToolError } from './errors.js';
import { editDistance } from './suggest.js';

export interface EditSpec {
  old_string: string;
  new_string: string;
  replace_all?: boolean | undefined;
}

/** Start offsets of every occurrence, overlapping ones included. */
export function findOccurrences(text: string, needle: string): number[] {
  const out: number[] = [];
  if (needle.length === 0) return out;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) out.push(i);
  return out;
}

/** 1-based line number of a character offset. */
export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Non-overlapping occurrences, left to right (what replace_all replaces). */
function nonOverlapping(occurrences: number[], length: number): number[] {
  const out: number[] = [];
  let next = 0;
  for (const o of occurrences) {
    if (o >= next) {
      out.push(o);
      next = o + length;
    }
  }
  return out;
}

/** Replaces at the given offsets, literally (no `$&` patterns: plain concatenation). */
function spliceAll(text: string, offsets: number[], oldLen: number, replacement: string): string {
  let out = '';
  let last = 0;
  for (const o of offsets) {
    out += text.slice(last, o) + replacement;
    last = o + oldLen;
  }
  return out + text.slice(last);
}

export interface EditOutcome {
  text: string;
  replacements: number;
}

/**
 * Applies edits in order to `text`. Throws ToolError NO_MATCH / MULTIPLE_MATCHES /
 * NO_CHANGE / INVALID_INPUT (with details.editIndex when there are several edits).
 */
export function applyEdits(text: string, edits: EditSpec[], path: string): EditOutcome {
  const many = edits.length > 1;
  let current = text;
  let replacements = 0;
  // Regions of `current` produced by earlier edits' new_string, as [start, end).
  let inserted: Array<[number, number]> = [];
  edits.forEach((edit, index) => {
    const where = many ? ` (edit ${index + 1} of ${edits.length})` : '';
    const indexDetail = many ? { editIndex: index } : {};
    if (edit.old_string.length === 0) {
      throw new ToolError('INVALID_INPUT', `old_string is empty${where}. Give the exact text to replace; to create a file use write.`, {
        field: many ? `edits[${index}].old_string` : 'old_string',
        ...indexDetail,
      });
    }
    if (edit.old_string === edit.new_string) {
      throw new ToolError('NO_CHANGE', `old_string and new_string are identical${where}, so nothing would change. Give the replacement text in new_string.`, {
        path,
        ...indexDetail,
      });
    }
    const occurrences = findOccurrences(current, edit.old_string);
    if (occurrences.length === 0) throw noMatch(current, edit.old_string, path, where, indexDetail, text);
    if (inserted.length && occurrences.every((o) => overlaps(inserted, o, o + edit.old_string.length))) {
      throw new ToolError(
        'INVALID_INPUT',
        `old_string${where} only matches text inserted by an earlier edit's new_string. Edits apply in order to the original text; merge these edits into one.`,
        { field: `edits[${index}].old_string`, ...indexDetail },
      );
    }
    if (occurrences.length > 1 && !edit.replace_all) {
      const lines = [...new Set(occurrences.map((o) => lineOf(current, o)))];
      throw new ToolError(
        'MULTIPLE_MATCHES',
        `old_string matches ${occurrences.length} places${where} in ${path} (line${lines.length > 1 ? 's' : ''} ${lines.slice(0, 20).join(', ')}${lines.length > 20 ? ', …' : ''}). ` +
          'Add surrounding lines so it matches once, or set replace_all: true.',
        { path, count: occurrences.length, lines, ...indexDetail },
      );
    }
    const offsets = edit.replace_all ? nonOverlapping(occurrences, edit.old_string.length) : occurrences;
    inserted = shiftRegions(inserted, offsets, edit.old_string.length, edit.new_string.length);
    current = spliceAll(current, offsets, edit.old_string.length, edit.new_string);
    replacements += offsets.length;
  });
  if (current === text) {
    throw new ToolError('NO_CHANGE', `The edits leave ${path} exactly as it was. Nothing to do.`, { path });
  }
  return { text: current, replacements };
}

function overlaps(regions: Array<[number, number]>, start: number, end: number): boolean {
  return regions.some(([s, e]) => start < e && end > s);
}

function shiftRegions(regions: Array<[number, number]>, offsets: number[], oldLen: number, newLen: number): Array<[number, number]> {
  const delta = newLen - oldLen;
  const out: Array<[number, number]> = [];
  for (const region of regions) {
    // The parts of an inserted region that this edit did not replace stay inserted text.
    let pieces: Array<[number, number]> = [region];
    for (const o of offsets) {
      pieces = pieces.flatMap(([s, e]): Array<[number, number]> =>
        o < e && o + oldLen > s ? ([[s, o], [o + oldLen, e]] as Array<[number, number]>).filter(([a, b]) => b > a) : [[s, e]],
      );
    }
    for (const [s, e] of pieces) {
      const before = offsets.filter((o) => o + oldLen <= s).length;
      out.push([s + before * delta, e + before * delta]);
    }
  }
  offsets.forEach((o, i) => {
    const start = o + i * delta;
    if (newLen > 0) out.push([start, start + newLen]);
  });
  return out;
}

const CURLY: Record<string, string> = { '\u2018': "'", '\u2019': "'", '\u201c': '"', '\u201d': '"' };
const straighten = (s: string) => s.replace(/[\u2018\u2019\u201c\u201d]/g, (c) => CURLY[c]!);
const collapse = (s: string) => s.replace(/[ \t]+/g, ' ').replace(/ ?\r?\n ?/g, '\n').trim();

/** Why old_string does not match, checked against common near-misses, most specific first. */
export function diagnose(text: string, old: string): string[] {
  const reasons: string[] = [];
  if (!old.includes('\r\n') && old.includes('\n') && text.includes('\r\n') && text.includes(old.replace(/\n/g, '\r\n'))) {
    reasons.push('line_endings: the file uses CRLF (\\r\\n) line endings and old_string uses LF (\\n)');
  } else if (old.includes('\r\n') && !text.includes('\r\n') && text.includes(old.replace(/\r\n/g, '\n'))) {
    reasons.push('line_endings: the file uses LF (\\n) line endings and old_string uses CRLF (\\r\\n)');
  }
  if (straighten(old) !== old || straighten(text).includes(straighten(old))) {
    if (straighten(text).includes(straighten(old)) && !text.includes(old)) {
      reasons.push('quotes: the text matches if curly and straight quotes are treated alike; copy the quotes exactly as the file has them');
    }
  }
  const detab = (s: string) => s.replace(/\t/g, '    ');
  if (reasons.length === 0 && (old.includes('\t') || text.includes('\t')) && detab(text).includes(detab(old))) {
    reasons.push('tabs_vs_spaces: the text matches if tabs and spaces are treated alike; the file indents with ' + (text.includes('\t') ? 'tabs' : 'spaces'));
  }
  if (reasons.length === 0 && collapse(text).includes(collapse(old))) {
    reasons.push('whitespace: the text matches if spaces and indentation are ignored; copy the whitespace exactly (indentation, trailing spaces)');
  }
  return reasons;
}

function noMatch(current: string, old: string, path: string, where: string, indexDetail: object, original: string): ToolError {
  const lines = current.split('\n');
  const probe = old.split('\n').map((l) => l.replace(/\r$/, '')).find((l) => l.trim().length > 0) ?? old;
  let best = -1;
  let bestScore = Infinity;
  const target = probe.trim();
  const scanLimit = Math.min(lines.length, 20_000);
  for (let i = 0; i < scanLimit; i++) {
    const candidate = lines[i]!.replace(/\r$/, '').trim();
    if (candidate.length === 0) continue;
    if (Math.abs(candidate.length - target.length) > Math.max(target.length, 40)) continue;
    const score = candidate === target ? 0 : editDistance(candidate.slice(0, 300), target.slice(0, 300));
    if (score < bestScore) {
      bestScore = score;
      best = i;
      if (score === 0) break;
    }
  }
  const reasons = diagnose(current, old);
  const closeEnough = best >= 0 && bestScore <= Math.max(3, Math.floor(target.length / 2));
  const details: Record<string, unknown> = { path, reasons, ...indexDetail };
  let message = `old_string was not found${where} in ${path}.`;
  if (reasons.length) message += ` Likely cause: ${reasons[0]}.`;
  if (closeEnough) {
    const from = Math.max(0, best - 3);
    const to = Math.min(lines.length, best + 4);
    details.closest = { line: best + 1, text: lines[best]!.replace(/\r$/, '') };
    details.context = lines.slice(from, to).map((t, i) => ({ line: from + i + 1, text: t.replace(/\r$/, '') }));
    message += ` The closest line is ${best + 1}: ${JSON.stringify(lines[best]!.replace(/\r$/, '').slice(0, 200))}.`;
  }
  if (current !== original) message += ' (Earlier edits in this call already changed the text.)';
  message += ' Read the file again and copy old_string exactly, including whitespace.';
  return new ToolError('NO_MATCH', message, details);
}

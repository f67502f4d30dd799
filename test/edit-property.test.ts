/**
 * Property tests of the pure edit engine and the unified diff (src/core/edit.ts, diff.ts)
 * against small independent reference implementations written here:
 * - occurrences are counted with overlap by brute force; replace_all is split/join;
 * - the "only matches text an earlier edit inserted" rule is tracked per character (a flag on
 *   every character that came from a new_string), not with regions;
 * - the unified diff is applied to the old text with a patch applier written here and must give
 *   the new text;
 * - a single edit leaves every byte outside the replaced region unchanged.
 * Texts mix CRLF and LF, a BOM, non-ASCII (incl. astral) characters, $-patterns and quotes,
 * with and without a final newline.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { structuredPatch } from 'diff';
import fc from 'fast-check';
import { unifiedDiff } from '../src/core/diff.js';
import { applyEdits, type EditSpec } from '../src/core/edit.js';
import { ToolError } from '../src/core/errors.js';
import { applyPatch } from './helpers/patch.js';

// ---------------------------------------------------------------- reference edit engine

type RefOutcome =
  { ok: true; text: string; replacements: number } | { ok: false; code: string; editIndex?: number; count?: number; lines?: number[] };

function countOverlapping(text: string, needle: string): number[] {
  const at: number[] = [];
  for (let i = 0; i + needle.length <= text.length; i++) if (text.startsWith(needle, i)) at.push(i);
  return at;
}

function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

function refApply(original: string, edits: EditSpec[]): RefOutcome {
  const many = edits.length > 1;
  const idx = (i: number) => (many ? { editIndex: i } : {});
  // The current text as characters, each flagged when it came from an earlier new_string.
  let chars = [...original].flatMap((c) => c.split('')).map((c) => ({ c, ins: false }));
  let replacements = 0;
  for (let i = 0; i < edits.length; i++) {
    const { old_string: o, new_string: n, replace_all } = edits[i]!;
    const text = chars.map((x) => x.c).join('');
    if (o === '') return { ok: false, code: 'INVALID_INPUT', ...idx(i) };
    if (o === n) return { ok: false, code: 'NO_CHANGE', ...idx(i) };
    const occ = countOverlapping(text, o);
    if (occ.length === 0) return { ok: false, code: 'NO_MATCH', ...idx(i) };
    if (i > 0 && occ.every((p) => chars.slice(p, p + o.length).some((x) => x.ins))) {
      return { ok: false, code: 'INVALID_INPUT', ...idx(i) };
    }
    if (occ.length > 1 && !replace_all) {
      return { ok: false, code: 'MULTIPLE_MATCHES', count: occ.length, lines: [...new Set(occ.map((p) => lineAt(text, p)))], ...idx(i) };
    }
    // Which occurrences get replaced: what split() consumes (left to right, non-overlapping).
    const parts = replace_all ? text.split(o) : [text.slice(0, occ[0]), text.slice(occ[0]! + o.length)];
    const ins = n.split('').map((c) => ({ c, ins: true }));
    const next: typeof chars = [];
    let pos = 0;
    parts.forEach((part, k) => {
      next.push(...chars.slice(pos, pos + part.length));
      pos += part.length;
      if (k < parts.length - 1) {
        next.push(...ins);
        pos += o.length;
      }
    });
    // split/join and slicing must agree with the flagged reconstruction.
    assert.equal(next.map((x) => x.c).join(''), replace_all ? text.split(o).join(n) : parts.join(n));
    chars = next;
    replacements += parts.length - 1;
  }
  const text = chars.map((x) => x.c).join('');
  if (text === original) return { ok: false, code: 'NO_CHANGE' };
  return { ok: true, text, replacements };
}

function realApply(text: string, edits: EditSpec[]): RefOutcome {
  try {
    const r = applyEdits(text, edits, '/p.txt');
    return { ok: true, text: r.text, replacements: r.replacements };
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    const d = (err.details ?? {}) as { editIndex?: number; count?: number; lines?: number[] };
    const out: RefOutcome = { ok: false, code: err.code };
    if (d.editIndex !== undefined) out.editIndex = d.editIndex;
    if (err.code === 'MULTIPLE_MATCHES') {
      out.count = d.count!;
      out.lines = d.lines!;
    }
    return out;
  }
}

// The patch applier (an independent reader of unified diffs) lives in helpers/patch.ts.

// ---------------------------------------------------------------- generators

const PIECES = [
  'a',
  'b',
  'ab',
  'ba',
  'aa',
  'x',
  ' ',
  '  ',
  '\t',
  '\n',
  '\n',
  '\r\n',
  '\r\n',
  '\r',
  'é',
  '日本',
  '😀',
  '"',
  '\u201c',
  '\u201d',
  "'",
  '\u2019',
  '$&',
  '$$',
  '$`',
  "$'",
  '$1',
  'line',
  'foo();',
];

const textArb = fc
  .record({
    bom: fc.boolean(),
    body: fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }),
    ending: fc.constantFrom('', '\n', '\r\n'),
  })
  .map(({ bom, body, ending }) => (bom ? '\uFEFF' : '') + body.join('') + ending);

const pieceStringArb = fc.array(fc.constantFrom(...PIECES), { minLength: 0, maxLength: 4 }).map((a) => a.join(''));

/** An old_string: usually a random code-point-aligned substring of the text, sometimes anything. */
function oldStringArb(text: string) {
  const cps = [...text];
  const sub = fc
    .tuple(fc.nat({ max: Math.max(0, cps.length) }), fc.nat({ max: 8 }))
    .map(([start, len]) => cps.slice(start, start + 1 + len).join(''));
  return cps.length === 0 ? pieceStringArb : fc.oneof({ weight: 4, arbitrary: sub }, { weight: 1, arbitrary: pieceStringArb });
}

const editArb = (text: string) =>
  fc
    .record({
      old_string: oldStringArb(text),
      new_string: fc.oneof({ weight: 6, arbitrary: pieceStringArb }, { weight: 1, arbitrary: fc.constant('__SAME__') }),
      replace_all: fc.oneof(fc.constant(undefined), fc.boolean()),
    })
    .map((e) => ({ ...e, new_string: e.new_string === '__SAME__' ? e.old_string : e.new_string }));

const caseArb = textArb.chain((text) => fc.tuple(fc.constant(text), fc.array(editArb(text), { minLength: 1, maxLength: 4 })));

// ---------------------------------------------------------------- properties

describe('edit engine: properties', () => {
  it('applyEdits agrees with the reference (result text, replacements, error code, editIndex, count, lines)', () => {
    fc.assert(
      fc.property(caseArb, ([text, edits]) => {
        assert.deepEqual(realApply(text, edits), refApply(text, edits));
      }),
      {
        numRuns: 5000,
        examples: [
          [['aaa', [{ old_string: 'aa', new_string: 'b', replace_all: undefined }]]],
          [['aaa', [{ old_string: 'aa', new_string: 'b', replace_all: true }]]],
          [['a\r\nb\r\n', [{ old_string: 'a\r\n', new_string: '$&$`', replace_all: undefined }]]],
          // An old_string that only exists inside an earlier edit's new_string.
          [
            [
              'a b',
              [
                { old_string: 'a', new_string: 'XYZ', replace_all: undefined },
                { old_string: 'Y', new_string: 'k', replace_all: undefined },
              ],
            ],
          ],
          // ... also when a later replace_all replaced part of that new_string ('Z' is still inserted text).
          [
            [
              'a b XY',
              [
                { old_string: 'a', new_string: 'XYZ', replace_all: undefined },
                { old_string: 'XY', new_string: 'k', replace_all: true },
                { old_string: 'Z', new_string: 'W', replace_all: undefined },
              ],
            ],
          ],
        ],
      },
    );
  });

  it('single edits: only the replaced region changes; the bytes before and after it are identical', () => {
    fc.assert(
      fc.property(
        textArb.chain((text) => fc.tuple(fc.constant(text), editArb(text))),
        ([text, edit]) => {
          const ref = refApply(text, [edit]);
          const real = realApply(text, [edit]);
          assert.deepEqual(real, ref);
          if (!real.ok) return;
          const newText = real.text;
          const before = Buffer.from(text, 'utf8');
          const after = Buffer.from(newText, 'utf8');
          if (!edit.replace_all || countOverlapping(text, edit.old_string).length === 1) {
            const at = text.indexOf(edit.old_string);
            const head = Buffer.byteLength(text.slice(0, at), 'utf8');
            const tail = Buffer.byteLength(text.slice(at + edit.old_string.length), 'utf8');
            assert.deepEqual(after.subarray(0, head), before.subarray(0, head), 'bytes before the edit');
            assert.deepEqual(after.subarray(after.length - tail), before.subarray(before.length - tail), 'bytes after the edit');
            assert.deepEqual(after.subarray(head, after.length - tail), Buffer.from(edit.new_string, 'utf8'), 'exactly new_string in between');
          }
          // BOM and final-newline style survive unless the edit touched them.
          if (text.startsWith('\uFEFF') && !edit.old_string.startsWith('\uFEFF') && text.indexOf(edit.old_string) > 0) {
            assert.ok(newText.startsWith('\uFEFF'));
          }
        },
      ),
      { numRuns: 800 },
    );
  });

  it('the unified diff, applied to the old text by an independent patcher, gives the new text', () => {
    fc.assert(
      fc.property(caseArb, ([text, edits]) => {
        const r = realApply(text, edits);
        if (!r.ok) return;
        const d = unifiedDiff(text, r.text, { path: '/p.txt', oldLabel: 'version 1', newLabel: 'version 2' }, Number.MAX_SAFE_INTEGER);
        assert.equal(d.truncated, false);
        assert.notEqual(d.diff, '', 'texts differ so the diff is not empty');
        assert.equal(applyPatch(text, d.diff), r.text);
        const rows = d.diff.split('\n');
        assert.equal(d.stats.added, rows.filter((l) => l.startsWith('+') && !l.startsWith('+++ ')).length);
        assert.equal(d.stats.removed, rows.filter((l) => l.startsWith('-') && !l.startsWith('--- ')).length);
      }),
      { numRuns: 800 },
    );
  });

  it('diffs between arbitrary texts (incl. empty and /dev/null sides) patch correctly', () => {
    fc.assert(
      fc.property(textArb, textArb, (a, b) => {
        const d = unifiedDiff(a, b, { path: '/x/y.txt', oldLabel: 'o', newLabel: 'n' }, Number.MAX_SAFE_INTEGER);
        if (a === b) assert.equal(d.diff, '');
        assert.equal(applyPatch(a, d.diff), b);
        const gone = unifiedDiff(a, null, { path: '/x/y.txt', oldLabel: 'o', newLabel: 'n' }, Number.MAX_SAFE_INTEGER);
        if (a !== '') {
          assert.match(gone.diff, /^--- a\/x\/y\.txt\t\(o\)\n\+\+\+ \/dev\/null\n/);
          assert.equal(applyPatch(a, gone.diff), '');
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a change inside long common text: the diff (cut to the changed middle) patches correctly and is minimal', () => {
    // Lines from a tiny alphabet, so the change sits among repeats of its own lines (ties for Myers).
    const lineArb = fc.constantFrom('a\n', 'b\n', 'a\r\n', '\n', 'c');
    const linesArb = (max: number) => fc.array(lineArb, { maxLength: max }).map((l) => l.join(''));
    fc.assert(
      fc.property(linesArb(30), linesArb(6), linesArb(6), linesArb(30), (pre, midA, midB, post) => {
        const a = pre.replace(/c$/, 'c\n') + midA + post;
        const b = pre.replace(/c$/, 'c\n') + midB + post;
        const d = unifiedDiff(a, b, { path: '/p', oldLabel: 'o', newLabel: 'n' }, Number.MAX_SAFE_INTEGER);
        assert.equal(applyPatch(a, d.diff), b);
        // Same number of added and removed lines as jsdiff over the whole texts: a shortest edit script.
        let added = 0;
        let removed = 0;
        for (const h of structuredPatch('a', 'b', a, b, '', '', { context: 3 }).hunks) {
          for (const l of h.lines) {
            if (l.startsWith('+')) added++;
            else if (l.startsWith('-')) removed++;
          }
        }
        assert.deepEqual([d.stats.added, d.stats.removed], [added, removed]);
      }),
      { numRuns: 1500 },
    );
  });

  it('a capped diff keeps its first lines verbatim and says how many were left out', () => {
    const a = Array.from({ length: 300 }, (_, i) => `l${i}`).join('\n');
    const b = Array.from({ length: 300 }, (_, i) => `L${i}`).join('\n');
    const full = unifiedDiff(a, b, { path: '/p', oldLabel: 'o', newLabel: 'n' }, Number.MAX_SAFE_INTEGER);
    const capped = unifiedDiff(a, b, { path: '/p', oldLabel: 'o', newLabel: 'n' }, 50);
    assert.equal(full.truncated, false);
    assert.equal(capped.truncated, true);
    const fullRows = full.diff.split('\n');
    const cappedRows = capped.diff.trimEnd().split('\n');
    assert.deepEqual(cappedRows.slice(0, 52), fullRows.slice(0, 52));
    assert.equal(cappedRows.length, 53);
    const bodyRows = fullRows.length - 1 - 2; // minus the trailing '' and the two headers
    assert.match(cappedRows[52]!, new RegExp(`^\\.\\.\\. diff truncated: ${bodyRows - 50} more lines \\(300 added, 300 removed in 1 hunks\\)`));
  });
});

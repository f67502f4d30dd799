/**
 * An independent reader of the unified diffs core/diff.ts prints: applies one to the old text
 * and returns the new text, asserting every context and removed line as it goes (GNU rules: a
 * count of 0 means the hunk applies after the start line; "\ No newline at end of file" after
 * a line means that line has no newline).
 */
import assert from 'node:assert/strict';

interface Line {
  text: string;
  nl: boolean; // followed by '\n'
}

function toLines(text: string): Line[] {
  if (text === '') return [];
  const parts = text.split('\n');
  const out = parts.map((t) => ({ text: t, nl: true }));
  if (parts[parts.length - 1] === '') out.pop();
  else out[out.length - 1]!.nl = false;
  return out;
}

const fromLines = (lines: Line[]) => lines.map((l) => l.text + (l.nl ? '\n' : '')).join('');

/** Applies a GNU unified diff (as printed by unifiedDiff) to `old`; throws if a context/removed line does not match. */
export function applyPatch(old: string, diff: string): string {
  if (diff === '') return old;
  const src = toLines(old);
  const rows = diff.split('\n');
  assert.equal(rows.pop(), '', 'a diff ends with a newline');
  assert.match(rows[0]!, /^--- /);
  assert.match(rows[1]!, /^\+\+\+ /);
  const out: Line[] = [];
  let cursor = 0; // index into src of the next line not yet copied
  let i = 2;
  while (i < rows.length) {
    const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$/.exec(rows[i]!);
    assert.ok(m, `hunk header expected: ${JSON.stringify(rows[i])}`);
    const oldStart = Number(m[1]);
    const oldCount = m[2] === undefined ? 1 : Number(m[2]);
    const newCount = m[4] === undefined ? 1 : Number(m[4]);
    // GNU: with a count of 0 the start names the line after which the hunk applies.
    const firstIndex = oldCount === 0 ? oldStart : oldStart - 1;
    assert.ok(firstIndex >= cursor, 'hunks are ordered and do not overlap');
    out.push(...src.slice(cursor, firstIndex));
    cursor = firstIndex;
    i++;
    let seenOld = 0;
    let seenNew = 0;
    while (i < rows.length && !rows[i]!.startsWith('@@ ')) {
      const row = rows[i]!;
      const tag = row[0];
      const body = row.slice(1);
      // "\ No newline at end of file" after a row: that line has no '\n' (on the row's side).
      const nl = rows[i + 1] !== '\\ No newline at end of file';
      if (tag === ' ' || tag === '-') {
        const cur = src[cursor];
        assert.ok(cur, `patch runs past the end of the old text at ${JSON.stringify(row)}`);
        assert.equal(cur.text, body, 'context/removed line matches the old text');
        assert.equal(cur.nl, nl, 'the old line ends as the diff says');
        cursor++;
        seenOld++;
        if (tag === ' ') {
          out.push({ text: body, nl });
          seenNew++;
        }
      } else {
        assert.equal(tag, '+', `unexpected diff row ${JSON.stringify(row)}`);
        out.push({ text: body, nl });
        seenNew++;
      }
      i += nl ? 1 : 2;
    }
    assert.equal(seenOld, oldCount, 'hunk old count');
    assert.equal(seenNew, newCount, 'hunk new count');
  }
  out.push(...src.slice(cursor));
  return fromLines(out);
}

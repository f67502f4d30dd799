/**
 * Cost of the pure edit, diff and suggestion code on the worst inputs (
 * and 6), each timed in a worker thread that is terminated past a deadline, so a regression
 * fails the test instead of hanging the run. Before the fix these took 323 s (2a), 431 s (2b),
 * 11.8 s (2c), 30 s (3) and 0.36 s / 2.6 s (6). Each test also checks the answer is still right.
 *
 * Bounds: a call must take < 250 ms (the fastest of up to 3 runs: the VM is shared), and work
 * that is sliced (editWork, diffWork: the tools run them through runSliced) must never run more
 * than 250 ms between two checkpoints, whatever its total. Item 3's 10 MiB inputs (nothing in
 * common, one line each, 200,000 shuffled lines) are in test/slow/edit-cost-slow.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyPatch } from './helpers/patch.js';
import { fastest, timed } from './helpers/timed.js';
import { patchOf, rng, words } from './helpers/fixtures.js';

const LIMIT_MS = 250;
const DEADLINE = 20_000;
const MiB = 1024 * 1024;

function fast(r: { ms: number }, what: string, limit = LIMIT_MS) {
  assert.ok(r.ms < limit, `${what} took ${r.ms.toFixed(0)} ms (limit ${limit} ms)`);
}

function sliced(r: { ms: number; longestStep: number }, what: string, total: number) {
  assert.ok(r.longestStep < LIMIT_MS, `${what}: ${r.longestStep.toFixed(0)} ms between two checkpoints (limit ${LIMIT_MS} ms)`);
  assert.ok(r.ms < total, `${what} took ${r.ms.toFixed(0)} ms in all (limit ${total} ms)`);
}

describe('cost: the edit engine on worst inputs', () => {
  it('2a: 200,000 lines "line a N", old_string "a" → MULTIPLE_MATCHES with the exact count and the first 100 lines', async () => {
    const text = Array.from({ length: 200_000 }, (_, i) => `line a ${i}`).join('\n');
    const r = await fastest(3, 'edit', 'applyEdits', [text, [{ old_string: 'a', new_string: 'b' }], '/big.txt'], DEADLINE);
    fast(r, '2a');
    assert.equal(r.error?.code, 'MULTIPLE_MATCHES');
    assert.equal(r.error.details.count, 200_000);
    assert.deepEqual(
      r.error.details.lines,
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
    assert.equal(r.error.details.linesTruncated, true);
    assert.match(r.error.message, /^old_string matches 200000 places in \/big\.txt \(lines 1, 2, 3, .*, 20, …\)\./);
  });

  it('2b: "ab\\n" × 20,000 with two replace_all edits (a → x, b → y): both apply, each character once', async () => {
    const text = 'ab\n'.repeat(20_000);
    const edits = [
      { old_string: 'a', new_string: 'x', replace_all: true },
      { old_string: 'b', new_string: 'y', replace_all: true },
    ];
    const r = await fastest(3, 'edit', 'applyEdits', [text, edits, '/ab.txt'], DEADLINE);
    fast(r, '2b');
    assert.equal(r.value.replacements, 40_000);
    assert.equal(r.value.text, 'xy\n'.repeat(20_000));
    // The inserted-text rule still holds at that size: 'x' exists only where edit 1 put it.
    const bad = await timed('edit', 'applyEdits', [text, [edits[0], { old_string: 'x', new_string: 'z', replace_all: true }], '/ab.txt'], DEADLINE);
    fast(bad, '2b inserted-text check');
    assert.equal(bad.error?.code, 'INVALID_INPUT');
    assert.equal(bad.error.details.editIndex, 1);
  });

  it('2c: 6 MB of 300-character lines and a 300-character old_string that matches nothing → NO_MATCH, no closest line', async () => {
    const rnd = rng(1);
    const text = Array.from({ length: 20_000 }, () => words(rnd, 300)).join('\n') + '\n';
    assert.ok(text.length > 6_000_000);
    const old = words(rnd, 300, '0123456789');
    const r = await fastest(3, 'edit', 'applyEdits', [text, [{ old_string: old, new_string: 'x' }], '/six.txt'], DEADLINE);
    fast(r, '2c');
    assert.equal(r.error?.code, 'NO_MATCH');
    assert.deepEqual(r.error.details.reasons, []);
    assert.equal(r.error.details.closest, undefined);
  });

  it('2c: a normal near-miss in a 6 MB file still names the closest line, with context', async () => {
    const text = Array.from({ length: 150_000 }, (_, i) => `    const value${i} = compute(${i}, "item ${i}");`).join('\n') + '\n';
    assert.ok(text.length > 6_000_000);
    const old = '    const value15000 = compute(15000, "item 15001");';
    const r = await fastest(3, 'edit', 'applyEdits', [text, [{ old_string: old, new_string: 'x' }], '/six.txt'], DEADLINE);
    fast(r, '2c near-miss');
    assert.equal(r.error?.code, 'NO_MATCH');
    assert.deepEqual(r.error.details.closest, { line: 15_001, text: '    const value15000 = compute(15000, "item 15000");' });
    assert.deepEqual(
      r.error.details.context.map((c: { line: number }) => c.line),
      [14_998, 14_999, 15_000, 15_001, 15_002, 15_003, 15_004],
    );
    assert.match(r.error.message, /The closest line is 15001:/);
    // A whitespace-only difference is still diagnosed on a file that size.
    const ws = await fastest(
      3,
      'edit',
      'applyEdits',
      [text, [{ old_string: 'const value15000 =  compute(15000, "item 15000");', new_string: 'x' }], '/six.txt'],
      DEADLINE,
    );
    assert.equal(ws.error?.code, 'NO_MATCH');
    assert.deepEqual(
      ws.error.details.reasons.map((x: string) => x.split(':')[0]),
      ['whitespace'],
    );
    assert.ok(ws.ms < 2_000, `whitespace diagnosis of 6 MB took ${ws.ms.toFixed(0)} ms`);
  });

  it('an old_string that V8 indexOf searches in quadratic time (a^2500 b a^2500 in 10 MiB of a) → NO_MATCH, linear', async () => {
    const text = 'a'.repeat(10 * MiB);
    const old = 'a'.repeat(2500) + 'b' + 'a'.repeat(2500);
    const r = await fastest(2, 'edit', 'applyEdits/editWork', [text, [{ old_string: old, new_string: 'x' }], '/a.txt', {}], DEADLINE);
    sliced(r, 'periodic needle', 3_000);
    assert.equal(r.error?.code, 'NO_MATCH');
  });

  it('10 MiB of one character, old_string of two: 10 M overlapping matches counted exactly, one line listed', async () => {
    const r = await fastest(
      2,
      'edit',
      'applyEdits/editWork',
      ['a'.repeat(10 * MiB), [{ old_string: 'aa', new_string: 'b' }], '/a.txt', {}],
      DEADLINE,
    );
    sliced(r, 'dense matches', 3_000);
    assert.equal(r.error?.code, 'MULTIPLE_MATCHES');
    assert.equal(r.error.details.count, 10 * MiB - 1);
    assert.deepEqual(r.error.details.lines, [1]);
  });

  it('an edit that would grow the text past maxLength → FILE_TOO_LARGE before any copy is made', async () => {
    const r = await timed(
      'edit',
      'applyEdits',
      ['a'.repeat(MiB), [{ old_string: 'a', new_string: 'bbbbbbbbbbbbbbbbbbbb', replace_all: true }], '/a.txt', { maxLength: 10 * MiB }],
      DEADLINE,
    );
    assert.equal(r.error?.code, 'FILE_TOO_LARGE');
    assert.equal(r.error.details.size, 20 * MiB);
    assert.equal(r.error.details.limit, 10 * MiB);
  });

  it('a 1,000-character closest line is echoed cut (with its length), not whole', async () => {
    const long = 'x'.repeat(5000);
    const r = await timed(
      'edit',
      'applyEdits',
      [`${long}\nshort\n`, [{ old_string: long.slice(0, 4999) + 'y', new_string: 'z' }], '/l.txt'],
      DEADLINE,
    );
    assert.equal(r.error?.code, 'NO_MATCH');
    assert.deepEqual(r.error.details.closest, { line: 1, text: 'x'.repeat(1000), truncated: true, length: 5000 });
  });
});

describe('cost: unified diffs of worst inputs', () => {
  const labels = { path: '/d.txt', oldLabel: 'version 1', newLabel: 'version 2' };

  it('3: two versions of 10,000 different lines → a full, exact diff (all removed, all added), truncated for display', async () => {
    const rnd = rng(2);
    const a = Array.from({ length: 10_000 }, (_, i) => `old ${i} ${words(rnd, 30)}\n`).join('');
    const b = Array.from({ length: 10_000 }, (_, i) => `new ${i} ${words(rnd, 30)}\n`).join('');
    const r = await fastest(3, 'diff', 'unifiedDiff', [a, b, labels], DEADLINE);
    fast(r, '3');
    assert.deepEqual(r.value.stats, { hunks: 1, added: 10_000, removed: 10_000 });
    assert.equal(r.value.truncated, true);
    const full = await timed('diff', 'unifiedDiff', [a, b, labels, Number.MAX_SAFE_INTEGER], DEADLINE);
    assert.equal(applyPatch(a, full.value.diff), b);
  });

  it('10,000 shuffled lines → a diff marked approximate that applies as a patch, sliced', async () => {
    const rnd = rng(3);
    const lines = Array.from({ length: 10_000 }, (_, i) => `line ${i} ${words(rnd, 20)}\n`);
    const shuffled = lines.slice();
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = rnd(i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    const [a, b] = [lines.join(''), shuffled.join('')];
    // Myers runs out of its budget first (the edit distance is ~20,000), then the walk answers.
    const r = await fastest(2, 'diff', 'unifiedDiff/diffWork', [a, b, labels, Number.MAX_SAFE_INTEGER], DEADLINE);
    sliced(r, 'shuffled', 3_000);
    assert.equal(r.value.stats.approximate, true);
    assert.equal(r.value.truncated, false);
    assert.equal(applyPatch(a, patchOf(r.value.diff)), b);
  });
});

describe('cost: suggestions', () => {
  it('6: a 255-character name among 500 siblings of 250 characters → no DP over long names, < 20 ms', async () => {
    const rnd = rng(5);
    const siblings = Array.from({ length: 500 }, () => words(rnd, 250));
    const r = await fastest(3, 'suggest', 'closest', [words(rnd, 255), siblings, 3], DEADLINE);
    fast(r, '6 siblings', 20);
    assert.deepEqual(r.value, []);
  });

  it('6: a 10 MB word is never compared, < 20 ms', async () => {
    const r = await fastest(3, 'suggest', 'closest', ['k'.repeat(10_000_000), ['path', 'content', 'k'], 1], DEADLINE);
    fast(r, '6 long word', 20);
    assert.deepEqual(r.value, []);
  });
});

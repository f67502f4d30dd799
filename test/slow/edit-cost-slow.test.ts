/**
 * The worst inputs of the edit engine and the diff that take seconds (test/edit-cost.test.ts has
 * the others, and the rules): 10 MiB diffs (nothing in common, one line each,
 * 200,000 lines shuffled), millions of replacements, 100 edits in one call over 10 MiB, a 10 MiB
 * file with scattered changes. They run with the slow suites (npm run test:slow).
 *
 * Bounds: a call must take < 250 ms (the fastest of up to 3 runs: the VM is shared), and work
 * that is sliced (editWork, diffWork: the tools run them through runSliced) must never run more
 * than 250 ms between two checkpoints, whatever its total.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyPatch } from '../helpers/patch.js';
import { fastest, timed } from '../helpers/timed.js';
import { patchOf, rng, words } from '../helpers/fixtures.js';

const LIMIT_MS = 250;
const DEADLINE = 20_000;
const MiB = 1024 * 1024;

function sliced(r: { ms: number; longestStep: number }, what: string, total: number, step = LIMIT_MS) {
  assert.ok(r.longestStep < step, `${what}: ${r.longestStep.toFixed(0)} ms between two checkpoints (limit ${step} ms)`);
  assert.ok(r.ms < total, `${what} took ${r.ms.toFixed(0)} ms in all (limit ${total} ms)`);
}

describe('cost: the edit engine, at scale', () => {
  it('replace_all of every character of 10 MiB (10 M replacements), then more edits over the inserted text', async () => {
    const text = 'ab'.repeat(5 * MiB);
    const edits = [
      { old_string: 'a', new_string: 'XY', replace_all: true },
      { old_string: 'b', new_string: 'z', replace_all: true },
      { old_string: 'Yz', new_string: '!' },
    ];
    const r = await fastest(1, 'edit', 'applyEdits/editWork', [text, edits, '/ab.txt', {}], DEADLINE);
    sliced(r, '10 M replacements', 10_000);
    // 'Yz' spans inserted text only ('Y' from edit 1, 'z' from edit 2): refused, as for small texts.
    assert.equal(r.error?.code, 'INVALID_INPUT');
    assert.equal(r.error.details.editIndex, 2);
    const ok = await timed('edit', 'applyEdits/editWork', [text, edits.slice(0, 2), '/ab.txt', {}], DEADLINE);
    sliced(ok, '10 M replacements', 10_000);
    assert.equal(ok.value.replacements, 10 * MiB);
    assert.equal(ok.value.text.length, 15 * MiB);
    assert.equal(ok.value.text.slice(0, 9), 'XYzXYzXYz');
  });

  it('100 replace_all edits on a 10 MiB file: each edit is one linear pass, the whole call stays sliced', async () => {
    const alphabet = Array.from({ length: 100 }, (_, i) => String.fromCharCode(0x100 + i)).join('');
    const text = alphabet.repeat((10 * MiB) / 100);
    const edits = [...alphabet].map((c, i) => ({ old_string: c, new_string: String.fromCharCode(0x400 + i), replace_all: true }));
    // 100 passes over 10 MiB: 15-35 s on the shared VM, in slices. The longest slice is the one
    // contiguous copy each edit's result needs (10 M two-byte units, 20 MB: 75-260 ms measured
    // while the VM was loaded, ~10 ms on an idle one), hence 500 ms here.
    const r = await fastest(1, 'edit', 'applyEdits/editWork', [text, edits, '/u.txt', {}], 180_000);
    sliced(r, '100 edits', 120_000, 500);
    assert.equal(r.value.replacements, text.length);
    assert.equal(r.value.text.slice(0, 3), '\u0400\u0401\u0402');
  });
});

describe('cost: diffs, at scale', () => {
  const labels = { path: '/d.txt', oldLabel: 'version 1', newLabel: 'version 2' };

  it('two 10 MiB texts with nothing in common, 5 M short lines each → a correct diff, marked approximate, sliced', async () => {
    const a = 'a\n'.repeat(5 * MiB);
    const b = 'b\n'.repeat(5 * MiB);
    const r = await fastest(2, 'diff', 'unifiedDiff/diffWork', [a, b, labels, 400], DEADLINE);
    sliced(r, 'nothing in common', 5_000);
    assert.deepEqual(r.value.stats, { hunks: 1, added: 5 * MiB, removed: 5 * MiB, approximate: true });
    assert.equal(r.value.truncated, true);
    assert.match(r.value.diff, /\n\.\.\. the files differ too much for an exact diff \(5242880 lines removed, 5242880 added as shown\)/);
  });

  it('one line of 10 MiB each side → one line removed, one added; the body is cut at MAX_DIFF_CHARS', async () => {
    const r = await fastest(2, 'diff', 'unifiedDiff/diffWork', ['x'.repeat(10 * MiB), 'y'.repeat(10 * MiB), labels, 400], DEADLINE);
    sliced(r, 'one huge line', 5_000);
    assert.equal(r.value.stats.added, 1);
    assert.equal(r.value.stats.removed, 1);
    assert.equal(r.value.truncated, true);
    assert.ok(r.value.diff.length < MiB + 1000, `diff of ${r.value.diff.length} characters`);
    assert.match(r.value.diff, /The last line shown is cut at 1048576 characters/);
  });

  it('the same 200,000 lines shuffled → a diff marked approximate, sliced', async () => {
    const rnd = rng(3);
    const shuffle = <T>(xs: T[]) => {
      const out = xs.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = rnd(i + 1);
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    };
    const lines = Array.from({ length: 200_000 }, (_, i) => `line ${i} ${words(rnd, 20)}\n`);
    const r = await fastest(2, 'diff', 'unifiedDiff/diffWork', [lines.join(''), shuffle(lines).join(''), labels, 400], DEADLINE);
    sliced(r, 'shuffled', 5_000);
    assert.equal(r.value.stats.approximate, true);
    assert.equal(r.value.stats.added, r.value.stats.removed);
    assert.ok(r.value.stats.added > 150_000 && r.value.stats.added < 200_000, String(r.value.stats.added));
  });

  it('a 10 MiB file with 10 scattered one-line changes → those 10 lines, in 10 hunks', async () => {
    const rnd = rng(4);
    const lines = Array.from({ length: 250_000 }, (_, i) => `${i} ${words(rnd, 35)}\n`);
    const changed = lines.slice();
    for (let k = 0; k < 10; k++) changed[k * 24_999 + 7] = `changed ${k}\n`;
    const [a, b] = [lines.join(''), changed.join('')];
    const r = await fastest(2, 'diff', 'unifiedDiff/diffWork', [a, b, labels, Number.MAX_SAFE_INTEGER], DEADLINE);
    sliced(r, 'scattered', 5_000);
    assert.equal(r.value.stats.hunks, 10);
    assert.equal(r.value.stats.added, 10);
    assert.equal(r.value.stats.removed, 10);
    assert.equal(applyPatch(a, patchOf(r.value.diff)), b);
  });
});

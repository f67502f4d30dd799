/** search-watch.ts: how a worker marks its regex searches for the pool, and the pool's answer. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SEARCH, searchBudgetMs, stoppedSearch, watchSearches, watched } from '../src/sandbox/search-watch.js';

describe('search-watch', () => {
  it('without a shared cell (tests, one-off shells) a search just runs', () => {
    assert.equal(
      watched(SEARCH.grep, () => 42),
      42,
    );
  });

  it('marks each search while it runs (a new number per search), and clears the mark after, even when it throws', () => {
    const cell = new Int32Array(new SharedArrayBuffer(8));
    watchSearches(cell.buffer as SharedArrayBuffer);
    const seen: number[][] = [];
    watched(SEARCH.grep, () => seen.push([...cell]));
    watched(SEARCH.findRegex, () => seen.push([...cell]));
    assert.deepEqual(seen, [
      [1, SEARCH.grep],
      [2, SEARCH.findRegex],
    ]);
    assert.deepEqual([...cell], [2, 0]);
    assert.throws(
      () =>
        watched(SEARCH.grep, () => {
          throw new RangeError('inside');
        }),
      RangeError,
    );
    assert.deepEqual([...cell], [3, 0]);
  });

  it('budget: a quarter of the command limit, at most 2 s; the answer names the command and what to do', () => {
    assert.deepEqual([searchBudgetMs(10_000), searchBudgetMs(1000), searchBudgetMs(100)], [2000, 250, 50]);
    const g = stoppedSearch(SEARCH.grep, 2000);
    assert.equal(g.exitCode, 2);
    assert.match(
      g.stderr,
      /^grep: the pattern ran over 2000 ms on one input and was stopped .* nothing it did was saved\. Simplify the pattern .* -F for fixed strings\.\n$/,
    );
    const f = stoppedSearch(SEARCH.findRegex, 250);
    assert.equal(f.exitCode, 1);
    assert.match(f.stderr, /^find: -regex: the pattern ran over 250 ms .* or use -name or -path\.\n$/);
  });
});

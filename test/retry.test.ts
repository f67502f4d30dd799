/** The retry policy for writes overtaken by another instance's commit (core/retry.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONFLICT_RETRY_BUDGET_MS, CONFLICT_RETRY_MIN_ATTEMPTS, conflictRetryDelay } from '../src/core/retry.js';

describe('conflict retry policy', () => {
  it('keeps retrying past the minimum count while the time budget lasts', () => {
    // 40 lost races in 300 ms: the pattern of two instances draining queues to one hot file.
    for (const attempt of [1, CONFLICT_RETRY_MIN_ATTEMPTS, 40]) {
      assert.notEqual(conflictRetryDelay(attempt, 300, 0.5), null, `attempt ${attempt}`);
    }
  });
  it('retries at least the minimum count even when the budget is spent', () => {
    assert.notEqual(conflictRetryDelay(CONFLICT_RETRY_MIN_ATTEMPTS - 1, CONFLICT_RETRY_BUDGET_MS * 2, 0.5), null);
    assert.equal(conflictRetryDelay(CONFLICT_RETRY_MIN_ATTEMPTS, CONFLICT_RETRY_BUDGET_MS * 2, 0.5), null);
  });
  it('gives up once both the count and the budget are spent (a livelock ends as EDIT_CONFLICT)', () => {
    assert.equal(conflictRetryDelay(500, CONFLICT_RETRY_BUDGET_MS, 0.99), null);
  });
  it('backs off with full jitter, growing exponentially up to 50 ms', () => {
    assert.equal(conflictRetryDelay(1, 0, 0), 0);
    assert.equal(conflictRetryDelay(1, 0, 0.5), 1);
    assert.equal(conflictRetryDelay(3, 0, 0.5), 4);
    assert.equal(conflictRetryDelay(10, 0, 0.5), 25);
    assert.equal(conflictRetryDelay(30, 0, 0.999), 0.999 * 50);
  });
});

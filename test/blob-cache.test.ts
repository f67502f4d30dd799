/** The bash workers' content cache (src/sandbox/blob-cache.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BlobCache } from '../src/sandbox/blob-cache.js';

const buf = (n: number, c = 'x') => Buffer.from(c.repeat(n));

describe('BlobCache', () => {
  it("keys by agent and hash: one agent never gets another agent's entry", () => {
    const c = new BlobCache(1000);
    c.set('agt_a', 'h1', buf(10, 'a'));
    assert.equal(c.get('agt_a', 'h1')!.toString(), 'a'.repeat(10));
    assert.equal(c.get('agt_b', 'h1'), undefined);
  });

  it('evicts least recently used entries past the byte budget; a read refreshes an entry', () => {
    const c = new BlobCache(100);
    c.set('a', 'h1', buf(20));
    c.set('a', 'h2', buf(20));
    c.set('a', 'h3', buf(20));
    assert.ok(c.get('a', 'h1')); // h1 is now the most recent
    c.set('a', 'h4', buf(20));
    c.set('a', 'h5', buf(20)); // 100 bytes: still fits
    c.set('a', 'h6', buf(20)); // evicts the least recent: h2
    assert.equal(c.get('a', 'h2'), undefined);
    for (const h of ['h1', 'h3', 'h4', 'h5', 'h6']) assert.ok(c.get('a', h), h);
    assert.deepEqual(c.size, { entries: 5, bytes: 100 });
  });

  it('skips contents over a quarter of the budget, and everything with a budget of 0', () => {
    const c = new BlobCache(100);
    c.set('a', 'big', buf(26));
    assert.equal(c.get('a', 'big'), undefined);
    const off = new BlobCache(0);
    off.set('a', 'h', buf(0));
    off.set('a', 'h2', buf(1));
    assert.deepEqual(off.size, { entries: 0, bytes: 0 });
  });

  it('setting a key again replaces it and keeps the byte count right', () => {
    const c = new BlobCache(100);
    c.set('a', 'h', buf(10));
    c.set('a', 'h', buf(10));
    assert.deepEqual(c.size, { entries: 1, bytes: 10 });
  });
});

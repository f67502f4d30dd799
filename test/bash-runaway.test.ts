/**
 * Runaway patterns and a fair pool (item 7): two agents with two catastrophic greps
 * each (`grep -E '^(a+)+$'` on `aaa…a!`) held all four workers until the hard deadline (11.5 s),
 * and every other agent's `bash` waited. Now an agent holds less than half the workers, so any
 * two leave some free, and a search that backtracks for long is stopped with its own message
 * long before BASH_TIMEOUT_MS (search-watch.ts). Over HTTP, on both backends, default pool size (4).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { heavyBackends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const TIMEOUT_MS = 10_000;
const CATASTROPHIC = 'a'.repeat(40) + '!\n';
const WHY =
  'ran over 2000 ms on one input and was stopped (backtracking: nested repetition such as (a+)+ takes exponential time, repetition over a very long line quadratic); ' +
  'the whole command was stopped and nothing it did was saved. Simplify the pattern (e.g. (a+)+ to a+), ';
const GREP_STOPPED = `grep: the pattern ${WHY}or use -F for fixed strings.\n`;

for (const backend of heavyBackends()) {
  describe(`runaway patterns and a fair bash pool (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, { BASH_TIMEOUT_MS: String(TIMEOUT_MS), BASH_WORKERS: '4', BASH_MAX_CONCURRENT_PER_AGENT: '2' });
    });
    after(() => s.close());

    it("two agents' catastrophic greps neither fill the pool nor run to the deadline", async () => {
      const x = (await s.register('Regex X')).apiKey;
      const y = (await s.register('Regex Y')).apiKey;
      const z = (await s.register('Bystander Z')).apiKey;
      for (const k of [x, y]) await s.ok(k, 'write', { path: '/cat.txt', content: CATASTROPHIC });
      await Promise.all([x, y, z].map((k) => s.ok(k, 'bash', { command: 'true' }))); // threads started
      const t0 = performance.now();
      const greps = [x, x, y, y].map((k) =>
        s.call(k, 'bash', { command: "grep -E '^(a+)+$' /cat.txt" }).then((r) => ({ r, ms: performance.now() - t0 })),
      );
      await new Promise((r) => setTimeout(r, 300)); // the greps are running (or queued)
      const t1 = performance.now();
      const quick = await s.ok(z, 'bash', { command: 'echo hi' });
      const quickMs = performance.now() - t1;
      assert.equal(quick.stdout, 'hi\n');
      assert.ok(quickMs < 1000, `Z waited ${quickMs.toFixed(0)} ms behind X's and Y's greps`);
      const done = await Promise.all(greps);
      console.log(`${backend}: echo hi ${quickMs.toFixed(0)} ms; greps answered after ${done.map((d) => d.ms.toFixed(0)).join(', ')} ms`);
      for (const { r, ms } of done) {
        assert.equal(r.status, 200);
        assert.equal(r.inner?.success, true, JSON.stringify(r.inner).slice(0, 300));
        assert.equal(r.inner.exitCode, 2);
        assert.equal(r.inner.stdout, '');
        assert.equal(r.inner.stderr, GREP_STOPPED);
        // Each agent's two greps run one after the other (one worker per agent): ~2 s, ~4 s.
        assert.ok(ms < TIMEOUT_MS - 2000, `a grep answered after ${ms.toFixed(0)} ms`);
      }
      assert.equal((await s.ok(x, 'bash', { command: 'grep -c a /cat.txt' })).stdout, '1\n', 'the pool is whole again');
      // What the command did before the search is not saved: it was stopped as a whole.
      const w = await s.ok(x, 'bash', { command: "echo partial > /w.txt; grep -E '^(a+)+$' /cat.txt" });
      assert.deepEqual([w.exitCode, w.stderr, w.changedPaths], [2, GREP_STOPPED, []]);
      await s.fail(x, 'stat', { path: '/w.txt' }, 'NOT_FOUND');
    });

    it('find -regex with a catastrophic pattern stops with a message', async () => {
      const k = (await s.register('Regex Finder')).apiKey;
      await s.ok(k, 'write', { path: `/d/${'a'.repeat(40)}!`, content: '' });
      const t0 = performance.now();
      const r = await s.ok(k, 'bash', { command: "find /d -regextype posix-extended -regex '/d/(a+)+'" });
      const ms = performance.now() - t0;
      assert.deepEqual([r.stdout, r.stderr, r.exitCode], ['', `find: -regex: the pattern ${WHY}or use -name or -path.\n`, 1]);
      assert.ok(ms < TIMEOUT_MS / 2, `answered after ${ms.toFixed(0)} ms`);
    });

    it('ordinary patterns are not affected: matches, exit codes, long lines', async () => {
      const k = (await s.register('Regex Ordinary')).apiKey;
      await s.ok(k, 'write', { path: '/t.txt', content: 'alpha 1\nbeta 22\n' + 'x'.repeat(200_000) + 'y\n' });
      assert.equal((await s.ok(k, 'bash', { command: "grep -nE '(alpha|beta) [0-9]+' /t.txt" })).stdout, '1:alpha 1\n2:beta 22\n');
      assert.equal((await s.ok(k, 'bash', { command: "grep -c 'x*y$' /t.txt" })).stdout, '1\n');
      assert.equal((await s.ok(k, 'bash', { command: "grep -cE '^(a|b)+$' /t.txt" })).exitCode, 1);
    });
  });
}

/**
 * A fair share of bash for any number of agents: with the default pool (4 workers, 10 s
 * timeout), as many agents as there are workers loop `while true; do :; done`, and a fresh
 * agent's `echo hi` still answers at once (one worker is kept for agents that run nothing and
 * used little; a long command gives it up and runs again elsewhere). An agent past its worker
 * time of the minute (BASH_WORKER_MS_PER_MINUTE) gets 429 RATE_LIMITED with Retry-After.
 * Over HTTP, on the heavy backends (test/helpers/backends.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { heavyBackends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const LOOP = 'while true; do :; done';

for (const backend of heavyBackends()) {
  describe(`bash: a fresh agent never waits behind busy ones (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      // The defaults: 4 workers, 10 s per command, 2 commands of an agent at once.
      s = await startServer(backend, { BASH_WORKERS: '4', BASH_TIMEOUT_MS: '10000', BASH_MAX_CONCURRENT_PER_AGENT: '2' });
    });
    after(() => s.close());

    it('four agents loop (one per worker); a fifth agent’s echo answers in well under the 10 s timeout, every time', async () => {
      const busy = await Promise.all([1, 2, 3, 4].map(async (i) => (await s.register(`Busy ${i}`)).apiKey));
      const fresh = (await s.register('Fresh')).apiKey;
      await Promise.all([...busy, fresh].map((k) => s.ok(k, 'write', { path: '/a.txt', content: 'a\n' })));
      // A server in service: its threads loaded (they start with the first commands), the standby
      // too (started after them; seconds on a busy machine).
      await Promise.all([...busy, fresh].map((k) => s.ok(k, 'bash', { command: 'true' })));
      for (let i = 0; !/^afs_bash_workers\{state="standby"\} 1$/m.test((await s.raw('/metrics')).text); i++) {
        assert.ok(i < 300, 'the standby thread never loaded');
        await new Promise((r) => setTimeout(r, 100));
      }
      const t0 = performance.now();
      const loops = busy.map((k) => s.call(k, 'bash', { command: LOOP }).then((r) => ({ r, ms: performance.now() - t0 })));
      await new Promise((r) => setTimeout(r, 1500)); // every worker holds a loop
      const waits: number[] = [];
      for (const command of ['echo hi', 'echo hi', 'cat /a.txt | wc -l']) {
        const t1 = performance.now();
        const r = await s.ok(fresh, 'bash', { command });
        waits.push(performance.now() - t1);
        assert.equal(r.exitCode, 0);
        assert.equal(r.stdout, command === 'echo hi' ? 'hi\n' : '1\n');
      }
      const done = await Promise.all(loops);
      console.log(
        `${backend}: fresh agent answered in ${waits.map((w) => w.toFixed(0)).join(', ')} ms; loops ended after ${done.map((d) => d.ms.toFixed(0)).join(', ')} ms`,
      );
      // Generous (a loaded machine); behind the loops it took 10-11.5 s.
      for (const w of waits) assert.ok(w < 5000, `the fresh agent waited ${w.toFixed(0)} ms`);
      for (const { r } of done) {
        assert.equal(r.status, 200);
        assert.equal(r.inner?.error?.code, 'TIMEOUT', JSON.stringify(r.inner).slice(0, 300));
      }
      // A loop that gave up the kept worker ran again elsewhere: still one answer per call, nothing lost.
      assert.equal(done.length, 4);
    });
  });

  describe(`bash: worker time per agent per minute (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, { BASH_TIMEOUT_MS: '1000', BASH_WORKER_MS_PER_MINUTE: '1500' });
    });
    after(() => s.close());

    it('past BASH_WORKER_MS_PER_MINUTE: 429 RATE_LIMITED naming the budget, with Retry-After; other agents are not affected', async () => {
      const hog = (await s.register('Hog')).apiKey;
      const other = (await s.register('Other')).apiKey;
      assert.equal((await s.ok(hog, 'get_key_info', { includeLimits: true })).limits.bashWorkerMsPerMinute, 1500);
      // Each loop holds a worker for 1-2.5 s (the timeout, or its hard deadline): the second or third call is refused.
      let r = await s.call(hog, 'bash', { command: LOOP });
      for (let i = 0; i < 3 && r.status === 200; i++) {
        assert.equal(r.inner?.error?.code, 'TIMEOUT', JSON.stringify(r.body).slice(0, 300));
        r = await s.call(hog, 'bash', { command: i < 2 ? LOOP : 'echo hi' });
      }
      assert.equal(r.status, 429, JSON.stringify(r.body).slice(0, 300));
      assert.equal(r.inner.error.code, 'RATE_LIMITED');
      const d = r.inner.error.details;
      assert.equal(d.limit, 'bash_worker_time');
      assert.equal(d.budgetMs, 1500);
      assert.ok(d.usedMs >= 1500, `used ${d.usedMs} ms`);
      assert.match(r.inner.error.message, /BASH_WORKER_MS_PER_MINUTE = 1500.*Retry in \d+ s/s);
      const retry = Number(r.headers.get('retry-after'));
      assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${retry}`);
      assert.equal(d.retryAfterSeconds, retry);
      assert.equal((await s.ok(other, 'bash', { command: 'echo hi' })).stdout, 'hi\n');
      await s.ok(hog, 'list', { path: '/' }); // other tools still answer
    });
  });
}

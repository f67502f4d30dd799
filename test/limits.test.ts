/** Limits: per-agent tool-call rate (shared across keys and instances), concurrent bash per agent, slow clients. */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { RateLimiter } from '../src/http/rate-limit.js';
import { openStore } from '../src/store/open.js';
import { backends, createTestDatabase, testConfig } from './helpers/backends.js';
import { freePort, spawnServer, startServer, type TestServer } from './helpers/server.js';

for (const backend of backends()) {
  describe(`limits (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, { RATE_LIMIT_PER_MINUTE: '5', BASH_MAX_CONCURRENT_PER_AGENT: '1', HEADERS_TIMEOUT_MS: '300' });
    });
    after(() => s.close());

    it('per-agent rate limit: X-RateLimit-* on every tool response, then 429 RATE_LIMITED with Retry-After', async () => {
      const { apiKey } = await s.register('Rate');
      const remaining: number[] = [];
      for (let i = 0; i < 5; i++) {
        const sent = Date.now();
        const r = await s.call(apiKey, 'get_key_info');
        assert.equal(r.status, 200);
        assert.equal(r.headers.get('x-ratelimit-limit'), '5');
        remaining.push(Number(r.headers.get('x-ratelimit-remaining')));
        // get_key_info reports the same window, this call included.
        assert.deepEqual(
          { ...r.inner.usage.rate, resetAt: undefined },
          { limit: 5, used: i + 1, remaining: 4 - i, resetAt: undefined, per: 'agent' },
        );
        // Ahead of the request (not of now: the window may end between the answer and this line).
        assert.ok(Number(r.headers.get('x-ratelimit-reset')) * 1000 > sent);
      }
      assert.deepEqual(remaining, [4, 3, 2, 1, 0]);
      const over = await s.call(apiKey, 'get_key_info');
      assert.equal(over.status, 429);
      assert.equal(over.isError, true);
      assert.equal(over.inner.error.code, 'RATE_LIMITED');
      assert.ok(Number(over.headers.get('retry-after')) >= 1);
      assert.equal(over.headers.get('x-ratelimit-remaining'), '0');
      // Another agent has its own budget.
      const info = await s.register('Rate Two');
      assert.equal((await s.call(info.apiKey, 'get_key_info')).status, 200);
    });

    it('concurrent bash commands per agent are capped (429 with Retry-After), others are not delayed', async () => {
      const { apiKey } = await s.register('Busy');
      const slow = s.call(apiKey, 'bash', { command: 'sleep 1' });
      await new Promise((r) => setTimeout(r, 150));
      const second = await s.call(apiKey, 'bash', { command: 'echo hi' });
      assert.equal(second.status, 429);
      assert.equal(second.inner.error.code, 'RATE_LIMITED');
      assert.equal(second.headers.get('retry-after'), '1');
      const other = await s.register('Neighbour');
      const theirs = await s.call(other.apiKey, 'bash', { command: 'echo hi' });
      assert.equal(theirs.inner.stdout, 'hi\n');
      assert.equal((await slow).inner.exitCode, 0);
      assert.equal((await s.call(apiKey, 'bash', { command: 'echo again' })).inner.stdout, 'again\n');
    });

    it('a client that never finishes its headers is cut off', async () => {
      const u = new URL(s.url);
      const closed = await new Promise<{ ms: number; data: string }>((resolve, reject) => {
        const started = Date.now();
        let data = '';
        const sock = connect(Number(u.port), u.hostname, () => sock.write('POST /api/tools/read HTTP/1.1\r\nHost: x\r\n'));
        sock.on('data', (d) => (data += d.toString()));
        sock.on('close', () => resolve({ ms: Date.now() - started, data }));
        sock.on('error', reject);
        setTimeout(() => reject(new Error('connection still open after 5 s')), 5000).unref();
      });
      assert.ok(closed.ms < 3000, `closed after ${closed.ms} ms`);
      if (closed.data) assert.match(closed.data, /^HTTP\/1\.1 408/);
    });
  });
}

for (const backend of backends()) {
  describe(`rate limiter on a real store (${backend})`, () => {
    it('requests arriving while an instance learns the shared count do not count from zero', async () => {
      const db = await createTestDatabase(backend);
      const store = openStore(testConfig(db));
      await store.migrate();
      const limiter = new RateLimiter(store, 20);
      try {
        // Another instance already admitted 15 of this agent's 20 in the current window.
        const now = Date.now();
        const windowStart = now - (now % 60_000);
        await store.hitCounter('agent:agt_busy', windowStart, windowStart + 120_000, 15);
        const decisions = await Promise.all(Array.from({ length: 30 }, () => limiter.check('agt_busy', now)));
        assert.equal(decisions.filter((d) => d.allowed).length, 5);
        assert.deepEqual(
          decisions
            .filter((d) => d.allowed)
            .map((d) => d.remaining)
            .sort(),
          [0, 1, 2, 3, 4],
        );
        await limiter.flush();
        assert.equal(await store.hitCounter('agent:agt_busy', windowStart, windowStart + 120_000, 0), 20, 'the shared count is exact');
      } finally {
        limiter.close();
        await store.close();
        await db.drop();
      }
    });
  });
}

for (const backend of backends()) {
  describe(`rate limiter during a flush (${backend})`, () => {
    it('calls checked while a flush is adding the local count to the store still see that count', async () => {
      const db = await createTestDatabase(backend);
      const store = openStore(testConfig(db));
      await store.migrate();
      const limiter = new RateLimiter(store, 5);
      try {
        const now = Date.now();
        for (let i = 0; i < 5; i++) assert.equal((await limiter.check('agt_flush', now)).allowed, true);
        const flushing = limiter.flush(); // its store round trip is in flight
        const during = await limiter.check('agt_flush', now);
        await flushing;
        const afterwards = await limiter.check('agt_flush', now);
        assert.deepEqual([during.allowed, afterwards.allowed], [false, false]);
        assert.equal(limiter.peek('agt_flush', now).used, 5);
      } finally {
        limiter.close();
        await store.close();
        await db.drop();
      }
    });
  });
}

describe('the rate limit is shared by instances on one PostgreSQL database', () => {
  it(
    'two servers admit about the limit in total',
    { skip: !backends().includes('postgres') && 'PostgreSQL not selected (TEST_BACKENDS)' },
    async () => {
      const db = await createTestDatabase('postgres');
      const [pa, pb] = [await freePort(), await freePort()];
      const a = await spawnServer({ ...db.env, RATE_LIMIT_PER_MINUTE: '20' }, pa);
      const b = await spawnServer({ ...db.env, RATE_LIMIT_PER_MINUTE: '20' }, pb);
      try {
        const { apiKey } = await a.register('Shared');
        // The limit is per one-minute window: start the calls well inside one (they take ~3 s).
        const left = 60_000 - (Date.now() % 60_000);
        if (left < 10_000) await new Promise((r) => setTimeout(r, left + 100));
        // The budget is the agent's: instance B is called with another key of the same agent.
        const second = (await a.ok(apiKey, 'create_key', { label: 'on b', preset: 'read-only' })).apiKey as string;
        let admitted = 1;
        for (let i = 0; i < 15; i++) if ((await a.call(apiKey, 'get_key_info')).status === 200) admitted++;
        await new Promise((r) => setTimeout(r, 1500)); // several flush intervals, even on a loaded machine
        for (let i = 0; i < 15; i++) if ((await b.call(second, 'get_key_info')).status === 200) admitted++;
        // Without sharing B would admit 15 more (30 in all). Counts travel every 200 ms, so an
        // instance may admit one request the other already counted: the overshoot is bounded.
        assert.ok(admitted >= 20 && admitted <= 21, `instance B knew what A had admitted (${admitted} admitted, limit 20)`);
      } finally {
        await Promise.all([a.kill('SIGTERM'), b.kill('SIGTERM')]);
        await db.drop();
      }
    },
  );
});

/**
 * The server as a process: durability across kill -9, keys never logged, settings validated
 * at start, migrations safe to run twice and concurrently, graceful shutdown.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/backends.js';
import { freePort, spawnServer } from '../helpers/server.js';

const SERVER_JS = fileURLToPath(new URL('../../src/server.js', import.meta.url));
const MIGRATE_JS = fileURLToPath(new URL('../../src/migrate.js', import.meta.url));

for (const backend of backends()) {
  describe(`server process (${backend})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await createTestDatabase(backend);
    });
    after(() => db.drop());

    it('every acknowledged write survives kill -9, with its exact content and version', async () => {
      const port = await freePort();
      let server = await spawnServer(db.env, port);
      const { apiKey } = await server.register('Durable');
      const acked = new Map<string, { content: string; version: number }>();
      // The one write per writer that was sent but not answered when the process died: it
      // may or may not have committed, but nothing else may appear.
      const inflight = new Map<number, { path: string; content: string }>();
      let stop = false;
      const writers = Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; !stop; i++) {
          const path = `/d/w${w}/f${i % 5}.txt`;
          const content = `writer ${w} iteration ${i}\n`.repeat(1 + (i % 7));
          inflight.set(w, { path, content });
          try {
            const r = await server.call(apiKey, 'write', { path, content });
            if (r.inner?.success) acked.set(path, { content, version: r.inner.version });
            inflight.delete(w);
          } catch {
            return; // connection refused/reset after the kill: unacknowledged
          }
        }
      });
      // Kill in the middle of the load, once a good number of writes were acknowledged.
      for (let waited = 0; acked.size < 20 && waited < 10_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, Math.random() * 100));
      await server.kill('SIGKILL');
      stop = true;
      await Promise.all(writers);
      assert.ok(acked.size >= 8, `some writes were acknowledged (${acked.size})`);

      server = await spawnServer(db.env, port);
      try {
        for (const [path, want] of acked) {
          const r = await server.ok(apiKey, 'read', { path });
          const pending = [...inflight.values()].find((p) => p.path === path);
          if (pending && r.content === pending.content && r.content !== want.content) {
            assert.equal(r.version, want.version + 1, `${path}: the in-flight write committed on top of the acknowledged one`);
          } else {
            assert.equal(r.content, want.content, path);
            assert.equal(r.version, want.version, path);
          }
        }
      } finally {
        await server.kill('SIGTERM');
      }
    });

    it('the API key never appears in the logs (debug level, successes and failures)', async () => {
      const port = await freePort();
      const server = await spawnServer({ ...db.env, LOG_LEVEL: 'trace' }, port);
      const { apiKey } = await server.register('Logger');
      await server.ok(apiKey, 'write', { path: '/log/a.txt', content: 'x' });
      await server.ok(apiKey, 'read', { path: '/log/a.txt' });
      await server.call(apiKey, 'read', { path: '/log/missing.txt' });
      await server.call(apiKey, 'nope', {});
      await server.raw('/api/tools/read', { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: '{bad' });
      await server.call(apiKey.slice(0, -1) + 'Z', 'read', { path: '/x' });
      await server.kill('SIGTERM');
      const out = server.output();
      assert.ok(out.includes('request completed'), 'requests were logged');
      assert.ok(!out.includes(apiKey), 'key must not be logged');
      assert.ok(!out.includes(apiKey.slice(3)), 'key body must not be logged');
    });

    it('SIGTERM: exits 0 after finishing; in-flight calls complete', async () => {
      const port = await freePort();
      const server = await spawnServer(db.env, port);
      const { apiKey } = await server.register('Graceful');
      const inflight = Array.from({ length: 20 }, (_, i) => server.call(apiKey, 'write', { path: `/g/${i}.txt`, content: `x${i}` }));
      server.child.kill('SIGTERM');
      const results = await Promise.allSettled(inflight);
      const code = await server.exited;
      assert.equal(code, 0, server.output());
      // Every call either completed successfully or was never accepted (connection refused), never a 5xx.
      for (const r of results) if (r.status === 'fulfilled') assert.ok(r.value.status === 200 || r.value.status === 503, String(r.value.status));
    });

    it('WORKERS=2: a cluster of two processes serves the same data and stops cleanly on SIGTERM', async () => {
      const port = await freePort();
      const server = await spawnServer({ ...db.env, WORKERS: '2' }, port);
      const { apiKey } = await server.register('Cluster');
      const writes = await Promise.all(Array.from({ length: 20 }, (_, i) => server.ok(apiKey, 'write', { path: `/c/${i}.txt`, content: `n${i}` })));
      assert.equal(writes.length, 20);
      const listed = await server.ok(apiKey, 'list', { path: '/c' });
      assert.equal(listed.entries.length, 20);
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0, server.output());
    });

    it('migrations: `npm run migrate` twice, and two servers starting at once on one database', async () => {
      for (let i = 0; i < 2; i++) {
        const r = spawnSync(process.execPath, [MIGRATE_JS], { env: { ...process.env, ...db.env }, encoding: 'utf8' });
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, /migrations: 0 applied/); // the schema exists from the earlier tests
      }
      const fresh = await createTestDatabase(backend, { empty: true });
      try {
        const [p1, p2] = [await freePort(), await freePort()];
        const [a, b] = await Promise.all([spawnServer(fresh.env, p1), spawnServer(fresh.env, p2)]);
        const { apiKey } = await a.register('Twin');
        await a.ok(apiKey, 'write', { path: '/twin.txt', content: 'one' });
        assert.equal((await b.ok(apiKey, 'read', { path: '/twin.txt' })).content, 'one');
        await Promise.all([a.kill('SIGTERM'), b.kill('SIGTERM')]);
      } finally {
        await fresh.drop();
      }
    });
  });
}

describe('settings are validated at start', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /PORT must be an integer/],
    [{ PORT: '70000' }, /PORT must be an integer from 0 to 65535/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must start with postgres/],
    [{ BASE_URL: 'not a url' }, /BASE_URL must be a URL/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    [{ MAX_FILE_BYTES: '-1' }, /MAX_FILE_BYTES must be an integer/],
    [{ SQLITE_SYNCHRONOUS: 'off' }, /SQLITE_SYNCHRONOUS must be one of normal, full/],
    [{ TRUST_PROXY: 'maybe' }, /TRUST_PROXY must be false, a hop count/],
    [{ WORKERS: '0' }, /WORKERS must be an integer from 1 to 64 or "auto"/],
  ];
  for (const [env, expected] of cases) {
    it(`${Object.keys(env)[0]}=${Object.values(env)[0]} stops the server with a one-line reason`, () => {
      const r = spawnSync(process.execPath, [SERVER_JS], {
        env: { ...process.env, DATA_DIR: '/tmp/afs-never', ...env },
        encoding: 'utf8',
        timeout: 10_000,
      });
      assert.equal(r.status, 1);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, expected);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    });
  }

  it('an unreachable PostgreSQL stops the server with a one-line reason', () => {
    const r = spawnSync(process.execPath, [SERVER_JS], {
      env: { ...process.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', PORT: '0' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(r.status, 1);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /cannot prepare the postgres store/);
  });
});

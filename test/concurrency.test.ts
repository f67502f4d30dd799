/**
 * Concurrent writers (the edit contract, rule 4): of 50 concurrent edits against the same
 * expectedVersion exactly one succeeds and 49 get EDIT_CONFLICT; 50 concurrent plain appends or
 * edits lose no update. Run in-process on both backends, and with two server processes sharing
 * one database (PostgreSQL; also one SQLite file), the requests split between them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends, createTestDatabase, type TestDatabase } from './helpers/backends.js';
import { freePort, spawnServer, startServer, type ChildServer, type Client, type TestServer } from './helpers/server.js';

const N = 50;

/** The client that sends request i (round-robin over the servers). */
const via = (clients: Client[], i: number) => clients[i % clients.length]!;

async function latestSeq(c: Client, key: string): Promise<number> {
  return (await c.ok(key, 'list_changes', { limit: 1 })).changesets[0]?.seq ?? 0;
}

async function editsAgainstOneBase(clients: Client[], key: string, path: string): Promise<void> {
  const c0 = clients[0]!;
  const filler = Array.from({ length: 20 }, (_, i) => `filler ${i}`).join('\n');
  const base = await c0.ok(key, 'write', { path, content: `${filler}\nvalue: base\n${filler}\n` });
  const seq = await latestSeq(c0, key);
  const results = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      via(clients, i).call(key, 'edit', { path, old_string: 'value: base', new_string: `value: writer-${i}`, expectedVersion: base.version }),
    ),
  );
  for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.body));
  const winners = results.map((r, i) => ({ r, i })).filter(({ r }) => !r.isError);
  const losers = results.filter((r) => r.isError);
  assert.equal(winners.length, 1, `exactly one edit succeeds (got ${winners.length})`);
  assert.equal(losers.length, N - 1);
  const { r: win, i: winner } = winners[0]!;
  assert.equal(win.inner.applied, true);
  assert.equal(win.inner.version, base.version + 1);
  for (const l of losers) {
    assert.equal(l.inner.error.code, 'EDIT_CONFLICT', JSON.stringify(l.inner));
    assert.equal(l.inner.error.details.current.version, base.version + 1);
    assert.equal(l.inner.error.details.current.updatedAt, win.inner.updatedAt);
    assert.equal(l.inner.error.details.current.by.label, 'default');
  }
  const final = await c0.ok(key, 'read', { path });
  assert.equal(final.content, `${filler}\nvalue: writer-${winner}\n${filler}\n`);
  assert.equal(final.version, base.version + 1);
  const changes = (await c0.ok(key, 'list_changes', { afterSeq: seq })).changesets;
  assert.equal(changes.length, 1, 'one changeset');
}

async function plainAppends(clients: Client[], key: string, path: string): Promise<void> {
  const c0 = clients[0]!;
  const base = await c0.ok(key, 'write', { path, content: 'header\n' });
  const seq = await latestSeq(c0, key);
  const results = await Promise.all(Array.from({ length: N }, (_, i) => via(clients, i).call(key, 'append', { path, content: `entry ${i}\n` })));
  for (const r of results) assert.equal(r.inner?.success, true, JSON.stringify(r.body));
  const versions = results.map((r) => r.inner.version as number).sort((a, b) => a - b);
  assert.deepEqual(
    versions,
    Array.from({ length: N }, (_, i) => base.version + 1 + i),
    'every append got its own version',
  );
  const final = await c0.ok(key, 'read', { path });
  const lines = final.content.split('\n');
  assert.equal(lines.shift(), 'header');
  assert.equal(lines.pop(), '');
  assert.deepEqual([...lines].sort(), Array.from({ length: N }, (_, i) => `entry ${i}`).sort(), 'all 50 appends, each once');
  assert.equal(final.version, base.version + N);
  // The last append's answer describes the final content.
  const last = results.reduce((a, b) => (b.inner.version > a.inner.version ? b : a));
  assert.equal(last.inner.size, Buffer.byteLength(final.content));
  assert.equal(last.inner.contentHash, final.contentHash);
  const changes = (await c0.ok(key, 'list_changes', { afterSeq: seq, limit: 200 })).changesets;
  assert.equal(changes.length, N);
}

async function plainEdits(clients: Client[], key: string, path: string): Promise<void> {
  const c0 = clients[0]!;
  const slots = Array.from({ length: N }, (_, i) => `slot ${i}: todo`);
  const base = await c0.ok(key, 'write', { path, content: slots.join('\n') + '\n' });
  const results = await Promise.all(
    Array.from({ length: N }, (_, i) => via(clients, i).call(key, 'edit', { path, old_string: `slot ${i}: todo`, new_string: `slot ${i}: done` })),
  );
  for (const r of results) assert.equal(r.inner?.success, true, JSON.stringify(r.body));
  const final = await c0.ok(key, 'read', { path });
  assert.equal(final.content, Array.from({ length: N }, (_, i) => `slot ${i}: done`).join('\n') + '\n');
  assert.equal(final.version, base.version + N);
  assert.equal(new Set(results.map((r) => r.inner.version)).size, N);
}

for (const backend of backends()) {
  describe(`concurrent writers, one server (${backend})`, () => {
    let s: TestServer;
    let key: string;
    before(async () => {
      s = await startServer(backend, { RATE_LIMIT_PER_MINUTE: '1000000' });
      key = (await s.register('Racer')).apiKey;
    });
    after(() => s.close());

    it(`${N} concurrent edits against the same expectedVersion: exactly one succeeds, ${N - 1} get EDIT_CONFLICT`, () =>
      editsAgainstOneBase([s], key, '/race/base.txt'));
    it(`${N} concurrent plain appends to one file lose no update`, () => plainAppends([s], key, '/race/append.log'));
    it(`${N} concurrent plain edits to one file lose no update`, () => plainEdits([s], key, '/race/slots.txt'));
  });
}

// PostgreSQL is the multi-instance deployment; SQLite in WAL mode also serves two processes on one file.
for (const backend of backends()) {
  describe(`concurrent writers, two server processes sharing one ${backend === 'postgres' ? 'PostgreSQL database' : 'SQLite file'}`, () => {
    let db: TestDatabase;
    let servers: ChildServer[] = [];
    let key: string;
    before(async () => {
      db = await createTestDatabase(backend);
      const env = { ...db.env, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '1000000' };
      const [p1, p2] = [await freePort(), await freePort()];
      // Start one first so the second finds the schema migrated.
      servers = [await spawnServer(env, p1)];
      servers.push(await spawnServer(env, p2));
      key = (await servers[0]!.register('Two Process Racer')).apiKey;
      // The key works on both instances.
      await servers[1]!.ok(key, 'get_key_info');
    });
    after(async () => {
      await Promise.all(servers.map((sv) => sv.kill('SIGTERM')));
      await db.drop();
    });

    it(`${N} edits against the same expectedVersion split over both: exactly one succeeds`, () =>
      editsAgainstOneBase(servers, key, '/race/base.txt'));
    it(`${N} plain appends split over both lose no update`, () => plainAppends(servers, key, '/race/append.log'));
    // One burst rarely needs more than 8 retries on an idle machine; repeated bursts find the tail
    // where a writer loses a dozen races in a row (spurious EDIT_CONFLICT before retries were timed).
    it(`three more bursts of ${N} appends split over both: no spurious EDIT_CONFLICT`, async () => {
      for (let round = 0; round < 3; round++) await plainAppends(servers, key, `/race/burst-${round}.log`);
    });
    it(`${N} plain edits split over both lose no update`, () => plainEdits(servers, key, '/race/slots.txt'));
    it('a retried edit or delete with the same idempotencyKey, sent to both processes at once, applies once', async () => {
      const [a, b] = servers as [ChildServer, ChildServer];
      await a.ok(key, 'write', { path: '/race/idem-edit.txt', content: 'abc\n' });
      await a.ok(key, 'write', { path: '/race/idem-del.txt', content: 'x' });
      for (const [tool, input] of [
        ['edit', { path: '/race/idem-edit.txt', old_string: 'abc', new_string: 'xyz' }],
        ['delete', { path: '/race/idem-del.txt' }],
      ] as const) {
        const seq = await latestSeq(a, key);
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => (i % 2 ? b : a).call(key, tool, { ...input, idempotencyKey: `two-${tool}` })),
        );
        const summary = JSON.stringify(results.map((r) => (r.isError ? r.inner.error.code : r.inner.changesetId)));
        for (const r of results) assert.equal(r.inner.success, true, `${tool}: ${summary}`);
        assert.equal(new Set(results.map((r) => r.inner.changesetId)).size, 1, `${tool}: ${summary}`);
        assert.equal(await latestSeq(a, key), seq + 1);
      }
      assert.equal((await b.ok(key, 'read', { path: '/race/idem-edit.txt' })).content, 'xyz\n');
    });
    it('the other process reads every committed version', async () => {
      const a = await servers[0]!.ok(key, 'list_versions', { path: '/race/append.log', limit: 200 });
      const b = await servers[1]!.ok(key, 'list_versions', { path: '/race/append.log', limit: 200 });
      assert.equal(a.versions.length, N + 1);
      assert.deepEqual(b.versions, a.versions);
    });
  });
}

// Another process (here: this test's own connection) holding the SQLite file's write lock must
// delay only the writes of a server, never its event loop, and past the busy timeout a write
// fails with a retryable 503 instead of hanging.
if (backends().includes('sqlite')) {
  describe('another process holding the SQLite write lock', () => {
    const BUSY_MS = 1500;
    let db: TestDatabase;
    let server: ChildServer;
    let key: string;
    let file: string;
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    before(async () => {
      db = await createTestDatabase('sqlite');
      server = await spawnServer({ ...db.env, LOG_LEVEL: 'warn', SQLITE_BUSY_TIMEOUT_MS: String(BUSY_MS) }, await freePort());
      key = (await server.register('Lock Holder')).apiKey;
      await server.ok(key, 'write', { path: '/other.txt', content: 'readable\n' });
      file = `${db.env.DATA_DIR}/afs.sqlite`;
    });
    after(async () => {
      await server.kill('SIGTERM');
      await db.drop();
    });

    it('a write waits for the lock while reads keep answering; it lands once the lock is released', async () => {
      const Database = (await import('better-sqlite3')).default;
      const holder = new Database(file);
      holder.exec('BEGIN IMMEDIATE');
      const write = server.call(key, 'write', { path: '/locked.txt', content: 'after the lock\n' });
      await sleep(100);
      const readTimes: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t0 = Date.now();
        assert.equal((await server.ok(key, 'read', { path: '/other.txt' })).content, 'readable\n');
        readTimes.push(Date.now() - t0);
      }
      await sleep(Math.max(0, 700 - readTimes.reduce((a, b) => a + b, 0)));
      holder.exec('COMMIT');
      holder.close();
      const w = await write;
      assert.equal(w.inner?.success, true, JSON.stringify(w.body));
      assert.equal((await server.ok(key, 'read', { path: '/locked.txt' })).content, 'after the lock\n');
      // Before writes polled for the lock, SQLite's busy handler slept on the event loop: every
      // read issued meanwhile waited for the lock holder (≥ 600 ms).
      assert.ok(Math.max(...readTimes) < 300, `reads answered in ${readTimes.join(', ')} ms while the lock was held`);
    });

    it(`held past SQLITE_BUSY_TIMEOUT_MS (${BUSY_MS} ms): 503 UNAVAILABLE with retry-after, nothing written`, async () => {
      const Database = (await import('better-sqlite3')).default;
      const holder = new Database(file);
      holder.exec('BEGIN IMMEDIATE');
      try {
        const t0 = Date.now();
        const r = await server.call(key, 'write', { path: '/never.txt', content: 'x' });
        const waited = Date.now() - t0;
        assert.equal(r.status, 503, JSON.stringify(r.body));
        assert.equal(r.isError, true);
        assert.equal(r.inner.error.code, 'UNAVAILABLE');
        assert.match(r.inner.error.message, /locked by another process.*nothing was written.*Retry/);
        assert.ok(r.inner.error.details.waitedMs >= BUSY_MS);
        assert.equal(r.headers.get('retry-after'), '1');
        assert.ok(waited >= BUSY_MS && waited < BUSY_MS + 2000, `answered after ${waited} ms`);
      } finally {
        holder.exec('COMMIT');
        holder.close();
      }
      await server.fail(key, 'read', { path: '/never.txt' }, 'NOT_FOUND');
      assert.equal((await server.ok(key, 'write', { path: '/never.txt', content: 'x' })).version, 1);
    });
  });
}

/**
 * PostgreSQL group commit (store/pg-group-commit.ts): an agent's concurrent commits share one
 * transaction, each in a savepoint. Through the tools: they are batched (fewer transactions than
 * commits), each answers as if alone, a commit that fails inside a batch (the storage quota) undoes
 * only itself — no blob, node, version, changeset or usage of it remains — and the changes feed
 * stays gap-free in commit order. SQLite has had group commit from the start (store/sqlite.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { GroupCommit } from '../src/store/pg-group-commit.js';
import type { PgDb } from '../src/store/postgres-db.js';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const N = 40;
const SIZE = 1000;
const body = (i: number) => `${String(i).padStart(4, '0')}:`.padEnd(SIZE, 'x');

if (backends().includes('postgres')) {
  describe('group commit (postgres)', () => {
    let s: TestServer;
    // Room for 25 of the 40 files (plus the registration's own few bytes).
    const QUOTA = 25 * SIZE + 500;
    before(async () => {
      s = await startServer('postgres', { STORAGE_QUOTA_BYTES: String(QUOTA) });
    });
    after(async () => {
      await s.close();
    });

    it('concurrent commits of one agent share transactions; one refused inside a batch undoes only itself', async () => {
      const a = await s.register('batcher');
      const before = await s.ok(a.apiKey, 'get_key_info');
      const seq0 = (await s.ok(a.apiKey, 'list_changes', { limit: 1 })).changesets[0]?.seq ?? 0;
      let transactions = 0;
      s.store.observe({ committed: () => void transactions++ });
      const results = await Promise.all(Array.from({ length: N }, (_, i) => s.call(a.apiKey, 'write', { path: `/g/f${i}.txt`, content: body(i) })));
      s.store.observe(null);

      const ok = results.map((r, i) => ({ r, i })).filter(({ r }) => !r.isError);
      const refused = results.map((r, i) => ({ r, i })).filter(({ r }) => r.isError);
      for (const { r } of refused) assert.equal(r.inner.error.code, 'QUOTA_EXCEEDED', JSON.stringify(r.inner));
      assert.equal(ok.length, Math.floor((QUOTA - before.usage.storageBytes) / SIZE), 'the quota admits exactly what fits');
      assert.ok(transactions < ok.length, `batched: ${transactions} transactions for ${ok.length} commits`);

      // Usage, files and the feed hold exactly the admitted commits.
      const info = await s.ok(a.apiKey, 'get_key_info');
      assert.equal(info.usage.storageBytes, before.usage.storageBytes + ok.length * SIZE);
      assert.equal(info.usage.fileCount, before.usage.fileCount + ok.length + 1, 'the files and their directory /g');
      for (const { i } of ok) assert.equal((await s.ok(a.apiKey, 'read', { path: `/g/f${i}.txt` })).content, body(i));
      for (const { i } of refused) assert.equal((await s.call(a.apiKey, 'stat', { path: `/g/f${i}.txt` })).inner.error.code, 'NOT_FOUND');
      const feed = (await s.ok(a.apiKey, 'list_changes', { afterSeq: seq0, limit: 100 })).changesets;
      assert.deepEqual(
        feed.map((c: { seq: number }) => c.seq),
        Array.from({ length: ok.length }, (_, k) => seq0 + 1 + k),
        'one changeset per admitted commit, no gap',
      );
      const written = feed.flatMap((c: { entries: Array<{ path: string }> }) => c.entries.map((e) => e.path).filter((p) => p.endsWith('.txt')));
      assert.deepEqual(written.sort(), ok.map(({ i }) => `/g/f${i}.txt`).sort());
      assert.deepEqual(
        results
          .filter((r) => !r.isError)
          .map((r) => r.inner.changesetId)
          .sort(),
        feed.map((c: { changesetId: string }) => c.changesetId).sort(),
        'each answer names its own changeset',
      );

      // Nothing of a refused commit stayed behind in the database (its blob included).
      const c = new pg.Client({ connectionString: s.config.databaseUrl });
      await c.connect();
      try {
        const blobs = await c.query('SELECT count(*)::int AS n FROM blobs WHERE agent_id = $1 AND size = $2', [a.id, SIZE]);
        assert.equal(blobs.rows[0].n, ok.length);
        const versions = await c.query("SELECT count(*)::int AS n FROM versions WHERE agent_id = $1 AND path LIKE '/g/%'", [a.id]);
        assert.equal(versions.rows[0].n, ok.length);
      } finally {
        await c.end();
      }
    });
  });
}

/**
 * A stand-in for PgDb.tx: runs the callback on a client that records its statements, with the
 * failures a test asks for (no connection, a failing statement, a failing COMMIT).
 */
function fakeDb(opts: { noConnection?: boolean; failOn?: string; failCommit?: boolean } = {}) {
  const log: string[] = [];
  let transactions = 0;
  const client = {
    async query(text: string) {
      await new Promise((r) => setImmediate(r));
      if (opts.failOn && text === opts.failOn) throw new Error(`connection lost at ${text}`);
      log.push(text);
      return { rows: [], rowCount: 0 };
    },
  };
  const db = {
    async tx(fn: (c: typeof client) => Promise<unknown>) {
      transactions++;
      if (opts.noConnection) throw new Error('timeout exceeded when trying to connect');
      log.push('BEGIN');
      try {
        const r = await fn(client);
        if (opts.failCommit) throw new Error('COMMIT failed');
        log.push('COMMIT');
        return r;
      } catch (err) {
        log.push('ROLLBACK');
        throw err;
      }
    },
  };
  return { group: new GroupCommit(db as unknown as PgDb), log, transactions: () => transactions };
}

/** A commit that records itself, waits a turn (so others queue behind it), and fails when told. */
const commit =
  (log: string[], name: string, fail = false) =>
  async (c: { query(t: string): Promise<unknown> }) => {
    await c.query(`-- ${name}`);
    if (fail) throw new Error(`${name} refused`);
    return name;
  };

describe('group commit: each commit answers for itself (a stand-in connection)', () => {
  it('commits queued behind an open transaction join it in savepoints; one that fails is rolled back to its savepoint alone', async () => {
    const { group, log, transactions } = fakeDb();
    const results = await Promise.allSettled(['a', 'b', 'c', 'd'].map((n) => group.run('agt_1', commit(log, n, n === 'c'))));
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason))),
      ['a', 'b', 'Error: c refused', 'd'],
    );
    assert.equal(transactions(), 1);
    assert.deepEqual(log, [
      'BEGIN',
      '-- a',
      'SAVEPOINT g',
      '-- b',
      'RELEASE SAVEPOINT g; SAVEPOINT g',
      '-- c',
      'ROLLBACK TO SAVEPOINT g',
      'RELEASE SAVEPOINT g; SAVEPOINT g',
      '-- d',
      'COMMIT',
    ]);
  });

  it("the first commit's failure rolls back only it; the others run in the next transaction", async () => {
    const { group, log, transactions } = fakeDb();
    const results = await Promise.allSettled(['a', 'b', 'c'].map((n) => group.run('agt_1', commit(log, n, n === 'a'))));
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'fulfilled', 'fulfilled'],
    );
    assert.equal(transactions(), 2);
    assert.deepEqual(log, ['BEGIN', '-- a', 'ROLLBACK', 'BEGIN', '-- b', 'SAVEPOINT g', '-- c', 'COMMIT']);
  });

  it('a failed COMMIT fails every commit of the transaction; a connection lost at a savepoint fails the commits of that transaction, and the next one starts anew', async () => {
    const settled = async (opts: object) => {
      const { group } = fakeDb(opts);
      const results = await Promise.allSettled(['a', 'b', 'c'].map((n) => group.run('agt_1', commit([], n))));
      return results.map((r) => r.status);
    };
    assert.deepEqual(await settled({ failCommit: true }), ['rejected', 'rejected', 'rejected']);
    // a ran, b was joining when SAVEPOINT failed: both were in the lost transaction; c was still queued.
    assert.deepEqual(await settled({ failOn: 'SAVEPOINT g' }), ['rejected', 'rejected', 'fulfilled']);
  });

  it('no connection at all: every commit queued fails at once instead of waiting out the timeout in turn', async () => {
    const { group, transactions } = fakeDb({ noConnection: true });
    const results = await Promise.allSettled(['a', 'b', 'c', 'd'].map((n) => group.run('agt_1', commit([], n))));
    assert.ok(results.every((r) => r.status === 'rejected' && /connect/.test(String(r.reason))));
    assert.equal(transactions(), 1);
  });

  it('agents do not share transactions', async () => {
    const { group, transactions } = fakeDb();
    await Promise.all(['agt_1', 'agt_2', 'agt_3'].map((a) => group.run(a, commit([], a))));
    assert.equal(transactions(), 3);
  });
});

/**
 * PostgreSQL's planner statistics follow a young database (store/planner-stats.ts): a hot table
 * whose rows changed by at least their number at its last analysis (and ≥ MIN_CHANGES) is
 * analyzed, which makes every pooled connection re-plan its prepared statements; fewer changes,
 * or a table analyzed since, are left alone. SQLite has nothing to do. And the background writes
 * that are redone when lost (packer, search indexer) commit without waiting for their WAL flush.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startPlannerStats } from '../src/store/maintenance.js';
import { MIN_CHANGES } from '../src/store/planner-stats.js';
import { PgDb } from '../src/store/postgres-db.js';
import { get, sql } from '../src/store/sql.js';
import { backends, createTestDatabase } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

/** Inserts `n` blobs of the agent on a connection of our own, and makes its statistics visible now. */
async function insertBlobs(s: TestServer, agentId: string, from: number, n: number): Promise<void> {
  const c = new pg.Client({ connectionString: s.config.databaseUrl });
  await c.connect();
  try {
    await c.query(
      `INSERT INTO blobs (agent_id, hash, size, content) SELECT $1, 'sha256:t' || g, 1, '\\x00'::bytea FROM generate_series($2::int, $3::int) g`,
      [agentId, from, from + n - 1],
    );
    // A backend reports its table counts at most once a second unless told to.
    await c.query('SELECT pg_stat_force_next_flush()');
    await c.query('SELECT 1');
  } finally {
    await c.end();
  }
}

for (const backend of backends()) {
  describe(`planner statistics (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend);
    });
    after(async () => {
      await s.close();
    });

    if (backend === 'sqlite') {
      it('SQLite: nothing to analyze', async () => {
        assert.deepEqual(await s.store.refreshPlannerStats(), []);
      });
      return;
    }

    it('analyzes a hot table once its changes reach its size (and MIN_CHANGES), then not again until they do', async () => {
      const alice = await s.register('alice');
      // The fresh database's own changes (registration) are below the threshold everywhere.
      await s.store.refreshPlannerStats();
      await insertBlobs(s, alice.id, 0, MIN_CHANGES - 100);
      assert.deepEqual(await s.store.refreshPlannerStats(), [], 'fewer than MIN_CHANGES changes');
      await insertBlobs(s, alice.id, 10_000, 100);
      assert.deepEqual(await s.store.refreshPlannerStats(), ['blobs']);
      assert.deepEqual(await s.store.refreshPlannerStats(), [], 'analyzed: nothing changed since');
      // Now ~500 rows are known: 499 more changes are not enough, the 500th is.
      await insertBlobs(s, alice.id, 20_000, MIN_CHANGES - 1);
      assert.deepEqual(await s.store.refreshPlannerStats(), []);
      await insertBlobs(s, alice.id, 30_000, 1);
      assert.deepEqual(await s.store.refreshPlannerStats(), ['blobs']);
    });
  });
}

describe('the planner statistics timer', () => {
  it('reports the tables analyzed and the failures, retries at the next interval, never overlaps', async () => {
    const heard: string[][] = [];
    const errors: unknown[] = [];
    let calls = 0;
    let active = 0;
    let overlapped = false;
    const fake = {
      async refreshPlannerStats() {
        calls++;
        if (++active > 1) overlapped = true;
        await new Promise((r) => setTimeout(r, 20));
        active--;
        if (calls === 2) throw new Error('database unreachable');
        return calls === 1 ? ['nodes'] : [];
      },
    };
    const timer = startPlannerStats(fake, { intervalMs: 5, onAnalyzed: (t) => heard.push(t), onError: (e) => errors.push(e) });
    const deadline = Date.now() + 5000;
    while (calls < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await timer.stop();
    assert.deepEqual(heard, [['nodes']], 'only non-empty analyses are reported');
    assert.match(String(errors[0]), /database unreachable/);
    assert.ok(calls >= 3, 'retried after the failure');
    assert.equal(overlapped, false);
  });
});

if (backends().includes('postgres')) {
  describe('PostgreSQL writes that are redone when lost (WriteOptions.durable)', () => {
    it('commit with synchronous_commit off for their own transaction only; every other write waits for its flush', async () => {
      const db = await createTestDatabase('postgres');
      const pool = new pg.Pool({ connectionString: db.env.DATABASE_URL, max: 1 });
      try {
        const pgDb = new PgDb(pool);
        const mode = sql`SELECT current_setting('synchronous_commit')`;
        const read = (opts: object) => pgDb.write(() => get(mode, []), opts);
        assert.deepEqual(await read({ durable: false }), ['off']);
        assert.deepEqual(await read({ durable: false, agentLock: { agentId: 'agt_x', exclusive: false } }), ['off']);
        // The same pooled connection afterwards: SET LOCAL ended with its transaction.
        assert.deepEqual(await read({}), ['on']);
        assert.deepEqual(await read({ atomic: true }), ['on']);
      } finally {
        await pool.end();
        await db.drop();
      }
    });
  });
}

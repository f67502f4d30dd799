/**
 * PostgreSQL's planner statistics follow a young database (store/planner-stats.ts): a hot table
 * whose rows changed by at least their number at its last analysis (and ≥ MIN_CHANGES) is
 * analyzed, which makes every pooled connection re-plan its prepared statements; fewer changes,
 * or a table analyzed since, are left alone. SQLite has nothing to do.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { MIN_CHANGES } from '../src/store/planner-stats.js';
import { backends } from './helpers/backends.js';
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

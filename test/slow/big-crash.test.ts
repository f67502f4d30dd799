/**
 * Crash safety of big commits (item 5): on SQLite they run in a writer thread on a
 * connection of their own, on PostgreSQL as one statement per thousand changes, and their entries
 * are stored in chunks. The server runs as a child process; a recursive copy of a directory of
 * 6,000 files is killed with SIGKILL at a random moment while it runs, five times per backend. After each
 * restart the copy is there whole or not at all (whole if it was acknowledged), and the file
 * count of get_key_info matches the tree; after the last kill, with the server down, SQLite's
 * integrity_check passes and every stored changeset's entry count matches its versions and chunks.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/backends.js';
import { freePort, spawnServer, type ChildServer } from '../helpers/server.js';

const FILES = 1500;
const COPIES = 4;
const KILLS = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const backend of backends()) {
  describe(`kill -9 during big commits (${backend})`, () => {
    let db: TestDatabase;
    let port: number;
    let server: ChildServer | null = null;
    let key: string;
    before(async () => {
      db = await createTestDatabase(backend);
      port = await freePort();
    });
    after(async () => {
      await server?.kill('SIGKILL');
      await db.drop();
    });

    /** How many live nodes are at or below `dir` (0 when it does not exist). */
    async function count(dir: string): Promise<number> {
      const st = await server!.call(key, 'stat', { path: dir });
      if (st.isError) {
        assert.equal(st.inner.error.code, 'NOT_FOUND', JSON.stringify(st.inner));
        return 0;
      }
      let n = 1;
      for (let cursor: string | undefined; ;) {
        const page = await server!.ok(key, 'list', { path: dir, recursive: true, ...(cursor ? { cursor } : {}) });
        n += page.entries.length;
        if (!page.nextCursor) return n;
        cursor = page.nextCursor;
      }
    }

    it(`a copy of ${FILES} files killed at a random moment is there whole or not at all`, async () => {
      server = await spawnServer({ ...db.env }, port);
      key = (await server.register('Crash Big')).apiKey;
      // One bash call: one changeset of FILES + 1 changes, itself a big commit.
      const made = await server.ok(key, 'bash', { command: `mkdir /big && for i in $(seq 1 ${FILES}); do echo "file $i" > /big/f$i.txt; done` });
      assert.equal(made.exitCode, 0, made.stderr);
      assert.equal(await count('/big'), FILES + 1);
      for (let i = 1; i <= COPIES; i++) await server.ok(key, 'copy', { from: '/big', to: `/x/big${i}` });
      const size = 1 + COPIES * (FILES + 1); // /x and its copies
      const t0 = performance.now();
      await server.ok(key, 'copy', { from: '/x', to: '/c0' });
      const copyMs = performance.now() - t0;
      let live = FILES + 1 + 2 * size;
      const outcomes: string[] = [];
      for (let k = 1; k <= KILLS; k++) {
        let acked = false;
        const call = server.call(key, 'copy', { from: '/x', to: `/c${k}` }).then(
          (r) => (acked = r.status === 200 && !r.isError),
          () => undefined, // the kill resets the connection
        );
        await sleep(copyMs * (0.3 + 1.2 * Math.random())); // mostly while it commits; now and then after
        await server.kill('SIGKILL');
        await call;
        server = await spawnServer({ ...db.env }, port);
        const n = await count(`/c${k}`);
        assert.ok(n === 0 || n === size, `/c${k} holds ${n} of ${size} nodes after the kill`);
        if (acked) assert.equal(n, size, `/c${k}: the acknowledged copy is whole`);
        outcomes.push(n ? (acked ? 'acknowledged' : 'applied, unacknowledged') : 'absent');
        live += n;
        assert.equal((await server.ok(key, 'get_key_info')).usage.fileCount, live, 'the file count matches the tree');
      }
      console.log(`copy of ${size} nodes takes ~${copyMs.toFixed(0)} ms; after the kills: ${outcomes.join(', ')}`);
      await server.kill('SIGKILL');
      server = null;

      // With the server down: the file and the changesets' entries, through SQL.
      const checks = {
        entries: `SELECT c.id, c.entry_count, (SELECT COUNT(*) FROM versions v WHERE v.agent_id = c.agent_id AND v.changeset_id = c.id) AS versions
                     FROM changesets c WHERE c.entry_count IS NOT NULL`,
        chunks: 'SELECT changeset_id, entries FROM changeset_entry_chunks',
        nodes: 'SELECT a.node_count, (SELECT COUNT(*) FROM nodes n WHERE n.agent_id = a.id AND NOT n.deleted) AS live FROM agents a',
      };
      let rows: Record<keyof typeof checks, any[]>;
      if (backend === 'sqlite') {
        const sql = new Database(join(db.env.DATA_DIR!, 'afs.sqlite'), { readonly: true, fileMustExist: true });
        try {
          assert.equal((sql.pragma('integrity_check') as Array<{ integrity_check: string }>)[0]!.integrity_check, 'ok');
          rows = Object.fromEntries(
            Object.entries(checks).map(([k, q]) => [k, sql.prepare(q.replace('NOT n.deleted', 'n.deleted = 0')).all()]),
          ) as typeof rows;
        } finally {
          sql.close();
        }
      } else {
        const client = new pg.Client({ connectionString: db.env.DATABASE_URL });
        await client.connect();
        try {
          rows = {} as typeof rows;
          for (const [k, q] of Object.entries(checks)) rows[k as keyof typeof checks] = (await client.query(q)).rows;
        } finally {
          await client.end();
        }
      }
      const chunked = new Map<string, number>();
      for (const c of rows.chunks) chunked.set(c.changeset_id, (chunked.get(c.changeset_id) ?? 0) + JSON.parse(c.entries).length);
      for (const c of rows.entries) {
        assert.equal(Number(c.versions), Number(c.entry_count), `changeset ${c.id}: a version per entry`);
        if (Number(c.entry_count) > 100) assert.equal(chunked.get(c.id), Number(c.entry_count), `changeset ${c.id}: every entry in its chunks`);
      }
      assert.ok(
        [...chunked.keys()].every((id) => rows.entries.some((c) => c.id === id)),
        'no chunks of a changeset that was rolled back',
      );
      for (const a of rows.nodes) assert.equal(Number(a.node_count), Number(a.live), 'node_count is the live nodes');
    });
  });
}

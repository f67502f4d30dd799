/**
 * The search index survives kill -9: the server is killed at a random moment while
 * its indexer drains a backlog of files just written and deleted (on SQLite the drain runs on the
 * indexer thread, store/sqlite-indexer-thread.ts), five times per backend. After every restart
 * the outbox is drained again; at the end every live file is found by the word only it holds,
 * under its own path only, no deleted file is found, the index holds exactly one document per
 * live file, and on SQLite the FTS5 index passes its own integrity check.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { backends, type Backend, type TestDatabase } from '../helpers/backends.js';
import { childServerSuite, spawnServer } from '../helpers/server.js';

const ROUNDS = 5;
const FILES_PER_ROUND = 2000;
const DELETES_PER_ROUND = 60;

/** Words every file shares (so the index has long doclists to merge), then the file's own marker. */
const content = (round: number, i: number) =>
  `${Array.from({ length: 60 }, (_, k) => `common${k % 20} word${(round * 31 + i * 7 + k) % 500}`).join(' ')} marker${round}q${i}\n`;
const marker = (path: string) => {
  const [, round, i] = /\/r(\d+)\/f(\d+)\.txt$/.exec(path)!;
  return `marker${round}q${i}`;
};

/** Counts straight from the database, with the server down or up. */
async function indexCounts(backend: Backend, db: TestDatabase, agentId: string): Promise<{ docs: number; files: number; pending: number }> {
  const docs = `SELECT COUNT(*) FROM search_docs WHERE type = 'file' AND owner_id = '${agentId}'`;
  const files = `SELECT COUNT(*) FROM nodes WHERE agent_id = '${agentId}' AND kind = 'file' AND deleted = FALSE`;
  const pending = 'SELECT COUNT(*) FROM search_outbox';
  if (backend === 'sqlite') {
    const conn = new Database(join(db.env.DATA_DIR!, 'afs.sqlite'), { readonly: true });
    try {
      const one = (q: string) => Number((conn.prepare(q).raw().get() as unknown[])[0]);
      return { docs: one(docs), files: one(files), pending: one(pending) };
    } finally {
      conn.close();
    }
  }
  const client = new pg.Client({ connectionString: db.env.DATABASE_URL });
  await client.connect();
  try {
    const one = async (q: string) => Number(((await client.query({ text: q, rowMode: 'array' })).rows[0] as unknown[])[0]);
    return { docs: await one(docs), files: await one(files), pending: await one(pending) };
  } finally {
    await client.end();
  }
}

for (const backend of backends()) {
  describe(`search index: kill -9 while it is being written (${backend})`, () => {
    const suite = childServerSuite(backend);

    async function drained(agentId: string): Promise<void> {
      const { db } = suite;
      const deadline = Date.now() + 30_000;
      for (;;) {
        const c = await indexCounts(backend, db, agentId);
        if (c.pending === 0) return;
        assert.ok(Date.now() < deadline, `the outbox still holds ${c.pending} rows 30 s after the restart`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    it(`${ROUNDS} kills mid-indexing: every live file found by its own word, no deleted one, one document each`, { timeout: 600_000 }, async () => {
      const { db, port } = suite;
      // The suite kills the server still up if the test fails.
      const start = async (env: Record<string, string>) => (suite.server = await spawnServer(env, port));
      // Writing with the background indexer held back (a long interval), so that the next server
      // starts with the whole round in its outbox and is killed while draining it.
      const HELD = { SEARCH_INDEX_INTERVAL_MS: '60000' };
      let server = await start({ ...db.env, ...HELD });
      const { apiKey, id: agentId } = await server.register('Index Crash');
      const live = new Set<string>();
      const deleted = new Set<string>();
      for (let round = 1; round <= ROUNDS; round++) {
        if (round > 1) server = await start({ ...db.env, ...HELD });
        const files = Array.from({ length: FILES_PER_ROUND }, (_, i) => ({ path: `/r${round}/f${i}.txt`, content: content(round, i) }));
        for (let i = 0; i < files.length; i += 1000) await server.ok(apiKey, 'write_files', { files: files.slice(i, i + 1000) });
        for (const f of files) live.add(f.path);
        // Some files of the round before go, in one changeset: their documents must go too.
        if (round > 1) {
          const gone = [...live].filter((p) => p.startsWith(`/r${round - 1}/`)).slice(0, DELETES_PER_ROUND);
          const quoted = gone.map((p) => `'${p}'`).join(' ');
          const rm: { exitCode: number } = await server.ok(apiKey, 'bash', { command: `rm ${quoted}` });
          assert.equal(rm.exitCode, 0, JSON.stringify(rm));
          for (const p of gone) {
            live.delete(p);
            deleted.add(p);
          }
        }
        await server.kill('SIGKILL');
        // The indexer starts 200 ms after this server is up; 2,000 files take it ~0.3 s on SQLite,
        // ~1.5 s on PostgreSQL.
        server = await start(db.env);
        await new Promise((r) => setTimeout(r, 150 + Math.floor(Math.random() * (backend === 'sqlite' ? 300 : 1000))));
        const left = await indexCounts(backend, db, agentId);
        await server.kill('SIGKILL');
        console.log(`# round ${round}: killed with ${left.pending} of ${FILES_PER_ROUND + (round > 1 ? DELETES_PER_ROUND : 0)} outbox rows left`);
        server = await start(db.env);
        await drained(agentId);
        await server.kill('SIGTERM');
      }
      server = await start(db.env);

      const counts = await indexCounts(backend, db, agentId);
      assert.equal(counts.files, live.size);
      assert.equal(counts.docs, live.size, 'one document per live file, none for a deleted one');
      const check = async (path: string, expect: string[]) => {
        const r = await server.ok(apiKey, 'search', { query: marker(path), types: ['files'] });
        assert.deepEqual(
          r.items.map((i: { path: string }) => i.path),
          expect,
          `search ${marker(path)}`,
        );
      };
      const paths = [...live];
      for (let i = 0; i < paths.length; i += 16) await Promise.all(paths.slice(i, i + 16).map((p) => check(p, [p])));
      for (const p of deleted) await check(p, []);
      await server.kill('SIGTERM');
      suite.server = null;
      if (backend === 'sqlite') {
        const conn = new Database(join(db.env.DATA_DIR!, 'afs.sqlite'));
        try {
          // FTS5 checks its own structure and doclists (it throws SQLITE_CORRUPT_VTAB on a fault).
          conn.prepare("INSERT INTO search_fts (search_fts, rank) VALUES ('integrity-check', 0)").run();
          assert.equal(conn.pragma('integrity_check', { simple: true }), 'ok');
        } finally {
          conn.close();
        }
      }
    });
  });
}

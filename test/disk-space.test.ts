/**
 * Disk that shrinks (docs/operations.md, "Disk space"): space freed by purges goes back to the
 * file system. SQLite: the database file is in incremental auto-vacuum mode (a file made before
 * it is converted once by migrate) and the serving process's checkpointer thread returns free
 * pages in bounded steps; PostgreSQL: autovacuum makes the space of purged rows reusable, and a
 * table's size stops growing once rows are purged and written again (nothing of ours to test
 * there: the PostgreSQL table sizes are measured by bench/storage.mjs, docs/benchmarks.md).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openStore } from '../src/store/open.js';
import { backends, createTestDatabase, testConfig } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

/** 60 incompressible files of 64 KB: ~3.8 MB of content, so ~940 pages once purged. */
const FILES = 60;
const FILE_BYTES = 64 * 1024;
const content = () => randomBytes(FILE_BYTES / 2).toString('hex');

async function until<T>(what: string, fn: () => T, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(v)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sqlite = backends().includes('sqlite') ? describe : describe.skip;

sqlite('disk space: SQLite returns the pages a purge frees', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer('sqlite', { RATE_LIMIT_PER_MINUTE: '1000000' });
  });
  after(() => s.close());

  it('a new database is in incremental auto-vacuum mode; after a purge its free pages go back and the file shrinks', async () => {
    const file = join(s.config.dataDir, 'afs.sqlite');
    const { apiKey: key } = await s.register('Shrinker');
    for (let i = 0; i < FILES; i++) await s.ok(key, 'write', { path: `/big/f${i}.txt`, content: content() });
    const look = new Database(file, { readonly: true });
    try {
      assert.equal(look.pragma('auto_vacuum', { simple: true }), 2, 'auto_vacuum = INCREMENTAL');
      // The file as the checkpointer leaves it once the content is written.
      const full = await until(
        'pages of the written content',
        () => look.pragma('page_count', { simple: true }) as number,
        (n) => n > 900,
      );
      const purged = await s.ok(key, 'purge', { path: '/big', confirm: true });
      assert.equal(purged.purgedCount, FILES + 1);
      // Freed by the purge, then given back in steps: the free list empties and the file shrinks.
      await until(
        'free pages once the purge is vacuumed',
        () => look.pragma('freelist_count', { simple: true }) as number,
        (n) => n < 16,
      );
      const pages = look.pragma('page_count', { simple: true }) as number;
      assert.ok(pages < full - 800, `${pages} pages after the purge, ${full} before`);
      await until(
        'the file on disk',
        () => statSync(file).size,
        (size) => size <= pages * 4096 + 4096,
      );
      // What is left still reads: the agent, and a new file written after the vacuum.
      await s.ok(key, 'write', { path: '/after.txt', content: 'still here' });
      assert.equal((await s.ok(key, 'read', { path: '/after.txt' })).content, 'still here');
      assert.equal(look.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      look.close();
    }
  });
});

sqlite('disk space: a database made before incremental auto-vacuum is converted once by migrate', () => {
  it('the file is rewritten in incremental mode, its free pages dropped, and its data kept', async () => {
    const db = await createTestDatabase('sqlite');
    try {
      const config = testConfig(db);
      const file = join(config.dataDir, 'afs.sqlite');
      let store = openStore(config);
      await store.migrate();
      await store.close();
      // Make it a file of before: no auto-vacuum, with free pages in it.
      const old = new Database(file);
      old.pragma('auto_vacuum = NONE');
      old.exec('VACUUM');
      old.exec('CREATE TABLE filler (x BLOB)');
      const insert = old.prepare('INSERT INTO filler VALUES (?)');
      for (let i = 0; i < 200; i++) insert.run(randomBytes(8192));
      old.exec('DROP TABLE filler');
      old.pragma('wal_checkpoint(TRUNCATE)');
      assert.equal(old.pragma('auto_vacuum', { simple: true }), 0);
      assert.ok((old.pragma('freelist_count', { simple: true }) as number) > 400);
      const migrations = old.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number };
      old.close();

      store = openStore(config);
      await store.migrate();
      await store.close();
      const now = new Database(file, { readonly: true });
      try {
        assert.equal(now.pragma('auto_vacuum', { simple: true }), 2);
        assert.equal(now.pragma('freelist_count', { simple: true }), 0);
        assert.deepEqual(now.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get(), migrations);
      } finally {
        now.close();
      }
    } finally {
      await db.drop();
    }
  });
});

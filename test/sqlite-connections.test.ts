/**
 * SQLite connections made one way (src/store/sqlite-connection.ts, docs/sqlite-connections.md):
 * every role's connection has the settings that decide what a query means or how it waits — foreign
 * keys, the unicode_lower function, durability, the temp store, the busy-timeout policy — and the
 * read-only roles refuse writes. The roles are opened as the threads open them, and the reader
 * thread is asked itself, through a running store.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ROLES, openConnection, type SqliteRole } from '../src/store/sqlite-connection.js';
import { SqliteStore } from '../src/store/sqlite.js';
import type { SqliteReader } from '../src/store/sqlite-reader.js';
import { backends } from './helpers/backends.js';

const sqlite = backends().includes('sqlite') ? describe : describe.skip;
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const BUSY_MS = 1234;

/** The same-for-every-role settings, read from a connection with SQL. */
const SAME_FOR_ALL = [
  ['foreign_keys', 'PRAGMA foreign_keys', 1],
  ['temp_store (MEMORY)', 'PRAGMA temp_store', 2],
  ['synchronous (FULL)', 'PRAGMA synchronous', 2],
  ['unicode_lower', "SELECT unicode_lower('ÄÖÜ Straße')", 'äöü straße'],
  ['journal_mode', 'PRAGMA journal_mode', 'wal'],
] as const;

sqlite('SQLite connections: one way for every role', () => {
  let dir: string;
  let store: SqliteStore;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'afs-conn-'));
    store = new SqliteStore({ dataDir: dir, synchronous: 'full', busyTimeoutMs: BUSY_MS });
    await store.migrate();
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const settings = () => ({ file: store.file, synchronous: 'full' as const, busyTimeoutMs: BUSY_MS });
  const value = (db: ReturnType<typeof openConnection>, q: string) => (db.prepare(q).raw(true).get() as unknown[])[0];

  for (const role of Object.keys(ROLES) as SqliteRole[]) {
    it(`${role}: the settings every connection shares, and its own busy timeout`, () => {
      const db = openConnection(role, settings());
      try {
        for (const [what, q, want] of SAME_FOR_ALL) assert.equal(value(db, q), want, `${role}: ${what}`);
        // The event loop's connection and the checkpointer never wait in SQLite; the other threads do.
        const busy = role === 'serving' || role === 'checkpointer' ? 0 : BUSY_MS;
        assert.equal(value(db, 'PRAGMA busy_timeout'), busy, `${role}: busy_timeout`);
        if (ROLES[role].readonly) assert.throws(() => db.exec('DELETE FROM agents'), { code: 'SQLITE_READONLY' });
        else assert.equal(db.prepare('DELETE FROM agents WHERE id = ?').run('none').changes, 0);
      } finally {
        db.close();
      }
    });
  }

  it('a foreign key is enforced on every writing role', () => {
    for (const role of ['serving', 'indexer', 'bulk-writer'] as const) {
      const db = openConnection(role, settings());
      try {
        const bad = db.prepare(
          "INSERT INTO api_keys (id, agent_id, key_hash, label, scopes, preview, created_at_ms) VALUES ('key_x', 'agt_missing', 'h', 'l', '[]', 'p', 0)",
        );
        assert.throws(() => bad.run(), { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' }, role);
      } finally {
        db.close();
      }
    }
  });

  it("the running store's reader thread reports the same settings", async () => {
    const reader = (store as unknown as { reader: SqliteReader }).reader;
    for (const [what, q, want] of SAME_FOR_ALL) assert.deepEqual(await reader.all(q, []), [[want]], `reader thread: ${what}`);
    assert.deepEqual(await reader.all('PRAGMA busy_timeout', []), [[BUSY_MS]]);
  });

  it('no other module of src opens a SQLite connection of the service (only the offline backup and check tools their own)', () => {
    const opened: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (p.endsWith('.ts') && /new Database\(/.test(readFileSync(p, 'utf8'))) opened.push(p.slice(SRC.length));
      }
    };
    walk(SRC);
    assert.deepEqual(opened.sort(), ['store/blob-backup.ts', 'store/snapshot-check.ts', 'store/sqlite-backup.ts', 'store/sqlite-connection.ts']);
  });
});

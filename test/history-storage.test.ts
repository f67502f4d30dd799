/**
 * Compact history (store/blob-codec.ts, blob-delta.ts, blob-pack.ts): old versions
 * stored as deflated deltas and snapshots read back byte-identical through every reader; dedupe
 * across paths; a restored or rewritten old content becomes raw again; purge re-bases the deltas
 * of what it deletes; the packer is idempotent and leaves a database snapshot-check accepts; the
 * migration packs data that existed before it. Store-level and over HTTP, on both backends.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { contentHash } from '../src/core/text.js';
import { PACK_DEPTH } from '../src/store/blob-pack.js';
import { MIGRATIONS } from '../src/store/migrations.js';
import { openStore } from '../src/store/open.js';
import { checkSnapshot } from '../src/store/snapshot-check.js';
import type { PlannedChange, Store } from '../src/store/types.js';
import { heavyBackends, createTestDatabase, testConfig, type TestDatabase } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';
import { blob, createTestAgent } from './helpers/store-fixtures.js';

const LINES = 120;
const line = (i: number, rev: number) => `line ${String(i).padStart(4, '0')} revision ${String(rev).padStart(4, '0')}`.padEnd(63, '.') + '\n';

/** `count` versions of a ~7.7 KB text, each changing one line of the previous. */
function versionTexts(count: number, seed = 1): string[] {
  const lines = Array.from({ length: LINES }, (_, i) => line(i, 0));
  const out: string[] = [];
  for (let v = 0; v < count; v++) {
    if (v) lines[(v * 37 + seed) % LINES] = line((v * 37 + seed) % LINES, v);
    out.push(lines.join(''));
  }
  return out;
}

async function packAll(store: Store): Promise<number> {
  let packed = 0;
  for (;;) {
    const r = await store.packPending();
    packed += r.packed;
    if (!r.more && r.paths === 0) return packed;
  }
}

interface BlobRow {
  hash: string;
  encoding: string;
  depth: number;
  size: number;
  stored: number;
  base: string | null;
}

/** The agent's blob rows as stored (the test looks under the store, read-only). */
async function blobRows(db: TestDatabase, agentId: string): Promise<BlobRow[]> {
  const q = 'SELECT hash, encoding, depth, size, length(content) AS stored, base_hash AS base FROM blobs WHERE agent_id = ';
  if (db.backend === 'sqlite') {
    const lite = new Database(join(db.env.DATA_DIR!, 'afs.sqlite'), { readonly: true });
    try {
      return lite.prepare(`${q}?`).all(agentId) as BlobRow[];
    } finally {
      lite.close();
    }
  }
  const c = new pg.Client({ connectionString: db.env.DATABASE_URL });
  await c.connect();
  try {
    return (await c.query(`${q}$1`, [agentId])).rows.map((r) => ({ ...r, depth: Number(r.depth), size: Number(r.size), stored: Number(r.stored) }));
  } finally {
    await c.end();
  }
}

async function rawSql(db: TestDatabase, statements: string[]): Promise<void> {
  if (db.backend === 'sqlite') {
    const lite = new Database(join(db.env.DATA_DIR!, 'afs.sqlite'));
    try {
      for (const s of statements) lite.exec(s);
    } finally {
      lite.close();
    }
    return;
  }
  const c = new pg.Client({ connectionString: db.env.DATABASE_URL });
  await c.connect();
  try {
    for (const s of statements) await c.query(s);
  } finally {
    await c.end();
  }
}

for (const backend of heavyBackends()) {
  describe(`compact history, store level (${backend})`, () => {
    let db: TestDatabase;
    let store: Store;
    let n = 0;
    const agent = () => createTestAgent(store, `agt_pack${++n}`);
    const commit = (agentId: string, changes: PlannedChange[]) =>
      store.commit({ agentId, keyId: 'k1', keyLabel: 'label', tool: 'test', changes, quotaBytes: 1e9 });
    const file = (
      path: string,
      text: string,
      expectVersion: number,
      op: PlannedChange['op'] = expectVersion ? 'update' : 'create',
    ): PlannedChange => ({
      path,
      expectVersion,
      op,
      state: { kind: 'file', blob: blob(text), lines: 1, fileId: `f_${path}` },
    });
    /** A change to content already stored, without its bytes (as restore and revert plan it). */
    const byHash = (path: string, text: string, expectVersion: number): PlannedChange => {
      const { hash, size } = blob(text);
      return { path, expectVersion, op: 'restore', state: { kind: 'file', blob: { hash, size }, lines: 1, fileId: `f_${path}` } };
    };
    const write = async (agentId: string, path: string, texts: string[], from = 0) => {
      for (const [i, t] of texts.entries()) await commit(agentId, [file(path, t, from + i)]);
    };

    before(async () => {
      db = await createTestDatabase(backend);
      store = openStore(testConfig(db));
      await store.migrate();
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    it('200 versions: old ones become deltas and snapshots (≤ PACK_DEPTH − 1 deltas a read), the head stays raw, every version reads back', async () => {
      const a = await agent();
      const texts = versionTexts(200);
      await write(a, '/f.txt', texts);
      assert.ok((await packAll(store)) >= 199);
      const rows = await blobRows(db, a);
      const head = rows.find((r) => r.hash === blob(texts[199]!).hash)!;
      assert.equal(head.encoding, 'raw');
      const old = rows.filter((r) => r !== head);
      assert.equal(old.length, 199);
      assert.ok(old.every((r) => r.encoding === 'delta' || r.encoding === 'deflate'));
      assert.ok(old.every((r) => r.depth < PACK_DEPTH));
      assert.ok(old.filter((r) => r.encoding === 'deflate').length <= Math.ceil(199 / PACK_DEPTH) + 1, 'a snapshot every PACK_DEPTH versions');
      const stored = rows.reduce((s, r) => s + r.stored, 0);
      const logical = rows.reduce((s, r) => s + r.size, 0);
      assert.ok(stored * 20 < logical, `stored ${stored} of ${logical} logical bytes`);
      for (const [v, t] of texts.entries()) {
        const version = await store.getVersion(a, '/f.txt', v + 1);
        assert.equal((await store.getBlob(a, version!.blobHash!))?.toString(), t, `version ${v + 1}`);
      }
      const many = await store.getBlobs(
        a,
        texts.slice(0, 50).map((t) => blob(t).hash),
      );
      for (const t of texts.slice(0, 50)) assert.equal(many.get(blob(t).hash)?.toString(), t);
      assert.equal((await store.readNode(a, '/f.txt'))?.content?.toString(), texts[199]);
      assert.equal((await store.getAgent(a))?.storageBytes, logical, 'usage stays the logical bytes');
      assert.equal(await packAll(store), 0, 'packing again changes nothing');
    });

    it('dedupe across paths: a content live at another path stays raw until that path supersedes it too', async () => {
      const a = await agent();
      const texts = versionTexts(4, 7);
      await write(a, '/p.txt', texts.slice(0, 2));
      await write(a, '/q.txt', texts.slice(1, 2)); // the same content as /p.txt's version 2
      await commit(a, [file('/p.txt', texts[2]!, 2)]);
      await packAll(store);
      const shared = blob(texts[1]!).hash;
      assert.equal((await blobRows(db, a)).find((r) => r.hash === shared)?.encoding, 'raw', 'live at /q.txt');
      await commit(a, [file('/q.txt', texts[3]!, 1)]);
      await packAll(store);
      const rows = await blobRows(db, a);
      assert.notEqual(rows.find((r) => r.hash === shared)?.encoding, 'raw');
      assert.equal(rows.length, 4, 'one row per distinct content');
      for (const t of texts) assert.equal((await store.getBlob(a, blob(t).hash))?.toString(), t);
    });

    it('an old content restored (no bytes) reads decoded at once and is raw again after packing; rewritten with its bytes, raw at once', async () => {
      const a = await agent();
      const texts = versionTexts(6, 3);
      await write(a, '/r.txt', texts);
      await packAll(store);
      await commit(a, [byHash('/r.txt', texts[1]!, 6)]);
      assert.equal((await store.readNode(a, '/r.txt'))?.content?.toString(), texts[1]);
      assert.notEqual((await blobRows(db, a)).find((r) => r.hash === blob(texts[1]!).hash)?.encoding, 'raw', 'still encoded until packed');
      await packAll(store);
      assert.equal((await blobRows(db, a)).find((r) => r.hash === blob(texts[1]!).hash)?.encoding, 'raw');
      await commit(a, [file('/r.txt', texts[2]!, 7)]);
      assert.equal((await blobRows(db, a)).find((r) => r.hash === blob(texts[2]!).hash)?.encoding, 'raw', 'the commit carried the bytes');
      await packAll(store);
      for (const t of texts) assert.equal((await store.getBlob(a, blob(t).hash))?.toString(), t);
    });

    it("purge re-bases the deltas of what it deletes: another path's history still reads", async () => {
      const a = await agent();
      const texts = versionTexts(5, 11);
      // /keep.txt holds B (/gone.txt's version 2), based on A (version 1) once packed.
      await write(a, '/gone.txt', texts.slice(0, 2));
      await write(a, '/keep.txt', [texts[1]!, texts[4]!]);
      await commit(a, [file('/gone.txt', texts[2]!, 2)]);
      await packAll(store);
      const B = blob(texts[1]!).hash;
      const A = blob(texts[0]!).hash;
      assert.equal((await blobRows(db, a)).find((r) => r.hash === B)?.base, A, 'B is a delta on A');
      const r = await store.purge(a, ['/gone.txt']);
      assert.equal(r.versions, 3);
      assert.equal(r.bytesFreed, texts[0]!.length + texts[2]!.length);
      const rows = await blobRows(db, a);
      assert.equal(
        rows.find((x) => x.hash === A),
        undefined,
        'A is gone',
      );
      assert.equal(rows.find((x) => x.hash === B)?.base, null, 'B no longer needs it');
      assert.equal((await store.getBlob(a, B))?.toString(), texts[1]);
      assert.equal((await store.getVersion(a, '/keep.txt', 1))?.blobHash, B);
      assert.equal((await store.getAgent(a))?.storageBytes, texts[1]!.length + texts[4]!.length);
    });

    it('a purge of a whole chain frees every link (leaves first)', async () => {
      const a = await agent();
      const texts = versionTexts(40, 5);
      await write(a, '/chain.txt', texts);
      await packAll(store);
      const r = await store.purge(a, ['/chain.txt']);
      assert.equal(r.versions, 40);
      assert.equal(
        r.bytesFreed,
        texts.reduce((s, t) => s + t.length, 0),
      );
      assert.deepEqual(await blobRows(db, a), []);
    });

    it('concurrent packers and writes leave every version readable (and, on SQLite, a snapshot-check that passes)', async () => {
      const a = await agent();
      const texts = versionTexts(90, 13);
      await write(a, '/c.txt', texts.slice(0, 30));
      const writes = write(a, '/c.txt', texts.slice(30), 30);
      await Promise.all([writes, packAll(store), packAll(store), packAll(store)]);
      await Promise.all([packAll(store), packAll(store)]);
      for (const t of texts) assert.equal((await store.getBlob(a, blob(t).hash))?.toString(), t);
      const rows = await blobRows(db, a);
      assert.ok(rows.every((r) => r.depth < PACK_DEPTH));
      assert.ok(rows.filter((r) => r.encoding === 'raw').length <= 2, 'all but the head (and a raced one) packed');
      if (backend === 'sqlite') {
        const report = checkSnapshot(join(db.env.DATA_DIR!, 'afs.sqlite'), { deep: true });
        assert.deepEqual(report.problems, []);
      }
    });
  });

  describe(`compact history, the migration (${backend})`, () => {
    it('existing rows stay raw, every path with content is queued, and packing them keeps every version readable', async () => {
      const db = await createTestDatabase(backend);
      try {
        let store = openStore(testConfig(db));
        await store.migrate();
        const a = await createTestAgent(store, 'agt_migr1');
        const texts = versionTexts(70, 17);
        for (const [i, t] of texts.entries()) {
          await store.commit({
            agentId: a,
            keyId: 'k',
            keyLabel: 'k',
            tool: 't',
            quotaBytes: 1e9,
            changes: [
              { path: '/m.txt', expectVersion: i, op: i ? 'update' : 'create', state: { kind: 'file', blob: blob(t), lines: 1, fileId: 'f' } },
            ],
          });
        }
        await store.close();
        // The database as migration 10 left it, with this history in it.
        await rawSql(db, [
          'DROP INDEX blobs_base',
          'ALTER TABLE blobs DROP COLUMN encoding',
          'ALTER TABLE blobs DROP COLUMN base_hash',
          'ALTER TABLE blobs DROP COLUMN depth',
          'ALTER TABLE blobs DROP COLUMN packed',
          'DROP TABLE pack_queue',
          // …and without what later migrations added (each then runs again).
          'ALTER TABLE shares DROP COLUMN include_history',
          ...(backend === 'sqlite'
            ? ['api_keys_auth_update', 'api_keys_auth_delete', 'agents_auth_update', 'agents_auth_delete'].map((t) => `DROP TRIGGER ${t}`)
            : ['DROP TRIGGER api_keys_auth ON api_keys', 'DROP TRIGGER agents_auth ON agents', 'DROP FUNCTION afs_auth_changed']),
          'DROP TABLE auth_epoch',
          'DELETE FROM schema_migrations WHERE version >= 11',
        ]);
        store = openStore(testConfig(db));
        try {
          // Migration 11 and those after it.
          assert.equal(await store.migrate(), MIGRATIONS.filter((m) => m.version >= 11).length);
          assert.ok((await blobRows(db, a)).every((r) => r.encoding === 'raw'));
          assert.ok((await packAll(store)) >= 69);
          const rows = await blobRows(db, a);
          assert.equal(rows.filter((r) => r.encoding === 'raw').length, 1, 'only the head');
          for (const [i, t] of texts.entries()) {
            const v = await store.getVersion(a, '/m.txt', i + 1);
            assert.equal(v?.blobHash, contentHash(Buffer.from(t)));
            assert.equal((await store.getBlob(a, v!.blobHash!))?.toString(), t);
          }
        } finally {
          await store.close();
        }
        if (backend === 'sqlite') assert.deepEqual(checkSnapshot(join(db.env.DATA_DIR!, 'afs.sqlite'), { deep: true }).problems, []);
      } finally {
        await db.drop();
      }
    });
  });

  describe(`compact history over the tools (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, { RATE_LIMIT_PER_MINUTE: '1000000' });
    });
    after(() => s.close());

    it('read at every version, diff between versions, restore of an old version then read, search of an old one', async () => {
      const { apiKey: key } = await s.register('Packed');
      const texts = versionTexts(200, 23);
      for (const content of texts) await s.ok(key, 'write', { path: '/h.txt', content });
      await packAll(s.store);
      for (const [i, t] of texts.entries())
        assert.equal((await s.ok(key, 'read', { path: '/h.txt', version: i + 1 })).content, t, `version ${i + 1}`);
      const d = await s.ok(key, 'diff', { path: '/h.txt', fromVersion: 3, toVersion: 150 });
      assert.equal(d.identical, false);
      assert.ok(d.diff.includes('revision 0149'));
      await s.ok(key, 'restore', { path: '/h.txt', version: 5 });
      assert.equal((await s.ok(key, 'read', { path: '/h.txt' })).content, texts[4]);
      await packAll(s.store);
      assert.equal((await s.ok(key, 'read', { path: '/h.txt' })).content, texts[4]);
      assert.equal((await s.ok(key, 'read', { path: '/h.txt', version: 200 })).content, texts[199]);
      const grep = await s.ok(key, 'bash', { command: 'grep -c "line 0000" /h.txt' });
      assert.equal(grep.stdout.trim(), '1');
    });
  });
}

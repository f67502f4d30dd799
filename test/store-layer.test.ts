/**
 * The store layer itself: the dialect compiler, both backends migrating to the same schema,
 * purge forgetting idempotency rows, and expired idempotency rows pruned (directly with a clock,
 * and by the serving process's timer).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PRUNE_BATCH } from '../src/store/idempotency.js';
import { startIdempotencyPruning } from '../src/store/maintenance.js';
import { openStore } from '../src/store/open.js';
import { dialect, sql, subtreeAfter } from '../src/store/sql.js';
import { IDEMPOTENCY_TTL_MS, type Store } from '../src/store/types.js';
import { backends, createTestDatabase, testConfig, type TestDatabase } from './helpers/backends.js';
import { blob, createTestAgent } from './helpers/store-fixtures.js';

describe('dialect layer', () => {
  it('one query text compiles to both dialects: ? → $n, ?* → ANY($n::text[]) (SQLite: once per element), dialect fragments', () => {
    const q = sql`SELECT a FROM t ${dialect({ sqlite: 'INDEXED BY t_x', postgres: '' })} WHERE x = ? AND y = ?* AND z > ? LIMIT ${5}`;
    assert.equal(q.sqlite, 'SELECT a FROM t INDEXED BY t_x WHERE x = ? AND y = ? AND z > ? LIMIT 5');
    assert.equal(q.postgres, 'SELECT a FROM t  WHERE x = $1 AND y = ANY($2::text[]) AND z > $3 LIMIT 5');
    assert.equal(q.listAt, 1);
    assert.notEqual(q.name, sql`SELECT 1`.name, 'each query has its own prepared statement name');
    assert.throws(() => sql`SELECT 1 WHERE a = ?* AND b = ?*`, /at most one list parameter/);
  });

  it('the subtree range has one form: (after or dir/, dir0) for path > ? AND path < ?', () => {
    assert.deepEqual(subtreeAfter('/a', null), ['/a/', '/a0']);
    assert.deepEqual(subtreeAfter('/', null), ['/', '0']);
    assert.deepEqual(subtreeAfter('/a', '/a/m'), ['/a/m', '/a0']);
    assert.deepEqual(subtreeAfter('/a', '/0'), ['/a/', '/a0'], 'a cursor before the range starts at the range');
  });
});

interface Schema {
  columns: string[];
  indexes: string[];
}

/** Column types both backends store alike; flags (deleted, is_read, locked, internal, include_history) are BOOLEAN in PostgreSQL, 0/1 in SQLite. */
function sqliteType(declared: string): string {
  const t = declared.toUpperCase();
  return t === 'INTEGER' ? 'integer' : t === 'BLOB' ? 'bytes' : t === 'TEXT' ? 'text' : `?${t}`;
}
function pgType(dataType: string, column: string): string {
  if (dataType === 'integer' || dataType === 'bigint') return 'integer';
  if (dataType === 'boolean')
    return ['deleted', 'is_read', 'locked', 'internal', 'packed', 'include_history'].includes(column) ? 'integer' : '?boolean';
  return dataType === 'bytea' ? 'bytes' : dataType === 'text' ? 'text' : `?${dataType}`;
}

function sqliteSchema(file: string): Schema {
  const db = new Database(file, { readonly: true });
  try {
    const columns: string[] = [];
    const indexes: string[] = [];
    // The search engine is each backend's own by design (store/schema-search.ts): FTS5's tables here,
    // a tsvector column and its GIN index there; they are left out of the comparison.
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[]).filter(
      (t) => !t.startsWith('search_fts'),
    );
    for (const t of tables) {
      const info = db.prepare(`PRAGMA table_info(${t})`).all() as Array<{ name: string; type: string; notnull: number; pk: number }>;
      for (const c of info) columns.push(`${t}.${c.name} ${sqliteType(c.type)}${c.pk ? '' : c.notnull ? ' not null' : ''}`);
      const pk = info
        .filter((c) => c.pk)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name);
      indexes.push(`${t} primary key (${pk.join(', ')})`);
      for (const ix of db.prepare(`PRAGMA index_list(${t})`).all() as Array<{ name: string; unique: number; origin: string; partial: number }>) {
        if (ix.origin === 'pk') continue;
        const cols = (db.prepare(`PRAGMA index_info(${ix.name})`).all() as Array<{ name: string }>).map((c) => c.name);
        indexes.push(
          ix.origin === 'u'
            ? `${t} unique (${cols.join(', ')})`
            : `${t} index ${ix.name}${ix.unique ? ' unique' : ''} (${cols.join(', ')})${ix.partial ? ' partial' : ''}`,
        );
      }
    }
    return { columns: columns.sort(), indexes: indexes.sort() };
  } finally {
    db.close();
  }
}

async function pgSchema(url: string): Promise<Schema> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const cols = await c.query(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public'`,
    );
    const pks = await c.query(`
      SELECT t.relname AS tbl, array_agg(a.attname::text ORDER BY k.ord) AS cols
        FROM pg_index ix JOIN pg_class t ON t.oid = ix.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
       CROSS JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
        JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
       WHERE n.nspname = 'public' AND ix.indisprimary GROUP BY t.relname`);
    const pkCols = new Set<string>();
    const indexes: string[] = [];
    for (const r of pks.rows) {
      indexes.push(`${r.tbl} primary key (${r.cols.join(', ')})`);
      for (const col of r.cols) pkCols.add(`${r.tbl}.${col}`);
    }
    const columns = cols.rows
      .filter((r) => `${r.table_name}.${r.column_name}` !== 'search_docs.tsv')
      .map((r) => {
        const name = `${r.table_name}.${r.column_name}`;
        return `${name} ${pgType(r.data_type, r.column_name)}${pkCols.has(name) ? '' : r.is_nullable === 'NO' ? ' not null' : ''}`;
      });
    const ixs = await c.query(`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'`);
    for (const r of ixs.rows) {
      if (r.indexname.endsWith('_pkey') || r.indexname === 'search_docs_tsv') continue;
      const cols = /USING \w+ \(([^)]*)\)/.exec(r.indexdef)![1]!;
      const partial = / WHERE /.test(r.indexdef) ? ' partial' : '';
      const unique = r.indexdef.startsWith('CREATE UNIQUE');
      // Unique constraints (TEXT UNIQUE) are named <table>_<column>_key; SQLite keeps them as autoindexes.
      indexes.push(
        unique && r.indexname.endsWith('_key')
          ? `${r.tablename} unique (${cols})`
          : `${r.tablename} index ${r.indexname}${unique ? ' unique' : ''} (${cols})${partial}`,
      );
    }
    return { columns: columns.sort(), indexes: indexes.sort() };
  } finally {
    await c.end();
  }
}

if (backends().includes('sqlite') && backends().includes('postgres')) {
  describe('both backends migrate to the same schema', () => {
    it('same tables, columns (equivalent types, nullability), primary keys and indexes', async () => {
      const dbs = [await createTestDatabase('sqlite', { empty: true }), await createTestDatabase('postgres', { empty: true })];
      try {
        for (const db of dbs) {
          const store = openStore(testConfig(db));
          await store.migrate();
          await store.close();
        }
        const lite = sqliteSchema(join(dbs[0]!.env.DATA_DIR!, 'afs.sqlite'));
        const post = await pgSchema(dbs[1]!.env.DATABASE_URL!);
        assert.ok(lite.columns.includes('nodes.deleted integer not null'));
        assert.ok(lite.indexes.includes('idempotency index idempotency_created (created_at_ms)'));
        assert.deepEqual(post.columns, lite.columns);
        assert.deepEqual(post.indexes, lite.indexes);
      } finally {
        for (const db of dbs) await db.drop();
      }
    });
  });
}

for (const backend of backends()) {
  describe(`idempotency rows (${backend})`, () => {
    let db: TestDatabase;
    let store: Store;
    let n = 0;
    const agent = () => createTestAgent(store, `agt_idem${++n}`);

    before(async () => {
      db = await createTestDatabase(backend);
      store = openStore(testConfig(db));
      await store.migrate();
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    it("purge deletes the agent's idempotency rows (a response may echo purged content), and no other agent's", async () => {
      const [a, b] = [await agent(), await agent()];
      await store.commit({
        agentId: a,
        keyId: 'k',
        keyLabel: 'k',
        tool: 'test',
        quotaBytes: 1e9,
        changes: [{ path: '/s.txt', expectVersion: 0, op: 'create', state: { kind: 'file', blob: blob('secret'), lines: 1, fileId: 'f1' } }],
        idempotency: { key: 'k:write-1', requestHash: 'h', respond: (cs) => ({ changesetId: cs.id, echo: 'secret' }) },
      });
      assert.ok(await store.saveIdempotent(a, 'k:other', 'h2', { echo: 'secret' }));
      assert.ok(await store.saveIdempotent(b, 'k:mine', 'h3', { kept: true }));
      assert.equal((await store.getIdempotent(a, 'k:write-1'))?.requestHash, 'h');

      const r = await store.purge(a, ['/s.txt']);
      assert.deepEqual(r, { versions: 1, bytesFreed: 6 });
      assert.equal(await store.getIdempotent(a, 'k:write-1'), null);
      assert.equal(await store.getIdempotent(a, 'k:other'), null);
      assert.deepEqual((await store.getIdempotent(b, 'k:mine'))?.response, { kept: true });
    });

    it(`pruneIdempotency(now) deletes only rows older than the 24 h window, ${PRUNE_BATCH} per statement until none is left`, async () => {
      const a = await agent();
      const count = PRUNE_BATCH + 50;
      const saved = await Promise.all(Array.from({ length: count }, (_, i) => store.saveIdempotent(a, `k:${i}`, 'h', { i })));
      assert.equal(saved.filter(Boolean).length, count);
      const now = Date.now();
      assert.equal(await store.pruneIdempotency(now + IDEMPOTENCY_TTL_MS - 60_000), 0, 'not yet expired');
      assert.deepEqual((await store.getIdempotent(a, 'k:7'))?.response, { i: 7 });
      assert.ok((await store.pruneIdempotency(now + IDEMPOTENCY_TTL_MS + 60_000)) >= count);
      assert.equal(await store.getIdempotent(a, 'k:7'), null);
      assert.equal(await store.getIdempotent(a, `k:${count - 1}`), null);
      assert.equal(await store.pruneIdempotency(now + IDEMPOTENCY_TTL_MS + 60_000), 0);
    });

    it('the pruning timer prunes at its interval with its clock; stop ends it', async () => {
      const a = await agent();
      await store.saveIdempotent(a, 'k:timer', 'h', {});
      const clock = () => Date.now() + IDEMPOTENCY_TTL_MS + 60_000;
      const pruning = startIdempotencyPruning(store, { intervalMs: 20, clock });
      const deadline = Date.now() + 5000;
      while ((await store.getIdempotent(a, 'k:timer')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await pruning.stop();
      assert.equal(await store.getIdempotent(a, 'k:timer'), null);
      await store.saveIdempotent(a, 'k:after-stop', 'h', {});
      await new Promise((r) => setTimeout(r, 80));
      assert.ok(await store.getIdempotent(a, 'k:after-stop'), 'a stopped timer prunes nothing');
    });
  });
}

describe('pruning timer errors', () => {
  it('a failing prune is reported to onError and retried at the next interval; prunes never overlap', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    let active = 0;
    let overlapped = false;
    const fake = {
      async pruneIdempotency(nowMs: number) {
        assert.equal(nowMs, 12345);
        calls++;
        if (++active > 1) overlapped = true;
        await new Promise((r) => setTimeout(r, 30));
        active--;
        throw new Error('database unreachable');
      },
    };
    const pruning = startIdempotencyPruning(fake, { intervalMs: 5, clock: () => 12345, onError: (e) => errors.push(e) });
    const deadline = Date.now() + 5000;
    while (errors.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await pruning.stop();
    assert.ok(errors.length >= 2 && calls >= 2);
    assert.match(String(errors[0]), /database unreachable/);
    assert.equal(overlapped, false);
  });
});

/** Reading a test server's database directly: what is stored, whatever the tools show. */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { TestServer } from './server.js';

export /** Every stored text value of every table, as strings (blobs decoded both as UTF-8 and hex). */
async function dumpDatabase(s: TestServer): Promise<string[]> {
  const out: string[] = [];
  const push = (v: unknown) => {
    if (v === null || v === undefined) return;
    if (Buffer.isBuffer(v)) out.push(v.toString('utf8'), v.toString('hex'));
    else out.push(typeof v === 'object' ? JSON.stringify(v) : String(v));
  };
  if (s.backend === 'sqlite') {
    const file = (s.store as any).file as string;
    assert.equal(typeof file, 'string', 'SQLite store exposes its file');
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>;
      assert.ok(tables.some((t) => t.name === 'api_keys'));
      for (const { name } of tables) {
        for (const row of db.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>) Object.values(row).forEach(push);
      }
    } finally {
      db.close();
    }
  } else {
    const c = new pg.Client({ connectionString: s.config.databaseUrl });
    await c.connect();
    try {
      const tables = await c.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
      );
      assert.ok(tables.rows.some((t) => t.table_name === 'api_keys'));
      for (const { table_name } of tables.rows) {
        const rows = await c.query(`SELECT * FROM "${table_name}"`);
        for (const row of rows.rows as Array<Record<string, unknown>>) Object.values(row).forEach(push);
      }
    } finally {
      await c.end();
    }
  }
  return out;
}

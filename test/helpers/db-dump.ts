/** A test server's database, directly: what is stored (whatever the tools show), and statements run beside the server. */
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

/**
 * Runs statements on the server's own database beside it (rows as an older release or a later
 * time left them). A statement is SQL text, or [text, params] with PostgreSQL's $n placeholders
 * (SQLite gets ?). Text alone may hold several statements.
 */
export async function runSql(s: TestServer, statements: Array<string | [string, unknown[]]>): Promise<void> {
  if (s.backend === 'sqlite') {
    const db = new Database((s.store as any).file as string);
    try {
      for (const st of statements) {
        if (typeof st === 'string') db.exec(st);
        else db.prepare(st[0].replace(/\$\d+/g, '?')).run(...st[1]);
      }
    } finally {
      db.close();
    }
    return;
  }
  const c = new pg.Client({ connectionString: s.config.databaseUrl });
  await c.connect();
  try {
    for (const st of statements) await (typeof st === 'string' ? c.query(st) : c.query(st[0], st[1]));
  } finally {
    await c.end();
  }
}

/**
 * Counts what one tool call does on the serving thread: SQL statements (SQLite: every
 * better-sqlite3 statement run or `exec`; PostgreSQL: every query the `pg` client sends, each a
 * round trip), the statements among them that write, and synchronous file-system calls. Work is
 * attributed to a call through AsyncLocalStorage: the test runs the call inside `measure()` over
 * Fastify's inject (no socket), so everything its request causes — awaited queries, a group
 * commit's flush scheduled from it — runs in its async context, while the server's own timers
 * (rate-limit flush, search indexer, packer) started at boot do not. Threads (SQLite's reader and
 * indexer, bash workers) have their own module instances and are not counted: the table says so.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import Database from 'better-sqlite3';
import pg from 'pg';

export interface CallCount {
  statements: number;
  writes: number;
  fsSync: number;
}

const als = new AsyncLocalStorage<CallCount>();
let installed = false;
let fsDepth = 0;

// Anywhere in the text: PostgreSQL's commit is one statement of CTEs (`WITH … INSERT INTO …`).
// `SELECT … FOR UPDATE` is a lock, not a write.
const WRITE_SQL = /\b(INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|REPLACE\s+INTO|CREATE|DROP|ALTER)\b/i;

function countStatement(sql: string | undefined): void {
  const c = als.getStore();
  if (!c) return;
  c.statements++;
  if (sql && WRITE_SQL.test(sql)) c.writes++;
}

type AnyFn = (...args: unknown[]) => unknown;

function wrap(target: object, name: string, before: (self: unknown, args: unknown[]) => void): void {
  const t = target as Record<string, AnyFn>;
  const original = t[name];
  if (typeof original !== 'function') throw new Error(`call-counter: ${name} is not a function`);
  t[name] = function (this: unknown, ...args: unknown[]) {
    before(this, args);
    return original.apply(this, args);
  };
}

/** Patches the drivers and node:fs once per test process (only counts inside `measure`). */
export function installCallCounter(): void {
  if (installed) return;
  installed = true;
  // A Statement's prototype is only reachable through an instance.
  const probe = new Database(':memory:');
  const statementProto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as object;
  probe.close();
  for (const m of ['run', 'get', 'all', 'iterate']) wrap(statementProto, m, (self) => countStatement((self as { source: string }).source));
  wrap(Database.prototype, 'exec', (_self, args) => countStatement(String(args[0])));
  wrap(pg.Client.prototype, 'query', (_self, args) => {
    const q = args[0] as string | { text?: string };
    countStatement(typeof q === 'string' ? q : q?.text);
  });
  for (const name of Object.keys(fs)) {
    if (!name.endsWith('Sync') || typeof (fs as unknown as Record<string, unknown>)[name] !== 'function') continue;
    const t = fs as unknown as Record<string, AnyFn>;
    const original = t[name]!;
    t[name] = function (this: unknown, ...args: unknown[]) {
      // One call of the caller's: readFileSync's own openSync/readSync/closeSync are not counted again.
      const c = fsDepth === 0 ? als.getStore() : undefined;
      if (c) c.fsSync++;
      fsDepth++;
      try {
        return original.apply(this, args);
      } finally {
        fsDepth--;
      }
    };
  }
  // Named imports of node:fs (`import { readFileSync }`) follow the patched default export.
  syncBuiltinESMExports();
}

/** Runs `fn` (one call) and returns what it did. */
export async function measure<T>(fn: () => Promise<T>): Promise<{ result: T; count: CallCount }> {
  const count: CallCount = { statements: 0, writes: 0, fsSync: 0 };
  const result = await als.run(count, fn);
  return { result, count };
}

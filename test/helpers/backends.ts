/**
 * Test backends. Every suite runs against SQLite (a real file in a temp dir) and PostgreSQL
 * (a real server; each test run creates its own database and drops it). If PostgreSQL is
 * configured but unreachable, tests fail loudly — they never skip silently.
 *
 * TEST_BACKENDS=sqlite,postgres (default both) picks backends explicitly;
 * TEST_DATABASE_URL points at the PostgreSQL server's maintenance database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.js';

/**
 * `postgres-icu`: PostgreSQL on a database whose default collation is ICU's en-US (not byte
 * order), created and migrated by the suite itself; the isolation suites run on it too
 * (`isolationBackends()`), so no boundary check depends on the database's collation.
 */
export type Backend = 'sqlite' | 'postgres' | 'postgres-icu';

export function backends(): Backend[] {
  const raw = process.env.TEST_BACKENDS ?? 'sqlite,postgres';
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const b of list) if (b !== 'sqlite' && b !== 'postgres') throw new Error(`TEST_BACKENDS: unknown backend ${b}`);
  return list as Backend[];
}

/**
 * `backends()` plus `postgres-icu` after `postgres`: the suites that check who sees what.
 * `collation-isolation` runs its byte-order cases on all three in npm test; the four large
 * isolation suites run their ICU half in the slow pass (ISOLATION_BACKENDS=postgres-icu,
 * scripts/run-tests.mjs), where it costs no npm test minutes ({ always: true } opts out).
 */
export function isolationBackends(opts: { always?: boolean } = {}): Backend[] {
  const all = backends().flatMap((b): Backend[] => (b === 'postgres' ? ['postgres', 'postgres-icu'] : [b]));
  const only = process.env.ISOLATION_BACKENDS;
  if (only !== undefined) return all.filter((b) => only.split(',').includes(b));
  return opts.always ? all : all.filter((b) => b !== 'postgres-icu');
}

/**
 * The suites whose cost is time limits, CPU-bound worst cases and deadlines rather than storage
 * (event-loop, bash-runaway, bash-isolation, bash.test's limits), the two longest suites of
 * everyday tools (bash.test, big-trees: ~40 s of suite time each), and the `afs` CLI's (cli.test:
 * ~50 child processes, a client whose behaviour does not depend on the store), and object storage
 * on a real Swift (blob-s3: ~1 min per backend): npm test runs them on SQLite,
 * where a blocked event loop hurts most (its queries run on it), and test:slow on PostgreSQL
 * (HEAVY_BACKENDS=postgres), so every CI run covers both and npm test stays under five minutes.
 * TEST_BACKENDS still narrows it.
 */
export function heavyBackends(): Backend[] {
  const all = backends();
  const only = process.env.HEAVY_BACKENDS;
  if (only === undefined) return all.includes('sqlite') ? ['sqlite'] : all;
  return all.filter((b) => only.split(',').includes(b));
}

export const PG_ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A fresh, empty database location for one server (or several sharing it). */
export interface TestDatabase {
  backend: Backend;
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** `empty`: no schema at all (suites that test migrating itself), never a copy of the template. */
export async function createTestDatabase(backend: Backend, opts: { empty?: boolean } = {}): Promise<TestDatabase> {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'afs-test-'));
    return { backend, env: { DATA_DIR: dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  // Under scripts/run-tests.mjs (TEST_RUN_ID): named for the run, copied from the run's migrated
  // template (migrating took ~360 ms a database; the copy's migrate finds nothing to do), and
  // dropped by the runner at the end of the run, all at once (a DROP DATABASE took ~450 ms inside
  // a suite). Run directly, a file creates, migrates and drops its own.
  const runId = process.env.TEST_RUN_ID;
  // An ICU database is made from template0 (a copy cannot change the collation) and migrated by
  // the server that opens it.
  const template = opts.empty || backend === 'postgres-icu' ? undefined : process.env.TEST_PG_TEMPLATE;
  const name = `afs_test_${runId ?? process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(
      `PostgreSQL is configured for tests (${PG_ADMIN_URL}) but unreachable: ${(err as Error).message}. ` +
        'Start it, set TEST_DATABASE_URL, or run only SQLite explicitly with TEST_BACKENDS=sqlite.',
    );
  }
  try {
    const icu = "TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'";
    await admin.query(`CREATE DATABASE ${name} ${backend === 'postgres-icu' ? icu : template ? `TEMPLATE ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    backend,
    env: { DATABASE_URL: url.toString() },
    async drop() {
      if (runId) return; // the runner drops the run's databases (run-tests.mjs)
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A validated Config for an in-process server on a test database. */
export function testConfig(db: TestDatabase, overrides: Record<string, string> = {}): Config {
  // Suites make many calls per key: the per-key rate limit is lifted unless a test sets it.
  // VALIDATE_OUTPUTS: every successful tool call of every suite is checked against its tool's
  // output schema (a mismatch answers 500 INTERNAL_ERROR naming the fields).
  return loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    REGISTRATIONS_PER_IP_PER_HOUR: '0',
    RATE_LIMIT_PER_MINUTE: '1000000',
    // Likewise bash's worker-time budget (wall time on a loaded machine): the suites that test it set it.
    BASH_WORKER_MS_PER_MINUTE: '0',
    VALIDATE_OUTPUTS: '1',
    ...db.env,
    ...overrides,
  });
}

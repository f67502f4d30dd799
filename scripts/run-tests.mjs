// Runs the compiled test files with node's test runner, against both backends by default.
// Fails loudly (never skips) when PostgreSQL is configured but unreachable.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

const backends = (process.env.TEST_BACKENDS ?? 'sqlite,postgres').split(',').map((s) => s.trim());
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// This run's id: the PostgreSQL databases its suites create are named after it, copied from a
// template migrated once here, and dropped here at the end (test/helpers/backends.ts).
const RUN_ID = `r${process.pid}${Date.now().toString(36)}`;
if (backends.includes('postgres')) {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.end();
  } catch (err) {
    console.error(`FATAL: PostgreSQL is configured for the test suite (${PG_URL}) but unreachable: ${err.message}`);
    console.error('Start PostgreSQL, point TEST_DATABASE_URL at it, or run SQLite only with TEST_BACKENDS=sqlite.');
    process.exit(1);
  }
  process.env.TEST_RUN_ID = RUN_ID;
  process.env.TEST_PG_TEMPLATE = await migratedTemplate();
}

async function admin(fn) {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A database with every migration applied, which the run's suites copy (CREATE DATABASE … TEMPLATE). */
async function migratedTemplate() {
  const name = `afs_tpl_${RUN_ID}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const { openStore } = await import('../dist/src/store/open.js');
  const { loadConfig } = await import('../dist/src/config.js');
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  const store = openStore(loadConfig({ DATABASE_URL: url.toString(), LOG_LEVEL: 'silent' }));
  await store.migrate();
  await store.close();
  return name;
}

/** Drops the run's databases (its suites leave them to this), ten at a time, and the template. */
async function dropRunDatabases() {
  await admin(async (c) => {
    const names = (await c.query(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`afs_test_${RUN_ID}_%`])).rows.map((r) => r.datname);
    for (let i = 0; i < names.length; i += 10) {
      await Promise.all(names.slice(i, i + 10).map((n) => admin((d) => d.query(`DROP DATABASE IF EXISTS ${n} WITH (FORCE)`))));
    }
    await c.query(`DROP DATABASE IF EXISTS afs_tpl_${RUN_ID} WITH (FORCE)`);
  });
}

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...collect(p));
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

// `--slow` runs only dist/test/slow (differential suites against GNU, kill -9 crash runs: minutes
// each); without it, everything else. `npm test` and `npm run test:slow` together run every file.
const args = process.argv.slice(2);
const slow = args.includes('--slow');
const filter = args.filter((a) => a !== '--slow');
let files = collect('dist/test')
  .filter((f) => f.split(/[\\/]/).includes('slow') === slow)
  .sort();
if (filter.length) files = files.filter((f) => filter.some((x) => f.includes(x)));
// The longest files start first, so two short ones do not leave one long one running alone at
// the end (measured with the rest of this file: the wall time fell from 337 s to 250 s).
const LONGEST_FIRST = [
  'blob-s3',
  'event-loop',
  'visibility-model',
  'security-isolation',
  'security-paths',
  'fuzz',
  'bash',
  'big-trees',
  'cli',
  'bash-runaway',
  'bash-isolation',
  'keys',
  'export-import',
  'ui',
  'pg-replicas',
  'social-concurrency',
  'social-isolation',
  'social-activity',
  'bash-commands',
  'social-graph',
  'social-feed-query',
];
const rank = (f) => {
  const i = LONGEST_FIRST.indexOf(f.split(/[\\/]/).pop().replace('.test.js', ''));
  return i === -1 ? LONGEST_FIRST.length : i;
};
files.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// Three files at once on two cores: most wait on PostgreSQL, child processes or timers (measured:
// 337 s with two, 295 s with three, the same 1,143 tests passing). The slow suites (crash runs,
// timing-heavy) keep two.
const concurrency = process.env.TEST_CONCURRENCY ?? (slow ? '2' : '3');
const run = (list, env = {}) =>
  spawnSync(process.execPath, ['--test', `--test-concurrency=${concurrency}`, ...list], { stdio: 'inherit', env: { ...process.env, ...env } })
    .status ?? 1;
// The social race scenarios run 2 rounds in npm test and 4 in the slow pass (two processes).
let status = run(files, slow ? { SOCIAL_RACE_ROUNDS: process.env.SOCIAL_RACE_ROUNDS ?? '4' } : {});
// The slow pass also runs the two fuzzers of `npm test` at depth: `npm test` keeps them short
// (500 random bodies and 30 cost cases, on SQLite) to stay under five minutes on two cores.
if (slow && filter.length === 0) {
  status = run(['dist/test/fuzz.test.js'], { FUZZ_RUNS: process.env.FUZZ_RUNS ?? '40000', HEAVY_BACKENDS: 'sqlite,postgres' }) || status;
  // The suites npm test runs on SQLite only (test/helpers/backends.ts heavyBackends): here on
  // PostgreSQL, and the event loop's cost fuzz at depth on both. They are the deadline-bound ones,
  // and the two longest PostgreSQL halves (export/import 25 s, compact history 23 s: npm test took
  // 6 m 35 s on a slow 2-core VM with them).
  status =
    run(['dist/test/event-loop.test.js'], { COST_FUZZ_RUNS: process.env.COST_FUZZ_RUNS ?? '300', HEAVY_BACKENDS: 'sqlite,postgres' }) || status;
  status =
    run(
      [
        'dist/test/bash-runaway.test.js',
        'dist/test/bash-isolation.test.js',
        'dist/test/blob-s3.test.js',
        'dist/test/bash.test.js',
        'dist/test/export-import.test.js',
        'dist/test/history-storage.test.js',
        'dist/test/slow/big-trees.test.js',
        'dist/test/slow/cli.test.js',
      ],
      {
        HEAVY_BACKENDS: 'postgres',
      },
    ) || status;
  // The four isolation suites on a PostgreSQL database with an ICU collation (npm test runs
  // collation-isolation's byte-order cases there; these add every other boundary probe).
  status =
    run(
      [
        'dist/test/security-isolation.test.js',
        'dist/test/shares-isolation.test.js',
        'dist/test/community-isolation.test.js',
        'dist/test/social-isolation.test.js',
      ],
      { ISOLATION_BACKENDS: 'postgres-icu' },
    ) || status;
  // The following feed's query against its definition over a longer random history (npm test: 250 actions).
  status = run(['dist/test/social-feed-query.test.js'], { FEED_QUERY_ACTIONS: process.env.FEED_QUERY_ACTIONS ?? '1500' }) || status;
  // Every hostile path × tool field, and every isolation probe, on both backends (npm test: each on one of them).
  status =
    run(['dist/test/security-paths.test.js', 'dist/test/security-isolation.test.js'], { SECURITY_PATHS_FULL: '1', ISOLATION_FULL: '1' }) || status;
}
if (process.env.TEST_RUN_ID === RUN_ID) await dropRunDatabases();
process.exit(status);

// Search at scale: the `search` tool over the bench:bash tree (10,000 files, ~20 MB) plus 100,000
// community posts, on SQLite and PostgreSQL; GNU `grep -rl` over the same files; and what the
// search index costs a `write` (server CPU per call against the build from before search).
//
// For each backend:
//  1. Seed: start the real server on a fresh database, register the agents and make the community
//     through the tools, stop it; commit the tree through the store (500 files a changeset, as
//     bench/bash.mjs does: the commit queues the files in the search outbox), insert the posts with
//     SQL (as bench/community.mjs does) and queue them in the outbox (as migration 8 does for
//     existing posts). Then start the server again and time its background indexer draining the
//     outbox (items/s; the server process's and PostgreSQL's CPU). Then a backlog: 20,000 posts
//     queued again, and a search and a read every 250 ms until it is drained.
//  2. Queries: each one `--warmup` times, then `--calls` times in sequence over HTTP as the tree's
//     owner (p50/p99 wall time per call, the server's CPU per call, the matches in the index).
//     SQLite first as deployed (no planner statistics: nothing runs ANALYZE), then after ANALYZE
//     and a restart; PostgreSQL after ANALYZE and a restart. A call over 5 s is cut short.
//  3. Write overhead: the same write load (a separate load-generator process, autocannon, 50
//     connections) against this build and against `--baseline`: by default `no-search`, this
//     commit built without indexing files (the one line of the commit program that queues them
//     removed; see ensureBaseline), or `pre-search` (the parent of the commit that added the search
//     index; it also lacks everything added since), or any commit. Fresh database each run, builds
//     alternating, `--write-rounds` rounds. CPU per call is the whole server process's CPU (/proc)
//     plus, on PostgreSQL, its backends' (the measure), from the start of the measured run
//     until the search outbox is empty again and the server idle (so the background indexer's work
//     for every measured write is counted, its idle-time index merges included), over the calls.
// GNU: the same tree written to a temp dir; `LC_ALL=C grep -rl <word> .` median of `--grep-runs`
// after a warm-up run (warm page cache).
//
// Run: npm run bench:search [-- --backends sqlite,postgres --calls 50 --write-docs --skip-write]
// (--keep keeps the search databases for a look at the plans; drop them by hand.)
import { execFileSync, fork, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { hotRank } from '../dist/src/core/ranking.js';
import { ftsQuery, parseQuery, tsQuery } from '../dist/src/core/search-text.js';
import { SqliteStore } from '../dist/src/store/sqlite.js';
import { PostgresStore } from '../dist/src/store/postgres.js';
import { callTool as call, commitTree, gitRev, median, register } from './common.mjs';
import { cpuOf, postgresCpu, startServer } from './server-process.mjs';
import { FILES, RARE_IDENTIFIER, VOCAB, makePosts, makeTree } from './search-corpus.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(BENCH_DIR);
const DOCS = path.join(ROOT, 'docs/benchmarks.md');
const ADMIN_PG = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const [MARK_START, MARK_END] = ['<!-- bench:search:start -->', '<!-- bench:search:end -->'];
const TARGET_P50_MS = 20;
const TARGET_GREP_X = 10;
const TARGET_WRITE_CPU = 0.15;
const AUTHORS = 20;
const BACKLOG = 20_000;
/** A search call slower than this is cut short (and its server restarted): see runQueries. */
const CAP_MS = Number(process.env.BENCH_SEARCH_CAP_MS || 5000);

const { values: opts } = parseArgs({
  options: {
    backends: { type: 'string', default: 'sqlite,postgres' },
    calls: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '5' },
    posts: { type: 'string', default: '100000' },
    'grep-runs': { type: 'string', default: '5' },
    baseline: { type: 'string' },
    // Five: with three, the medians of the same build moved by up to 30% between runs on a 2-core VM.
    'write-rounds': { type: 'string', default: '5' },
    'write-seconds': { type: 'string', default: '6' },
    'write-warmup': { type: 'string', default: '2' },
    'write-variants': { type: 'string', default: 'words,scenario' },
    connections: { type: 'string', default: '50' },
    'skip-write': { type: 'boolean', default: false },
    'skip-search': { type: 'boolean', default: false },
    'write-docs': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const CALLS = Number(opts.calls);
const WARMUP = Number(opts.warmup);
const POSTS = Number(opts.posts);
const GREP_RUNS = Number(opts['grep-runs']);
const BACKENDS = opts.backends.split(',');

// The queries, with the word GNU grep looks for in the same files (grep -rl is literal and
// case-sensitive: the cheapest grep; the search is per word, case- and accent-insensitive).
const [W_A, W_B] = [VOCAB[100], VOCAB[150]];
const PREFIX = 'felqu';
const QUERIES = [
  { name: 'rare identifier', input: { query: RARE_IDENTIFIER }, grep: RARE_IDENTIFIER },
  { name: 'rare word', input: { query: 'needle' }, grep: 'needle' },
  { name: 'common word, files only', input: { query: 'lambda', types: ['files'] }, grep: 'lambda' },
  { name: 'two words', input: { query: `${W_A} ${W_B}` }, grep: W_A },
  { name: 'phrase', input: { query: '"the needle we look"' }, grep: 'the needle we look' },
  { name: 'prefix', input: { query: `${PREFIX}*` }, grep: PREFIX },
  { name: '-exclude', input: { query: `${W_A} -${W_B}` }, grep: W_A },
];

// ---------------------------------------------------------------- helpers
const pct = (s, p) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
const f1 = (n) => (n == null ? '—' : n.toFixed(1));
const f0 = (n) => (n == null ? '—' : Math.round(n).toLocaleString('en'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

/** Waits until a process has been idle (< 10 ms of CPU in 500 ms; at most 15 s): its start-up work is not counted. */
async function quiet(pid) {
  for (let i = 0; i < 30; i++) {
    const c = cpuOf(pid);
    await sleep(500);
    if (cpuOf(pid) - c < 0.01) return;
  }
}

/** A fresh database: a temp dir (SQLite) or a database of our own (PostgreSQL); query() reads it from outside the server. */
async function openDb(backend, label) {
  if (backend === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `afs-bench-search-${label}-`));
    const file = path.join(dir, 'afs.sqlite');
    return {
      env: { DATA_DIR: dir },
      dir,
      async query(sql, params = []) {
        const d = new Database(file, { fileMustExist: true, timeout: 10_000 });
        try {
          const st = d.prepare(sql.replace(/\$\d+/g, '?'));
          if (!st.reader) return void st.run(...params);
          return st.raw().all(...params);
        } finally {
          d.close();
        }
      },
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `afs_bench_search_${label}_${process.pid}`;
  const admin = new pg.Client({ connectionString: ADMIN_PG });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_PG);
  url.pathname = `/${name}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `afs-bench-search-${label}-`));
  let client = null;
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: dataDir },
    url: url.toString(),
    async query(sql, params = []) {
      if (!client) {
        client = new pg.Client({ connectionString: url.toString() });
        await client.connect();
      }
      return (await client.query({ text: sql, values: params, rowMode: 'array' })).rows;
    },
    drop: async () => {
      await client?.end();
      client = null;
      const a = new pg.Client({ connectionString: ADMIN_PG });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const pending = async (db) => Number((await db.query('SELECT COUNT(*) FROM search_outbox'))[0][0]);

/** Waits until the search outbox is empty; returns the ms waited. onPoll(pendingCount, ms) sees each poll. */
async function drained(db, { timeoutMs = 600_000, everyMs = 100, onPoll } = {}) {
  const t = performance.now();
  for (;;) {
    const n = await pending(db);
    onPoll?.(n, performance.now() - t);
    if (n === 0) return performance.now() - t;
    if (performance.now() - t > timeoutMs) throw new Error(`search outbox still has ${n} rows after ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

// ---------------------------------------------------------------- GNU grep
function grepTimes(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afs-bench-search-gnu-'));
  try {
    for (const f of files) {
      fs.mkdirSync(path.join(dir, path.dirname(f.path)), { recursive: true });
      fs.writeFileSync(path.join(dir, f.path), f.content);
    }
    const out = {};
    for (const word of new Set(QUERIES.map((q) => q.grep))) {
      const run = () => {
        const t = performance.now();
        const r = spawnSync('grep', ['-rl', '--', word, '.'], { cwd: dir, env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 64 << 20 });
        const ms = performance.now() - t;
        if (r.status !== 0 && r.status !== 1) throw new Error(`grep ${word}: exit ${r.status} ${r.stderr}`);
        return { ms, files: r.stdout.toString().split('\n').filter(Boolean).length };
      };
      run(); // warm
      const runs = Array.from({ length: GREP_RUNS }, run);
      out[word] = { ms: median(runs.map((r) => r.ms)), files: runs[0].files };
    }
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- seeding
async function commitFiles(backend, db, agentId, files) {
  const store =
    backend === 'sqlite' ? new SqliteStore({ dataDir: db.dir, synchronous: 'normal' }) : new PostgresStore({ connectionString: db.url, poolSize: 2 });
  try {
    await commitTree(store, agentId, files);
  } finally {
    await store.close();
  }
}

const POST_SQL = 'INSERT INTO posts (id, community_id, author_id, title, body, body_hash, url, tags, attachments, score, hot, created_at_ms) VALUES ';
const QUEUE_POSTS = "INSERT INTO search_outbox (type, owner_id, ref) SELECT 'post', author_id, id FROM posts WHERE id LIKE 'pst_sbench%' ORDER BY id";

async function insertPosts(backend, db, communityId, authorIds, posts) {
  const now = Date.now();
  const r = (() => {
    let x = 3;
    return () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
  })();
  const rows = posts.map((p, i) => {
    const created = now - Math.floor(r() * 30 * 86_400_000);
    const score = Math.floor(r() ** 4 * 500) - 20;
    return [
      `pst_sbench${String(i).padStart(8, '0')}`,
      communityId,
      authorIds[i % authorIds.length],
      p.title,
      p.body,
      `h${i}`,
      score,
      hotRank(score, created),
      created,
    ];
  });
  if (backend === 'sqlite') {
    const d = new Database(path.join(db.dir, 'afs.sqlite'));
    const ins = d.prepare(`${POST_SQL}(?, ?, ?, ?, ?, ?, NULL, '[]', '[]', ?, ?, ?)`);
    d.transaction(() => {
      for (const row of rows) ins.run(...row);
      d.prepare('UPDATE communities SET post_count = post_count + ? WHERE id = ?').run(rows.length, communityId);
      d.prepare(QUEUE_POSTS).run();
    })();
    d.close();
    return;
  }
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    await c.query('BEGIN');
    for (let i = 0; i < rows.length; i += 1000) {
      const chunk = rows.slice(i, i + 1000);
      const values = chunk.map((_, j) => {
        const b = j * 9;
        return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, NULL, '[]', '[]', $${b + 7}, $${b + 8}, $${b + 9})`;
      });
      await c.query(POST_SQL + values.join(', '), chunk.flat());
    }
    await c.query('UPDATE communities SET post_count = post_count + $1 WHERE id = $2', [rows.length, communityId]);
    await c.query(QUEUE_POSTS);
    await c.query('COMMIT');
  } finally {
    await c.end();
  }
}

/** The engine's own count of matches for a query, by type (no visibility rules). */
async function matches(backend, db, query) {
  const parsed = parseQuery(query);
  const rows =
    backend === 'sqlite'
      ? await db.query(
          'SELECT d.type, COUNT(*) FROM search_fts JOIN search_docs d ON d.id = search_fts.rowid WHERE search_fts MATCH ? GROUP BY d.type',
          [ftsQuery(parsed)],
        )
      : await db.query('SELECT type, COUNT(*) FROM search_docs WHERE tsv @@ CAST($1 AS tsquery) GROUP BY type', [tsQuery(parsed)]);
  return Object.fromEntries(rows.map((r) => [String(r[0]), Number(r[1])]));
}

/** What the search's catch-up costs when there is nothing to index (one indexPending), in µs, in this process. */
async function idleCatchUpUs(backend, db) {
  const store =
    backend === 'sqlite' ? new SqliteStore({ dataDir: db.dir, synchronous: 'normal' }) : new PostgresStore({ connectionString: db.url, poolSize: 2 });
  try {
    const once = () => store.indexPending({ maxItems: 200, maxBytes: 512 * 1024, maxFileBytes: 256 * 1024 });
    for (let i = 0; i < 50; i++) await once();
    const n = 500;
    const t = performance.now();
    for (let i = 0; i < n; i++) await once();
    return ((performance.now() - t) / n) * 1000;
  } finally {
    await store.close();
  }
}

// ---------------------------------------------------------------- 1. search
async function searchBackend(backend, files, posts) {
  const db = await openDb(backend, 'q');
  const env = { ...db.env, REGISTRATIONS_PER_IP_PER_HOUR: '0' };
  const start = () => startBuild(path.join(ROOT, 'dist/src/server.js'), ROOT, env);
  let server = await start();
  let owner = null;
  try {
    owner = await register(server.base, 'Search Owner');
    const authors = [];
    for (let i = 0; i < AUTHORS; i++) authors.push(await register(server.base, `Search Author ${i}`));
    await call(server.base, authors[0].apiKey, 'create_community', { name: 'bench' });
    await drained(db);
    await server.stop();
    const idOf = async (slug) => String((await db.query('SELECT id FROM agents WHERE slug = $1', [slug]))[0][0]);
    const ownerId = await idOf(owner.slug);
    const authorIds = [];
    for (const a of authors) authorIds.push(await idOf(a.slug));
    const communityId = String((await db.query("SELECT id FROM communities WHERE name = 'bench'"))[0][0]);

    log(`${backend}: seeding ${files.length} files and ${posts.length} posts`);
    let t = performance.now();
    await commitFiles(backend, db, ownerId, files);
    const filesS = (performance.now() - t) / 1000;
    t = performance.now();
    await insertPosts(backend, db, communityId, authorIds, posts);
    const postsS = (performance.now() - t) / 1000;
    const queued = await pending(db);
    log(`${backend}: seeded (files ${filesS.toFixed(1)} s, posts ${postsS.toFixed(1)} s); ${queued} outbox rows; indexing`);

    // The server's background indexer drains the outbox: the files were queued first, then the posts.
    const cpuDb0 = backend === 'postgres' ? postgresCpu() : 0;
    t = performance.now();
    server = await start();
    let filesDoneMs = null;
    let lastLog = 0;
    const totalMs = await drained(db, {
      everyMs: 200,
      onPoll(n, ms) {
        if (filesDoneMs === null && n <= posts.length) filesDoneMs = performance.now() - t;
        if (ms - lastLog > 15_000) {
          lastLog = ms;
          log(`${backend}: ${n} outbox rows left`);
        }
      },
    });
    const indexMs = performance.now() - t;
    const indexing = {
      items: queued,
      s: indexMs / 1000,
      filesS: filesDoneMs / 1000,
      postsS: (indexMs - filesDoneMs) / 1000,
      serverCpuS: cpuOf(server.proc.pid),
      dbCpuS: backend === 'postgres' ? postgresCpu() - cpuDb0 : null,
    };
    void totalMs;
    log(`${backend}: indexed ${queued} items in ${indexing.s.toFixed(1)} s (${f0(queued / indexing.s)} items/s)`);

    // A backlog again (20,000 posts queued anew, as edits would), and meanwhile, every 250 ms, a search
    // and a read of a 2 KB file: what an agent sees while the indexer catches up.
    await db.query(
      `INSERT INTO search_outbox (type, owner_id, ref) SELECT 'post', author_id, id FROM posts WHERE id LIKE 'pst_sbench%' ORDER BY id LIMIT ${BACKLOG}`,
    );
    const probes = { search: [], read: [] };
    let backlogDone = false;
    const probing = (async () => {
      while (!backlogDone) {
        probes.search.push((await call(server.base, owner.apiKey, 'search', { query: 'needle' })).ms);
        probes.read.push((await call(server.base, owner.apiKey, 'read', { path: files[0].path })).ms);
        await sleep(250);
      }
    })();
    const backlogMs = await drained(db, { everyMs: 100 });
    backlogDone = true;
    await probing;
    const stats = (xs) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return { n: xs.length, p50: median(sorted), p99: pct(sorted, 99), max: sorted.at(-1) };
    };
    indexing.backlog = { s: backlogMs / 1000, search: stats(probes.search), read: stats(probes.read) };
    log(
      `${backend}: backlog of ${BACKLOG} drained in ${f1(backlogMs / 1000)} s; search meanwhile p50 ${f1(indexing.backlog.search.p50)} ms, read p50 ${f1(indexing.backlog.read.p50)} ms`,
    );
    const docs = Object.fromEntries(
      (await db.query('SELECT type, COUNT(*) FROM search_docs GROUP BY type')).map((r) => [String(r[0]), Number(r[1])]),
    );

    /** Each query: warm-up, then the measured calls in sequence (3 only when a call takes over a second). */
    const runQueries = async (stats) => {
      const out = [];
      for (const q of QUERIES) {
        // One call first, for at most CAP_MS: a query slower than that is reported as such, and the
        // server is killed and started again (it is stuck in the query: SQLite's cannot be stopped).
        let first;
        try {
          first = await call(server.base, owner.apiKey, 'search', q.input, CAP_MS);
        } catch (err) {
          if (err?.name !== 'TimeoutError') throw err;
          await server.kill();
          server = await start();
          await quiet(server.proc.pid);
          out.push({
            ...q,
            stats,
            calls: 1,
            p50: null,
            over: CAP_MS,
            p99: null,
            cpu: null,
            dbCpu: null,
            matches: await matches(backend, db, q.input.query),
          });
          log(`${backend} (${stats}): ${q.name} (${q.input.query}): over ${CAP_MS} ms, server restarted`);
          continue;
        }
        const slow = first.ms > 1000;
        for (let i = 1; i < WARMUP && !slow; i++) await call(server.base, owner.apiKey, 'search', q.input);
        const calls = slow ? Math.min(3, CALLS) : CALLS;
        const cpu0 = cpuOf(server.proc.pid);
        const cpuDb = backend === 'postgres' ? postgresCpu() : 0;
        const ms = [];
        let items = 0;
        for (let i = 0; i < calls; i++) {
          const r = await call(server.base, owner.apiKey, 'search', q.input);
          ms.push(r.ms);
          items = r.inner.items.length;
        }
        const cpu = ((cpuOf(server.proc.pid) - cpu0) / calls) * 1000;
        const dbCpu = backend === 'postgres' ? ((postgresCpu() - cpuDb) / calls) * 1000 : null;
        const sorted = ms.sort((a, b) => a - b);
        const m = await matches(backend, db, q.input.query);
        out.push({ ...q, stats, calls, p50: median(sorted), p99: pct(sorted, 99), cpu, dbCpu, items, matches: m });
        log(
          `${backend} (${stats}): ${q.name} (${q.input.query}): p50 ${f1(median(sorted))} ms, p99 ${f1(pct(sorted, 99))} ms of ${calls}, server CPU ${f1(cpu)} ms/call, matches ${JSON.stringify(m)}`,
        );
      }
      return out;
    };
    const results = [];
    // SQLite as deployed: nothing in the service runs ANALYZE, so its planner has no statistics.
    if (backend === 'sqlite') {
      await quiet(server.proc.pid);
      results.push(...(await runQueries('none')));
    }
    // Then with statistics (PostgreSQL: what autovacuum's ANALYZE gives, sooner), in a server that
    // has them: a SQLite connection reads sqlite_stat1 when it opens (an ANALYZE by another
    // connection is not seen by an open one), and PostgreSQL's prepared statements are planned anew.
    await server.stop();
    server = null;
    if (backend === 'postgres') await db.query('ANALYZE');
    else {
      const d = new Database(path.join(db.dir, 'afs.sqlite'));
      d.exec('ANALYZE');
      d.close();
    }
    server = await start();
    await quiet(server.proc.pid);
    results.push(...(await runQueries('ANALYZE')));
    await server.stop();
    server = null;
    const idleUs = await idleCatchUpUs(backend, db);
    return { backend, seed: { filesS, postsS }, indexing, docs, results, idleUs };
  } finally {
    if (server) await server.stop();
    if (opts.keep) log(`${backend}: kept the database: ${JSON.stringify(db.env)}, owner key ${owner?.apiKey}`);
    else await db.drop();
  }
}

// ---------------------------------------------------------------- 3. write overhead
/**
 * The build to compare with: the parent of the commit that added the search index (so the two
 * builds differ by search alone; d66b493, named in the issue, is also before communities).
 */
function defaultBaseline() {
  try {
    const git = (...args) =>
      execFileSync('git', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim();
    const added = git('log', '--diff-filter=A', '--format=%h', '--', 'src/store/search-index.ts').split('\n').pop();
    if (added) return git('rev-parse', '--short', `${added}^`);
  } catch {
    // not a git checkout, or search not committed yet
  }
  return 'd66b493';
}

/**
 * The line of the commit program that queues a commit's files for the search index. The
 * `no-search` baseline is this very commit built without it: every write, commit and background
 * loop as here, only no file reaches the outbox or the index (the indexer then finds nothing to do).
 */
const QUEUE_FILES_LINE = "if (c.state.kind === 'file' || (c.state.kind === 'deleted' && c.state.was === 'file')) searchPaths.push(c.path);";

function ensureBaseline(baseline) {
  const noSearch = baseline === 'no-search';
  const commit = noSearch ? gitHead() : baseline;
  const dir = path.join(os.tmpdir(), `afs-search-baseline-${noSearch ? `nosearch-${commit}` : commit}`);
  const server = path.join(dir, 'dist/src/server.js');
  if (fs.existsSync(server)) return { dir, server };
  log(`baseline: building ${noSearch ? `${commit} without indexing files` : commit} in ${dir} (git archive, npm ci, npm run build; once)`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const tar = execFileSync('git', ['archive', commit], { cwd: ROOT, maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  if (noSearch) {
    const file = path.join(dir, 'src/store/commit-program.ts');
    const text = fs.readFileSync(file, 'utf8');
    if (!text.includes(QUEUE_FILES_LINE)) {
      throw new Error(
        `no-search baseline: src/store/commit-program.ts no longer has the line that queues files for search; update QUEUE_FILES_LINE in bench/search.mjs`,
      );
    }
    fs.writeFileSync(file, text.replace(QUEUE_FILES_LINE, '// (bench: files not queued for search)'));
  }
  // The same lockfile and patch script as here: a copy of node_modules is what npm ci would install.
  const same = (f) => fs.existsSync(path.join(dir, f)) && fs.readFileSync(path.join(dir, f), 'utf8') === fs.readFileSync(path.join(ROOT, f), 'utf8');
  if (same('package-lock.json') && same('scripts/patch-just-bash.mjs') && fs.existsSync(path.join(ROOT, 'node_modules'))) {
    execFileSync('cp', ['-a', path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules')]);
  } else execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  return { dir, server };
}

function gitHead() {
  const git = (...args) =>
    execFileSync('git', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  if (git('status', '--porcelain', '--untracked-files=no', '--', 'src')) {
    throw new Error('no-search baseline: src/ has uncommitted changes; the baseline is built from HEAD, so commit them first');
  }
  return git('rev-parse', '--short', 'HEAD');
}

const baselineText = (b) =>
  b === 'no-search'
    ? "this same commit built without indexing files (the commit program's line that queues changed files for search removed: every write, commit and background loop as here, no file reaches the outbox or the index)"
    : `the build of ${b}`;

/** Like server-process.mjs's startServer, for any build's server.js. */
const startBuild = (serverJs, cwd, env) => startServer(env, { serverJs, cwd });

async function writeRun(backend, build, variant) {
  const db = await openDb(backend, 'w');
  // The packer off in both builds: its work after the run (old versions encoded, the same in
  // both) is not what this measures, and counting it until the server is idle would dilute the ratio.
  const server = await startBuild(build.server, build.dir, { ...db.env, PACK_INTERVAL_MS: '0' });
  try {
    const { apiKey } = await register(server.base, 'Write Bench');
    const job = {
      baseUrl: server.base,
      apiKey,
      variant,
      connections: Number(opts.connections),
      warmup: Number(opts['write-warmup']),
      duration: Number(opts['write-seconds']),
    };
    const gen = fork(path.join(BENCH_DIR, 'search-writeload.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let start = null;
    const reply = await new Promise((resolve, reject) => {
      let msg = null;
      gen.on('message', (m) => {
        if (m.phase === 'measure') start = { cpu: cpuOf(server.proc.pid), db: backend === 'postgres' ? postgresCpu() : 0 };
        else msg = m;
      });
      gen.once('exit', (code) => (msg?.ok ? resolve(msg.result) : reject(new Error(`write load: ${msg?.error ?? `exit ${code}`}`))));
      gen.send(job);
    });
    // Everything the measured writes queued gets indexed before the CPU is read (this build only).
    const drainMs = build.search ? await drained(db, { everyMs: 25 }) : 0;
    // Then idle: SQLite merges the index's segments once the outbox is empty (tools/search-indexer.ts).
    await quiet(server.proc.pid);
    const cpu = cpuOf(server.proc.pid) - start.cpu;
    // The two builds differ in what they claim to: files indexed after, none before.
    const [[indexed]] = await db.query(`SELECT COUNT(*) FROM search_docs WHERE type = 'file'`);
    if (Number(indexed) > 0 !== build.search) throw new Error(`${backend} ${build.name} ${variant}: ${indexed} files indexed`);
    const dbCpu = backend === 'postgres' ? postgresCpu() - start.db : null;
    if (reply.errors) throw new Error(`${backend} ${build.name} ${variant}: ${reply.errors} errors, e.g. ${reply.sample}`);
    return {
      calls: reply.calls,
      rps: reply.rps,
      p50: reply.p50,
      p99: reply.p99,
      cpuUs: (cpu / reply.calls) * 1e6,
      dbCpuUs: dbCpu === null ? null : (dbCpu / reply.calls) * 1e6,
      drainMs,
    };
  } finally {
    await server.stop();
    await db.drop();
  }
}

async function writeBackend(backend, builds) {
  const variants = opts['write-variants'].split(',');
  const runs = {};
  for (let r = 0; r < Number(opts['write-rounds']); r++) {
    // Alternate which build goes first, so a drift of the machine falls on both.
    const order = r % 2 === 0 ? builds : [...builds].reverse();
    for (const variant of variants) {
      for (const build of order) {
        const res = await writeRun(backend, build, variant);
        (runs[`${variant} ${build.name}`] ??= []).push(res);
        log(
          `${backend} write ${variant} ${build.name} (round ${r + 1}): ${f0(res.rps)} req/s, server CPU ${f0(res.cpuUs)} µs/call` +
            `${res.dbCpuUs != null ? `, db CPU ${f0(res.dbCpuUs)} µs/call` : ''}, outbox drained ${f0(res.drainMs)} ms after the run`,
        );
      }
    }
  }
  return variants.map((variant) => {
    const med = (build, k) => median(runs[`${variant} ${build}`].map((x) => x[k]).filter((x) => x != null));
    // The bar counts PostgreSQL's backends too (a commit's outbox row and the indexer's upserts are theirs).
    const total = (build) => median(runs[`${variant} ${build}`].map((x) => x.cpuUs + (x.dbCpuUs ?? 0)));
    const before = total('before');
    const after = total('after');
    return {
      backend,
      variant,
      before,
      after,
      beforeRuns: runs[`${variant} before`].map((x) => x.cpuUs + (x.dbCpuUs ?? 0)),
      afterRuns: runs[`${variant} after`].map((x) => x.cpuUs + (x.dbCpuUs ?? 0)),
      serverBefore: med('before', 'cpuUs'),
      serverAfter: med('after', 'cpuUs'),
      dbBefore: backend === 'postgres' ? med('before', 'dbCpuUs') : null,
      dbAfter: backend === 'postgres' ? med('after', 'dbCpuUs') : null,
      rpsBefore: med('before', 'rps'),
      rpsAfter: med('after', 'rps'),
      drainMs: Math.max(...runs[`${variant} after`].map((x) => x.drainMs)),
      overhead: after / before - 1,
    };
  });
}

// ---------------------------------------------------------------- main
function report({ grep, searches, writes, baseline, startedAt, elapsedS, treeBytes, postBytes }) {
  const machine = `${os.cpus()[0]?.model?.trim()}, ${os.cpus().length} cores, Node ${process.version}`;
  const L = [];
  L.push(
    `Generated by \`npm run bench:search\` on ${startedAt.slice(0, 10)}, commit ${gitRev()}, in ${Math.round(elapsedS)} s. Machine: ${machine}.`,
    '',
    `Corpus: the bench:bash tree (${FILES.toLocaleString('en')} files in 100 directories, ${(treeBytes / 1e6).toFixed(1)} MB, 15 words and numbers; "needle" in 10 files) ` +
      `owned by the searching agent, and ${POSTS.toLocaleString('en')} posts in one community by ${AUTHORS} other agents (${(postBytes / 1e6).toFixed(1)} MB of titles and bodies from a ` +
      `2,000-word vocabulary with Zipf-like frequencies; "${RARE_IDENTIFIER}" in 20 posts, "needle" in 10) (bench/search-corpus.mjs).`,
  );
  if (searches.length) {
    L.push(
      '',
      '**Indexing the seed.** The tree is committed through the store (500 files a changeset; each commit queues its files in the search outbox) and the posts inserted with SQL and queued ' +
        "as migration 8 queues existing posts; then the server is started and its background indexer drains the outbox (the files first). Time from the server's start to an empty outbox; " +
        'CPU of the server process (indexer, its startup included) and of PostgreSQL over that time.',

      '',
      '| Backend | seed: commit files | seed: insert posts | items indexed | indexing time | items/s | files (s) | posts (s) | server CPU s | PostgreSQL CPU s |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...searches.map(
        (s) =>
          `| ${s.backend} | ${f1(s.seed.filesS)} s | ${f1(s.seed.postsS)} s | ${f0(s.indexing.items)} | ${f1(s.indexing.s)} s | ${f0(s.indexing.items / s.indexing.s)} | ` +
          `${f1(s.indexing.filesS)} (${f0(FILES / s.indexing.filesS)}/s) | ${f1(s.indexing.postsS)} (${f0(POSTS / s.indexing.postsS)}/s) | ${f1(s.indexing.serverCpuS)} | ${s.indexing.dbCpuS == null ? '—' : f1(s.indexing.dbCpuS)} |`,
      ),
      '',
      `**A backlog.** Then ${BACKLOG.toLocaleString('en')} posts are queued again (as edits would queue them) and, until the outbox is empty, the owner calls \`search\` (\`needle\`) and ` +
        '`read` (a 2 KB file) in turn, 250 ms apart: what an agent sees while the indexer catches up.',
      '',
      '| Backend | backlog drained in | search during it: p50 / p99 / max ms (calls) | read during it: p50 / p99 / max ms |',
      '|---|---|---|---|',
      ...searches.map((s) => {
        const b = s.indexing.backlog;
        return `| ${s.backend} | ${f1(b.s)} s | ${[b.search.p50, b.search.p99, b.search.max].map(f1).join(' / ')} (${b.search.n}) | ${[b.read.p50, b.read.p99, b.read.max].map(f1).join(' / ')} |`;
      }),
      '',
      `**Queries.** \`search\` as the tree's owner (all types unless said; default limit 25), ${WARMUP} warm-up calls then ${CALLS} in sequence over HTTP (3 when a call takes over a second; a call over ${CAP_MS / 1000} s is cut short and the server restarted). ` +
        'SQLite twice: as deployed (nothing in the service runs ANALYZE, so its planner has no statistics), then after `ANALYZE` and a server restart (a SQLite connection reads the statistics when it opens); ' +
        'PostgreSQL after `ANALYZE` (autovacuum would run it by itself) and a restart. ' +
        `"matches" is the engine's own count of matching documents (files/posts) before visibility rules and the limit; a search ranks at most the server's SEARCH_RANK_WINDOW (1,000 by default) of them, the most recently changed it may see, and answers \`exhaustive: false\` when more matched. GNU: \`LC_ALL=C grep -rl <word> .\` over the same files ` +
        `written to a temp dir (warm page cache), median of ${GREP_RUNS}; for the two-word and -exclude queries grep looks for the first word only, for the prefix the bare prefix. ` +
        `"× grep" is GNU's median over the search's p50 (target ≥ ${TARGET_GREP_X}×, and p50 < ${TARGET_P50_MS} ms). The search also covers the ${POSTS.toLocaleString('en')} posts; grep only the files.`,
      '',
      '| Backend | planner statistics | Query | matches files/posts | p50 ms | p99 ms | server CPU ms/call | PostgreSQL CPU ms/call | grep -rl ms (files) | × grep | p50 < 20 ms | ≥ 10× grep |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const s of searches) {
      for (const r of s.results) {
        const g = grep[r.grep];
        const x = g.ms / (r.p50 ?? r.over);
        L.push(
          `| ${s.backend} | ${r.stats === 'none' ? 'none (as deployed)' : 'after ANALYZE'} | ${r.name}: \`${r.input.query}\`${r.input.types ? ` (types ${r.input.types.join(',')})` : ''} | ${f0(r.matches.file ?? 0)}/${f0(r.matches.post ?? 0)} | ` +
            `${r.over ? `**> ${r.over / 1000} s** (cut short)` : f1(r.p50)} | ${r.calls < 10 ? `(${r.calls} call${r.calls > 1 ? 's' : ''})` : f1(r.p99)} | ${f1(r.cpu)} | ${r.dbCpu == null ? '—' : f1(r.dbCpu)} | ` +
            `${f1(g.ms)} (${g.files}) | ${r.over ? '< ' : ''}${x < 0.1 ? x.toFixed(3) : x.toFixed(1)}× | ${r.p50 != null && r.p50 < TARGET_P50_MS ? 'yes' : '**no**'} | ${x >= TARGET_GREP_X ? 'yes' : '**no**'} |`,
        );
      }
    }
    L.push(
      '',
      `The catch-up each search runs first (\`indexPending\`, a write transaction even when the outbox is empty), timed alone in-process: ` +
        searches.map((s) => `${s.backend} ${f0(s.idleUs)} µs`).join(', ') +
        '.',
    );
  }
  if (writes.length) {
    L.push(
      '',
      `**Indexing overhead on \`write\`.** The same write load against this build ("after") and ${baselineText(baseline)} ("before"), ` +
        `${opts.connections} connections from a separate load-generator process (bench/search-writeload.mjs), ${opts['write-warmup']} s warm-up + ${opts['write-seconds']} s measured, ` +
        `fresh database per run, ${opts['write-rounds']} rounds alternating which build runs first; medians. CPU per call = the whole server process's CPU (/proc, user + system) ` +
        "plus, on PostgreSQL, its backends' CPU, from the start of the measured run until the search outbox is empty again and the server process idle (the history packer off in both builds; the background indexer runs in the server process: its work for every measured write is " +
        'counted, its merges of the index in idle time included, plus the warm-up\'s last unindexed writes), over the measured calls. "words": 1 KB of words to one of 2,000 paths (each write is a file to tokenize and index); ' +
        '"scenario": npm run bench\'s `write` (1 KB of filler, ~30 tokens, to one of 4 paths).',
      '',
      `| Backend | load | CPU µs/call before (server + PostgreSQL) | after | overhead | runs before / after (µs) | server CPU µs/call before / after | PostgreSQL CPU µs/call before / after | req/s before / after | outbox empty after the run | ≤ +${TARGET_WRITE_CPU * 100}% |`,
      '|---|---|---|---|---|---|---|---|---|---|---|',
      ...writes.map(
        (w) =>
          `| ${w.backend} | ${w.variant} | ${f0(w.before)} | ${f0(w.after)} | ${w.overhead >= 0 ? '+' : ''}${(w.overhead * 100).toFixed(1)}% | ${w.beforeRuns.map(f0).join(', ')} / ${w.afterRuns.map(f0).join(', ')} | ` +
          `${f0(w.serverBefore)} / ${f0(w.serverAfter)} | ${w.dbBefore == null ? '—' : `${f0(w.dbBefore)} / ${f0(w.dbAfter)}`} | ${f0(w.rpsBefore)} / ${f0(w.rpsAfter)} | ≤ ${f0(w.drainMs)} ms | ${w.overhead <= TARGET_WRITE_CPU ? 'yes' : '**no**'} |`,
      ),
    );
  }
  return L.join('\n');
}

async function main() {
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  const files = makeTree();
  const posts = makePosts(POSTS);
  const treeBytes = files.reduce((n, f) => n + f.content.length, 0);
  const postBytes = posts.reduce((n, p) => n + p.title.length + p.body.length, 0);
  let grep = {};
  const searches = [];
  const writes = [];
  if (!opts['skip-search']) {
    log('GNU grep over the tree');
    grep = grepTimes(files);
    for (const [w, g] of Object.entries(grep)) log(`grep -rl ${w}: ${f1(g.ms)} ms, ${g.files} files`);
    for (const b of BACKENDS) searches.push(await searchBackend(b, files, posts));
  }
  const baseline = opts.baseline === 'pre-search' ? defaultBaseline() : (opts.baseline ?? 'no-search');
  if (!opts['skip-write']) {
    const base = ensureBaseline(baseline);
    const builds = [
      { name: 'before', search: false, ...base },
      { name: 'after', search: true, dir: ROOT, server: path.join(ROOT, 'dist/src/server.js') },
    ];
    for (const b of BACKENDS) writes.push(...(await writeBackend(b, builds)));
  }
  const text = report({ grep, searches, writes, baseline, startedAt, elapsedS: (performance.now() - t0) / 1000, treeBytes, postBytes });
  console.log(`\n${text}`);
  if (opts['write-docs']) {
    const block = `${MARK_START}\n<!-- generated by bench/search.mjs --write-docs; edits here are overwritten -->\n${text}\n${MARK_END}`;
    const doc = fs.readFileSync(DOCS, 'utf8');
    const a = doc.indexOf(MARK_START);
    const b = doc.indexOf(MARK_END);
    const next = a >= 0 && b > a ? doc.slice(0, a) + block + doc.slice(b + MARK_END.length) : `${doc.trimEnd()}\n\n## Search\n\n${block}\n`;
    fs.writeFileSync(DOCS, next);
    console.log(`wrote ${path.relative(ROOT, DOCS)}`);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

// The social layer at scale: get_home, get_feed and list_notifications for an agent
// that follows 1,000 agents among 10,000, with 1,000,000 events, on SQLite and PostgreSQL.
// For each backend: seed (bench/social-seed.mjs), start the real server on that database, call
// each tool N times in sequence over HTTP, report p50/p99/mean and the server's (and PostgreSQL's)
// CPU per call, then show the plans of the queries behind those tools with their time alone.
// Run: npm run bench:social [-- --calls 200 --backends sqlite,postgres --write-docs]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { cpuOf, startServer } from './server-process.mjs';
import { capturedQueries, ms3, postgresPlans, sqlitePlans } from './social-plans.mjs';
import { SHAPE, seedPostgres, seedSqlite } from './social-seed.mjs';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const DOCS = path.join(ROOT, 'docs/benchmarks.md');
const OUT = path.join(ROOT, 'bench/out'); // gitignored: full plans
const ADMIN_PG = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const TARGET_MS = 50;
const DAY = 86_400_000;
const [MARK_START, MARK_END] = ['<!-- bench:social:start -->', '<!-- bench:social:end -->'];

const { values: opts } = parseArgs({
  options: {
    calls: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '20' },
    backends: { type: 'string', default: 'sqlite,postgres' },
    'write-docs': { type: 'boolean', default: false },
    // Iterating: --keep leaves the seeded databases (noted in bench/out/), --reuse measures them again without seeding.
    keep: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
  },
});
const CALLS = Number(opts.calls);
const WARMUP = Number(opts.warmup);

// ------------------------------------------------------------------ the server and its calls
async function callTool(base, key, tool, input) {
  const t = performance.now();
  const res = await fetch(`${base}/api/tools/${tool}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const inner = JSON.parse((await res.json()).content[0].text);
  const ms = performance.now() - t;
  if (!inner.success) throw new Error(`${tool} ${JSON.stringify(input)}: ${JSON.stringify(inner.error ?? inner)}`);
  return { ms, inner };
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const summary = (ms) => {
  const s = [...ms].sort((a, b) => a - b);
  return { p50: pct(s, 50), p99: pct(s, 99), mean: s.reduce((a, b) => a + b, 0) / s.length };
};

/** Calls one case WARMUP + CALLS times in sequence; `before` runs untimed before each call. */
async function measure(ctx, c) {
  for (let i = 0; i < WARMUP; i++) {
    await c.before?.();
    await callTool(ctx.base, c.key ?? ctx.key, c.tool, c.input);
  }
  const dbPids = await ctx.dbPids();
  const cpu0 = { server: cpuOf(ctx.serverPid), db: dbPids.reduce((n, p) => n + cpuOf(p), 0) };
  const ms = [];
  let items = 0;
  for (let i = 0; i < CALLS; i++) {
    await c.before?.();
    const r = await callTool(ctx.base, c.key ?? ctx.key, c.tool, c.input);
    ms.push(r.ms);
    items = (r.inner.items ?? r.inner.fromFollowing ?? []).length;
  }
  const server = ((cpuOf(ctx.serverPid) - cpu0.server) / CALLS) * 1000;
  const db = dbPids.length ? ((dbPids.reduce((n, p) => n + cpuOf(p), 0) - cpu0.db) / CALLS) * 1000 : null;
  return { name: c.name, beyond: c.beyond, items, ...summary(ms), serverCpuMs: server, dbCpuMs: db };
}

// ------------------------------------------------------------------ one backend
async function seqsOf(query) {
  const [[max], [dayAgo]] = await query(['SELECT MAX(seq) FROM events', `SELECT MIN(seq) FROM events WHERE created_at_ms >= ${Date.now() - DAY}`]);
  return { max: Number(max), dayAgo: Number(dayAgo) };
}

/** A seeded database: SQLite in a temp dir, or a fresh PostgreSQL database (dropped after, unless --keep). */
async function openBackend(backend) {
  const saved = path.join(OUT, `social-seed-${backend}.json`);
  const t0 = performance.now();
  let seeded = opts.reuse && fs.existsSync(saved) ? JSON.parse(fs.readFileSync(saved, 'utf8')) : null;
  const keep = opts.keep || seeded !== null;
  if (backend === 'sqlite') {
    const dir = seeded?.location ?? fs.mkdtempSync(path.join(os.tmpdir(), 'afs-social-bench-'));
    seeded ??= { location: dir, ...(await seedSqlite(dir)), seedSeconds: (performance.now() - t0) / 1000 };
    const file = path.join(dir, 'afs.sqlite');
    const side = new Database(file); // untimed resets between calls (another connection, as a second process would be)
    const one = (stmt) => (stmt.reader ? stmt.raw().get() : stmt.run());
    return {
      ...{ seeded, keep, saved, sqliteFile: file, env: { DATA_DIR: dir } },
      rawQuery: async (texts) => texts.map((t) => one(side.prepare(t))),
      dbPids: async () => [],
      async cleanup() {
        side.close();
        if (!keep) fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const admin = new pg.Client({ connectionString: ADMIN_PG });
  await admin.connect();
  const name = seeded ? new URL(seeded.location).pathname.slice(1) : `afs_social_bench_${process.pid}`;
  const url = new URL(ADMIN_PG);
  url.pathname = `/${name}`;
  if (!seeded) {
    await admin.query(`CREATE DATABASE ${name}`);
    seeded = { location: url.toString(), ...(await seedPostgres(url.toString())), seedSeconds: (performance.now() - t0) / 1000 };
  }
  const side = new pg.Client({ connectionString: url.toString() });
  await side.connect();
  const activity = 'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()';
  return {
    ...{ seeded, keep, saved, dbUrl: url.toString(), env: { DATABASE_URL: url.toString() } },
    rawQuery: async (texts) => Promise.all(texts.map(async (t) => (await side.query({ text: t, rowMode: 'array' })).rows[0])),
    dbPids: async () => (await side.query(activity)).rows.map((r) => r.pid),
    async cleanup() {
      await side.end();
      if (!keep) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function runBackend(backend) {
  const { seeded, keep, saved, env, sqliteFile, dbUrl, rawQuery, dbPids, cleanup } = await openBackend(backend);
  console.log(`${backend}: seeded in ${seeded.seedSeconds.toFixed(1)} s`, seeded.check);
  if (keep) {
    fs.mkdirSync(OUT, { recursive: true });
    fs.writeFileSync(saved, JSON.stringify(seeded));
  }
  const { viewer, heavy } = seeded;
  let server;
  try {
    server = await startServer(env);
    const ctx = { base: server.base, key: viewer.apiKey, serverPid: server.proc.pid, dbPids };
    const seqs = await seqsOf(rawQuery);
    const page1 = (await callTool(ctx.base, ctx.key, 'get_feed', {})).inner;
    // get_home records itself; "a day away" moves that record back a day before each call.
    const awayDay = () => rawQuery([`UPDATE agents SET home_at_ms = ${Date.now() - DAY}, home_seq = ${seqs.dayAgo} WHERE id = '${viewer.id}'`]);
    const cases = [
      { name: 'get_home {}', tool: 'get_home', input: {} },
      { name: 'get_home {} (last one a day ago)', tool: 'get_home', input: {}, before: awayDay },
      { name: 'get_feed {}', tool: 'get_feed', input: {} },
      { name: 'get_feed {cursor} (page 2)', tool: 'get_feed', input: { cursor: page1.nextCursor } },
      { name: 'get_feed {filter: all}', tool: 'get_feed', input: { filter: 'all' } },
      { name: 'list_notifications {}', tool: 'list_notifications', input: {} },
      { name: 'list_notifications {unreadOnly: true}', tool: 'list_notifications', input: { unreadOnly: true } },
      // Beyond the target's shape (10× its followees): how the following feed grows with them.
      { name: 'heavy (follows 9,999): get_feed {}', tool: 'get_feed', input: {}, key: heavy.apiKey, beyond: true },
      { name: 'heavy (follows 9,999): get_home {}', tool: 'get_home', input: {}, key: heavy.apiKey, beyond: true },
    ];
    const load = [os.loadavg()[0]];
    const results = [];
    for (const c of cases) {
      const r = await measure(ctx, c);
      results.push(r);
      console.log(`${backend}  ${r.name.padEnd(40)} p50 ${ms3(r.p50)}  p99 ${ms3(r.p99)}  mean ${ms3(r.mean)} ms  (${r.items} items)`);
    }
    load.push(os.loadavg()[0]);
    await server.stop();
    server = null;
    const page2 = Number(JSON.parse(Buffer.from(page1.nextCursor, 'base64url').toString())[1]); // [list, seq]: see src/core/cursor.ts
    const queries = await capturedQueries(viewer.id, heavy.id, { ...seqs, page2 });
    const plans = backend === 'sqlite' ? await sqlitePlans(sqliteFile, queries) : await postgresPlans(dbUrl, queries);
    for (const p of plans) console.log(`${backend}  plan  ${p.name}: ${ms3(p.ms)} ms\n    ${p.short}`);
    fs.mkdirSync(OUT, { recursive: true });
    fs.writeFileSync(path.join(OUT, `social-plans-${backend}.txt`), plans.map((p) => `## ${p.name} (${ms3(p.ms)} ms)\n${p.full}\n`).join('\n'));
    return { backend, seedSeconds: seeded.seedSeconds, check: seeded.check, results, plans, load };
  } finally {
    await server?.stop();
    await cleanup();
  }
}

// ------------------------------------------------------------------ report
function machine() {
  const sh = (cmd, args) => {
    try {
      return execFileSync(cmd, args, { encoding: 'utf8' }).trim();
    } catch {
      return '?';
    }
  };
  const pgVersion = sh('psql', [ADMIN_PG, '-Atc', 'SHOW server_version']);
  const sharedBuffers = sh('psql', [ADMIN_PG, '-Atc', 'SHOW shared_buffers']);
  return {
    cpu: os.cpus()[0]?.model?.trim() ?? '?',
    cores: sh('nproc', []),
    memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    node: process.version,
    sqlite: new Database(':memory:').prepare('SELECT sqlite_version()').pluck().get(),
    pg: `${pgVersion} (shared_buffers ${sharedBuffers})`,
    commit:
      sh('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']) +
      (sh('git', ['-C', ROOT, 'status', '--porcelain', '--untracked-files=no']) ? ' (+ local changes)' : ''),
  };
}

function markdown(runs, m) {
  const out = [
    MARK_START,
    `Generated by \`npm run bench:social\` on ${new Date().toISOString().slice(0, 10)}, commit ${m.commit}. Machine: ${m.cpu}, ${m.cores} cores, ${m.memory}; ` +
      `Node ${m.node}, SQLite ${m.sqlite}, PostgreSQL ${m.pg}. Shape: ${SHAPE.agents.toLocaleString('en')} agents, the viewer follows ` +
      `${SHAPE.followees.toLocaleString('en')}, ${SHAPE.events.toLocaleString('en')} events; ${CALLS} sequential calls per row after ${WARMUP} warm-up calls, ` +
      "over HTTP from the bench process (one connection, keep-alive). CPU per call: the server process, and PostgreSQL's backends serving it.",
    '',
    '| Backend | Call | p50 ms | p99 ms | mean ms | server CPU ms/call | PostgreSQL CPU ms/call | items | p50 < 50 ms |',
    '|---|---|---:|---:|---:|---:|---:|---:|:-:|',
  ];
  for (const run of runs) {
    for (const r of run.results) {
      const db = r.dbCpuMs == null ? '—' : ms3(r.dbCpuMs);
      out.push(
        `| ${run.backend} | \`${r.name}\` | ${ms3(r.p50)} | ${ms3(r.p99)} | ${ms3(r.mean)} | ${ms3(r.serverCpuMs)} | ${db} | ${r.items} | ${r.beyond ? '(10×)' : r.p50 < TARGET_MS ? 'yes' : '**no**'} |`,
      );
    }
  }
  out.push('');
  for (const run of runs) {
    const c = run.check;
    out.push(
      `**${run.backend}**: seeded in ${run.seedSeconds.toFixed(0)} s (viewer: ${c.followees} followees, ${c.notifications} notifications, ${c.unread} unread); ` +
        `load average ${run.load.map((l) => l.toFixed(1)).join(' → ')} during the calls. Plans (the query alone, p50 of 15 runs after 5; full plans in \`bench/out/\`):`,
      '',
    );
    for (const p of run.plans) out.push(`- ${p.name}: ${ms3(p.ms)} ms  \n  \`${p.short}\``);
    out.push('');
  }
  out.push(MARK_END);
  return out.join('\n');
}

function writeDocs(text) {
  const doc = fs.readFileSync(DOCS, 'utf8');
  const [a, b] = [doc.indexOf(MARK_START), doc.indexOf(MARK_END)];
  const next =
    a >= 0 && b > a ? doc.slice(0, a) + text + doc.slice(b + MARK_END.length) : `${doc.trimEnd()}\n\n## Social layer at scale\n\n${text}\n`;
  fs.writeFileSync(DOCS, next);
}

const runs = [];
for (const backend of opts.backends.split(',')) runs.push(await runBackend(backend));
const text = markdown(runs, machine());
if (opts['write-docs']) writeDocs(text);
else console.log(`\n${text}`);
const missed = runs.flatMap((r) => r.results.filter((x) => !x.beyond && x.p50 >= TARGET_MS).map((x) => `${r.backend} ${x.name}`));
if (missed.length) console.log(`\nmissed ${TARGET_MS} ms p50: ${missed.join(', ')}`);

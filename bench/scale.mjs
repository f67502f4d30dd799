// The store at scale: `read` and `write` CPU per call on a store holding 10,000 agents
// and 1,000,000 files, against the same calls on an empty store, same run. Target: within 1.2×.
//
// For each backend:
//  1. Seed once: the real store (migrated), `--agents` agents each with a full key, each with
//     `--files` files of ~200 distinct bytes under /s/dNN/ committed through store.commit (one
//     changeset a directory, as an upload would), then the search outbox drained by the store's
//     own indexer in-process (the files are searchable, as they would be on a live server).
//  2. Rounds: a server on the seeded store and one on an empty store, alternating which goes
//     first; each runs bench/scenarios.mjs's `read` and `write` from the separate load generator
//     (bench/loadgen.mjs), 50 connections, as a new agent registered over HTTP (one more agent in
//     the big store). CPU per call = the server process's CPU (/proc) plus, on PostgreSQL, its
//     backends', over the measured window. The seeded store is not reset between rounds: each
//     round's writes add to it (a few thousand files on top of a million).
//
// Run: npm run bench:scale [-- --backends sqlite,postgres --agents 10000 --files 100 --rounds 3
//      --duration 8 --warmup 2 --write-docs --keep]. Seeding 1,000,000 files takes minutes.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { generateApiKey, hashApiKey, keyPreview, newId } from '../dist/src/core/keys.js';
import { PRESETS } from '../dist/src/core/scopes.js';
import { contentHash, countLines } from '../dist/src/core/text.js';
import { loadConfig } from '../dist/src/config.js';
import { openStore } from '../dist/src/store/open.js';
import { gitRev, median, register } from './common.mjs';
import { cpuOf, postgresCpu, startServer } from './server-process.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const DOCS = path.join(path.dirname(BENCH_DIR), 'docs/benchmarks.md');
const ADMIN_PG = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const [MARK_START, MARK_END] = ['<!-- bench:scale:start -->', '<!-- bench:scale:end -->'];
const TARGET = 1.2;

const { values: opts } = parseArgs({
  options: {
    backends: { type: 'string', default: 'sqlite,postgres' },
    agents: { type: 'string', default: '10000' },
    files: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    scenarios: { type: 'string', default: 'read,write' },
    'write-docs': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const AGENTS = Number(opts.agents);
const FILES = Number(opts.files);
const FILES_PER_DIR = 100;
const SCENARIOS = opts.scenarios.split(',');
const f0 = (x) => Math.round(x).toLocaleString('en-US');
const log = (m) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${m}`);

async function pgQuery(url, q) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(q);
  } finally {
    await c.end();
  }
}

/** A fresh database: its server env, and how to drop it. */
async function freshDb(backend, label) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `afs-bench-scale-${label}-`));
  if (backend === 'sqlite') return { env: { DATA_DIR: dir }, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  const name = `afs_bench_scale_${label}_${process.pid}`;
  const admin = (q) => pgQuery(ADMIN_PG, q);
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_PG);
  url.pathname = `/${name}`;
  return {
    env: { DATA_DIR: dir, DATABASE_URL: url.toString() },
    drop: async () => {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** ~200 bytes no other file has: words from the agent's and the file's numbers. */
const fileText = (a, f) =>
  `agent ${a} file ${f}\n${Array.from({ length: 24 }, (_, k) => `w${(a * 7919 + f * 104729 + k * 31) % 100003}`).join(' ')}\n`;

async function seed(backend, db) {
  const t0 = performance.now();
  const store = openStore(loadConfig({ ...db.env, LOG_LEVEL: 'silent' }));
  await store.migrate();
  const dirs = Math.ceil(FILES / FILES_PER_DIR);
  const base = { keyId: 'bench', keyLabel: 'bench', tool: 'bench', quotaBytes: 1e12 };
  let next = 0;
  const seedAgent = async (a) => {
    const id = `agt_scale${String(a).padStart(17, '0')}`;
    const apiKey = generateApiKey();
    const now = Date.now();
    await store.createAgent(
      { id, name: `Scale ${a}`, slug: `scale-${a}`, createdAtMs: now, storageBytes: 0 },
      {
        ...{ id: `key_scale${String(a).padStart(17, '0')}`, agentId: id, hash: hashApiKey(apiKey), label: 'default' },
        ...{ scopes: PRESETS.full, folder: null, preview: keyPreview(apiKey), createdAtMs: now, lastUsedAtMs: null },
        ...{ expiresAtMs: null, revokedAtMs: null, createdByKeyId: null },
      },
    );
    const dirChanges = ['/s', ...Array.from({ length: dirs }, (_, d) => `/s/d${d}`)].map((p) => ({
      path: p,
      expectVersion: 0,
      op: 'create',
      state: { kind: 'dir', fileId: newId('f') },
    }));
    await store.commit({ ...base, agentId: id, changes: dirChanges });
    for (let d = 0; d < dirs; d++) {
      const changes = [];
      for (let f = d * FILES_PER_DIR; f < Math.min(FILES, (d + 1) * FILES_PER_DIR); f++) {
        const text = fileText(a, f);
        const bytes = Buffer.from(text);
        const blob = { hash: contentHash(bytes), size: bytes.length, bytes };
        changes.push({
          path: `/s/d${d}/f${f}.txt`,
          expectVersion: 0,
          op: 'create',
          state: { kind: 'file', blob, lines: countLines(text), fileId: newId('f') },
        });
      }
      await store.commit({ ...base, agentId: id, changes });
    }
  };
  // A few agents at a time: commits of different agents do not wait for each other on PostgreSQL.
  const inFlight = backend === 'postgres' ? 8 : 1;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let a = next++; a < AGENTS; a = next++) {
        await seedAgent(a);
        if ((a + 1) % 1000 === 0) log(`${backend}: ${a + 1} agents seeded (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
      }
    }),
  );
  const seededS = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  let indexed = 0;
  for (;;) {
    const batch = await store.indexPending({ maxItems: 2000, maxBytes: 8 << 20, maxFileBytes: 1 << 20 });
    indexed += batch.done;
    if (!batch.more && !(await store.pendingSearchRange())) break;
  }
  const indexS = (performance.now() - t1) / 1000;
  await store.close();
  // A live store of this size has had autovacuum's VACUUM and ANALYZE; a seed of minutes has not.
  if (backend === 'postgres') await pgQuery(db.env.DATABASE_URL, 'VACUUM ANALYZE');
  log(`${backend}: seeded ${AGENTS} agents × ${FILES} files in ${seededS.toFixed(0)} s, search index drained in ${indexS.toFixed(0)} s`);
  return { seededS, indexS, indexed };
}

/** One scenario from the load generator against a server; CPU per call (server + PostgreSQL). */
function load(server, apiKey, scenario, backend) {
  return new Promise((resolve, reject) => {
    const gen = fork(path.join(BENCH_DIR, 'loadgen.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let start = null;
    let reply = null;
    gen.on('message', (m) => {
      if (m.phase === 'measure') start = { cpu: cpuOf(server.proc.pid), db: backend === 'postgres' ? postgresCpu() : 0 };
      else {
        if (m.ok && start) {
          const calls = m.result.rps * m.result.durationS;
          m.result.cpuUs = ((cpuOf(server.proc.pid) - start.cpu + (backend === 'postgres' ? postgresCpu() - start.db : 0)) / calls) * 1e6;
        }
        reply = m;
      }
    });
    gen.once('exit', (code) => (reply?.ok ? resolve(reply.result) : reject(new Error(`load generator: ${reply?.error ?? `exit ${code}`}`))));
    gen.send({
      baseUrl: server.base,
      apiKey,
      scenario,
      connections: Number(opts.connections),
      duration: Number(opts.duration),
      warmup: Number(opts.warmup),
    });
  });
}

async function measure(backend, db, label) {
  const server = await startServer(db.env);
  try {
    const { apiKey } = await register(server.base, `scale bench ${label}`);
    const out = {};
    for (const s of SCENARIOS) {
      const r = await load(server, apiKey, s, backend);
      if (r.errors || r.toolErrors || r.non2xx)
        throw new Error(
          `${backend} ${label} ${s}: errors ${JSON.stringify({ e: r.errors, tool: r.toolErrors, non2xx: r.non2xx, samples: r.samples })}`,
        );
      out[s] = r;
      log(
        `${backend} ${label} ${s}: ${r.rps.toFixed(0)} req/s, ${r.cpuUs.toFixed(0)} µs CPU/call, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms`,
      );
    }
    return out;
  } finally {
    await server.stop();
  }
}

async function runBackend(backend) {
  const big = await freshDb(backend, 'big');
  try {
    const seeded = await seed(backend, big);
    const rounds = [];
    for (let r = 0; r < Number(opts.rounds); r++) {
      const empty = await freshDb(backend, 'empty');
      try {
        const order = r % 2 === 0 ? ['big', 'empty'] : ['empty', 'big'];
        const round = {};
        for (const which of order) round[which] = await measure(backend, which === 'big' ? big : empty, which);
        rounds.push(round);
      } finally {
        await empty.drop();
      }
    }
    return { backend, seeded, rounds };
  } finally {
    if (opts.keep) log(`${backend}: kept the seeded store: ${JSON.stringify(big.env)}`);
    else await big.drop();
  }
}

function report(results, startedAt, elapsedS) {
  const L = [
    `Generated by \`npm run bench:scale\` on ${startedAt.slice(0, 10)}, commit ${gitRev()}, in ${elapsedS.toFixed(0)} s. Machine: ${os.cpus()[0]?.model ?? '?'}, ${os.cpus().length} cores, Node ${process.version}.`,
    '',
    `Seeded store: ${AGENTS.toLocaleString('en-US')} agents × ${FILES} files (~200 bytes, distinct) = ${(AGENTS * FILES).toLocaleString('en-US')} files, committed through the store and indexed for search. ` +
      `Empty store: a fresh database. Each round measures both (alternating which first): \`read\` and \`write\` of bench/scenarios.mjs as a newly registered agent, ${opts.connections} connections, ` +
      `${opts.warmup} s warm-up + ${opts.duration} s measured; CPU per call = the server's plus, on PostgreSQL, its backends'. Medians of ${opts.rounds} rounds; the ratio is taken per round.`,
    '',
    '| Backend | seed (s) | index drain (s) | scenario | empty: CPU µs/call | seeded: CPU µs/call | seeded / empty (per round) | req/s empty / seeded | p99 ms empty / seeded | ≤ 1.2× |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    for (const s of SCENARIOS) {
      const ratios = r.rounds.map((x) => x.big[s].cpuUs / x.empty[s].cpuUs);
      const m = median(ratios);
      const med = (w, k) => median(r.rounds.map((x) => x[w][s][k]));
      L.push(
        `| ${r.backend} | ${r.seeded.seededS.toFixed(0)} | ${r.seeded.indexS.toFixed(0)} | ${s} | ${med('empty', 'cpuUs').toFixed(0)} | ${med('big', 'cpuUs').toFixed(0)} | ` +
          `**${m.toFixed(2)}×** (${ratios.map((x) => x.toFixed(2)).join(', ')}) | ${f0(med('empty', 'rps'))} / ${f0(med('big', 'rps'))} | ` +
          `${med('empty', 'p99').toFixed(1)} / ${med('big', 'p99').toFixed(1)} | ${m <= TARGET ? 'yes' : '**no**'} |`,
      );
    }
  }
  return L.join('\n');
}

async function main() {
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  const results = [];
  for (const b of opts.backends.split(',')) results.push(await runBackend(b));
  const text = report(results, startedAt, (performance.now() - t0) / 1000);
  console.log(`\n${text}`);
  if (opts['write-docs']) {
    const doc = fs.readFileSync(DOCS, 'utf8');
    const block = `${MARK_START}\n<!-- generated by bench/scale.mjs --write-docs; edits here are overwritten -->\n${text}\n${MARK_END}`;
    const a = doc.indexOf(MARK_START);
    const b = doc.indexOf(MARK_END);
    fs.writeFileSync(DOCS, a >= 0 && b > a ? doc.slice(0, a) + block + doc.slice(b + MARK_END.length) : `${doc.trimEnd()}\n\n${block}\n`);
    log('docs/benchmarks.md updated');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

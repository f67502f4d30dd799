// CPU per call of two or more builds, A/B, by a fixed number of calls instead of a fixed time.
// bench/run.mjs measures for a fixed time: on a busy machine (other processes on the cores) a
// server answers few calls in that time, and its fixed background work (timers, flushes, the
// checkpointer) divided by those few calls inflated "CPU per call" up to 8× (docs/benchmarks.md,
// "Issue 37"). Here every build answers the same calls (after a warm-up), in rounds that
// alternate the builds' order, and the server process's CPU (all threads, /proc) is read around
// exactly those calls. The load comes from this process (fetch, keep-alive); the server logs nothing.
//
//   node bench/cpu-ab.mjs --build new=dist/src/server.js --build old=bench/out/against/<sha>/dist/src/server.js \
//     [--only noop,read] [--backends sqlite,postgres] [--calls 5000] [--warmup 1000] [--connections 16] [--rounds 3]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { callTool, median, register } from './common.mjs';
import { scenarios } from './scenarios.mjs';
import { cpuOf, postgresCpu, settle, startServer } from './server-process.mjs';

const { values } = parseArgs({
  options: {
    build: { type: 'string', multiple: true },
    only: { type: 'string', default: 'noop,read,write,edit' },
    backends: { type: 'string', default: 'sqlite,postgres' },
    calls: { type: 'string', default: '5000' },
    warmup: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '3' },
  },
});
const builds = (values.build ?? ['new=dist/src/server.js']).map((b) => {
  const [name, file] = b.split('=');
  return { name, serverJs: path.resolve(file) };
});
const ADMIN = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const n = (s) => Number(s);

async function withDatabase(backend, fn) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'afs-cpu-ab-'));
  if (backend === 'sqlite') {
    try {
      return await fn({ DATA_DIR: dataDir, DATABASE_URL: '' });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const name = `afs_bench_ab_${randomBytes(5).toString('hex')}`;
  const admin = async (sql) => {
    const c = new pg.Client({ connectionString: ADMIN });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  try {
    return await fn({ DATA_DIR: dataDir, DATABASE_URL: url.toString() });
  } finally {
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `count` calls of the scenario over `connections` concurrent loops; request numbers from `first`. */
async function drive(base, key, sc, first, count, connections) {
  let next = first;
  const end = first + count;
  const url = sc.path ? `${base}${sc.path}` : `${base}/api/tools/${sc.tool}`;
  const loop = async () => {
    for (let i = next++; i < end; i = next++) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...sc.headers },
        body: JSON.stringify(sc.bodyFor(i, 'measure', i - first)),
      });
      const text = await res.text();
      if (res.status !== 200 || text.includes('"isError":true')) throw new Error(`${sc.name}: HTTP ${res.status} ${text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
}

async function measure(build, backend, sc) {
  return withDatabase(backend, async (env) => {
    const server = await startServer(env, { serverJs: build.serverJs, cwd: path.dirname(path.dirname(path.dirname(build.serverJs))) });
    try {
      const { apiKey } = await register(server.base, 'cpu ab');
      const ctx = {
        call: async (tool, body) => (await callTool(server.base, apiKey, tool, body)).inner,
        callAs: async (key, tool, body) => (await callTool(server.base, key, tool, body)).inner,
        register: (name) => register(server.base, name),
      };
      await settle(server.proc.pid, `${backend}/${sc.name}/${build.name}`);
      await sc.setup(ctx);
      const warm = n(values.warmup);
      await drive(server.base, apiKey, sc, 0, warm, n(values.connections));
      const calls = n(values.calls);
      const [cpu0, db0] = [cpuOf(server.proc.pid), backend === 'postgres' ? postgresCpu() : 0];
      const t0 = performance.now();
      await drive(server.base, apiKey, sc, warm, calls, n(values.connections));
      const ms = performance.now() - t0;
      const [cpu1, db1] = [cpuOf(server.proc.pid), backend === 'postgres' ? postgresCpu() : 0];
      return { us: ((cpu1 - cpu0) * 1e6) / calls, dbUs: ((db1 - db0) * 1e6) / calls, rps: (calls * 1000) / ms };
    } finally {
      await server.stop();
    }
  });
}

const wanted = values.only.split(',');
console.log(
  `cpu-ab: ${builds.map((b) => b.name).join(' vs ')}, ${values.calls} calls after ${values.warmup}, ${values.connections} connections, ${values.rounds} rounds, load ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
for (const backend of values.backends.split(',')) {
  const results = new Map(); // `${scenario}/${build}` → [{us, dbUs, rps}]
  for (let r = 0; r < n(values.rounds); r++) {
    for (const sc of scenarios.filter((s) => wanted.includes(s.name))) {
      const order = r % 2 ? [...builds].reverse() : builds;
      for (const b of order) {
        const m = await measure(b, backend, sc);
        const k = `${sc.name}/${b.name}`;
        results.set(k, [...(results.get(k) ?? []), m]);
        console.log(
          `[${backend} ${r + 1}] ${sc.name.padEnd(8)} ${b.name.padEnd(6)} server ${m.us.toFixed(0).padStart(5)} µs/call  db ${m.dbUs.toFixed(0).padStart(5)}  ${m.rps.toFixed(0)} req/s`,
        );
      }
    }
  }
  console.log(`\n${backend}: medians of ${values.rounds} rounds, server CPU µs/call (db CPU µs/call)`);
  console.log(`| scenario | ${builds.map((b) => b.name).join(' | ')} |\n|---|${builds.map(() => '---:').join('|')}|`);
  for (const name of wanted) {
    const cells = builds.map((b) => {
      const ms = results.get(`${name}/${b.name}`) ?? [];
      const db = backend === 'postgres' ? ` (${median(ms.map((m) => m.dbUs)).toFixed(0)})` : '';
      return `${median(ms.map((m) => m.us)).toFixed(0)}${db}`;
    });
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
}

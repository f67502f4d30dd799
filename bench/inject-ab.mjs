// CPU per call of two builds in ONE process, in finely alternating batches: the A/B for a busy
// machine. With other processes on the cores, a server's CPU time per call moved ±20% between
// runs seconds apart (docs/benchmarks.md, "Issue 37"), more than the differences measured. Here
// both builds' apps (their own dist/ module graphs, one node_modules) serve Fastify inject calls
// (no sockets: the HTTP parsing and writev every build pays alike are left out) in batches of
// --batch calls, A then B then A …, and process.cpuUsage() is read around each batch, so both
// see the same load within milliseconds; the median per build over all batches is reported.
//
//   node bench/inject-ab.mjs --build main=bench/out/against/<sha> --build new=. [--only noop,read] [--backends sqlite,postgres]
//     [--batches 40] [--batch 200]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { median } from './common.mjs';
import { content1k } from './scenarios.mjs';

const { values } = parseArgs({
  options: {
    build: { type: 'string', multiple: true },
    only: { type: 'string', default: 'noop,read,write,edit' },
    backends: { type: 'string', default: 'sqlite,postgres' },
    batches: { type: 'string', default: '40' },
    batch: { type: 'string', default: '200' },
  },
});
const ADMIN = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** What each scenario sends (the bench/scenarios.mjs bodies, kept to the inject-able ones). */
const SCENARIOS = {
  noop: { tool: 'get_key_info', setup: async () => {}, body: () => ({}) },
  read: { tool: 'read', setup: async (call) => call('write', { path: '/b/r.txt', content: content1k(0) }), body: () => ({ path: '/b/r.txt' }) },
  write: { tool: 'write', setup: async () => {}, body: (i) => ({ path: `/b/w-${i % 4}.txt`, content: content1k(i) }) },
  edit: {
    tool: 'edit',
    setup: async (call) => {
      for (let j = 0; j < 50; j++) await call('write', { path: `/b/e-${j}.txt`, content: 'x\n'.repeat(400) + '@@END@@\n' });
    },
    body: (i) => ({ path: `/b/e-${i % 50}.txt`, old_string: '@@END@@', new_string: `${i}\n@@END@@` }),
  },
};

async function database(backend) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'afs-inject-ab-'));
  if (backend === 'sqlite') return { env: { DATA_DIR: dataDir }, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  const name = `afs_bench_ij_${randomBytes(5).toString('hex')}`;
  const admin = async (sql) => {
    const c = new pg.Client({ connectionString: ADMIN });
    await c.connect();
    await c.query(sql).finally(() => c.end());
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    drop: async () => {
      await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function startApp(root, backend) {
  const mod = (p) => import(pathToFileURL(path.join(root, 'dist/src', p)).href);
  const [{ loadConfig }, { openStore }, { buildApp }, { buildRegistry }] = await Promise.all([
    mod('config.js'),
    mod('store/open.js'),
    mod('http/app.js'),
    mod('tools/index.js'),
  ]);
  const db = await database(backend);
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    REGISTRATIONS_PER_IP_PER_HOUR: '0',
    ...db.env,
  });
  const store = openStore(config);
  await store.migrate();
  const app = buildApp({ config, store, registry: buildRegistry() });
  await app.ready();
  const reg = await app.inject({ method: 'POST', url: '/api/users/register', payload: { name: 'inject ab' } });
  const { apiKey } = reg.json();
  const call = async (tool, body) => {
    const r = await app.inject({ method: 'POST', url: `/api/tools/${tool}`, headers: { authorization: `Bearer ${apiKey}` }, payload: body });
    if (r.statusCode !== 200 || r.body.includes('"isError":true')) throw new Error(`${tool}: ${r.statusCode} ${r.body.slice(0, 300)}`);
  };
  return { call, close: async () => (await app.close(), await store.close(), await db.drop()) };
}

const builds = (values.build ?? []).map((b) => {
  const [name, dir] = b.split('=');
  return { name, root: path.resolve(dir) };
});
const [batches, batch] = [Number(values.batches), Number(values.batch)];
console.log(
  `inject-ab: ${builds.map((b) => b.name).join(' vs ')}, ${batches} batches of ${batch} calls each, load ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
for (const backend of values.backends.split(',')) {
  for (const name of values.only.split(',')) {
    const sc = SCENARIOS[name];
    const apps = [];
    for (const b of builds) apps.push({ b, app: await startApp(b.root, backend), us: [] });
    let i = 0;
    try {
      for (const a of apps) await sc.setup(a.app.call);
      for (let k = 0; k < batches + 2; k++) {
        for (const a of k % 2 ? [...apps].reverse() : apps) {
          const c0 = process.cpuUsage();
          await Promise.all(Array.from({ length: batch }, () => a.app.call(sc.tool, sc.body(i++))));
          const c = process.cpuUsage(c0);
          if (k >= 2) a.us.push((c.user + c.system) / batch); // the first two batches warm up
        }
      }
    } finally {
      for (const a of apps) await a.app.close();
    }
    console.log(
      `${backend} ${name.padEnd(6)} ${apps.map((a) => `${a.b.name} ${median(a.us).toFixed(1)} µs/call`).join('  ')}  (${apps[1] ? (median(apps[1].us) / median(apps[0].us)).toFixed(3) : ''})`,
    );
  }
}
process.exit(0);

// Reading through /shared against reading one's own file, paired: one server process and one
// database, the paths alternating in rounds (so drift of the machine or of the process hits both),
// server CPU per call from /proc. `npm run bench` measures each scenario in a server of its own;
// its read vs read-shared figures move by more than the difference asked about (docs/benchmarks.md,
// "Shares").
//
// Paths: own (the reader's own 1 KB file), shared (the owner's same file through
// /shared/{owner}/…, a read share), owner (the owner reading that file with its own key).
// Run: node bench/shares-paired.mjs [sqlite|postgres] [--rounds 4 --seconds 5]  (after npm run build)
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, cpuOf } from './server-process.mjs';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '4' }, seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '50' } },
});
const backend = positionals[0] ?? 'sqlite';
const ADMIN = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `afs_paired_${process.pid}`;

async function admin(sql) {
  const c = new pg.Client(ADMIN);
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

let env;
let dir = null;
if (backend === 'postgres') {
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  env = { DATABASE_URL: url.toString() };
} else {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afs-paired-'));
  env = { DATA_DIR: dir };
}
const srv = await startServer(env);
try {
  const post = async (url, key, body) => {
    const r = await fetch(`${srv.base}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status} ${await r.text()}`);
    return r.json();
  };
  const owner = await post('/api/users/register', null, { name: 'Paired Owner' });
  const reader = await post('/api/users/register', null, { name: 'Paired Reader' });
  const content = `${'x'.repeat(1000)}\n`;
  for (const who of [owner, reader]) await post('/api/tools/write', who.apiKey, { path: '/bench/read.txt', content });
  await post('/api/tools/share', owner.apiKey, { path: '/bench', with: reader.slug, permission: 'read' });
  const paths = {
    own: { key: reader.apiKey, path: '/bench/read.txt' },
    shared: { key: reader.apiKey, path: `/shared/${owner.slug}/bench/read.txt` },
    owner: { key: owner.apiKey, path: '/bench/read.txt' },
  };
  const load = (p, seconds) =>
    new Promise((resolve, reject) =>
      autocannon(
        {
          url: `${srv.base}/api/tools/read`,
          method: 'POST',
          connections: Number(opts.connections),
          duration: seconds,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${p.key}` },
          body: JSON.stringify({ path: p.path }),
        },
        (err, r) => (err ? reject(err) : r.non2xx || r.errors ? reject(new Error(`${p.path}: ${r.non2xx} non-2xx, ${r.errors} errors`)) : resolve(r)),
      ),
    );
  for (const p of Object.values(paths)) await load(p, Number(opts.seconds)); // warm-up
  const cpu = { own: [], shared: [], owner: [] };
  const names = Object.keys(paths);
  for (let round = 0; round < Number(opts.rounds); round++) {
    for (const n of round % 2 ? names : [...names].reverse()) {
      await load(paths[n], 1);
      const before = cpuOf(srv.proc.pid);
      const r = await load(paths[n], Number(opts.seconds));
      cpu[n].push(((cpuOf(srv.proc.pid) - before) * 1e6) / r.requests.total);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const own = median(cpu.own);
  console.log(`${backend}: server CPU µs per read (median of ${opts.rounds} rounds; runs)`);
  for (const n of names) {
    const m = median(cpu[n]);
    // The ratio of each round's pair (measured seconds apart) cancels the machine's slow drift
    // that the medians of whole columns keep; "owner" against "own" is the same work by another
    // agent, so its ratio is the run's noise floor.
    const ratios = cpu[n].map((x, i) => x / cpu.own[i]);
    console.log(
      `  ${n.padEnd(7)} ${m.toFixed(0).padStart(5)}  ${n === 'own' ? '' : `${((m / own - 1) * 100).toFixed(1)}% vs own, per-round ratio median ${((median(ratios) - 1) * 100).toFixed(1)}%`}  (${cpu[n].map((x) => x.toFixed(0)).join(', ')})`,
    );
  }
} finally {
  await srv.stop();
  if (backend === 'postgres') await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}

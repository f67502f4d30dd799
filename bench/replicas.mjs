// npm run bench:replicas: reads with 0 and 1 PostgreSQL read replicas (DATABASE_READ_URLS).
// A primary and a streaming standby of the bench's own (initdb and pg_basebackup -R in temp
// directories: dist/test/helpers/throwaway-pg.js), the real server started on them without and
// with the replica, then `read` of a 1 KB file at 50 connections: req/s, p50, p99, and CPU per call
// of the server, of the primary's processes and of the standby's (each cluster's postmaster and
// its children, from /proc), alternating the two modes over --rounds rounds.
// Run: npm run bench:replicas [-- --duration 8 --rounds 2]
import autocannon from 'autocannon';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuOf, freePort, startServer } from './server-process.mjs';
import { ThrowawayPostgres } from '../dist/test/helpers/throwaway-pg.js';

const { values: opts } = parseArgs({
  options: { duration: { type: 'string', default: '8' }, rounds: { type: 'string', default: '2' }, connections: { type: 'string', default: '50' } },
});
const DURATION = Number(opts.duration);
const CONNECTIONS = Number(opts.connections);

/** CPU seconds of a cluster: its postmaster (data/postmaster.pid) and every process it started. */
function clusterCpu(db) {
  const master = Number(fs.readFileSync(path.join(db.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let total = cpuOf(master);
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const ppid = Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      if (ppid === master) total += cpuOf(Number(pid));
    } catch {
      /* gone */
    }
  }
  return total;
}

async function call(base, key, tool, body) {
  const r = await fetch(`${base}/api/tools/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok || text.includes('"isError":true')) throw new Error(`${tool}: ${r.status} ${text.slice(0, 300)}`);
  const answer = JSON.parse(text);
  return Array.isArray(answer.content) ? JSON.parse(answer.content[0].text) : answer;
}

function blast(base, key, seconds) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: base,
        connections: CONNECTIONS,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            path: '/api/tools/read',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
            body: JSON.stringify({ path: '/bench/one-kb.txt' }),
          },
        ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
}

/**
 * How long another agent waits to see a write through the replica: the owner writes, a reader of
 * its share reads until the new content shows (20 times, unloaded); p50 and max in ms.
 */
async function visibleAfter(base, ownerKey) {
  const reader = await fetch(`${base}/api/users/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: `replica lag reader ${Date.now()}` }),
  }).then((r) => r.json());
  const share = await call(base, ownerKey, 'share', { path: '/bench', with: reader.slug, permission: 'read' });
  await new Promise((r) => setTimeout(r, 500));
  const waits = [];
  for (let i = 0; i < 20; i++) {
    const content = `lag ${i}\n`;
    await call(base, ownerKey, 'write', { path: '/bench/lag.txt', content });
    const t0 = performance.now();
    for (;;) {
      const r = await call(base, reader.apiKey, 'read', { path: `${share.share.mountPath}/lag.txt` }).catch(() => null);
      if (r?.content === content) break;
      if (performance.now() - t0 > 10_000) throw new Error('a write did not show to another agent within 10 s');
    }
    waits.push(performance.now() - t0);
  }
  waits.sort((a, b) => a - b);
  return { p50: waits[10], max: waits[19] };
}

async function measure(primary, standby, withReplica, round) {
  const env = { DATABASE_URL: primary.url(`afs_${round}_${withReplica ? 1 : 0}`) };
  await primary.sql(`CREATE DATABASE afs_${round}_${withReplica ? 1 : 0}`);
  if (withReplica) env.DATABASE_READ_URLS = standby.url(`afs_${round}_1`);
  const server = await startServer(env);
  try {
    const reg = await fetch(`${server.base}/api/users/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `replica bench ${round}` }),
    }).then((r) => r.json());
    const key = reg.apiKey;
    await call(server.base, key, 'write', { path: '/bench/one-kb.txt', content: 'x'.repeat(1023) + '\n' });
    await new Promise((r) => setTimeout(r, 1500)); // the standby replays the setup; the read is then served there
    await blast(server.base, key, 2); // warm-up
    const c0 = { server: cpuOf(server.proc.pid), primary: clusterCpu(primary), standby: clusterCpu(standby) };
    const res = await blast(server.base, key, DURATION);
    const c1 = { server: cpuOf(server.proc.pid), primary: clusterCpu(primary), standby: clusterCpu(standby) };
    const calls = res.requests.total;
    const lag = withReplica ? await visibleAfter(server.base, key) : null;
    const per = (k) => ((c1[k] - c0[k]) / calls) * 1e6;
    if (res.non2xx || res.errors) throw new Error(`${res.non2xx} non-2xx, ${res.errors} errors`);
    return {
      mode: withReplica ? '1 replica' : '0 replicas',
      rps: res.requests.average,
      p50: res.latency.p50,
      p99: res.latency.p99,
      server: per('server'),
      primary: per('primary'),
      standby: per('standby'),
      lag,
    };
  } finally {
    await server.stop();
  }
}

const primary = ThrowawayPostgres.primary(await freePort(), 'afs-bench-primary-');
primary.start();
const standby = primary.standby(await freePort());
standby.start();
const rows = [];
try {
  for (let round = 0; round < Number(opts.rounds); round++) {
    for (const withReplica of round % 2 ? [true, false] : [false, true]) {
      const r = await measure(primary, standby, withReplica, round);
      rows.push(r);
      console.log(
        `${r.mode}\t${r.rps.toFixed(0)} req/s\tp50 ${r.p50} ms\tp99 ${r.p99} ms\tCPU µs/call: server ${r.server.toFixed(0)}, primary ${r.primary.toFixed(0)}, standby ${r.standby.toFixed(0)}` +
          (r.lag ? `\tanother agent sees a write after p50 ${r.lag.p50.toFixed(1)} ms, max ${r.lag.max.toFixed(1)} ms` : ''),
      );
    }
  }
} finally {
  standby.remove();
  primary.remove();
}

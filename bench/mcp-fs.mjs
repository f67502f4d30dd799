// This service's POST /mcp against the official MCP filesystem server
// (@modelcontextprotocol/server-filesystem: stdio, plain files, no versions, no auth), driven one
// call at a time by the same MCP SDK client: read a 1 KB file, write 1 KB, edit one line, list a
// directory of 20 files. Measures each server's CPU per call from /proc/<pid>/stat (user + system,
// all threads); on PostgreSQL also the CPU of the backends serving this server's database (their
// pids from pg_stat_activity: other sessions use the same PostgreSQL). The two alternate, round
// after round (the machine is shared), and the table gives each one's median over the rounds.
// Run: npm run bench:mcp-fs [-- --calls 1000 --rounds 3 --backends sqlite,postgres --before <dir with an older dist/>]
// BENCH_NODE_ARGS (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof) adds node flags to our server.
import { setMaxListeners } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { gitRev, median, register } from './common.mjs';
import { cpuOf, startServer } from './server-process.mjs';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const ADMIN_PG = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const FS_SERVER = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

const { values: opts } = parseArgs({
  options: {
    calls: { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    backends: { type: 'string', default: 'sqlite,postgres' },
    only: { type: 'string', default: 'read,write,edit,list' },
    // Another build of this service (a directory holding dist/), measured alongside as a third side.
    before: { type: 'string' },
  },
});
// The SDK client's HTTP transport adds an abort listener per request to one signal and keeps it (client side, not measured).
setMaxListeners(0);
const CALLS = Number(opts.calls);
const WARMUP = Number(opts.warmup);
const ROUNDS = Number(opts.rounds);

/** 1 KB of text in 16 lines of 64 bytes; line 8 is the one the edit scenario flips. */
const text = (tag) =>
  Array.from({ length: 16 }, (_, i) => `${i === 7 ? 'EDIT-A' : `line ${String(i).padStart(2, '0')}`} ${tag} `.padEnd(63, '.') + '\n').join('');

/**
 * The four scenarios, each as the call for one side (`p` maps a path under the tree's root to the
 * server's own path). The write writes new content each call (ours: a new version each); the edit
 * flips line 8 between two texts (each call a change).
 */
const SCENARIOS = {
  read: { ours: 'read', theirs: 'read_text_file', args: (p) => ({ path: p('/bench/read.txt') }) },
  write: { ours: 'write', theirs: 'write_file', args: (p, i) => ({ path: p('/bench/write.txt'), content: text(`w${i}`) }) },
  edit: {
    ours: 'edit',
    theirs: 'edit_file',
    args: (p, i, side) => {
      const [from, to] = i % 2 ? ['EDIT-B', 'EDIT-A'] : ['EDIT-A', 'EDIT-B'];
      return side === 'ours'
        ? { path: p('/bench/edit.txt'), old_string: from, new_string: to }
        : { path: p('/bench/edit.txt'), edits: [{ oldText: from, newText: to }] };
    },
  },
  list: { ours: 'list', theirs: 'list_directory', args: (p) => ({ path: p('/bench/dir') }) },
};

/** The same starting tree on both sides: the files to read and edit, a directory of 20 files. */
const TREE = [
  ['/bench/read.txt', text('r')],
  ['/bench/write.txt', text('w')],
  ['/bench/edit.txt', text('e')],
  ...Array.from({ length: 20 }, (_, i) => [`/bench/dir/f${String(i).padStart(2, '0')}.txt`, text(`d${i}`)]),
];

/** CPU seconds per thread of a process, by thread name (BENCH_THREADS=1 prints where a scenario's CPU went). */
function threadsCpu(pid) {
  const out = new Map();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = `${fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()}:${tid}`;
      const f = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      out.set(name, (Number(f[11]) + Number(f[12])) / 100);
    } catch {
      /* gone */
    }
  }
  return out;
}

/** PostgreSQL backends serving `db` (this server's pool): [pid, CPU seconds] pairs. */
async function backendCpu(admin, db) {
  const { rows } = await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [db]);
  return rows.map((r) => [r.pid, cpuOf(r.pid)]);
}

/** Our server on a fresh database, its agent and an MCP client on POST /mcp. */
async function ours(backend, root = null) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afs-mcpfs-'));
  let db = null;
  let admin = null;
  const env = { DATA_DIR: dir, REGISTRATIONS_PER_IP_PER_HOUR: '0' };
  if (backend === 'postgres') {
    db = `afs_mcpfs_${process.pid}_${Date.now()}`;
    admin = new pg.Client({ connectionString: ADMIN_PG });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${db}`);
    const url = new URL(ADMIN_PG);
    url.pathname = `/${db}`;
    env.DATABASE_URL = url.toString();
  }
  const server = await startServer(env, root ? { serverJs: path.join(root, 'dist/src/server.js'), cwd: root } : {});
  const agent = await register(server.base, 'mcp-fs-bench');
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent.apiKey}` } } }),
  );
  for (const [p, content] of TREE) await must(client, 'write', { path: p, content });
  return {
    client,
    pid: server.proc.pid,
    p: (x) => x,
    cpu: async () => new Map([['server', cpuOf(server.proc.pid)], ...(admin ? await backendCpu(admin, db) : [])]),
    async close() {
      await client.close();
      await server.stop();
      if (admin) {
        await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
        await admin.end();
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The filesystem server over stdio on a temporary directory holding the same tree. */
async function theirs() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpfs-')));
  for (const [p, content] of TREE) {
    fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    fs.writeFileSync(path.join(dir, p), content);
  }
  const transport = new StdioClientTransport({ command: process.execPath, args: [FS_SERVER, dir], stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  return {
    client,
    p: (x) => path.join(dir, x),
    cpu: async () => new Map([['server', cpuOf(transport.pid)]]),
    async close() {
      await client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function must(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${r.content?.[0]?.text}`);
  return r;
}

/** CPU µs per call of `side` over CALLS calls of one scenario, one at a time (after `warmup` unmeasured: 3 × WARMUP in the first round, while the JIT settles). */
async function measure(side, which, scenario, counter, warmup) {
  const call = () => must(side.client, scenario[which], scenario.args(side.p, counter.i++, which));
  for (let i = 0; i < warmup; i++) await call();
  const threads = process.env.BENCH_THREADS && side.pid ? threadsCpu(side.pid) : null;
  const before = await side.cpu();
  for (let i = 0; i < CALLS; i++) await call();
  // Per process: a backend the pool closed meanwhile is missed (not subtracted), one it opened counts whole.
  let spent = 0;
  let db = 0;
  for (const [k, v] of await side.cpu()) {
    spent += v - (before.get(k) ?? 0);
    if (k !== 'server') db += v - (before.get(k) ?? 0);
  }
  const us = (spent * 1e6) / CALLS;
  if (db)
    console.log(
      `    ${which}: server ${Math.round(((spent - db) * 1e6) / CALLS)} µs/call + PostgreSQL backends ${Math.round((db * 1e6) / CALLS)} µs/call`,
    );
  if (threads) {
    const after = [...threadsCpu(side.pid)].map(([k, v]) => [k, ((v - (threads.get(k) ?? 0)) * 1e6) / CALLS]).filter(([, v]) => v > 0);
    console.log(`    threads (µs/call): ${after.map(([k, v]) => `${k} ${Math.round(v)}`).join(', ')}`);
  }
  return us;
}

const fmt = (n) => String(Math.round(n));

async function main() {
  const backends = opts.backends.split(',');
  const names = opts.only.split(',');
  console.log(
    `commit ${gitRev()}, ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; ${CALLS} calls a scenario after ${WARMUP}, ${ROUNDS} rounds`,
  );
  const rows = [];
  for (const backend of backends) {
    // kind: whose tools the side calls; a --before build is ours too.
    const sides = [
      { key: 'ours', kind: 'ours', side: await ours(backend) },
      { key: 'theirs', kind: 'theirs', side: await theirs() },
      ...(opts.before ? [{ key: 'before', kind: 'ours', side: await ours(backend, path.resolve(opts.before)) }] : []),
    ];
    const got = Object.fromEntries(names.map((n) => [n, Object.fromEntries(sides.map((x) => [x.key, []]))]));
    const counters = Object.fromEntries(sides.map((x) => [x.key, { i: 0 }]));
    try {
      for (let round = 0; round < ROUNDS; round++) {
        for (const n of names) {
          // Rotate which side goes first: a load that changes within the round weighs on each.
          const order = sides.map((_, i) => sides[(i + round) % sides.length]);
          for (const x of order) got[n][x.key].push(await measure(x.side, x.kind, SCENARIOS[n], counters[x.key], round ? WARMUP : 3 * WARMUP));
          console.log(`  ${backend} round ${round + 1} ${n}: ${sides.map((x) => `${x.key} ${fmt(got[n][x.key].at(-1))} µs`).join(', ')}`);
        }
      }
    } finally {
      for (const x of sides) await x.side.close();
    }
    for (const n of names) rows.push({ backend, n, ...Object.fromEntries(sides.map((x) => [x.key, median(got[n][x.key])])) });
  }
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  console.log(`\nload after: ${load}; medians over ${ROUNDS} rounds, server CPU µs per call`);
  const b = opts.before ? [' before µs/call | before ratio |', ' -------------- | ------------ |'] : ['', ''];
  console.log(`| backend | scenario | ours µs/call | filesystem server µs/call | ratio |${b[0]}`);
  console.log(`| ------- | -------- | ------------ | ------------------------- | ----- |${b[1]}`);
  for (const r of rows) {
    const before = opts.before ? ` ${fmt(r.before)} | ${(r.before / r.theirs).toFixed(2)}× |` : '';
    console.log(`| ${r.backend} | ${r.n} | ${fmt(r.ours)} | ${fmt(r.theirs)} | ${(r.ours / r.theirs).toFixed(2)}× |${before}`);
  }
}

await main();

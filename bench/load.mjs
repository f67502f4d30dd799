// Mixed-load test: `npm run bench:load` (builds first), or `node bench/load.mjs [options]`.
//
// For SQLite, then PostgreSQL if reachable, it starts the real server (dist/src/server.js) as a
// child process on fresh storage (a temp dir / a new database, removed afterwards) with the
// per-key rate limit lifted, seeds a few agents with files, and drives it from a separate
// load-generator process (this file with --generator, plain node:http keep-alive) with
// --connections concurrent connections for --duration seconds, mixing reads, whole-file writes,
// edits carrying expectedVersion (so EDIT_CONFLICT is expected under contention: counted, not an
// error) and bash (`grep -rn`, `cat`). It reports requests, errors other than EDIT_CONFLICT (any
// makes the exit code 1), p50/p99 per operation, and the server's RSS (VmRSS of the child) before
// and after, as a markdown table; --write-docs puts it into docs/benchmarks.md between
// <!-- load:auto:start --> and <!-- load:auto:end --> (a "## Load" section is appended if missing).
import { fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { cpuOf, postgresCpu } from './server-process.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(BENCH_DIR);
const SERVER_JS = path.join(ROOT, 'dist/src/server.js');
// BENCH_LOAD_DOCS points --write-docs at another file (default docs/benchmarks.md).
const DOCS = path.resolve(ROOT, process.env.BENCH_LOAD_DOCS || 'docs/benchmarks.md');
const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/postgres';
const MARK_START = '<!-- load:auto:start -->';
const MARK_END = '<!-- load:auto:end -->';
const OPS = ['read', 'write', 'edit', 'bash'];

const HELP = `Usage: node bench/load.mjs [options]   (npm run bench:load -- [options])
  --duration <s>      measured seconds per backend (default 60)
  --connections <n>   concurrent keep-alive connections (default 200)
  --agents <n>        agents the load is spread over (default 10)
  --files <n>         files per agent (default 40)
  --mix <r,w,e,b>     weights of read, write, edit, bash (default 45,20,25,10)
  --backends <a,b>    sqlite,postgres (default both; postgres skipped if unreachable)
  --write-docs        put the table into docs/benchmarks.md (between the load:auto markers)
Env: BENCH_DATABASE_URL  admin URL of a PostgreSQL server (default ${DEFAULT_PG});
                         when set, an unreachable server is an error instead of a skip.`;

// ================================================================ the load generator (child)
async function generate(job) {
  const { port, agents, connections, durationS, mix } = job;
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  const post = (key, tool, input) =>
    new Promise((resolve) => {
      const body = JSON.stringify(input);
      const started = performance.now();
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `/api/tools/${tool}`,
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${key}` },
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const ms = performance.now() - started;
            let inner = null;
            try {
              inner = JSON.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')).content[0].text);
            } catch {
              /* not an envelope */
            }
            resolve({ status: res.statusCode, inner, ms });
          });
          res.on('error', (err) => resolve({ status: 0, inner: null, ms: performance.now() - started, err: err.message }));
        },
      );
      req.on('error', (err) => resolve({ status: 0, inner: null, ms: performance.now() - started, err: err.message }));
      req.end(body);
    });

  // What each connection believes about each file: a consistent (version, token) pair taken from
  // one response, so an edit against it either applies or is an EDIT_CONFLICT, never NO_MATCH.
  const known = new Map();
  const tokenOf = (content) => /^stamp: (\S+)$/m.exec(content)?.[1];
  const remember = (k, version, token) => {
    const cur = known.get(k);
    if (token && (!cur || version >= cur.version)) known.set(k, { version, token });
  };
  const lat = Object.fromEntries(OPS.map((op) => [op, []]));
  const counts = Object.fromEntries(OPS.map((op) => [op, { requests: 0, editConflicts: 0, errors: 0 }]));
  const errorSamples = [];
  const totalWeight = mix.reduce((a, b) => a + b, 0);
  let seq = 0;
  const deadline = Date.now() + durationS * 1000;

  const pickOp = () => {
    let x = Math.random() * totalWeight;
    for (let i = 0; i < OPS.length; i++) if ((x -= mix[i]) < 0) return OPS[i];
    return OPS[0];
  };

  async function one() {
    const a = agents[Math.floor(Math.random() * agents.length)];
    const f = Math.floor(Math.random() * a.files);
    const file = `/src/mod${f}/file${f}.ts`;
    const k = `${a.key}\u0000${file}`;
    const op = pickOp();
    let r;
    if (op === 'read') {
      r = await post(a.key, 'read', { path: file });
      if (r.inner?.success) remember(k, r.inner.version, tokenOf(r.inner.content));
    } else if (op === 'write') {
      const token = `w${seq++}`;
      r = await post(a.key, 'write', { path: file, content: body(f, token) });
      if (r.inner?.success) remember(k, r.inner.version, token);
    } else if (op === 'edit') {
      let base = known.get(k);
      if (!base) {
        const rd = await post(a.key, 'read', { path: file });
        if (rd.inner?.success) remember(k, rd.inner.version, tokenOf(rd.inner.content));
        base = known.get(k);
      }
      const token = `e${seq++}`;
      r = await post(a.key, 'edit', {
        path: file,
        old_string: `stamp: ${base?.token ?? 'none'}`,
        new_string: `stamp: ${token}`,
        expectedVersion: base?.version ?? 1,
      });
      if (r.inner?.success) remember(k, r.inner.version, token);
    } else {
      const cmd = Math.random() < 0.5 ? `grep -rn "stamp: e" /src | head -20` : `cat ${file} | wc -l; grep -c TODO ${file}`;
      r = await post(a.key, 'bash', { command: cmd });
      if (r.inner?.success && r.inner.exitCode > 1) r = { ...r, inner: { error: { code: `EXIT_${r.inner.exitCode}`, message: r.inner.stderr } } };
    }
    if (Date.now() > deadline + 60_000) return; // a straggler long after the end: not counted
    counts[op].requests++;
    lat[op].push(r.ms);
    const code = r.inner?.error?.code;
    if (r.status === 200 && r.inner?.success) return;
    if (r.status === 200 && code === 'EDIT_CONFLICT' && op === 'edit') {
      counts[op].editConflicts++;
      return;
    }
    counts[op].errors++;
    if (errorSamples.length < 10)
      errorSamples.push({ op, status: r.status, code: code ?? null, message: String(r.inner?.error?.message ?? r.err ?? '').slice(0, 200) });
  }

  const started = Date.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < deadline) await one();
    }),
  );
  const elapsedS = (Date.now() - started) / 1000;
  agent.destroy();
  const pct = (arr, p) => {
    if (!arr.length) return null;
    const s = Float64Array.from(arr).sort();
    return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
  };
  const ops = OPS.map((op) => ({ op, ...counts[op], p50: pct(lat[op], 50), p99: pct(lat[op], 99) }));
  return { elapsedS, ops, errorSamples };
}

function body(f, token) {
  let s = `// module ${f}\nstamp: ${token}\n`;
  for (let i = 0; i < 40; i++) s += i % 9 === 0 ? `// TODO: item ${i} of module ${f}\n` : `export const value${i} = ${i * f}; // line ${i}\n`;
  return s;
}

// ================================================================ the driver (parent)
function options() {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '60' },
      connections: { type: 'string', default: '200' },
      agents: { type: 'string', default: '10' },
      files: { type: 'string', default: '40' },
      mix: { type: 'string', default: '45,20,25,10' },
      backends: { type: 'string' },
      'write-docs': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const num = (name, min) => {
    const n = Number(values[name]);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number >= ${min}`);
    return n;
  };
  const mix = values.mix.split(',').map(Number);
  if (mix.length !== 4 || mix.some((x) => !Number.isFinite(x) || x < 0) || mix.every((x) => x === 0))
    throw new Error('--mix needs 4 non-negative weights: read,write,edit,bash');
  const backends = values.backends ? values.backends.split(',').map((s) => s.trim()) : ['sqlite', 'postgres'];
  for (const b of backends) if (!['sqlite', 'postgres'].includes(b)) throw new Error(`--backends: unknown backend "${b}"`);
  return {
    durationS: num('duration', 1),
    connections: Math.floor(num('connections', 1)),
    agents: Math.floor(num('agents', 1)),
    files: Math.floor(num('files', 1)),
    mix,
    backends,
    backendsExplicit: values.backends != null,
    writeDocs: values['write-docs'],
  };
}

// ---- cleanup: children, temp dirs and databases go away on every exit path
const children = new Set();
const undo = [];
let cleaning = null;
function cleanupAll() {
  cleaning ??= (async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    while (undo.length) {
      try {
        await undo.pop()();
      } catch (err) {
        console.error(`cleanup: ${err.message}`);
      }
    }
  })();
  return cleaning;
}
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => cleanupAll().finally(() => process.exit(130)));
function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function vmRssMb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

async function storageFor(backend, opts) {
  if (backend === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afs-load-'));
    undo.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    return { env: { DATA_DIR: dir }, label: 'SQLite' };
  }
  const adminUrl = process.env.BENCH_DATABASE_URL || DEFAULT_PG;
  const mustWork = Boolean(process.env.BENCH_DATABASE_URL) || opts.backendsExplicit;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (err) {
    if (mustWork) throw new Error(`PostgreSQL at ${adminUrl} is unreachable: ${err.message}`);
    console.log(`PostgreSQL: SKIPPED (${err.message}; set BENCH_DATABASE_URL to use another server)`);
    return null;
  }
  const name = `afs_load_${process.pid}_${randomBytes(4).toString('hex')}`;
  const version = (await admin.query('SHOW server_version')).rows[0].server_version;
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  undo.push(async () => {
    const a = new pg.Client({ connectionString: adminUrl });
    await a.connect();
    try {
      await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await a.end();
    }
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { env: { DATABASE_URL: url.toString() }, label: `PostgreSQL ${version.split(' ')[0]}` };
}

async function startServer(env, logFile, connections) {
  const port = await freePort();
  const fd = fs.openSync(logFile, 'w');
  const child = track(
    spawn(process.execPath, [SERVER_JS], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '1000000000',
        REGISTRATIONS_PER_IP_PER_HOUR: '0',
        // Every connection may be in a bash call of one agent at once (agents are drawn at random and
        // bash calls queue behind the pool); a lower cap turns such bursts into 429s, which measure the
        // cap, not the server. The default cap (2) is tested in test/bash.test.ts.
        BASH_MAX_CONCURRENT_PER_AGENT: String(Math.max(64, connections)),
        // Likewise the worker-time budget (test/bash-fairness.test.ts tests it): 10 agents share the load.
        BASH_WORKER_MS_PER_MINUTE: '0',
      },
      stdio: ['ignore', fd, fd],
    }),
  );
  fs.closeSync(fd);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited during startup: ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (res.status === 200) return { child, port };
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server not ready within 30 s');
}

async function call(port, key, tool, input) {
  const res = await fetch(`http://127.0.0.1:${port}/api/tools/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(input),
  });
  const text = await res.text();
  const inner = JSON.parse(JSON.parse(text).content[0].text);
  if (!inner.success) throw new Error(`setup ${tool} failed: ${text.slice(0, 300)}`);
  return inner;
}

async function runBackend(backend, opts) {
  const storage = await storageFor(backend, opts);
  if (!storage) return null;
  const logFile = path.join(os.tmpdir(), `afs-load-${backend}-${process.pid}.log`);
  undo.push(async () => fs.rmSync(logFile, { force: true }));
  const { child, port } = await startServer(storage.env, logFile, opts.connections);
  const agents = [];
  for (let i = 0; i < opts.agents; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/api/users/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `load ${i}` }),
    });
    const { apiKey } = await res.json();
    for (let f = 0; f < opts.files; f++) await call(port, apiKey, 'write', { path: `/src/mod${f}/file${f}.ts`, content: body(f, 'seed') });
    agents.push({ key: apiKey, files: opts.files });
  }
  await new Promise((r) => setTimeout(r, 500));
  const rssBefore = vmRssMb(child.pid);
  const loadBefore = os.loadavg();
  console.log(`${storage.label}: ${opts.connections} connections for ${opts.durationS} s over ${opts.agents} agents × ${opts.files} files…`);
  const gen = track(fork(fileURLToPath(import.meta.url), ['--generator'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  const reply = new Promise((resolve, reject) => {
    gen.once('message', resolve);
    gen.once('exit', (code) => reject(new Error(`load generator exited (${code}) without a result`)));
  });
  // The measure: the server's CPU (all its threads: bash workers, checkpointer) plus, on
  // PostgreSQL, its backends', over the whole run, per call.
  const cpuBefore = { server: cpuOf(child.pid), db: backend === 'postgres' ? postgresCpu() : 0 };
  gen.send({ port, agents, connections: opts.connections, durationS: opts.durationS, mix: opts.mix });
  const msg = await reply;
  if (!msg.ok) throw new Error(`load generator failed: ${msg.error}`);
  const calls = msg.result.ops.reduce((a, o) => a + o.requests, 0);
  const cpuUs = {
    server: ((cpuOf(child.pid) - cpuBefore.server) / calls) * 1e6,
    db: backend === 'postgres' ? ((postgresCpu() - cpuBefore.db) / calls) * 1e6 : null,
  };
  const rssAfter = vmRssMb(child.pid);
  const loadAfter = os.loadavg();
  const alive =
    child.exitCode === null &&
    (await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    ));
  // Stop the server gracefully; its storage is removed by the cleanup steps.
  child.kill('SIGTERM');
  await new Promise((r) => {
    const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => (clearTimeout(t), r()));
  });
  return { backend, label: storage.label, ...msg.result, rssBefore, rssAfter, loadBefore, loadAfter, alive, cpuUs };
}

function table(results, opts) {
  const f = (x) => (x === null || x === undefined ? '–' : x < 10 ? x.toFixed(1) : Math.round(x).toString());
  const lines = [];
  lines.push(
    `${opts.connections} concurrent keep-alive connections for ${opts.durationS} s per backend, from a separate load-generator process; ` +
      `${opts.agents} agents × ${opts.files} files; mix read/write/edit/bash = ${opts.mix.join('/')}; edits carry expectedVersion, ` +
      `so EDIT_CONFLICT is expected under contention and not counted as an error. Rate limit lifted, BASH_MAX_CONCURRENT_PER_AGENT=max(64, connections), BASH_WORKER_MS_PER_MINUTE=0, ` +
      `other settings default (BASH_WORKERS=4). Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ` +
      `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. The generator shares the CPUs with the server.`,
  );
  lines.push('');
  lines.push('| Backend | Operation | Requests | Req/s | EDIT_CONFLICT | Errors | p50 ms | p99 ms |');
  lines.push('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const total = r.ops.reduce((a, o) => a + o.requests, 0);
    for (const o of r.ops) {
      lines.push(
        `| ${r.label} | ${o.op} | ${o.requests} | ${f(o.requests / r.elapsedS)} | ${o.op === 'edit' ? o.editConflicts : '–'} | ${o.errors} | ${f(o.p50)} | ${f(o.p99)} |`,
      );
    }
    const errors = r.ops.reduce((a, o) => a + o.errors, 0);
    lines.push(
      `| ${r.label} | **all** | **${total}** | **${f(total / r.elapsedS)}** | ${r.ops.find((o) => o.op === 'edit').editConflicts} | **${errors}** | | |`,
    );
  }
  lines.push('');
  lines.push(
    '| Backend | Errors other than EDIT_CONFLICT | CPU µs per call, server + PostgreSQL (mix average) | Server RSS before → after | Load average before → after (1 min) | Server up after |',
  );
  lines.push('|---|---:|---|---|---|---|');
  for (const r of results) {
    const errors = r.ops.reduce((a, o) => a + o.errors, 0);
    lines.push(
      `| ${r.label} | ${errors} | ${f(r.cpuUs.server + (r.cpuUs.db ?? 0))}${r.cpuUs.db === null ? '' : ` (${f(r.cpuUs.server)} + ${f(r.cpuUs.db)})`} | ${r.rssBefore} MB → ${r.rssAfter} MB | ${r.loadBefore[0].toFixed(2)} → ${r.loadAfter[0].toFixed(2)} | ${r.alive ? 'yes' : 'NO'} |`,
    );
  }
  return lines.join('\n');
}

function writeDocs(text) {
  const section = `${MARK_START}\n<!-- generated by bench/load.mjs --write-docs; edits here are overwritten -->\n\n${text}\n\n${MARK_END}`;
  let doc = fs.existsSync(DOCS) ? fs.readFileSync(DOCS, 'utf8') : '# Benchmarks\n';
  const a = doc.indexOf(MARK_START);
  const b = doc.indexOf(MARK_END);
  if (a !== -1 && b > a) doc = doc.slice(0, a) + section + doc.slice(b + MARK_END.length);
  else {
    doc =
      `${doc.trimEnd()}\n\n## Load\n\nA mixed load over many connections, measured by \`bench/load.mjs\` ` +
      '(`npm run bench:load`, `-- --help` for options, `-- --write-docs` to refresh this section). It fails (exit 1) on any error ' +
      'other than an expected EDIT_CONFLICT.\n\n' +
      `${section}\n`;
  }
  fs.writeFileSync(DOCS, doc);
  console.log(`wrote ${path.relative(ROOT, DOCS)}`);
}

async function main() {
  const opts = options();
  if (!fs.existsSync(SERVER_JS)) throw new Error(`${SERVER_JS} not found: run npm run build first`);
  const results = [];
  for (const backend of opts.backends) {
    const r = await runBackend(backend, opts);
    if (r) results.push(r);
  }
  await cleanupAll();
  if (!results.length) throw new Error('no backend ran');
  const text = table(results, opts);
  console.log(`\n${text}\n`);
  for (const r of results) if (r.errorSamples.length) console.log(`${r.label} error samples: ${JSON.stringify(r.errorSamples, null, 1)}`);
  if (opts.writeDocs) writeDocs(text);
  const bad = results.filter((r) => !r.alive || r.ops.some((o) => o.errors > 0));
  if (bad.length) {
    console.error(`FAILED: ${bad.map((r) => r.label).join(', ')} had errors other than EDIT_CONFLICT or went down.`);
    process.exitCode = 1;
  }
}

// ================================================================ entry: driver, or generator (--generator)
if (process.argv.includes('--generator')) {
  process.once('message', (job) => {
    generate(job).then(
      (result) => process.send({ ok: true, result }, () => process.exit(0)),
      (err) => process.send({ ok: false, error: String(err?.stack ?? err) }, () => process.exit(1)),
    );
  });
} else {
  main().catch(async (err) => {
    console.error(err?.stack ?? String(err));
    await cleanupAll();
    process.exit(1);
  });
}

// Benchmark harness: `npm run bench` (builds first), or `node bench/run.mjs`.
// For each backend and round it starts a fresh server per scenario (the bare
// node:http baseline first, then the real server on SQLite or PostgreSQL),
// drives it from a separate load-generator process, and reports req/s and
// latency as a ratio of the bare baseline measured in the same round.
// Run with --help for options.
import { execFileSync, fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { gitRev } from './common.mjs';
import { settle } from './server-process.mjs';
import { scenarios, CPU_TARGETS, RELATIVE_TARGETS, P99_TARGET_MS, P99_SCENARIOS } from './scenarios.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(BENCH_DIR);
// BENCH_SERVER lets you benchmark another build of the server entry point.
const SERVER_JS = path.resolve(ROOT, process.env.BENCH_SERVER || 'dist/src/server.js');
const DOCS = path.join(ROOT, 'docs/benchmarks.md');
const OUT_DIR = path.join(BENCH_DIR, 'out'); // gitignored
const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/postgres';
// The per-key rate limit (default 1200/min) would turn the run into a 429
// benchmark; lift it (the limiter still runs, so its cost is measured).
const RATE_LIMIT = process.env.RATE_LIMIT_PER_MINUTE || '1000000000';
const MARK_START = '<!-- bench:auto:start -->';
const MARK_END = '<!-- bench:auto:end -->';

const HELP = `Usage: node bench/run.mjs [options]   (npm run bench -- [options])
  --duration <s>      measured seconds per scenario (default 10)
  --warmup <s>        discarded warm-up seconds per scenario (default 3)
  --connections <n>   concurrent connections (default 50)
  --rounds <n>        rounds; each round runs bare then every scenario, medians are reported (default 1)
  --only <a,b>        tool scenarios to run (${scenarios
    .filter((s) => s.tool)
    .map((s) => s.name)
    .join(',')}); bare always runs
  --backends <a,b>    sqlite,postgres (default: both; postgres skipped if not reachable)
  --write-docs        replace the auto-generated section of docs/benchmarks.md
  --quiet-logs        run the server with LOG_LEVEL=warn (default: server's default level)
  --fail-on-miss      exit 2 if any target is missed
  --against <commit>  A/B: also build <commit> (a git worktree under bench/out/against/, kept for the
                      next run) and run it beside this build in every round (order alternating), then
                      print both side by side: CPU per call, p50, p99, req/s, and new/old
Env: BENCH_DATABASE_URL  admin URL of a PostgreSQL server (default ${DEFAULT_PG});
                         when set, an unreachable server is an error instead of a skip.
     BENCH_SERVER        server entry point to run (default dist/src/server.js)`;

// ---------------------------------------------------------------- options
function parseOptions() {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      connections: { type: 'string', default: '50' },
      rounds: { type: 'string', default: '1' },
      only: { type: 'string' },
      backends: { type: 'string' },
      'write-docs': { type: 'boolean', default: false },
      'quiet-logs': { type: 'boolean', default: false },
      'fail-on-miss': { type: 'boolean', default: false },
      against: { type: 'string' },
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
  const list = (v) =>
    v
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : null;
  const toolNames = scenarios.filter((s) => s.tool).map((s) => s.name);
  // Scenarios with a long setup (optIn) run only when named in --only.
  const only = list(values.only) ?? scenarios.filter((s) => s.tool && !s.optIn).map((s) => s.name);
  for (const n of only) if (!toolNames.includes(n)) throw new Error(`--only: unknown scenario "${n}" (have ${toolNames.join(', ')})`);
  const backends = list(values.backends) ?? ['sqlite', 'postgres'];
  for (const b of backends) if (!['sqlite', 'postgres'].includes(b)) throw new Error(`--backends: unknown backend "${b}"`);
  return {
    duration: num('duration', 1),
    warmup: num('warmup', 0),
    connections: Math.floor(num('connections', 1)),
    rounds: Math.floor(num('rounds', 1)),
    scenarios: ['bare', ...only.filter((n) => n !== 'bare')],
    backends,
    backendsExplicit: values.backends != null,
    writeDocs: values['write-docs'],
    against: values.against ?? null,
    quietLogs: values['quiet-logs'],
    failOnMiss: values['fail-on-miss'],
  };
}

// ---------------------------------------------------------------- cleanup
// Everything we create registers an undo step here, so Ctrl-C, a thrown
// error or a normal exit all leave no processes, temp dirs or databases.
const children = new Set();
const undo = [];
let cleaning = null;

function track(child) {
  if (cleaning) child.kill('SIGKILL'); // started while shutting down
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

function cleanupAll() {
  cleaning ??= (async () => {
    await Promise.all([...children].map(stopChild));
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

// Last resort if we exit without awaiting cleanupAll (e.g. process.exit elsewhere).
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    console.error(`\n${sig}: cleaning up…`);
    cleanupAll().finally(() => process.exit(128 + os.constants.signals[sig]));
  });
}

// Register an undo step; returns a function that runs it now and forgets it.
// Steps must be idempotent: on Ctrl-C they may also run from cleanupAll().
function onCleanup(step) {
  undo.push(step);
  return async () => {
    await step();
    const i = undo.indexOf(step);
    if (i !== -1) undo.splice(i, 1);
  };
}

function tempDir(root, name) {
  const dir = fs.mkdtempSync(path.join(root, `${name}-`));
  return { dir, remove: onCleanup(() => fs.rmSync(dir, { recursive: true, force: true })) };
}

// ---------------------------------------------------------------- processes
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

function tail(file, lines = 30) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

// Start a server process with stdout/stderr going to a file (a pipe nobody
// reads would eventually block a logging server) and wait for GET /readyz.
async function startServer(label, args, env, logFile) {
  const port = await freePort();
  const fd = fs.openSync(logFile, 'w');
  const child = track(
    spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', fd, fd],
    }),
  );
  fs.closeSync(fd);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${label} exited during startup (code ${child.exitCode ?? child.signalCode}). Log tail:\n${tail(logFile)}`);
    }
    try {
      const res = await fetch(`${baseUrl}/readyz`);
      if (res.status === 200) return { child, baseUrl };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stopChild(child);
  throw new Error(`${label} not ready within 30 s. Log tail:\n${tail(logFile)}`);
}

async function register(baseUrl) {
  const res = await fetch(`${baseUrl}/api/users/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench' }),
  });
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  if (res.status !== 201 || typeof body?.apiKey !== 'string') {
    throw new Error(`register failed: HTTP ${res.status} ${text.slice(0, 500)}`);
  }
  return body.apiKey;
}

// CPU seconds (user + system, all threads) a process has used, from /proc (Linux; null elsewhere).
const TICKS_PER_S = 100;
function cpuOf(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  } catch {
    return null;
  }
}
// PostgreSQL's processes (its backends do the queries): their CPU is reported beside ours.
function postgresCpu() {
  let total = 0;
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += cpuOf(pid) ?? 0;
    } catch {
      /* gone */
    }
  }
  return total;
}

// Run one scenario in a forked load generator; resolves with its result and the server's (and
// PostgreSQL's) CPU time over the measured phase.
function runLoad(job, timeoutS, serverPid, countPostgres) {
  return new Promise((resolve, reject) => {
    const child = track(fork(path.join(BENCH_DIR, 'loadgen.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
    let reply = null;
    let cpuStart = null;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, timeoutS * 1000);
    child.on('message', (m) => {
      if (m.phase === 'measure') {
        cpuStart = { server: cpuOf(serverPid), db: postgresCpu() };
        return;
      }
      if (m.ok && cpuStart) {
        const server = cpuOf(serverPid);
        const calls = m.result.rps * m.result.durationS;
        m.result.serverCpuUs = server === null || cpuStart.server === null ? null : ((server - cpuStart.server) / calls) * 1e6;
        // On SQLite the machine's PostgreSQL serves others (tests, other benches): not this run's cost.
        m.result.dbCpuUs = countPostgres ? ((postgresCpu() - cpuStart.db) / calls) * 1e6 : null;
      }
      reply = m;
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (reply?.ok) resolve(reply.result);
      else reject(new Error(`load generator failed (${reply ? reply.error : `exit ${code ?? signal}, no result`})`));
    });
    child.send(job);
  });
}

// ---------------------------------------------------------------- backends
// Each backend prepares fresh storage per server start and returns its env.
function withoutDbEnv() {
  const env = { ...process.env };
  delete env.DATABASE_URL; // never let an inherited URL turn the SQLite run into a PG run
  return env;
}

async function pgAdmin(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  return client;
}

async function probePostgres(opts) {
  const url = process.env.BENCH_DATABASE_URL || DEFAULT_PG;
  const mustWork = Boolean(process.env.BENCH_DATABASE_URL) || opts.backendsExplicit;
  try {
    const c = await pgAdmin(url);
    const { rows } = await c.query('SHOW server_version');
    await c.end();
    return { url, version: rows[0].server_version };
  } catch (err) {
    const msg = `PostgreSQL not reachable at ${url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')}: ${err.message}`;
    if (mustWork) throw new Error(msg);
    console.log(`PostgreSQL: SKIPPED (${msg}; set BENCH_DATABASE_URL to use another server)`);
    return null;
  }
}

const backendDefs = {
  sqlite: {
    async prepare(dataDir) {
      return { env: { ...withoutDbEnv(), DATA_DIR: dataDir }, release: async () => {} };
    },
  },
  postgres: {
    adminUrl: null,
    async prepare(dataDir) {
      const name = `afs_bench_${randomBytes(6).toString('hex')}`;
      const admin = await pgAdmin(this.adminUrl);
      try {
        await admin.query(`CREATE DATABASE "${name}"`);
      } finally {
        await admin.end();
      }
      const drop = async () => {
        const a = await pgAdmin(this.adminUrl);
        // FORCE: a killed server may leave connections behind
        try {
          await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        } finally {
          await a.end();
        }
      };
      const release = onCleanup(drop);
      const dbUrl = new URL(this.adminUrl);
      dbUrl.pathname = `/${name}`;
      return {
        env: { ...withoutDbEnv(), DATA_DIR: dataDir, DATABASE_URL: dbUrl.toString() },
        release,
      };
    },
  },
};

// ---------------------------------------------------------------- one measurement
async function measure(opts, runRoot, backend, scenarioName, serverJs = SERVER_JS) {
  const sc = scenarios.find((s) => s.name === scenarioName);
  const work = tempDir(runRoot, `${backend}-${scenarioName}`);
  const logFile = path.join(work.dir, 'server.log');
  const dataDir = path.join(work.dir, 'data');
  fs.mkdirSync(dataDir);
  let server = null;
  let storage = null;
  try {
    let apiKey = 'bare';
    if (sc.tool === null) {
      server = await startServer('bare server', [path.join(BENCH_DIR, 'bare-server.mjs')], withoutDbEnv(), logFile);
    } else {
      storage = await backendDefs[backend].prepare(dataDir);
      // One agent drives all connections: lift its per-agent bash cap too.
      const env = {
        ...storage.env,
        RATE_LIMIT_PER_MINUTE: RATE_LIMIT,
        BASH_MAX_CONCURRENT_PER_AGENT: '64',
        BASH_WORKER_MS_PER_MINUTE: '0',
        ...(process.env.WORKERS ? { WORKERS: process.env.WORKERS } : {}),
      };
      if (opts.quietLogs) env.LOG_LEVEL = 'warn';
      server = await startServer(`server (${backend})`, [serverJs], env, logFile);
      apiKey = await register(server.baseUrl);
      await settle(server.child.pid, `${backend}/${sc.name}`);
    }
    const job = { baseUrl: server.baseUrl, apiKey, scenario: sc.name, connections: opts.connections, duration: opts.duration, warmup: opts.warmup };
    const result = await runLoad(job, opts.duration + opts.warmup + 120 + (sc.setupSeconds ?? 0), server.child.pid, backend === 'postgres');
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      throw new Error(`${backend}/${sc.name}: server died during the run. Log tail:\n${tail(logFile)}`);
    }
    return result;
  } finally {
    if (server) await stopChild(server.child);
    if (storage) await storage.release();
    await work.remove();
  }
}

// ---------------------------------------------------------------- reporting
const median = (xs) => {
  const s = xs.filter((x) => x != null).sort((a, b) => a - b);
  if (!s.length) return null;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const fmt = (x, d = 1) => (x == null ? '—' : x.toFixed(d));

// CPU per call as the benchmarks count it: the server's, plus PostgreSQL's backends' on that backend.
const totalCpu = (r) => (r?.serverCpuUs == null ? null : r.serverCpuUs + (r.dbCpuUs ?? 0));
const perRound = (rounds, f) => median(rounds.map(f).filter((x) => x != null && Number.isFinite(x)));

// The target a row is judged by, and the measured figure it is compared with.
function targetOf(backend, name, rounds) {
  const rel = RELATIVE_TARGETS[name];
  if (rel && rounds.every((r) => r[rel.of])) {
    // per round, so both sides were measured minutes apart at most
    const x = perRound(rounds, (r) => totalCpu(r[name]) / totalCpu(r[rel.of]));
    return { label: `≤${rel.max}× ${rel.of}`, max: rel.max, x, unit: `× ${rel.of}` };
  }
  const max = CPU_TARGETS[backend]?.[name];
  if (max == null) return null;
  return { label: `≤${max}× bare`, max, x: perRound(rounds, (r) => totalCpu(r[name]) / totalCpu(r.bare)), unit: '× bare' };
}

// rounds: [{ bare: result, read: result, ... }, ...] for one backend
function summarize(backend, rounds, names) {
  return names.map((name) => {
    const rs = rounds.map((r) => r[name]);
    const row = {
      scenario: name,
      rps: median(rs.map((r) => r.rps)),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      errors: sum(rs.map((r) => r.errors + r.toolErrors)),
      non2xx: sum(rs.map((r) => r.non2xx)),
      // req/s relative to bare: kept for history, not a target (it moved 3× between two VMs)
      ratio: name === 'bare' ? null : median(rounds.map((r) => r[name].rps / r.bare.rps)),
      serverCpuUs: median(rs.map((r) => r.serverCpuUs)),
      dbCpuUs: name === 'bare' ? null : median(rs.map((r) => r.dbCpuUs)),
      // (server + db) CPU per call as a multiple of bare's, per round: the figure that holds across machines
      cpuX: name === 'bare' ? 1 : perRound(rounds, (r) => totalCpu(r[name]) / totalCpu(r.bare)),
      target: name === 'bare' ? null : targetOf(backend, name, rounds),
      samples: rs.flatMap((r) => r.samples).slice(0, 3),
    };
    if (name === 'bare') row.verdict = '—';
    else {
      const misses = [];
      if (row.target && !(row.target.x <= row.target.max)) misses.push('cpu');
      if (P99_SCENARIOS.has(name) && (row.p99 == null || row.p99 >= P99_TARGET_MS)) misses.push('p99');
      if (row.errors + row.non2xx > 0) misses.push('errors');
      row.verdict = misses.length ? `MISS (${misses.join(', ')})` : 'met';
    }
    return row;
  });
}

function markdownTable(rows) {
  const head = [
    'scenario',
    'server CPU µs/call',
    'db CPU µs/call',
    'CPU × bare',
    'target',
    'measured',
    'req/s',
    'p50 ms',
    'p99 ms',
    'errors',
    'non-2xx',
    'req/s vs bare',
    'result',
  ];
  const body = rows.map((r) => [
    r.scenario,
    fmt(r.serverCpuUs, 0),
    r.scenario === 'bare' || !r.dbCpuUs ? '—' : fmt(r.dbCpuUs, 0),
    r.cpuX == null ? '—' : `${r.cpuX.toFixed(2)}×`,
    r.target
      ? r.target.label + (P99_SCENARIOS.has(r.scenario) ? `, p99<${P99_TARGET_MS}` : '')
      : P99_SCENARIOS.has(r.scenario)
        ? `p99<${P99_TARGET_MS}`
        : '—',
    r.target ? `${r.target.x.toFixed(2)}${r.target.unit}` : '—',
    fmt(r.rps, 0),
    fmt(r.p50, 2),
    fmt(r.p99, 2),
    String(r.errors),
    String(r.non2xx),
    r.ratio == null ? '100%' : `${(r.ratio * 100).toFixed(1)}%`,
    r.verdict,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

function machineInfo() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model?.trim() ?? 'unknown',
    cores: cpus.length,
    node: process.version,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadavg: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
}

function report(opts, machine, tables, notes) {
  const lines = [
    `- Date: ${new Date().toISOString()}, commit ${gitRev()}`,
    `- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory} RAM, ${machine.os}, Node ${machine.node}, load average at start ${machine.loadavg}`,
    `- Settings: ${opts.connections} connections, ${opts.warmup} s warm-up (discarded) + ${opts.duration} s measured per scenario, ${opts.rounds} round(s)` +
      `${opts.rounds > 1 ? ' (medians; ratios are medians of per-round ratios)' : ''}, server LOG_LEVEL ${opts.quietLogs ? 'warn' : 'default'}, RATE_LIMIT_PER_MINUTE ${RATE_LIMIT}`,
    `- Targets: CPU per call (server + PostgreSQL backends) at most the multiple of bare's, or of another scenario's, in the same round (median of per-round ratios); p99 < ${P99_TARGET_MS} ms for ${[...P99_SCENARIOS].join(', ')}; no errors. errors = connection errors, timeouts and 2xx replies with isError; latency covers all replies.`,
    ...notes.map((n) => `- ${n}`),
  ];
  for (const t of tables) lines.push('', `### ${t.backend}${t.version ? ` (PostgreSQL ${t.version})` : ''}`, '', markdownTable(t.rows));
  return lines.join('\n');
}

const DOCS_HEADER = `# Benchmarks

Throughput and latency of the tool endpoint, measured by \`bench/run.mjs\`.

Run \`npm run bench\` (builds, then benchmarks SQLite and, if reachable, PostgreSQL),
\`npm run bench -- --help\` for options, and \`npm run bench -- --write-docs\` to
refresh the section below. Each scenario gets a fresh server and storage; the load
comes from a separate process (autocannon, \`--connections\` keep-alive connections).
"vs bare" is req/s relative to a bare \`node:http\` JSON server (\`bench/bare-server.mjs\`)
measured in the same run, so results are comparable across machines. The load
generator shares the CPU with the server; on small machines that caps bare too,
which the ratio partly absorbs, but absolute req/s are only comparable on the same
machine. The server runs with its default LOG_LEVEL (\`--quiet-logs\` for warn) and
the per-key rate limit lifted.
Scenarios and targets live in \`bench/scenarios.mjs\`; add a scenario there.

`;

function writeDocs(text) {
  const section = `${MARK_START}\n<!-- generated by bench/run.mjs --write-docs; edits here are overwritten -->\n\n${text}\n\n${MARK_END}`;
  let doc = fs.existsSync(DOCS) ? fs.readFileSync(DOCS, 'utf8') : DOCS_HEADER;
  const a = doc.indexOf(MARK_START);
  const b = doc.indexOf(MARK_END);
  if (a !== -1 && b > a) doc = doc.slice(0, a) + section + doc.slice(b + MARK_END.length);
  else doc = `${doc.trimEnd()}\n\n## Latest results\n\n${section}\n`;
  fs.mkdirSync(path.dirname(DOCS), { recursive: true });
  fs.writeFileSync(DOCS, doc.endsWith('\n') ? doc : `${doc}\n`);
  console.log(`\nwrote ${path.relative(ROOT, DOCS)}`);
}

// ---------------------------------------------------------------- A/B against another commit
/**
 * Builds `commit` in a git worktree under bench/out/against/<sha> (kept: the next run against the
 * same commit reuses it) with this checkout's node_modules, and returns its server entry point.
 */
function buildAgainst(commit) {
  const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  const sha = git('rev-parse', '--verify', `${commit}^{commit}`);
  const dir = path.join(OUT_DIR, 'against', sha.slice(0, 12));
  const serverJs = path.join(dir, 'dist/src/server.js');
  if (!fs.existsSync(serverJs)) {
    if (!fs.existsSync(dir)) {
      fs.mkdirSync(path.dirname(dir), { recursive: true });
      git('worktree', 'add', '--detach', dir, sha);
    }
    if (!fs.existsSync(path.join(dir, 'node_modules'))) fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    console.error(`building ${sha.slice(0, 12)} in ${path.relative(ROOT, dir)} …`);
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, stdio: 'inherit' });
  }
  return { commit, sha, serverJs };
}

function compareReport(against, comparisons) {
  const lines = [`### A/B: this build (${gitRev()}) against ${against.commit} (${against.sha.slice(0, 12)}), same rounds`];
  for (const c of comparisons) {
    lines.push(
      '',
      `#### ${c.backend}`,
      '',
      '| scenario | CPU µs/call old | CPU µs/call new | new/old | p50 ms old → new | p99 ms old → new | req/s old → new |',
      '|---|---:|---:|---:|---|---|---|',
    );
    for (const now of c.now) {
      if (now.scenario === 'bare') continue;
      const old = c.old.find((o) => o.scenario === now.scenario);
      const o = totalCpu(old);
      const n = totalCpu(now);
      lines.push(
        `| ${now.scenario} | ${fmt(o, 0)} | ${fmt(n, 0)} | ${o && n ? (n / o).toFixed(2) : '—'} | ${fmt(old?.p50, 2)} → ${fmt(now.p50, 2)} | ${fmt(old?.p99, 2)} → ${fmt(now.p99, 2)} | ${fmt(old?.rps, 0)} → ${fmt(now.rps, 0)} |`,
      );
    }
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------- main
async function main() {
  const opts = parseOptions();
  const machine = machineInfo();
  const notes = [];
  if (!fs.existsSync(SERVER_JS)) {
    throw new Error(`${path.relative(ROOT, SERVER_JS)} missing — run \`npm run build\` (or use \`npm run bench\`)`);
  }
  const backends = [];
  for (const b of opts.backends) {
    if (b === 'postgres') {
      const pgInfo = await probePostgres(opts);
      if (!pgInfo) {
        notes.push('PostgreSQL: skipped (not reachable).');
        continue;
      }
      backendDefs.postgres.adminUrl = pgInfo.url;
      backends.push({ name: b, version: pgInfo.version });
    } else backends.push({ name: b });
  }
  console.log(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory}, Node ${machine.node}, load ${machine.loadavg}`);
  if (os.loadavg()[0] > 0.75 * machine.cores) console.log('note: machine is busy (load average high); numbers will be noisy');

  const against = opts.against ? buildAgainst(opts.against) : null;
  const comparisons = [];
  const runRoot = tempDir(os.tmpdir(), 'afs-bench');
  const tables = [];
  const raw = {};
  for (const b of backends) {
    const rounds = [];
    const oldRounds = [];
    for (let r = 1; r <= opts.rounds; r++) {
      const round = {};
      const oldRound = {};
      for (const name of opts.scenarios) {
        // A/B: both builds in the same round, the order alternating per round (a drifting machine
        // then favours neither); bare is measured once and shared.
        const builds = against && name !== 'bare' ? (r % 2 ? ['new', 'old'] : ['old', 'new']) : ['new'];
        for (const which of builds) {
          const res = await measure(opts, runRoot.dir, b.name, name, which === 'old' ? against.serverJs : SERVER_JS);
          if (which === 'old') oldRound[name] = res;
          else round[name] = res;
          console.error(
            `[${b.name} ${r}/${opts.rounds}${against ? ` ${which}` : ''}] ${name.padEnd(6)} ${fmt(res.rps, 0).padStart(7)} req/s  p50 ${fmt(res.p50, 2)} ms  p99 ${fmt(res.p99, 2)} ms  errors ${res.errors + res.toolErrors}  non-2xx ${res.non2xx}`,
          );
          if (name === 'bare' && (res.errors || res.non2xx || res.toolErrors)) {
            throw new Error(`bare baseline had errors — load generator or machine problem: ${JSON.stringify(res.samples)}`);
          }
        }
        if (name === 'bare') oldRound.bare = round.bare;
      }
      rounds.push(round);
      oldRounds.push(oldRound);
    }
    raw[b.name] = rounds;
    tables.push({ backend: b.name, version: b.version, rows: summarize(b.name, rounds, opts.scenarios) });
    if (against) comparisons.push({ backend: b.name, old: summarize(b.name, oldRounds, opts.scenarios), now: tables.at(-1).rows });
  }
  await runRoot.remove();

  const text = report(opts, machine, tables, notes);
  console.log(`\n${text}`);
  if (against) console.log(`\n${compareReport(against, comparisons)}`);
  for (const t of tables) {
    for (const row of t.rows) {
      for (const s of row.samples) console.log(`sample error (${t.backend}/${row.scenario}): HTTP ${s.status} ${s.body}`);
    }
  }
  fs.mkdirSync(OUT_DIR, { recursive: true });
  fs.writeFileSync(path.join(OUT_DIR, 'latest.json'), JSON.stringify({ date: new Date().toISOString(), machine, opts, raw, tables }, null, 2));
  if (opts.writeDocs) writeDocs(text);
  const missed = tables.some((t) => t.rows.some((r) => r.verdict.startsWith('MISS')));
  return opts.failOnMiss && missed ? 2 : 0;
}

main().then(
  async (code) => {
    await cleanupAll();
    process.exit(code);
  },
  async (err) => {
    if (!cleaning) console.error(`\nbench failed: ${err?.stack ?? err}`); // else: interrupted, already said so
    await cleanupAll();
    process.exit(1);
  },
);

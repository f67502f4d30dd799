// The benchmarks' server processes: a free port, the real server started on it (ready when
// /readyz answers), and a process's CPU time. Shared by bench/social.mjs, bench/community.mjs and bench/search.mjs.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

export const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/**
 * `opts.serverJs` and `opts.cwd` start another build (bench:search compares with an older commit);
 * BENCH_NODE_ARGS adds node flags (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
 */
export async function startServer(env, opts = {}) {
  const port = await freePort();
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const proc = spawn(process.execPath, [...nodeArgs, opts.serverJs ?? path.join(ROOT, 'dist/src/server.js')], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '1000000000' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}`);
    if (
      await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 600) throw new Error('server did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    proc,
    base,
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    },
    async kill() {
      proc.kill('SIGKILL');
      await new Promise((r) => proc.once('exit', r));
    },
  };
}

/** CPU seconds (user + system, all threads) of a process, from /proc (Linux, 100 ticks a second; 0 elsewhere). */
export function cpuOf(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds of PostgreSQL's processes (its backends run the server's queries): counted per call. */
export function postgresCpu() {
  let total = 0;
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += cpuOf(pid);
    } catch {
      /* gone */
    }
  }
  return total;
}

/**
 * Waits until a just-started server is idle (under 5% of a core over 500 ms; at most 60 s). After
 * /readyz it still runs its tools' examples for the reference and starts its bash threads:
 * several CPU-seconds (measured 2026-11-28: ~0.25 CPU-s every second for over 20 s on a busy
 * machine), which the measured phase charged to the calls (docs/benchmarks.md, "Issue 37").
 */
export async function settle(pid, label) {
  const started = Date.now();
  for (let prev = cpuOf(pid); Date.now() - started < 60_000;) {
    await new Promise((r) => setTimeout(r, 500));
    const now = cpuOf(pid);
    if (now - prev < 0.025) break;
    prev = now;
  }
  const s = (Date.now() - started) / 1000;
  if (s > 1) console.error(`${label}: server busy with its startup work for ${s.toFixed(1)} s after ready`);
}

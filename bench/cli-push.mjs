// `afs push` of 1,000 small files against a SQLite server (under 10 s on the 2-core VM).
// The real binary, as a user runs it: register, then ROUNDS pushes of the same tree to fresh remote
// directories (every file sent), then one push with nothing changed. Prints the wall times.
//   node bench/cli-push.mjs [files=1000] [rounds=3]     (after npm run build)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gitRev } from './common.mjs';
import { startServer } from './server-process.mjs';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const FILES = Number(process.argv[2] ?? 1000);
const ROUNDS = Number(process.argv[3] ?? 3);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'afs-bench-cli-'));
const server = await startServer({ DATA_DIR: path.join(tmp, 'data'), REGISTRATIONS_PER_IP_PER_HOUR: '0' });
const env = { ...process.env, HOME: tmp, AFS_BASE_URL: server.base };
delete env.AFS_CREDENTIALS;
delete env.XDG_CONFIG_HOME;

const afs = (...args) => {
  const t = performance.now();
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/afs.mjs'), ...args], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`afs ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { seconds: (performance.now() - t) / 1000, stdout: r.stdout };
};

try {
  afs('register', 'bench');
  const src = path.join(tmp, 'src');
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(src, `d${i % 20}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `f${i}.txt`), `file ${i}\n${'x'.repeat(i % 200)}\n`);
  }
  const times = [];
  for (let r = 0; r < ROUNDS; r++) {
    const { seconds, stdout } = afs('push', src, `/bench${r}`);
    times.push(seconds);
    console.log(`push ${FILES} files to /bench${r}: ${seconds.toFixed(2)} s wall (${stdout.trim()})`);
  }
  const same = afs('push', src, '/bench0');
  console.log(`push with nothing changed: ${same.seconds.toFixed(2)} s wall`);
  times.sort((a, b) => a - b);
  console.log(
    `median of ${ROUNDS}: ${times[Math.floor(times.length / 2)].toFixed(2)} s; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}, commit ${gitRev()}, ${new Date().toISOString()}`,
  );
} finally {
  await server.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}

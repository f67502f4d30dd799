/**
 * A real one-node OpenStack Swift with its s3api middleware, on a temp directory and free
 * loopback ports (docs/operations.md, "Blobs in object storage"): rings built by Swift's
 * RingBuilder, account/container/object servers and the proxy started directly (no
 * systemd), tempauth user `test:tester` / `testing` as the S3 key pair. `stopProxy`/`startProxy`
 * take the S3 endpoint down and back on the same port (the fault tests). A machine without Swift
 * fails loudly: .ci/run installs it (apt-get install swift-proxy swift-object swift-container
 * swift-account).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './server.js';

export interface Swift {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** BLOB_STORE-style settings for a server or store (bucket `afs`, created by the store). */
  env(bucket?: string, prefix?: string): Record<string, string>;
  stopProxy(): Promise<void>;
  /** SIGSTOP / SIGCONT the proxy: connections are still accepted (the kernel's backlog), nothing answers. */
  pauseProxy(): void;
  resumeProxy(): void;
  startProxy(): Promise<void>;
  stop(): Promise<void>;
}

const SWIFT_CONF = '/etc/swift/swift.conf';
/**
 * How long a daemon may take to answer: each is a Python process importing eventlet and Swift,
 * which took over 30 s on the 2-core VM at a load average of ~40.
 */
const READY_MS = 120_000;
const SERVERS = ['account', 'container', 'object'] as const;

function ringBuilder(): string {
  return spawnSync('sh', ['-c', 'command -v swift-ring-builder'], { encoding: 'utf8' }).stdout.trim();
}

export function swiftMissing(): string | null {
  for (const bin of ['swift-ring-builder', 'swift-proxy-server', 'swift-object-server', 'swift-container-server', 'swift-account-server']) {
    if (spawnSync('sh', ['-c', `command -v ${bin}`]).status !== 0) {
      return `${bin} is not installed (.ci/run installs it: apt-get install swift-proxy swift-object swift-container swift-account)`;
    }
  }
  return null;
}

/**
 * Swift reads its hash salt from /etc/swift/swift.conf only (no setting moves it): written here
 * when absent or without the salt, never changed when present.
 */
function ensureSwiftConf(): void {
  const current = existsSync(SWIFT_CONF) ? readFileSync(SWIFT_CONF, 'utf8') : '';
  if (/^\s*swift_hash_path_(suffix|prefix)\s*=\s*\S/m.test(current)) return;
  mkdirSync('/etc/swift', { recursive: true });
  writeFileSync(SWIFT_CONF, '[swift-hash]\nswift_hash_path_suffix = afs-test-suffix\n\n[storage-policy:0]\nname = Policy-0\ndefault = yes\n');
}

/**
 * The three one-device rings, built by Swift's own RingBuilder (what swift-ring-builder runs) in
 * one Python process: nine swift-ring-builder runs took ~25 s on a loaded 2-core machine.
 */
function buildRings(dir: string, ports: Record<(typeof SERVERS)[number], number>): void {
  const script = `
from swift.common.ring import RingBuilder
for kind, port in ${JSON.stringify(SERVERS.map((k) => [k, ports[k]]))}:
    b = RingBuilder(6, 1, 1)
    b.add_dev({'id': 0, 'region': 1, 'zone': 1, 'ip': '127.0.0.1', 'port': port, 'device': 'd1', 'weight': 100})
    b.rebalance()
    b.save('${dir}/%s.builder' % kind)
    b.get_ring().save('${dir}/%s.ring.gz' % kind)
`;
  // The interpreter Swift's own tools run with (their shebang), not whichever python3 is first on PATH.
  const python = /^#!\s*(\S+)/.exec(readFileSync(ringBuilder(), 'utf8').split('\n', 1)[0]!)?.[1] ?? '/usr/bin/python3';
  const r = spawnSync(python, ['-c', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building Swift's rings failed (${r.status}): ${r.stderr}${r.stdout}`);
}

function serverConf(dir: string, kind: string, port: number): string {
  return `[DEFAULT]
devices = ${dir}/srv
mount_check = false
bind_ip = 127.0.0.1
bind_port = ${port}
workers = 0
swift_dir = ${dir}
log_name = ${kind}-server
log_level = WARNING

[pipeline:main]
pipeline = ${kind}-server

[app:${kind}-server]
use = egg:swift#${kind}
${kind === 'object' ? '' : 'allow_versions = true\n'}
[${kind}-replicator]
[${kind}-auditor]
`;
}

function proxyConf(dir: string, port: number): string {
  return `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${port}
workers = 0
swift_dir = ${dir}
log_level = WARNING

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
allow_account_management = true

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = testing .admin

[filter:s3api]
use = egg:swift#s3api
location = us-east-1

[filter:healthcheck]
use = egg:swift#healthcheck
[filter:cache]
use = egg:swift#memcache
[filter:listing_formats]
use = egg:swift#listing_formats
[filter:catch_errors]
use = egg:swift#catch_errors
[filter:gatekeeper]
use = egg:swift#gatekeeper
[filter:proxy-logging]
use = egg:swift#proxy_logging
[filter:copy]
use = egg:swift#copy
`;
}

async function waitFor(url: string, proc: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + READY_MS;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`Swift exited (${proc.exitCode}): ${log()}`);
    try {
      const r = await fetch(url);
      if (r.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Swift did not answer ${url} within ${READY_MS / 1000} s: ${log()}`);
}

function spawnServer(bin: string, conf: string, logs: string[]): ChildProcess {
  const p = spawn(bin, [conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (b: Buffer) => {
    logs.push(b.toString());
    if (logs.length > 200) logs.shift();
  };
  p.stdout!.on('data', keep);
  p.stderr!.on('data', keep);
  return p;
}

async function kill(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const gone = new Promise((r) => p.once('exit', r));
  p.kill('SIGTERM');
  const t = setTimeout(() => p.kill('SIGKILL'), 5000);
  await gone;
  clearTimeout(t);
}

/** Starts a one-node Swift; `stop()` ends every daemon and removes the directory. */
export async function startSwift(): Promise<Swift> {
  const missing = swiftMissing();
  if (missing) throw new Error(missing);
  ensureSwiftConf();
  const dir = mkdtempSync(join(tmpdir(), 'afs-swift-'));
  mkdirSync(join(dir, 'srv', 'd1'), { recursive: true });
  const ports = { account: await freePort(), container: await freePort(), object: await freePort(), proxy: await freePort() };
  try {
    buildRings(dir, ports);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  for (const kind of SERVERS) writeFileSync(join(dir, `${kind}-server.conf`), serverConf(dir, kind, ports[kind]));
  writeFileSync(join(dir, 'proxy-server.conf'), proxyConf(dir, ports.proxy));
  const logs: string[] = [];
  const log = () => logs.join('').slice(-4000);
  const servers = SERVERS.map((kind) => spawnServer(`swift-${kind}-server`, join(dir, `${kind}-server.conf`), logs));
  let proxy: ChildProcess | null = null;
  const endpoint = `http://127.0.0.1:${ports.proxy}`;
  const startProxy = async () => {
    proxy = spawnServer('swift-proxy-server', join(dir, 'proxy-server.conf'), logs);
    await waitFor(`${endpoint}/healthcheck`, proxy, log);
  };
  const stopProxy = async () => {
    if (proxy) await kill(proxy);
    proxy = null;
  };
  try {
    for (const kind of SERVERS) await waitFor(`http://127.0.0.1:${ports[kind]}/healthcheck`, servers[SERVERS.indexOf(kind)]!, log);
    await startProxy();
  } catch (err) {
    await stopProxy();
    await Promise.all(servers.map(kill));
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    endpoint,
    accessKeyId: 'test:tester',
    secretAccessKey: 'testing',
    env: (bucket = 'afs', prefix = '') => ({
      BLOB_STORE: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
      BLOB_STORE_ENDPOINT: endpoint,
      BLOB_STORE_ACCESS_KEY_ID: 'test:tester',
      BLOB_STORE_SECRET_ACCESS_KEY: 'testing',
      BLOB_STORE_REGION: 'us-east-1',
    }),
    stopProxy,
    startProxy,
    pauseProxy: () => void (proxy as ChildProcess | null)?.kill('SIGSTOP'),
    resumeProxy: () => void (proxy as ChildProcess | null)?.kill('SIGCONT'),
    stop: async () => {
      await stopProxy();
      await Promise.all(servers.map(kill));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Storage efficiency: bytes stored for 1,000 versions of a 100 KB text file, each differing
// from the previous by one line, against the sum of the versions and against git's packed
// history of the same versions (`git gc`). Run: npm run bench:storage [-- --write-docs]
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';

const VERSIONS = Number(process.env.VERSIONS ?? 1000);
const LINES = 1600; // 1600 lines × 64 bytes ≈ 100 KB
const lineText = (i, rev) =>
  `line ${String(i).padStart(5, '0')} ${rev === 0 ? 'original' : `revision ${String(rev).padStart(4, '0')}`}`.padEnd(63, '.') + '\n';

function versionText(v) {
  // Version v changes line (v * 7919) % LINES to carry revision v; other lines keep their last revision.
  const lines = Array.from({ length: LINES }, (_, i) => lineText(i, 0));
  for (let r = 1; r <= v; r++) lines[(r * 7919) % LINES] = lineText((r * 7919) % LINES, r);
  return lines.join('');
}

function dirBytes(dir) {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    total += s.isDirectory() ? dirBytes(p) : s.size;
  }
  return total;
}

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'afs-storage-'));
  try {
    const texts = [];
    let prev = versionText(0);
    texts.push(prev);
    for (let v = 1; v < VERSIONS; v++) {
      const lines = prev.split(/(?<=\n)/);
      const i = (v * 7919) % LINES;
      lines[i] = lineText(i, v);
      prev = lines.join('');
      texts.push(prev);
    }
    const sum = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);

    // Our service (SQLite): write every version through the API.
    const port = await freePort();
    const dataDir = join(work, 'data');
    const server = spawn(process.execPath, ['dist/src/server.js'], {
      env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/readyz`)).ok) break;
      } catch {
        /* not listening yet */
      }
      if (i > 200) throw new Error('server did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
    const reg = await (await fetch(`${base}/api/users/register`, { method: 'POST', body: JSON.stringify({ name: 'storage' }) })).json();
    const call = async (tool, body) => {
      const r = await fetch(`${base}/api/tools/${tool}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${reg.apiKey}` },
        body: JSON.stringify(body),
      });
      const inner = JSON.parse((await r.json()).content[0].text);
      if (!inner.success) throw new Error(JSON.stringify(inner));
      return inner;
    };
    const t0 = Date.now();
    for (const content of texts) await call('write', { path: '/big.txt', content });
    const writeMs = Date.now() - t0;
    const info = await call('get_key_info', {});
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    const sqliteBytes = dirBytes(dataDir);

    // git: one commit per version, then gc.
    const repo = join(work, 'git');
    execFileSync('git', ['init', '-q', repo]);
    const git = (...args) => execFileSync('git', ['-C', repo, '-c', 'user.email=b@example.com', '-c', 'user.name=bench', ...args], { stdio: 'pipe' });
    for (const [v, content] of texts.entries()) {
      writeFileSync(join(repo, 'big.txt'), content);
      git('add', 'big.txt');
      git('commit', '-q', '-m', `v${v}`);
    }
    git('gc', '-q');
    const packDir = join(repo, '.git', 'objects', 'pack');
    const packBytes = readdirSync(packDir)
      .filter((f) => f.endsWith('.pack'))
      .reduce((n, f) => n + statSync(join(packDir, f)).size, 0);

    const mb = (b) => `${(b / 1e6).toFixed(2)} MB`;
    const rows = [
      ['versions written', String(VERSIONS)],
      ['sum of all versions', mb(sum)],
      ['our blob bytes (usage.storageBytes)', `${mb(info.usage.storageBytes)} (${((info.usage.storageBytes / sum) * 100).toFixed(1)}% of the sum)`],
      ['our SQLite files on disk', `${mb(sqliteBytes)} (${(sqliteBytes / packBytes).toFixed(0)}× git)`],
      ['git gc pack', mb(packBytes)],
      ['time to write all versions', `${writeMs} ms (${(writeMs / VERSIONS).toFixed(1)} ms each, sequential)`],
    ];
    const table = ['| measure | value |', '|---|---|', ...rows.map(([a, b]) => `| ${a} | ${b} |`)].join('\n');
    console.log(table);
    if (process.argv.includes('--write-docs')) {
      const doc = 'docs/benchmarks.md';
      const start = '<!-- storage:auto:start -->';
      const end = '<!-- storage:auto:end -->';
      const section = `${start}\n<!-- generated by bench/storage.mjs --write-docs -->\n\nMeasured ${new Date().toISOString()}: 1,000 versions of a ~100 KB text file, each differing from the previous one by one line.\n\n${table}\n${end}`;
      let text = existsSync(doc) ? readFileSync(doc, 'utf8') : '# Benchmarks\n';
      text = text.includes(start)
        ? text.replace(new RegExp(`${start}[\\s\\S]*${end}`), section)
        : `${text.trimEnd()}\n\n## Storage per version\n\n${section}\n`;
      writeFileSync(doc, text);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

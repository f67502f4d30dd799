// bash tool against GNU on the same 10,000-file / ~20 MB tree: `grep -rn <literal>`,
// `grep -rnE <regex without a literal>`, `find / -name '*.md'`. Wall time of the tool call over
// HTTP (median of N) against GNU on a temp dir (median of N), in the same run.
// Run: npm run bench:bash [-- --write-docs] [--runs 5]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';

const RUNS = Number(process.argv.includes('--runs') ? process.argv[process.argv.indexOf('--runs') + 1] : 5);
// The tree: 10,000 files of ~2 KB in 100 directories, the same generator and seed bench:search uses.
import { DIRS, FILES, makeTree } from './search-corpus.mjs';
import { freePort } from './server-process.mjs';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'afs-bashbench-'));
  const children = [];
  try {
    const files = makeTree();
    const total = files.reduce((n, f) => n + f.content.length, 0);
    // GNU side
    const gnuRoot = join(work, 'gnu');
    for (const f of files) {
      mkdirSync(join(gnuRoot, f.path.split('/').slice(0, -1).join('/')), { recursive: true });
      writeFileSync(join(gnuRoot, f.path), f.content);
    }
    // Service side: load the tree straight into the store in large changesets (fast setup).
    const dataDir = join(work, 'data');
    const { SqliteStore } = await import('../dist/src/store/sqlite.js');
    const store = new SqliteStore({ dataDir, synchronous: 'normal' });
    await store.migrate();
    await store.close();
    const port = await freePort();
    const server = spawn(process.execPath, ['dist/src/server.js'], {
      env: {
        ...process.env,
        PORT: String(port),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        BASH_TIMEOUT_MS: '120000',
        BASH_MAX_OUTPUT_BYTES: String(8 * 1024 * 1024),
      },
      stdio: 'ignore',
    });
    children.push(server);
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/readyz`)).ok) break;
      } catch {
        /* not listening yet */
      }
      if (i > 300) throw new Error('server did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
    const reg = await (await fetch(`${base}/api/users/register`, { method: 'POST', body: JSON.stringify({ name: 'bashbench' }) })).json();
    const call = async (tool, body) => {
      const res = await fetch(`${base}/api/tools/${tool}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${reg.apiKey}` },
        body: JSON.stringify(body),
      });
      const inner = JSON.parse((await res.json()).content[0].text);
      if (!inner.success) throw new Error(`${tool}: ${JSON.stringify(inner).slice(0, 300)}`);
      return inner;
    };
    const loader = new SqliteStore({ dataDir, synchronous: 'normal' });
    const { commitTree } = await import('./common.mjs');
    await commitTree(loader, reg.id, files);
    await loader.close();

    // A second agent reads the same tree through a share (/shared/bashbench/t): same work, one more hop.
    const reader = await (await fetch(`${base}/api/users/register`, { method: 'POST', body: JSON.stringify({ name: 'bashreader' }) })).json();
    await call('share', { path: '/t', with: reader.slug, permission: 'read' });
    const mounted = `/shared/${reg.slug}/t`;
    const cases = [
      { name: 'grep -rn <literal>', ours: 'grep -rn needle /t', gnu: 'grep -rn needle .', target: 3 },
      { name: 'grep -rn <literal> through /shared', ours: `grep -rn needle ${mounted}`, gnu: 'grep -rn needle .', target: 3, key: reader.apiKey },
      { name: 'grep -rnE <regex, no literal>', ours: "grep -rnE 'ne+dle|zq[0-9]' /t", gnu: "grep -rnE 'ne+dle|zq[0-9]' .", target: 10 },
      { name: "find / -name '*.md'", ours: "find / -name '*.md'", gnu: "find . -name '*.md'", target: 5 },
      { name: "find /shared -name '*.md'", ours: "find /shared -name '*.md'", gnu: "find . -name '*.md'", target: 5, key: reader.apiKey },
    ];
    const callAs = async (key, tool, body) => {
      const res = await fetch(`${base}/api/tools/${tool}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      });
      const inner = JSON.parse((await res.json()).content[0].text);
      if (!inner.success) throw new Error(`${tool}: ${JSON.stringify(inner).slice(0, 300)}`);
      return inner;
    };
    const rows = [];
    for (const c of cases) {
      const run = (body) => (c.key ? callAs(c.key, 'bash', body) : call('bash', body));
      await run({ command: c.ours }); // warm
      const ours = [];
      let outLines = 0;
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now();
        const r = await run({ command: c.ours });
        ours.push(performance.now() - t);
        outLines = r.stdout.split('\n').length - 1;
      }
      const gnu = [];
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now();
        spawnSync('bash', ['-c', c.gnu], { cwd: gnuRoot, env: { ...process.env, LC_ALL: 'C' }, stdio: 'ignore' });
        gnu.push(performance.now() - t);
      }
      const ratio = median(ours) / median(gnu);
      rows.push([
        c.name,
        outLines,
        median(ours).toFixed(0),
        median(gnu).toFixed(0),
        `${ratio.toFixed(1)}×`,
        `≤${c.target}×`,
        ratio <= c.target ? 'PASS' : 'MISS',
      ]);
    }
    // Per-call overhead: bash {cat /one.txt} vs read, sequential latency (the throughput ratio is in npm run bench).
    await call('write', { path: '/one.txt', content: 'x'.repeat(1024) });
    const lat = async (tool, body) => {
      const xs = [];
      for (let i = 0; i < 200; i++) {
        const t = performance.now();
        await call(tool, body);
        xs.push(performance.now() - t);
      }
      return median(xs);
    };
    const readMs = await lat('read', { path: '/one.txt' });
    const catMs = await lat('bash', { command: 'cat /one.txt' });
    const table = [
      `Tree: ${FILES} files in ${DIRS} directories, ${(total / 1e6).toFixed(1)} MB. Median of ${RUNS} runs each; ours = wall time of the bash tool call over HTTP (SQLite), GNU = \`bash -c\` on the same tree in a temp dir (warm page cache). Machine: ${cpus()[0]?.model}, ${cpus().length} cores, Node ${process.version}.`,
      '',
      '| command | output lines | ours ms | GNU ms | ratio | target | result |',
      '|---|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.join(' | ')} |`),
      '',
      `Sequential latency, median of 200: read of a 1 KB file ${readMs.toFixed(2)} ms; bash \`cat /one.txt\` ${catMs.toFixed(2)} ms.`,
    ].join('\n');
    console.log(table);
    if (process.argv.includes('--write-docs')) {
      const doc = 'docs/benchmarks.md';
      const start = '<!-- bash:auto:start -->';
      const end = '<!-- bash:auto:end -->';
      const section = `${start}\n<!-- generated by bench/bash.mjs --write-docs -->\n\nMeasured ${new Date().toISOString()}.\n\n${table}\n${end}`;
      let text = existsSync(doc) ? readFileSync(doc, 'utf8') : '# Benchmarks\n';
      text = text.includes(start)
        ? text.replace(new RegExp(`${start}[\\s\\S]*${end}`), section)
        : `${text.trimEnd()}\n\n## bash against GNU\n\n${section}\n`;
      writeFileSync(doc, text);
    }
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

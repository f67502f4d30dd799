// Helpers the benchmarks share: a seedable generator, the commit they report, tool calls over
// HTTP, registration, and a tree committed straight through the store (the only part that needs
// the build: imported when used, so `node bench/run.mjs --help` works before `npm run build`).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** mulberry32: the same sequence for a seed on every run and both backends. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The commit measured, marked when src/ has uncommitted changes. */
/** The middle value (the mean of the two middle ones for an even count). */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export function gitRev() {
  try {
    const git = (...args) =>
      execFileSync('git', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim();
    const rev = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--', 'src') ? `${rev} (with uncommitted changes in src/)` : rev;
  } catch {
    return 'no commit';
  }
}

/** One tool call: its inner result and wall time; a tool error throws. */
export async function callTool(base, key, tool, input, timeoutMs = 600_000) {
  const t = performance.now();
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(Object.assign(new Error(`${tool}: over ${timeoutMs} ms`), { name: 'TimeoutError' })), timeoutMs);
  let inner;
  try {
    const res = await fetch(`${base}/api/tools/${tool}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
      signal: ac.signal,
    });
    inner = JSON.parse((await res.json()).content[0].text);
  } finally {
    clearTimeout(timer);
  }
  const ms = performance.now() - t;
  if (!inner.success) throw new Error(`${tool} ${JSON.stringify(input)}: ${JSON.stringify(inner.error ?? inner)}`);
  return { ms, inner };
}

/** A new agent: { id, slug, apiKey, … }. */
export async function register(base, name) {
  const res = await fetch(`${base}/api/users/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  if (res.status !== 201) throw new Error(`register: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

/**
 * Commits `files` ([{ path, content }]) into an agent's tree through the store, 500 files a
 * changeset, under their directories (made first, with `root`): as a big upload would.
 */
export async function commitTree(store, agentId, files, root = '/t') {
  const { contentHash, countLines } = await import('../dist/src/core/text.js');
  const { newId } = await import('../dist/src/core/keys.js');
  const base = { agentId, keyId: 'bench', keyLabel: 'bench', tool: 'bench', quotaBytes: 1e12 };
  const dirs = [root, ...new Set(files.map((f) => path.posix.dirname(f.path)))];
  await store.commit({
    ...base,
    changes: dirs.map((d) => ({ path: d, expectVersion: 0, op: 'create', state: { kind: 'dir', fileId: newId('f') } })),
  });
  for (let i = 0; i < files.length; i += 500) {
    const changes = files.slice(i, i + 500).map((f) => {
      const bytes = Buffer.from(f.content);
      return {
        path: f.path,
        expectVersion: 0,
        op: 'create',
        state: { kind: 'file', blob: { hash: contentHash(bytes), size: bytes.length, bytes }, lines: countLines(f.content), fileId: newId('f') },
      };
    });
    await store.commit({ ...base, changes });
  }
}

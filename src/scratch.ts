/**
 * A throwaway service for the reference's real runs (docs/examples.ts): a SQLite store in a temp
 * directory, one bash worker, and agents made as registration makes them but with fixed slugs and
 * no registration limit, called in-process through the same dispatch as HTTP. Built by the build
 * (scripts/gen-reference.mjs) and, only when its settings differ from the build's, by a server
 * (http/reference.ts); the docs code that runs the examples is handed it.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BashPool } from './sandbox/pool.js';
import { AgentSlots } from './sandbox/slots.js';
import type { Config } from './config.js';
import type { Scratch, WithScratch } from './docs/examples.js';
import { SqliteStore } from './store/sqlite.js';
import { createAccount } from './tools/accounts.js';
import { KeyedQueue, type DispatchDeps } from './tools/dispatch.js';
import type { AuthContext, ToolRegistry } from './tools/registry.js';

async function scratchAgent(store: SqliteStore, name: string, slug: string): Promise<AuthContext> {
  const made = await createAccount(store, { name, slug, used: true });
  return {
    keyId: made.key.id,
    label: made.key.label,
    agentId: made.id,
    agentSlug: slug,
    agentName: name,
    scopes: made.key.scopes,
    folder: null,
    expiresAtMs: null,
    revokedAtMs: null,
  };
}

/** A scratch directory not named after a process (made before names carried one) is stale after this. */
const UNNAMED_STALE_MS = 60 * 60 * 1000;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Removes the scratch directories of `prefix` left by processes that are gone (a server killed
 * while it generated its reference files leaves its directory behind; each holds a SQLite store).
 * A directory is named `{prefix}{pid}-{random}`: one whose process still runs is in use.
 */
export function sweepScratch(prefix: string, root = tmpdir()): number {
  let removed = 0;
  for (const name of readdirSync(root)) {
    if (!name.startsWith(prefix)) continue;
    const pid = /^(\d+)-/.exec(name.slice(prefix.length))?.[1];
    const path = join(root, name);
    try {
      const stale = pid ? Number(pid) !== process.pid && !alive(Number(pid)) : Date.now() - statSync(path).mtimeMs > UNNAMED_STALE_MS;
      if (!stale) continue;
      rmSync(path, { recursive: true, force: true });
      removed++;
    } catch {
      // Gone meanwhile, or not ours to remove: left alone.
    }
  }
  return removed;
}

export async function withScratch<T>(registry: ToolRegistry, config: Config, prefix: string, fn: (s: Scratch) => Promise<T>): Promise<T> {
  sweepScratch(prefix);
  const dir = mkdtempSync(join(tmpdir(), `${prefix}${process.pid}-`));
  const store = new SqliteStore({ dataDir: dir, synchronous: 'normal' });
  const bash = new BashPool(1, {
    databaseUrl: undefined,
    dataDir: dir,
    sqliteSynchronous: 'normal',
    sqliteBusyTimeoutMs: config.sqliteBusyTimeoutMs,
  });
  try {
    await store.migrate();
    // The rate window is live state; the reference shows the window of a key that made one call.
    const rateWindow = () => ({
      limit: config.rateLimitPerMinute,
      used: 1,
      remaining: config.rateLimitPerMinute - 1,
      resetAtMs: Date.now() + 60_000,
    });
    const deps: DispatchDeps = { registry, store, config, bash, rateWindow, mutations: new KeyedQueue(), bashSlots: new AgentSlots() };
    return await fn({ store, deps, agent: (name, slug) => scratchAgent(store, name, slug) });
  } finally {
    await bash.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The scratch service the reference's examples run on, for these settings (docs/prebuilt.ts, http/reference.ts). */
export function examplesScratch(registry: ToolRegistry, config: Config): WithScratch {
  return (fn) => withScratch(registry, config, 'afs-examples-', fn);
}

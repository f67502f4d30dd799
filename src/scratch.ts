/**
 * A throwaway service for the reference's real runs (examples.ts, heartbeat-run.ts): a SQLite
 * store in a temp directory, one bash worker, and agents made directly in the store (no
 * registration limit, fixed slugs), called in-process through the same dispatch as HTTP.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BashPool } from '../sandbox/pool.js';
import { AgentSlots } from '../sandbox/slots.js';
import type { Config } from '../config.js';
import { generateApiKey, hashApiKey, keyPreview, newId } from '../core/keys.js';
import { PRESETS } from '../core/scopes.js';
import { SqliteStore } from '../store/sqlite.js';
import { KeyedQueue, type DispatchDeps } from '../tools/dispatch.js';
import type { AuthContext, ToolRegistry } from '../tools/registry.js';

export interface Scratch {
  store: SqliteStore;
  deps: DispatchDeps;
  /** A new agent with a full key, as registration would make it. */
  agent(name: string, slug: string): Promise<AuthContext>;
}

async function scratchAgent(store: SqliteStore, name: string, slug: string): Promise<AuthContext> {
  const now = Date.now();
  const agentId = newId('agt');
  const key = generateApiKey();
  const keyId = newId('key');
  await store.createAgent(
    { id: agentId, name, slug, createdAtMs: now, storageBytes: 0 },
    {
      id: keyId,
      agentId,
      hash: hashApiKey(key),
      label: 'default',
      scopes: PRESETS.full!,
      folder: null,
      preview: keyPreview(key),
      createdAtMs: now,
      lastUsedAtMs: now,
      expiresAtMs: null,
      revokedAtMs: null,
      createdByKeyId: null,
    },
  );
  return {
    keyId,
    label: 'default',
    agentId,
    agentSlug: slug,
    agentName: name,
    scopes: PRESETS.full!,
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

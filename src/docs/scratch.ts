/**
 * A throwaway service for the reference's real runs (examples.ts, heartbeat-run.ts): a SQLite
 * store in a temp directory, one bash worker, and agents made directly in the store (no
 * registration limit, fixed slugs), called in-process through the same dispatch as HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
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

export async function withScratch<T>(registry: ToolRegistry, config: Config, prefix: string, fn: (s: Scratch) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
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

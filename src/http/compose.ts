/**
 * The composition root: the parts of an app that hold state or resources (bash workers, the
 * rate limiter, the key cache, the mutation queue, bash's per-agent counter), built once per
 * app and handed to the plugins. Nothing of this lives at module level, so two apps in one
 * process (tests do that) share nothing but the store they are given.
 */
import { AgentSlots } from '../sandbox/slots.js';
import { BashPool } from '../sandbox/pool.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Store } from '../store/types.js';
import { KeyedQueue, type DispatchDeps } from '../tools/dispatch.js';
import type { ToolRegistry } from '../tools/registry.js';
import { createMetrics, type Metrics } from './metrics.js';
import { Authenticator } from './auth.js';
import { RateLimiter } from './rate-limit.js';
import { startSearchIndexer } from '../tools/search-indexer.js';

export interface AppParts {
  config: Config;
  store: Store;
  registry: ToolRegistry;
  auth: Authenticator;
  limiter: RateLimiter;
  /** GET /metrics' counters (metrics.ts); the transports count every tool call through it. */
  metrics: Metrics;
  /** What the tools run with (store, bash pool, queue, counters, the limiter's window). */
  deps: DispatchDeps;
  close(): Promise<void>;
}

export function composeParts(config: Config, store: Store, registry: ToolRegistry, log: FastifyBaseLogger): AppParts {
  const auth = new Authenticator(store, config.baseUrl);
  const limiter = new RateLimiter(store, config.rateLimitPerMinute);
  const bash = new BashPool(
    config.bashWorkers,
    {
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      sqliteSynchronous: config.sqliteSynchronous,
      sqliteBusyTimeoutMs: config.sqliteBusyTimeoutMs,
      blobStore: config.blobStore,
    },
    config.bashCacheBytes,
    { timeoutMs: config.bashTimeoutMs, maxCommands: config.bashMaxCommands },
  );
  const deps: DispatchDeps = {
    registry,
    store,
    config,
    bash,
    mutations: new KeyedQueue(),
    bashSlots: new AgentSlots(),
    onKeysChanged: () => auth.forget(),
    rateWindow: (agentId) => limiter.peek(agentId),
    logError: (obj, msg) => log.error(obj, msg),
  };
  // Each process drains the search outbox; the store lets one at a time per database do it.
  const indexer = startSearchIndexer(store, config, (err) => log.warn({ err }, 'search indexing failed; retrying at the next interval'));
  const metrics = createMetrics({ registry, store, bash });
  return {
    config,
    store,
    registry,
    auth,
    limiter,
    metrics,
    deps,
    async close() {
      metrics.close();
      limiter.close();
      await indexer.stop();
      await bash.close();
    },
  };
}

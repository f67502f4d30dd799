/**
 * GET /metrics in Prometheus' text format (prom-client), one registry per app (a test process
 * runs many apps). Labels are bounded by construction: tool names from the registry ('unknown'
 * otherwise), outcomes from the error catalogue, routes as Fastify's patterns, never a path, an
 * agent id or a key. When METRICS_TOKEN is set the endpoint needs it as a Bearer token.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import client from 'prom-client';
import type { BashPool } from '../sandbox/pool.js';
import { ToolError, TransportError } from '../core/errors.js';
import type { Store } from '../store/types.js';
import type { ToolOutcome } from '../tools/dispatch.js';
import type { ToolRegistry } from '../tools/registry.js';
import { errorBody } from './envelope.js';

/** Seconds: tool calls run from ~100 µs (a read) to the bash timeout. */
const CALL_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const COMMIT_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

export type Transport = 'rest' | 'mcp';

export interface Metrics {
  readonly registry: client.Registry;
  /** Runs one tool call, counting it by tool, outcome (ok or the error code) and transport. */
  toolCall(transport: Transport, tool: string, run: () => Promise<ToolOutcome>): Promise<ToolOutcome>;
  /** A finished HTTP request (every route). */
  request(route: string, method: string, status: number, seconds: number): void;
  close(): void;
}

/**
 * The process's own metrics (event-loop lag, heap, GC, handles, CPU, memory): one set per process,
 * however many apps it runs (a test process runs hundreds; each set samples the event loop).
 */
let processRegistry: client.Registry | null = null;
function processMetrics(): client.Registry {
  if (!processRegistry) {
    processRegistry = new client.Registry();
    client.collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: 10 });
  }
  return processRegistry;
}

export function createMetrics(deps: { registry: ToolRegistry; store: Store; bash: BashPool }): Metrics {
  const registry = new client.Registry();
  const known = new Set(deps.registry.names());
  const toolLabel = (name: string) => (known.has(name) ? name : 'unknown');
  // Registered in this order, which is the order /metrics lists them in.
  const { calls, callSeconds, inFlight } = callMetrics(registry);
  const { requests, requestSeconds, rateLimited } = requestMetrics(registry);
  observeCommits(registry, deps.store);
  workerGauges(registry, deps);

  const finish = (transport: Transport, tool: string, outcome: string, started: number) => {
    const t = toolLabel(tool);
    calls.inc({ tool: t, outcome, transport });
    callSeconds.observe({ tool: t, outcome }, (performance.now() - started) / 1000);
    if (outcome === 'RATE_LIMITED' && transport === 'mcp') rateLimited.inc({ kind: 'tool' });
  };

  return {
    registry,
    async toolCall(transport, tool, run) {
      const started = performance.now();
      inFlight.inc();
      try {
        const outcome = await run();
        finish(transport, tool, outcome.ok ? 'ok' : outcome.error.code, started);
        return outcome;
      } catch (err) {
        finish(transport, tool, err instanceof ToolError || err instanceof TransportError ? err.code : 'INTERNAL', started);
        throw err;
      } finally {
        inFlight.dec();
      }
    },
    request(route, method, status, seconds) {
      requests.inc({ route, method, status: String(status) });
      requestSeconds.observe({ route }, seconds);
      if (status === 429) rateLimited.inc({ kind: route === '/api/users/register' ? 'register' : 'tool' });
    },
    close() {
      deps.store.observe(null);
      registry.clear();
    },
  };
}

/** Tool calls: how many by outcome, how long, how many running. */
function callMetrics(registry: client.Registry) {
  const calls = new client.Counter({
    name: 'afs_tool_calls_total',
    help: 'Tool calls by tool, outcome (ok or the error code) and transport (rest, mcp).',
    labelNames: ['tool', 'outcome', 'transport'],
    registers: [registry],
  });
  const callSeconds = new client.Histogram({
    name: 'afs_tool_call_duration_seconds',
    help: 'Tool call latency inside the server (dispatch to result), by tool and outcome.',
    labelNames: ['tool', 'outcome'],
    buckets: CALL_BUCKETS,
    registers: [registry],
  });
  const inFlight = new client.Gauge({ name: 'afs_tool_calls_in_flight', help: 'Tool calls running now.', registers: [registry] });
  return { calls, callSeconds, inFlight };
}

/** HTTP requests by route, their latency, and the calls a rate limit refused. */
function requestMetrics(registry: client.Registry) {
  const requests = new client.Counter({
    name: 'afs_http_requests_total',
    help: 'HTTP requests by route pattern, method and status.',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
  });
  const requestSeconds = new client.Histogram({
    name: 'afs_http_request_duration_seconds',
    help: 'HTTP request latency by route pattern.',
    labelNames: ['route'],
    buckets: CALL_BUCKETS,
    registers: [registry],
  });
  const rateLimited = new client.Counter({
    name: 'afs_rate_limit_rejections_total',
    help: 'Calls refused by a rate limit: tool calls (REST 429 and MCP calls), registrations.',
    labelNames: ['kind'],
    registers: [registry],
  });
  return { requests, requestSeconds, rateLimited };
}

/** The store's write transactions (duration and size), as it reports each one it committed. */
function observeCommits(registry: client.Registry, store: Store): void {
  const commits = new client.Histogram({
    name: 'afs_store_commit_duration_seconds',
    help: 'Write transactions: SQLite group-commit batches (statements and COMMIT), PostgreSQL commits.',
    buckets: COMMIT_BUCKETS,
    registers: [registry],
  });
  const batchSizes = new client.Histogram({
    name: 'afs_store_commit_batch_size',
    help: 'Writes per committed transaction (SQLite group commit; always 1 on PostgreSQL).',
    buckets: BATCH_BUCKETS,
    registers: [registry],
  });
  store.observe({
    committed(size, seconds) {
      commits.observe(seconds);
      batchSizes.observe(size);
    },
  });
}

/** Gauges read when scraped: bash workers and their queue, the PostgreSQL pool. */
function workerGauges(registry: client.Registry, deps: { store: Store; bash: BashPool }): void {
  new client.Gauge({
    name: 'afs_bash_workers',
    help: "bash worker threads by state (busy, idle, starting: running their warm-up; standby: a loaded thread kept to take the reserve worker's place, 0 or 1).",
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const s = deps.bash.stats();
      this.set({ state: 'busy' }, s.busy);
      this.set({ state: 'idle' }, s.workers - s.busy - s.starting);
      this.set({ state: 'starting' }, s.starting);
      this.set({ state: 'standby' }, s.standby);
    },
  });
  new client.Gauge({
    name: 'afs_bash_queue_length',
    help: 'bash commands waiting for a worker (all agents).',
    registers: [registry],
    collect() {
      this.set(deps.bash.stats().queued);
    },
  });
  new client.Gauge({
    name: 'afs_pg_pool_connections',
    help: 'PostgreSQL pool connections by state (total, idle, waiting = requests waiting for one); absent on SQLite.',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const p = deps.store.poolStats();
      if (!p) return;
      for (const [state, n] of Object.entries(p)) this.set({ state }, n);
    },
  });
  // Read replicas (DATABASE_READ_URLS), labelled by their position in that list (URLs may hold credentials).
  const replicas = () => deps.store.replicaStats?.() ?? [];
  new client.Gauge({
    name: 'afs_pg_replica_reads',
    help: 'Reads served by each PostgreSQL read replica since start; absent without replicas.',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      replicas().forEach((r, i) => this.set({ replica: String(i) }, r.reads));
    },
  });
  new client.Gauge({
    name: 'afs_pg_replica_lag_ms',
    help: 'How far each read replica replays behind the primary (ms; -1 while it fails and is skipped).',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      replicas().forEach((r, i) => this.set({ replica: String(i) }, r.healthy && r.lagMs !== null ? r.lagMs : -1));
    },
  });
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** GET /metrics, and the hook that counts every request (registered on the root app). */
export function metricsRoutes(app: FastifyInstance, metrics: Metrics, token: string | undefined): void {
  app.addHook('onResponse', async (req, reply) => {
    metrics.request(req.routeOptions.url ?? 'unmatched', req.method, reply.statusCode, reply.elapsedTime / 1000);
  });
  app.get('/metrics', async (req, reply) => {
    if (token !== undefined && !tokenMatches(req.headers.authorization, token)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send(errorBody('UNAUTHORIZED', 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>" (the token this server was started with).'));
    }
    const all = client.Registry.merge([processMetrics(), metrics.registry]);
    return reply.type(metrics.registry.contentType).send(await all.metrics());
  });
}

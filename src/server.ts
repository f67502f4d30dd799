/**
 * Entry point: validate settings, open the store, migrate, serve; on SIGTERM/SIGINT stop
 * accepting, let in-flight calls finish, close the store. With WORKERS > 1 the primary
 * migrates once and forks that many identical, stateless server processes sharing the port.
 */
import cluster from 'node:cluster';
import type { FastifyBaseLogger } from 'fastify';
import { ConfigError, loadConfig, type Config } from './config.js';
import { SERVICE_VERSION } from './version.js';
import { buildApp } from './http/app.js';
import { startIdempotencyPruning, startObjectSweep, startPacking, startPlannerStats } from './store/maintenance.js';
import { banner, chooseLogFormat, dataLocation, prettyStream } from './http/log-format.js';
import { openStore } from './store/open.js';
import type { Store } from './store/types.js';
import { buildRegistry } from './tools/index.js';

function fatal(message: string): never {
  process.stderr.write(`agent-file-service: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  // bash commands print times (date, ls -l, stat) in UTC whatever the host's zone, as the
  // reference documents. just-bash's date reads the process's zone, which is process-wide (a
  // worker thread cannot have its own): set once here, before any worker starts.
  process.env.TZ = 'UTC';
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fatal(`invalid configuration: ${err.message}`);
    throw err;
  }

  const store = openStore(config);
  if (cluster.isPrimary) {
    try {
      await store.migrate();
    } catch (err) {
      fatal(`cannot prepare the ${store.kind} store: ${(err as Error).message}`);
    }
    if (config.workers > 1) {
      await store.close();
      return runPrimary(config);
    }
  }

  const tty = process.stdout.isTTY === true;
  const format = chooseLogFormat(config.logFormat, tty);
  const logStream = format === 'pretty' ? prettyStream(process.stdout, { color: tty }) : undefined;
  const app = buildApp({ config, store, registry: buildRegistry(), logStream });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await store.close().catch(() => {});
    fatal(`cannot listen on ${config.host}:${config.port}: ${(err as Error).message}`);
  }
  const data = dataLocation(config);
  if (format === 'json') app.log.info({ store: store.kind, baseUrl: config.baseUrl, data }, 'agent-file-service ready');
  // With WORKERS > 1 the primary prints the banner once.
  else if (cluster.isPrimary) process.stdout.write(banner({ version: SERVICE_VERSION, baseUrl: config.baseUrl, store: store.kind, data }));
  // The bash threads start now, off the event loop: the first bash call does not wait for them.
  app.warmBash();
  const upkeep = startUpkeep(store, config, app.log);
  // Generate the reference files now (they run every tool's examples) rather than on the first fetch.
  app.warmReference().catch((err: Error) => app.log.error({ err }, 'reference files'));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight calls');
    const force = setTimeout(() => {
      app.log.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    // Connections that finish their last request during shutdown would otherwise linger in
    // keep-alive and hold close() open: drop each as soon as it goes idle.
    const reaper = setInterval(() => app.server.closeIdleConnections(), 50);
    reaper.unref();
    try {
      await app.close();
      await upkeep.stop();
      await store.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** The serving process's background upkeep of the store: pruning, packing, the object sweep, planner statistics. */
function startUpkeep(store: Store, config: Config, log: FastifyBaseLogger): { stop(): Promise<void> } {
  const pruning = startIdempotencyPruning(store, {
    intervalMs: config.idempotencyPruneIntervalMs,
    onError: (err) => log.warn({ err }, 'pruning expired idempotency rows failed; retrying at the next interval'),
  });
  const packing =
    config.packIntervalMs > 0
      ? startPacking(store, {
          intervalMs: config.packIntervalMs,
          onError: (err) => log.warn({ err }, 'packing old versions failed; retrying at the next interval'),
        })
      : null;
  const blobs = config.blobStore;
  const sweep =
    blobs && blobs.sweepIntervalMs > 0
      ? startObjectSweep(store, {
          intervalMs: blobs.sweepIntervalMs,
          graceMs: blobs.sweepGraceMs,
          onError: (err) => log.warn({ err }, 'sweeping unreferenced objects failed; retrying at the next interval'),
        })
      : null;
  const stats =
    store.kind === 'postgres' && config.plannerStatsIntervalMs > 0
      ? startPlannerStats(store, {
          intervalMs: config.plannerStatsIntervalMs,
          onAnalyzed: (tables) => log.debug({ tables }, 'analyzed for the planner'),
          onError: (err) => log.warn({ err }, 'refreshing planner statistics failed; retrying at the next interval'),
        })
      : null;
  return {
    async stop() {
      await pruning.stop();
      await packing?.stop();
      await sweep?.stop();
      await stats?.stop();
    },
  };
}

/** Forks the workers, restarts one that dies unexpectedly, and relays shutdown signals. */
function runPrimary(config: Config): void {
  let stopping = false;
  const fork = () => cluster.fork();
  for (let i = 0; i < config.workers; i++) fork();
  if (chooseLogFormat(config.logFormat, process.stdout.isTTY === true) === 'pretty') {
    cluster.once('listening', () => {
      const store = config.databaseUrl ? 'postgres' : 'sqlite';
      process.stdout.write(banner({ version: SERVICE_VERSION, baseUrl: config.baseUrl, store, data: dataLocation(config), workers: config.workers }));
    });
  }
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    process.stderr.write(`agent-file-service: worker ${worker.process.pid} exited (${signal ?? code}); starting another\n`);
    setTimeout(fork, 200);
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(signal);
    setTimeout(() => process.exit(1), config.shutdownTimeoutMs + 1000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => fatal((err as Error).message));

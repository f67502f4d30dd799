/** Opens the store the settings name: PostgreSQL when DATABASE_URL is set, else SQLite in DATA_DIR. */
import type { Config } from '../config.js';
import { PostgresStore } from './postgres.js';
import { SqliteStore } from './sqlite.js';
import type { Store } from './types.js';

/**
 * `reader`: a bash worker's store, which only reads (its SQLite connection is the 'bash' role of
 * sqlite-connection.ts) and leaves WAL checkpoints to the serving process's background checkpointer.
 */
export function openStore(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'sqliteSynchronous' | 'pgPoolSize'> &
    Partial<Pick<Config, 'sqliteBusyTimeoutMs' | 'databaseReadUrls' | 'replicaMaxLagMs' | 'replicaPollMs'>>,
  opts: { reader?: boolean } = {},
): Store {
  if (config.databaseUrl) {
    // Replicas serve the read-only tools of a serving process; a bash worker reads the primary.
    const urls = opts.reader ? [] : (config.databaseReadUrls ?? []);
    const replicas = urls.length ? { urls, maxLagMs: config.replicaMaxLagMs ?? 1000, pollMs: config.replicaPollMs ?? 50 } : undefined;
    return new PostgresStore({ connectionString: config.databaseUrl, poolSize: config.pgPoolSize, replicas });
  }
  return new SqliteStore({
    dataDir: config.dataDir,
    synchronous: config.sqliteSynchronous,
    busyTimeoutMs: config.sqliteBusyTimeoutMs,
    backgroundCheckpoint: !opts.reader,
    role: opts.reader ? 'bash' : 'serving',
  });
}

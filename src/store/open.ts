/**
 * Opens the store the settings name: PostgreSQL when DATABASE_URL is set, else SQLite in DATA_DIR;
 * with BLOB_STORE, big contents' bytes in object storage (store/blob-objects.ts).
 */
import type { Config } from '../config.js';
import { registerBlobObjects, uploadBeforeCommit, withCache } from './blob-objects.js';
import { openS3Objects } from './blob-objects-s3.js';
import { PostgresStore } from './postgres.js';
import { SqliteStore } from './sqlite.js';
import type { Store } from './types.js';

/**
 * `reader`: a bash worker's store, which only reads (its SQLite connection is the 'bash' role of
 * sqlite-connection.ts) and leaves WAL checkpoints to the serving process's background checkpointer.
 */
/** Objects kept in memory per process (a bash worker keeps its own contents besides: sandbox/blob-cache.ts). */
const OBJECT_CACHE_BYTES = 32 * 1024 * 1024;

export function openStore(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'sqliteSynchronous' | 'pgPoolSize'> &
    Partial<Pick<Config, 'sqliteBusyTimeoutMs' | 'blobStore' | 'databaseReadUrls' | 'replicaMaxLagMs' | 'replicaPollMs'>>,
  opts: { reader?: boolean } = {},
): Store {
  const store = openBackend(config, opts);
  if (config.blobStore) {
    // Contents above the inline threshold go to object storage (store/blob-objects.ts).
    const objects = withCache(openS3Objects(config.blobStore), OBJECT_CACHE_BYTES);
    registerBlobObjects(objects);
    uploadBeforeCommit(store, objects);
    const close = store.close.bind(store);
    store.close = async () => {
      await close();
      objects.close();
    };
  }
  return store;
}

function openBackend(config: Parameters<typeof openStore>[0], opts: { reader?: boolean }): Store {
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

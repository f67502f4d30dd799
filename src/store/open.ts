import type { Config } from '../config.js';
import { PostgresStore } from './postgres.js';
import { SqliteStore } from './sqlite.js';
import type { Store } from './types.js';

export function openStore(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'sqliteSynchronous' | 'pgPoolSize'>): Store {
  if (config.databaseUrl) return new PostgresStore({ connectionString: config.databaseUrl, poolSize: config.pgPoolSize });
  return new SqliteStore({ dataDir: config.dataDir, synchronous: config.sqliteSynchronous });
}

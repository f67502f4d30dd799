/**
 * Every SQLite connection of the service is opened here, by role (docs/sqlite-connections.md): the
 * serving connection, its reader, indexer, bulk-writer and checkpointer threads, and each bash
 * worker's. What every connection must agree on (foreign keys, the SQL functions queries call,
 * durability, the temp store) is set once for all; what differs by role (read-only, how long it may
 * wait for the write lock, its page cache, who checkpoints) is the table below.
 */
import Database from 'better-sqlite3';

export type SqliteRole = 'serving' | 'reader' | 'indexer' | 'bulk-writer' | 'checkpointer' | 'bash';

/** What every role's connection is opened with: the serving store's settings, passed to each thread. */
export interface ConnectionSettings {
  file: string;
  synchronous: 'normal' | 'full';
  /** How long a thread of its own may wait for the write lock (SQLITE_BUSY after it). */
  busyTimeoutMs: number;
}

/** The connection's page cache, in KiB (PRAGMA cache_size takes a negative number for KiB). */
export const PAGE_CACHE_KIB = 64 * 1024;
/** WAL pages after which the committing connection checkpoints by itself. */
export const AUTOCHECKPOINT_PAGES = 4000;

interface RolePolicy {
  readonly: boolean;
  /**
   * 'setting': waits up to busyTimeoutMs, blocking only its own thread. 0: never waits in SQLite.
   * The serving connection runs on the event loop: SQLite's busy handler would sleep there (1, 2,
   * 5, 10 … ms at a time) and stall every request, so its group commit polls for the lock from the
   * event loop instead (sqlite.ts flushCommits). The checkpointer never waits for anyone.
   */
  busy: 'setting' | 0;
  /**
   * KiB. SQLite's default page cache is 2 MB: a search over 6,000 matching posts then read each
   * row from the OS page cache (24 ms) instead of memory (8 ms; docs/benchmarks.md, "Search").
   * Pages are allocated as used, so a small database costs no more. null: SQLite's default.
   */
  cacheKib: number | null;
  /** WAL pages after which a commit on this connection checkpoints; 0: never (it does so itself, after answering). */
  autocheckpoint: number | null;
}

export const ROLES: Readonly<Record<SqliteRole, RolePolicy>> = {
  // Each file write touches ~10 pages; checkpointing every 4,000 pages instead of 1,000 cuts the
  // checkpoint fsyncs on the write path by 4× (measured: ~250 → ~185 µs per commit). With the
  // background checkpointer running, sqlite.ts raises it to a safety net.
  serving: { readonly: false, busy: 0, cacheKib: PAGE_CACHE_KIB, autocheckpoint: AUTOCHECKPOINT_PAGES },
  reader: { readonly: true, busy: 'setting', cacheKib: PAGE_CACHE_KIB, autocheckpoint: null },
  indexer: { readonly: false, busy: 'setting', cacheKib: PAGE_CACHE_KIB, autocheckpoint: null },
  // Checkpoints are run by the thread after a big commit is answered, never inside one.
  'bulk-writer': { readonly: false, busy: 'setting', cacheKib: null, autocheckpoint: 0 },
  checkpointer: { readonly: false, busy: 0, cacheKib: null, autocheckpoint: null },
  // Bash workers read the store; the serving thread commits what a command changes.
  bash: { readonly: true, busy: 'setting', cacheKib: PAGE_CACHE_KIB, autocheckpoint: null },
};

/** SQLite's lower() folds only ASCII; list_agents finds names case-insensitively in every script (store/profiles.ts). */
function unicodeLower(s: unknown): string | null {
  return typeof s === 'string' ? s.toLowerCase() : null;
}

/**
 * The serving connection makes the file what every other connection expects: a new file is created
 * in incremental auto-vacuum mode (the setting takes effect with its first table; an older file is
 * converted once by migrate(), docs/operations.md "Disk space") and in WAL mode, which persists.
 */
function prepareFile(db: Database.Database): void {
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
}

export function openConnection(role: SqliteRole, settings: ConnectionSettings): Database.Database {
  const policy = ROLES[role];
  // Opening may wait for the lock (a process starting beside another sets WAL mode on a new file
  // while this one does); the role's own policy applies from the end of this function on.
  const db = new Database(settings.file, { readonly: policy.readonly, fileMustExist: role !== 'serving', timeout: settings.busyTimeoutMs });
  if (role === 'serving') prepareFile(db);
  db.pragma(`synchronous = ${settings.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  // better-sqlite3 builds SQLite with foreign keys on by default (its deps/defines.gypi); set
  // anyway, so that no connection's meaning rests on how the library was compiled.
  db.pragma('foreign_keys = ON');
  // Group commit puts each commit in a savepoint; its undo journal then lives in memory instead
  // of a temp file (measured: ~8% of CPU under an edit load went to that file).
  db.pragma('temp_store = MEMORY');
  if (policy.cacheKib !== null) db.pragma(`cache_size = -${policy.cacheKib}`);
  if (policy.autocheckpoint !== null) db.pragma(`wal_autocheckpoint = ${policy.autocheckpoint}`);
  db.function('unicode_lower', { deterministic: true }, unicodeLower);
  db.pragma(`busy_timeout = ${policy.busy === 'setting' ? settings.busyTimeoutMs : 0}`);
  return db;
}

/**
 * Runs `fn` letting the connection wait up to `ms` for the write lock: for the serving connection's
 * few blocking writes (migrations at start, the last flush at close), which run before or after
 * it serves.
 */
export function waitingForLock<T>(db: Database.Database, ms: number, fn: () => T): T {
  const before = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma(`busy_timeout = ${ms}`);
  try {
    return fn();
  } finally {
    db.pragma(`busy_timeout = ${before}`);
  }
}

/**
 * Worker thread that checkpoints a SQLite WAL in the background and returns the database file's
 * free pages to the file system. A checkpoint copies pages into the database file and fsyncs it
 * (~8 ms per fsync on this VM); done by the connection that commits, it stalled every request
 * behind it (measured under an edit load: p99 98 ms → 36 ms, +30% req/s with checkpoints moved
 * here). PASSIVE never waits for, nor blocks, readers or writers; what it cannot copy now it
 * copies on a later tick.
 *
 * Free pages (docs/operations.md, "Disk space"): the file is in incremental auto-vacuum mode
 * (sqlite.ts converts an older file once), so pages freed by the packer, purges and deletes stay
 * in the file until `PRAGMA incremental_vacuum` moves the last pages into them and truncates.
 * Each tick does at most `vacuumStepPages` of that in one short write transaction, only when the
 * write lock is free (busy_timeout 0: it never waits for a commit, and a commit waits for it at
 * most one step), and only once nothing was committed since the last tick: under writes, freed
 * pages are soon reused by new ones (moving them would copy the new writes twice), unless more
 * than `vacuumBusyFreePages` are free.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openConnection, type ConnectionSettings } from './sqlite-connection.js';

const { intervalMs, vacuumStepPages, vacuumMinFreePages, vacuumBusyFreePages, ...settings } = workerData as ConnectionSettings & {
  intervalMs: number;
  vacuumStepPages: number;
  vacuumMinFreePages: number;
  vacuumBusyFreePages: number;
};
const db = openConnection('checkpointer', settings);
const autoVacuum = db.prepare('PRAGMA auto_vacuum').pluck();
const freePages = db.prepare('PRAGMA freelist_count').pluck();
// Changes when another connection (in any process) commits; this one's own commits leave it.
const dataVersion = db.prepare('PRAGMA data_version').pluck();
let lastDataVersion: unknown = null;
// exec, not a prepared statement: better-sqlite3's run() steps it once, and a step moves one page.
const VACUUM_STEP = `PRAGMA incremental_vacuum(${vacuumStepPages})`;

/** 2 is INCREMENTAL; a file that is not (yet) converted has nothing to give back this way. */
function returnFreePages(): void {
  const version = dataVersion.get();
  const idle = version === lastDataVersion;
  lastDataVersion = version;
  if (autoVacuum.get() !== 2) return;
  const free = freePages.get() as number;
  if (free < vacuumMinFreePages || (!idle && free < vacuumBusyFreePages)) return;
  db.exec(VACUUM_STEP);
}

const timer = setInterval(() => {
  try {
    returnFreePages();
  } catch {
    /* the write lock is taken (SQLITE_BUSY): the next tick tries again */
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    /* busy or I/O trouble: try again next tick; the committing connection's fallback still bounds the WAL */
  }
}, intervalMs);

parentPort!.on('message', (msg) => {
  if (msg === 'stop') {
    clearInterval(timer);
    db.close();
    parentPort!.postMessage('stopped');
  }
});

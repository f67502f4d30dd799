/**
 * Online backup and checked restore of the SQLite store (`npm run backup`, `npm run
 * restore-backup`). The backup is `VACUUM INTO` from a read-only connection of its own: one read
 * transaction, so the copy is the database as of one instant while the server keeps writing (WAL
 * readers never block the writer, nor it them), compacted, then fsynced, checked and only then
 * given its name. A restore checks the backup first, refuses while any process has the live file
 * open, and keeps the file it replaces.
 */
import { closeSync, copyFileSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { checkSnapshot, type SnapshotReport } from './snapshot-check.js';

export class BackupError extends Error {}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export interface BackupResult extends SnapshotReport {
  file: string;
  bytes: number;
  seconds: number;
}

export function backupSqlite(source: string, target: string, busyTimeoutMs = 5000): BackupResult {
  if (!existsSync(source)) throw new BackupError(`No database at ${source}: set DATA_DIR to the server's data directory.`);
  if (existsSync(target)) throw new BackupError(`${target} exists: name a new file (a backup never overwrites one).`);
  const partial = `${target}.partial`;
  rmSync(partial, { force: true });
  const started = performance.now();
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    db.prepare('VACUUM INTO ?').run(partial);
  } finally {
    db.close();
  }
  fsyncPath(partial);
  const report = checkSnapshot(partial, { deep: true });
  if (!report.ok) {
    rmSync(partial, { force: true });
    throw new BackupError(`The snapshot failed its check (nothing kept): ${report.problems.join('; ')}.`);
  }
  renameSync(partial, target);
  fsyncPath(dirname(target));
  return { ...report, file: target, bytes: statSync(target).size, seconds: (performance.now() - started) / 1000 };
}

export interface RestoreResult extends SnapshotReport {
  /** Where the replaced database went (null: there was none). */
  previous: string | null;
}

/** Fails with BackupError when any process has `file` open (a server, a bash worker, a tool). */
function takeOffline(file: string): void {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    // An exclusive lock on the file fails while any other connection has it open in WAL mode.
    db.pragma('locking_mode = EXCLUSIVE');
    try {
      db.exec('BEGIN EXCLUSIVE');
      db.exec('COMMIT');
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_BUSY') {
        throw new BackupError(`${file} is in use (a server or another process has it open): stop the server first, then restore.`);
      }
      throw err;
    }
    // Everything of the old database into its main file, so it is whole where it is kept.
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

export function restoreSqlite(backup: string, target: string, nowMs = Date.now()): RestoreResult {
  if (!existsSync(backup)) throw new BackupError(`No backup at ${backup}.`);
  const report = checkSnapshot(backup, { deep: true });
  if (!report.ok) throw new BackupError(`${backup} failed its check, nothing was changed: ${report.problems.join('; ')}.`);
  const incoming = `${target}.restoring`;
  copyFileSync(backup, incoming);
  fsyncPath(incoming);
  let previous: string | null = null;
  if (existsSync(target)) {
    try {
      takeOffline(target);
    } catch (err) {
      rmSync(incoming, { force: true });
      throw err;
    }
    previous = `${target}.before-restore-${new Date(nowMs).toISOString().replace(/[:.]/g, '-')}`;
    renameSync(target, previous);
    // The old WAL and index go with it: a new database must never meet the old one's WAL.
    for (const suffix of ['-wal', '-shm']) if (existsSync(target + suffix)) renameSync(target + suffix, previous + suffix);
  }
  renameSync(incoming, target);
  fsyncPath(dirname(target));
  return { ...report, previous };
}

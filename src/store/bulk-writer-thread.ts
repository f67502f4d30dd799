/**
 * Worker thread that runs big SQLite commits (see BulkWriter) on a connection of its own, so
 * their statements, their COMMIT (which rewrites the transaction's WAL frames: ~1–3 ms per 1,000
 * nodes, measured) and the checkpoint after them never run on the serving thread.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { CommitStep } from './commit-program.js';
import { SqliteSteps } from './sqlite-steps.js';

export type WriterCall = { kind: 'begin' } | { kind: 'step'; step: CommitStep } | { kind: 'commit' } | { kind: 'rollback' };
export type WriterRequest = WriterCall & { id: number };
export type WriterReply = { id: number } & ({ ok: true; value: unknown } | { ok: false; message: string; code: string | undefined });

const { file, synchronous, busyTimeoutMs } = workerData as { file: string; synchronous: 'normal' | 'full'; busyTimeoutMs: number };
const db = new Database(file);
db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
// Waiting for another process's write lock blocks only this thread.
db.pragma(`busy_timeout = ${busyTimeoutMs}`);
// Checkpoints are run below, after a commit is answered, never inside one.
db.pragma('wal_autocheckpoint = 0');
db.pragma('foreign_keys = ON');
const steps = new SqliteSteps(db);

parentPort!.on('message', (req: WriterRequest) => {
  let reply: WriterReply;
  try {
    let value: unknown;
    if (req.kind === 'begin') db.exec('BEGIN IMMEDIATE');
    else if (req.kind === 'step') value = steps.exec(req.step);
    else if (req.kind === 'commit') db.exec('COMMIT');
    else if (db.inTransaction) db.exec('ROLLBACK');
    reply = { id: req.id, ok: true, value };
  } catch (err) {
    reply = { id: req.id, ok: false, message: String((err as Error).message), code: (err as { code?: string }).code };
  }
  parentPort!.postMessage(reply);
  if (req.kind === 'commit' && reply.ok) {
    // A big commit leaves a big WAL: copy it back now, here, before the serving connection's
    // fallback autocheckpoint would do it on the event loop. PASSIVE: never waits for anyone.
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      /* busy: the checkpointer thread is at it */
    }
  }
});

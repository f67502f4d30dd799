/**
 * Worker thread that runs big SQLite commits (see sqlite.ts commitBulk) on a connection of its own, so
 * their statements, their COMMIT (which rewrites the transaction's WAL frames: ~1–3 ms per 1,000
 * nodes, measured) and the checkpoint after them never run on the serving thread.
 */
import { workerData } from 'node:worker_threads';
import type { CommitStep } from './commit-program.js';
import { openConnection, type ConnectionSettings } from './sqlite-connection.js';
import { SqliteSteps } from './sqlite-steps.js';
import { serveCalls } from './worker-client.js';

export type WriterCall = { kind: 'begin' } | { kind: 'step'; step: CommitStep } | { kind: 'commit' } | { kind: 'rollback' };
export type WriterRequest = WriterCall & { id: number };

// Waiting for another process's write lock blocks only this thread.
const db = openConnection('bulk-writer', workerData as ConnectionSettings);
const steps = new SqliteSteps(db);

serveCalls(
  (req: WriterRequest) => {
    if (req.kind === 'begin') db.exec('BEGIN IMMEDIATE');
    else if (req.kind === 'step') return steps.exec(req.step);
    else if (req.kind === 'commit') db.exec('COMMIT');
    else if (db.inTransaction) db.exec('ROLLBACK');
    return undefined;
  },
  (req, ok) => {
    if (req.kind !== 'commit' || !ok) return;
    // A big commit leaves a big WAL: copy it back now, here, before the serving connection's
    // fallback autocheckpoint would do it on the event loop. PASSIVE: never waits for anyone.
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      /* busy: the checkpointer thread is at it */
    }
  },
);

/**
 * Worker thread that writes SQLite's search index (search-index.ts: a batch of the outbox, a step
 * of FTS5's segment merges) on a connection of its own. Tokenizing and inserting a batch of 200
 * posts took 5-25 ms of the serving thread, and FTS5 merges a common word's whole doclist in one
 * piece whatever page budget it is given: 100-350 ms at 110,000 documents (docs/benchmarks.md,
 * "Search"). Here it holds only the write lock: the serving thread's group commit polls for it
 * from the event loop (sqlite.ts flushCommits), and reads go on meanwhile.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { indexBatch, mergeStep } from './search-index.js';
import { SqliteDb } from './sqlite-db.js';
import { runProgramSync, type Program } from './sql.js';
import type { WorkerReply } from './worker-client.js';

export type IndexerRequest = { id: number } & ({ kind: 'index'; maxItems: number; maxBytes: number; maxFileBytes: number } | { kind: 'merge' });

const { file, synchronous, busyTimeoutMs, cacheKib } = workerData as {
  file: string;
  synchronous: 'normal' | 'full';
  busyTimeoutMs: number;
  cacheKib: number;
};
const conn = new Database(file, { fileMustExist: true });
conn.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
// Waiting for the serving thread's (or another process's) write lock blocks only this thread.
conn.pragma(`busy_timeout = ${busyTimeoutMs}`);
conn.pragma(`cache_size = -${cacheKib}`);
conn.pragma('temp_store = MEMORY');
const db = new SqliteDb(conn);
/** Merge steps per transaction: the serving thread's writes wait for the write lock this long. */
const MERGE_SLICE_MS = 10;

const inTransaction = <T>(program: () => Program<T>): T => conn.transaction(() => runProgramSync(program(), (s) => db.exec(s))).immediate();

parentPort!.on('message', (req: IndexerRequest) => {
  let reply: WorkerReply;
  try {
    const value =
      req.kind === 'index'
        ? inTransaction(() => indexBatch(db, req.maxItems, req.maxBytes, req.maxFileBytes))
        : inTransaction(() => mergeStep(MERGE_SLICE_MS));
    reply = { id: req.id, ok: true, value };
  } catch (err) {
    reply = { id: req.id, ok: false, message: String((err as Error).message), code: (err as { code?: string }).code };
  }
  parentPort!.postMessage(reply);
});

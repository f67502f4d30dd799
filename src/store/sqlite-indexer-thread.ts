/**
 * Worker thread that writes SQLite's search index (search-index.ts indexBatch: a batch of the
 * outbox) on a connection of its own. On the serving thread a batch of 200 posts took 5-25 ms of
 * the event loop, and FTS5 merges its segments inside the insert that fills a level, a common
 * word's whole doclist at once: 100-350 ms at 110,000 documents (docs/benchmarks.md, "Search").
 * Here it holds only the write lock: the serving thread's group commit polls for it from the
 * event loop (sqlite.ts flushCommits), and reads go on meanwhile.
 */
import { workerData } from 'node:worker_threads';
import { compactStep, indexBatch } from './search-index.js';
import { openConnection, type ConnectionSettings } from './sqlite-connection.js';
import { SqliteDb } from './sqlite-db.js';
import { runProgramSync } from './sql.js';
import { serveCalls } from './worker-client.js';

/** A batch of the outbox, or (`compact`) one step of merging the index's segments. */
export type IndexerRequest =
  { id: number; kind: 'batch'; maxItems: number; maxBytes: number; maxFileBytes: number } | { id: number; kind: 'compact'; pages: number };

// Waiting for the serving thread's (or another process's) write lock blocks only this thread.
const conn = openConnection('indexer', workerData as ConnectionSettings);
const db = new SqliteDb(conn);

serveCalls((req: IndexerRequest) => {
  const program = req.kind === 'compact' ? compactStep(req.pages) : indexBatch(db, req.maxItems, req.maxBytes, req.maxFileBytes);
  return conn.transaction(() => runProgramSync<unknown>(program, (s) => db.exec(s))).immediate();
});

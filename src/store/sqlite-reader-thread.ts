/**
 * Worker thread that runs SQLite reads whose work grows with the data (a search ranks every match):
 * on a read-only connection of its own, so the serving thread's event loop stays free for every
 * other request while one runs. WAL lets it read beside the serving connection's writes; it sees
 * what is committed, which is everything an agent has been answered about.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerReply } from './worker-client.js';

export type ReaderRequest = { id: number; sql: string; params: unknown[] };

const { file, cacheKib } = workerData as { file: string; cacheKib: number };
const db = new Database(file, { readonly: true, fileMustExist: true });
db.pragma(`cache_size = -${cacheKib}`);
const statements = new Map<string, Database.Statement>();

parentPort!.on('message', (req: ReaderRequest) => {
  let reply: WorkerReply;
  try {
    let s = statements.get(req.sql);
    if (!s) statements.set(req.sql, (s = db.prepare(req.sql).raw(true)));
    reply = { id: req.id, ok: true, value: s.all(...req.params) };
  } catch (err) {
    reply = { id: req.id, ok: false, message: String((err as Error).message), code: (err as { code?: string }).code };
  }
  parentPort!.postMessage(reply);
});

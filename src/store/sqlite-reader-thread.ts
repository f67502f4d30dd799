/**
 * Worker thread that runs SQLite reads whose work grows with the data (a search ranks every match):
 * on a read-only connection of its own, so the serving thread's event loop stays free for every
 * other request while one runs. WAL lets it read beside the serving connection's writes; it sees
 * what is committed, which is everything an agent has been answered about.
 */
import type Database from 'better-sqlite3';
import { workerData } from 'node:worker_threads';
import { openConnection, type ConnectionSettings } from './sqlite-connection.js';
import { serveCalls } from './worker-client.js';

export type ReaderRequest = { id: number; sql: string; params: unknown[] };

const db = openConnection('reader', workerData as ConnectionSettings);
const statements = new Map<string, Database.Statement>();

serveCalls((req: ReaderRequest) => {
  let s = statements.get(req.sql);
  if (!s) statements.set(req.sql, (s = db.prepare(req.sql).raw(true)));
  return s.all(...req.params);
});

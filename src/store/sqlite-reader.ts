/** The serving thread's side of the reader thread (sqlite-reader-thread.ts). */
import type { ConnectionSettings } from './sqlite-connection.js';
import { WorkerClient } from './worker-client.js';

export class SqliteReader {
  private readonly thread: WorkerClient;

  constructor(settings: ConnectionSettings) {
    this.thread = new WorkerClient(new URL('./sqlite-reader-thread.js', import.meta.url), settings, 'SQLite reader');
  }

  all(sql: string, params: unknown[]): Promise<unknown[][]> {
    return this.thread.call({ sql, params });
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}

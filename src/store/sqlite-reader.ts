/**
 * The serving thread's side of the reader thread (sqlite-reader-thread.ts): started on first use,
 * kept alive (unreferenced) only while a read is in flight, answered by id.
 */
import { Worker } from 'node:worker_threads';
import type { ReaderReply } from './sqlite-reader-thread.js';

type Pending = { resolve: (rows: unknown[][]) => void; reject: (e: unknown) => void };

export class SqliteReader {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly opts: { file: string; cacheKib: number }) {}

  all(sql: string, params: unknown[]): Promise<unknown[][]> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, sql, params });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./sqlite-reader-thread.js', import.meta.url), { workerData: this.opts });
    worker.unref();
    worker.on('message', (reply: ReaderReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.ok) p.resolve(reply.rows);
      else p.reject(Object.assign(new Error(reply.message), { code: reply.code }));
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = null; // the next read starts another
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`SQLite reader thread exited (${code})`)));
    return (this.worker = worker);
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }
}

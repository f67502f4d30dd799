/**
 * The serving thread's side of a SQLite worker thread (reader, indexer): started on first use,
 * kept alive (referenced) only while a call is in flight, answered by id; a thread that dies
 * fails its calls and the next call starts another.
 */
import { Worker } from 'node:worker_threads';

export type WorkerReply = { id: number } & ({ ok: true; value: unknown } | { ok: false; message: string; code: string | undefined });

type Pending = { resolve: (value: unknown) => void; reject: (e: unknown) => void };

export class WorkerClient {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** The answers not yet settled, for close(). */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly script: URL,
    private readonly workerData: unknown,
    private readonly name: string,
  ) {}

  call<T>(request: object): Promise<T> {
    const worker = this.start();
    const id = this.nextId++;
    const answer = new Promise<T>((resolve, reject) => {
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ ...request, id });
    });
    this.inFlight.add(answer);
    const done = () => this.inFlight.delete(answer);
    answer.then(done, done);
    return answer;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script, { workerData: this.workerData });
    worker.unref();
    worker.on('message', (reply: WorkerReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.ok) p.resolve(reply.value);
      else p.reject(Object.assign(new Error(reply.message), { code: reply.code }));
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`${this.name} thread exited (${code})`)));
    return (this.worker = worker);
  }

  /** Waits for the calls in flight, then ends the thread. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    await Promise.allSettled([...this.inFlight]);
    this.worker = null;
    await worker.terminate();
  }
}

/**
 * Both sides of a request/answer worker thread (SQLite's reader, indexer and bulk writer, the JSON
 * body parser). The serving side: started on first use, kept alive (referenced) only while a call
 * is in flight, answered by id; a thread that dies fails its calls and the next call starts
 * another, except within a session (a transaction), which fails instead. The thread's side:
 * serveCalls answers each request with what its handler returns or throws.
 */
import { parentPort, Worker } from 'node:worker_threads';

export type WorkerReply = { id: number } & ({ ok: true; value: unknown } | { ok: false; message: string; code: string | undefined });

/** A call the thread answered with an error; `code` is SQLite's (SQLITE_BUSY …) when it has one. */
export class WorkerError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'WorkerError';
  }
}

type Pending = { resolve: (value: unknown) => void; reject: (e: unknown) => void };

/** Calls that must all reach one thread: they fail once it is gone rather than start another. */
export interface WorkerSession {
  call<T>(request: object): Promise<T>;
}

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
    return this.send<T>(this.start(), request);
  }

  /** A session on the thread running now (started if none). */
  session(): WorkerSession {
    const worker = this.start();
    return {
      call: <T>(request: object) =>
        this.worker === worker ? this.send<T>(worker, request) : Promise.reject(new Error(`${this.name} thread exited`)),
    };
  }

  private send<T>(worker: Worker, request: object): Promise<T> {
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
      else p.reject(new WorkerError(reply.message, reply.code));
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

/**
 * The thread's side: answers every request, in order, with what `handle` returns (or the error it
 * throws, with its code); `after` runs once the answer is posted.
 */
export function serveCalls<R extends { id: number }>(handle: (req: R) => unknown, after?: (req: R, ok: boolean) => void): void {
  parentPort!.on('message', (req: R) => {
    let reply: WorkerReply;
    try {
      reply = { id: req.id, ok: true, value: handle(req) };
    } catch (err) {
      reply = { id: req.id, ok: false, message: String((err as Error).message), code: (err as { code?: string }).code };
    }
    parentPort!.postMessage(reply);
    after?.(req, reply.ok);
  });
}

/** The serving thread's side of the bulk writer thread: one request at a time, answered in order. */
import { Worker } from 'node:worker_threads';
import type { CommitStep } from './commit-program.js';
import type { WriterCall, WriterReply } from './bulk-writer-thread.js';

type Pending = { resolve: (v: unknown) => void; reject: (e: unknown) => void };

export class BulkWriterError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'BulkWriterError';
  }
}

export class BulkWriter {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private dead: Error | null = null;

  constructor(opts: { file: string; synchronous: 'normal' | 'full'; busyTimeoutMs: number }) {
    this.worker = new Worker(new URL('./bulk-writer-thread.js', import.meta.url), { workerData: opts });
    this.worker.unref();
    this.worker.on('message', (reply: WriterReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (reply.ok) p.resolve(reply.value);
      else p.reject(new BulkWriterError(reply.message, reply.code));
    });
    const fail = (err: Error) => {
      this.dead ??= err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`bulk writer thread exited (${code})`)));
  }

  get alive(): boolean {
    return this.dead === null;
  }

  call(req: WriterCall): Promise<unknown> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...req, id });
    });
  }

  /** A step as it crosses to the thread: file contents only where they are inserted. */
  static lean(step: CommitStep): CommitStep {
    if (step.op !== 'applyNodes') return step;
    return {
      ...step,
      changes: step.changes.map((c) =>
        c.state.kind === 'file' && c.state.blob.bytes
          ? { ...c, state: { ...c.state, blob: { hash: c.state.blob.hash, size: c.state.blob.size } } }
          : c,
      ),
    };
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

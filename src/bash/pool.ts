/**
 * A pool of bash worker threads. Commands run off the main event loop; one that overruns its
 * deadline (plus a grace period for just-bash's own soft limit) has its thread terminated and
 * replaced, so a runaway command can never delay other requests.
 */
import { Worker } from 'node:worker_threads';
import type { BashJob, BashOutcome } from './commands.js';

export interface StoreSettings {
  databaseUrl: string | undefined;
  dataDir: string;
  sqliteSynchronous: 'normal' | 'full';
}

interface Slot {
  worker: Worker;
  job: { job: BashJob; resolve: (o: BashOutcome) => void; timer: NodeJS.Timeout } | null;
}

const HARD_GRACE_MS = 1500;

export class BashPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Array<{ job: BashJob; resolve: (o: BashOutcome) => void }> = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly store: StoreSettings,
  ) {
    // The time zone is process-wide (a worker cannot have its own): commands print times in
    // UTC whatever the host's zone (ls -l, stat, date), as the reference documents.
    process.env.TZ = 'UTC';
  }

  private spawn(): Slot {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: { store: this.store } });
    const slot: Slot = { worker, job: null };
    worker.on('message', (outcome: BashOutcome) => {
      const current = slot.job;
      if (!current || current.job.id !== outcome.id) return;
      clearTimeout(current.timer);
      slot.job = null;
      current.resolve(outcome);
      this.pump();
    });
    const fail = (reason: string) => {
      const current = slot.job;
      slot.job = null;
      this.replace(slot);
      if (current) {
        clearTimeout(current.timer);
        current.resolve({ id: current.job.id, stdout: '', stderr: '', exitCode: 1, truncated: false, timedOut: false, changes: [], error: reason });
      }
    };
    worker.on('error', (err) => fail(`bash worker failed: ${err.message}`));
    worker.on('exit', (code) => {
      if (!this.closed && this.slots.includes(slot)) fail(`bash worker exited (${code})`);
    });
    worker.unref();
    return slot;
  }

  private replace(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i === -1) return;
    this.slots.splice(i, 1);
    void slot.worker.terminate();
    if (!this.closed) this.slots.push(this.spawn());
    this.pump();
  }

  private pump(): void {
    while (this.slots.length < this.size && !this.closed) this.slots.push(this.spawn());
    for (const slot of this.slots) {
      if (slot.job || this.queue.length === 0) continue;
      const next = this.queue.shift()!;
      const timer = setTimeout(() => {
        // Past the soft limit and the grace period: the thread is stuck in CPU-bound work.
        slot.job = null;
        this.replace(slot);
        next.resolve({
          id: next.job.id, stdout: '', stderr: '', exitCode: 124, truncated: false, timedOut: true, changes: [],
        });
      }, next.job.timeoutMs + HARD_GRACE_MS);
      slot.job = { ...next, timer };
      slot.worker.postMessage(next.job);
    }
  }

  run(job: Omit<BashJob, 'id'>): Promise<BashOutcome> {
    if (this.closed) return Promise.reject(new Error('bash pool closed'));
    return new Promise((resolve) => {
      this.queue.push({ job: { ...job, id: this.nextId++ }, resolve });
      this.pump();
    });
  }

  /** Starts the threads ahead of the first command (loading just-bash takes ~200 ms). */
  warm(): void {
    this.pump();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}

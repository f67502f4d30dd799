/**
 * A pool of bash worker threads. Commands run off the main event loop; one that overruns its
 * deadline (plus a grace period for just-bash's own soft limit) has its thread terminated and
 * replaced, so a runaway command can never delay other requests. A thread whose command timed
 * out at just-bash's soft limit is replaced too: that limit abandons the command without
 * stopping it (a `find` awaiting the store goes on), and nothing of it may run beside the next.
 * A regex search that runs past its budget (search-watch.ts) has its thread replaced the same
 * way, at once rather than at the deadline, and the command answers with the reason.
 */
import { Worker } from 'node:worker_threads';
import type { BashJob, BashOutcome } from './commands.js';
import { searchBudgetMs, stoppedSearch } from './search-watch.js';

export interface StoreSettings {
  databaseUrl: string | undefined;
  dataDir: string;
  sqliteSynchronous: 'normal' | 'full';
  sqliteBusyTimeoutMs: number;
}

interface Pending {
  job: BashJob;
  resolve: (o: BashOutcome) => void;
}

interface Slot {
  worker: Worker;
  job: (Pending & { timer: NodeJS.Timeout }) | null;
  /** Shared with the worker: [searches started, kind of the search running or 0] (search-watch.ts). */
  searches: Int32Array;
  /** The search seen running at the last check, and since when. */
  seen: { seq: number; sinceMs: number } | null;
  /** The thread has run its warm-up command (worker.ts): a command now starts at once. */
  warm: boolean;
}

const HARD_GRACE_MS = 1500;
/** How often running searches are checked against their budget: a search stops within this of it. */
const SEARCH_CHECK_MS = 100;

export class BashPool {
  private readonly slots: Slot[] = [];
  /** Waiting jobs per agent; agents are served in turn (round robin), each queue in order. */
  private readonly queues = new Map<string, Pending[]>();
  private readonly runningByAgent = new Map<string, number>();
  private nextId = 1;
  private closed = false;
  private readonly watchdog: NodeJS.Timeout;

  constructor(
    private readonly size: number,
    private readonly store: StoreSettings,
    /** Per worker: file contents kept between commands (BASH_CACHE_BYTES). */
    private readonly cacheBytes = 32 * 1024 * 1024,
  ) {
    this.watchdog = setInterval(() => this.checkSearches(), SEARCH_CHECK_MS);
    this.watchdog.unref();
  }

  /** For /metrics: workers by state and jobs waiting (all agents). */
  stats(): { workers: number; busy: number; starting: number; queued: number } {
    let queued = 0;
    for (const q of this.queues.values()) queued += q.length;
    const busy = this.slots.filter((s) => s.job !== null).length;
    return { workers: this.slots.length, busy, starting: this.slots.filter((s) => s.job === null && !s.warm).length, queued };
  }

  private spawn(): Slot {
    const searches = new Int32Array(new SharedArrayBuffer(8));
    const worker = new Worker(new URL('./worker.js', import.meta.url), {
      workerData: { store: this.store, cacheBytes: this.cacheBytes, searches: searches.buffer },
    });
    const slot: Slot = { worker, job: null, searches, seen: null, warm: false };
    worker.on('message', (outcome: BashOutcome | { warm: true }) => {
      if ('warm' in outcome) {
        slot.warm = true;
        return;
      }
      const current = slot.job;
      if (!current || current.job.id !== outcome.id) return;
      clearTimeout(current.timer);
      slot.job = null;
      current.resolve(outcome);
      if (outcome.timedOut) this.replace(slot);
      else this.pump();
    });
    const fail = (reason: string) => {
      const current = slot.job;
      slot.job = null;
      if (current) {
        clearTimeout(current.timer);
        current.resolve({ id: current.job.id, stdout: '', stderr: '', exitCode: 1, truncated: false, timedOut: false, changes: [], error: reason });
      }
      this.replace(slot);
    };
    worker.on('error', (err) => fail(`bash worker failed: ${err.message}`));
    worker.on('exit', (code) => {
      if (!this.closed && this.slots.includes(slot)) fail(`bash worker exited (${code})`);
    });
    worker.unref();
    return slot;
  }

  /** Stops every worker whose current search has run past its budget (a runaway regex). */
  private checkSearches(): void {
    const now = Date.now();
    for (const slot of [...this.slots]) {
      const current = slot.job;
      const kind = Atomics.load(slot.searches, 1);
      if (!current || kind === 0) {
        slot.seen = null;
        continue;
      }
      const seq = Atomics.load(slot.searches, 0);
      if (!slot.seen || slot.seen.seq !== seq) {
        slot.seen = { seq, sinceMs: now };
        continue;
      }
      const budget = searchBudgetMs(current.job.timeoutMs);
      if (now - slot.seen.sinceMs < budget) continue;
      clearTimeout(current.timer);
      slot.job = null;
      current.resolve({ id: current.job.id, stdout: '', truncated: false, timedOut: false, changes: [], ...stoppedSearch(kind, budget) });
      this.replace(slot);
    }
  }

  private replace(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i === -1) return;
    this.slots.splice(i, 1);
    void slot.worker.terminate();
    if (!this.closed) this.slots.push(this.spawn());
    this.pump();
  }

  /**
   * Workers one agent may hold at once: less than half the pool, so no two agents fill it and a
   * third agent's command never waits behind their runaways (it waits at most for the round robin
   * among agents actually queued). 4 workers → 1 per agent, 5–6 → 2, 8 → 3; with 1–2 workers, 1.
   * An agent's further calls wait in its queue (BASH_MAX_CONCURRENT_PER_AGENT bounds running +
   * queued).
   */
  private get perAgentLimit(): number {
    return Math.max(1, Math.floor((this.size - 1) / 2));
  }

  /** The next job to start: the first queued agent (in turn) below its limit. */
  private takeNext(): Pending | null {
    for (const [agentId, queue] of this.queues) {
      if ((this.runningByAgent.get(agentId) ?? 0) >= this.perAgentLimit) continue;
      const next = queue.shift()!;
      // Re-inserting moves the agent to the back of the turn order.
      this.queues.delete(agentId);
      if (queue.length) this.queues.set(agentId, queue);
      return next;
    }
    return null;
  }

  private finished(agentId: string): void {
    const n = (this.runningByAgent.get(agentId) ?? 1) - 1;
    if (n <= 0) this.runningByAgent.delete(agentId);
    else this.runningByAgent.set(agentId, n);
  }

  private pump(): void {
    while (this.slots.length < this.size && !this.closed) this.slots.push(this.spawn());
    for (const slot of this.slots) {
      if (slot.job) continue;
      const next = this.takeNext();
      if (!next) break;
      const agentId = next.job.access.agentId;
      this.runningByAgent.set(agentId, (this.runningByAgent.get(agentId) ?? 0) + 1);
      let settled = false;
      const resolve = (o: BashOutcome) => {
        if (settled) return;
        settled = true;
        this.finished(agentId);
        next.resolve(o);
      };
      const timer = setTimeout(() => {
        // Past the soft limit and the grace period: the thread is stuck in CPU-bound work.
        slot.job = null;
        resolve({ id: next.job.id, stdout: '', stderr: '', exitCode: 124, truncated: false, timedOut: true, changes: [] });
        this.replace(slot);
      }, next.job.timeoutMs + HARD_GRACE_MS);
      slot.job = { job: next.job, resolve, timer };
      slot.worker.postMessage(next.job);
    }
  }

  run(job: Omit<BashJob, 'id'>): Promise<BashOutcome> {
    if (this.closed) return Promise.reject(new Error('bash pool closed'));
    return new Promise((resolve) => {
      const agentId = job.access.agentId;
      const queue = this.queues.get(agentId);
      const pending = { job: { ...job, id: this.nextId++ }, resolve };
      if (queue) queue.push(pending);
      else this.queues.set(agentId, [pending]);
      this.pump();
    });
  }

  /** Starts the threads ahead of the first command: each loads just-bash and runs its warm-up (worker.ts). */
  warm(): void {
    this.pump();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdog);
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}

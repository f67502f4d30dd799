/**
 * A pool of bash worker threads. Commands run off the main event loop; one that overruns its
 * deadline (plus a grace period for just-bash's own soft limit) has its thread terminated and
 * replaced, so a runaway command can never delay other requests. A thread whose command timed
 * out at just-bash's soft limit is replaced too: that limit abandons the command without
 * stopping it (a `find` awaiting the store goes on), and nothing of it may run beside the next.
 * A regex search that runs past its budget (search-watch.ts) has its thread replaced the same
 * way, at once rather than at the deadline, and the command answers with the reason.
 *
 * With two or more workers one of them is the reserve (README, BASH_WORKERS): it runs only
 * commands of agents that have none running and held workers for less than LIGHT_MS (2 s) in
 * the last minute, so such an agent never waits behind the others' long commands, however many
 * agents run them. A command still on the reserve after RESERVE_SLICE_MS gives it up as soon as
 * another such agent waits: its thread is replaced and the command goes back to the head of its
 * agent's queue for another worker, to run again from the start (nothing it did was saved: a
 * command's changes are committed only from its outcome). A standby thread, started (and warmed
 * up) once the pool's threads have loaded, takes the reserve's place at once (a thread loads
 * just-bash for ~0.2 s, seconds on a busy machine).
 */
import { Worker } from 'node:worker_threads';
import type { BlobStoreConfig } from '../config.js';
import type { BashJob, BashOutcome } from './commands.js';
import { searchBudgetMs, stoppedSearch } from './search-watch.js';
import { WORKER_TIME_WINDOW_MS, WorkerTime } from './slots.js';

export interface StoreSettings {
  databaseUrl: string | undefined;
  dataDir: string;
  sqliteSynchronous: 'normal' | 'full';
  sqliteBusyTimeoutMs: number;
  /** Workers read external contents from the same object storage (store/blob-objects.ts). */
  blobStore?: BlobStoreConfig | null;
}

interface Pending {
  job: BashJob;
  resolve: (o: BashOutcome) => void;
  /** Gave the reserve up once: waits for another worker. */
  noReserve?: boolean;
}

interface Running extends Pending {
  pending: Pending;
  /** The thread began the command (a thread still loading has not): worker time and the reserve's slice count from here. */
  started: () => void;
  timer: NodeJS.Timeout;
  /** The reserve: when the command has had its slice. */
  slice: NodeJS.Timeout | null;
  overSlice: boolean;
  /** Counts the command as ended (running counts, worker time) without answering it. */
  end: () => void;
}

interface Slot {
  worker: Worker;
  /** Runs only light agents' commands (see the header). */
  reserve: boolean;
  /** The thread has loaded (its first message). */
  ready: boolean;
  job: Running | null;
  /** Shared with the worker: [searches started, kind of the search running or 0] (search-watch.ts). */
  searches: Int32Array;
  /** The search seen running at the last check, and since when. */
  seen: { seq: number; sinceMs: number } | null;
}

const HARD_GRACE_MS = 1500;
/** How long a command keeps the reserve worker while another light agent waits for it. */
export const RESERVE_SLICE_MS = 1000;
/** Light agents (the reserve's): none of their commands running, and less worker time than this in the last minute. */
export const LIGHT_MS = 2000;

const clearTimers = (j: Running) => {
  clearTimeout(j.timer);
  if (j.slice) clearTimeout(j.slice);
};
/** How often running searches are checked against their budget: a search stops within this of it. */
const SEARCH_CHECK_MS = 100;

export class BashPool {
  private readonly slots: Slot[] = [];
  /** A thread (loaded, or loading) that replaces the reserve's when a command gives the reserve up. */
  private standby: Slot | null = null;
  /** Waiting jobs per agent; agents are served in turn (round robin), each queue in order. */
  private readonly queues = new Map<string, Pending[]>();
  private readonly runningByAgent = new Map<string, number>();
  /** Worker time per agent in the last minute (the reserve's and BASH_WORKER_MS_PER_MINUTE's measure). */
  private readonly time = new WorkerTime();
  private sweptAtMs = Date.now();
  private nextId = 1;
  private closed = false;
  private readonly watchdog: NodeJS.Timeout;

  constructor(
    private readonly size: number,
    private readonly store: StoreSettings,
    /** Per worker: file contents kept between commands (BASH_CACHE_BYTES). */
    private readonly cacheBytes = 32 * 1024 * 1024,
    /** The limits of the commands to come: a new reserve thread runs a trivial one with them first (worker.ts). */
    private readonly warmLimits?: { timeoutMs: number; maxCommands: number },
  ) {
    this.watchdog = setInterval(() => this.checkSearches(), SEARCH_CHECK_MS);
    this.watchdog.unref();
  }

  /**
   * For /metrics: workers by state (starting: still running their warm-up), jobs waiting (all
   * agents), and whether a loaded standby waits for the reserve's place (0 or 1).
   */
  stats(): { workers: number; busy: number; starting: number; queued: number; standby: number } {
    let queued = 0;
    for (const q of this.queues.values()) queued += q.length;
    const busy = this.slots.filter((s) => s.job !== null).length;
    const starting = this.slots.filter((s) => s.job === null && !s.ready).length;
    return { workers: this.slots.length, busy, starting, queued, standby: this.standby?.ready ? 1 : 0 };
  }

  /** Worker time of the agent's commands in the last minute over `budgetMs`: how long to wait, or null while under it. */
  overBudget(agentId: string, budgetMs: number): { usedMs: number; retryAfterSeconds: number } | null {
    const now = Date.now();
    const usedMs = this.time.usedMs(agentId, now);
    return usedMs < budgetMs ? null : { usedMs, retryAfterSeconds: this.time.retryAfterSeconds(agentId, budgetMs, now) };
  }

  private spawn(reserve: boolean): Slot {
    const searches = new Int32Array(new SharedArrayBuffer(8));
    const worker = new Worker(new URL('./worker.js', import.meta.url), {
      // Every thread warms up before its first command (worker.ts): the first bash call after a
      // start, and the standby taking the reserve's place, then answer at once.
      workerData: { store: this.store, cacheBytes: this.cacheBytes, searches: searches.buffer, warm: this.warmLimits },
    });
    const slot: Slot = { worker, reserve, ready: false, job: null, searches, seen: null };
    worker.on('message', (outcome: BashOutcome | { ready: true } | { started: number }) => {
      if ('ready' in outcome) {
        slot.ready = true;
        this.startStandby();
        return;
      }
      const current = slot.job;
      if ('started' in outcome) {
        if (current?.job.id === outcome.started) current.started();
        return;
      }
      if (!current || current.job.id !== outcome.id) return;
      clearTimers(current);
      slot.job = null;
      current.resolve(outcome);
      if (outcome.timedOut) this.replace(slot);
      else this.pump();
    });
    const fail = (reason: string) => {
      if (slot === this.standby) {
        // Never handed a command: another standby takes its place.
        this.standby = null;
        void worker.terminate();
        this.startStandby();
        return;
      }
      const current = slot.job;
      slot.job = null;
      if (current) {
        clearTimers(current);
        current.resolve({ id: current.job.id, stdout: '', stderr: '', exitCode: 1, truncated: false, timedOut: false, changes: [], error: reason });
      }
      this.replace(slot);
    };
    worker.on('error', (err) => fail(`bash worker failed: ${err.message}`));
    worker.on('exit', (code) => {
      if (!this.closed && (this.slots.includes(slot) || slot === this.standby)) fail(`bash worker exited (${code})`);
    });
    worker.unref();
    return slot;
  }

  /** Stops every worker whose current search has run past its budget (a runaway regex). */
  private checkSearches(): void {
    const now = Date.now();
    if (now - this.sweptAtMs > WORKER_TIME_WINDOW_MS) {
      this.sweptAtMs = now;
      this.time.sweep(now);
    }
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
      clearTimers(current);
      slot.job = null;
      current.resolve({ id: current.job.id, stdout: '', truncated: false, timedOut: false, changes: [], ...stoppedSearch(kind, budget) });
      this.replace(slot);
    }
  }

  private replace(slot: Slot): void {
    this.renew(slot);
    this.pump();
  }

  /** Terminates the slot's thread and starts another in its place (the same role; the reserve's: the standby, loaded or loading). */
  private renew(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i === -1) return;
    this.slots.splice(i, 1);
    void slot.worker.terminate();
    if (this.closed) return;
    const standby = slot.reserve ? this.standby : null;
    if (standby) this.standby = null;
    this.slots.push(standby ?? this.spawn(slot.reserve));
    this.startStandby();
  }

  /** With a reserve, a standby thread once every thread of the pool has loaded (so it never slows their start). */
  private startStandby(): void {
    if (this.size < 2 || this.standby || this.closed || this.slots.length < this.size || !this.slots.every((s) => s.ready)) return;
    this.standby = this.spawn(true);
  }

  /**
   * Workers one agent may hold at once: less than half the pool, so no two agents fill it (a
   * third agent's command then waits at most for the round robin among agents actually queued;
   * behind more agents, the reserve). 4 workers → 1 per agent, 5–6 → 2, 8 → 3; with 1–2 workers,
   * 1. An agent's further calls wait in its queue (BASH_MAX_CONCURRENT_PER_AGENT bounds running +
   * queued).
   */
  private get perAgentLimit(): number {
    return Math.max(1, Math.floor((this.size - 1) / 2));
  }

  /** May the queued command run on the reserve: its agent runs nothing and held workers < LIGHT_MS in the last minute. */
  private light(agentId: string, next: Pending, nowMs: number): boolean {
    return !next.noReserve && !this.runningByAgent.has(agentId) && this.time.usedMs(agentId, nowMs) < LIGHT_MS;
  }

  /** The next job to start: the first queued agent (in turn) below its limit; on the reserve, the first light one. */
  private takeNext(reserve: boolean): Pending | null {
    const now = Date.now();
    for (const [agentId, queue] of this.queues) {
      if (reserve ? !this.light(agentId, queue[0]!, now) : (this.runningByAgent.get(agentId) ?? 0) >= this.perAgentLimit) continue;
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
    while (this.slots.length < this.size && !this.closed) {
      this.slots.push(this.spawn(this.size >= 2 && !this.slots.some((s) => s.reserve)));
    }
    this.reclaimReserve();
    // The regular workers first: the reserve stays free while they can take the work.
    for (const slot of [...this.slots.filter((s) => !s.reserve), ...this.slots.filter((s) => s.reserve)]) {
      if (slot.job) continue;
      const next = this.takeNext(slot.reserve);
      if (next) this.start(slot, next);
    }
  }

  private start(slot: Slot, next: Pending): void {
    const agentId = next.job.access.agentId;
    const jobId = next.job.id;
    this.runningByAgent.set(agentId, (this.runningByAgent.get(agentId) ?? 0) + 1);
    let settled = false;
    const end = () => {
      this.finished(agentId);
      this.time.stop(agentId, jobId, Date.now());
    };
    const resolve = (o: BashOutcome) => {
      if (settled) return;
      settled = true;
      end();
      next.resolve(o);
    };
    const timer = setTimeout(() => {
      // Past the soft limit and the grace period: the thread is stuck in CPU-bound work.
      slot.job = null;
      resolve({ id: jobId, stdout: '', stderr: '', exitCode: 124, truncated: false, timedOut: true, changes: [] });
      this.replace(slot);
    }, next.job.timeoutMs + HARD_GRACE_MS);
    const started = () => {
      this.time.start(agentId, jobId, Date.now());
      if (!slot.reserve || next.job.timeoutMs <= RESERVE_SLICE_MS) return;
      running.slice = setTimeout(() => {
        running.overSlice = true;
        if (slot.job === running) this.pump();
      }, RESERVE_SLICE_MS);
    };
    const running: Running = { job: next.job, resolve, pending: next, started, timer, slice: null, overSlice: false, end };
    slot.job = running;
    slot.worker.postMessage(next.job);
  }

  /**
   * A command past its slice on the reserve, while a light agent's command waits and no regular
   * worker is free: its thread is replaced and it goes back to the head of its agent's queue, for
   * a regular worker.
   */
  private reclaimReserve(): void {
    const slot = this.slots.find((s) => s.reserve && s.job?.overSlice);
    const now = Date.now();
    if (!slot || this.slots.some((s) => !s.reserve && !s.job)) return;
    if (![...this.queues].some(([agentId, q]) => this.light(agentId, q[0]!, now))) return;
    const evicted = slot.job!;
    clearTimers(evicted);
    slot.job = null;
    evicted.end();
    this.renew(slot);
    evicted.pending.noReserve = true;
    const agentId = evicted.job.access.agentId;
    const own = [evicted.pending, ...(this.queues.get(agentId) ?? [])];
    const others = [...this.queues].filter(([a]) => a !== agentId);
    this.queues.clear();
    this.queues.set(agentId, own);
    for (const [a, q] of others) this.queues.set(a, q);
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

  /** Starts the threads ahead of the first command (loading just-bash takes ~200 ms). */
  warm(): void {
    this.pump();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdog);
    await Promise.all([...this.slots, ...(this.standby ? [this.standby] : [])].map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}

/** Periodic store upkeep run by a serving process (not by bash workers or one-off tools). */
import type { PackStore } from './blob-pack.js';
import type { BlobObjectStore } from './blob-sweep.js';
import type { IdempotencyStore } from './idempotency.js';
import type { TransferStore } from './transfer.js';
import type { VoteStore } from './votes.js';

/**
 * Runs `task` every `intervalMs`, never twice at once (a slow run skips the ticks it overlaps).
 * Errors are reported, not thrown: the next tick tries again. The timer does not keep the process
 * alive; `stop` ends it and waits for a run under way.
 */
function every(intervalMs: number, task: () => Promise<unknown>, onError?: (err: unknown) => void): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = task()
      .then(
        () => undefined,
        (err) => onError?.(err),
      )
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * Prunes expired idempotency rows (and, given the store's vote log, score changes past their
 * time; given its exports, links expired for a week) every `intervalMs` (see `every`).
 */
export function startIdempotencyPruning(
  store: Pick<IdempotencyStore, 'pruneIdempotency'> & Partial<Pick<VoteStore, 'pruneVoteLog'>> & Partial<Pick<TransferStore, 'pruneExports'>>,
  opts: { intervalMs: number; clock?: () => number; onError?: (err: unknown) => void },
): { stop(): Promise<void> } {
  const clock = opts.clock ?? Date.now;
  return every(
    opts.intervalMs,
    async () => {
      const now = clock();
      await store.pruneIdempotency(now);
      await store.pruneVoteLog?.(now);
      await store.pruneExports?.(now);
    },
    opts.onError,
  );
}

/**
 * Drains the pack queue (store/blob-pack.ts) every `intervalMs`: batch after batch while there is
 * more, one at a time. Each blob is its own transaction, so stopping (or a crash) between two
 * loses nothing: the queue rows of a batch are deleted only after the batch.
 */
export function startPacking(store: PackStore, opts: { intervalMs: number; onError?: (err: unknown) => void }): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  let stopped = false;
  const drain = async () => {
    while (!stopped && (await store.packPending()).more);
  };
  const tick = () => {
    if (running || stopped) return;
    running = drain()
      .catch((err) => opts.onError?.(err))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, opts.intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * Sweeps object storage (store/blob-sweep.ts) every `intervalMs`: the unreferenced objects older
 * than `graceMs` go (left by a crash between PUT and COMMIT, or by a purge).
 */
export function startObjectSweep(
  store: Pick<BlobObjectStore, 'sweepObjects'>,
  opts: { intervalMs: number; graceMs: number; onError?: (err: unknown) => void },
): { stop(): Promise<void> } {
  return every(opts.intervalMs, () => store.sweepObjects(opts.graceMs), opts.onError);
}

/**
 * Keeps PostgreSQL's planner statistics up with a young database (store/planner-stats.ts) every
 * `intervalMs`, one check at a time. `onAnalyzed` hears which tables were analyzed.
 */
export function startPlannerStats(
  store: { refreshPlannerStats(): Promise<string[]> },
  opts: { intervalMs: number; onAnalyzed?: (tables: string[]) => void; onError?: (err: unknown) => void },
): { stop(): Promise<void> } {
  return every(
    opts.intervalMs,
    async () => {
      const tables = await store.refreshPlannerStats();
      if (tables.length) opts.onAnalyzed?.(tables);
    },
    opts.onError,
  );
}

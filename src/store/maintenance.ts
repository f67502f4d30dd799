/** Periodic store upkeep run by a serving process (not by bash workers or one-off tools). */
import type { IdempotencyStore } from './idempotency.js';
import type { VoteStore } from './votes.js';

/**
 * Prunes expired idempotency rows (and, given the store's vote log, score changes past their
 * time) every `intervalMs` (and never twice at once: a slow prune
 * skips the ticks it overlaps). Errors are reported, not thrown: the next tick tries again.
 * The timer does not keep the process alive; `stop` ends it and waits for a prune under way.
 */
export function startIdempotencyPruning(
  store: Pick<IdempotencyStore, 'pruneIdempotency'> & Partial<Pick<VoteStore, 'pruneVoteLog'>>,
  opts: { intervalMs: number; clock?: () => number; onError?: (err: unknown) => void },
): { stop(): Promise<void> } {
  const clock = opts.clock ?? Date.now;
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    const now = clock();
    running = store
      .pruneIdempotency(now)
      .then(() => store.pruneVoteLog?.(now))
      .then(
        () => undefined,
        (err) => opts.onError?.(err),
      )
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, opts.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

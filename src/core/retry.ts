/**
 * When a mutation's plan is overtaken by a concurrent write (another instance committed to the
 * same path between our read and our commit), the handler is re-run against the new head.
 *
 * Retries are bounded by time, not only by count: with several instances each draining a queue
 * of writes to one hot file, a writer can lose a dozen races in a row while the others commit
 * back to back (measured: up to 8 losses for 50 appends split over two processes on an idle
 * machine). A count alone turned those into spurious EDIT_CONFLICTs on slower machines; a time
 * budget lets the writer through once the others' queues drain, and still ends a true livelock.
 */
export const CONFLICT_RETRY_MIN_ATTEMPTS = 12;
export const CONFLICT_RETRY_BUDGET_MS = 10_000;
const MAX_BACKOFF_MS = 50;

/**
 * The delay before attempt `attempt + 1` after `attempt` attempts lost their race, `elapsedMs`
 * after the first began, or null when the caller should give up. `random` in [0, 1).
 */
export function conflictRetryDelay(attempt: number, elapsedMs: number, random: number, budgetMs = CONFLICT_RETRY_BUDGET_MS): number | null {
  if (attempt >= CONFLICT_RETRY_MIN_ATTEMPTS && elapsedMs >= budgetMs) return null;
  // Full jitter, so writers that collided once do not collide again on the same schedule.
  return random * Math.min(MAX_BACKOFF_MS, 2 ** attempt);
}

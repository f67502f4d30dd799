/**
 * Cooperative slicing for CPU-heavy pure code (edits and diffs of files up to MAX_FILE_BYTES).
 * The work is a generator that yields at checkpoints (every ~1 M characters of progress);
 * `runSync` drives it to the end at once (tests, small inputs), `runSliced` gives the event
 * loop back whenever a slice has run for `sliceMs`, so one large request never holds the
 * server for more than a slice.
 */
export type Work<T> = Generator<void, T, void>;

/** Runs the work to completion on the spot. */
export function runSync<T>(work: Work<T>): T {
  for (;;) {
    const r = work.next();
    if (r.done) return r.value;
  }
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs the work, yielding to the event loop between checkpoints once `sliceMs` has passed.
 * 20 ms: work checkpoints every 256 Ki units (core/find.ts WINDOW: ≤ ~10 ms on the loaded test
 * VM), so a slice rarely exceeds ~30 ms, and a yield (one setImmediate) costs next to nothing.
 */
export async function runSliced<T>(work: Work<T>, sliceMs = 20): Promise<T> {
  let start = performance.now();
  for (;;) {
    const r = work.next();
    if (r.done) return r.value;
    if (performance.now() - start >= sliceMs) {
      await tick();
      start = performance.now();
    }
  }
}

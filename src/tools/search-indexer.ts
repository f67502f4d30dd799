/**
 * Drains the search outbox (store/search-index.ts) into the index: every SEARCH_INDEX_INTERVAL_MS
 * in the background of each server process, and before a search (so an agent finds what it just
 * wrote). Batches are bounded (items and bytes of text), and the loop yields to the event loop
 * between them; one drain runs at a time per store in this process, and one indexer per database
 * (the store's lock), so instances share the work without racing. Once the outbox is empty the
 * background loop merges SQLite's index segments (compactSearchIndex).
 */
import type { Config } from '../config.js';
import type { Store } from '../store/types.js';

/** Outbox rows per batch, and text read per batch: a batch holds SQLite's writer a few ms. */
const BATCH_ITEMS = 200;
const BATCH_BYTES = 512 * 1024;
/** A search drains at most this long before querying (the background loop finishes the rest). */
const CATCH_UP_MS = 100;
/**
 * Pages one merge step writes (SQLite): ~10-20 ms of the write lock on a 2-core VM, though a
 * common term's doclist is written whole (a step of the bench:search corpus took up to 132 ms).
 */
const COMPACT_PAGES = 64;

const running = new WeakMap<Store, Promise<number>>();
/** Stores whose index took documents since its last merge found nothing to do. */
const unmerged = new WeakSet<Store>();

/** Drains batches until the outbox is empty or `budgetMs` passed; returns the rows drained. */
export function drainSearchOutbox(store: Store, config: Config, budgetMs: number): Promise<number> {
  const current = running.get(store);
  if (current) return current;
  const run = (async () => {
    const started = performance.now();
    let total = 0;
    try {
      for (;;) {
        // An empty outbox costs one read, not a write transaction.
        if (!(await store.pendingSearchRange())) return total;
        const batch = await store.indexPending({ maxItems: BATCH_ITEMS, maxBytes: BATCH_BYTES, maxFileBytes: config.searchMaxFileBytes });
        total += batch.done;
        if (batch.done) unmerged.add(store);
        // A batch that was neither full nor cut emptied the outbox: the next tick takes what arrives
        // meanwhile in one batch (several writes to one file are then indexed once).
        if (batch.busy || !batch.more || performance.now() - started >= budgetMs) return total;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      running.delete(store);
    }
  })();
  running.set(store, run);
  return run;
}

/**
 * While the outbox stays empty: merge steps of the index until one finds nothing to merge or
 * `budgetMs` passed (each step is a transaction of its own, so writes interleave). Measured
 * with the words write load's churn: ~+8% of FTS5's work a document, for 3 segments instead of
 * 20 (docs/benchmarks.md, "Merging the SQLite index's segments").
 */
export async function compactSearchIndex(store: Store, budgetMs: number): Promise<void> {
  const started = performance.now();
  while (unmerged.has(store) && performance.now() - started < budgetMs) {
    if (running.has(store) || (await store.pendingSearchRange())) return;
    if (!(await store.compactSearchIndex({ pages: COMPACT_PAGES }))) unmerged.delete(store);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Before a search: what was written before it is indexed, within CATCH_UP_MS at most. Only the
 * rows queued before the search count (writers keep adding more); an empty outbox costs one read.
 * A drain already running here, or another process holding the indexer, is waited for, never
 * past the budget.
 */
export async function catchUpSearch(store: Store, config: Config): Promise<void> {
  const started = performance.now();
  const target = (await store.pendingSearchRange())?.max;
  if (target === undefined) return;
  for (;;) {
    const left = CATCH_UP_MS - (performance.now() - started);
    if (left <= 0) return;
    const current = running.get(store);
    if (current) await Promise.race([current, sleep(left)]);
    else if ((await drainSearchOutbox(store, config, left)) === 0) await sleep(Math.min(5, left));
    const range = await store.pendingSearchRange();
    if (!range || range.min > target) return;
  }
}

/** The background loop of one server process; stop() waits for a batch in flight. */
export function startSearchIndexer(store: Store, config: Config, onError: (err: unknown) => void): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<unknown> = Promise.resolve();
  // An index left in segments by an earlier process (or a database upgraded to migration 12) is
  // merged at the first idle tick, not only after this process indexes something.
  unmerged.add(store);
  const tick = () => {
    timer = null;
    if (stopped) return;
    inFlight = drainSearchOutbox(store, config, 1000)
      .then(() => compactSearchIndex(store, 1000))
      .catch(onError)
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, config.searchIndexIntervalMs).unref();
      });
  };
  timer = setTimeout(tick, config.searchIndexIntervalMs).unref();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
    },
  };
}

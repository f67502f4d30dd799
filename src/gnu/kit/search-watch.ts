/**
 * The command side of watching regex searches that run away (src/sandbox/search-watch.ts says
 * why and how the pool stops them): a search marks itself running in a cell it shares with the
 * pool. Without a cell (tests, one-off shells) searches are not watched.
 */

/** What a running search is, in cell[1]; 0 when none runs. */
export const SEARCH = { grep: 1, findRegex: 2 } as const;
export type SearchKind = (typeof SEARCH)[keyof typeof SEARCH];

/** cell[0]: searches started (so the pool tells one long search from many short ones); cell[1]: the kind running. */
let cell: Int32Array | null = null;

/** In a worker: the shared cell the pool watches. Elsewhere (tests, one-off shells) searches are not watched. */
export function watchSearches(buffer: SharedArrayBuffer): void {
  cell = new Int32Array(buffer);
}

/** Runs one synchronous search, marked as running while it does. */
export function watched<T>(kind: SearchKind, search: () => T): T {
  const c = cell;
  if (!c) return search();
  Atomics.add(c, 0, 1);
  Atomics.store(c, 1, kind);
  try {
    return search();
  } finally {
    Atomics.store(c, 1, 0);
  }
}

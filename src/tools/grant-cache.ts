/**
 * The live shares from one owner to one recipient, kept for GRANT_TTL_MS per process: a call
 * through /shared then costs no query (measured on PostgreSQL: the lookup was half of a mounted
 * read's server CPU). Liveness as the contract says it: every change on this instance (share,
 * revoke, leave, block) clears the cache, so the next request here sees it; other instances see
 * it within GRANT_TTL_MS; an expiry is checked at every use. "No share" is never kept, so a first
 * share shows on every instance at once (and probes of strangers' mounts cost a query, as before).
 */
import type { ShareRecord } from '../store/shares.js';
import type { Store } from '../store/types.js';

export const GRANT_TTL_MS = 500;
/** Past this many entries the cache starts over (entries are only ever useful for GRANT_TTL_MS). */
const MAX_ENTRIES = 10_000;

interface Entry {
  atMs: number;
  shares: ShareRecord[];
}

const caches = new WeakMap<Store, Map<string, Entry>>();

function cacheOf(store: Store): Map<string, Entry> {
  let c = caches.get(store);
  if (!c) caches.set(store, (c = new Map()));
  return c;
}

/** The live shares from `ownerSlug` to `recipientId` (none expired at `nowMs`). */
export async function liveShares(store: Store, recipientId: string, ownerSlug: string, nowMs: number): Promise<ShareRecord[]> {
  const cache = cacheOf(store);
  const key = `${recipientId}\u0000${ownerSlug}`;
  let entry = cache.get(key);
  if (!entry || nowMs - entry.atMs >= GRANT_TTL_MS || nowMs < entry.atMs) {
    // Grants are read on the primary even where replicas serve the call: a revoke shows here as the
    // contract says (GRANT_TTL_MS), not a replica's lag later.
    const lookup = () => store.liveSharesFrom(recipientId, ownerSlug, nowMs);
    const shares = await (store.onPrimary ? store.onPrimary(lookup) : lookup());
    // Only what exists is kept: a share made on another instance shows at once where there was none.
    if (!shares.length) {
      cache.delete(key);
      return shares;
    }
    if (cache.size >= MAX_ENTRIES) cache.clear();
    cache.set(key, (entry = { atMs: nowMs, shares }));
  }
  return entry.shares.filter((s) => s.expiresAtMs === null || s.expiresAtMs > nowMs);
}

/** Shares changed on this instance: the next call reads them again. */
export function forgetGrants(store: Store): void {
  caches.get(store)?.clear();
}

/**
 * What tools need to handle big trees without holding the event loop or answering with
 * everything: walks that yield between pages, lookups in chunks, the file quota check, and
 * capped entry lists. The store's reads are synchronous on SQLite, and `await` on a settled
 * promise does not let other requests in: only a macrotask turn (setImmediate) does.
 */
import { StoreQuotaExceeded, type NodeRecord } from '../store/types.js';
import { quotaError } from './store-errors.js';
import type { ToolContext } from './registry.js';

/** Entries of a changeset listed in any one response (list_changes pages the rest). */
export const ENTRY_PAGE = 100;
/** Nodes per read while walking a tree (~3–10 ms of SQLite work per page). */
const WALK_PAGE = 1000;

export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
/** Items a loop over a tree's nodes handles between turns of the event loop (~5–15 ms of JS). */
export const YIELD_EVERY = 5000;

/**
 * Every live node strictly below `dir`, in path order, a page at a time with a turn of the event
 * loop between pages. `max`: stop (and return null) once more than that many were found.
 */
export async function walkSubtree(ctx: ToolContext, dir: string, max = Number.POSITIVE_INFINITY): Promise<NodeRecord[] | null> {
  const out: NodeRecord[] = [];
  for (let after: string | null = null; ;) {
    const page = await ctx.store.listSubtree(ctx.auth.agentId, dir, WALK_PAGE, after);
    for (const n of page.nodes) out.push(n);
    if (out.length > max) return null;
    if (!page.nextAfter) return out;
    after = page.nextAfter;
    await yieldToLoop();
  }
}

/** getNodes in chunks, yielding between them (SQLite looks paths up one by one). */
export async function getNodesChunked(ctx: ToolContext, paths: string[]): Promise<Map<string, NodeRecord>> {
  if (paths.length <= WALK_PAGE) return ctx.store.getNodes(ctx.auth.agentId, paths);
  const out = new Map<string, NodeRecord>();
  for (let i = 0; i < paths.length; i += WALK_PAGE) {
    for (const [p, n] of await ctx.store.getNodes(ctx.auth.agentId, paths.slice(i, i + WALK_PAGE))) out.set(p, n);
    await yieldToLoop();
  }
  return out;
}

/**
 * Refuses early a change that would add `adding` live nodes past the file quota, before any of
 * it is written (the commit checks again, atomically; this spares a doomed big commit's work).
 */
export async function checkFileQuota(ctx: ToolContext, adding: number): Promise<void> {
  const limit = ctx.config.maxFilesPerAgent;
  const used = (await ctx.store.getAgent(ctx.auth.agentId))?.nodeCount ?? 0;
  if (adding > 0 && used + adding > limit) throw quotaError(new StoreQuotaExceeded('files', used, adding, limit));
}

/** How many live nodes the agent may still add (for walks that can stop early). */
export async function filesRemaining(ctx: ToolContext): Promise<number> {
  const used = (await ctx.store.getAgent(ctx.auth.agentId))?.nodeCount ?? 0;
  return Math.max(0, ctx.config.maxFilesPerAgent - used);
}

/**
 * The first ENTRY_PAGE items of a list a response reports, with the full count and, when cut,
 * where the rest is: list_changes with the changeset id pages through every entry.
 */
export function capped<T>(items: T[], changesetId: string | null): { items: T[]; count: number; truncated: boolean; note?: string } {
  if (items.length <= ENTRY_PAGE) return { items, count: items.length, truncated: false };
  return {
    items: items.slice(0, ENTRY_PAGE),
    count: items.length,
    truncated: true,
    note:
      `Showing the first ${ENTRY_PAGE} of ${items.length} entries.` +
      (changesetId ? ` list_changes with changesetId "${changesetId}" lists them all, page by page (cursor: nextCursor).` : ''),
  };
}

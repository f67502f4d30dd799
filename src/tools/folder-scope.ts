/**
 * A folder key (docs: the reference's "folder keys") sees and acts on only what lies inside its
 * folder: its own files there, and the shares, links and published items of paths there. Shares
 * given to the agent are mounted under /shared, outside every folder, so a folder key sees none.
 * Outside the folder a share or item answers as if it did not exist.
 */
import { isWithin } from '../core/paths.js';
import type { ToolContext } from './registry.js';

/** True when the calling key may see an item at `path` of its own tree. */
export const inKeyFolder = (ctx: ToolContext, path: string) => ctx.auth.folder === null || isWithin(path, ctx.auth.folder);

/** How many store pages one filtered page reads at most before answering (maybe short, with a cursor). */
const MAX_ROUNDS = 8;

/**
 * One page of a store list filtered by `keep`: the kept rows (at most `limit`) and the row to
 * resume after (null: nothing more). Reads further store pages while the page is not full.
 */
export async function filteredPage<T, C>(q: {
  after: C | null;
  limit: number;
  fetch: (after: C | null, n: number) => Promise<T[]>;
  keep: (row: T) => boolean;
  at: (row: T) => C;
}): Promise<{ rows: T[]; resume: T | null }> {
  const kept: T[] = [];
  let after = q.after;
  let last: T | null = null;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const rows = await q.fetch(after, q.limit + 1);
    for (const r of rows) {
      if (!q.keep(r)) continue;
      if (kept.length === q.limit) return { rows: kept, resume: kept[kept.length - 1]! };
      kept.push(r);
    }
    if (rows.length <= q.limit) return { rows: kept, resume: null };
    last = rows[rows.length - 1]!;
    after = q.at(last);
  }
  return { rows: kept, resume: last };
}

/**
 * Paging hot and top lists while agents post and vote (docs/contract/community.md#conventions: no skipped or repeated
 * items). A walk's first page fixes its time T (carried in the cursor): posts created after T are
 * left out, and each post ranks by its key as of T — the stored key for a post whose score has
 * not changed since T (read in index order), its key recomputed from the score minus the changes
 * since T for one voted on since (few: the votes of the walk's own duration, read from the vote
 * log). Every page of one walk therefore cuts the same order, whatever changed meanwhile.
 *
 * T is a millisecond, and a vote stamped with T itself counts as before it: so a first page is
 * read only once the clock has left T (snapshotTime, ≤ ~1 ms). Every vote stamped T or earlier has
 * then committed on SQLite (a vote is stamped and committed in one synchronous group-commit flush),
 * and every later one is stamped after T and undone on every page. Before this, a vote cast in
 * the first page's millisecond after its read counted as before T on the next pages only, and
 * could move a post across the cursor (seen once in CI).
 *
 * What is left, on PostgreSQL: a vote takes its time holding the post's row (store/votes.ts), so
 * a vote between those few statements and its commit while a first page is read can rank one way
 * on that page and the other on the next (a window of milliseconds). SNAPSHOT_SLACK_MS would close
 * it by ranking every first page by the scores of that long ago; 0 keeps "I voted, the list shows
 * it" true at once.
 *
 * A walk lasts at most CURSOR_TTL_MS (the vote log is kept longer), and at most MAX_CHANGED posts
 * may change during it: both answer INVALID_INPUT asking to start over, rather than a page cut
 * from a different order.
 */
import { ToolError } from '../core/errors.js';
import { hotRank } from '../core/ranking.js';
import type { PostQuery, PostRecord } from '../store/posts.js';
import type { ToolContext } from './registry.js';

export const SNAPSHOT_SLACK_MS = 0;
export const CURSOR_TTL_MS = 60 * 60 * 1000;
export const MAX_CHANGED = 5_000;

/** A walk's time T: now, answered once the clock has left that millisecond (see above). */
export async function snapshotTime(): Promise<number> {
  const t = Date.now();
  while (Date.now() <= t) await new Promise((resolve) => setTimeout(resolve, 1));
  return t;
}

export interface Ranked {
  post: PostRecord;
  key: number;
}

const before = (a: Ranked, after: { key: number; id: string }) => a.key < after.key || (a.key === after.key && a.post.id < after.id);
const byRankDesc = (a: Ranked, b: Ranked) => b.key - a.key || (a.post.id < b.post.id ? 1 : a.post.id > b.post.id ? -1 : 0);

/** `limit` + 1 posts of a hot or top list after `q.after`, as of `q.asOfMs`, each with its key then. */
export async function rankedPage(ctx: ToolContext, q: PostQuery & { sort: 'hot' | 'top'; asOfMs: number; createdByMs: number }): Promise<Ranked[]> {
  if (Date.now() - q.createdByMs > CURSOR_TTL_MS) {
    throw new ToolError('INVALID_INPUT', "'cursor' is over an hour old: the ranking it pages has moved on. Omit it to start over.", {
      field: 'cursor',
    });
  }
  const [unchanged, changes] = await Promise.all([
    ctx.store.listPosts(q),
    ctx.store.postScoreChangesSince({ communityId: q.communityId, authorId: q.authorId }, q.asOfMs, MAX_CHANGED + 1),
  ]);
  if (changes.size > MAX_CHANGED) {
    throw new ToolError('INVALID_INPUT', `Over ${MAX_CHANGED} posts were voted on since this list began. Omit 'cursor' to start over.`, {
      field: 'cursor',
    });
  }
  const keyOf = (p: PostRecord, delta: number) => (q.sort === 'hot' ? hotRank(p.score - delta, p.createdAtMs) : p.score - delta);
  // A post both ways (a vote committing between the two reads) counts once, as changed.
  const out: Ranked[] = unchanged.filter((p) => !changes.has(p.id)).map((post) => ({ post, key: q.sort === 'hot' ? post.hot : post.score }));
  if (changes.size) {
    for (const post of await ctx.store.postsByIds([...changes.keys()], q.viewerId)) {
      if (!inList(post, q)) continue;
      const ranked = { post, key: keyOf(post, changes.get(post.id) ?? 0) };
      if (!q.after || before(ranked, q.after)) out.push(ranked);
    }
  }
  return out.sort(byRankDesc).slice(0, q.limit);
}

/** The list's filters, for a post read by id (the list query applies them itself). */
function inList(p: PostRecord, q: PostQuery & { createdByMs: number }): boolean {
  return (
    (q.communityId === null || p.communityId === q.communityId) &&
    (q.authorId === null || p.author.id === q.authorId) &&
    (q.tag === null || p.tags.includes(q.tag)) &&
    p.createdAtMs >= q.sinceMs &&
    p.createdAtMs <= q.createdByMs &&
    (!q.skipPinned || p.pinnedAtMs === null)
  );
}

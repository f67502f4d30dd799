/**
 * Votes (docs/contract/community.md#communities): absolute, one row per agent and target (the primary key), and the
 * target's score and its author's karma changed by the difference in the same transaction. The
 * target's row is locked first (PostgreSQL FOR UPDATE), so two votes of one agent on one target
 * (a retry racing the first try) run one after the other: the second sees the first's row and
 * changes nothing. Without that lock both would read "no vote yet" and count twice.
 */
import { hotRank } from '../core/ranking.js';
import { dialect, get, run, sql, type Db, type Program } from './sql.js';

export type VoteTarget = 'post' | 'comment';

export type VoteOutcome = { kind: 'voted'; score: number; changed: boolean } | { kind: 'not_found' };

/** How long score changes are kept: a ranking cursor is valid this long (tools/post-ranking.ts). */
export const VOTE_LOG_TTL_MS = 2 * 60 * 60 * 1000;

export interface VoteStore {
  vote(agentId: string, target: VoteTarget, targetId: string, value: number, atMs: number): Promise<VoteOutcome>;
  /** Posts (of a community or an author, or all) whose score changed after `sinceMs`, with the sum of those changes (at most `limit`). */
  postScoreChangesSince(scope: { communityId: string | null; authorId: string | null }, sinceMs: number, limit: number): Promise<Map<string, number>>;
  /** The post's comments whose score changed after `sinceMs`, with the sum of those changes. */
  commentScoreChangesSince(postId: string, sinceMs: number): Promise<Map<string, number>>;
  /** Deletes score changes older than VOTE_LOG_TTL_MS; returns how many. */
  pruneVoteLog(nowMs: number): Promise<number>;
  /** The agent's votes on these targets (absent: none). */
  votesOf(agentId: string, targetIds: readonly string[]): Promise<Map<string, number>>;
}

const FOR_UPDATE = dialect({ sqlite: '', postgres: 'FOR UPDATE' });
// The third column: the post the change is logged under (a post's own id, a comment's post).
const LOCK = {
  post: sql`SELECT author_id, score, id, created_at_ms FROM posts WHERE id = ? AND deleted_at_ms IS NULL AND removed_at_ms IS NULL ${FOR_UPDATE}`,
  comment: sql`SELECT author_id, score, post_id, created_at_ms FROM comments WHERE id = ? AND deleted_at_ms IS NULL AND removed_at_ms IS NULL ${FOR_UPDATE}`,
};
const SCORE = {
  post: sql`UPDATE posts SET score = score + ?, hot = ?, voted_at_ms = ${dialect({ sqlite: 'max', postgres: 'GREATEST' })}(COALESCE(voted_at_ms, 0), ?) WHERE id = ?`,
  comment: sql`UPDATE comments SET score = score + ? WHERE id = ?`,
};
const LOG = sql`INSERT INTO vote_log (target_id, post_id, at_ms, delta) VALUES (?, ?, ?, ?)`;
// The log is the outer loop (its at_ms index reads only the changes since): SQLite, left free,
// walked the community's 100,000 posts probing the log for each (15 ms a call).
const changesOf = (filter: string) => sql`
  SELECT l.target_id, SUM(l.delta) FROM vote_log l ${dialect({ sqlite: 'CROSS JOIN', postgres: 'JOIN' })} posts p ON p.id = l.target_id
   WHERE l.at_ms > ? AND l.target_id = l.post_id AND ${filter} GROUP BY l.target_id LIMIT ?`;
const POST_CHANGES = { community: changesOf('p.community_id = ?'), author: changesOf('p.author_id = ?'), all: changesOf('? = ?') };
const COMMENT_CHANGES = sql`
  SELECT target_id, SUM(delta) FROM vote_log WHERE post_id = ? AND at_ms > ? AND target_id <> post_id GROUP BY target_id`;
const PRUNE = sql`DELETE FROM vote_log WHERE at_ms < ?`;
const OLD = sql`SELECT value FROM votes WHERE agent_id = ? AND target_id = ?`;
const PUT = sql`
  INSERT INTO votes (agent_id, target_id, value, updated_at_ms) VALUES (?, ?, ?, ?)
  ON CONFLICT (agent_id, target_id) DO UPDATE SET value = excluded.value, updated_at_ms = excluded.updated_at_ms`;
const DROP = sql`DELETE FROM votes WHERE agent_id = ? AND target_id = ?`;
const KARMA = sql`UPDATE agents SET karma = karma + ? WHERE id = ?`;
const MINE = sql`SELECT target_id, value FROM votes WHERE agent_id = ? AND target_id = ?*`;

export function voteStore(db: Db): VoteStore {
  return {
    vote(agentId, target, targetId, value, atMs) {
      return db.write(
        function* (): Program<VoteOutcome> {
          const row = yield* get(LOCK[target], [targetId]);
          if (!row) return { kind: 'not_found' };
          // The change's time is taken holding the row: a ranking snapshot read after it sees it
          // committed or as "since" (tools/post-ranking.ts), except in the few statements to the commit.
          atMs = Math.max(atMs, Date.now());
          const score = Number(row[1]);
          const old = Number((yield* get(OLD, [agentId, targetId]))?.[0] ?? 0);
          const delta = value - old;
          if (delta === 0) return { kind: 'voted', score, changed: false };
          if (value === 0) yield* run(DROP, [agentId, targetId]);
          else yield* run(PUT, [agentId, targetId, value, atMs]);
          const next = score + delta;
          if (target === 'post') yield* run(SCORE.post, [delta, hotRank(next, Number(row[3])), atMs, targetId]);
          else yield* run(SCORE.comment, [delta, targetId]);
          yield* run(LOG, [targetId, String(row[2]), atMs, delta]);
          yield* run(KARMA, [delta, String(row[0])]);
          return { kind: 'voted', score: next, changed: true };
        },
        { atomic: true },
      );
    },
    async postScoreChangesSince(scope, sinceMs, limit) {
      const [q, params] =
        scope.communityId !== null
          ? [POST_CHANGES.community, [scope.communityId]]
          : scope.authorId !== null
            ? [POST_CHANGES.author, [scope.authorId]]
            : [POST_CHANGES.all, [0, 0]];
      return new Map((await db.all(q, [sinceMs, ...params, limit])).map((r) => [String(r[0]), Number(r[1])]));
    },
    async commentScoreChangesSince(postId, sinceMs) {
      return new Map((await db.all(COMMENT_CHANGES, [postId, sinceMs])).map((r) => [String(r[0]), Number(r[1])]));
    },
    async pruneVoteLog(nowMs) {
      return db.write(function* () {
        return yield* run(PRUNE, [nowMs - VOTE_LOG_TTL_MS]);
      });
    },
    async votesOf(agentId, ids) {
      const out = new Map<string, number>();
      if (!ids.length) return out;
      for (const r of await db.all(MINE, [agentId, [...ids]])) out.set(String(r[0]), Number(r[1]));
      return out;
    },
  };
}

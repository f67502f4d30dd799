/**
 * The social graph: who follows whom, who blocked whom. Counts live on the agent rows and change
 * in the transaction that changes the edge, so 50 concurrent follows count 50. Every program that
 * changes an edge takes the log's lock first (events.ts), so a follow and a block of the same
 * pair cannot interleave on any instance.
 */
import { DROP_UNREAD, MARK_FROM_ACTOR, appendEvent, lockAgent, lockLog, type NewEvent, type Notify } from './events.js';
import { END_PAIR_SHARES } from './shares.js';
import { get, run, sql, type Db, type Program } from './sql.js';
import { PROFILE_WIDTH, profileColumns, profileFromRow, type ProfileRecord } from './social-rows.js';

export interface Relation {
  /** viewer follows other */
  following: boolean;
  /** other follows viewer */
  followsYou: boolean;
  /** viewer blocked other */
  blocking: boolean;
  /** other blocked viewer (never shown to the viewer: it only decides refusals) */
  blockedBy: boolean;
}

export type FollowOutcome = 'followed' | 'unchanged' | 'blocked' | 'blocking' | 'full';

export interface EdgeCursor {
  atMs: number;
  id: string;
}

export interface EdgeItem {
  profile: ProfileRecord;
  sinceMs: number;
}

export interface GraphStore {
  relation(viewerId: string, otherId: string): Promise<Relation>;
  /** The event (and its notification) is written only when the follow is new; 'full' when the follower already follows maxFollowing. */
  follow(followerId: string, followeeId: string, event: NewEvent, notify: Notify, maxFollowing: number): Promise<FollowOutcome>;
  unfollow(followerId: string, followeeId: string): Promise<boolean>;
  /** Blocking ends follows and shares both ways and hides what the blocked agent sent (its unread counts drop). */
  block(blockerId: string, blockedId: string, atMs: number): Promise<boolean>;
  unblock(blockerId: string, blockedId: string): Promise<boolean>;
  /** Newest first; agents the viewer blocked are left out. */
  listFollows(q: {
    agentId: string;
    direction: 'followers' | 'following';
    viewerId: string;
    after: EdgeCursor | null;
    limit: number;
  }): Promise<EdgeItem[]>;
  listBlocked(blockerId: string, after: EdgeCursor | null, limit: number): Promise<EdgeItem[]>;
}

const RELATION = sql`
  SELECT (SELECT COUNT(*) FROM follows WHERE follower_id = ? AND followee_id = ?),
         (SELECT COUNT(*) FROM follows WHERE follower_id = ? AND followee_id = ?),
         (SELECT COUNT(*) FROM blocks WHERE blocker_id = ? AND blocked_id = ?),
         (SELECT COUNT(*) FROM blocks WHERE blocker_id = ? AND blocked_id = ?)`;
const IS_BLOCKED = sql`SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?`;
const FOLLOWING_COUNT = sql`SELECT following FROM agents WHERE id = ?`;
const IS_FOLLOWING = sql`SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?`;
const INSERT_FOLLOW = sql`INSERT INTO follows (follower_id, followee_id, created_at_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`;
const DELETE_FOLLOW = sql`DELETE FROM follows WHERE follower_id = ? AND followee_id = ?`;
const ADD_FOLLOWING = sql`UPDATE agents SET following = following + ? WHERE id = ?`;
const ADD_FOLLOWERS = sql`UPDATE agents SET followers = followers + ? WHERE id = ?`;
const INSERT_BLOCK = sql`INSERT INTO blocks (blocker_id, blocked_id, created_at_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`;
const DELETE_BLOCK = sql`DELETE FROM blocks WHERE blocker_id = ? AND blocked_id = ?`;
const UNREAD_FROM = sql`SELECT COALESCE(SUM(unread), 0) FROM conversation_members WHERE agent_id = ? AND other_id = ?`;
const CLEAR_UNREAD_FROM = sql`UPDATE conversation_members SET unread = 0 WHERE agent_id = ? AND other_id = ?`;
const DROP_UNREAD_MESSAGES = sql`
  UPDATE agents SET unread_messages = CASE WHEN unread_messages > ? THEN unread_messages - ? ELSE 0 END WHERE id = ?`;

const edgeQuery = (table: string, owner: string, other: string, hideBlocked: boolean) => sql`
  SELECT ${profileColumns('a')}, f.created_at_ms FROM ${table} f JOIN agents a ON a.id = f.${other}
   WHERE f.${owner} = ? AND (f.created_at_ms, f.${other}) < (?, ?)
     ${hideBlocked ? 'AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = ? AND b.blocked_id = a.id)' : ''}
   ORDER BY f.created_at_ms DESC, f.${other} DESC LIMIT ?`;
const FOLLOWERS = edgeQuery('follows', 'followee_id', 'follower_id', true);
const FOLLOWING = edgeQuery('follows', 'follower_id', 'followee_id', true);
const BLOCKED = edgeQuery('blocks', 'blocker_id', 'blocked_id', false);

const NEWEST: EdgeCursor = { atMs: Number.MAX_SAFE_INTEGER, id: '' };
const edgeItem = (r: unknown[]): EdgeItem => ({ profile: profileFromRow(r), sinceMs: Number(r[PROFILE_WIDTH]) });

function* removeFollow(followerId: string, followeeId: string) {
  const n = yield* run(DELETE_FOLLOW, [followerId, followeeId]);
  if (n) {
    yield* run(ADD_FOLLOWING, [-1, followerId]);
    yield* run(ADD_FOLLOWERS, [-1, followeeId]);
  }
  return n > 0;
}

export function graphStore(db: Db): GraphStore {
  return { ...follows(db), ...blocks(db) };
}

/** Following: the relation between two agents, follow, unfollow, the lists. */
function follows(db: Db): Pick<GraphStore, 'relation' | 'follow' | 'unfollow' | 'listFollows'> {
  return {
    async relation(viewerId, otherId) {
      const r = (await db.get(RELATION, [viewerId, otherId, otherId, viewerId, viewerId, otherId, otherId, viewerId]))!;
      return { following: Number(r[0]) > 0, followsYou: Number(r[1]) > 0, blocking: Number(r[2]) > 0, blockedBy: Number(r[3]) > 0 };
    },
    follow(followerId, followeeId, event, notify, maxFollowing) {
      return db.write(
        function* (): Program<FollowOutcome> {
          yield* lockLog();
          if (yield* get(IS_BLOCKED, [followeeId, followerId])) return 'blocked';
          if (yield* get(IS_BLOCKED, [followerId, followeeId])) return 'blocking';
          // Under the log's lock, so concurrent follows cannot pass the cap together.
          const count = Number((yield* get(FOLLOWING_COUNT, [followerId]))?.[0] ?? 0);
          if (count >= maxFollowing && !(yield* get(IS_FOLLOWING, [followerId, followeeId]))) return 'full';
          if (!(yield* run(INSERT_FOLLOW, [followerId, followeeId, event.createdAtMs]))) return 'unchanged';
          yield* run(ADD_FOLLOWING, [1, followerId]);
          yield* run(ADD_FOLLOWERS, [1, followeeId]);
          yield* appendEvent(event, [notify]);
          return 'followed';
        },
        { atomic: true },
      );
    },
    unfollow(followerId, followeeId) {
      return db.write(
        function* () {
          yield* lockLog();
          return yield* removeFollow(followerId, followeeId);
        },
        { atomic: true },
      );
    },
    async listFollows({ agentId, direction, viewerId, after, limit }) {
      const c = after ?? NEWEST;
      const q = direction === 'followers' ? FOLLOWERS : FOLLOWING;
      return (await db.all(q, [agentId, c.atMs, c.id, viewerId, limit])).map(edgeItem);
    },
  };
}

/** Blocking, which also ends the follows, shares and unread counts between the two. */
function blocks(db: Db): Pick<GraphStore, 'block' | 'unblock' | 'listBlocked'> {
  return {
    block(blockerId, blockedId, atMs) {
      return db.write(
        function* () {
          yield* lockLog();
          // The blocker's unread counts change below: its row first (events.ts, lock order).
          yield* lockAgent(blockerId);
          if (!(yield* run(INSERT_BLOCK, [blockerId, blockedId, atMs]))) return false;
          yield* removeFollow(blockerId, blockedId);
          yield* removeFollow(blockedId, blockerId);
          // Shares between the two end, both ways: the mount vanishes on the next request.
          yield* run(END_PAIR_SHARES, [atMs, blockerId, blockedId, blockedId, blockerId]);
          const hidden = yield* run(MARK_FROM_ACTOR, [blockerId, blockedId]);
          if (hidden) yield* get(DROP_UNREAD, [hidden, hidden, blockerId]);
          const unread = Number((yield* get(UNREAD_FROM, [blockerId, blockedId]))?.[0] ?? 0);
          if (unread) {
            yield* run(CLEAR_UNREAD_FROM, [blockerId, blockedId]);
            yield* run(DROP_UNREAD_MESSAGES, [unread, unread, blockerId]);
          }
          return true;
        },
        { atomic: true },
      );
    },
    unblock(blockerId, blockedId) {
      return db.write(
        function* () {
          yield* lockLog();
          return (yield* run(DELETE_BLOCK, [blockerId, blockedId])) > 0;
        },
        { atomic: true },
      );
    },
    async listBlocked(blockerId, after, limit) {
      const c = after ?? NEWEST;
      return (await db.all(BLOCKED, [blockerId, c.atMs, c.id, limit])).map(edgeItem);
    },
  };
}

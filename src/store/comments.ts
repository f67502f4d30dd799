/**
 * Comments (docs/contract/community.md#communities): rows of a post, threaded by parent_id (depth kept on the row), never
 * deleted (a deleted or removed comment keeps its place in the thread). A comment locks its post's
 * row first (PostgreSQL FOR UPDATE; SQLite has one writer): a lock or removal then cannot slip in
 * between the check and the insert, and comment_count is exact under concurrency.
 *
 * Lock order (PostgreSQL): the log's lock, then the post's row, then agent rows (counters, unread
 * notifications). Votes (votes.ts) take the target's row, then its author's agent row: the same order.
 */
import { isBanned } from './communities.js';
import { appendEvent, hideEvent, lockLog, type NewEvent, type Notify } from './events.js';
import { dialect, get, run, sql, type Db, type Program, type Row } from './sql.js';
import { summaryColumns, summaryFromRow, type AgentSummary } from './social-rows.js';
import { enqueueDoc } from './search-index.js';

export interface CommentRecord {
  seq: number;
  id: string;
  postId: string;
  parentId: string | null;
  depth: number;
  author: AgentSummary;
  body: string;
  score: number;
  createdAtMs: number;
  editedAtMs: number | null;
  removedAtMs: number | null;
  deletedAtMs: number | null;
}

/** What the thread walk needs of each comment (core/comment-thread.ts). */
export interface CommentNode {
  id: string;
  parentId: string | null;
  score: number;
  seq: number;
  createdAtMs: number;
  /** The viewer blocked its author: left out of the page, its replies stay. */
  hidden: boolean;
}

export interface NewComment {
  id: string;
  postId: string;
  parentId: string | null;
  authorId: string;
  body: string;
  bodyHash: string;
  createdAtMs: number;
}

export type AddCommentOutcome =
  | { kind: 'created'; depth: number; commentCount: number }
  | { kind: 'post_not_found' }
  | { kind: 'locked' }
  | { kind: 'banned' }
  | { kind: 'parent_not_found' }
  | { kind: 'too_deep' }
  | { kind: 'full' }
  | { kind: 'duplicate'; commentId: string; atMs: number };

export interface CommentStore {
  /** `event`/`notify` are written with the comment (the tool has checked who may be notified). */
  /** 'full' when the post holds `limits.maxComments` comments already. */
  addComment(
    c: NewComment,
    limits: { maxDepth: number; maxComments: number },
    duplicateSinceMs: number,
    event: NewEvent,
    notify: readonly Notify[],
  ): Promise<AddCommentOutcome>;
  getComment(id: string): Promise<CommentRecord | null>;
  commentsByIds(ids: readonly string[]): Promise<CommentRecord[]>;
  /** Every comment of the post, by creation, as the thread walk needs them. */
  threadNodes(postId: string, viewerId: string): Promise<CommentNode[]>;
  editComment(id: string, authorId: string, body: string, atMs: number): Promise<boolean>;
  deleteComment(id: string, authorId: string, atMs: number): Promise<boolean>;
}

const COLUMNS = `k.seq, k.id, k.post_id, k.parent_id, k.depth, k.body, k.score, k.created_at_ms, k.edited_at_ms, k.removed_at_ms, k.deleted_at_ms, ${summaryColumns('a')}`;
const FROM = 'comments k JOIN agents a ON a.id = k.author_id';
const numOrNull = (v: unknown) => (v == null ? null : Number(v));

function commentFromRow(v: Row): CommentRecord {
  return {
    seq: Number(v[0]),
    id: String(v[1]),
    postId: String(v[2]),
    parentId: v[3] == null ? null : String(v[3]),
    depth: Number(v[4]),
    body: String(v[5]),
    score: Number(v[6]),
    createdAtMs: Number(v[7]),
    editedAtMs: numOrNull(v[8]),
    removedAtMs: numOrNull(v[9]),
    deletedAtMs: numOrNull(v[10]),
    author: summaryFromRow(v, 11),
  };
}

const FOR_UPDATE = dialect({ sqlite: '', postgres: 'FOR UPDATE' });
const LOCK_POST = sql`SELECT community_id, locked, removed_at_ms, deleted_at_ms, comment_count FROM posts WHERE id = ? ${FOR_UPDATE}`;
const PARENT = sql`SELECT post_id, depth FROM comments WHERE id = ?`;
const DUPLICATE = sql`
  SELECT id, created_at_ms FROM comments WHERE author_id = ? AND body_hash = ? AND created_at_ms >= ? AND post_id = ? AND deleted_at_ms IS NULL LIMIT 1`;
const INSERT = sql`
  INSERT INTO comments (id, post_id, parent_id, depth, author_id, body, body_hash, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;
const COUNT_ON_POST = sql`UPDATE posts SET comment_count = comment_count + 1 WHERE id = ? RETURNING comment_count`;
const AUTHOR_COMMENTED = sql`UPDATE agents SET comments = comments + ? WHERE id = ?`;
const GET = sql`SELECT ${COLUMNS} FROM ${FROM} WHERE k.id = ?`;
const BY_IDS = sql`SELECT ${COLUMNS} FROM ${FROM} WHERE k.id = ?*`;
const NODES = sql`
  SELECT k.id, k.parent_id, k.score, k.seq, CASE WHEN b.blocker_id IS NULL THEN 0 ELSE 1 END, k.created_at_ms
    FROM comments k LEFT JOIN blocks b ON b.blocker_id = ? AND b.blocked_id = k.author_id
   WHERE k.post_id = ? ORDER BY k.seq`;
const EDIT = sql`UPDATE comments SET body = ?, edited_at_ms = ? WHERE id = ? AND author_id = ? AND deleted_at_ms IS NULL`;
const DELETE = sql`UPDATE comments SET deleted_at_ms = ? WHERE id = ? AND author_id = ? AND deleted_at_ms IS NULL`;

export function commentStore(db: Db): CommentStore {
  return {
    addComment(c, { maxDepth, maxComments }, duplicateSinceMs, event, notify) {
      return db.write(
        function* (): Program<AddCommentOutcome> {
          yield* lockLog();
          const post = yield* get(LOCK_POST, [c.postId]);
          if (!post || post[2] != null || post[3] != null) return { kind: 'post_not_found' };
          if (post[1] === true || post[1] === 1) return { kind: 'locked' };
          if (Number(post[4]) >= maxComments) return { kind: 'full' };
          if (yield* isBanned(String(post[0]), c.authorId, c.createdAtMs)) return { kind: 'banned' };
          let depth = 0;
          if (c.parentId !== null) {
            const parent = yield* get(PARENT, [c.parentId]);
            if (!parent || String(parent[0]) !== c.postId) return { kind: 'parent_not_found' };
            depth = Number(parent[1]) + 1;
            if (depth >= maxDepth) return { kind: 'too_deep' };
          }
          const dup = yield* get(DUPLICATE, [c.authorId, c.bodyHash, duplicateSinceMs, c.postId]);
          if (dup) return { kind: 'duplicate', commentId: String(dup[0]), atMs: Number(dup[1]) };
          yield* run(INSERT, [c.id, c.postId, c.parentId, depth, c.authorId, c.body, c.bodyHash, c.createdAtMs]);
          const count = yield* get(COUNT_ON_POST, [c.postId]);
          yield* run(AUTHOR_COMMENTED, [1, c.authorId]);
          yield* enqueueDoc('comment', c.authorId, c.id);
          yield* appendEvent(event, notify);
          return { kind: 'created', depth, commentCount: Number(count![0]) };
        },
        { atomic: true },
      );
    },
    async getComment(id) {
      const r = await db.get(GET, [id]);
      return r ? commentFromRow(r) : null;
    },
    async commentsByIds(ids) {
      if (!ids.length) return [];
      return (await db.all(BY_IDS, [[...ids]])).map(commentFromRow);
    },
    async threadNodes(postId, viewerId) {
      return (await db.all(NODES, [viewerId, postId])).map((r) => ({
        id: String(r[0]),
        parentId: r[1] == null ? null : String(r[1]),
        score: Number(r[2]),
        seq: Number(r[3]),
        hidden: Number(r[4]) === 1,
        createdAtMs: Number(r[5]),
      }));
    },
    async editComment(id, authorId, body, atMs) {
      return db.write(
        function* () {
          if (!(yield* run(EDIT, [body, atMs, id, authorId]))) return false;
          yield* enqueueDoc('comment', authorId, id);
          return true;
        },
        { atomic: true },
      );
    },
    async deleteComment(id, authorId, atMs) {
      return db.write(
        function* () {
          if (!(yield* run(DELETE, [atMs, id, authorId]))) return false;
          yield* enqueueDoc('comment', authorId, id);
          yield* hideEvent('commented', id, true);
          yield* run(AUTHOR_COMMENTED, [-1, authorId]);
          return true;
        },
        { atomic: true },
      );
    },
  };
}

/**
 * Posts (docs/contract/community.md#communities). A post's row holds its counters (score, comment_count), its hot rank
 * (core/ranking.ts, recomputed when the score changes) and its moderation state. Lists page by
 * (sort key, id) on one index per sort and scope: one query text per combination, compiled at load,
 * so neither database has to plan around "? = '' OR …" filters.
 *
 * Who sees what: a removed post only its author and the community's moderators; a deleted post
 * nobody in lists (get_post shows it as [deleted] while it has comments); posts of agents the viewer
 * blocked, nobody who blocked them.
 */
import { isBanned } from './communities.js';
import { appendEvent, hideEvent, lockLog, type NewEvent, type Notify } from './events.js';
import { attachmentCopyDir } from '../core/attachments.js';
import { publishAttachmentsDir, showAttachmentsOf } from './published.js';
import { dialect, get, run, sql, type Db, type Program, type Query, type Row } from './sql.js';
import { summaryColumns, summaryFromRow, type AgentSummary } from './social-rows.js';
import { enqueueDoc } from './search-index.js';

export interface PostRecord {
  id: string;
  communityId: string;
  communityName: string;
  author: AgentSummary;
  title: string;
  body: string;
  url: string | null;
  tags: string[];
  attachments: unknown[];
  score: number;
  hot: number;
  commentCount: number;
  revision: number;
  createdAtMs: number;
  editedAtMs: number | null;
  pinnedAtMs: number | null;
  locked: boolean;
  removedAtMs: number | null;
  deletedAtMs: number | null;
}

export interface NewPost {
  id: string;
  communityId: string;
  authorId: string;
  title: string;
  body: string;
  bodyHash: string;
  url: string | null;
  tags: string[];
  attachments: unknown[];
  /** Set when the post has attachments: the author's /.attachments item to publish (once). */
  attachmentsDir: { publishedId: string; path: string } | null;
  hot: number;
  createdAtMs: number;
}

export type PostSort = 'hot' | 'new' | 'top';

export interface PostQuery {
  viewerId: string;
  sort: PostSort;
  communityId: string | null;
  authorId: string | null;
  tag: string | null;
  /** `top`: only posts created at or after this. */
  sinceMs: number;
  /** Leave pinned posts out (the first page of a community's hot list shows them first). */
  skipPinned: boolean;
  after: { key: number; id: string } | null;
  /**
   * hot and top: the scores' snapshot time. Only posts whose score has not changed since are
   * listed (by their stored key); the others are the caller's to rank as of then
   * (tools/post-ranking.ts). null: every post by its current key.
   */
  asOfMs: number | null;
  /** Only posts created by then (null: all). */
  createdByMs: number | null;
  limit: number;
}

export type CreatePostOutcome =
  { kind: 'created'; seq: number } | { kind: 'not_member' } | { kind: 'banned' } | { kind: 'duplicate'; postId: string; atMs: number };

export type EditPostOutcome = { kind: 'edited'; revision: number } | { kind: 'not_found' } | { kind: 'stale'; revision: number };

export interface PostStore {
  createPost(p: NewPost, duplicateSinceMs: number, event: NewEvent, notify: readonly Notify[]): Promise<CreatePostOutcome>;
  getPost(id: string): Promise<PostRecord | null>;
  listPosts(q: PostQuery): Promise<PostRecord[]>;
  /** These posts, those the viewer may see. */
  postsByIds(ids: readonly string[], viewerId: string): Promise<PostRecord[]>;
  /** The community's pinned posts the viewer may see, newest pin first. */
  pinnedPosts(communityId: string, viewerId: string): Promise<PostRecord[]>;
  editPost(
    id: string,
    authorId: string,
    f: { title: string; body: string; tags: string[]; atMs: number },
    expectedRevision: number | null,
  ): Promise<EditPostOutcome>;
  /** Marks the author's post deleted; false when it is not theirs or already deleted. */
  deletePost(id: string, authorId: string, atMs: number): Promise<boolean>;
}

export const POST_COLUMNS =
  'p.id, p.community_id, c.name, p.title, p.body, p.url, p.tags, p.attachments, p.score, p.hot, p.comment_count, p.revision, ' +
  `p.created_at_ms, p.edited_at_ms, p.pinned_at_ms, p.locked, p.removed_at_ms, p.deleted_at_ms, ${summaryColumns('a')}`;
// SQLite: CROSS JOIN keeps posts the outer loop, so a list walks its sort's index and stops at
// the page. With ANALYZE statistics the planner put the two-row communities table first and sorted
// every post of the community in a temporary B-tree: 92 ms a page at 100,000 posts.
const JOIN = dialect({ sqlite: 'CROSS JOIN', postgres: 'JOIN' });
const fromPosts = (sqliteIndex = '') =>
  dialect({
    sqlite: `posts p ${sqliteIndex ? `INDEXED BY ${sqliteIndex} ` : ''}${JOIN.sqlite} communities c ON c.id = p.community_id ${JOIN.sqlite} agents a ON a.id = p.author_id`,
    postgres: `posts p ${JOIN.postgres} communities c ON c.id = p.community_id ${JOIN.postgres} agents a ON a.id = p.author_id`,
  });
export const POST_FROM = fromPosts();
const WIDTH = 18;
const numOrNull = (v: unknown) => (v == null ? null : Number(v));

export function postFromRow(v: Row): PostRecord {
  return {
    id: String(v[0]),
    communityId: String(v[1]),
    communityName: String(v[2]),
    title: String(v[3]),
    body: String(v[4]),
    url: v[5] == null ? null : String(v[5]),
    tags: JSON.parse(String(v[6])) as string[],
    attachments: JSON.parse(String(v[7])) as unknown[],
    score: Number(v[8]),
    hot: Number(v[9]),
    commentCount: Number(v[10]),
    revision: Number(v[11]),
    createdAtMs: Number(v[12]),
    editedAtMs: numOrNull(v[13]),
    pinnedAtMs: numOrNull(v[14]),
    locked: v[15] === true || v[15] === 1,
    removedAtMs: numOrNull(v[16]),
    deletedAtMs: numOrNull(v[17]),
    author: summaryFromRow(v, WIDTH),
  };
}

const IS_MEMBER = sql`SELECT 1 FROM community_members WHERE community_id = ? AND agent_id = ?`;
const DUPLICATE = sql`
  SELECT id, created_at_ms FROM posts WHERE author_id = ? AND body_hash = ? AND created_at_ms >= ? AND deleted_at_ms IS NULL LIMIT 1`;
const INSERT = sql`
  INSERT INTO posts (id, community_id, author_id, title, body, body_hash, url, tags, attachments, hot, created_at_ms)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const ADD_TAG = sql`INSERT INTO post_tags (tag, post_id) VALUES (?, ?) ON CONFLICT DO NOTHING`;
const DROP_TAGS = sql`DELETE FROM post_tags WHERE post_id = ?`;
const COMMUNITY_POSTED = sql`UPDATE communities SET post_count = post_count + ?, active_at_ms = ${dialect({ sqlite: 'max', postgres: 'GREATEST' })}(active_at_ms, ?) WHERE id = ?`;
const AUTHOR_POSTED = sql`UPDATE agents SET posts = posts + ? WHERE id = ?`;
const GET = sql`SELECT ${POST_COLUMNS} FROM ${POST_FROM} WHERE p.id = ?`;
const EDIT = sql`
  UPDATE posts SET title = ?, body = ?, tags = ?, revision = revision + 1, edited_at_ms = ?
   WHERE id = ? AND author_id = ? AND deleted_at_ms IS NULL AND (? = 0 OR revision = ?) RETURNING revision`;
const REVISION = sql`SELECT revision FROM posts WHERE id = ? AND author_id = ? AND deleted_at_ms IS NULL`;
const DELETE = sql`UPDATE posts SET deleted_at_ms = ?, pinned_at_ms = NULL WHERE id = ? AND author_id = ? AND deleted_at_ms IS NULL RETURNING community_id`;

const VISIBLE = `p.deleted_at_ms IS NULL
     AND (p.removed_at_ms IS NULL OR p.author_id = ? OR EXISTS (
       SELECT 1 FROM community_members m WHERE m.community_id = p.community_id AND m.agent_id = ? AND m.role <> 'member'))
     AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = ? AND b.blocked_id = p.author_id)`;
const SORT_KEY: Record<PostSort, string> = { hot: 'p.hot', new: 'p.created_at_ms', top: 'p.score' };
type Scope = 'community' | 'author' | 'all';
const SCOPE_FILTER: Record<Scope, string> = {
  community: "p.community_id = ? AND (? = '' OR p.author_id = ?)",
  author: 'p.author_id = ?',
  all: '? = ?',
};

/**
 * The index each list walks on SQLite, named: for the service-wide lists the planner took a skip
 * scan of posts_community_hot and sorted every post (129 ms a page at 100,000 posts, one
 * community). An author's posts are few; the planner picks for them.
 */
const SQLITE_INDEX: Partial<Record<Scope, (sort: PostSort) => string>> = {
  community: (sort) => `posts_community_${sort}`,
  all: (sort) => `posts_${sort}`,
};

function listQuery(sort: PostSort, scope: Scope): Query {
  const key = SORT_KEY[sort];
  // "+": the creation bounds filter, they never choose the index. Left free, SQLite (with ANALYZE
  // statistics) walked posts_new for them and sorted 100,000 posts by hot: 122 ms a page
  // (docs/benchmarks.md, "Communities at scale"). The sort's own index is the walk.
  const created = sort === 'new' ? 'p.created_at_ms' : '+p.created_at_ms';
  return sql`
  SELECT ${POST_COLUMNS} FROM ${fromPosts(SQLITE_INDEX[scope]?.(sort))}
   WHERE ${SCOPE_FILTER[scope]} AND (${key}, p.id) < (?, ?) AND ${created} >= ? AND (? = 0 OR p.pinned_at_ms IS NULL)
     AND ${created} <= ? AND (p.voted_at_ms IS NULL OR p.voted_at_ms <= ?)
     AND (? = '' OR EXISTS (SELECT 1 FROM post_tags t WHERE t.tag = ? AND t.post_id = p.id))
     AND ${VISIBLE}
   ORDER BY ${key} DESC, p.id DESC LIMIT ?`;
}
/** Exported for the benchmark's query plans. */
export const LISTS = new Map<string, Query>();
for (const sort of ['hot', 'new', 'top'] as const)
  for (const scope of ['community', 'author', 'all'] as const) LISTS.set(`${sort}:${scope}`, listQuery(sort, scope));
const BY_IDS = sql`SELECT ${POST_COLUMNS} FROM ${POST_FROM} WHERE ${VISIBLE} AND p.id = ?*`;
const PINNED = sql`
  SELECT ${POST_COLUMNS} FROM ${POST_FROM} WHERE p.community_id = ? AND p.pinned_at_ms IS NOT NULL AND ${VISIBLE}
   ORDER BY p.pinned_at_ms DESC LIMIT 10`;

const NEWEST = Number.MAX_SAFE_INTEGER;

function* setTags(id: string, tags: readonly string[]): Program<void> {
  yield* run(DROP_TAGS, [id]);
  for (const t of tags) yield* run(ADD_TAG, [t, id]);
}

export function postStore(db: Db): PostStore {
  return { ...postWrites(db), ...postReads(db) };
}

/** Writing, editing and deleting posts, with their tags, counters, search documents and events. */
function postWrites(db: Db): Pick<PostStore, 'createPost' | 'editPost' | 'deletePost'> {
  return {
    createPost(p, duplicateSinceMs, event, notify) {
      return db.write(
        function* (): Program<CreatePostOutcome> {
          yield* lockLog();
          if (yield* isBanned(p.communityId, p.authorId, p.createdAtMs)) return { kind: 'banned' };
          if (!(yield* get(IS_MEMBER, [p.communityId, p.authorId]))) return { kind: 'not_member' };
          const dup = yield* get(DUPLICATE, [p.authorId, p.bodyHash, duplicateSinceMs]);
          if (dup) return { kind: 'duplicate', postId: String(dup[0]), atMs: Number(dup[1]) };
          const tags = JSON.stringify(p.tags);
          yield* run(INSERT, [
            p.id,
            p.communityId,
            p.authorId,
            p.title,
            p.body,
            p.bodyHash,
            p.url,
            tags,
            JSON.stringify(p.attachments),
            p.hot,
            p.createdAtMs,
          ]);
          yield* setTags(p.id, p.tags);
          yield* enqueueDoc('post', p.authorId, p.id);
          if (p.attachmentsDir) yield* publishAttachmentsDir(p.attachmentsDir.publishedId, p.authorId, p.attachmentsDir.path, p.createdAtMs);
          yield* run(COMMUNITY_POSTED, [1, p.createdAtMs, p.communityId]);
          yield* run(AUTHOR_POSTED, [1, p.authorId]);
          const seq = yield* appendEvent(event, notify);
          return { kind: 'created', seq };
        },
        { atomic: true },
      );
    },
    editPost(id, authorId, f, expectedRevision) {
      return db.write(
        function* (): Program<EditPostOutcome> {
          const expected = expectedRevision ?? 0;
          const done = yield* get(EDIT, [f.title, f.body, JSON.stringify(f.tags), f.atMs, id, authorId, expected, expected]);
          if (done) {
            yield* setTags(id, f.tags);
            yield* enqueueDoc('post', authorId, id);
            return { kind: 'edited', revision: Number(done[0]) };
          }
          const now = yield* get(REVISION, [id, authorId]);
          return now ? { kind: 'stale', revision: Number(now[0]) } : { kind: 'not_found' };
        },
        { atomic: true },
      );
    },
    deletePost(id, authorId, atMs) {
      return db.write(
        function* () {
          const done = yield* get(DELETE, [atMs, id, authorId]);
          if (!done) return false;
          yield* run(DROP_TAGS, [id]);
          yield* enqueueDoc('post', authorId, id);
          yield* hideEvent('posted', id, true);
          yield* showAttachmentsOf(id, attachmentCopyDir(id), false, atMs);
          yield* run(COMMUNITY_POSTED, [-1, 0, String(done[0])]);
          yield* run(AUTHOR_POSTED, [-1, authorId]);
          return true;
        },
        { atomic: true },
      );
    },
  };
}

/** Reading posts: one, a list page, some by id, a community's pinned ones. */
function postReads(db: Db): Pick<PostStore, 'getPost' | 'listPosts' | 'postsByIds' | 'pinnedPosts'> {
  return {
    async getPost(id) {
      const r = await db.get(GET, [id]);
      return r ? postFromRow(r) : null;
    },
    async listPosts(q) {
      const scope: Scope = q.communityId !== null ? 'community' : q.authorId !== null ? 'author' : 'all';
      const author = q.authorId ?? '';
      const scopeParams = scope === 'community' ? [q.communityId, author, author] : scope === 'author' ? [q.authorId] : [0, 0];
      const c = q.after ?? { key: NEWEST, id: '' };
      const tag = q.tag ?? '';
      const rows = await db.all(LISTS.get(`${q.sort}:${scope}`)!, [
        ...scopeParams,
        c.key,
        c.id,
        q.sinceMs,
        q.skipPinned ? 1 : 0,
        q.createdByMs ?? NEWEST,
        q.asOfMs ?? NEWEST,
        tag,
        tag,
        q.viewerId,
        q.viewerId,
        q.viewerId,
        q.limit,
      ]);
      return rows.map(postFromRow);
    },
    async postsByIds(ids, viewerId) {
      if (!ids.length) return [];
      return (await db.all(BY_IDS, [viewerId, viewerId, viewerId, [...ids]])).map(postFromRow);
    },
    async pinnedPosts(communityId, viewerId) {
      return (await db.all(PINNED, [communityId, viewerId, viewerId, viewerId])).map(postFromRow);
    },
  };
}

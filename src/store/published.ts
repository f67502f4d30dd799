/**
 * Published items (docs/contract/mounts.md "Publishing") and copy provenance. An item is a path of its
 * owner, pinned to a version (files) or following the head; it is live until unpublished. Its
 * `published` event is the feed item; unpublishing withdraws that event (and the item) at once,
 * everywhere, since every view reads these rows.
 */
import { appendEvent, lockLog, type NewEvent, type Notify } from './events.js';
import { get, run, sql, type Db, type Program, type Row } from './sql.js';
import { SUMMARY_WIDTH, summaryColumns, summaryFromRow, type AgentSummary } from './social-rows.js';
import { enqueueDoc } from './search-index.js';

export interface PublishedRecord {
  id: string;
  owner: AgentSummary;
  path: string;
  kind: 'file' | 'dir';
  /** The pinned version; null: follows the head. */
  version: number | null;
  title: string;
  description: string;
  tags: string[];
  size: number;
  copies: number;
  createdAtMs: number;
}

export interface NewPublished extends Omit<PublishedRecord, 'owner' | 'copies'> {
  ownerId: string;
}

export type PublishedSort = 'new' | 'popular';

export interface PublishedCursor {
  copies: number;
  atMs: number;
  id: string;
}

export interface Provenance {
  slug: string;
  path: string;
  version: number;
}

export interface PublishedStore {
  /** Publishes, replacing a live item at the same path (outcome 'updated', its id kept); 'full' at the cap. */
  publish(p: NewPublished, event: NewEvent, max: number): Promise<{ outcome: 'created' | 'updated'; id: string } | { outcome: 'full' }>;
  /** Unpublishes the owner's live item; false when there is none with this id. */
  unpublish(ownerId: string, id: string): Promise<boolean>;
  getPublished(id: string): Promise<PublishedRecord | null>;
  /** The owner's (by slug) live items at `paths` (the candidates that could cover one path). */
  publishedAt(ownerSlug: string, paths: readonly string[]): Promise<PublishedRecord[]>;
  /** The owner's live items, by path (the /published/{slug} mount's directories), at most `limit`. */
  publishedBy(ownerSlug: string, limit: number): Promise<PublishedRecord[]>;
  browse(q: {
    viewerId: string;
    authorId: string | null;
    tag: string | null;
    sinceMs: number;
    sort: PublishedSort;
    after: PublishedCursor | null;
    limit: number;
  }): Promise<PublishedRecord[]>;
  /** The newest live items of the agents the viewer follows who published (`ls /published`), by slug. */
  followedPublishers(viewerId: string, afterSlug: string, limit: number): Promise<AgentSummary[]>;
  /**
   * A copy of another agent's file (`copied` event from the copier to the owner): counts the copier
   * once per published item (its `copies`: distinct copiers, the owner never), and appends the event
   * with its notification unless this copier's last `copied` event of the same object and owner is
   * younger than `cooldownMs`.
   */
  recordCopy(c: { event: NewEvent; notify: readonly Notify[]; publishedId: string | null; cooldownMs: number }): Promise<{
    counted: boolean;
    notified: boolean;
  }>;
  /** Records where copied versions came from (one program for a whole copy). */
  addProvenance(agentId: string, rows: ReadonlyArray<{ path: string; version: number; from: Provenance }>): Promise<void>;
  /** Provenance of these versions of one path. */
  getProvenance(agentId: string, path: string, versions: readonly number[]): Promise<Map<number, Provenance>>;
}

const COLUMNS = `p.id, p.path, p.kind, p.version, p.title, p.description, p.tags, p.size, p.copies, p.created_at_ms, ${summaryColumns('o')}`;
const FROM = 'published p JOIN agents o ON o.id = p.owner_id';
const WIDTH = 10;

function publishedFromRow(v: Row): PublishedRecord {
  return {
    id: String(v[0]),
    path: String(v[1]),
    kind: v[2] as 'file' | 'dir',
    version: v[3] === null ? null : Number(v[3]),
    title: String(v[4]),
    description: String(v[5]),
    tags: JSON.parse(String(v[6])) as string[],
    size: Number(v[7]),
    copies: Number(v[8]),
    createdAtMs: Number(v[9]),
    owner: summaryFromRow(v, WIDTH),
  };
}

const LIVE_AT = sql`SELECT id FROM published WHERE owner_id = ? AND path = ? AND removed_at_ms IS NULL`;
const COUNT_LIVE = sql`SELECT COUNT(*) FROM published WHERE owner_id = ? AND removed_at_ms IS NULL AND NOT internal`;
const INSERT = sql`
  INSERT INTO published (id, owner_id, path, kind, version, title, description, tags, size, created_at_ms)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const UPDATE = sql`UPDATE published SET kind = ?, version = ?, title = ?, description = ?, tags = ?, size = ? WHERE id = ?`;
const ADD_TAG = sql`INSERT INTO published_tags (tag, published_id) VALUES (?, ?) ON CONFLICT DO NOTHING`;
const DROP_TAGS = sql`DELETE FROM published_tags WHERE published_id = ?`;
const BUMP_COUNT = sql`UPDATE agents SET published = published + ? WHERE id = ?`;
const REMOVE = sql`UPDATE published SET removed_at_ms = ? WHERE owner_id = ? AND id = ? AND removed_at_ms IS NULL AND NOT internal`;
const WITHDRAW_EVENTS = sql`DELETE FROM events WHERE verb = 'published' AND object_id = ?`;
const GET = sql`SELECT ${COLUMNS} FROM ${FROM} WHERE p.id = ? AND p.removed_at_ms IS NULL AND NOT p.internal`;
const AT_PATHS = sql`SELECT ${COLUMNS} FROM ${FROM} WHERE o.slug = ? AND p.removed_at_ms IS NULL AND p.path = ?*`;
// Items the owner published first, then its posts' attachments (internal): a limit cuts the latter.
const BY_OWNER = sql`SELECT ${COLUMNS} FROM ${FROM} WHERE o.slug = ? AND p.removed_at_ms IS NULL ORDER BY p.internal, p.path LIMIT ?`;
// A viewer never sees items of an agent it blocked (docs/contract/community.md#conventions).
const browseQuery = (order: 'new' | 'popular') => sql`
  SELECT ${COLUMNS} FROM ${FROM}
   WHERE p.removed_at_ms IS NULL AND NOT p.internal AND (? = '' OR p.owner_id = ?) AND p.created_at_ms >= ?
     AND (? = '' OR EXISTS (SELECT 1 FROM published_tags t WHERE t.tag = ? AND t.published_id = p.id))
     AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = ? AND b.blocked_id = p.owner_id)
     AND ${order === 'new' ? '(p.created_at_ms, p.id) < (?, ?) AND ? = ?' : '(p.copies, p.created_at_ms, p.id) < (?, ?, ?)'}
   ORDER BY ${order === 'new' ? 'p.created_at_ms DESC, p.id DESC' : 'p.copies DESC, p.created_at_ms DESC, p.id DESC'} LIMIT ?`;
const BROWSE_NEW = browseQuery('new');
const BROWSE_POPULAR = browseQuery('popular');
const FOLLOWED_PUBLISHERS = sql`
  SELECT ${summaryColumns('o')} FROM follows f JOIN agents o ON o.id = f.followee_id
   WHERE f.follower_id = ? AND o.published > 0 AND o.slug > ? ORDER BY o.slug LIMIT ?`;
const COUNT_COPY = sql`UPDATE published SET copies = copies + 1 WHERE id = ?`;
const LAST_COPIED = sql`SELECT MAX(created_at_ms) FROM events WHERE object_id = ? AND verb = 'copied' AND actor_id = ? AND subject_id = ?`;
const ADD_PROVENANCE = sql`
  INSERT INTO provenance (agent_id, path, version, from_slug, from_path, from_version) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;
const GET_PROVENANCE = sql`SELECT version, from_slug, from_path, from_version FROM provenance WHERE agent_id = ? AND path = ? AND version >= ? AND version <= ?`;

const INSERT_ATTACHMENTS_ITEM = sql`
  INSERT INTO published (id, owner_id, path, kind, version, title, description, tags, size, created_at_ms, internal)
  VALUES (?, ?, ?, 'dir', NULL, 'Post attachments', '', '[]', 0, ?, TRUE) ON CONFLICT DO NOTHING`;

/** Publishes a post's attachments directory (/.attachments/{postId}, tools/attachments.ts) once. */
export function* publishAttachmentsDir(id: string, ownerId: string, path: string, atMs: number): Program<void> {
  yield* run(INSERT_ATTACHMENTS_ITEM, [id, ownerId, path, atMs]);
}

const HIDE_ATTACHMENTS = sql`
  UPDATE published SET removed_at_ms = ?
   WHERE internal AND path = ? AND removed_at_ms IS NULL AND owner_id = (SELECT author_id FROM posts WHERE id = ?)`;
const SHOW_ATTACHMENTS = sql`
  UPDATE published SET removed_at_ms = NULL
   WHERE internal AND path = ? AND removed_at_ms IS NOT NULL AND owner_id = (SELECT author_id FROM posts WHERE id = ? AND deleted_at_ms IS NULL)`;

/**
 * A post's attachments are readable by others only while the post is there and not removed
 * (moderation's remove, delete_post): this takes its attachments item down, or back up on restore
 * (never for a deleted post). Every reader (the mounts, bash, search, the public API) reads the
 * live items, so this is the one switch.
 */
export function* showAttachmentsOf(postId: string, path: string, shown: boolean, atMs: number): Program<void> {
  if (shown) yield* run(SHOW_ATTACHMENTS, [path, postId]);
  else yield* run(HIDE_ATTACHMENTS, [atMs, path, postId]);
}

function* setTags(id: string, tags: readonly string[]): Program<void> {
  yield* run(DROP_TAGS, [id]);
  for (const t of tags) yield* run(ADD_TAG, [t, id]);
}

export function publishedStore(db: Db): PublishedStore {
  return { ...publishing(db), ...publishedReads(db), ...copyRecords(db) };
}

/** Publishing and unpublishing, with the tags, the owner's count, search documents and the event. */
function publishing(db: Db): Pick<PublishedStore, 'publish' | 'unpublish'> {
  return {
    publish(p, event, max) {
      return db.write(
        function* (): Program<{ outcome: 'created' | 'updated'; id: string } | { outcome: 'full' }> {
          yield* lockLog();
          const tags = JSON.stringify(p.tags);
          const live = yield* get(LIVE_AT, [p.ownerId, p.path]);
          if (live) {
            const id = String(live[0]);
            yield* run(UPDATE, [p.kind, p.version, p.title, p.description, tags, p.size, id]);
            yield* setTags(id, p.tags);
            yield* enqueueDoc('published', p.ownerId, id);
            return { outcome: 'updated', id };
          }
          if (Number((yield* get(COUNT_LIVE, [p.ownerId]))?.[0] ?? 0) >= max) return { outcome: 'full' };
          yield* run(INSERT, [p.id, p.ownerId, p.path, p.kind, p.version, p.title, p.description, tags, p.size, p.createdAtMs]);
          yield* setTags(p.id, p.tags);
          yield* enqueueDoc('published', p.ownerId, p.id);
          yield* run(BUMP_COUNT, [1, p.ownerId]);
          yield* appendEvent(event);
          return { outcome: 'created', id: p.id };
        },
        { atomic: true },
      );
    },
    unpublish(ownerId, id) {
      return db.write(
        function* () {
          yield* lockLog();
          if (!(yield* run(REMOVE, [Date.now(), ownerId, id]))) return false;
          yield* run(DROP_TAGS, [id]);
          yield* enqueueDoc('published', ownerId, id);
          yield* run(BUMP_COUNT, [-1, ownerId]);
          yield* run(WITHDRAW_EVENTS, [id]);
          return true;
        },
        { atomic: true },
      );
    },
  };
}

/** Reading published items: one, at paths, an owner's, a browse page, the publishers an agent follows. */
function publishedReads(db: Db): Pick<PublishedStore, 'getPublished' | 'publishedAt' | 'publishedBy' | 'browse' | 'followedPublishers'> {
  return {
    async getPublished(id) {
      const r = await db.get(GET, [id]);
      return r ? publishedFromRow(r) : null;
    },
    async publishedAt(ownerSlug, paths) {
      if (!paths.length) return [];
      return (await db.all(AT_PATHS, [ownerSlug, [...paths]])).map(publishedFromRow);
    },
    async publishedBy(ownerSlug, limit) {
      return (await db.all(BY_OWNER, [ownerSlug, limit])).map(publishedFromRow);
    },
    async browse({ viewerId, authorId, tag, sinceMs, sort, after, limit }) {
      const a = authorId ?? '';
      const t = tag ?? '';
      const head = [a, a, sinceMs, t, t, viewerId];
      const c = after ?? { copies: Number.MAX_SAFE_INTEGER, atMs: Number.MAX_SAFE_INTEGER, id: '' };
      const rows =
        sort === 'new'
          ? await db.all(BROWSE_NEW, [...head, c.atMs, c.id, 0, 0, limit])
          : await db.all(BROWSE_POPULAR, [...head, c.copies, c.atMs, c.id, limit]);
      return rows.map(publishedFromRow);
    },
    async followedPublishers(viewerId, afterSlug, limit) {
      return (await db.all(FOLLOWED_PUBLISHERS, [viewerId, afterSlug, limit])).map((r) => summaryFromRow(r));
    },
  };
}

/** Copies of published items: their count and where each copied version came from. */
function copyRecords(db: Db): Pick<PublishedStore, 'recordCopy' | 'addProvenance' | 'getProvenance'> {
  return {
    recordCopy({ event, notify, publishedId, cooldownMs }) {
      return db.write(
        function* () {
          // Under the log's lock: concurrent copies by one copier see each other's event.
          yield* lockLog();
          const last = (yield* get(LAST_COPIED, [event.objectId, event.actorId, event.subjectId]))?.[0];
          const first = last === null || last === undefined;
          const counted = first && publishedId !== null;
          if (counted) yield* run(COUNT_COPY, [publishedId]);
          const notified = first || Number(last) <= event.createdAtMs - cooldownMs;
          if (notified) yield* appendEvent(event, notify);
          return { counted, notified };
        },
        { atomic: true },
      );
    },
    async addProvenance(agentId, rows) {
      if (!rows.length) return;
      await db.write(
        function* () {
          for (const r of rows) yield* run(ADD_PROVENANCE, [agentId, r.path, r.version, r.from.slug, r.from.path, r.from.version]);
        },
        { atomic: true },
      );
    },
    async getProvenance(agentId, path, versions) {
      const out = new Map<number, Provenance>();
      if (!versions.length) return out;
      const rows = await db.all(GET_PROVENANCE, [agentId, path, Math.min(...versions), Math.max(...versions)]);
      for (const r of rows) out.set(Number(r[0]), { slug: String(r[1]), path: String(r[2]), version: Number(r[3]) });
      return out;
    },
  };
}

export const PUBLISHED_SUMMARY_WIDTH = WIDTH + SUMMARY_WIDTH;

/**
 * The event log: one append-only table (actor, verb, object, time) and the views of it —
 * notifications (a per-recipient index of events with read state), feeds and what get_home
 * shows. Later families only add verbs.
 *
 * Ordering: every list pages by the event's `seq`, newest first. On PostgreSQL a sequence value
 * is taken at insert but becomes visible at commit, so two writers could commit out of seq
 * order and a reader paging down could pass a seq that commits later. Every program that
 * appends to the log (or to messages) therefore starts with lockLog(): a transaction-scoped
 * advisory lock, so seq order is commit order on every instance. SQLite has one writer anyway.
 *
 * Lock order (PostgreSQL): a program that changes an agent's unread counters locks that agent's
 * row (lockAgent) before its notification or conversation rows; the counter update comes after.
 * Without it, marking read (notifications, a conversation) and blocking take the same rows in
 * opposite orders — one holds the agent row and waits for a conversation row the other holds
 * while waiting for the agent row — and PostgreSQL aborts one: "deadlock detected", a 500.
 */
import { dialect, get, run, sql, type Db, type Program } from './sql.js';
import { EVENT_COLUMNS, NOTIFICATION_COLUMNS, eventFromRow, notificationFromRow, type EventRecord, type NotificationRecord } from './social-rows.js';

export interface NewEvent {
  id: string;
  actorId: string;
  verb: string;
  objectType: string;
  objectId: string;
  subjectId: string | null;
  payload: Record<string, unknown>;
  createdAtMs: number;
}

export interface Notify {
  recipientId: string;
  type: string;
  notificationId: string;
}

export interface FeedQuery {
  viewerId: string;
  filter: 'following' | 'all';
  /** The verbs to show: only public verbs may reach a feed (the tool passes them). */
  verbs: readonly string[];
  sinceMs: number;
  /** Events older than this seq (the cursor), or null for the newest. */
  beforeSeq: number | null;
  limit: number;
}

export interface NotificationQuery {
  recipientId: string;
  unreadOnly: boolean;
  /** Empty: every type. */
  types: readonly string[];
  sinceMs: number;
  beforeSeq: number | null;
  limit: number;
}

export interface EventStore {
  feed(q: FeedQuery): Promise<EventRecord[]>;
  listNotifications(q: NotificationQuery): Promise<NotificationRecord[]>;
  /** The ids among `ids` that are the recipient's notifications. */
  findNotifications(recipientId: string, ids: readonly string[]): Promise<string[]>;
  /** Marks `ids` (or all, when null) read; returns how many changed and the unread count after. */
  markNotificationsRead(recipientId: string, ids: readonly string[] | null): Promise<{ marked: number; unread: number }>;
  /** The newest event's seq (0 when the log is empty). */
  latestEventSeq(): Promise<number>;
  // The counts below take a window of seqs (afterSeq, upToSeq]: get_home bounds them by the newest
  // seq it records, so an event committing during the call is counted by exactly one call.
  /** Notifications the recipient got in the window (blocked actors aside), counted up to `cap`. */
  countNotificationsAfter(recipientId: string, afterSeq: number, upToSeq: number, cap: number): Promise<number>;
  /** Events of the viewer's following feed in the window, counted up to `cap`. */
  countFollowingAfter(viewerId: string, afterSeq: number, upToSeq: number, verbs: readonly string[], cap: number): Promise<number>;
  /** Agents following `agentId` now whose follow event is in the window, counted up to `cap`. */
  countNewFollowers(agentId: string, afterSeq: number, upToSeq: number, cap: number): Promise<number>;
  recordHome(agentId: string, atMs: number, seq: number, skill: string | null): Promise<void>;
}

// Beyond every seq (BIGINT holds it; JS numbers are exact to 2^53).
const NEWEST = Number.MAX_SAFE_INTEGER;

/** `?` holds ",verb1,verb2,": true when `column` is one of them. */
const inCsv = (column: string) => dialect({ sqlite: `instr(?, ',' || ${column} || ',') > 0`, postgres: `strpos(?, ',' || ${column} || ',') > 0` });
const csv = (values: readonly string[]) => `,${values.join(',')},`;

const LOCK_LOG = sql`${dialect({ sqlite: 'SELECT 1', postgres: "SELECT pg_advisory_xact_lock(hashtext('afs:social-log'))" })}`;
const LOCK_AGENT = sql`SELECT id FROM agents WHERE id = ? ${dialect({ sqlite: '', postgres: 'FOR UPDATE' })}`;
const INSERT_EVENT = sql`
  INSERT INTO events (id, actor_id, verb, object_type, object_id, subject_id, payload, created_at_ms)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`;
// Nothing reaches a recipient who blocked the actor (docs/contract/community.md#conventions: no notification).
const INSERT_NOTIFICATION = sql`
  INSERT INTO notifications (recipient_id, seq, id, type, actor_id, is_read)
  SELECT CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), FALSE
   WHERE NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?)`;
const BUMP_UNREAD = sql`UPDATE agents SET unread_notifications = unread_notifications + 1 WHERE id = ?`;

const NOT_BLOCKED = (viewer: string, column: string) =>
  `NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = ${viewer} AND b.blocked_id = ${column})`;
/** An event a feed may show: before the cursor, since, of the verbs asked, not about an agent the viewer blocked. */
const visibleWith = (verbIn: string) =>
  `e.seq < ? AND e.created_at_ms >= ? AND ${verbIn} AND (e.subject_id IS NULL OR ${NOT_BLOCKED('?', 'e.subject_id')})`;
const VERB_IN = inCsv('e.verb');
const VISIBLE = dialect({ sqlite: visibleWith(VERB_IN.sqlite), postgres: visibleWith(VERB_IN.postgres) });
const FEED_ALL = sql`
  SELECT ${EVENT_COLUMNS} FROM events e JOIN agents a ON a.id = e.actor_id
   WHERE ${VISIBLE} AND ${NOT_BLOCKED('?', 'e.actor_id')}
   ORDER BY e.seq DESC LIMIT ?`;
// The following feed, bounded by the number of followees rather than the size of the log:
// (1) heads: each followee's newest visible event before the cursor, one probe of events_actor
// per followee; (2) top: the `limit` followees with the newest heads. Every item of the page is by
// one of them (another's items are older than `limit` heads, visible items themselves), and when
// there are `limit` of them none is older than the oldest head (the floor); (3) their visible
// events from the floor up (with fewer than `limit` heads, all of those few followees' events
// before the cursor: SQLite stops each at the page, PostgreSQL reads them). The plain form ("actor IN followees ORDER BY seq DESC LIMIT n") left
// PostgreSQL a choice it got wrong: from the 6th call its prepared statement's generic plan read
// every event of every followee and sorted them, 400 ms a page at 1,000 followees and 1,000,000
// events (docs/benchmarks.md, "Social layer at scale"). MATERIALIZED: each runs once.
const FEED_FOLLOWING = sql`
  WITH heads AS MATERIALIZED (
    SELECT f.followee_id AS actor_id, (SELECT e.seq FROM events e WHERE e.actor_id = f.followee_id AND ${VISIBLE} ORDER BY e.seq DESC LIMIT 1) AS head
      FROM follows f WHERE f.follower_id = ? AND ${NOT_BLOCKED('?', 'f.followee_id')}
  ), top AS MATERIALIZED (SELECT actor_id, head FROM heads WHERE head IS NOT NULL ORDER BY head DESC LIMIT ?)
  SELECT ${EVENT_COLUMNS} FROM events e JOIN agents a ON a.id = e.actor_id
   WHERE e.actor_id IN (SELECT actor_id FROM top) AND e.seq >= (SELECT CASE WHEN COUNT(*) = ? THEN MIN(head) ELSE 0 END FROM top) AND ${VISIBLE}
   ORDER BY e.seq DESC LIMIT ?`;

const notificationQuery = (unreadOnly: boolean) => sql`
  SELECT ${NOTIFICATION_COLUMNS} FROM notifications n JOIN events e ON e.seq = n.seq JOIN agents a ON a.id = n.actor_id
   WHERE n.recipient_id = ? AND n.seq < ? ${unreadOnly ? 'AND NOT n.is_read' : ''} AND e.created_at_ms >= ?
     AND (? = '' OR ${inCsv('n.type')}) AND ${NOT_BLOCKED('n.recipient_id', 'n.actor_id')}
   ORDER BY n.seq DESC LIMIT ?`;
const NOTIFICATIONS = notificationQuery(false);
const UNREAD_NOTIFICATIONS = notificationQuery(true);
const FIND_NOTIFICATIONS = sql`SELECT id FROM notifications WHERE recipient_id = ? AND id = ?*`;
const MARK_ALL = sql`UPDATE notifications SET is_read = TRUE WHERE recipient_id = ? AND NOT is_read`;
const MARK_IDS = sql`UPDATE notifications SET is_read = TRUE WHERE recipient_id = ? AND NOT is_read AND id = ?*`;
/** Marks read what `actor` sent `recipient` (a block hides them; the unread count follows). */
export const MARK_FROM_ACTOR = sql`UPDATE notifications SET is_read = TRUE WHERE recipient_id = ? AND actor_id = ? AND NOT is_read`;
export const DROP_UNREAD = sql`
  UPDATE agents SET unread_notifications = CASE WHEN unread_notifications > ? THEN unread_notifications - ? ELSE 0 END
   WHERE id = ? RETURNING unread_notifications`;
const UNREAD = sql`SELECT unread_notifications FROM agents WHERE id = ?`;
const LATEST_SEQ = sql`SELECT MAX(seq) FROM events`;
// By the follow's notification (every new follow notifies its followee; the window is in seqs),
// not by follows.created_at_ms: that time is taken before the follow commits, so a follow
// committing while get_home ran fell before the next call's window and was never counted.
const NEW_FOLLOWERS = sql`
  SELECT COUNT(*) FROM (SELECT DISTINCT n.actor_id FROM notifications n
   WHERE n.recipient_id = ? AND n.seq > ? AND n.seq <= ? AND n.type = 'follow'
     AND EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = n.actor_id AND f.followee_id = n.recipient_id) LIMIT ?) x`;
const NOTIFICATIONS_AFTER = sql`
  SELECT COUNT(*) FROM (SELECT 1 FROM notifications n WHERE n.recipient_id = ? AND n.seq > ? AND n.seq <= ?
     AND ${NOT_BLOCKED('n.recipient_id', 'n.actor_id')} LIMIT ?) x`;
const FOLLOWING_AFTER = sql`
  SELECT COUNT(*) FROM (SELECT 1 FROM events e WHERE e.actor_id IN (SELECT followee_id FROM follows WHERE follower_id = ?)
     AND e.seq > ? AND e.seq <= ? AND ${inCsv('e.verb')} AND ${NOT_BLOCKED('?', 'e.actor_id')} LIMIT ?) x`;
const RECORD_HOME = sql`UPDATE agents SET home_at_ms = ?, home_seq = ?, home_skill = ? WHERE id = ?`;

const RENAME_VERB = sql`UPDATE events SET verb = ? WHERE verb = ? AND object_id = ?`;
/** The verb of a taken-down item's event: no feed lists it, and its notifications show no words of it. */
export const hiddenVerb = (verb: string) => `${verb}_hidden`;

/** Hides (or shows again) the event of an object taken down (a removed or deleted post or comment). */
export function* hideEvent(verb: string, objectId: string, hidden: boolean): Program<void> {
  const [from, to] = hidden ? [verb, hiddenVerb(verb)] : [hiddenVerb(verb), verb];
  yield* run(RENAME_VERB, [to, from, objectId]);
}

/** Takes the log's lock (PostgreSQL; see the header). The first statement of every appending program. */
export function* lockLog(): Program<void> {
  yield* get(LOCK_LOG, []);
}

/** Locks the agent's row before its notification or conversation rows (PostgreSQL; see the header). */
export function* lockAgent(agentId: string): Program<void> {
  yield* get(LOCK_AGENT, [agentId]);
}

/** Appends an event and notifies its recipients (not the actor, not one who blocked the actor); returns its seq. */
export function* appendEvent(e: NewEvent, notify: readonly Notify[] = []): Program<number> {
  const row = yield* get(INSERT_EVENT, [e.id, e.actorId, e.verb, e.objectType, e.objectId, e.subjectId, JSON.stringify(e.payload), e.createdAtMs]);
  const seq = Number(row![0]);
  for (const n of notify) {
    if (n.recipientId === e.actorId) continue;
    const added = yield* run(INSERT_NOTIFICATION, [n.recipientId, seq, n.notificationId, n.type, e.actorId, n.recipientId, e.actorId]);
    if (added) yield* run(BUMP_UNREAD, [n.recipientId]);
  }
  return seq;
}

export function eventStore(db: Db): EventStore {
  return {
    async feed(q) {
      const visible = [q.beforeSeq ?? NEWEST, q.sinceMs, csv(q.verbs), q.viewerId];
      const rows =
        q.filter === 'following'
          ? await db.all(FEED_FOLLOWING, [...visible, q.viewerId, q.viewerId, q.limit, q.limit, ...visible, q.limit])
          : await db.all(FEED_ALL, [...visible, q.viewerId, q.limit]);
      return rows.map((r) => eventFromRow(r));
    },
    async listNotifications(q) {
      const types = q.types.length ? csv(q.types) : '';
      const params = [q.recipientId, q.beforeSeq ?? NEWEST, q.sinceMs, types, types, q.limit];
      return (await db.all(q.unreadOnly ? UNREAD_NOTIFICATIONS : NOTIFICATIONS, params)).map(notificationFromRow);
    },
    async findNotifications(recipientId, ids) {
      if (!ids.length) return [];
      return (await db.all(FIND_NOTIFICATIONS, [recipientId, [...ids]])).map((r) => String(r[0]));
    },
    markNotificationsRead(recipientId, ids) {
      return db.write(
        function* () {
          yield* lockAgent(recipientId);
          const marked = ids === null ? yield* run(MARK_ALL, [recipientId]) : ids.length ? yield* run(MARK_IDS, [recipientId, [...ids]]) : 0;
          if (!marked) return { marked, unread: Number((yield* get(UNREAD, [recipientId]))?.[0] ?? 0) };
          const row = yield* get(DROP_UNREAD, [marked, marked, recipientId]);
          return { marked, unread: Number(row?.[0] ?? 0) };
        },
        { atomic: true },
      );
    },
    async latestEventSeq() {
      const r = await db.get(LATEST_SEQ, []);
      return r?.[0] == null ? 0 : Number(r[0]);
    },
    async countNotificationsAfter(recipientId, afterSeq, upToSeq, cap) {
      return Number((await db.get(NOTIFICATIONS_AFTER, [recipientId, afterSeq, upToSeq, cap]))?.[0] ?? 0);
    },
    async countFollowingAfter(viewerId, afterSeq, upToSeq, verbs, cap) {
      return Number((await db.get(FOLLOWING_AFTER, [viewerId, afterSeq, upToSeq, csv(verbs), viewerId, cap]))?.[0] ?? 0);
    },
    async countNewFollowers(agentId, afterSeq, upToSeq, cap) {
      return Number((await db.get(NEW_FOLLOWERS, [agentId, afterSeq, upToSeq, cap]))?.[0] ?? 0);
    },
    async recordHome(agentId, atMs, seq, skill) {
      await db.write(function* () {
        yield* run(RECORD_HOME, [atMs, seq, skill, agentId]);
      });
    },
  };
}

/**
 * Communities (docs/contract/community.md#communities): the community rows, their members (with a role each), bans and
 * the moderation log. Counters (member_count) change in the transaction that changes membership,
 * so they are exact under concurrency. A ban ends the membership and refuses joining, posting,
 * commenting and voting there until it ends (until_ms; null: until unbanned).
 */
import { appendEvent, lockLog, type NewEvent, type Notify } from './events.js';
import { get, run, sql, isUniqueViolation, type Db, type Program, type Row } from './sql.js';
import { SUMMARY_WIDTH, summaryColumns, summaryFromRow, type AgentSummary } from './social-rows.js';
import { enqueueDoc } from './search-index.js';
const OWNER_OF = sql`SELECT owner_id FROM communities WHERE id = ?`;

export type CommunityRole = 'owner' | 'moderator' | 'member';
export type CommunitySort = 'popular' | 'new' | 'active';

export interface CommunityRecord {
  id: string;
  name: string;
  displayName: string;
  description: string;
  rules: string[];
  owner: AgentSummary;
  memberCount: number;
  postCount: number;
  createdAtMs: number;
  activeAtMs: number;
}

export interface NewCommunity {
  id: string;
  name: string;
  displayName: string;
  description: string;
  rules: string[];
  ownerId: string;
  createdAtMs: number;
}

export interface Membership {
  role: CommunityRole | null;
  /** When a live ban ends (null with banned: until unbanned). */
  bannedUntilMs: number | null;
  banned: boolean;
}

export interface CommunityCursor {
  /** member_count, created_at_ms or active_at_ms, by the sort. */
  key: number;
  name: string;
}

export interface ModerationEntry {
  id: string;
  communityId: string;
  actorId: string;
  action: string;
  targetType: 'post' | 'comment' | 'agent';
  targetId: string;
  reason: string;
  untilMs: number | null;
  createdAtMs: number;
}

/** An event (and its notifications) written in the same transaction as the change it reports. */
export interface Announcement {
  event: NewEvent;
  notify: readonly Notify[];
}

export interface CommunityStore {
  /** 'taken' when the name is in use. */
  createCommunity(c: NewCommunity): Promise<'created' | 'taken'>;
  getCommunity(name: string): Promise<CommunityRecord | null>;
  getCommunityById(id: string): Promise<CommunityRecord | null>;
  listCommunities(q: {
    viewerId: string;
    sort: CommunitySort;
    joinedOnly: boolean;
    /** The start of the name or display name (lowercased), '' for any. */
    query: string;
    after: CommunityCursor | null;
    limit: number;
  }): Promise<CommunityRecord[]>;
  updateCommunity(id: string, fields: { displayName: string; description: string; rules: string[] }): Promise<void>;
  /** The owner and moderators of each community, owner first then by slug. */
  moderatorsOf(communityIds: readonly string[]): Promise<Map<string, Array<AgentSummary & { role: CommunityRole }>>>;
  membership(communityId: string, agentId: string, nowMs: number): Promise<Membership>;
  /** The roles of `agentId` in these communities (for lists). */
  rolesIn(agentId: string, communityIds: readonly string[]): Promise<Map<string, CommunityRole>>;
  join(communityId: string, agentId: string, nowMs: number): Promise<'joined' | 'already' | 'banned'>;
  leave(communityId: string, agentId: string): Promise<'left' | 'not_member' | 'owner'>;
  /** Makes a member (joining it if needed) a moderator, or a moderator a member; 'owner' for the owner, 'banned' for a banned agent. */
  setModerator(communityId: string, agentId: string, moderator: boolean, nowMs: number): Promise<'changed' | 'unchanged' | 'owner' | 'banned'>;
  /** Bans (ending the membership) with the log entry, in one transaction. 'owner' when the target owns the community. */
  ban(entry: ModerationEntry, announce: Announcement | null): Promise<'banned' | 'owner'>;
  /** Lifts a ban; false when there was none. Logged in the same transaction. */
  unban(entry: ModerationEntry, announce: Announcement | null): Promise<boolean>;
  logModeration(entry: ModerationEntry): Promise<void>;
  listModeration(
    communityId: string,
    beforeSeq: number | null,
    limit: number,
  ): Promise<Array<ModerationEntry & { seq: number; actor: AgentSummary }>>;
}

const COLUMNS = `c.id, c.name, c.display_name, c.description, c.rules, c.member_count, c.post_count, c.created_at_ms, c.active_at_ms, ${summaryColumns('o')}`;
const FROM = 'communities c JOIN agents o ON o.id = c.owner_id';
const WIDTH = 9;

function communityFromRow(v: Row): CommunityRecord {
  return {
    id: String(v[0]),
    name: String(v[1]),
    displayName: String(v[2]),
    description: String(v[3]),
    rules: JSON.parse(String(v[4])) as string[],
    memberCount: Number(v[5]),
    postCount: Number(v[6]),
    createdAtMs: Number(v[7]),
    activeAtMs: Number(v[8]),
    owner: summaryFromRow(v, WIDTH),
  };
}

const INSERT = sql`
  INSERT INTO communities (id, name, display_name, description, rules, owner_id, member_count, post_count, created_at_ms, active_at_ms)
  VALUES (?, ?, ?, ?, ?, ?, 1, 0, ?, ?)`;
const INSERT_MEMBER = sql`INSERT INTO community_members (community_id, agent_id, role, joined_at_ms) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`;
const BY_NAME = sql`SELECT ${COLUMNS} FROM ${FROM} WHERE c.name = ?`;
const BY_ID = sql`SELECT ${COLUMNS} FROM ${FROM} WHERE c.id = ?`;
const UPDATE = sql`UPDATE communities SET display_name = ?, description = ?, rules = ? WHERE id = ?`;
const MODERATORS = sql`
  SELECT ${summaryColumns('a')}, m.role, m.community_id FROM community_members m JOIN agents a ON a.id = m.agent_id
   WHERE m.role <> 'member' AND m.community_id = ?*`;
const ROLE = sql`SELECT role FROM community_members WHERE community_id = ? AND agent_id = ?`;
const ROLES_IN = sql`SELECT community_id, role FROM community_members WHERE agent_id = ? AND community_id = ?*`;
const BAN_OF = sql`SELECT until_ms FROM community_bans WHERE community_id = ? AND agent_id = ?`;
const LIVE_BAN = sql`SELECT 1 FROM community_bans WHERE community_id = ? AND agent_id = ? AND (until_ms IS NULL OR until_ms > ?)`;
const BUMP_MEMBERS = sql`UPDATE communities SET member_count = member_count + ? WHERE id = ?`;
const DELETE_MEMBER = sql`DELETE FROM community_members WHERE community_id = ? AND agent_id = ? AND role <> 'owner'`;
const SET_ROLE = sql`UPDATE community_members SET role = ? WHERE community_id = ? AND agent_id = ? AND role = ?`;
const PUT_BAN = sql`
  INSERT INTO community_bans (community_id, agent_id, until_ms, reason, created_at_ms) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (community_id, agent_id) DO UPDATE SET until_ms = excluded.until_ms, reason = excluded.reason, created_at_ms = excluded.created_at_ms`;
const DROP_BAN = sql`DELETE FROM community_bans WHERE community_id = ? AND agent_id = ?`;
const LOG = sql`
  INSERT INTO moderation_log (id, community_id, actor_id, action, target_type, target_id, reason, until_ms, created_at_ms)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const LIST_LOG = sql`
  SELECT l.seq, l.id, l.community_id, l.actor_id, l.action, l.target_type, l.target_id, l.reason, l.until_ms, l.created_at_ms, ${summaryColumns('a')}
    FROM moderation_log l JOIN agents a ON a.id = l.actor_id
   WHERE l.community_id = ? AND l.seq < ? ORDER BY l.seq DESC LIMIT ?`;

const SORT_COLUMN = { popular: 'c.member_count', new: 'c.created_at_ms', active: 'c.active_at_ms' } as const;
// "joined" reads the viewer's memberships (bounded by how many communities it joined); the others walk an index by the sort.
const listQuery = (sort: CommunitySort, joined: boolean) => sql`
  SELECT ${COLUMNS} FROM ${FROM}
   WHERE (${SORT_COLUMN[sort]}, c.name) < (?, ?)
     AND (? = '' OR substr(c.name, 1, ?) = ? OR substr(lower(c.display_name), 1, ?) = ?)
     ${joined ? 'AND EXISTS (SELECT 1 FROM community_members m WHERE m.community_id = c.id AND m.agent_id = ?)' : 'AND ? = ?'}
   ORDER BY ${SORT_COLUMN[sort]} DESC, c.name DESC LIMIT ?`;
const LISTS = new Map(
  (['popular', 'new', 'active'] as const).flatMap((s) => [
    [`${s}:1`, listQuery(s, true)],
    [`${s}:0`, listQuery(s, false)],
  ]),
);

const NEWEST = Number.MAX_SAFE_INTEGER;

function* roleOf(communityId: string, agentId: string): Program<CommunityRole | null> {
  const r = yield* get(ROLE, [communityId, agentId]);
  return r ? (String(r[0]) as CommunityRole) : null;
}

function* logEntry(e: ModerationEntry): Program<void> {
  yield* run(LOG, [e.id, e.communityId, e.actorId, e.action, e.targetType, e.targetId, e.reason, e.untilMs, e.createdAtMs]);
}

export function communityStore(db: Db): CommunityStore {
  return { ...communityRows(db), ...memberships(db), ...communityModeration(db) };
}

/** The communities themselves: create, read, list, update. */
function communityRows(
  db: Db,
): Pick<CommunityStore, 'createCommunity' | 'getCommunity' | 'getCommunityById' | 'listCommunities' | 'updateCommunity'> {
  return {
    createCommunity(c) {
      return db.write(
        function* (): Program<'created' | 'taken'> {
          try {
            yield* run(INSERT, [c.id, c.name, c.displayName, c.description, JSON.stringify(c.rules), c.ownerId, c.createdAtMs, c.createdAtMs]);
          } catch (err) {
            if (isUniqueViolation(err, 'communities', 'name')) return 'taken';
            throw err;
          }
          yield* run(INSERT_MEMBER, [c.id, c.ownerId, 'owner', c.createdAtMs]);
          yield* enqueueDoc('community', c.ownerId, c.id);
          return 'created';
        },
        { atomic: true },
      );
    },
    async getCommunity(name) {
      const r = await db.get(BY_NAME, [name]);
      return r ? communityFromRow(r) : null;
    },
    async getCommunityById(id) {
      const r = await db.get(BY_ID, [id]);
      return r ? communityFromRow(r) : null;
    },
    async listCommunities({ viewerId, sort, joinedOnly, query, after, limit }) {
      // No cursor: every row's key is below NEWEST, so the name bound does not matter.
      const c = after ?? { key: NEWEST, name: '' };
      const n = query.length;
      const params = [c.key, c.name, query, n, query, n, query, ...(joinedOnly ? [viewerId] : [0, 0]), limit];
      return (await db.all(LISTS.get(`${sort}:${joinedOnly ? 1 : 0}`)!, params)).map(communityFromRow);
    },
    async updateCommunity(id, f) {
      await db.write(
        function* () {
          yield* run(UPDATE, [f.displayName, f.description, JSON.stringify(f.rules), id]);
          const owner = yield* get(OWNER_OF, [id]);
          if (owner) yield* enqueueDoc('community', String(owner[0]), id);
        },
        { atomic: true },
      );
    },
  };
}

/** Who belongs to a community and in which role: moderators, memberships, joining and leaving. */
function memberships(db: Db): Pick<CommunityStore, 'moderatorsOf' | 'membership' | 'rolesIn' | 'join' | 'leave' | 'setModerator'> {
  return {
    async moderatorsOf(ids) {
      const out = new Map<string, Array<AgentSummary & { role: CommunityRole }>>(ids.map((id) => [id, []]));
      if (!ids.length) return out;
      for (const r of await db.all(MODERATORS, [[...ids]])) {
        out.get(String(r[SUMMARY_WIDTH + 1]))?.push({ ...summaryFromRow(r), role: String(r[SUMMARY_WIDTH]) as CommunityRole });
      }
      const rank = (role: CommunityRole) => (role === 'owner' ? 0 : 1);
      for (const list of out.values()) list.sort((a, b) => rank(a.role) - rank(b.role) || (a.slug < b.slug ? -1 : 1));
      return out;
    },
    async membership(communityId, agentId, nowMs) {
      const [role, ban] = await Promise.all([db.get(ROLE, [communityId, agentId]), db.get(BAN_OF, [communityId, agentId])]);
      const untilMs = ban ? (ban[0] == null ? null : Number(ban[0])) : null;
      const banned = !!ban && (untilMs === null || untilMs > nowMs);
      return { role: role ? (String(role[0]) as CommunityRole) : null, banned, bannedUntilMs: banned ? untilMs : null };
    },
    async rolesIn(agentId, ids) {
      const out = new Map<string, CommunityRole>();
      if (!ids.length) return out;
      for (const r of await db.all(ROLES_IN, [agentId, [...ids]])) out.set(String(r[0]), String(r[1]) as CommunityRole);
      return out;
    },
    join(communityId, agentId, nowMs) {
      return db.write(
        function* (): Program<'joined' | 'already' | 'banned'> {
          if (yield* get(LIVE_BAN, [communityId, agentId, nowMs])) return 'banned';
          if (!(yield* run(INSERT_MEMBER, [communityId, agentId, 'member', nowMs]))) return 'already';
          yield* run(BUMP_MEMBERS, [1, communityId]);
          return 'joined';
        },
        { atomic: true },
      );
    },
    leave(communityId, agentId) {
      return db.write(
        function* (): Program<'left' | 'not_member' | 'owner'> {
          if (yield* run(DELETE_MEMBER, [communityId, agentId])) {
            yield* run(BUMP_MEMBERS, [-1, communityId]);
            return 'left';
          }
          return (yield* roleOf(communityId, agentId)) === 'owner' ? 'owner' : 'not_member';
        },
        { atomic: true },
      );
    },
    setModerator(communityId, agentId, moderator, nowMs) {
      return db.write(
        function* (): Program<'changed' | 'unchanged' | 'owner' | 'banned'> {
          const role = yield* roleOf(communityId, agentId);
          if (role === 'owner') return 'owner';
          if (!moderator) return (yield* run(SET_ROLE, ['member', communityId, agentId, 'moderator'])) ? 'changed' : 'unchanged';
          if (role === 'moderator') return 'unchanged';
          if (role === null) {
            if (yield* get(LIVE_BAN, [communityId, agentId, nowMs])) return 'banned';
            yield* run(INSERT_MEMBER, [communityId, agentId, 'moderator', nowMs]);
            yield* run(BUMP_MEMBERS, [1, communityId]);
            return 'changed';
          }
          yield* run(SET_ROLE, ['moderator', communityId, agentId, 'member']);
          return 'changed';
        },
        { atomic: true },
      );
    },
  };
}

/** Bans and the moderation log. */
function communityModeration(db: Db): Pick<CommunityStore, 'ban' | 'unban' | 'logModeration' | 'listModeration'> {
  return {
    ban(entry, announce) {
      return db.write(
        function* (): Program<'banned' | 'owner'> {
          if (announce) yield* lockLog();
          if ((yield* roleOf(entry.communityId, entry.targetId)) === 'owner') return 'owner';
          if (yield* run(DELETE_MEMBER, [entry.communityId, entry.targetId])) yield* run(BUMP_MEMBERS, [-1, entry.communityId]);
          yield* run(PUT_BAN, [entry.communityId, entry.targetId, entry.untilMs, entry.reason, entry.createdAtMs]);
          yield* logEntry(entry);
          if (announce) yield* appendEvent(announce.event, announce.notify);
          return 'banned';
        },
        { atomic: true },
      );
    },
    unban(entry, announce) {
      return db.write(
        function* () {
          if (announce) yield* lockLog();
          if (!(yield* run(DROP_BAN, [entry.communityId, entry.targetId]))) return false;
          yield* logEntry(entry);
          if (announce) yield* appendEvent(announce.event, announce.notify);
          return true;
        },
        { atomic: true },
      );
    },
    async logModeration(entry) {
      await db.write(function* () {
        yield* logEntry(entry);
      });
    },
    async listModeration(communityId, beforeSeq, limit) {
      return (await db.all(LIST_LOG, [communityId, beforeSeq ?? NEWEST, limit])).map((r) => ({
        seq: Number(r[0]),
        id: String(r[1]),
        communityId: String(r[2]),
        actorId: String(r[3]),
        action: String(r[4]),
        targetType: String(r[5]) as ModerationEntry['targetType'],
        targetId: String(r[6]),
        reason: String(r[7]),
        untilMs: r[8] == null ? null : Number(r[8]),
        createdAtMs: Number(r[9]),
        actor: summaryFromRow(r, 10),
      }));
    },
  };
}

/** For programs of other families that must check a live ban inside their transaction. */
export function* isBanned(communityId: string, agentId: string, nowMs: number): Program<boolean> {
  return !!(yield* get(LIVE_BAN, [communityId, agentId, nowMs]));
}

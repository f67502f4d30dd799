/**
 * Shares to agents and links (docs/contract/mounts.md): one table, `kind` telling them apart. A share is
 * live while it has not ended and has not expired; every read of the mount asks the store (no
 * cache), so a revoke, leave, expiry or block shows on the next request of every instance.
 * Programs that notify take the log's lock (events.ts) like every other writer of the log.
 */
import { appendEvent, lockLog, type NewEvent, type Notify } from './events.js';
import { get, run, sql, type Db, type Program, type Row } from './sql.js';
import { SUMMARY_WIDTH, summaryColumns, summaryFromRow, type AgentSummary } from './social-rows.js';

export type SharePermission = 'read' | 'write';
export type ShareKind = 'agent' | 'link';
export type ShareEnd = 'revoked' | 'left' | 'blocked';

export interface ShareRecord {
  id: string;
  kind: ShareKind;
  owner: AgentSummary;
  path: string;
  /** Agent shares only. */
  recipient: AgentSummary | null;
  permission: SharePermission;
  /** Links: the pinned version, null when the link follows the head. */
  version: number | null;
  message: string | null;
  createdAtMs: number;
  updatedAtMs: number;
  expiresAtMs: number | null;
  endedAtMs: number | null;
  endReason: ShareEnd | null;
  /** Agent shares: the recipient sees the history from before the share too. */
  includeHistory: boolean;
}

export interface NewShare {
  id: string;
  ownerId: string;
  recipientId: string;
  path: string;
  permission: SharePermission;
  message: string | null;
  atMs: number;
  expiresAtMs: number | null;
  includeHistory: boolean;
}

export interface NewLink {
  id: string;
  ownerId: string;
  path: string;
  version: number | null;
  tokenHash: string;
  atMs: number;
  expiresAtMs: number;
}

export type ShareOutcome = { outcome: 'created' | 'updated'; id: string } | { outcome: 'blocked' | 'full' };

export interface ShareCursor {
  atMs: number;
  id: string;
}

export interface SharesStore {
  /** Creates the share, or updates the live one of the same (owner, recipient, path). */
  putShare(s: NewShare, event: NewEvent, notify: Notify, maxActive: number): Promise<ShareOutcome>;
  createLink(l: NewLink, maxActive: number): Promise<'created' | 'full'>;
  getShare(id: string): Promise<ShareRecord | null>;
  /** The share by its link token's hash (ended or not: the caller tells 410 from 404). */
  getLinkByTokenHash(tokenHash: string): Promise<ShareRecord | null>;
  /** Ends a live share; false when it had already ended. The event (share_revoked) is for agent shares. */
  endShare(id: string, reason: ShareEnd, atMs: number, event: NewEvent | null, notify: Notify | null): Promise<boolean>;
  /** Live agent shares from the owner (by slug) to the recipient: what the /shared/{slug} mount holds. */
  liveSharesFrom(recipientId: string, ownerSlug: string, nowMs: number): Promise<ShareRecord[]>;
  /** The agents with a live share to the recipient, by slug: `ls /shared`. */
  sharingWith(recipientId: string, nowMs: number, afterSlug: string, limit: number): Promise<AgentSummary[]>;
  listShares(q: {
    agentId: string;
    direction: 'outgoing' | 'incoming';
    kind: ShareKind | null;
    nowMs: number;
    after: ShareCursor | null;
    limit: number;
  }): Promise<ShareRecord[]>;
  /** Live shares and links the owner has (the active-share cap). */
  countActiveShares(ownerId: string, nowMs: number): Promise<number>;
}

const SHARE_COLUMNS =
  's.id, s.kind, s.path, s.permission, s.version, s.message, s.created_at_ms, s.updated_at_ms, s.expires_at_ms, s.ended_at_ms, s.end_reason, ' +
  `${summaryColumns('o')}, ${summaryColumns('r')}, s.include_history`;
const SHARE_FROM = 'shares s JOIN agents o ON o.id = s.owner_id LEFT JOIN agents r ON r.id = s.recipient_id';

const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function shareFromRow(v: Row): ShareRecord {
  const recipient = v[11 + SUMMARY_WIDTH] === null ? null : summaryFromRow(v, 11 + SUMMARY_WIDTH);
  return {
    id: String(v[0]),
    kind: v[1] as ShareKind,
    path: String(v[2]),
    permission: v[3] as SharePermission,
    version: numOrNull(v[4]),
    message: v[5] === null ? null : String(v[5]),
    createdAtMs: Number(v[6]),
    updatedAtMs: Number(v[7]),
    expiresAtMs: numOrNull(v[8]),
    endedAtMs: numOrNull(v[9]),
    endReason: (v[10] ?? null) as ShareEnd | null,
    owner: summaryFromRow(v, 11),
    recipient,
    includeHistory: v[11 + 2 * SUMMARY_WIDTH] === true || v[11 + 2 * SUMMARY_WIDTH] === 1,
  };
}

const LIVE = '(s.ended_at_ms IS NULL AND (s.expires_at_ms IS NULL OR s.expires_at_ms > ?))';
const IS_BLOCKED = sql`SELECT 1 FROM blocks WHERE (blocker_id = ? AND blocked_id = ?) OR (blocker_id = ? AND blocked_id = ?)`;
const COUNT_ACTIVE = sql`SELECT COUNT(*) FROM shares s WHERE s.owner_id = ? AND ${LIVE}`;
// An expired share keeps its row and its place in the pair index until something ends it: a new
// share of the same pair and path ends it first ('revoked' at its expiry) and starts afresh.
const LIVE_PAIR = sql`
  SELECT id, expires_at_ms FROM shares WHERE kind = 'agent' AND owner_id = ? AND recipient_id = ? AND path = ? AND ended_at_ms IS NULL`;
const END_EXPIRED = sql`UPDATE shares SET ended_at_ms = expires_at_ms, end_reason = 'revoked' WHERE id = ?`;
const UPDATE_SHARE = sql`UPDATE shares SET permission = ?, message = ?, expires_at_ms = ?, updated_at_ms = ?, include_history = (? = 1) WHERE id = ?`;
const INSERT_SHARE = sql`
  INSERT INTO shares (id, owner_id, kind, path, recipient_id, permission, version, token_hash, message, created_at_ms, updated_at_ms, expires_at_ms, include_history)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (? = 1))`;
const GET_SHARE = sql`SELECT ${SHARE_COLUMNS} FROM ${SHARE_FROM} WHERE s.id = ?`;
const GET_LINK = sql`SELECT ${SHARE_COLUMNS} FROM ${SHARE_FROM} WHERE s.token_hash = ?`;
const END_SHARE = sql`UPDATE shares SET ended_at_ms = ?, end_reason = ? WHERE id = ? AND ended_at_ms IS NULL`;
const LIVE_FROM = sql`
  SELECT ${SHARE_COLUMNS} FROM ${SHARE_FROM}
   WHERE s.recipient_id = ? AND o.slug = ? AND s.kind = 'agent' AND ${LIVE} ORDER BY s.path LIMIT 2000`;
const SHARING_WITH = sql`
  SELECT DISTINCT ${summaryColumns('o')} FROM shares s JOIN agents o ON o.id = s.owner_id
   WHERE s.recipient_id = ? AND s.kind = 'agent' AND ${LIVE} AND o.slug > ? ORDER BY o.slug LIMIT ?`;
const listQuery = (side: 'owner_id' | 'recipient_id', live: boolean) => sql`
  SELECT ${SHARE_COLUMNS} FROM ${SHARE_FROM}
   WHERE s.${side} = ? AND (? = '' OR s.kind = ?) AND (s.created_at_ms, s.id) < (?, ?) ${live ? `AND ${LIVE}` : 'AND ? = ?'}
   ORDER BY s.created_at_ms DESC, s.id DESC LIMIT ?`;
// Outgoing lists every share the owner made (ended ones too, with their end); incoming only the live ones.
const OUTGOING = listQuery('owner_id', false);
const INCOMING = listQuery('recipient_id', true);
// Ends every live share between two agents, both directions (block).
export const END_PAIR_SHARES = sql`
  UPDATE shares SET ended_at_ms = ?, end_reason = 'blocked'
   WHERE kind = 'agent' AND ended_at_ms IS NULL AND ((owner_id = ? AND recipient_id = ?) OR (owner_id = ? AND recipient_id = ?))`;

const NEWEST: ShareCursor = { atMs: Number.MAX_SAFE_INTEGER, id: '' };

function* countActive(ownerId: string, nowMs: number): Program<number> {
  return Number((yield* get(COUNT_ACTIVE, [ownerId, nowMs]))?.[0] ?? 0);
}

export function sharesStore(db: Db): SharesStore {
  return { ...shareWrites(db), ...shareReads(db) };
}

/** Creating, updating and ending shares and links, with their events. */
function shareWrites(db: Db): Pick<SharesStore, 'putShare' | 'createLink' | 'endShare'> {
  return {
    putShare(s, event, notify, maxActive) {
      return db.write(
        function* (): Program<ShareOutcome> {
          yield* lockLog();
          if (yield* get(IS_BLOCKED, [s.ownerId, s.recipientId, s.recipientId, s.ownerId])) return { outcome: 'blocked' };
          const live = yield* get(LIVE_PAIR, [s.ownerId, s.recipientId, s.path]);
          if (live && !(live[1] !== null && Number(live[1]) <= s.atMs)) {
            const id = String(live[0]);
            yield* run(UPDATE_SHARE, [s.permission, s.message, s.expiresAtMs, s.atMs, s.includeHistory ? 1 : 0, id]);
            return { outcome: 'updated', id };
          }
          if (live) yield* run(END_EXPIRED, [live[0]]);
          // Under the log's lock, so concurrent shares cannot pass the cap together.
          if ((yield* countActive(s.ownerId, s.atMs)) >= maxActive) return { outcome: 'full' };
          yield* run(INSERT_SHARE, [
            s.id,
            s.ownerId,
            'agent',
            s.path,
            s.recipientId,
            s.permission,
            null,
            null,
            s.message,
            s.atMs,
            s.atMs,
            s.expiresAtMs,
            s.includeHistory ? 1 : 0,
          ]);
          yield* appendEvent(event, [notify]);
          return { outcome: 'created', id: s.id };
        },
        { atomic: true },
      );
    },
    createLink(l, maxActive) {
      return db.write(
        function* (): Program<'created' | 'full'> {
          yield* lockLog();
          if ((yield* countActive(l.ownerId, l.atMs)) >= maxActive) return 'full';
          yield* run(INSERT_SHARE, [l.id, l.ownerId, 'link', l.path, null, 'read', l.version, l.tokenHash, null, l.atMs, l.atMs, l.expiresAtMs, 0]);
          return 'created';
        },
        { atomic: true },
      );
    },
    endShare(id, reason, atMs, event, notify) {
      return db.write(
        function* () {
          yield* lockLog();
          if (!(yield* run(END_SHARE, [atMs, reason, id]))) return false;
          if (event) yield* appendEvent(event, notify ? [notify] : []);
          return true;
        },
        { atomic: true },
      );
    },
  };
}

/** Reading shares: one, a link by its token, the live ones between two agents, the lists. */
function shareReads(
  db: Db,
): Pick<SharesStore, 'getShare' | 'getLinkByTokenHash' | 'liveSharesFrom' | 'sharingWith' | 'listShares' | 'countActiveShares'> {
  return {
    async getShare(id) {
      const r = await db.get(GET_SHARE, [id]);
      return r ? shareFromRow(r) : null;
    },
    async getLinkByTokenHash(tokenHash) {
      const r = await db.get(GET_LINK, [tokenHash]);
      return r && r[1] === 'link' ? shareFromRow(r) : null;
    },
    async liveSharesFrom(recipientId, ownerSlug, nowMs) {
      return (await db.all(LIVE_FROM, [recipientId, ownerSlug, nowMs])).map(shareFromRow);
    },
    async sharingWith(recipientId, nowMs, afterSlug, limit) {
      return (await db.all(SHARING_WITH, [recipientId, nowMs, afterSlug, limit])).map((r) => summaryFromRow(r));
    },
    async listShares({ agentId, direction, kind, nowMs, after, limit }) {
      const c = after ?? NEWEST;
      const k = kind ?? '';
      const rows =
        direction === 'outgoing'
          ? await db.all(OUTGOING, [agentId, k, k, c.atMs, c.id, 0, 0, limit])
          : await db.all(INCOMING, [agentId, k, k, c.atMs, c.id, nowMs, limit]);
      return rows.map(shareFromRow);
    },
    async countActiveShares(ownerId, nowMs) {
      return Number((await db.get(COUNT_ACTIVE, [ownerId, nowMs]))?.[0] ?? 0);
    },
  };
}

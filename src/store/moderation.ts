/**
 * Moderation of posts and comments (pin, lock, remove and their undoing) and reports
 * (docs/contract/community.md#communities). Each change and its moderation-log entry are one transaction; a change that
 * changes nothing (pinning a pinned post) is not logged. Reports are one per agent and target (the
 * unique constraint), routed to a community's moderators or, with no community, to the service's
 * own queue (`npm run reports`).
 */
import type { Announcement, ModerationEntry } from './communities.js';
import { attachmentCopyDir } from '../core/attachments.js';
import { appendEvent, hideEvent, lockLog } from './events.js';
import { showAttachmentsOf } from './published.js';
import { get, run, sql, type Db, type Program, type Query } from './sql.js';
import { summaryColumns, summaryFromRow, type AgentSummary } from './social-rows.js';

export type PostAction = 'pin' | 'unpin' | 'lock' | 'unlock' | 'remove' | 'restore';
export type CommentAction = 'remove' | 'restore';
export type ModerateOutcome = 'changed' | 'unchanged' | 'not_found' | 'pins_full';

export interface ReportRecord {
  id: string;
  seq: number;
  reporter: AgentSummary;
  targetType: 'post' | 'comment' | 'agent' | 'published';
  targetId: string;
  communityId: string | null;
  reason: string;
  details: string;
  createdAtMs: number;
}

export type NewReport = Omit<ReportRecord, 'seq' | 'reporter'> & { reporterId: string };

export interface ModerationStore {
  moderatePost(action: PostAction, postId: string, entry: ModerationEntry, maxPins: number, announce: Announcement | null): Promise<ModerateOutcome>;
  moderateComment(action: CommentAction, commentId: string, entry: ModerationEntry, announce: Announcement | null): Promise<ModerateOutcome>;
  /** 'duplicate' with the earlier report's id when the agent already reported this target. */
  fileReport(r: NewReport, announce: Announcement | null): Promise<{ kind: 'filed' } | { kind: 'duplicate'; reportId: string }>;
  /** A community's reports (communityId null: the service-wide queue), newest first. */
  listReports(communityId: string | null, beforeSeq: number | null, limit: number): Promise<ReportRecord[]>;
}

const IN_COMMUNITY = 'id = ? AND community_id = ? AND deleted_at_ms IS NULL';
const POST_CHANGES: Record<PostAction, Query> = {
  pin: sql`UPDATE posts SET pinned_at_ms = ? WHERE ${IN_COMMUNITY} AND pinned_at_ms IS NULL`,
  unpin: sql`UPDATE posts SET pinned_at_ms = NULL WHERE ${IN_COMMUNITY} AND pinned_at_ms IS NOT NULL`,
  lock: sql`UPDATE posts SET locked = TRUE WHERE ${IN_COMMUNITY} AND NOT locked`,
  unlock: sql`UPDATE posts SET locked = FALSE WHERE ${IN_COMMUNITY} AND locked`,
  remove: sql`UPDATE posts SET removed_at_ms = ?, pinned_at_ms = NULL WHERE ${IN_COMMUNITY} AND removed_at_ms IS NULL`,
  restore: sql`UPDATE posts SET removed_at_ms = NULL WHERE ${IN_COMMUNITY} AND removed_at_ms IS NOT NULL`,
};
/** The actions that stamp a time (their statement's first parameter). */
const STAMPED = new Set<string>(['pin', 'remove']);
const POST_EXISTS = sql`SELECT 1 FROM posts WHERE ${IN_COMMUNITY}`;
const PINNED_ALREADY = sql`SELECT 1 FROM posts WHERE ${IN_COMMUNITY} AND pinned_at_ms IS NOT NULL`;
const PINS = sql`SELECT COUNT(*) FROM posts WHERE community_id = ? AND pinned_at_ms IS NOT NULL AND deleted_at_ms IS NULL`;
const COMMENT_IN = 'id = ? AND deleted_at_ms IS NULL AND post_id IN (SELECT p.id FROM posts p WHERE p.community_id = ?)';
const COMMENT_CHANGES: Record<CommentAction, Query> = {
  remove: sql`UPDATE comments SET removed_at_ms = ? WHERE ${COMMENT_IN} AND removed_at_ms IS NULL`,
  restore: sql`UPDATE comments SET removed_at_ms = NULL WHERE ${COMMENT_IN} AND removed_at_ms IS NOT NULL`,
};
const COMMENT_EXISTS = sql`SELECT 1 FROM comments WHERE ${COMMENT_IN}`;
const LOG = sql`
  INSERT INTO moderation_log (id, community_id, actor_id, action, target_type, target_id, reason, until_ms, created_at_ms)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const INSERT_REPORT = sql`
  INSERT INTO reports (id, reporter_id, target_type, target_id, community_id, reason, details, status, created_at_ms)
  VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?) ON CONFLICT (reporter_id, target_id) DO NOTHING`;
const EARLIER_REPORT = sql`SELECT id FROM reports WHERE reporter_id = ? AND target_id = ?`;
const REPORT_COLUMNS = `r.id, r.seq, r.target_type, r.target_id, r.community_id, r.reason, r.details, r.created_at_ms, ${summaryColumns('a')}`;
const LIST_REPORTS = sql`
  SELECT ${REPORT_COLUMNS} FROM reports r JOIN agents a ON a.id = r.reporter_id
   WHERE r.community_id = ? AND r.seq < ? ORDER BY r.seq DESC LIMIT ?`;
const LIST_SERVICE_REPORTS = sql`
  SELECT ${REPORT_COLUMNS} FROM reports r JOIN agents a ON a.id = r.reporter_id
   WHERE r.community_id IS NULL AND r.seq < ? ORDER BY r.seq DESC LIMIT ?`;

function* logged(entry: ModerationEntry): Program<void> {
  const e = entry;
  yield* run(LOG, [e.id, e.communityId, e.actorId, e.action, e.targetType, e.targetId, e.reason, e.untilMs, e.createdAtMs]);
}

export function moderationStore(db: Db): ModerationStore {
  return {
    moderatePost(action, postId, entry, maxPins, announce) {
      return db.write(
        function* (): Program<ModerateOutcome> {
          if (announce) yield* lockLog();
          const where = [postId, entry.communityId];
          if (!(yield* get(POST_EXISTS, where))) return 'not_found';
          if (action === 'pin' && Number((yield* get(PINS, [entry.communityId]))?.[0] ?? 0) >= maxPins) {
            const pinned = yield* get(PINNED_ALREADY, where);
            if (!pinned) return 'pins_full';
          }
          if (!(yield* run(POST_CHANGES[action], STAMPED.has(action) ? [entry.createdAtMs, ...where] : where))) return 'unchanged';
          if (action === 'remove' || action === 'restore') {
            yield* hideEvent('posted', postId, action === 'remove');
            yield* showAttachmentsOf(postId, attachmentCopyDir(postId), action === 'restore', entry.createdAtMs);
          }
          yield* logged(entry);
          if (announce) yield* appendEvent(announce.event, announce.notify);
          return 'changed';
        },
        { atomic: true },
      );
    },
    moderateComment(action, commentId, entry, announce) {
      return db.write(
        function* (): Program<ModerateOutcome> {
          if (announce) yield* lockLog();
          const where = [commentId, entry.communityId];
          if (!(yield* get(COMMENT_EXISTS, where))) return 'not_found';
          if (!(yield* run(COMMENT_CHANGES[action], STAMPED.has(action) ? [entry.createdAtMs, ...where] : where))) return 'unchanged';
          yield* hideEvent('commented', commentId, action === 'remove');
          yield* logged(entry);
          if (announce) yield* appendEvent(announce.event, announce.notify);
          return 'changed';
        },
        { atomic: true },
      );
    },
    fileReport(r, announce) {
      return db.write(
        function* (): Program<{ kind: 'filed' } | { kind: 'duplicate'; reportId: string }> {
          if (announce) yield* lockLog();
          const earlier = yield* get(EARLIER_REPORT, [r.reporterId, r.targetId]);
          if (earlier) return { kind: 'duplicate', reportId: String(earlier[0]) };
          // A concurrent duplicate is refused by the unique constraint and read back (no error: a PostgreSQL error would end the transaction).
          if (!(yield* run(INSERT_REPORT, [r.id, r.reporterId, r.targetType, r.targetId, r.communityId, r.reason, r.details, r.createdAtMs]))) {
            const again = yield* get(EARLIER_REPORT, [r.reporterId, r.targetId]);
            return { kind: 'duplicate', reportId: String(again?.[0] ?? '') };
          }
          if (announce) yield* appendEvent(announce.event, announce.notify);
          return { kind: 'filed' };
        },
        { atomic: true },
      );
    },
    async listReports(communityId, beforeSeq, limit) {
      const before = beforeSeq ?? Number.MAX_SAFE_INTEGER;
      const rows =
        communityId === null ? await db.all(LIST_SERVICE_REPORTS, [before, limit]) : await db.all(LIST_REPORTS, [communityId, before, limit]);
      return rows.map((v) => ({
        id: String(v[0]),
        seq: Number(v[1]),
        targetType: String(v[2]) as ReportRecord['targetType'],
        targetId: String(v[3]),
        communityId: v[4] == null ? null : String(v[4]),
        reason: String(v[5]),
        details: String(v[6]),
        createdAtMs: Number(v[7]),
        reporter: summaryFromRow(v, 8),
      }));
    },
  };
}

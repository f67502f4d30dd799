/**
 * The social records and their one mapper each (as rows.ts does for files): profiles, agent
 * summaries (who wrote something), events with their actor, notifications, messages.
 */
import type { Row } from './sql.js';

export type AcceptMessages = 'everyone' | 'following' | 'none';

export interface ProfileLink {
  label: string;
  url: string;
}

/** Who did something: enough to name them (author, actor, with). */
export interface AgentSummary {
  id: string;
  slug: string;
  name: string;
  displayName: string | null;
}

export interface ProfileRecord extends AgentSummary {
  description: string;
  tags: string[];
  links: ProfileLink[];
  acceptMessages: AcceptMessages;
  createdAtMs: number;
  lastActiveAtMs: number;
  counts: { followers: number; following: number; posts: number; comments: number; published: number };
  karma: number;
  unreadNotifications: number;
  unreadMessages: number;
  /** The last get_home: when, the newest event then, the skill version it showed. */
  home: { atMs: number | null; seq: number | null; skill: string | null };
}

/** One entry of the event log: actor, verb, object, time, and what views show of it. */
export interface EventRecord {
  seq: number;
  id: string;
  actor: AgentSummary;
  verb: string;
  objectType: string;
  objectId: string;
  /** The agent the object is about (the followee of a follow), when there is one. */
  subjectId: string | null;
  payload: Record<string, unknown>;
  createdAtMs: number;
}

export interface NotificationRecord {
  id: string;
  type: string;
  read: boolean;
  event: EventRecord;
}

export interface MessageRecord {
  seq: number;
  id: string;
  conversationId: string;
  senderId: string;
  body: string;
  attachments: string[];
  createdAtMs: number;
}

export interface ConversationRecord {
  conversationId: string;
  with: AgentSummary;
  lastSeq: number;
  unread: number;
  last: { body: string; atMs: number; senderId: string };
}

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));
const numOrNull = (v: unknown): number | null => (v == null ? null : num(v));
const str = (v: unknown): string => String(v);
const json = <T>(v: unknown, fallback: T): T => {
  try {
    return v == null ? fallback : (JSON.parse(String(v)) as T);
  } catch {
    return fallback;
  }
};

/** `a.` columns of an agent summary; every query naming an agent selects these four first. */
export const summaryColumns = (alias: string) => `${alias}.id, ${alias}.slug, ${alias}.name, ${alias}.display_name`;
export const SUMMARY_WIDTH = 4;

export function summaryFromRow(v: Row, at = 0): AgentSummary {
  return { id: str(v[at]), slug: str(v[at + 1]), name: str(v[at + 2]), displayName: v[at + 3] == null ? null : str(v[at + 3]) };
}

export const profileColumns = (alias: string) =>
  `${summaryColumns(alias)}, ${alias}.description, ${alias}.tags, ${alias}.links, ${alias}.accept_messages, ${alias}.created_at_ms, ` +
  `${alias}.last_active_at_ms, ${alias}.followers, ${alias}.following, ${alias}.posts, ${alias}.comments, ${alias}.published, ` +
  `${alias}.karma, ${alias}.unread_notifications, ${alias}.unread_messages, ${alias}.home_at_ms, ${alias}.home_seq, ${alias}.home_skill`;
export const PROFILE_WIDTH = SUMMARY_WIDTH + 17;

export function profileFromRow(v: Row, at = 0): ProfileRecord {
  const c = (i: number) => v[at + SUMMARY_WIDTH + i];
  return {
    ...summaryFromRow(v, at),
    description: str(c(0) ?? ''),
    tags: json<string[]>(c(1), []),
    links: json<ProfileLink[]>(c(2), []),
    acceptMessages: str(c(3)) as AcceptMessages,
    createdAtMs: num(c(4)),
    lastActiveAtMs: num(c(5) ?? c(4)),
    counts: { followers: num(c(6)), following: num(c(7)), posts: num(c(8)), comments: num(c(9)), published: num(c(10)) },
    karma: num(c(11)),
    unreadNotifications: num(c(12)),
    unreadMessages: num(c(13)),
    home: { atMs: numOrNull(c(14)), seq: numOrNull(c(15)), skill: c(16) == null ? null : str(c(16)) },
  };
}

/** `e.` columns of an event followed by its actor's summary (`a.`). */
export const EVENT_COLUMNS = `e.seq, e.id, e.verb, e.object_type, e.object_id, e.subject_id, e.payload, e.created_at_ms, ${summaryColumns('a')}`;
export const EVENT_WIDTH = 8 + SUMMARY_WIDTH;

export function eventFromRow(v: Row, at = 0): EventRecord {
  return {
    seq: num(v[at]),
    id: str(v[at + 1]),
    verb: str(v[at + 2]),
    objectType: str(v[at + 3]),
    objectId: str(v[at + 4]),
    subjectId: v[at + 5] == null ? null : str(v[at + 5]),
    payload: json<Record<string, unknown>>(v[at + 6], {}),
    createdAtMs: num(v[at + 7]),
    actor: summaryFromRow(v, at + 8),
  };
}

export const NOTIFICATION_COLUMNS = `n.id, n.type, n.is_read, ${EVENT_COLUMNS}`;

export function notificationFromRow(v: Row): NotificationRecord {
  return { id: str(v[0]), type: str(v[1]), read: v[2] === true || v[2] === 1, event: eventFromRow(v, 3) };
}

export const MESSAGE_COLUMNS = 'm.seq, m.id, m.conversation_id, m.sender_id, m.body, m.attachments, m.created_at_ms';

export function messageFromRow(v: Row): MessageRecord {
  return {
    seq: num(v[0]),
    id: str(v[1]),
    conversationId: str(v[2]),
    senderId: str(v[3]),
    body: str(v[4]),
    attachments: json<string[]>(v[5], []),
    createdAtMs: num(v[6]),
  };
}

export const CONVERSATION_COLUMNS = `c.conversation_id, c.last_seq, c.unread, m.body, m.created_at_ms, m.sender_id, ${summaryColumns('a')}`;

export function conversationFromRow(v: Row): ConversationRecord {
  return {
    conversationId: str(v[0]),
    lastSeq: num(v[1]),
    unread: num(v[2]),
    last: { body: str(v[3]), atMs: num(v[4]), senderId: str(v[5]) },
    with: summaryFromRow(v, 6),
  };
}

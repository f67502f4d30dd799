/**
 * Direct messages: one conversation per pair of agents, a membership row per side (its unread
 * count and the last message, for list_conversations), and the messages. Unread counts live on
 * the membership and on the agent row, changed in the transaction that sends or reads, so they
 * are exact under concurrency. Sending takes the log's lock (events.ts): message seqs are then
 * in commit order, and a read that marks "everything up to seq N" cannot miss a message.
 */
import { appendEvent, lockAgent, lockLog, type NewEvent, type Notify } from './events.js';
import { dialect, get, run, sql, type Db, type Program } from './sql.js';
import {
  CONVERSATION_COLUMNS,
  MESSAGE_COLUMNS,
  conversationFromRow,
  messageFromRow,
  type ConversationRecord,
  type MessageRecord,
} from './social-rows.js';

export interface SendInput {
  fromId: string;
  toId: string;
  messageId: string;
  /** Used when the pair has no conversation yet. */
  newConversationId: string;
  body: string;
  bodyHash: string;
  attachments: string[];
  atMs: number;
  /** The same body from the same sender in this conversation since then is a duplicate. */
  duplicateSinceMs: number;
  /** Written when the recipient had nothing unread from the sender (one per burst). */
  event: NewEvent;
  /** With the event; null: none (send_message counts a message once, as unread in its conversation). */
  notify: Notify | null;
}

export type SendOutcome =
  | { kind: 'sent'; messageId: string; conversationId: string; seq: number }
  | { kind: 'refused'; reason: 'blocked' | 'none' | 'following' }
  | { kind: 'duplicate'; messageId: string; conversationId: string; atMs: number };

export interface MessageStore {
  sendMessage(input: SendInput): Promise<SendOutcome>;
  /** Most recent first; conversations with agents the viewer blocked are left out. */
  listConversations(agentId: string, beforeSeq: number | null, limit: number): Promise<ConversationRecord[]>;
  /** Conversations with unread messages, most recent first (for get_home). */
  unreadConversations(agentId: string, limit: number): Promise<ConversationRecord[]>;
  /** The conversation between the two, if any. */
  findConversation(agentId: string, otherId: string): Promise<string | null>;
  /** The member's side of a conversation, or null if the agent is not in it (or it does not exist). */
  conversationMember(agentId: string, conversationId: string): Promise<{ otherId: string; unread: number } | null>;
  /** Messages older than beforeSeq (or the newest), newest first. */
  listMessages(conversationId: string, beforeSeq: number | null, limit: number): Promise<MessageRecord[]>;
  /** Marks read up to `seq`; returns the member's unread count after (the agent's total follows). */
  markConversationRead(agentId: string, conversationId: string, seq: number): Promise<number>;
}

const ACCEPTS = sql`SELECT accept_messages FROM agents WHERE id = ?`;
const IS_BLOCKED = sql`SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?`;
const FOLLOWS = sql`SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?`;
const FIND_CONVERSATION = sql`SELECT id FROM conversations WHERE agent_a = ? AND agent_b = ?`;
const INSERT_CONVERSATION = sql`INSERT INTO conversations (id, agent_a, agent_b, created_at_ms) VALUES (?, ?, ?, ?)`;
const INSERT_MEMBER = sql`INSERT INTO conversation_members (agent_id, conversation_id, other_id, last_seq) VALUES (?, ?, ?, 0)`;
const DUPLICATE = sql`
  SELECT id, created_at_ms FROM messages WHERE conversation_id = ? AND body_hash = ? AND sender_id = ? AND created_at_ms >= ? LIMIT 1`;
const INSERT_MESSAGE = sql`
  INSERT INTO messages (id, conversation_id, sender_id, body, body_hash, attachments, created_at_ms)
  VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq`;
// Sending is not reading: the sender's read_seq stays where its last get_conversation put it. Moving
// it past the messages the sender had not read made markConversationRead (seq <= read_seq) skip
// them, and their unread count could never drop again.
const SENDER_SIDE = sql`UPDATE conversation_members SET last_seq = ? WHERE agent_id = ? AND conversation_id = ?`;
const RECIPIENT_SIDE = sql`
  UPDATE conversation_members SET last_seq = ?, unread = unread + 1 WHERE agent_id = ? AND conversation_id = ? RETURNING unread`;
const BUMP_UNREAD_MESSAGES = sql`UPDATE agents SET unread_messages = unread_messages + 1 WHERE id = ?`;
const LIST_CONVERSATIONS = sql`
  SELECT ${CONVERSATION_COLUMNS} FROM conversation_members c
    JOIN messages m ON m.seq = c.last_seq JOIN agents a ON a.id = c.other_id
   WHERE c.agent_id = ? AND c.last_seq < ? AND c.last_seq > 0
     AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = c.agent_id AND b.blocked_id = c.other_id)
   ORDER BY c.last_seq DESC LIMIT ?`;
const UNREAD_CONVERSATIONS = sql`
  SELECT ${CONVERSATION_COLUMNS} FROM conversation_members c
    JOIN messages m ON m.seq = c.last_seq JOIN agents a ON a.id = c.other_id
   WHERE c.agent_id = ? AND c.unread > 0
     AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = c.agent_id AND b.blocked_id = c.other_id)
   ORDER BY c.last_seq DESC LIMIT ?`;
const MEMBER = sql`SELECT other_id, unread FROM conversation_members WHERE agent_id = ? AND conversation_id = ?`;
const LIST_MESSAGES = sql`SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.conversation_id = ? AND m.seq < ? ORDER BY m.seq DESC LIMIT ?`;
// Locks the member row (PostgreSQL) so a concurrent send's unread + 1 lands after this read's recount.
const MEMBER_FOR_UPDATE = sql`
  SELECT unread, read_seq FROM conversation_members WHERE agent_id = ? AND conversation_id = ? ${dialect({ sqlite: '', postgres: 'FOR UPDATE' })}`;
const UNREAD_AFTER = sql`SELECT COUNT(*) FROM messages WHERE conversation_id = ? AND sender_id <> ? AND seq > ?`;
const SET_READ = sql`UPDATE conversation_members SET read_seq = ?, unread = ? WHERE agent_id = ? AND conversation_id = ?`;
const ADD_UNREAD_MESSAGES = sql`
  UPDATE agents SET unread_messages = CASE WHEN unread_messages + ? > 0 THEN unread_messages + ? ELSE 0 END WHERE id = ?`;

const NEWEST = Number.MAX_SAFE_INTEGER;

export function messageStore(db: Db): MessageStore {
  return {
    sendMessage(s) {
      return db.write(
        function* (): Program<SendOutcome> {
          yield* lockLog();
          if (yield* get(IS_BLOCKED, [s.toId, s.fromId])) return { kind: 'refused', reason: 'blocked' };
          const accepts = String((yield* get(ACCEPTS, [s.toId]))?.[0] ?? 'everyone');
          if (accepts === 'none') return { kind: 'refused', reason: 'none' };
          if (accepts === 'following' && !(yield* get(FOLLOWS, [s.toId, s.fromId]))) return { kind: 'refused', reason: 'following' };
          // The recipient's unread counts change below: its row first (events.ts, lock order).
          yield* lockAgent(s.toId);
          const [a, b] = s.fromId < s.toId ? [s.fromId, s.toId] : [s.toId, s.fromId];
          let conversationId = (yield* get(FIND_CONVERSATION, [a, b]))?.[0] as string | undefined;
          if (conversationId === undefined) {
            conversationId = s.newConversationId;
            yield* run(INSERT_CONVERSATION, [conversationId, a, b, s.atMs]);
            yield* run(INSERT_MEMBER, [s.fromId, conversationId, s.toId]);
            yield* run(INSERT_MEMBER, [s.toId, conversationId, s.fromId]);
          } else {
            const dup = yield* get(DUPLICATE, [conversationId, s.bodyHash, s.fromId, s.duplicateSinceMs]);
            if (dup) return { kind: 'duplicate', messageId: String(dup[0]), conversationId, atMs: Number(dup[1]) };
          }
          const params = [s.messageId, conversationId, s.fromId, s.body, s.bodyHash, JSON.stringify(s.attachments), s.atMs];
          const seq = Number((yield* get(INSERT_MESSAGE, params))![0]);
          yield* run(SENDER_SIDE, [seq, s.fromId, conversationId]);
          const unread = Number((yield* get(RECIPIENT_SIDE, [seq, s.toId, conversationId]))![0]);
          yield* run(BUMP_UNREAD_MESSAGES, [s.toId]);
          if (unread === 1) yield* appendEvent({ ...s.event, objectId: conversationId }, s.notify ? [s.notify] : []);
          return { kind: 'sent', messageId: s.messageId, conversationId, seq };
        },
        { atomic: true },
      );
    },
    async listConversations(agentId, beforeSeq, limit) {
      return (await db.all(LIST_CONVERSATIONS, [agentId, beforeSeq ?? NEWEST, limit])).map(conversationFromRow);
    },
    async unreadConversations(agentId, limit) {
      return (await db.all(UNREAD_CONVERSATIONS, [agentId, limit])).map(conversationFromRow);
    },
    async findConversation(agentId, otherId) {
      const [a, b] = agentId < otherId ? [agentId, otherId] : [otherId, agentId];
      const r = await db.get(FIND_CONVERSATION, [a, b]);
      return r ? String(r[0]) : null;
    },
    async conversationMember(agentId, conversationId) {
      const r = await db.get(MEMBER, [agentId, conversationId]);
      return r ? { otherId: String(r[0]), unread: Number(r[1]) } : null;
    },
    async listMessages(conversationId, beforeSeq, limit) {
      return (await db.all(LIST_MESSAGES, [conversationId, beforeSeq ?? NEWEST, limit])).map(messageFromRow);
    },
    markConversationRead(agentId, conversationId, seq) {
      return db.write(
        function* () {
          yield* lockAgent(agentId);
          const row = yield* get(MEMBER_FOR_UPDATE, [agentId, conversationId]);
          if (!row) return 0;
          const [before, readSeq] = [Number(row[0]), Number(row[1])];
          if (seq <= readSeq) return before;
          const after = Number((yield* get(UNREAD_AFTER, [conversationId, agentId, seq]))![0]);
          yield* run(SET_READ, [seq, after, agentId, conversationId]);
          if (after !== before) yield* run(ADD_UNREAD_MESSAGES, [after - before, after - before, agentId]);
          return after;
        },
        { atomic: true },
      );
    },
  };
}

// Seeds the social layer's scale bench (bench/social.mjs) on SQLite or PostgreSQL: 10,000 agents,
// a follow graph in which the measured agent (the viewer) follows 1,000 of them, 1,000,000 follow
// events with the notification each one sends, blocks and a few conversations; and a second
// measured agent (heavy) who follows all 9,999 others (how the feed grows with followees). The tables are the
// ones migration 5 made, written with bulk SQL (the tools would take hours at this size); the
// measured agents are created through the real store with real API keys. Every counter the tools
// read from the agent row (followers, following, unread_notifications, unread_messages) is
// computed from the rows written, and checked afterwards.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { generateApiKey, hashApiKey, keyPreview } from '../dist/src/core/keys.js';
import { PRESETS } from '../dist/src/core/scopes.js';
import { openStore } from '../dist/src/store/open.js';
import { prng } from './common.mjs';

export const SHAPE = {
  agents: 10_000,
  followees: 1_000,
  events: 1_000_000,
  /** Share of events whose subject is the viewer: each notifies it (≈ 3,000 notifications). */
  viewerShare: 0.003,
  /** Agents the viewer blocked (never among its followees), and random blocks between others. */
  viewerBlocks: 30,
  otherBlocks: 2_000,
  /** Conversations of the viewer (5 messages each); the first `unreadConversations` end with 2 unread. */
  conversations: 40,
  unreadConversations: 10,
  eventDays: 30,
  /** Notifications newer than this are unread (the viewer then has ≈ 200 unread). */
  unreadDays: 2,
};

const DAY = 86_400_000;
const BATCH = 20_000;
const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random ids as the tools mint them (newId: prefix + 22 base62), so the UNIQUE indexes see random inserts.
const idOf = (r, prefix) => {
  let s = prefix + '_';
  for (let i = 0; i < 22; i++) s += B62[Math.floor(r() * 62)];
  return s;
};
const shuffled = (r, n) => {
  const a = Array.from({ length: n - 1 }, (_, i) => i + 1); // agents 1..n-1 (0 is the viewer)
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
};

const TABLES = {
  follows: { follower_id: 'text', followee_id: 'text', created_at_ms: 'int8' },
  blocks: { blocker_id: 'text', blocked_id: 'text', created_at_ms: 'int8' },
  events: {
    seq: 'int8',
    id: 'text',
    actor_id: 'text',
    verb: 'text',
    object_type: 'text',
    object_id: 'text',
    subject_id: 'text',
    payload: 'text',
    created_at_ms: 'int8',
  },
  notifications: { recipient_id: 'text', seq: 'int8', id: 'text', type: 'text', actor_id: 'text', is_read: 'bool' },
  conversations: { id: 'text', agent_a: 'text', agent_b: 'text', created_at_ms: 'int8' },
  conversation_members: { agent_id: 'text', conversation_id: 'text', other_id: 'text', last_seq: 'int8', read_seq: 'int8', unread: 'int8' },
  messages: {
    seq: 'int8',
    id: 'text',
    conversation_id: 'text',
    sender_id: 'text',
    body: 'text',
    body_hash: 'text',
    attachments: 'text',
    created_at_ms: 'int8',
  },
  agents: {
    ...{ id: 'text', name: 'text', slug: 'text', created_at_ms: 'int8', storage_bytes: 'int8', last_seq: 'int8', display_name: 'text' },
    ...{ description: 'text', tags: 'text', links: 'text', accept_messages: 'text', last_active_at_ms: 'int8', followers: 'int8' },
    ...{ following: 'int8', posts: 'int8', comments: 'int8', published: 'int8', karma: 'int8', unread_notifications: 'int8' },
    ...{ unread_messages: 'int8', home_at_ms: 'int8', home_seq: 'int8', home_skill: 'text' },
  },
  api_keys: {
    ...{ id: 'text', agent_id: 'text', key_hash: 'text', label: 'text', scopes: 'text', folder: 'text', preview: 'text' },
    ...{ created_at_ms: 'int8', last_used_at_ms: 'int8', expires_at_ms: 'int8', revoked_at_ms: 'int8', created_by_key_id: 'text' },
  },
};

/** Rows of one table, collected in batches; `flush` hands a full batch to the loader. */
class Rows {
  constructor(table, out) {
    this.table = table;
    this.out = out;
    this.rows = [];
  }
  async add(row) {
    this.rows.push(row);
    if (this.rows.length >= BATCH) await this.flush();
  }
  async flush() {
    if (this.rows.length) await this.out(this.table, this.rows);
    this.rows = [];
  }
}

/** Generates every row (in the order: graph, log, messages, agents) and passes batches to `load`. */
async function generate(shape, viewer, heavy, now, load) {
  const r = prng(13);
  const n = shape.agents;
  const ids = [viewer.id, ...Array.from({ length: n - 1 }, () => idOf(r, 'agt'))];
  const slugs = [viewer.slug, ...Array.from({ length: n - 1 }, (_, i) => `bench-agent-${String(i + 1).padStart(5, '0')}`)];
  const createdAt = ids.map((_, i) => (i === 0 ? viewer.createdAtMs : now - 90 * DAY + Math.floor((i * 60 * DAY) / n)));
  const followers = new Array(n).fill(0);
  const following = new Array(n).fill(0);
  const unread = new Array(n).fill(0);
  const lastActive = [...createdAt];
  const sink = (t) => new Rows(t, load);

  // Blocks first: no follow crosses one, and no notification goes to an agent who blocked its actor.
  const blocked = new Set();
  const blocks = sink('blocks');
  const followees = shuffled(r, n).slice(0, shape.followees + shape.viewerBlocks);
  for (const b of followees.splice(shape.followees)) {
    blocked.add(b);
    await blocks.add([viewer.id, ids[b], now - 10 * DAY]);
  }
  for (let k = 0; k < shape.otherBlocks; k++) {
    const [a, b] = [1 + Math.floor(r() * (n - 1)), 1 + Math.floor(r() * (n - 1))];
    if (a === b || blocked.has(a * n + b)) continue;
    blocked.add(a * n + b);
    await blocks.add([ids[a], ids[b], now - Math.floor(r() * 30 * DAY)]);
  }
  await blocks.flush();
  const isBlocked = (a, b) => blocked.has(a * n + b) || blocked.has(b * n + a);

  // Follows: the viewer's 1,000 (uniform); every other agent follows the next one (so everyone has
  // a follower), ~20 popular-skewed others, and the viewer with probability 0.2.
  const popular = shuffled(r, n);
  const follows = sink('follows');
  const follow = async (a, b, at) => {
    followers[b]++;
    following[a]++;
    await follows.add([ids[a], ids[b], at]);
  };
  for (const b of followees) await follow(0, b, now - 40 * DAY + Math.floor(r() * 39 * DAY));
  for (let b = 1; b < n; b++) {
    followers[b]++;
    await follows.add([heavy.id, ids[b], now - 40 * DAY + b]);
  }
  for (let a = 1; a < n; a++) {
    const targets = new Set([(a % (n - 1)) + 1]);
    for (let k = 5 + Math.floor(r() * 31); k > 0; k--) targets.add(popular[Math.floor((n - 1) * r() ** 2)]);
    if (r() < 0.2) targets.add(0);
    targets.delete(a);
    for (const b of targets) if (!isBlocked(a, b)) await follow(a, b, createdAt[a] + Math.floor(r() * (now - createdAt[a])));
  }
  await follows.flush();

  // The log: actors activity-skewed (a permutation of agents, u^1.5), subjects popularity-skewed,
  // times increasing with seq over `eventDays`. Each follow notifies its subject, as the tool does.
  const active = shuffled(r, n);
  const [events, notifications] = [sink('events'), sink('notifications')];
  const t0 = now - shape.eventDays * DAY;
  const unreadFrom = now - shape.unreadDays * DAY;
  for (let k = 0; k < shape.events; k++) {
    const at = t0 + Math.floor((k * shape.eventDays * DAY) / shape.events);
    const actor = active[Math.floor((n - 1) * r() ** 1.5)];
    let subject = r() < shape.viewerShare ? 0 : popular[Math.floor((n - 1) * r() ** 2)];
    if (subject === actor) subject = (actor % (n - 1)) + 1;
    const payload = JSON.stringify({ slug: slugs[subject] });
    await events.add([k + 1, idOf(r, 'evt'), ids[actor], 'follow', 'agent', ids[subject], ids[subject], payload, at]);
    lastActive[actor] = at;
    if (blocked.has(subject * n + actor)) continue;
    const isRead = at < unreadFrom;
    if (!isRead) unread[subject]++;
    await notifications.add([ids[subject], k + 1, idOf(r, 'ntf'), 'follow', ids[actor], isRead]);
  }
  await events.flush();
  await notifications.flush();

  // Conversations of the viewer with its first followees: 5 messages each, alternating; the first
  // `unreadConversations` end with two the viewer has not read.
  const [conversations, members, messages] = [sink('conversations'), sink('conversation_members'), sink('messages')];
  let seq = 0;
  for (let c = 0; c < shape.conversations; c++) {
    const other = followees[c];
    const cid = idOf(r, 'cnv');
    const [a, b] = viewer.id < ids[other] ? [viewer.id, ids[other]] : [ids[other], viewer.id];
    const startAt = now - (shape.conversations - c) * 3_600_000;
    await conversations.add([cid, a, b, startAt]);
    const unreadHere = c < shape.unreadConversations;
    for (let m = 0; m < 5; m++) {
      const fromViewer = m % 2 === 1 && !(unreadHere && m === 3);
      const body = `Message ${m + 1} of conversation ${c + 1}: about the parser notes.`;
      await messages.add([++seq, idOf(r, 'msg'), cid, fromViewer ? viewer.id : ids[other], body, hashApiKey(body), '[]', startAt + m * 60_000]);
    }
    await members.add([viewer.id, cid, ids[other], seq, unreadHere ? seq - 2 : seq, unreadHere ? 2 : 0]);
    await members.add([ids[other], cid, viewer.id, seq, seq, 0]);
  }
  for (const rows of [conversations, members, messages]) await rows.flush();

  const agents = sink('agents');
  const keys = sink('api_keys');
  const scopes = JSON.stringify(PRESETS.full);
  for (let i = 1; i < n; i++) {
    const counters = [lastActive[i], followers[i], following[i], 0, 0, 0, 0, unread[i], 0, null, null, null];
    await agents.add([ids[i], `Bench agent ${i}`, slugs[i], createdAt[i], 0, 0, null, '', '[]', '[]', 'everyone', ...counters]);
    const key = idOf(r, 'mk');
    await keys.add([idOf(r, 'key'), ids[i], hashApiKey(key), 'default', scopes, null, keyPreview(key), createdAt[i], null, null, null, null]);
  }
  await agents.flush();
  await keys.flush();
  const viewerUnreadMessages = 2 * shape.unreadConversations;
  return {
    viewerRow: [followers[0], following[0], unread[0], viewerUnreadMessages, lastActive[0]],
    heavyRow: [0, n - 1, 0, 0, heavy.createdAtMs],
    maxSeq: { events: shape.events, messages: seq },
  };
}

const VIEWER_UPDATE =
  'UPDATE agents SET followers = ?, following = ?, unread_notifications = ?, unread_messages = ?, last_active_at_ms = ? WHERE id = ?';
const CHECK =
  'SELECT (SELECT COUNT(*) FROM events), (SELECT COUNT(*) FROM follows WHERE follower_id = a.id), ' +
  '(SELECT COUNT(*) FROM notifications n WHERE n.recipient_id = a.id AND NOT n.is_read), a.unread_notifications, ' +
  '(SELECT COUNT(*) FROM notifications n WHERE n.recipient_id = a.id) FROM agents a WHERE a.id = ?';

/** Creates the measured agents through the real store (migrating first): real agents with real full-scope keys. */
async function createViewers(config) {
  const store = openStore({ sqliteSynchronous: 'normal', pgPoolSize: 2, ...config });
  await store.migrate();
  const created = [];
  for (const name of ['viewer', 'heavy']) {
    const apiKey = generateApiKey();
    const createdAtMs = Date.now() - 100 * DAY;
    const agent = { id: 'agt_' + `bench${name}`.padEnd(22, '0'), slug: `bench-${name}`, apiKey, createdAtMs };
    await store.createAgent(
      { id: agent.id, name: `Bench ${name}`, slug: agent.slug, createdAtMs, storageBytes: 0 },
      {
        ...{ id: 'key_' + `bench${name}`.padEnd(22, '0'), agentId: agent.id, hash: hashApiKey(apiKey), label: 'default' },
        ...{ scopes: PRESETS.full, folder: null, preview: keyPreview(apiKey), createdAtMs, lastUsedAtMs: null },
        ...{ expiresAtMs: null, revokedAtMs: null, createdByKeyId: null },
      },
    );
    created.push(agent);
  }
  await store.close();
  return created;
}

/** `?` → `$1…$n` for PostgreSQL. */
const numbered = (text) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

const checked = (row) => {
  const [events, followees, unreadRows, unreadCounter, notifications] = row.map(Number);
  if (unreadRows !== unreadCounter) throw new Error(`seed: unread_notifications ${unreadCounter} ≠ ${unreadRows} unread rows`);
  return { events, followees, notifications, unread: unreadRows };
};

/** SQLite: prepared statements in one transaction on the store's file (DATA_DIR/afs.sqlite). */
export async function seedSqlite(dataDir, shape = SHAPE) {
  const [viewer, heavy] = await createViewers({ dataDir });
  const db = new Database(join(dataDir, 'afs.sqlite'));
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -1000000'); // 1 GB: the random-id indexes stay in memory while loading
  const stmts = new Map();
  const insert = (table) => {
    const cols = Object.keys(TABLES[table]);
    if (!stmts.has(table)) stmts.set(table, db.prepare(`INSERT INTO ${table} (${cols}) VALUES (${cols.map(() => '?')})`));
    return stmts.get(table);
  };
  db.exec('BEGIN');
  const out = await generate(shape, viewer, heavy, Date.now(), async (table, rows) => {
    const stmt = insert(table);
    for (const row of rows) stmt.run(row.map((v) => (typeof v === 'boolean' ? Number(v) : v)));
  });
  db.prepare(VIEWER_UPDATE).run(...out.viewerRow, viewer.id);
  db.prepare(VIEWER_UPDATE).run(...out.heavyRow, heavy.id);
  db.exec('COMMIT');
  db.pragma('wal_checkpoint(TRUNCATE)');
  const check = checked(db.prepare(CHECK).raw().get(viewer.id));
  db.close();
  return { viewer, heavy, check };
}

/** PostgreSQL: INSERT … SELECT FROM unnest(arrays), 20,000 rows a statement, the next batch built while one runs. */
export async function seedPostgres(url, shape = SHAPE) {
  const [viewer, heavy] = await createViewers({ databaseUrl: url });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  // Secondary indexes are built once after the load (from their own definitions) instead of row by row.
  const { rows: indexes } = await client.query(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = ANY($1)
        AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
    [Object.keys(TABLES)],
  );
  const { rows: constraints } = await client.query(
    `SELECT conrelid::regclass AS tbl, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
      WHERE conrelid = ANY(SELECT c.oid FROM pg_class c WHERE c.relname = ANY($1) AND c.relnamespace = 'public'::regnamespace)
        AND contype IN ('p', 'u') AND conrelid::regclass::text <> ALL('{agents,api_keys}')`,
    [Object.keys(TABLES)],
  );
  for (const i of indexes) await client.query(`DROP INDEX ${i.indexname}`);
  for (const c of constraints) await client.query(`ALTER TABLE ${c.tbl} DROP CONSTRAINT ${c.conname}`);
  let inFlight = Promise.resolve();
  const out = await generate(shape, viewer, heavy, Date.now(), async (table, rows) => {
    const types = Object.values(TABLES[table]);
    const cols = types.map((_, c) => rows.map((row) => row[c]));
    const text = `INSERT INTO ${table} (${Object.keys(TABLES[table])}) SELECT * FROM unnest(${types.map((t, c) => `$${c + 1}::${t}[]`)})`;
    await inFlight;
    inFlight = client.query(text, cols);
  });
  await inFlight;
  await client.query("SET maintenance_work_mem = '256MB'");
  for (const c of constraints) await client.query(`ALTER TABLE ${c.tbl} ADD CONSTRAINT ${c.conname} ${c.def}`);
  for (const i of indexes) await client.query(i.indexdef);
  await client.query(numbered(VIEWER_UPDATE), [...out.viewerRow, viewer.id]);
  await client.query(numbered(VIEWER_UPDATE), [...out.heavyRow, heavy.id]);
  await client.query(`SELECT setval(pg_get_serial_sequence('events', 'seq'), $1), setval(pg_get_serial_sequence('messages', 'seq'), $2)`, [
    out.maxSeq.events,
    out.maxSeq.messages,
  ]);
  await client.query('COMMIT');
  // What autovacuum does within a minute of such a load: statistics for the planner, the
  // visibility map for index-only scans.
  await client.query('VACUUM ANALYZE');
  const check = checked((await client.query({ text: numbered(CHECK), values: [viewer.id], rowMode: 'array' })).rows[0]);
  await client.end();
  return { viewer, heavy, check };
}

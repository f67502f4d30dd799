/**
 * The search index's write side (schema: schema-search.ts). Changes add outbox rows in their own
 * transactions (`enqueueDoc`, and the commit program's `enqueueSearch` step for files); the
 * indexer drains the outbox a bounded batch per transaction, reading each thing's current state
 * (so several changes to one file cost one indexing, and a deleted thing leaves the index). One
 * indexer runs at a time per database (PostgreSQL: a transaction-level advisory lock; SQLite:
 * one writer anyway), so a slow batch can never overwrite a newer one's document.
 */
import { decodeText } from '../core/text.js';
import { ftsText, tokenize, tsvectorLiteral } from '../core/search-text.js';
import { SEED_OUTBOX_STATEMENTS } from './schema-search.js';
import { all, dialect, get, run, sql, type Db, type Program, type Row } from './sql.js';

export type DocType = 'file' | 'post' | 'comment' | 'agent' | 'community' | 'published';

/** One thing changed: (type, owner, ref) — a file is (agent, path), the others (author, id). */
const ENQUEUE = sql`INSERT INTO search_outbox (type, owner_id, ref) VALUES (?, ?, ?)`;
/** The commit's files, one statement (PostgreSQL) or one per path (SQLite). */
export const ENQUEUE_FILES = sql`
  INSERT INTO search_outbox (type, owner_id, ref) ${dialect({ sqlite: "VALUES ('file', ?, ?)", postgres: "SELECT 'file', ?, unnest(CAST(? AS text[]))" })}`;

export function* enqueueDoc(type: DocType, ownerId: string, ref: string): Program<void> {
  yield* run(ENQUEUE, [type, ownerId, ref]);
}

/** Any number: PostgreSQL's key for "the indexer runs" (one at a time per database). */
const INDEXER_LOCK = 7_310_411;
const TRY_LOCK = sql`SELECT pg_try_advisory_xact_lock(${INDEXER_LOCK})`;
const PENDING = sql`SELECT id, type, owner_id, ref FROM search_outbox ORDER BY id LIMIT ?`;
const DONE = sql`DELETE FROM search_outbox WHERE id ${dialect({ sqlite: '= ?', postgres: '= ANY(CAST(? AS bigint[]))' })}`;
const COUNT_PENDING = sql`SELECT COUNT(*) FROM search_outbox`;
const PENDING_RANGE = sql`SELECT MIN(id), MAX(id) FROM search_outbox`;

const FILE_SOURCE = sql`
  SELECT n.version, n.updated_at_ms, CASE WHEN n.size <= ? THEN b.content END
    FROM nodes n LEFT JOIN blobs b ON b.agent_id = n.agent_id AND b.hash = n.blob_hash
   WHERE n.agent_id = ? AND n.path = ? AND n.kind = 'file' AND n.deleted = FALSE`;
const POST_SOURCE = sql`
  SELECT community_id, title, body, tags, url, COALESCE(edited_at_ms, created_at_ms) FROM posts WHERE id = ? AND deleted_at_ms IS NULL`;
const COMMENT_SOURCE = sql`
  SELECT p.community_id, k.post_id, k.body, COALESCE(k.edited_at_ms, k.created_at_ms)
    FROM comments k JOIN posts p ON p.id = k.post_id WHERE k.id = ? AND k.deleted_at_ms IS NULL`;
const AGENT_SOURCE = sql`SELECT slug, name, display_name, description, tags, created_at_ms FROM agents WHERE id = ?`;
const COMMUNITY_SOURCE = sql`SELECT name, display_name, description, created_at_ms FROM communities WHERE id = ?`;
const PUBLISHED_SOURCE = sql`
  SELECT path, title, description, tags, created_at_ms FROM published WHERE id = ? AND removed_at_ms IS NULL AND NOT internal`;

const DOC_ID = sql`SELECT id FROM search_docs WHERE type = ? AND owner_id = ? AND ref = ?`;
const FTS_DELETE = sql`DELETE FROM search_fts WHERE rowid = ?`;
const FTS_INSERT = sql`INSERT INTO search_fts (rowid, tokens) VALUES (?, ?)`;
const DOC_DELETE = sql`DELETE FROM search_docs WHERE id = ?`;
const DOC_INSERT_SQLITE = sql`
  INSERT INTO search_docs (type, owner_id, ref, community_id, post_id, version, updated_at_ms, title, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`;
const DOC_UPDATE_SQLITE = sql`
  UPDATE search_docs SET community_id = ?, post_id = ?, version = ?, updated_at_ms = ?, title = ?, body = ? WHERE id = ?`;
const DOC_UPSERT_PG = sql`
  INSERT INTO search_docs (type, owner_id, ref, community_id, post_id, version, updated_at_ms, title, body, tsv)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS tsvector))
  ON CONFLICT (type, owner_id, ref) DO UPDATE SET community_id = EXCLUDED.community_id, post_id = EXCLUDED.post_id,
    version = EXCLUDED.version, updated_at_ms = EXCLUDED.updated_at_ms, title = EXCLUDED.title, body = EXCLUDED.body, tsv = EXCLUDED.tsv`;
const DOC_DELETE_REF = sql`DELETE FROM search_docs WHERE type = ? AND owner_id = ? AND ref = ?`;

/** What a document holds: the text its tokens come from, and what a result shows. */
interface Doc {
  communityId: string | null;
  postId: string | null;
  version: number;
  updatedAtMs: number;
  title: string | null;
  /** Shown in snippets (null for files: their content is read from the blob). */
  body: string | null;
  /** What is tokenized. */
  text: string;
}

const tagsText = (json: unknown) => (JSON.parse(String(json)) as string[]).join(' ');

/** The thing's current state as a document; null when it is gone, not text, or too big. */
function* loadDoc(type: DocType, ownerId: string, ref: string, maxFileBytes: number): Program<Doc | null> {
  switch (type) {
    case 'file': {
      const r = yield* get(FILE_SOURCE, [maxFileBytes, ownerId, ref]);
      if (!r || r[2] == null) return null;
      const text = decodeText(r[2] as Uint8Array);
      if (text === null) return null;
      return { communityId: null, postId: null, version: Number(r[0]), updatedAtMs: Number(r[1]), title: null, body: null, text: `${ref}\n${text}` };
    }
    case 'post': {
      const r = yield* get(POST_SOURCE, [ref]);
      if (!r) return null;
      const body = String(r[2]);
      const text = `${r[1]}\n${body}\n${tagsText(r[3])}\n${r[4] ?? ''}`;
      return { communityId: String(r[0]), postId: ref, version: 0, updatedAtMs: Number(r[5]), title: String(r[1]), body, text };
    }
    case 'comment': {
      const r = yield* get(COMMENT_SOURCE, [ref]);
      if (!r) return null;
      return {
        communityId: String(r[0]),
        postId: String(r[1]),
        version: 0,
        updatedAtMs: Number(r[3]),
        title: null,
        body: String(r[2]),
        text: String(r[2]),
      };
    }
    case 'agent': {
      const r = yield* get(AGENT_SOURCE, [ref]);
      if (!r) return null;
      const title = String(r[2] ?? r[1]);
      const body = `${r[3]}`;
      return {
        communityId: null,
        postId: null,
        version: 0,
        updatedAtMs: Number(r[5]),
        title,
        body,
        text: `${r[0]} ${r[1]} ${r[2] ?? ''}\n${body}\n${tagsText(r[4])}`,
      };
    }
    case 'community': {
      const r = yield* get(COMMUNITY_SOURCE, [ref]);
      if (!r) return null;
      return {
        communityId: ref,
        postId: null,
        version: 0,
        updatedAtMs: Number(r[3]),
        title: String(r[1]),
        body: String(r[2]),
        text: `${r[0]} ${r[1]}\n${r[2]}`,
      };
    }
    case 'published': {
      const r = yield* get(PUBLISHED_SOURCE, [ref]);
      if (!r) return null;
      const body = String(r[2]);
      return {
        communityId: null,
        postId: null,
        version: 0,
        updatedAtMs: Number(r[4]),
        title: String(r[1]),
        body,
        text: `${r[1]}\n${body}\n${tagsText(r[3])}\n${r[0]}`,
      };
    }
  }
}

function* saveDoc(db: Db, type: DocType, ownerId: string, ref: string, doc: Doc | null): Program<void> {
  const tokens = doc ? tokenize(doc.text) : [];
  if (db.dialect === 'postgres') {
    if (!doc || !tokens.length) yield* run(DOC_DELETE_REF, [type, ownerId, ref]);
    else {
      yield* run(DOC_UPSERT_PG, [
        type,
        ownerId,
        ref,
        doc.communityId,
        doc.postId,
        doc.version,
        doc.updatedAtMs,
        doc.title,
        doc.body,
        tsvectorLiteral(tokens),
      ]);
    }
    return;
  }
  const existing = yield* get(DOC_ID, [type, ownerId, ref]);
  const id = existing ? Number(existing[0]) : null;
  if (id !== null) yield* run(FTS_DELETE, [id]);
  if (!doc || !tokens.length) {
    if (id !== null) yield* run(DOC_DELETE, [id]);
    return;
  }
  let rowid = id;
  if (rowid === null) {
    const r = yield* get(DOC_INSERT_SQLITE, [type, ownerId, ref, doc.communityId, doc.postId, doc.version, doc.updatedAtMs, doc.title, doc.body]);
    rowid = Number(r![0]);
  } else {
    yield* run(DOC_UPDATE_SQLITE, [doc.communityId, doc.postId, doc.version, doc.updatedAtMs, doc.title, doc.body, rowid]);
  }
  yield* run(FTS_INSERT, [rowid, ftsText(tokens)]);
}

export interface IndexBatch {
  /** Outbox rows drained. */
  done: number;
  /** Another process holds the indexer (PostgreSQL): nothing was done here. */
  busy: boolean;
}

/**
 * One batch: at most `maxItems` outbox rows, stopping early past `maxBytes` of text read, so a
 * batch of big files holds SQLite's writer (and the event loop) for a few milliseconds only.
 */
function* indexBatch(db: Db, maxItems: number, maxBytes: number, maxFileBytes: number): Program<IndexBatch> {
  if (db.dialect === 'postgres') {
    const locked = yield* get(TRY_LOCK, []);
    if (!locked?.[0]) return { done: 0, busy: true };
  }
  const rows = yield* all(PENDING, [maxItems]);
  const ids: string[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  for (const r of rows) {
    ids.push(String(r[0]));
    const [type, ownerId, ref] = [String(r[1]) as DocType, String(r[2]), String(r[3])];
    const key = `${type}\u0000${ownerId}\u0000${ref}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const doc = yield* loadDoc(type, ownerId, ref, maxFileBytes);
    yield* saveDoc(db, type, ownerId, ref, doc);
    bytes += doc?.text.length ?? 0;
    if (bytes >= maxBytes) break;
  }
  if (!ids.length) return { done: 0, busy: false };
  if (db.dialect === 'postgres') yield* run(DONE, [ids]);
  else for (const id of ids) yield* run(DONE, [id]);
  return { done: ids.length, busy: false };
}

export interface SearchIndexStore {
  /** Drains one batch of the outbox into the index. */
  indexPending(opts: { maxItems: number; maxBytes: number; maxFileBytes: number }): Promise<IndexBatch>;
  /** Outbox rows not indexed yet. */
  pendingSearchCount(): Promise<number>;
  /** The lowest and highest outbox ids (null when it is empty): one index read, no transaction. */
  pendingSearchRange(): Promise<{ min: number; max: number } | null>;
  /** Empties the index and queues everything searchable again (npm run reindex). */
  resetSearchIndex(): Promise<number>;
}

const CLEAR = [
  sql`DELETE FROM search_outbox`,
  sql`DELETE FROM search_docs`,
  sql`${dialect({ sqlite: "INSERT INTO search_fts (search_fts) VALUES ('delete-all')", postgres: 'SELECT 1' })}`,
];
const RESEED = SEED_OUTBOX_STATEMENTS.map((q) => sql(Object.assign([q], { raw: [q] })));

export function searchIndexStore(db: Db): SearchIndexStore {
  return {
    indexPending({ maxItems, maxBytes, maxFileBytes }) {
      return db.write(() => indexBatch(db, maxItems, maxBytes, maxFileBytes), { atomic: true });
    },
    async pendingSearchCount() {
      const r = (await db.get(COUNT_PENDING, [])) as Row;
      return Number(r[0]);
    },
    async pendingSearchRange() {
      const r = (await db.get(PENDING_RANGE, [])) as Row;
      return r[0] == null ? null : { min: Number(r[0]), max: Number(r[1]) };
    },
    resetSearchIndex() {
      return db.write(
        function* () {
          for (const q of CLEAR) yield* run(q, []);
          let queued = 0;
          for (const q of RESEED) queued += yield* run(q, []);
          return queued;
        },
        { atomic: true },
      );
    },
  };
}

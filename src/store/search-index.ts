/**
 * The search index's write side (schema: schema-search.ts). Changes add outbox rows in their own
 * transactions (`enqueueDoc`, and the commit program's `enqueueSearch` step for files); the
 * indexer drains the outbox a bounded batch per transaction, reading each thing's current state
 * (so several changes to one file cost one indexing, and a deleted thing leaves the index). One
 * indexer runs at a time per database (PostgreSQL: a transaction-level advisory lock; SQLite:
 * one writer anyway), so a slow batch can never overwrite a newer one's document.
 */
import { decodeText } from '../core/text.js';
import { ftsDocText, tokenize, tsvectorLiteral } from '../core/search-text.js';
import { SEED_OUTBOX_STATEMENTS } from './schema-search.js';
import { decodedInProgram, isRaw } from './blob-read.js';
import { all, dialect, get, run, sql, type Db, type Program, type Row } from './sql.js';

export type DocType = 'file' | 'post' | 'comment' | 'agent' | 'community' | 'published';

/** One thing changed: (type, owner, ref) — a file is (agent, path), the others (author, id). */
const ENQUEUE = sql`INSERT INTO search_outbox (type, owner_id, ref) VALUES (?, ?, ?)`;
/** A commit's file on SQLite (PostgreSQL queues them in the changeset's statement: postgres-steps.ts). */
export const ENQUEUE_FILE = sql`INSERT INTO search_outbox (type, owner_id, ref) VALUES ('file', ?, ?)`;

export function* enqueueDoc(type: DocType, ownerId: string, ref: string): Program<void> {
  yield* run(ENQUEUE, [type, ownerId, ref]);
}

/** Any number: PostgreSQL's key for "the indexer runs" (one at a time per database). */
const INDEXER_LOCK = 7_310_411;
const TRY_LOCK = sql`SELECT pg_try_advisory_xact_lock(${INDEXER_LOCK})`;
const PENDING = sql`SELECT id, type, owner_id, ref FROM search_outbox ORDER BY id LIMIT ?`;
/** PostgreSQL: the ids taken (ids commit out of order there: a smaller one may still be in flight). */
const DONE = sql`DELETE FROM search_outbox WHERE id = ANY(CAST(? AS bigint[]))`;
const DONE_BELOW = sql`DELETE FROM search_outbox WHERE id < ?`;
const COUNT_PENDING = sql`SELECT COUNT(*) FROM search_outbox`;
const PENDING_RANGE = sql`SELECT MIN(id), MAX(id) FROM search_outbox`;

// Heads are raw but for a moment after a restore (store/blob-pack.ts): an encoded head comes
// without its stored bytes (column 3 its hash, 4 its size) and is decoded in the program.
// The content by a scalar subquery, not a LEFT JOIN (a join is re-planned per call on a SQLite
// file that has sqlite_stat4: tree.ts READ_NODE).
const FILE_SOURCE = sql`
  SELECT n.version, n.updated_at_ms,
         (SELECT CASE WHEN n.size <= ? AND ${isRaw('b.')} THEN b.content END FROM blobs b WHERE b.agent_id = n.agent_id AND b.hash = n.blob_hash),
         n.blob_hash, n.size
    FROM nodes n
   WHERE n.agent_id = ? AND n.path = ? AND n.kind = 'file' AND n.deleted = FALSE`;
/** PostgreSQL: a batch's files, in the batch's order, until the text read passes the budget. */
const FILE_SOURCES = sql`
  SELECT ord, version, updated_at_ms, content, blob_hash, size FROM (
    SELECT k.ord, n.version, n.updated_at_ms, CASE WHEN n.size <= ? AND ${isRaw('b.')} THEN b.content END AS content,
           n.blob_hash, n.size,
           SUM(CASE WHEN n.size <= ? THEN n.size ELSE 0 END) OVER (ORDER BY k.ord) - CASE WHEN n.size <= ? THEN n.size ELSE 0 END AS before
      FROM unnest(CAST(? AS text[]), CAST(? AS text[])) WITH ORDINALITY AS k(agent_id, path, ord)
      LEFT JOIN nodes n ON n.agent_id = k.agent_id AND n.path = k.path AND n.kind = 'file' AND n.deleted = FALSE
      LEFT JOIN blobs b ON b.agent_id = n.agent_id AND b.hash = n.blob_hash
  ) x WHERE before < ? ORDER BY ord`;
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
// Not RETURNING: on SQLite it cost 38 µs a document beside the FTS inserts, this pair 5 µs (an
// indexed 1 KB file cost ~95 µs of CPU in all).
const DOC_INSERT_SQLITE = sql`
  INSERT INTO search_docs (type, owner_id, ref, community_id, post_id, version, updated_at_ms, title, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const LAST_ROWID_SQLITE = sql`SELECT last_insert_rowid()`;
// A changed document gets a new id (the newest): a search ranks the newest ids first (store/search.ts).
const UPSERT_DOC = `ON CONFLICT (type, owner_id, ref) DO UPDATE SET id = nextval('search_docs_id_seq'), community_id = EXCLUDED.community_id,
    post_id = EXCLUDED.post_id, version = EXCLUDED.version, updated_at_ms = EXCLUDED.updated_at_ms, title = EXCLUDED.title,
    body = EXCLUDED.body, tsv = EXCLUDED.tsv`;
const DOC_UPSERT_PG = sql`
  INSERT INTO search_docs (type, owner_id, ref, community_id, post_id, version, updated_at_ms, title, body, tsv)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS tsvector))
  ${UPSERT_DOC}`;
const DOCS_UPSERT_PG = sql`
  INSERT INTO search_docs (type, owner_id, ref, community_id, post_id, version, updated_at_ms, title, body, tsv)
  SELECT * FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]),
                       CAST(? AS integer[]), CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS tsvector[]))
  ${UPSERT_DOC}`;
const DOCS_DELETE_PG = sql`
  DELETE FROM search_docs WHERE (type, owner_id, ref) IN (SELECT * FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[])))`;
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

/** A file's document: its path and its text (null when the bytes are not text). */
function fileDoc(path: string, version: number, updatedAtMs: number, bytes: Uint8Array): Doc | null {
  const text = decodeText(bytes);
  if (text === null) return null;
  return { communityId: null, postId: null, version, updatedAtMs, title: null, body: null, text: `${path}\n${text}` };
}

/**
 * A head's bytes from [content, hash, size]: a raw row's content, an encoded one decoded
 * here (files up to SEARCH_MAX_FILE_BYTES, 1 MiB at most: a few ms), null past the size limit.
 */
function* headBytes(ownerId: string, cols: Row, maxFileBytes: number): Program<Uint8Array | null> {
  const [content, hash, size] = cols;
  if (content != null) return content as Uint8Array;
  if (hash == null || Number(size) > maxFileBytes) return null;
  return yield* decodedInProgram(ownerId, String(hash));
}

const tagsText = (json: unknown) => (JSON.parse(String(json)) as string[]).join(' ');

/** The thing's current state as a document; null when it is gone, not text, or too big. */
function* loadDoc(type: DocType, ownerId: string, ref: string, maxFileBytes: number): Program<Doc | null> {
  switch (type) {
    case 'file': {
      const r = yield* get(FILE_SOURCE, [maxFileBytes, ownerId, ref]);
      const bytes = r ? yield* headBytes(ownerId, r.slice(2), maxFileBytes) : null;
      return r && bytes ? fileDoc(ref, Number(r[0]), Number(r[1]), bytes) : null;
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

function* saveDocPg(type: DocType, ownerId: string, ref: string, doc: Doc | null): Program<void> {
  const tokens = doc ? tokenize(doc.text) : [];
  if (!doc || !tokens.length) yield* run(DOC_DELETE_REF, [type, ownerId, ref]);
  else {
    const d = doc;
    yield* run(DOC_UPSERT_PG, [type, ownerId, ref, d.communityId, d.postId, d.version, d.updatedAtMs, d.title, d.body, tsvectorLiteral(tokens)]);
  }
}

function* saveDoc(db: Db, type: DocType, ownerId: string, ref: string, doc: Doc | null): Program<void> {
  if (db.dialect === 'postgres') return yield* saveDocPg(type, ownerId, ref, doc);
  const text = doc ? ftsDocText(doc.text) : null;
  const existing = yield* get(DOC_ID, [type, ownerId, ref]);
  if (existing) {
    yield* run(FTS_DELETE, [existing[0]]);
    yield* run(DOC_DELETE, [existing[0]]);
  }
  if (!doc || text === null) return;
  // A new id each time (the largest): a search ranks the newest ids first (store/search.ts).
  yield* run(DOC_INSERT_SQLITE, [type, ownerId, ref, doc.communityId, doc.postId, doc.version, doc.updatedAtMs, doc.title, doc.body]);
  const rowid = Number((yield* get(LAST_ROWID_SQLITE, []))![0]);
  yield* run(FTS_INSERT, [rowid, text]);
}

export interface IndexBatch {
  /** Outbox rows drained. */
  done: number;
  /** Another process holds the indexer (PostgreSQL): nothing was done here. */
  busy: boolean;
  /** Rows were left: the batch was full, or cut at its byte budget. */
  more: boolean;
}

interface Pending {
  ids: string[];
  type: DocType;
  ownerId: string;
  ref: string;
}

/** The outbox rows, one entry per thing however often it changed (their ids all done with it). */
function distinct(rows: Row[]): Pending[] {
  const byKey = new Map<string, Pending>();
  for (const r of rows) {
    const [type, ownerId, ref] = [String(r[1]) as DocType, String(r[2]), String(r[3])];
    const key = `${type}\u0000${ownerId}\u0000${ref}`;
    const seen = byKey.get(key);
    if (seen) seen.ids.push(String(r[0]));
    else byKey.set(key, { ids: [String(r[0])], type, ownerId, ref });
  }
  return [...byKey.values()];
}

/**
 * One batch: at most `maxItems` outbox rows, stopping early past `maxBytes` of text read, so a
 * batch of big files holds SQLite's writer (and the event loop) for a few milliseconds only.
 */
export function* indexBatch(db: Db, maxItems: number, maxBytes: number, maxFileBytes: number): Program<IndexBatch> {
  if (db.dialect === 'postgres') {
    const locked = yield* get(TRY_LOCK, []);
    if (!locked?.[0]) return { done: 0, busy: true, more: true };
  }
  const rows = yield* all(PENDING, [maxItems]);
  if (!rows.length) return { done: 0, busy: false, more: false };
  const items = distinct(rows);
  const done = db.dialect === 'postgres' ? yield* indexMany(items, maxBytes, maxFileBytes) : yield* indexEach(db, items, maxBytes, maxFileBytes);
  const ids = done.flatMap((item) => item.ids);
  if (db.dialect === 'postgres') yield* run(DONE, [ids]);
  else {
    // One writer, so ids are in commit order: every row below the first one left belongs to a
    // thing indexed now (a later row of such a thing stays, and indexes it once more).
    const left = items.slice(done.length).flatMap((item) => item.ids.map(Number));
    yield* run(DONE_BELOW, [left.length ? Math.min(...left) : Number(rows[rows.length - 1]![0]) + 1]);
  }
  return { done: ids.length, busy: false, more: rows.length === maxItems || done.length < items.length };
}

/** SQLite: each thing read and saved in turn (no round trips); returns the items done. */
function* indexEach(db: Db, items: Pending[], maxBytes: number, maxFileBytes: number): Program<Pending[]> {
  let bytes = 0;
  let n = 0;
  while (n < items.length && bytes < maxBytes) {
    const { type, ownerId, ref } = items[n++]!;
    const doc = yield* loadDoc(type, ownerId, ref, maxFileBytes);
    yield* saveDoc(db, type, ownerId, ref, doc);
    bytes += doc?.text.length ?? 0;
  }
  return items.slice(0, n);
}

/**
 * PostgreSQL: the batch's files in one read and one write (two round trips per file cost a
 * write +20% server CPU under a load of distinct files), the rest one by one. The files read stop
 * past `maxBytes` (a running sum in the query): those after wait for the next batch.
 */
function* indexMany(items: Pending[], maxBytes: number, maxFileBytes: number): Program<Pending[]> {
  const files = items.filter((i) => i.type === 'file');
  const others = items.filter((i) => i.type !== 'file');
  const sources = files.length
    ? yield* all(FILE_SOURCES, [maxFileBytes, maxFileBytes, maxFileBytes, files.map((f) => f.ownerId), files.map((f) => f.ref), maxBytes])
    : [];
  const upserts: Array<{ item: Pending; doc: Doc; tokens: string[] }> = [];
  const gone: Pending[] = [];
  for (const r of sources) {
    const item = files[Number(r[0]) - 1]!;
    const bytes = r[1] == null ? null : yield* headBytes(item.ownerId, r.slice(3), maxFileBytes);
    const doc = r[1] == null || bytes == null ? null : fileDoc(item.ref, Number(r[1]), Number(r[2]), bytes);
    const tokens = doc ? tokenize(doc.text) : [];
    if (doc && tokens.length) upserts.push({ item, doc, tokens });
    else gone.push(item);
  }
  if (upserts.length) {
    const col = <T>(f: (u: (typeof upserts)[number]) => T) => upserts.map(f);
    yield* run(DOCS_UPSERT_PG, [
      col((u) => u.item.type),
      col((u) => u.item.ownerId),
      col((u) => u.item.ref),
      col((u) => u.doc.communityId),
      col((u) => u.doc.postId),
      col((u) => u.doc.version),
      col((u) => u.doc.updatedAtMs),
      col((u) => u.doc.title),
      col((u) => u.doc.body),
      col((u) => tsvectorLiteral(u.tokens)),
    ]);
  }
  if (gone.length) yield* run(DOCS_DELETE_PG, [gone.map((g) => g.type), gone.map((g) => g.ownerId), gone.map((g) => g.ref)]);
  for (const { type, ownerId, ref } of others) yield* saveDocPg(type, ownerId, ref, yield* loadDoc(type, ownerId, ref, maxFileBytes));
  return [...files.slice(0, sources.length), ...others];
}

const CHANGES = sql`SELECT total_changes()`;
const FTS_MERGE = sql`INSERT INTO search_fts (search_fts, rank) VALUES ('merge', ?)`;

/**
 * SQLite: one step of FTS5's incremental merge (usermerge 2, migration 12: any two segments of
 * a level). Each indexer batch adds a segment and FTS5's automerge merges only four of a level,
 * so an index fed in small batches holds 20-30 segments, and every term is looked up and
 * iterated in each: on the bench:search corpus (110,000 documents, 26 segments) two common words
 * ANDed took 9.4 ms, 2.5 ms once merged to two segments. FTS5 reports no result: a step that
 * wrote fewer than two rows found nothing to merge (its documentation says so).
 */
export function* compactStep(pages: number): Program<boolean> {
  const before = Number((yield* get(CHANGES, []))![0]);
  yield* run(FTS_MERGE, [pages]);
  return Number((yield* get(CHANGES, []))![0]) - before >= 2;
}

/**
 * The number of segments in an FTS5 index, from its structure record (`%_data` row 10): a
 * 4-byte cookie, in version 2 the marker ff 00 00 01, then varints: levels, segments.
 */
export function ftsSegmentCount(structure: Uint8Array): number {
  let at = structure[4] === 0xff ? 8 : 4;
  const varint = () => {
    let value = 0;
    for (let i = 0; i < 9; i++) {
      const byte = structure[at++]!;
      if (i === 8) return value * 256 + byte;
      value = value * 128 + (byte & 0x7f);
      if (!(byte & 0x80)) return value;
    }
    return value;
  };
  varint(); // levels
  return varint();
}

export interface SearchIndexStore {
  /** Drains one batch of the outbox into the index. */
  indexPending(opts: { maxItems: number; maxBytes: number; maxFileBytes: number }): Promise<IndexBatch>;
  /**
   * One bounded step of merging the index's segments (SQLite: FTS5 `merge`, at most `pages`
   * pages written); false when there was nothing to merge (PostgreSQL: always).
   */
  compactSearchIndex(opts: { pages: number }): Promise<boolean>;
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
      // An index batch lost in a crash is redone: its outbox rows go with it (sql.ts WriteOptions.durable).
      return db.write(() => indexBatch(db, maxItems, maxBytes, maxFileBytes), { atomic: true, durable: false });
    },
    compactSearchIndex({ pages }) {
      if (db.dialect === 'postgres') return Promise.resolve(false);
      return db.write(() => compactStep(pages), { atomic: true, durable: false });
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

/**
 * The search index's read side: one query per backend, the same in everything but the engine
 * (SQLite: FTS5 MATCH and bm25(); PostgreSQL: tsvector @@ tsquery under GIN and ts_rank()). What
 * the caller may see is decided here, at query time, from the live tables — own files (inside a
 * folder key's folder), files under live shares to the caller, files of live published items (at
 * their pinned version), posts and comments not deleted nor removed (the author still sees a
 * removed one), agents, communities and published items — minus agents the caller blocked. So a
 * revoke, an unpublish or a block takes effect on the next query, with no index work.
 */
import { dialect, sql, type Db, type Row } from './sql.js';
import { searchIndexStore, type DocType, type SearchIndexStore } from './search-index.js';
import { fileWindows, type FileRef, type TextWindow } from './search-snippets.js';

export interface SearchQuery {
  viewerId: string;
  /** A folder key's folder ('' for a full key): own files only there, no shares nor published files. */
  folder: string;
  /** FTS5 MATCH expression (SQLite) or tsquery literal (PostgreSQL): core/search-text.ts. */
  match: string;
  types: ReadonlySet<DocType>;
  /** Files under this subtree only (then no other type): own, a share's or a published one; ownerId '' for any owner. */
  path: { area: 'own' | 'shared' | 'published'; ownerId: string; prefix: string } | null;
  authorId: string | null;
  communityId: string | null;
  sinceMs: number;
  nowMs: number;
  offset: number;
  limit: number;
  /** Matches ranked at most: the most recently indexed ones (see SEARCH). */
  window: number;
}

export interface SearchRow {
  id: number;
  type: DocType;
  ownerId: string;
  ref: string;
  communityId: string | null;
  postId: string | null;
  version: number;
  updatedAtMs: number;
  title: string | null;
  body: string | null;
  score: number;
  /** How the caller sees a file: its own, through a share, or published; 'public' for the other types. */
  via: 'own' | 'shared' | 'published' | 'public';
  author: { slug: string; name: string; displayName: string | null };
  communityName: string | null;
}

export interface SearchResult {
  rows: SearchRow[];
  /** Every match the caller may see was ranked (false: more than `window` matched). */
  exhaustive: boolean;
}

export interface SearchStore extends SearchIndexStore {
  searchDocs(q: SearchQuery): Promise<SearchResult>;
  /** Windows of files' indexed versions for snippets, by `${ownerId} ${path}` (store/search-snippets.ts). */
  fileWindows(refs: ReadonlyArray<FileRef>, word: string, sizes: { windowBytes: number; scanBytes: number }): Promise<Map<string, TextWindow>>;
}

/** `d.ref` is `p` or strictly below it (byte order: '/' + 1 is '0'). */
const under = (ref: string, p: string) => `(${p} = '/' OR ${ref} = ${p} OR (${ref} > ${p} || '/' AND ${ref} < ${p} || '0'))`;

const SHARED = `EXISTS (SELECT 1 FROM shares s WHERE s.recipient_id = ? AND s.owner_id = d.owner_id AND s.kind = 'agent'
    AND s.ended_at_ms IS NULL AND (s.expires_at_ms IS NULL OR s.expires_at_ms > ?) AND ${under('d.ref', 's.path')})`;
const PUBLISHED = `EXISTS (SELECT 1 FROM published p WHERE p.owner_id = d.owner_id AND p.removed_at_ms IS NULL AND (
    (p.kind = 'file' AND p.path = d.ref AND (p.version IS NULL OR p.version = d.version))
    OR (p.kind = 'dir' AND ${under('d.ref', 'p.path')} AND (p.internal = FALSE OR d.version = 1))))`;

/**
 * Two stages, so that what costs per match is only what must: the engine's match, the document's
 * own columns (type, owner, time, community) and which files the caller may see at all (own,
 * shared, published: index probes for other agents' files only). Of those, the `window` most
 * recently indexed (the highest ids: a document gets a new id each time it changes) are scored,
 * ranked and cut to the page and what is above it; only then the rest is checked on those rows —
 * the file still exists, a post or comment is not removed (the indexer drops deleted ones), a
 * published item is live — and the author and community joined. A dropped row is rare (a change
 * the indexer has not reached yet, a removed post), and the store then asks for a longer list.
 *
 * Why a window: ranking every match cost in proportion to the matches (bm25 or ts_rank each, and
 * every visibility check): on the bench:search corpus a word in 6,000-10,000 documents took 13-32 ms
 * a search against 3-6 ms for a rare one, and at a million matches it would take seconds. FTS5
 * hands its matches over in rowid order, newest first here, so SQLite stops reading them once the
 * window is full; PostgreSQL's GIN still finds every match (a heap visit each) but scores only the
 * window. `n` tells the caller whether the window was full (`exhaustive` in the tool's answer).
 *
 * Params, in order: viewer, folder ×4, published first, viewer, now (shared); match; since;
 * author ×2; community ×3; types; viewer (blocks); path area ×2, owner ×2, prefix ×4; window + 1;
 * window; limit; then viewer ×3 (removed posts and comments seen by their authors).
 */
const SEARCH = sql`
WITH w AS MATERIALIZED (
  SELECT x.r, x.id, x.type, x.owner_id, x.ref, x.version, x.via, ${dialect({ sqlite: 'x.score', postgres: 'x.tq' })}
    FROM (
      SELECT ${dialect({ sqlite: 'search_fts.rowid', postgres: 'd.id' })} AS r, d.id, d.type, d.owner_id, d.ref, d.version,
             ${dialect({ sqlite: '-bm25(search_fts) AS score', postgres: 'q AS tq' })}, CASE
          WHEN d.type <> 'file' THEN 'public'
          WHEN d.owner_id = ? THEN CASE WHEN ? = '' OR ${under('d.ref', '?')} THEN 'own' END
          WHEN ? <> '' THEN NULL
          WHEN ? = 1 AND ${PUBLISHED} THEN 'published'
          WHEN ${SHARED} THEN 'shared'
          WHEN ${PUBLISHED} THEN 'published'
        END AS via
        FROM ${dialect({
          // CROSS JOIN keeps the match the outer loop: without statistics SQLite probed the match
          // once per document (2.3 s a search at 110,000 documents, 0.7 ms this way; docs/benchmarks.md).
          sqlite: 'search_fts CROSS JOIN search_docs d ON d.id = search_fts.rowid WHERE search_fts MATCH ?',
          postgres: 'search_docs d CROSS JOIN CAST(? AS tsquery) AS q WHERE d.tsv @@ q',
        })}
         AND d.updated_at_ms >= ?
         AND (? = '' OR d.owner_id = ?)
         AND (? = '' OR d.community_id = ? OR (d.type = 'community' AND d.ref = ?))
         AND ${dialect({ sqlite: "instr(?, ',' || d.type || ',') > 0", postgres: 'd.type = ANY(CAST(? AS text[]))' })}
         -- Computed once (a hashed list), not probed per match.
         AND d.owner_id NOT IN (SELECT b.blocked_id FROM blocks b WHERE b.blocker_id = ?)
    ) x
   WHERE x.via IS NOT NULL
     AND (? = '' OR (x.type = 'file' AND x.via = ? AND (? = '' OR x.owner_id = ?) AND ${under('x.ref', '?')}))
   -- SQLite: FTS5 delivers rowids in this order and the LIMIT stops the scan. PostgreSQL: "+ 0"
   -- keeps its planner off a backward scan of the primary key filtered by the match, which
   -- for a word absent from the newest documents reads all of them.
   ORDER BY ${dialect({ sqlite: 'x.r', postgres: 'x.r + 0' })} DESC
   LIMIT ?
),
hits AS (
  -- The window's count, and its oldest row left out when it holds one past the window (window
  -- functions here cost ~3 µs a row on SQLite, these two one scan each of the materialized rows).
  SELECT w.id, w.type, w.owner_id, w.ref, w.version,
         -- PostgreSQL: each tsvector read here, for the window's rows only: carried through the
         -- sort by id, ~1 KB a match, it cost more than ranking every match did (felqu*: 34 → 44 ms).
         ${dialect({ sqlite: 'w.score', postgres: 'ts_rank((SELECT t.tsv FROM search_docs t WHERE t.id = w.id), w.tq, 1)' })} AS score,
         w.via, (SELECT count(*) FROM w) AS n
    FROM w
   WHERE (SELECT count(*) FROM w) <= ? OR w.r > (SELECT min(v.r) FROM w v)
   ORDER BY score DESC, w.id
   LIMIT ?
)
SELECT h.id, h.type, h.owner_id, h.ref, d.community_id, d.post_id, h.version, d.updated_at_ms, d.title, d.body, h.score, h.via,
       a.slug, a.name, a.display_name, c.name,
       CASE WHEN (h.type <> 'file' OR (n.path IS NOT NULL AND n.deleted = FALSE))
         AND (h.type <> 'post' OR EXISTS (SELECT 1 FROM posts p WHERE p.id = h.ref AND p.deleted_at_ms IS NULL
               AND (p.removed_at_ms IS NULL OR p.author_id = ?)))
         AND (h.type <> 'comment' OR EXISTS (SELECT 1 FROM comments k JOIN posts p ON p.id = k.post_id
               WHERE k.id = h.ref AND k.deleted_at_ms IS NULL AND p.deleted_at_ms IS NULL
                 AND (k.removed_at_ms IS NULL OR k.author_id = ?) AND (p.removed_at_ms IS NULL OR p.author_id = ?)))
         AND (h.type <> 'published' OR EXISTS (SELECT 1 FROM published p WHERE p.id = h.ref AND p.removed_at_ms IS NULL))
       THEN 1 ELSE 0 END, h.n
  -- SQLite: CROSS JOIN keeps the page the outer loop (planned by itself it scanned every agent).
  FROM hits h
  ${dialect({ sqlite: 'CROSS JOIN', postgres: 'JOIN' })} search_docs d ON d.id = h.id
  ${dialect({ sqlite: 'CROSS JOIN', postgres: 'JOIN' })} agents a ON a.id = h.owner_id
  LEFT JOIN communities c ON c.id = d.community_id
  -- One index probe per row of the page (a NOT EXISTS became a scan of every agent's nodes on PostgreSQL).
  LEFT JOIN nodes n ON h.type = 'file' AND n.agent_id = h.owner_id AND n.path = h.ref
 ORDER BY h.score DESC, h.id`;

function searchParams(q: SearchQuery, postgres: boolean, limit: number): unknown[] {
  const me = q.viewerId;
  const f = q.folder;
  const types = [...q.types];
  const author = q.authorId ?? '';
  const community = q.communityId ?? '';
  const path = q.path;
  const prefix = path?.prefix ?? '/';
  return [
    me,
    f,
    f,
    f,
    f,
    f, // own files (inside the folder)
    f, // a folder key sees no other files
    path?.area === 'published' ? 1 : 0, // published first when asked
    me,
    q.nowMs, // shared
    q.match,
    q.sinceMs,
    author,
    author,
    community,
    community,
    community,
    postgres ? types : `,${types.join(',')},`,
    me, // blocks
    path?.area ?? '',
    path?.area ?? '',
    path?.ownerId ?? '',
    path?.ownerId ?? '',
    prefix,
    prefix,
    prefix,
    prefix,
    q.window + 1,
    q.window,
    limit,
    me,
    me,
    me,
  ];
}

/**
 * Ranked rows the second stage keeps, up to `offset + limit`; the first stage's list grows (×4,
 * up to CANDIDATES_CAP rows) only while rows it returned are dropped.
 */
async function visibleRows(db: Db, q: SearchQuery): Promise<SearchResult> {
  const want = q.offset + q.limit;
  let asked = want;
  for (;;) {
    const rows = await db.allLong(SEARCH, searchParams(q, db.dialect === 'postgres', asked));
    const kept = rows.filter((r) => Number(r[16]) === 1);
    if (kept.length >= want || rows.length < asked || asked >= CANDIDATES_CAP) {
      // n counts the window's rows, one past it when it was full.
      return { rows: kept.slice(q.offset, want).map(rowOf), exhaustive: rows.length === 0 || Number(rows[0]![17]) <= q.window };
    }
    asked = Math.min(asked * 4, CANDIDATES_CAP);
  }
}

/** A first-stage list longer than this is not asked for: a page then ends early (drops are rare). */
const CANDIDATES_CAP = 4000;

const rowOf = (r: Row): SearchRow => ({
  id: Number(r[0]),
  type: String(r[1]) as DocType,
  ownerId: String(r[2]),
  ref: String(r[3]),
  communityId: r[4] == null ? null : String(r[4]),
  postId: r[5] == null ? null : String(r[5]),
  version: Number(r[6]),
  updatedAtMs: Number(r[7]),
  title: r[8] == null ? null : String(r[8]),
  body: r[9] == null ? null : String(r[9]),
  score: Number(r[10]),
  via: String(r[11]) as SearchRow['via'],
  author: { slug: String(r[12]), name: String(r[13]), displayName: r[14] == null ? null : String(r[14]) },
  communityName: r[15] == null ? null : String(r[15]),
});

export function searchStore(db: Db): SearchStore {
  return {
    ...searchIndexStore(db),
    async searchDocs(q) {
      return visibleRows(db, q);
    },
    fileWindows(refs, word, sizes) {
      return fileWindows(db, refs, word, sizes);
    },
  };
}

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

export interface SearchStore extends SearchIndexStore {
  searchDocs(q: SearchQuery): Promise<SearchRow[]>;
  /** The contents of files' indexed versions (snippets), by `${ownerId} ${path}`; at most `maxBytes` each. */
  fileTexts(refs: ReadonlyArray<{ ownerId: string; path: string; version: number }>, maxBytes: number): Promise<Map<string, Buffer>>;
}

/** `d.ref` is `p` or strictly below it (byte order: '/' + 1 is '0'). */
const under = (ref: string, p: string) => `(${p} = '/' OR ${ref} = ${p} OR (${ref} > ${p} || '/' AND ${ref} < ${p} || '0'))`;

const SHARED = `EXISTS (SELECT 1 FROM shares s WHERE s.recipient_id = ? AND s.owner_id = x.owner_id AND s.kind = 'agent'
    AND s.ended_at_ms IS NULL AND (s.expires_at_ms IS NULL OR s.expires_at_ms > ?) AND ${under('x.ref', 's.path')})`;
const PUBLISHED = `EXISTS (SELECT 1 FROM published p WHERE p.owner_id = x.owner_id AND p.removed_at_ms IS NULL AND (
    (p.kind = 'file' AND p.path = x.ref AND (p.version IS NULL OR p.version = x.version))
    OR (p.kind = 'dir' AND ${under('x.ref', 'p.path')} AND (p.internal = FALSE OR x.version = 1))))`;

/**
 * Params, in order: match; since; author ×2; community ×3; viewer (own) ; folder ×4; pubFirst,
 * viewer, now (published first); viewer, now (shared); viewer (blocks); types ×6; viewer ×3
 * (removed posts and comments seen by their authors); path area ×2, owner, prefix ×4; limit, offset.
 */
const SEARCH = sql`
SELECT y.id, y.type, y.owner_id, y.ref, y.community_id, y.post_id, y.version, y.updated_at_ms, y.title, y.body, y.score, y.via,
       a.slug, a.name, a.display_name, c.name
  FROM (
    SELECT x.id, x.type, x.owner_id, x.ref, x.community_id, x.post_id, x.version, x.updated_at_ms, x.title, x.body, x.score, CASE
        WHEN x.type <> 'file' THEN 'public'
        WHEN n.path IS NULL OR n.deleted = TRUE THEN NULL
        WHEN x.owner_id = ? THEN CASE WHEN ? = '' OR ${under('x.ref', '?')} THEN 'own' END
        WHEN ? <> '' THEN NULL
        WHEN ? = 1 AND ${PUBLISHED} THEN 'published'
        WHEN ${SHARED} THEN 'shared'
        WHEN ${PUBLISHED} THEN 'published'
      END AS via
      FROM (
        SELECT d.id, d.type, d.owner_id, d.ref, d.community_id, d.post_id, d.version, d.updated_at_ms, d.title, d.body,
               ${dialect({ sqlite: '-bm25(search_fts)', postgres: 'ts_rank(d.tsv, q, 1)' })} AS score
          FROM ${dialect({
            // CROSS JOIN keeps the match the outer loop: without statistics SQLite probed the match
            // once per document (2.3 s a search at 110,000 documents, 0.7 ms this way; docs/benchmarks.md).
            sqlite: 'search_fts CROSS JOIN search_docs d ON d.id = search_fts.rowid WHERE search_fts MATCH ?',
            postgres: 'search_docs d CROSS JOIN CAST(? AS tsquery) AS q WHERE d.tsv @@ q',
          })}
           AND d.updated_at_ms >= ?
           AND (? = '' OR d.owner_id = ?)
           AND (? = '' OR d.community_id = ? OR (d.type = 'community' AND d.ref = ?))
      ) x
      -- One index probe per file result (a NOT EXISTS here became a scan of every agent's nodes on PostgreSQL).
      LEFT JOIN nodes n ON x.type = 'file' AND n.agent_id = x.owner_id AND n.path = x.ref
  ) y
  JOIN agents a ON a.id = y.owner_id
  LEFT JOIN communities c ON c.id = y.community_id
 WHERE y.via IS NOT NULL
   AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = ? AND b.blocked_id = y.owner_id)
   AND ((y.type = 'file' AND ? = 1) OR (y.type = 'post' AND ? = 1) OR (y.type = 'comment' AND ? = 1)
        OR (y.type = 'agent' AND ? = 1) OR (y.type = 'community' AND ? = 1) OR (y.type = 'published' AND ? = 1))
   AND (y.type <> 'post' OR EXISTS (SELECT 1 FROM posts p WHERE p.id = y.ref AND p.deleted_at_ms IS NULL AND (p.removed_at_ms IS NULL OR p.author_id = ?)))
   AND (y.type <> 'comment' OR EXISTS (SELECT 1 FROM comments k JOIN posts p ON p.id = k.post_id
         WHERE k.id = y.ref AND k.deleted_at_ms IS NULL AND p.deleted_at_ms IS NULL
           AND (k.removed_at_ms IS NULL OR k.author_id = ?) AND (p.removed_at_ms IS NULL OR p.author_id = ?)))
   AND (y.type <> 'published' OR EXISTS (SELECT 1 FROM published p WHERE p.id = y.ref AND p.removed_at_ms IS NULL))
   AND (? = '' OR (y.type = 'file' AND y.via = ? AND (? = '' OR y.owner_id = ?) AND ${under('y.ref', '?')}))
 ORDER BY y.score DESC, y.id
 LIMIT ? OFFSET ?`;

function searchParams(q: SearchQuery): unknown[] {
  const me = q.viewerId;
  const f = q.folder;
  const t = (type: DocType) => (q.types.has(type) ? 1 : 0);
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
    f,
    path?.area === 'published' ? 1 : 0, // a folder key sees no other files; published first when asked
    me,
    q.nowMs, // shared
    q.match,
    q.sinceMs,
    author,
    author,
    community,
    community,
    community,
    me,
    t('file'),
    t('post'),
    t('comment'),
    t('agent'),
    t('community'),
    t('published'),
    me,
    me,
    me,
    path?.area ?? '',
    path?.area ?? '',
    path?.ownerId ?? '',
    path?.ownerId ?? '',
    prefix,
    prefix,
    prefix,
    prefix,
    q.limit,
    q.offset,
  ];
}

const FILE_TEXT = sql`
  SELECT ${dialect({ sqlite: 'substr(b.content, 1, ?)', postgres: 'substring(b.content from 1 for ?)' })}
    FROM versions v JOIN blobs b ON b.agent_id = v.agent_id AND b.hash = v.blob_hash
   WHERE v.agent_id = ? AND v.path = ? AND v.version = ?`;

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
      return (await db.all(SEARCH, searchParams(q))).map(rowOf);
    },
    async fileTexts(refs, maxBytes) {
      const out = new Map<string, Buffer>();
      const rows = await Promise.all(refs.map((f) => db.get(FILE_TEXT, [maxBytes, f.ownerId, f.path, f.version])));
      refs.forEach((f, i) => {
        const r = rows[i];
        if (r?.[0] != null) out.set(`${f.ownerId} ${f.path}`, Buffer.from(r[0] as Uint8Array));
      });
      return out;
    },
  };
}

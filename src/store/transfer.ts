/**
 * Moving one agent between deployments (export_my_data, npm run import-agent): reading an agent's
 * whole history in pages, and writing recorded history back verbatim.
 *
 * Why import does not go through commit(): a commit takes the time and the next seq now, and
 * decides versions by compare-and-swap; an import restores what was already decided — each
 * version's number and time, each changeset's seq, id and time — so it inserts those rows as
 * recorded, then derives what commits maintain incrementally (heads, the agent's counters) from
 * them. Every row is keyed by a new agent id, and the agent row (which makes all of it visible:
 * no key, slug or listing reaches rows without it) is inserted last, in one transaction with the
 * new key: an import that fails half-way leaves nothing reachable, and discardAgentRows cleans up.
 */
import {
  KEY_INSERT_COLUMNS,
  VERSION_COLUMNS,
  VERSION_COLUMN_COUNT,
  keyParams,
  num,
  numOrNull,
  qualified,
  splitPath,
  strOrNull,
  versionFromRow,
} from './rows.js';
import { isUniqueViolation, run, sql, type Db, type Dialect, type Program } from './sql.js';
import {
  BLOBS,
  BLOB_ROWS,
  CHANGESETS,
  CHANGESET_ROWS,
  CHUNK_ROWS,
  ENTRY_CHUNKS,
  NODES,
  NODE_ROWS,
  PROVENANCE,
  PROVENANCE_ROWS,
  VERSIONS,
  VERSION_ROWS,
  insertAll,
  insertEach,
} from './tables.js';
import { StoreSlugTaken, type ChangesetEntry, type ChangesetRecord, type KeyRecord, type NodeRecord, type VersionRecord } from './types.js';

export interface CopiedFrom {
  slug: string;
  path: string;
  version: number;
}

export interface ExportVersion extends VersionRecord {
  copiedFrom: CopiedFrom | null;
}

export interface ExportRecord {
  id: string;
  agent: { id: string; name: string; slug: string; createdAtMs: number };
  keyId: string;
  asOfSeq: number;
  createdAtMs: number;
  expiresAtMs: number;
  /** When the key that made the export was (or, rotated out, will be) revoked. */
  keyRevokedAtMs: number | null;
}

export interface ExportPost {
  postId: string;
  community: string;
  title: string;
  body: string;
  url: string | null;
  tags: string[];
  attachments: unknown[];
  score: number;
  commentCount: number;
  revision: number;
  createdAtMs: number;
  editedAtMs: number | null;
  removedAtMs: number | null;
  deletedAtMs: number | null;
}

export interface ExportComment {
  commentId: string;
  postId: string;
  parentId: string | null;
  depth: number;
  body: string;
  score: number;
  createdAtMs: number;
  editedAtMs: number | null;
  removedAtMs: number | null;
  deletedAtMs: number | null;
}

/** A node row as import writes it (the head of a path, derived from its versions), with when it was purged. */
export type ImportNode = Omit<NodeRecord, 'purged'> & { purgedAtMs: number | null };

export interface ImportChangeset {
  record: Omit<ChangesetRecord, 'entries'>;
  /** What the row keeps inline (the first ENTRY_INLINE in path order for a big one). */
  inline: ChangesetEntry[];
  /** A big changeset's entries in chunks keyed by their first path (empty for a small one). */
  chunks: Array<{ firstPath: string; entries: string }>;
}

export interface TransferStore {
  createExport(e: {
    id: string;
    agentId: string;
    keyId: string;
    tokenHash: string;
    asOfSeq: number;
    createdAtMs: number;
    expiresAtMs: number;
  }): Promise<void>;
  getExportByTokenHash(tokenHash: string): Promise<ExportRecord | null>;
  /** Forgets export links expired for over EXPORT_ROW_TTL_MS (until then their link answers 410 expired, not 404). */
  pruneExports(nowMs: number): Promise<number>;
  /** The agent's last changeset seq (0 before its first), its distinct content's bytes and its versions. */
  exportCounts(agentId: string): Promise<{ lastSeq: number; storageBytes: number; versions: number }>;
  /** Versions in (path, version) order after the cursor, each with where it was copied from. */
  exportVersions(agentId: string, after: { path: string; version: number } | null, limit: number): Promise<ExportVersion[]>;
  /** Paths whose every version was purged (their version numbers must not be reused), in path order. */
  exportPurged(agentId: string, afterPath: string, limit: number): Promise<Array<{ path: string; version: number; purgedAtMs: number }>>;
  exportPosts(authorId: string, after: { createdAtMs: number; id: string } | null, limit: number): Promise<ExportPost[]>;
  exportComments(authorId: string, afterSeq: number, limit: number): Promise<Array<ExportComment & { seq: number }>>;
  /** Which of these changeset ids exist in this database (any agent's). */
  existingChangesetIds(ids: string[]): Promise<Set<string>>;
  importBlobs(agentId: string, blobs: Array<{ hash: string; bytes: Buffer }>): Promise<number>;
  importVersions(agentId: string, versions: ExportVersion[]): Promise<void>;
  importChangesets(agentId: string, changesets: ImportChangeset[]): Promise<void>;
  importNodes(agentId: string, nodes: ImportNode[]): Promise<void>;
  /** Makes the imported agent exist: its row with the derived counters, its first key, search documents. */
  finishImport(
    agent: { id: string; name: string; slug: string; createdAtMs: number; storageBytes: number; nodeCount: number; lastSeq: number },
    key: KeyRecord & { hash: string },
  ): Promise<void>;
  /** Removes every row an unfinished import wrote under this agent id. */
  discardAgentRows(agentId: string): Promise<void>;
}

/** How long an expired export's row stays (its link answers 410 expired meanwhile): 7 days. */
export const EXPORT_ROW_TTL_MS = 7 * 24 * 3600 * 1000;
const PRUNE_EXPORTS = sql`DELETE FROM exports WHERE expires_at_ms < ?`;
const INSERT_EXPORT = sql`
  INSERT INTO exports (id, agent_id, key_id, token_hash, as_of_seq, created_at_ms, expires_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)`;
const GET_EXPORT = sql`
  SELECT e.id, e.agent_id, a.name, a.slug, a.created_at_ms, e.key_id, e.as_of_seq, e.created_at_ms, e.expires_at_ms, k.revoked_at_ms
    FROM exports e JOIN agents a ON a.id = e.agent_id LEFT JOIN api_keys k ON k.id = e.key_id WHERE e.token_hash = ?`;
const COUNTS = sql`
  SELECT last_seq, storage_bytes, (SELECT COUNT(*) FROM versions WHERE agent_id = ?) FROM agents WHERE id = ?`;
const PROVENANCE_JOIN = `LEFT JOIN provenance p ON p.agent_id = v.agent_id AND p.path = v.path AND p.version = v.version`;
const VERSIONS_FIRST = sql`
  SELECT ${qualified(VERSION_COLUMNS, 'v')}, p.from_slug, p.from_path, p.from_version FROM versions v ${PROVENANCE_JOIN}
   WHERE v.agent_id = ? ORDER BY v.path, v.version LIMIT ?`;
// A row-value comparison: both engines seek the primary key to it (an OR of the two conditions
// made SQLite scan the agent's versions from the start for every page).
const VERSIONS_AFTER = sql`
  SELECT ${qualified(VERSION_COLUMNS, 'v')}, p.from_slug, p.from_path, p.from_version FROM versions v ${PROVENANCE_JOIN}
   WHERE v.agent_id = ? AND (v.path, v.version) > (?, ?) ORDER BY v.path, v.version LIMIT ?`;
const PURGED = sql`
  SELECT path, version, purged_at_ms FROM nodes WHERE agent_id = ? AND path > ? AND purged_at_ms IS NOT NULL ORDER BY path LIMIT ?`;
const POST_COLUMNS = `p.id, c.name, p.title, p.body, p.url, p.tags, p.attachments, p.score, p.comment_count, p.revision,
  p.created_at_ms, p.edited_at_ms, p.removed_at_ms, p.deleted_at_ms`;
const POSTS = sql`
  SELECT ${POST_COLUMNS} FROM posts p JOIN communities c ON c.id = p.community_id
   WHERE p.author_id = ? AND (p.created_at_ms > ? OR (p.created_at_ms = ? AND p.id > ?)) ORDER BY p.created_at_ms, p.id LIMIT ?`;
const COMMENTS = sql`
  SELECT id, post_id, parent_id, depth, body, score, created_at_ms, edited_at_ms, removed_at_ms, deleted_at_ms, seq FROM comments
   WHERE author_id = ? AND seq > ? ORDER BY seq LIMIT ?`;
const EXISTING_CHANGESETS = sql`SELECT id FROM changesets WHERE id = ?*`;

const INSERT_AGENT = sql`
  INSERT INTO agents (id, name, slug, created_at_ms, storage_bytes, last_seq, node_count, last_active_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;
const INSERT_KEY = sql`INSERT INTO api_keys (${KEY_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const ENQUEUE_AGENT = sql`INSERT INTO search_outbox (type, owner_id, ref) VALUES ('agent', ?, ?)`;
const ENQUEUE_FILES = sql`
  INSERT INTO search_outbox (type, owner_id, ref) SELECT 'file', agent_id, path FROM nodes WHERE agent_id = ? AND kind = 'file' AND deleted = FALSE`;
// Imported contents arrive raw: the packer stores the superseded ones compactly (store/blob-pack.ts).
const ENQUEUE_PACK = sql`INSERT INTO pack_queue (agent_id, path) SELECT DISTINCT agent_id, path FROM versions WHERE agent_id = ? AND blob_hash IS NOT NULL`;
const DISCARD = [BLOBS, VERSIONS, NODES, CHANGESETS, ENTRY_CHUNKS, PROVENANCE].map((t) => sql`DELETE FROM ${t.name} WHERE agent_id = ?`);

function exportVersionFromRow(r: unknown[]): ExportVersion {
  const from = r[VERSION_COLUMN_COUNT];
  return {
    ...versionFromRow(r),
    copiedFrom: from == null ? null : { slug: String(from), path: String(r[VERSION_COLUMN_COUNT + 1]), version: num(r[VERSION_COLUMN_COUNT + 2]) },
  };
}

function postFromRow(r: unknown[]): ExportPost {
  return {
    postId: String(r[0]),
    community: String(r[1]),
    title: String(r[2]),
    body: String(r[3]),
    url: strOrNull(r[4]),
    tags: JSON.parse(String(r[5])) as string[],
    attachments: JSON.parse(String(r[6])) as unknown[],
    score: num(r[7]),
    commentCount: num(r[8]),
    revision: num(r[9]),
    createdAtMs: num(r[10]),
    editedAtMs: numOrNull(r[11]),
    removedAtMs: numOrNull(r[12]),
    deletedAtMs: numOrNull(r[13]),
  };
}

function commentFromRow(r: unknown[]): ExportComment & { seq: number } {
  return {
    commentId: String(r[0]),
    postId: String(r[1]),
    parentId: strOrNull(r[2]),
    depth: num(r[3]),
    body: String(r[4]),
    score: num(r[5]),
    createdAtMs: num(r[6]),
    editedAtMs: numOrNull(r[7]),
    removedAtMs: numOrNull(r[8]),
    deletedAtMs: numOrNull(r[9]),
    seq: num(r[10]),
  };
}

function* insertVersions(d: Dialect, agentId: string, versions: ExportVersion[]): Program<void> {
  yield* insertAll(
    d,
    VERSION_ROWS,
    versions.map((v) => ({ ...v, agentId })),
  );
  const copies = versions.filter((v) => v.copiedFrom);
  const provenance = copies.map(({ path, version, copiedFrom: from }) => ({
    agentId,
    path,
    version,
    fromSlug: from!.slug,
    fromPath: from!.path,
    fromVersion: from!.version,
  }));
  yield* insertAll(d, PROVENANCE_ROWS, provenance);
}

function* insertChangesets(d: Dialect, agentId: string, changesets: ImportChangeset[]): Program<void> {
  const rows = changesets.map(({ record: c, inline }) => ({ ...c, agentId, entries: JSON.stringify(inline) }));
  yield* insertAll(d, CHANGESET_ROWS, rows);
  const chunks = changesets.flatMap(({ record: c, chunks }) => chunks.map((k) => ({ agentId, changesetId: c.id, ...k })));
  yield* insertAll(d, CHUNK_ROWS, chunks);
}

export function transferStore(db: Db): TransferStore {
  return { ...exportRows(db), ...importRows(db) };
}

type ExportMethods =
  'createExport' | 'pruneExports' | 'getExportByTokenHash' | 'exportCounts' | 'exportVersions' | 'exportPurged' | 'exportPosts' | 'exportComments';

/** Export links, and the pages of an agent's rows an export reads. */
function exportRows(db: Db): Pick<TransferStore, ExportMethods> {
  return {
    async createExport(e) {
      await db.write(function* () {
        yield* run(INSERT_EXPORT, [e.id, e.agentId, e.keyId, e.tokenHash, e.asOfSeq, e.createdAtMs, e.expiresAtMs]);
      });
    },
    pruneExports(nowMs) {
      return db.write(function* () {
        return yield* run(PRUNE_EXPORTS, [nowMs - EXPORT_ROW_TTL_MS]);
      });
    },
    async getExportByTokenHash(tokenHash) {
      const r = await db.get(GET_EXPORT, [tokenHash]);
      if (!r) return null;
      return {
        id: String(r[0]),
        agent: { id: String(r[1]), name: String(r[2]), slug: String(r[3]), createdAtMs: num(r[4]) },
        keyId: String(r[5]),
        asOfSeq: num(r[6]),
        createdAtMs: num(r[7]),
        expiresAtMs: num(r[8]),
        keyRevokedAtMs: numOrNull(r[9]),
      };
    },
    async exportCounts(agentId) {
      const r = await db.get(COUNTS, [agentId, agentId]);
      return r ? { lastSeq: num(r[0]), storageBytes: num(r[1]), versions: num(r[2]) } : { lastSeq: 0, storageBytes: 0, versions: 0 };
    },
    async exportVersions(agentId, after, limit) {
      const rows = after ? await db.all(VERSIONS_AFTER, [agentId, after.path, after.version, limit]) : await db.all(VERSIONS_FIRST, [agentId, limit]);
      return rows.map(exportVersionFromRow);
    },
    async exportPurged(agentId, afterPath, limit) {
      return (await db.all(PURGED, [agentId, afterPath, limit])).map((r) => ({ path: String(r[0]), version: num(r[1]), purgedAtMs: num(r[2]) }));
    },
    async exportPosts(authorId, after, limit) {
      const a = after ?? { createdAtMs: -1, id: '' };
      return (await db.all(POSTS, [authorId, a.createdAtMs, a.createdAtMs, a.id, limit])).map(postFromRow);
    },
    async exportComments(authorId, afterSeq, limit) {
      return (await db.all(COMMENTS, [authorId, afterSeq, limit])).map(commentFromRow);
    },
  };
}

/** Writing an imported agent's rows, a batch at a time, then making the agent exist (or discarding them). */
function importRows(db: Db): Omit<TransferStore, ExportMethods> {
  return {
    async existingChangesetIds(ids) {
      if (!ids.length) return new Set();
      return new Set((await db.all(EXISTING_CHANGESETS, [ids])).map((r) => String(r[0])));
    },
    importBlobs(agentId, blobs) {
      // One transaction per batch (PostgreSQL committed each row on its own: a WAL flush per content).
      const rows = blobs.map((b) => ({ agentId, hash: b.hash, size: b.bytes.length, content: b.bytes, encoding: 'raw' }));
      return db.write(
        function* () {
          const written = yield* insertEach(db.dialect, BLOB_ROWS, rows);
          return rows.reduce((n, r, i) => n + (written[i] ? r.size : 0), 0);
        },
        { atomic: true },
      );
    },
    importVersions(agentId, versions) {
      return db.write(() => insertVersions(db.dialect, agentId, versions), { atomic: true });
    },
    importChangesets(agentId, changesets) {
      return db.write(() => insertChangesets(db.dialect, agentId, changesets), { atomic: true });
    },
    async importNodes(agentId, nodes) {
      const rows = nodes.map((n) => ({ ...n, agentId, ...splitPath(n.path) }));
      await db.write(() => insertAll(db.dialect, NODE_ROWS, rows), { atomic: true });
    },
    finishImport(agent, key) {
      return db.write(
        function* () {
          try {
            yield* run(INSERT_AGENT, [
              agent.id,
              agent.name,
              agent.slug,
              agent.createdAtMs,
              agent.storageBytes,
              agent.lastSeq,
              agent.nodeCount,
              agent.createdAtMs,
            ]);
          } catch (err) {
            if (isUniqueViolation(err, 'agents', 'slug')) throw new StoreSlugTaken(agent.slug);
            throw err;
          }
          yield* run(INSERT_KEY, keyParams(key));
          yield* run(ENQUEUE_AGENT, [agent.id, agent.id]);
          yield* run(ENQUEUE_FILES, [agent.id]);
          yield* run(ENQUEUE_PACK, [agent.id]);
        },
        { atomic: true },
      );
    },
    async discardAgentRows(agentId) {
      await db.write(
        function* () {
          for (const q of DISCARD) yield* run(q, [agentId]);
        },
        { atomic: true },
      );
    },
  };
}

/** Versions, changesets (and the chunks of big ones), tombstones, and purge: the history of the tree. */
import { pageEntries, type EntryChunk } from './entry-chunks.js';
import {
  CHANGESET_COLUMNS,
  NODE_COLUMNS,
  VERSION_COLUMNS,
  VERSION_COLUMN_COUNT,
  changesetFromRow,
  nodeFromRow,
  qualified,
  versionFromRow,
} from './rows.js';
import { rebaseDependents } from './blob-pack.js';
import { all, pageOf, run, sql, subtreeAfter, type Db, type Program } from './sql.js';
import type { ChangesetEntry, ChangesetRecord, HistoryCursor, ListPage, VersionRecord } from './types.js';

export interface HistoryStore {
  getVersion(agentId: string, path: string, version: number): Promise<VersionRecord | null>;
  /** Versions by (path, version), keyed by path (one version per path; absent ones are left out). */
  getVersions(agentId: string, refs: Array<{ path: string; version: number }>): Promise<Map<string, VersionRecord>>;
  countVersions(agentId: string, path: string): Promise<number>;
  /**
   * Versions of `path` plus, when fileId is given, the versions its file had under other
   * paths (history follows a moved file); newest first in commit order (changeset seq, not
   * clock time, so it holds when commits share a millisecond or the clock steps back), strictly
   * after `before` in that order; within one changeset (a move) the arrival at the new path
   * comes before the tombstone it left at the old one.
   */
  listFileHistory(
    agentId: string,
    path: string,
    fileId: string | null,
    limit: number,
    before: HistoryCursor | null,
  ): Promise<Array<VersionRecord & { seq: number }>>;
  /** Changesets newest first (before a seq), or oldest first after `since`. */
  listChangesets(agentId: string, opts: { since?: number; before?: number; limit: number }): Promise<ChangesetRecord[]>;
  getChangeset(agentId: string, id: string): Promise<ChangesetRecord | null>;
  /**
   * Entries of a changeset with more than ENTRY_INLINE of them, in path order: those after
   * `after` (exclusive) and, with `within`, at or below that path. Reads only what the page needs.
   */
  listChangesetEntries(
    agentId: string,
    changesetId: string,
    opts: { after: string | null; within: string | null; limit: number },
  ): Promise<{ entries: ChangesetEntry[]; nextAfter: string | null }>;
  /** Tombstones (deleted, not purged) strictly below `dir`, ordered by path. */
  listDeleted(agentId: string, dir: string, limit: number, after: string | null): Promise<ListPage>;
  /**
   * Permanently removes every version of the paths and the content no other version uses, and
   * the agent's idempotency rows (a saved response may echo the purged content, e.g. an edit's
   * diff). The node rows stay as purged markers so version numbers are never reused.
   */
  purge(agentId: string, paths: string[]): Promise<{ versions: number; bytesFreed: number }>;
}

/** The cursor of a first page: after every real version (versions are 32-bit on both backends). */
const NO_SEQ = Number.MAX_SAFE_INTEGER;

const GET_VERSION = sql`SELECT ${VERSION_COLUMNS} FROM versions WHERE agent_id = ? AND path = ? AND version = ?`;
// PostgreSQL only (SQLite looks each pair up with GET_VERSION): LATERAL keeps it a primary-key
// lookup per pair, where a join may hash all the agent's versions.
const GET_VERSIONS_PG = sql`
  SELECT v.* FROM unnest(?::text[], ?::integer[]) AS t(path, version) CROSS JOIN LATERAL (
    SELECT ${VERSION_COLUMNS} FROM versions WHERE agent_id = ? AND path = t.path COLLATE "C" AND version = t.version) v`;
// A path's versions are numbered without gaps (only purge deletes versions, all of a path's at
// once): two primary-key probes instead of COUNT(*), which read every version (16 ms at 100,000
// versions, on the serving thread for SQLite, for every stat).
const COUNT_VERSIONS = sql`
  SELECT COALESCE((SELECT MAX(version) FROM versions WHERE agent_id = ? AND path = ?)
                - (SELECT MIN(version) FROM versions WHERE agent_id = ? AND path = ?) + 1, 0)`;
// A file's history is the versions at its path and the versions of its file id at other paths
// (before a move). Reading all of them for every page cost 441 ms per page at 100,000 versions on
// SQLite's serving thread. The path's own versions are in seq order when in version order (a
// path's next version commits after the previous one; one version per path per changeset), so
// they come off the primary key below the smallest version of the path already listed, a page at
// a time. The file id's versions at other paths (its move history) are still read whole.
const FILE_HISTORY = sql`
  SELECT ${VERSION_COLUMNS}, seq FROM (
    SELECT ${qualified(VERSION_COLUMNS, 'v')}, COALESCE(c.seq, 0) AS seq, CASE WHEN v.deleted THEN 1 ELSE 0 END AS dead
      FROM (SELECT * FROM versions WHERE agent_id = ? AND path = ? AND version < ? ORDER BY version DESC LIMIT ?) v
      LEFT JOIN changesets c ON c.id = v.changeset_id AND c.agent_id = v.agent_id
    UNION ALL
    SELECT ${qualified(VERSION_COLUMNS, 'v')}, COALESCE(c.seq, 0) AS seq, CASE WHEN v.deleted THEN 1 ELSE 0 END AS dead FROM versions v
      LEFT JOIN changesets c ON c.id = v.changeset_id AND c.agent_id = v.agent_id
     WHERE v.agent_id = ? AND v.file_id = ? AND (v.path < ? OR v.path > ?)) h
   WHERE seq < ? OR (seq = ? AND (dead > ? OR (dead = ? AND (path > ? OR (path = ? AND version < ?)))))
   ORDER BY seq DESC, dead ASC, path ASC, version DESC LIMIT ?`;
const INT_MAX = 2147483647;
/** Past the newest row: the bounds of a first page. */
const HISTORY_START: HistoryCursor = { seq: Number.MAX_SAFE_INTEGER, deleted: false, path: '', version: 0 };
const CHANGESETS_SINCE = sql`SELECT ${CHANGESET_COLUMNS} FROM changesets WHERE agent_id = ? AND seq > ? ORDER BY seq ASC LIMIT ?`;
const CHANGESETS_BEFORE = sql`SELECT ${CHANGESET_COLUMNS} FROM changesets WHERE agent_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`;
const GET_CHANGESET = sql`SELECT ${CHANGESET_COLUMNS} FROM changesets WHERE agent_id = ? AND id = ?`;
const CHUNKS_CONTAINING = sql`
  SELECT first_path, entries FROM changeset_entry_chunks
   WHERE agent_id = ? AND changeset_id = ? AND first_path >= COALESCE(
     (SELECT MAX(first_path) FROM changeset_entry_chunks WHERE agent_id = ? AND changeset_id = ? AND first_path <= ?), '')
   ORDER BY first_path LIMIT ?`;
const CHUNKS_AFTER = sql`
  SELECT first_path, entries FROM changeset_entry_chunks WHERE agent_id = ? AND changeset_id = ? AND first_path > ? ORDER BY first_path LIMIT ?`;
// SQLite without ANALYZE statistics prefers the primary key (it also gives the order) and walks
// every live node of the directory: INDEXED BY names the partial index of deleted nodes.
const LIST_DELETED = sql`
  SELECT ${NODE_COLUMNS} FROM nodes ${{ sqlite: 'INDEXED BY nodes_deleted', postgres: '' }}
   WHERE agent_id = ? AND path > ? AND path < ? AND deleted = TRUE AND purged_at_ms IS NULL
   ORDER BY path LIMIT ?`;

/** The statements whose query plans test/history-pages.test.ts checks (index probes, no scans). */
export const PLANNED = { COUNT_VERSIONS, LIST_DELETED };

const ENQUEUE_LIVE_FILES = sql`
  INSERT INTO search_outbox (type, owner_id, ref) SELECT 'file', ?, path FROM nodes WHERE agent_id = ? AND path = ?* AND kind = 'file' AND deleted = FALSE`;
const LIVE_PATHS = sql`SELECT path FROM nodes WHERE agent_id = ? AND path = ?* AND deleted = FALSE`;
// Without DISTINCT and IS NOT NULL: with them SQLite walked the versions_blob index over every
// version of the agent for each path (measured: 500 paths of an agent with 80,000 versions took
// seconds; 10–80 ms by primary key). Duplicates and nulls are dropped in JS.
const VERSION_BLOBS = sql`SELECT blob_hash FROM versions WHERE agent_id = ? AND path = ?*`;
const DELETE_VERSIONS = sql`DELETE FROM versions WHERE agent_id = ? AND path = ?*`;
const MARK_PURGED = sql`
  UPDATE nodes SET deleted = TRUE, blob_hash = NULL, size = 0, lines = NULL, purged_at_ms = ? WHERE agent_id = ? AND path = ?*`;
// A blob that is the base of a delta stays until its dependents are gone (a pass deletes the
// leaves; purgeProgram repeats it); purge re-bases the dependents that outlive it beforehand.
const FREE_BLOBS = sql`
  DELETE FROM blobs WHERE agent_id = ? AND hash = ?*
     AND NOT EXISTS (SELECT 1 FROM versions v WHERE v.agent_id = blobs.agent_id AND v.blob_hash = blobs.hash)
     AND NOT EXISTS (SELECT 1 FROM blobs d WHERE d.agent_id = blobs.agent_id AND d.base_hash = blobs.hash) RETURNING size`;
/** Blobs of the purge no version uses any more but kept as a base (a dependent appeared meanwhile). */
const ORPHANS = sql`
  SELECT hash FROM blobs WHERE agent_id = ? AND hash = ?*
     AND NOT EXISTS (SELECT 1 FROM versions v WHERE v.agent_id = blobs.agent_id AND v.blob_hash = blobs.hash)`;
// At most `limit` of a content's versions: whether any outside the purge uses it costs the purge's
// own versions of it, however many other files share it (reading all of them held the event loop
// 256 ms per 500 paths when 20,000 files had one content).
const BLOB_REFS_UPTO = sql`SELECT COUNT(*) FROM (SELECT 1 FROM versions WHERE agent_id = ? AND blob_hash = ? LIMIT ?) r`;
const UNCHARGE = sql`UPDATE agents SET storage_bytes = storage_bytes - ?, node_count = node_count - ? WHERE id = ?`;
const FORGET_IDEMPOTENCY = sql`DELETE FROM idempotency WHERE agent_id = ?`;

interface Purged {
  versions: number;
  bytesFreed: number;
  /** Contents no version uses that had to stay as a base: freed by the next pass. */
  orphans: string[];
}

/** Deletes the blobs among `hashes` no version uses, leaves first (a chain goes in as many passes as it is deep). */
function* freeBlobs(agentId: string, hashes: string[]): Program<{ bytesFreed: number; orphans: string[] }> {
  let bytesFreed = 0;
  if (!hashes.length) return { bytesFreed, orphans: [] };
  for (;;) {
    const freed = yield* all(FREE_BLOBS, [agentId, hashes]);
    for (const [size] of freed) bytesFreed += Number(size);
    if (!freed.length) break;
  }
  return { bytesFreed, orphans: (yield* all(ORPHANS, [agentId, hashes])).map((r) => String(r[0])) };
}

function* purgeProgram(agentId: string, paths: string[], nowMs: number): Program<Purged> {
  const live = (yield* all(LIVE_PATHS, [agentId, paths])).length;
  // Live files leave the search index (deleted ones left it with their delete).
  if (live) yield* run(ENQUEUE_LIVE_FILES, [agentId, agentId, paths]);
  const hashes = new Set<string>();
  for (const [hash] of yield* all(VERSION_BLOBS, [agentId, paths])) if (hash != null) hashes.add(String(hash));
  const versions = yield* run(DELETE_VERSIONS, [agentId, paths]);
  yield* run(MARK_PURGED, [nowMs, agentId, paths]);
  const { bytesFreed, orphans } = yield* freeBlobs(agentId, [...hashes]);
  yield* run(UNCHARGE, [bytesFreed, live, agentId]);
  yield* run(FORGET_IDEMPOTENCY, [agentId]);
  return { versions, bytesFreed, orphans };
}

function* freeOrphansProgram(agentId: string, hashes: string[]): Program<{ bytesFreed: number; orphans: string[] }> {
  const r = yield* freeBlobs(agentId, hashes);
  yield* run(UNCHARGE, [r.bytesFreed, 0, agentId]);
  return r;
}

/** The contents only these paths' versions use: what a purge of them deletes. */
async function contentsOnlyIn(db: Db, agentId: string, paths: string[]): Promise<string[]> {
  const ours = new Map<string, number>();
  for (const [hash] of await db.all(VERSION_BLOBS, [agentId, paths])) if (hash != null) ours.set(String(hash), (ours.get(String(hash)) ?? 0) + 1);
  const only: string[] = [];
  for (const [hash, n] of ours) {
    const [row] = await db.all(BLOB_REFS_UPTO, [agentId, hash, n + 1]);
    if (Number(row![0]) <= n) only.push(hash);
  }
  return only;
}

/** Rounds of re-basing when a packer keeps basing new deltas on what purge frees (each round: one blob's race). */
const PURGE_ROUNDS = 5;

async function purgeAll(db: Db, agentId: string, paths: string[]): Promise<{ versions: number; bytesFreed: number }> {
  // Deltas based on what goes, and not going themselves, become snapshots first (outside the
  // purge's transaction: decoding and deflating is slow work); the purge then frees leaves first.
  await rebaseDependents(db, agentId, await contentsOnlyIn(db, agentId, paths));
  const lock = { agentLock: { agentId, exclusive: true } };
  // Exclusive on PostgreSQL: no commit may reference a blob while purge decides to drop it.
  const r = await db.write(() => purgeProgram(agentId, paths, Date.now()), lock);
  let { bytesFreed, orphans } = r;
  for (let round = 0; orphans.length && round < PURGE_ROUNDS; round++) {
    await rebaseDependents(db, agentId, orphans);
    const more = await db.write(() => freeOrphansProgram(agentId, orphans), lock);
    bytesFreed += more.bytesFreed;
    orphans = more.orphans;
  }
  return { versions: r.versions, bytesFreed };
}

export function historyStore(db: Db): HistoryStore {
  return {
    async getVersion(agentId, path, version) {
      const r = await db.get(GET_VERSION, [agentId, path, version]);
      return r ? versionFromRow(r) : null;
    },
    async getVersions(agentId, refs) {
      const out = new Map<string, VersionRecord>();
      if (refs.length === 0) return out;
      if (db.dialect === 'postgres') {
        const rows = await db.all(GET_VERSIONS_PG, [refs.map((r) => r.path), refs.map((r) => r.version), agentId]);
        for (const r of rows) out.set(String(r[0]), versionFromRow(r));
        return out;
      }
      for (const { path, version } of refs) {
        const r = await db.get(GET_VERSION, [agentId, path, version]);
        if (r) out.set(path, versionFromRow(r));
      }
      return out;
    },
    async countVersions(agentId, path) {
      return Number((await db.get(COUNT_VERSIONS, [agentId, path, agentId, path]))![0]);
    },
    async listFileHistory(agentId, path, fileId, limit, before) {
      const b = before ?? HISTORY_START;
      // Without the path's bound (a cursor made before it existed), all the path's versions.
      const pathBelow = before ? (before.pathBelow ?? INT_MAX) : INT_MAX;
      const pathLimit = before && before.pathBelow === undefined ? INT_MAX : limit;
      const rows = await db.all(FILE_HISTORY, [
        agentId,
        path,
        pathBelow,
        pathLimit,
        agentId,
        fileId ?? '',
        path,
        path,
        b.seq,
        b.seq,
        b.deleted ? 1 : 0,
        b.deleted ? 1 : 0,
        b.path,
        b.path,
        before ? b.version : INT_MAX,
        limit,
      ]);
      return rows.map((r) => ({ ...versionFromRow(r), seq: Number(r[VERSION_COLUMN_COUNT]) }));
    },
    async listChangesets(agentId, opts) {
      const rows =
        opts.since !== undefined
          ? await db.all(CHANGESETS_SINCE, [agentId, opts.since, opts.limit])
          : await db.all(CHANGESETS_BEFORE, [agentId, opts.before ?? NO_SEQ, opts.limit]);
      return rows.map(changesetFromRow);
    },
    async getChangeset(agentId, id) {
      const r = await db.get(GET_CHANGESET, [agentId, id]);
      return r ? changesetFromRow(r) : null;
    },
    listChangesetEntries(agentId, changesetId, opts) {
      return pageEntries(async (from, limit) => {
        const rows =
          'containing' in from
            ? await db.all(CHUNKS_CONTAINING, [agentId, changesetId, agentId, changesetId, from.containing, limit])
            : await db.all(CHUNKS_AFTER, [agentId, changesetId, from.after, limit]);
        return rows.map((r): EntryChunk => ({ firstPath: String(r[0]), entries: String(r[1]) }));
      }, opts);
    },
    async listDeleted(agentId, dir, limit, after) {
      return pageOf(await db.all(LIST_DELETED, [agentId, ...subtreeAfter(dir, after), limit + 1]), limit, nodeFromRow);
    },
    purge(agentId, paths) {
      return purgeAll(db, agentId, paths);
    },
  };
}

/** The head of the file tree: one row per path (tombstones and purge markers included) and the content by hash. */
import { NODE_COLUMNS, NODE_COLUMN_COUNT, nodeFromRow, qualified } from './rows.js';
import { BLOB_SLICE_BYTES, GET_STORED_SLICE, isRaw, readDecoded } from './blob-read.js';
import { dialect, pageOf, sql, subtreeAfter, type Db } from './sql.js';
import type { ListPage, NodeRecord, NodeWithContent } from './types.js';

export interface TreeStore {
  getNode(agentId: string, path: string): Promise<NodeRecord | null>;
  getNodes(agentId: string, paths: string[]): Promise<Map<string, NodeRecord>>;
  readNode(agentId: string, path: string): Promise<NodeWithContent | null>;
  getBlob(agentId: string, hash: string): Promise<Buffer | null>;
  /** Live children of `dir`, ordered by path, after `after` (exclusive). */
  listChildren(agentId: string, dir: string, limit: number, after: string | null): Promise<ListPage>;
  /** Live nodes strictly below `dir`, ordered by path, after `after` (exclusive). */
  listSubtree(agentId: string, dir: string, limit: number, after: string | null): Promise<ListPage>;
  countLiveChildren(agentId: string, dir: string): Promise<number>;
  /** Live nodes named `name` anywhere (for "did you mean" suggestions). */
  findByName(agentId: string, name: string, limit: number): Promise<NodeRecord[]>;
}

export const GET_NODE = sql`SELECT ${NODE_COLUMNS} FROM nodes WHERE agent_id = ? AND path = ?`;
const GET_NODES = sql`SELECT ${NODE_COLUMNS} FROM nodes WHERE agent_id = ? AND path = ?*`;
/**
 * node-pg receives bytea as hex text and decodes a row in one go: a 10 MB content became a 20 MB
 * string, then a Buffer, in one turn of the event loop (measured: 100-190 ms held per read on
 * this machine, every other agent waiting). Contents over BLOB_SLICE_BYTES therefore come in
 * slices of that size, each decoded in its own turn (a 1 MiB slice: ~10 ms). SQLite reads a blob
 * in place and needs no slicing (its reads are synchronous and ~1 ms per MB).
 *
 * Heads are raw (store/blob-pack.ts keeps them so), so a head read is the same one query as before
 * delta storage; a row in another encoding (an old version, or a head just restored from one
 * until the packer re-materializes it) is decoded through blob-read.ts.
 */
// The content as a scalar subquery rather than a LEFT JOIN. Same plan and cost as deployed, but
// once a SQLite file has sqlite_stat4 (someone ran ANALYZE: better-sqlite3 builds with STAT4)
// SQLite re-plans a join on every new binding of a parameter compared to an indexed column: a read
// took 34 µs as a join against 9.6 this way (readNode 64 → 16 µs; the node row alone 5.4 µs), and
// the same without the statistics. docs/operations.md says to leave ANALYZE out of SQLite.
const READ_NODE = sql`
  SELECT ${qualified(NODE_COLUMNS, 'n')},
         (SELECT CASE WHEN b.size <= ? AND ${isRaw('b.')} THEN b.content END FROM blobs b WHERE b.agent_id = n.agent_id AND b.hash = n.blob_hash)
    FROM nodes n
   WHERE n.agent_id = ? AND n.path = ?`;
const GET_BLOB = sql`SELECT size, CASE WHEN size <= ? AND ${isRaw()} THEN content END, ${isRaw()} FROM blobs WHERE agent_id = ? AND hash = ?`;
const LIST_CHILDREN = sql`
  SELECT ${NODE_COLUMNS} FROM nodes ${dialect({
    // SQLite's planner otherwise prefers the primary key's path range and scans the whole tree.
    sqlite: 'INDEXED BY nodes_parent',
    postgres: '',
  })}
   WHERE agent_id = ? AND parent = ? AND deleted = FALSE AND path > ? ORDER BY path LIMIT ?`;
const LIST_SUBTREE = sql`
  SELECT ${NODE_COLUMNS} FROM nodes WHERE agent_id = ? AND path > ? AND path < ? AND deleted = FALSE ORDER BY path LIMIT ?`;
const COUNT_CHILDREN = sql`SELECT COUNT(*) FROM nodes WHERE agent_id = ? AND parent = ? AND deleted = FALSE`;
const FIND_BY_NAME = sql`SELECT ${NODE_COLUMNS} FROM nodes WHERE agent_id = ? AND name = ? AND deleted = FALSE LIMIT ?`;

/** The size above which a content is fetched in slices: PostgreSQL only. */
function sliceAbove(db: Db): number {
  return db.dialect === 'postgres' ? BLOB_SLICE_BYTES : Number.MAX_SAFE_INTEGER;
}

export function treeStore(db: Db): TreeStore {
  const getBlob = async (agentId: string, hash: string): Promise<Buffer | null> => {
    const r = await db.get(GET_BLOB, [sliceAbove(db), agentId, hash]);
    if (!r) return null;
    if (r[1] !== null) return r[1] as Buffer;
    if (!r[2]) return readDecoded(db, agentId, hash);
    const size = Number(r[0]);
    const slices: Buffer[] = [];
    for (let at = 0; at < size; at += BLOB_SLICE_BYTES) {
      const part = await db.get(GET_STORED_SLICE, [at + 1, BLOB_SLICE_BYTES, agentId, hash, 'raw', size]);
      if (!part) return readDecoded(db, agentId, hash); // purged or re-encoded meanwhile
      slices.push(part[0] as Buffer);
    }
    return Buffer.concat(slices, size);
  };
  return {
    async getNode(agentId, path) {
      const r = await db.get(GET_NODE, [agentId, path]);
      return r ? nodeFromRow(r) : null;
    },
    async getNodes(agentId, paths) {
      const out = new Map<string, NodeRecord>();
      if (paths.length === 0) return out;
      for (const r of await db.all(GET_NODES, [agentId, paths])) out.set(String(r[0]), nodeFromRow(r));
      return out;
    },
    async readNode(agentId, path) {
      const r = await db.get(READ_NODE, [sliceAbove(db), agentId, path]);
      if (!r) return null;
      const node = nodeFromRow(r);
      const inline = (r[NODE_COLUMN_COUNT] as Buffer | null) ?? null;
      // Large contents come in slices (getBlob); small ones with the node, in one round trip.
      return { ...node, content: inline !== null || node.blobHash === null ? inline : await getBlob(agentId, node.blobHash) };
    },
    getBlob,
    async listChildren(agentId, dir, limit, after) {
      return pageOf(await db.all(LIST_CHILDREN, [agentId, dir, after ?? '', limit + 1]), limit, nodeFromRow);
    },
    async listSubtree(agentId, dir, limit, after) {
      return pageOf(await db.all(LIST_SUBTREE, [agentId, ...subtreeAfter(dir, after), limit + 1]), limit, nodeFromRow);
    },
    async countLiveChildren(agentId, dir) {
      return Number((await db.get(COUNT_CHILDREN, [agentId, dir]))![0]);
    },
    async findByName(agentId, name, limit) {
      return (await db.all(FIND_BY_NAME, [agentId, name, limit])).map(nodeFromRow);
    },
  };
}

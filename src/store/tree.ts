/** The head of the file tree: one row per path (tombstones and purge markers included) and the content by hash. */
import { NODE_COLUMNS, NODE_COLUMN_COUNT, nodeFromRow, qualified } from './rows.js';
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
const READ_NODE = sql`
  SELECT ${qualified(NODE_COLUMNS, 'n')}, b.content
    FROM nodes n LEFT JOIN blobs b ON b.agent_id = n.agent_id AND b.hash = n.blob_hash
   WHERE n.agent_id = ? AND n.path = ?`;
const GET_BLOB = sql`SELECT content FROM blobs WHERE agent_id = ? AND hash = ?`;
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

export function treeStore(db: Db): TreeStore {
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
      const r = await db.get(READ_NODE, [agentId, path]);
      return r ? { ...nodeFromRow(r), content: (r[NODE_COLUMN_COUNT] as Buffer | null) ?? null } : null;
    },
    async getBlob(agentId, hash) {
      const r = await db.get(GET_BLOB, [agentId, hash]);
      return r ? (r[0] as Buffer) : null;
    },
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

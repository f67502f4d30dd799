/**
 * Bulk reads for directory walks (bash's find, grep -r, ls -R, du): many rows per call, so they
 * select only what a walk needs and fetch content by the page.
 */
import { NODE_COLUMNS, NODE_COLUMN_COUNT, SUMMARY_COLUMNS, nodeFromRow, qualified, summaryFromRow } from './rows.js';
import { contentOf, isRaw } from './blob-read.js';
import { pageOf, sql, subtreeAfter, type Db } from './sql.js';
import type { NodeSummary, NodeWithContent } from './types.js';

export interface BashStore {
  /** Live nodes strictly below `dir`, with only what a directory walk needs: far cheaper in bulk. */
  listSubtreeSummary(agentId: string, dir: string, limit: number, after: string | null): Promise<{ nodes: NodeSummary[]; nextAfter: string | null }>;
  /** Contents by hash, for the hashes the agent has (absent ones are left out). */
  getBlobs(agentId: string, hashes: string[]): Promise<Map<string, Buffer>>;
  /** Live files strictly below `dir` with their content, ordered by path (bulk reads for grep -r). */
  readSubtree(agentId: string, dir: string, limit: number, after: string | null): Promise<{ nodes: NodeWithContent[]; nextAfter: string | null }>;
}

const LIST_SUMMARY = sql`
  SELECT ${SUMMARY_COLUMNS} FROM nodes WHERE agent_id = ? AND path > ? AND path < ? AND deleted = FALSE ORDER BY path LIMIT ?`;
// Encoded rows (old versions: store/blob-codec.ts) come without their stored bytes and are decoded by blob-read.ts.
const GET_BLOBS = sql`SELECT hash, CASE WHEN ${isRaw()} THEN content END FROM blobs WHERE agent_id = ? AND hash = ?*`;
const READ_SUBTREE = sql`
  SELECT ${qualified(NODE_COLUMNS, 'n')}, CASE WHEN ${isRaw('b.')} THEN b.content END
    FROM nodes n JOIN blobs b ON b.agent_id = n.agent_id AND b.hash = n.blob_hash
   WHERE n.agent_id = ? AND n.path > ? AND n.path < ? AND n.deleted = FALSE AND n.kind = 'file' ORDER BY n.path LIMIT ?`;

export function bashStore(db: Db): BashStore {
  return {
    async listSubtreeSummary(agentId, dir, limit, after) {
      return pageOf(await db.all(LIST_SUMMARY, [agentId, ...subtreeAfter(dir, after), limit + 1]), limit, summaryFromRow);
    },
    async getBlobs(agentId, hashes) {
      const out = new Map<string, Buffer>();
      if (hashes.length === 0) return out;
      for (const r of await db.all(GET_BLOBS, [agentId, hashes])) {
        const bytes = await contentOf(db, agentId, String(r[0]), r[1]);
        if (bytes) out.set(String(r[0]), bytes);
      }
      return out;
    },
    async readSubtree(agentId, dir, limit, after) {
      const page = pageOf(await db.all(READ_SUBTREE, [agentId, ...subtreeAfter(dir, after), limit + 1]), limit, (r) => ({ path: String(r[0]), r }));
      const nodes: NodeWithContent[] = [];
      for (const { r } of page.nodes) {
        const node = nodeFromRow(r);
        const content = await contentOf(db, agentId, node.blobHash!, r[NODE_COLUMN_COUNT]);
        if (content) nodes.push({ ...node, content });
      }
      return { nodes, nextAfter: page.nextAfter };
    },
  };
}

/**
 * The store side of object storage (store/blob-objects.ts): the sweep that deletes objects no row
 * references once their last write is older than the grace period, and byte ranges of a content
 * (an external one fetched alone, as an HTTP range). Without BLOB_STORE the sweep has nothing to do.
 */
import { blobObjects, type SweepResult } from './blob-objects.js';
import { readRange } from './blob-read.js';
import { sql, type Db } from './sql.js';

/** Hashes checked against the rows per query. */
const SWEEP_BATCH = 500;
const REFERENCED = sql`SELECT hash FROM blobs WHERE agent_id = ? AND hash = ?*`;

export interface BlobObjectStore {
  /**
   * Deletes the objects of this database's agents that no blobs row references and whose last
   * write is older than `graceMs` (a commit's PUT refreshes it, so a content being committed is
   * never taken). Each is looked up again just before its DELETE. Agents this database does not
   * know are left alone (another deployment may share the bucket).
   */
  sweepObjects(graceMs: number, nowMs?: number): Promise<SweepResult>;
  /** Bytes [start, end) of an agent's content, or null when it has none by that hash. */
  getBlobRange(agentId: string, hash: string, start: number, end: number): Promise<Buffer | null>;
}

const KNOWN_AGENT = sql`SELECT 1 FROM agents WHERE id = ?`;

export function blobObjectStore(db: Db): BlobObjectStore {
  const sweepBatch = async (agentId: string, hashes: string[], cutoffMs: number): Promise<number> => {
    const objects = blobObjects();
    const referenced = new Set((await db.all(REFERENCED, [agentId, hashes])).map((r) => String(r[0])));
    let deleted = 0;
    for (const hash of hashes) {
      if (referenced.has(hash)) continue;
      const last = await objects.lastModified(agentId, hash);
      if (last === null || last > cutoffMs) continue; // gone, or PUT again since the listing
      await objects.delete(agentId, hash);
      deleted++;
    }
    return deleted;
  };
  return {
    async sweepObjects(graceMs, nowMs = Date.now()) {
      const result: SweepResult = { seen: 0, deleted: 0 };
      let objects;
      try {
        objects = blobObjects();
      } catch {
        return result; // no object storage in this process
      }
      const cutoffMs = nowMs - graceMs;
      for await (const agentId of objects.agents()) {
        if (!(await db.get(KNOWN_AGENT, [agentId]))) continue;
        let batch: string[] = [];
        for await (const o of objects.list(agentId)) {
          result.seen++;
          if (o.lastModifiedMs > cutoffMs) continue;
          batch.push(o.hash);
          if (batch.length === SWEEP_BATCH) {
            result.deleted += await sweepBatch(agentId, batch, cutoffMs);
            batch = [];
          }
        }
        if (batch.length) result.deleted += await sweepBatch(agentId, batch, cutoffMs);
      }
      return result;
    },
    getBlobRange: (agentId, hash, start, end) => readRange(db, agentId, hash, start, end),
  };
}

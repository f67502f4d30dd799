/**
 * PostgreSQL's planner statistics for a young database. A pooled connection keeps the generic plan
 * of each prepared statement, chosen when its tables were nearly empty, until an ANALYZE of one of
 * them invalidates it; autovacuum runs that ANALYZE only after its naptime (60 s) and a growth of
 * 10%. Meanwhile the plans it keeps can be ones that walk everything an agent has. Seen
 * (auto_explain, a fresh database, a few thousand edits): reading a file joined the agent's every
 * blob and filtered by hash (`Bitmap Heap Scan on blobs, Recheck Cond: agent_id = $2`), so a read
 * cost more with each version; after one ANALYZE, PostgreSQL's CPU per `edit` fell by a third.
 *
 * So a serving process looks every few seconds at the tables the hot paths read by more than their
 * primary key and analyzes those whose rows changed by at least their number at the last analysis
 * (and at least MIN_CHANGES): on a growing table that is a doubling, so its analyses cost in total
 * about what the last one costs; on a table rewritten in place (nodes: every edit updates a row),
 * once per its size in changes. Tables read only by primary key or in id order (agents,
 * pack_queue, search_outbox) are left to autovacuum. One instance at a time (an advisory lock).
 */
import type pg from 'pg';
import { withClient } from './postgres-db.js';

/** The tables whose plans the hot paths (auth, read, write, edit, list, history, search) depend on. */
export const HOT_TABLES = ['api_keys', 'nodes', 'versions', 'blobs', 'changesets', 'search_docs'];
/** Fewer changed rows than this never trigger an analysis. */
export const MIN_CHANGES = 500;
const LOCK = 'SELECT pg_try_advisory_xact_lock(7310413) AS locked';
// reltuples is -1 for a table never analyzed (PostgreSQL 14+).
const STALE = `
  SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
   WHERE s.schemaname = current_schema() AND s.relname = ANY($1::text[])
     AND s.n_mod_since_analyze >= GREATEST($2::bigint, c.reltuples::bigint)
   ORDER BY s.relname`;

/** Analyzes the hot tables that grew since their last analysis; returns their names. */
export async function refreshPlannerStats(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ relname: string }>(STALE, [HOT_TABLES, MIN_CHANGES]);
  if (!rows.length) return [];
  return withClient(pool, async (client, broken) => {
    try {
      await client.query('BEGIN');
      const locked = (await client.query<{ locked: boolean }>(LOCK)).rows[0]?.locked === true;
      // Names come from HOT_TABLES (matched by the query), never from input; quoted anyway.
      if (locked) for (const { relname } of rows) await client.query(`ANALYZE "${relname.replace(/"/g, '""')}"`);
      await client.query('COMMIT');
      return locked ? rows.map((r) => r.relname) : [];
    } catch (err) {
      await client.query('ROLLBACK').catch(broken);
      throw err;
    }
  });
}

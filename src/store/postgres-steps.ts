/**
 * The commit program's steps in PostgreSQL, inside the commit's transaction. A small commit
 * runs a statement per node (the cheapest plan for one or two rows); a bigger one a statement
 * per step of up to PG_BATCH nodes, with the rows as arrays (unnest), so a tree operation costs
 * a round trip per thousand nodes instead of one per node.
 */
import type pg from 'pg';
import type { AppliedNode, CommitStep } from './commit-program.js';
import { GET_AGENT } from './accounts.js';
import { INSERT_IDEMPOTENCY, idempotencyParams } from './idempotency.js';
import type { PgDb } from './postgres-db.js';
import { agentFromRow, nodeFromRow, splitPath, stateColumns } from './rows.js';
import { GET_NODE } from './tree.js';
import type { PlannedChange } from './types.js';

type Row = Record<string, unknown>;

const GRANT_LIVE_PG = `SELECT 1 FROM shares WHERE id = $1 AND owner_id = $2 AND recipient_id = $3 AND kind = 'agent' AND permission = 'write'
    AND ended_at_ms IS NULL AND (expires_at_ms IS NULL OR expires_at_ms > $4)`;
type Query = (c: pg.PoolClient, sql: string, params: unknown[]) => Promise<pg.QueryResult<Row>>;
type ApplyStep = Extract<CommitStep, { op: 'applyNodes' }>;
type BlobsStep = Extract<CommitStep, { op: 'insertBlobs' }>;

/** Changes per applyNodes step of a PostgreSQL commit. */
export const PG_BATCH = 1000;
/** Up to this many changes a step runs a statement per node. */
export const ROW_AT_A_TIME = 8;
/**
 * Run once in the transaction of a commit with more changes. The batch statements look their
 * rows up by primary key (= ANY, LATERAL); by its costs the planner would rather scan every node of
 * the agent once per step (measured with 60,000 nodes: 10–60 ms per 1,000 changes, growing with the
 * tree; 1 ms by index). Every statement of a commit is an index lookup, so this changes nothing else.
 */
export const BIG_COMMIT_SETUP = 'SET LOCAL enable_seqscan = off';

const VERSION_COLUMNS = 'agent_id, path, version, kind, op, deleted, file_id, blob_hash, size, lines, updated_at_ms, changeset_id, key_id, key_label';

const INSERT_ONE = `WITH n AS (
    INSERT INTO nodes (agent_id, path, parent, name, kind, deleted, version, file_id, blob_hash, size, lines,
                       created_at_ms, updated_at_ms, updated_by_key_id, updated_by_label)
    VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8, $9, $10, $11, $11, $12, $13) ON CONFLICT DO NOTHING RETURNING *)
  INSERT INTO versions (${VERSION_COLUMNS})
  SELECT agent_id, path, version, kind, $14, deleted, file_id, blob_hash, size, lines, updated_at_ms, $15, updated_by_key_id, updated_by_label
    FROM n RETURNING version, updated_at_ms`;

// As before this branch, plus `deleted = $15`: whether the row was live (for the file quota) is
// matched, live first (updates, deletes), then a tombstone. A self-join reading the old row cost
// throughput under the edit benchmark (one agent, 50 connections).
const UPDATE_ONE = `WITH n AS (
    UPDATE nodes SET kind = $1, deleted = $2, version = version + 1, file_id = COALESCE($3, file_id), blob_hash = $4,
           size = $5, lines = $6,
           created_at_ms = CASE WHEN deleted AND NOT $2 THEN GREATEST($7, updated_at_ms + 1) ELSE created_at_ms END,
           updated_at_ms = GREATEST($7, updated_at_ms + 1), updated_by_key_id = $8, updated_by_label = $9, purged_at_ms = NULL
     WHERE agent_id = $10 AND path = $11 AND version = $12 AND deleted = $15 RETURNING *)
  INSERT INTO versions (${VERSION_COLUMNS})
  SELECT agent_id, path, version, kind, $13, deleted, file_id, blob_hash, size, lines, updated_at_ms, $14, updated_by_key_id, updated_by_label
    FROM n RETURNING version, updated_at_ms`;

const INSERT_MANY = `WITH i AS (
    SELECT t.path COLLATE "C" AS path, t.parent, t.name, t.kind, t.deleted, t.file_id, t.blob_hash, t.size, t.lines, t.op, t.ord
      FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::text[], $8::text[], $9::bigint[], $10::integer[], $11::text[])
           WITH ORDINALITY AS t(path, parent, name, kind, deleted, file_id, blob_hash, size, lines, op, ord)),
  n AS (
    INSERT INTO nodes (agent_id, path, parent, name, kind, deleted, version, file_id, blob_hash, size, lines,
                       created_at_ms, updated_at_ms, updated_by_key_id, updated_by_label)
    SELECT $1, path, parent, name, kind, deleted, 1, file_id, blob_hash, size, lines, $12, $12, $13, $14 FROM i ORDER BY ord
    ON CONFLICT DO NOTHING RETURNING *),
  v AS (INSERT INTO versions (${VERSION_COLUMNS})
    SELECT n.agent_id, n.path, n.version, n.kind, i.op, n.deleted, n.file_id, n.blob_hash, n.size, n.lines, n.updated_at_ms, $15,
           n.updated_by_key_id, n.updated_by_label
      FROM n JOIN i ON i.path = n.path)
  SELECT path, version, updated_at_ms FROM n`;

// `l` locks the rows in path order (the order of the changes, and every commit takes them in that
// order) and reads them as they were; the update finds them again by ctid (stable while locked).
const UPDATE_MANY = `WITH l AS (
    SELECT o.tid, o.was_deleted, t.kind, t.deleted, t.file_id, t.blob_hash, t.size, t.lines, t.op
      FROM unnest($2::text[], $3::integer[], $4::text[], $5::boolean[], $6::text[], $7::text[], $8::bigint[], $9::integer[], $10::text[])
           WITH ORDINALITY AS t(path, expect, kind, deleted, file_id, blob_hash, size, lines, op, ord)
     CROSS JOIN LATERAL (
       SELECT ctid AS tid, deleted AS was_deleted FROM nodes
        WHERE agent_id = $1 AND path = t.path COLLATE "C" AND version = t.expect FOR UPDATE) o
     ORDER BY t.ord),
  u AS (
    UPDATE nodes n SET kind = l.kind, deleted = l.deleted, version = n.version + 1, file_id = COALESCE(l.file_id, n.file_id),
           blob_hash = l.blob_hash, size = l.size, lines = l.lines,
           created_at_ms = CASE WHEN n.deleted AND NOT l.deleted THEN GREATEST($11, n.updated_at_ms + 1) ELSE n.created_at_ms END,
           updated_at_ms = GREATEST($11, n.updated_at_ms + 1), updated_by_key_id = $12, updated_by_label = $13, purged_at_ms = NULL
      FROM l
     WHERE n.agent_id = $1 AND n.path = ANY($2::text[]) AND n.ctid = l.tid
    RETURNING n.*, l.op, l.was_deleted),
  v AS (INSERT INTO versions (${VERSION_COLUMNS})
    SELECT agent_id, path, version, kind, op, deleted, file_id, blob_hash, size, lines, updated_at_ms, $14, updated_by_key_id, updated_by_label FROM u)
  SELECT path, version, updated_at_ms, was_deleted FROM u`;

/**
 * A blob already stored (an old version written again) becomes a head: stored raw again from the
 * bytes in hand (store/blob-pack.ts keeps heads raw). A second statement only on that rare path:
 * a new content's insert stays the one statement it was.
 */
const RAW_AGAIN = `UPDATE blobs b SET content = t.content, encoding = 'raw', base_hash = NULL, depth = 0, packed = FALSE
    FROM unnest($2::text[], $3::bytea[]) AS t(hash, content) WHERE b.agent_id = $1 AND b.hash = t.hash AND b.encoding <> 'raw'`;

export class PostgresSteps {
  /** `shared` runs the queries the stores share (getNode, getAgent, insertIdempotency). */
  constructor(
    private readonly q: Query,
    private readonly shared: PgDb,
  ) {}

  async exec(c: pg.PoolClient, step: CommitStep): Promise<unknown> {
    switch (step.op) {
      case 'checkGrant': {
        // FOR SHARE: a revoke (UPDATE of the row) committed first is seen here; one that comes later
        // waits for this commit. Either way nothing is saved through a share after it ended.
        const { rows } = await this.q(c, `${GRANT_LIVE_PG} FOR SHARE`, [step.shareId, step.ownerId, step.recipientId, step.nowMs]);
        return rows.length > 0;
      }
      case 'insertBlobs':
        return this.insertBlobs(c, step);
      case 'applyNodes':
        return step.changes.length <= ROW_AT_A_TIME ? this.applyEach(c, step) : this.applyMany(c, step);
      case 'getNode': {
        const { rows } = await this.shared.query(c, GET_NODE, [step.agentId, step.path]);
        return rows[0] ? nodeFromRow(rows[0]) : null;
      }
      case 'insertEntryChunks': {
        await this.q(
          c,
          `INSERT INTO changeset_entry_chunks (agent_id, changeset_id, first_path, entries)
           SELECT $1, $2, t.first_path, t.entries FROM unnest($3::text[], $4::text[]) AS t(first_path, entries)`,
          [step.agentId, step.changesetId, step.chunks.map((k) => k.firstPath), step.chunks.map((k) => k.entries)],
        );
        return undefined;
      }
      case 'recordChangeset': {
        // One round trip: the agent row is locked by the UPDATE until COMMIT, and every
        // statement after it is time this agent's other commits wait.
        const cs = step.changeset;
        const { rows } = await this.q(
          c,
          `WITH a AS (UPDATE agents SET last_seq = last_seq + 1, storage_bytes = storage_bytes + $1, node_count = node_count + $10
                       WHERE id = $2 AND ($1 = 0 OR storage_bytes + $1 <= $3) AND ($10 <= 0 OR $11 = 0 OR node_count + $10 <= $11)
                       RETURNING last_seq),
                s AS (INSERT INTO search_outbox (type, owner_id, ref) SELECT 'file', $2, p FROM a, unnest($14::text[]) AS p),
                q AS (INSERT INTO pack_queue (agent_id, path) SELECT $2, p FROM a, unnest($15::text[]) AS p)
           INSERT INTO changesets (agent_id, seq, id, created_at_ms, key_id, key_label, tool, entries, entry_count, root)
           SELECT $2, last_seq, $4, $5, $6, $7, $8, $9, $12, $13 FROM a RETURNING seq`,
          [
            step.addBytes,
            step.agentId,
            step.quotaBytes,
            cs.id,
            cs.createdAtMs,
            cs.keyId,
            cs.keyLabel,
            cs.tool,
            JSON.stringify(cs.entries),
            step.addNodes,
            step.fileQuota,
            cs.entryCount,
            cs.root,
            step.searchPaths,
            step.packPaths,
          ],
        );
        return rows[0] ? Number(rows[0].seq) : null;
      }
      case 'getAgent': {
        const { rows } = await this.shared.query(c, GET_AGENT, [step.agentId]);
        return rows[0] ? agentFromRow(rows[0]) : null;
      }
      case 'insertIdempotency':
        return (await this.shared.query(c, INSERT_IDEMPOTENCY, idempotencyParams(step))).rowCount === 1;
      case 'pause':
        return undefined;
    }
  }

  /** Per blob, whether it was new for this agent; one already stored is made raw again (RAW_AGAIN). */
  private async insertBlobs(c: pg.PoolClient, step: BlobsStep): Promise<boolean[]> {
    if (step.blobs.length === 1) {
      const b = step.blobs[0]!;
      const r = await this.q(c, 'INSERT INTO blobs (agent_id, hash, size, content, encoding) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING', [
        step.agentId,
        b.hash,
        b.size,
        b.bytes,
        b.external ? 'external' : 'raw',
      ]);
      if (r.rowCount !== 1 && !b.external) await this.q(c, RAW_AGAIN, [step.agentId, [b.hash], [b.bytes]]);
      return [r.rowCount === 1];
    }
    const { rows } = await this.q(
      c,
      `INSERT INTO blobs (agent_id, hash, size, content, encoding)
           SELECT $1, t.hash, t.size, t.content, t.encoding
             FROM unnest($2::text[], $3::bigint[], $4::bytea[], $5::text[]) WITH ORDINALITY AS t(hash, size, content, encoding, ord)
            ORDER BY t.ord ON CONFLICT DO NOTHING RETURNING hash`,
      [
        step.agentId,
        step.blobs.map((b) => b.hash),
        step.blobs.map((b) => b.size),
        step.blobs.map((b) => b.bytes),
        step.blobs.map((b) => (b.external ? 'external' : 'raw')),
      ],
    );
    const inserted = new Set(rows.map((r) => String(r.hash)));
    // An external content carries no bytes here: its row stays as it is (store/blob-objects.ts).
    const old = step.blobs.filter((b) => !inserted.has(b.hash) && !b.external);
    if (old.length) await this.q(c, RAW_AGAIN, [step.agentId, old.map((b) => b.hash), old.map((b) => b.bytes)]);
    return step.blobs.map((b) => inserted.has(b.hash));
  }

  private async applyEach(c: pg.PoolClient, step: ApplyStep): Promise<Array<AppliedNode | null>> {
    const out: Array<AppliedNode | null> = [];
    for (const change of step.changes) {
      const s = stateColumns(change.state);
      let r: Row | undefined;
      let wasLive = false;
      if (change.expectVersion === 0) {
        const { parent, name } = splitPath(change.path);
        ({
          rows: [r],
        } = await this.q(c, INSERT_ONE, [
          step.agentId,
          change.path,
          parent,
          name,
          s.kind,
          s.deleted,
          s.fileId ?? '',
          s.blobHash,
          s.size,
          s.lines,
          step.nowMs,
          step.keyId,
          step.keyLabel,
          change.op,
          step.changesetId,
        ]));
      } else {
        for (const wasDeleted of [false, true]) {
          ({
            rows: [r],
          } = await this.q(c, UPDATE_ONE, [
            s.kind,
            s.deleted,
            s.fileId,
            s.blobHash,
            s.size,
            s.lines,
            step.nowMs,
            step.keyId,
            step.keyLabel,
            step.agentId,
            change.path,
            change.expectVersion,
            change.op,
            step.changesetId,
            wasDeleted,
          ]));
          wasLive = !wasDeleted;
          if (r) break;
        }
      }
      if (!r) {
        out.push(null);
        break;
      }
      out.push({ version: Number(r.version), updatedAtMs: Number(r.updated_at_ms), wasLive });
    }
    return out;
  }

  private async applyMany(c: pg.PoolClient, step: ApplyStep): Promise<Array<AppliedNode | null>> {
    const done = new Map<string, AppliedNode>();
    const updates = step.changes.filter((ch) => ch.expectVersion !== 0);
    const inserts = step.changes.filter((ch) => ch.expectVersion === 0);
    if (updates.length) {
      const cols = updates.map((ch) => stateColumns(ch.state));
      const { rows } = await this.q(c, UPDATE_MANY, [
        step.agentId,
        updates.map((ch) => ch.path),
        updates.map((ch) => ch.expectVersion),
        ...stateArrays(cols),
        updates.map((ch) => ch.op),
        step.nowMs,
        step.keyId,
        step.keyLabel,
        step.changesetId,
      ]);
      for (const r of rows)
        done.set(String(r.path), { version: Number(r.version), updatedAtMs: Number(r.updated_at_ms), wasLive: r.was_deleted === false });
      if (rows.length < updates.length) return mapResults(step.changes, done); // a conflict: no need to go on
    }
    if (inserts.length) {
      // A new row always has a file id column ('' where the state has none).
      const cols = inserts.map((ch) => {
        const state = stateColumns(ch.state);
        return { ...state, fileId: state.fileId ?? '', ...splitPath(ch.path) };
      });
      const { rows } = await this.q(c, INSERT_MANY, [
        step.agentId,
        inserts.map((ch) => ch.path),
        cols.map((s) => s.parent),
        cols.map((s) => s.name),
        ...stateArrays(cols),
        inserts.map((ch) => ch.op),
        step.nowMs,
        step.keyId,
        step.keyLabel,
        step.changesetId,
      ]);
      for (const r of rows) done.set(String(r.path), { version: Number(r.version), updatedAtMs: Number(r.updated_at_ms), wasLive: false });
    }
    return mapResults(step.changes, done);
  }
}

/** The state columns of batched rows as one array per column, in the order UPDATE_MANY and INSERT_MANY take them. */
function stateArrays(cols: Array<ReturnType<typeof stateColumns>>): unknown[][] {
  return [
    cols.map((s) => s.kind),
    cols.map((s) => s.deleted),
    cols.map((s) => s.fileId),
    cols.map((s) => s.blobHash),
    cols.map((s) => s.size),
    cols.map((s) => s.lines),
  ];
}

function mapResults(changes: PlannedChange[], done: Map<string, AppliedNode>): Array<AppliedNode | null> {
  return changes.map((ch) => done.get(ch.path) ?? null);
}

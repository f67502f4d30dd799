/**
 * The commit program's steps in SQLite, for one connection (the serving connection's group
 * commit, or the connection big commits run on). Prepared statements only, cached per connection.
 */
import type Database from 'better-sqlite3';
import type { AppliedNode, CommitStep } from './commit-program.js';
import { GET_AGENT } from './accounts.js';
import { INSERT_IDEMPOTENCY, idempotencyParams } from './idempotency.js';
import { agentFromRow, nodeFromRow, splitPath, stateColumns } from './rows.js';
import { SqliteDb } from './sqlite-db.js';
import { ENQUEUE_FILE } from './search-index.js';
import { ENQUEUE_PACK, REMATERIALIZE_SQL } from './blob-pack.js';
import { GET_NODE } from './tree.js';
import type { PlannedChange } from './types.js';

type Row = Record<string, unknown>;

/** A write share still live (not ended, not expired) from the owner to the recipient. */
const GRANT_LIVE = `SELECT 1 FROM shares WHERE id = ? AND owner_id = ? AND recipient_id = ? AND kind = 'agent' AND permission = 'write'
    AND ended_at_ms IS NULL AND (expires_at_ms IS NULL OR expires_at_ms > ?)`;
type ApplyStep = Extract<CommitStep, { op: 'applyNodes' }>;

export class SqliteSteps {
  private readonly stmts = new Map<string, Database.Statement>();
  /** The queries the stores share (getNode, getAgent, insertIdempotency). */
  private readonly shared: SqliteDb;

  constructor(private readonly db: Database.Database) {
    this.shared = new SqliteDb(db);
  }

  stmt(sql: string): Database.Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  exec(step: CommitStep): unknown {
    switch (step.op) {
      case 'checkGrant':
        // Inside the commit's IMMEDIATE transaction: no revoke can land between this and COMMIT.
        return this.stmt(GRANT_LIVE).get(step.shareId, step.ownerId, step.recipientId, step.nowMs) !== undefined;
      case 'insertBlobs': {
        const s = this.stmt('INSERT INTO blobs (agent_id, hash, size, content, encoding) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING');
        return step.blobs.map((b) => {
          if (s.run(step.agentId, b.hash, b.size, b.bytes!, b.external ? 'external' : 'raw').changes === 1) return true;
          // Content stored before (an old version written again): it becomes a head, so raw again
          // (an external one carries no bytes here, and its row stays as it is: blob-objects.ts).
          if (!b.external) this.stmt(REMATERIALIZE_SQL).run(b.bytes!, step.agentId, b.hash);
          return false;
        });
      }
      case 'applyNodes': {
        const out: Array<AppliedNode | null> = [];
        for (const change of step.changes) {
          const r = this.applyNode(step, change);
          out.push(r);
          if (!r) break; // a conflict: the program stops here
        }
        return out;
      }
      case 'getNode': {
        const r = this.shared.get(GET_NODE, [step.agentId, step.path]);
        return r ? nodeFromRow(r) : null;
      }
      case 'insertEntryChunks': {
        const s = this.stmt('INSERT INTO changeset_entry_chunks (agent_id, changeset_id, first_path, entries) VALUES (?, ?, ?, ?)');
        for (const c of step.chunks) s.run(step.agentId, step.changesetId, c.firstPath, c.entries);
        return undefined;
      }
      case 'recordChangeset': {
        // Not RETURNING (here and in applyNode): the statement plus a primary-key read of what it
        // wrote costs less (a node update and the agent's, in a loop: 13.2 → 10.7 µs; beside FTS5
        // inserts RETURNING cost 38 µs against 5, store/search-index.ts).
        const changed = this.stmt(
          `UPDATE agents SET last_seq = last_seq + 1, storage_bytes = storage_bytes + ?, node_count = node_count + ?
            WHERE id = ? AND (? = 0 OR storage_bytes + ? <= ?) AND (? <= 0 OR ? = 0 OR node_count + ? <= ?)`,
        ).run(
          step.addBytes,
          step.addNodes,
          step.agentId,
          step.addBytes,
          step.addBytes,
          step.quotaBytes,
          step.addNodes,
          step.fileQuota,
          step.addNodes,
          step.fileQuota,
        ).changes;
        if (changed === 0) return null;
        const r = this.stmt('SELECT last_seq FROM agents WHERE id = ?').get(step.agentId) as Row;
        const seq = Number(r.last_seq);
        const cs = step.changeset;
        this.stmt(
          `INSERT INTO changesets (agent_id, seq, id, created_at_ms, key_id, key_label, tool, entries, entry_count, root)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(step.agentId, seq, cs.id, cs.createdAtMs, cs.keyId, cs.keyLabel, cs.tool, JSON.stringify(cs.entries), cs.entryCount, cs.root);
        for (const path of step.searchPaths) this.shared.run(ENQUEUE_FILE, [step.agentId, path]);
        for (const path of step.packPaths) this.shared.run(ENQUEUE_PACK, [step.agentId, path]);
        return seq;
      }
      case 'getAgent': {
        const r = this.shared.get(GET_AGENT, [step.agentId]);
        return r ? agentFromRow(r) : null;
      }
      case 'insertIdempotency':
        return this.shared.run(INSERT_IDEMPOTENCY, idempotencyParams(step)) === 1;
      case 'pause':
        return undefined;
    }
  }

  private applyNode(step: ApplyStep, change: PlannedChange): AppliedNode | null {
    const { agentId } = step;
    const c = stateColumns(change.state);
    let written = 0;
    let wasLive = false;
    if (change.expectVersion === 0) {
      const { parent, name } = splitPath(change.path);
      written = this.stmt(
        `INSERT INTO nodes (agent_id, path, parent, name, kind, deleted, version, file_id, blob_hash, size, lines,
                            created_at_ms, updated_at_ms, updated_by_key_id, updated_by_label)
         VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      ).run(
        agentId,
        change.path,
        parent,
        name,
        c.kind,
        c.deleted ? 1 : 0,
        c.fileId ?? '',
        c.blobHash,
        c.size,
        c.lines,
        step.nowMs,
        step.nowMs,
        step.keyId,
        step.keyLabel,
      ).changes;
    } else {
      // Whether the node was live (for the file quota) is matched: live first, the common case
      // (updates, deletes), then a tombstone.
      const update = this.stmt(
        `UPDATE nodes SET kind = ?, deleted = ?, version = version + 1, file_id = COALESCE(?, file_id), blob_hash = ?,
                size = ?, lines = ?,
                created_at_ms = CASE WHEN deleted = 1 AND ? = 0 THEN max(?, updated_at_ms + 1) ELSE created_at_ms END,
                updated_at_ms = max(?, updated_at_ms + 1), updated_by_key_id = ?, updated_by_label = ?, purged_at_ms = NULL
          WHERE agent_id = ? AND path = ? AND version = ? AND deleted = ?`,
      );
      for (let deleted = 0; deleted <= 1 && !written; deleted++) {
        written = update.run(
          c.kind,
          c.deleted ? 1 : 0,
          c.fileId,
          c.blobHash,
          c.size,
          c.lines,
          c.deleted ? 1 : 0,
          step.nowMs,
          step.nowMs,
          step.keyId,
          step.keyLabel,
          agentId,
          change.path,
          change.expectVersion,
          deleted,
        ).changes;
        wasLive = deleted === 0;
      }
    }
    if (!written) return null;
    // The row as written: what this step set, and the three columns the statement computed.
    const r = this.stmt('SELECT version, updated_at_ms, file_id FROM nodes WHERE agent_id = ? AND path = ?').get(agentId, change.path) as Row;
    this.stmt(
      `INSERT INTO versions (agent_id, path, version, kind, op, deleted, file_id, blob_hash, size, lines, updated_at_ms,
                             changeset_id, key_id, key_label)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      agentId,
      change.path,
      r.version,
      c.kind,
      change.op,
      c.deleted ? 1 : 0,
      r.file_id,
      c.blobHash,
      c.size,
      c.lines,
      r.updated_at_ms,
      step.changesetId,
      step.keyId,
      step.keyLabel,
    );
    return { version: Number(r.version), updatedAtMs: Number(r.updated_at_ms), wasLive };
  }
}

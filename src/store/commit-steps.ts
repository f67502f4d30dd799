/**
 * What each step of the commit program (commit-program.ts) runs, as `sql` programs written once
 * for both backends: on SQLite's serving connection (its group commit) or its bulk writer thread's
 * connection (sqlite-steps.ts), or in a PostgreSQL commit's transaction. PostgreSQL writes nodes
 * and records the changeset with statements of its own (postgres-steps.ts: one round trip per
 * node, or per thousand), generated from the same column declarations (tables.ts).
 */
import type { AppliedNode, CommitStep, StepResults } from './commit-program.js';
import { GET_AGENT } from './accounts.js';
import { ENQUEUE_PACK, REMATERIALIZE } from './blob-pack.js';
import { INSERT_IDEMPOTENCY, idempotencyParams } from './idempotency.js';
import { applyNodesPg, recordChangesetPg } from './postgres-steps.js';
import { agentFromRow, nodeFromRow, num, splitPath, stateColumns } from './rows.js';
import { ENQUEUE_FILE } from './search-index.js';
import { dialect, get, namedQuery, run, sql, type Dialect, type Program } from './sql.js';
import {
  BLOB_ROWS,
  CHANGESET_ROWS,
  CHARGE_AGENT,
  CHUNK_ROWS,
  NODES,
  VERSION_ROWS,
  insertAll,
  insertEach,
  insertRow,
  updateNode,
  changesetRow,
  type NodeRow,
  type NodeUpdate,
} from './tables.js';
import { GET_NODE } from './tree.js';
import type { PlannedChange } from './types.js';

type Step<K extends CommitStep['op']> = Extract<CommitStep, { op: K }>;

/**
 * A write share still live (not ended, not expired) from the owner to the recipient. Run inside
 * the commit's transaction: on SQLite (IMMEDIATE) no revoke can land between this and COMMIT; on
 * PostgreSQL FOR SHARE sees a revoke committed first and makes a later one wait for this commit.
 */
const GRANT_LIVE = sql`
  SELECT 1 FROM shares WHERE id = ? AND owner_id = ? AND recipient_id = ? AND kind = 'agent' AND permission = 'write'
     AND ended_at_ms IS NULL AND (expires_at_ms IS NULL OR expires_at_ms > ?)${dialect({ sqlite: '', postgres: ' FOR SHARE' })}`;

/** PostgreSQL, several blobs already stored: REMATERIALIZE for them all in one statement. */
const RAW_AGAIN = sql`
  UPDATE blobs b SET content = t.content, encoding = 'raw', base_hash = NULL, depth = 0, packed = FALSE
    FROM unnest(?::text[], ?::bytea[]) AS t(hash, content) WHERE b.agent_id = ? AND b.hash = t.hash AND b.encoding <> 'raw'`;

const INSERT_NODE = insertRow(NODES, 'ON CONFLICT DO NOTHING');
/** Matches whether the row was live (for the file quota): live first, the common case (updates, deletes), then a tombstone. */
const UPDATE_NODE = namedQuery<NodeUpdate>(updateNode('max'));
// Not RETURNING (here and in recordChangeset): the statement plus a primary-key read of what it
// wrote costs less (a node update and the agent's, in a loop: 13.2 → 10.7 µs; beside FTS5 inserts
// RETURNING cost 38 µs against 5, store/search-index.ts).
const WRITTEN_NODE = sql`SELECT version, updated_at_ms, file_id FROM nodes WHERE agent_id = ? AND path = ?`;

const CHARGE = namedQuery<{ agentId: string; addBytes: number; quotaBytes: number; addNodes: number; fileQuota: number }>(CHARGE_AGENT);
const LAST_SEQ = sql`SELECT last_seq FROM agents WHERE id = ?`;

type StepPrograms = { [K in CommitStep['op']]: (s: Step<K>, d: Dialect) => Program<StepResults[K]> };

const PROGRAMS: StepPrograms = {
  checkGrant,
  insertBlobs,
  applyNodes: (s, d) => (d === 'postgres' ? applyNodesPg(s) : applyNodes(s)),
  getNode,
  insertEntryChunks,
  recordChangeset: (s, d) => (d === 'postgres' ? recordChangesetPg(s) : recordChangeset(s)),
  getAgent,
  insertIdempotency,
  pause: nothing,
};

/** The program a step runs, in dialect `d`. */
export function stepProgram<S extends CommitStep>(step: S, d: Dialect): Program<StepResults[S['op']]> {
  // The compiler does not correlate step.op with the entry it picks; the table's type does.
  const program = PROGRAMS[step.op] as (s: S, d: Dialect) => Program<StepResults[S['op']]>;
  return program(step, d);
}

// eslint-disable-next-line require-yield -- a step with no statement
function* nothing(): Program<undefined> {
  return undefined;
}

function* checkGrant(s: Step<'checkGrant'>): Program<boolean> {
  return (yield* get(GRANT_LIVE, [s.shareId, s.ownerId, s.recipientId, s.nowMs])) !== undefined;
}

/**
 * Per blob, whether it was new for this agent. One already stored (an old version written again)
 * becomes a head: raw again (blob-pack.ts), unless it is in object storage, whose row carries no
 * bytes and stays as it is (blob-objects.ts).
 */
function* insertBlobs(s: Step<'insertBlobs'>, d: Dialect): Program<boolean[]> {
  const rows = s.blobs.map((b) => ({ agentId: s.agentId, hash: b.hash, size: b.size, content: b.bytes!, encoding: b.external ? 'external' : 'raw' }));
  const inserted = yield* insertEach(d, BLOB_ROWS, rows);
  const old = s.blobs.filter((b, i) => !inserted[i] && !b.external);
  if (d === 'postgres' && old.length > 1) {
    yield* run(RAW_AGAIN, [old.map((b) => b.hash), old.map((b) => b.bytes), s.agentId]);
  } else {
    for (const b of old) yield* run(REMATERIALIZE, [b.bytes, s.agentId, b.hash]);
  }
  return inserted;
}

function* getNode(s: Step<'getNode'>): Program<StepResults['getNode']> {
  const r = yield* get(GET_NODE, [s.agentId, s.path]);
  return r ? nodeFromRow(r) : null;
}

function* getAgent(s: Step<'getAgent'>): Program<StepResults['getAgent']> {
  const r = yield* get(GET_AGENT, [s.agentId]);
  return r ? agentFromRow(r) : null;
}

function* insertEntryChunks(s: Step<'insertEntryChunks'>, d: Dialect): Program<undefined> {
  const { agentId, changesetId } = s;
  yield* insertAll(
    d,
    CHUNK_ROWS,
    s.chunks.map((c) => ({ agentId, changesetId, firstPath: c.firstPath, entries: c.entries })),
  );
  return undefined;
}

function* insertIdempotency(s: Step<'insertIdempotency'>): Program<boolean> {
  return (yield* run(INSERT_IDEMPOTENCY, idempotencyParams(s))) === 1;
}

/** SQLite: the changes one at a time, stopping at the first conflict (the program stops there). */
function* applyNodes(s: Step<'applyNodes'>): Program<Array<AppliedNode | null>> {
  const out: Array<AppliedNode | null> = [];
  for (const change of s.changes) {
    const r = yield* applyNode(s, change);
    out.push(r);
    if (!r) break;
  }
  return out;
}

function* applyNode(s: Step<'applyNodes'>, change: PlannedChange): Program<AppliedNode | null> {
  const { agentId, nowMs, keyId, keyLabel } = s;
  const c = stateColumns(change.state);
  const { path } = change;
  let written = 0;
  let wasLive = false;
  if (change.expectVersion === 0) {
    const row: NodeRow = {
      agentId,
      path,
      ...splitPath(path),
      ...c,
      fileId: c.fileId ?? '',
      version: 1,
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
      updatedByKeyId: keyId,
      updatedByLabel: keyLabel,
      purgedAtMs: null,
    };
    written = yield* run(INSERT_NODE.q, INSERT_NODE.params(row, 'sqlite'));
  } else {
    for (let wasDeleted = 0; wasDeleted <= 1 && !written; wasDeleted++) {
      const p = { agentId, path, ...c, nowMs, keyId, keyLabel, expectVersion: change.expectVersion, wasDeleted: wasDeleted === 1 };
      written = yield* run(UPDATE_NODE.q, UPDATE_NODE.params(p, 'sqlite'));
      wasLive = wasDeleted === 0;
    }
  }
  if (!written) return null;
  // The row as written: what this step set, and the three columns the statement computed.
  const r = (yield* get(WRITTEN_NODE, [agentId, path]))!;
  const version = num(r[0]);
  const updatedAtMs = num(r[1]);
  const v = { agentId, path, version, ...c, op: change.op, fileId: String(r[2]), updatedAtMs, changesetId: s.changesetId, keyId, keyLabel };
  yield* run(VERSION_ROWS.row.q, VERSION_ROWS.row.params(v, 'sqlite'));
  return { version, updatedAtMs, wasLive };
}

/** SQLite: charge the agent, read the seq it took, store the changeset and queue its files (search, packer). */
function* recordChangeset(s: Step<'recordChangeset'>): Program<number | null> {
  if ((yield* run(CHARGE.q, CHARGE.params(s, 'sqlite'))) === 0) return null;
  const seq = num((yield* get(LAST_SEQ, [s.agentId]))![0]);
  yield* run(CHANGESET_ROWS.row.q, CHANGESET_ROWS.row.params(changesetRow(s.agentId, seq, s.changeset), 'sqlite'));
  for (const path of s.searchPaths) yield* run(ENQUEUE_FILE, [s.agentId, path]);
  for (const path of s.packPaths) yield* run(ENQUEUE_PACK, [s.agentId, path]);
  return seq;
}

/**
 * PostgreSQL's own statements for the two commit steps where round trips are the cost (the rest
 * are commit-steps.ts's, shared with SQLite): writing nodes and recording the changeset. A small
 * commit runs one statement per node (node and version in one round trip: the cheapest plan for
 * one or two rows); a bigger one a statement per step of up to PG_BATCH nodes, with the rows as
 * arrays (unnest), so a tree operation costs a round trip per thousand nodes instead of one per
 * node. Every column list comes from tables.ts.
 */
import type { AppliedNode, CommitStep } from './commit-program.js';
import { num, splitPath, stateColumns, type NodeState } from './rows.js';
import { all, get, namedQuery, type Program, type Row } from './sql.js';
import {
  CHANGESETS,
  CHARGE_AGENT,
  NODES,
  VERSIONS,
  arrayParams,
  camel,
  changesetRow,
  columnsOf,
  insertText,
  list,
  setNodeState,
  updateNode,
  versionOfNode,
  type NodeRow,
  type NodeUpdate,
} from './tables.js';
import type { PlannedChange } from './types.js';

type ApplyStep = Extract<CommitStep, { op: 'applyNodes' }>;
type RecordStep = Extract<CommitStep, { op: 'recordChangeset' }>;

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

const VERSION_LIST = list(columnsOf(VERSIONS));

type Versioned = { op: string; changesetId: string };

/** A node write (INSERT or UPDATE of one row) and its version row, in one round trip. */
const andVersion = (write: string): string => `WITH n AS (${write} RETURNING *)
  INSERT INTO versions (${VERSION_LIST}) SELECT ${versionOfNode('', ':op', ':changesetId')} FROM n RETURNING version, updated_at_ms`;

const INSERT_ONE = namedQuery<NodeRow & Versioned>(andVersion(`${insertText(NODES)} ON CONFLICT DO NOTHING`));
// A self-join reading the old row cost throughput under the edit benchmark (one agent, 50
// connections): whether it was live is matched instead (`:wasDeleted`), live first.
const UPDATE_ONE = namedQuery<NodeUpdate & Versioned>(andVersion(updateNode('GREATEST')));

/** The node columns batched rows carry (the others are the step's), then each row's op. */
const BATCH_COLUMNS = ['kind', 'deleted', 'file_id', 'blob_hash', 'size', 'lines'] as const;
const NEW_COLUMNS = ['path', 'parent', 'name', ...BATCH_COLUMNS] as const;
/** A new node's columns that are the step's, not the row's. */
const NEW_FROM_STEP: Record<string, string> = {
  agent_id: ':agentId',
  version: '1',
  created_at_ms: ':nowMs',
  updated_at_ms: ':nowMs',
  updated_by_key_id: ':keyId',
  updated_by_label: ':keyLabel',
  purged_at_ms: 'NULL',
};

const INSERT_MANY = namedQuery<Record<string, unknown>>(`WITH i AS (
    SELECT t.path COLLATE "C" AS path, ${list(NEW_COLUMNS.slice(1), 't')}, t.op, t.ord
      FROM unnest(${arrayParams(NODES, NEW_COLUMNS)}, :op::text[]) WITH ORDINALITY AS t(${list(NEW_COLUMNS)}, op, ord)),
  n AS (
    INSERT INTO nodes (${list(columnsOf(NODES))})
    SELECT ${list(columnsOf(NODES).map((c) => NEW_FROM_STEP[c] ?? c))} FROM i ORDER BY ord
    ON CONFLICT DO NOTHING RETURNING *),
  v AS (INSERT INTO versions (${VERSION_LIST}) SELECT ${versionOfNode('n.', 'i.op', ':changesetId')} FROM n JOIN i ON i.path = n.path)
  SELECT path, version, updated_at_ms FROM n`);

// `l` locks the rows in path order (the order of the changes, and every commit takes them in that
// order) and reads them as they were; the update finds them again by ctid (stable while locked).
const UPDATE_MANY = namedQuery<Record<string, unknown>>(`WITH l AS (
    SELECT o.tid, o.was_deleted, ${list(BATCH_COLUMNS, 't')}, t.op
      FROM unnest(:path::text[], :expect::integer[], ${arrayParams(NODES, BATCH_COLUMNS)}, :op::text[])
           WITH ORDINALITY AS t(path, expect, ${list(BATCH_COLUMNS)}, op, ord)
     CROSS JOIN LATERAL (
       SELECT ctid AS tid, deleted AS was_deleted FROM nodes
        WHERE agent_id = :agentId AND path = t.path COLLATE "C" AND version = t.expect FOR UPDATE) o
     ORDER BY t.ord),
  u AS (
    UPDATE nodes n SET ${setNodeState((c) => `l.${c}`, 'n.', 'GREATEST')}
      FROM l
     WHERE n.agent_id = :agentId AND n.path = ANY(:path::text[]) AND n.ctid = l.tid
    RETURNING n.*, l.op, l.was_deleted),
  v AS (INSERT INTO versions (${VERSION_LIST}) SELECT ${versionOfNode('', 'op', ':changesetId')} FROM u)
  SELECT path, version, updated_at_ms, was_deleted FROM u`);

/**
 * One round trip: the agent row is locked by the UPDATE until COMMIT, and every statement after
 * it is time this agent's other commits wait. The files to queue (search outbox, packer) go in it.
 */
const RECORD = namedQuery<Record<string, unknown>>(`WITH a AS (${CHARGE_AGENT} RETURNING last_seq),
  s AS (INSERT INTO search_outbox (type, owner_id, ref) SELECT 'file', :agentId, p FROM a, unnest(:searchPaths::text[]) AS p),
  q AS (INSERT INTO pack_queue (agent_id, path) SELECT :agentId, p FROM a, unnest(:packPaths::text[]) AS p)
  INSERT INTO changesets (${list(columnsOf(CHANGESETS))})
  SELECT ${list(columnsOf(CHANGESETS).map((c) => (c === 'seq' ? 'last_seq' : `:${camel(c)}`)))} FROM a RETURNING seq`);

export function* recordChangesetPg(s: RecordStep): Program<number | null> {
  const p = { ...s, ...changesetRow(s.agentId, 0, s.changeset) };
  const r = yield* get(RECORD.q, RECORD.params(p, 'postgres'));
  return r ? num(r[0]) : null;
}

export function applyNodesPg(s: ApplyStep): Program<Array<AppliedNode | null>> {
  return s.changes.length <= ROW_AT_A_TIME ? applyEach(s) : applyMany(s);
}

function* applyEach(s: ApplyStep): Program<Array<AppliedNode | null>> {
  const { agentId, nowMs, keyId, keyLabel, changesetId } = s;
  const out: Array<AppliedNode | null> = [];
  for (const change of s.changes) {
    const c = stateColumns(change.state);
    const { path, op } = change;
    let r: Row | undefined;
    let wasLive = false;
    if (change.expectVersion === 0) {
      const row = { agentId, path, ...splitPath(path), ...c, fileId: c.fileId ?? '', version: 1, op, changesetId };
      const times = { createdAtMs: nowMs, updatedAtMs: nowMs, updatedByKeyId: keyId, updatedByLabel: keyLabel, purgedAtMs: null };
      r = yield* get(INSERT_ONE.q, INSERT_ONE.params({ ...row, ...times }, 'postgres'));
    } else {
      for (const wasDeleted of [false, true]) {
        const p = { agentId, path, ...c, nowMs, keyId, keyLabel, expectVersion: change.expectVersion, wasDeleted, op, changesetId };
        r = yield* get(UPDATE_ONE.q, UPDATE_ONE.params(p, 'postgres'));
        wasLive = !wasDeleted;
        if (r) break;
      }
    }
    if (!r) {
      out.push(null);
      break;
    }
    out.push({ version: num(r[0]), updatedAtMs: num(r[1]), wasLive });
  }
  return out;
}

/** The state columns of batched rows as one array per column (camelCase, as arrayParams binds them). */
function stateArrays(cols: NodeState[]): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const c of BATCH_COLUMNS) out[camel(c)] = cols.map((s) => s[camel(c) as keyof NodeState]);
  return out;
}

function* applyMany(s: ApplyStep): Program<Array<AppliedNode | null>> {
  const { agentId, nowMs, keyId, keyLabel, changesetId } = s;
  const done = new Map<string, AppliedNode>();
  const updates = s.changes.filter((ch) => ch.expectVersion !== 0);
  const inserts = s.changes.filter((ch) => ch.expectVersion === 0);
  const common = { agentId, nowMs, keyId, keyLabel, changesetId };
  if (updates.length) {
    const p = {
      ...common,
      ...stateArrays(updates.map((ch) => stateColumns(ch.state))),
      path: updates.map((ch) => ch.path),
      expect: updates.map((ch) => ch.expectVersion),
      op: updates.map((ch) => ch.op),
    };
    const rows = yield* all(UPDATE_MANY.q, UPDATE_MANY.params(p, 'postgres'));
    for (const r of rows) done.set(String(r[0]), { version: num(r[1]), updatedAtMs: num(r[2]), wasLive: r[3] === false });
    if (rows.length < updates.length) return mapResults(s.changes, done); // a conflict: no need to go on
  }
  if (inserts.length) {
    // A new row always has a file id column ('' where the state has none).
    const cols = inserts.map((ch) => {
      const state = stateColumns(ch.state);
      return { ...state, fileId: state.fileId ?? '' };
    });
    const split = inserts.map((ch) => splitPath(ch.path));
    const p = {
      ...common,
      ...stateArrays(cols),
      path: inserts.map((ch) => ch.path),
      parent: split.map((x) => x.parent),
      name: split.map((x) => x.name),
      op: inserts.map((ch) => ch.op),
    };
    for (const r of yield* all(INSERT_MANY.q, INSERT_MANY.params(p, 'postgres')))
      done.set(String(r[0]), { version: num(r[1]), updatedAtMs: num(r[2]), wasLive: false });
  }
  return mapResults(s.changes, done);
}

function mapResults(changes: PlannedChange[], done: Map<string, AppliedNode>): Array<AppliedNode | null> {
  return changes.map((ch) => done.get(ch.path) ?? null);
}

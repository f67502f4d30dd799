/**
 * The write path's tables, each column declared once (name and type), and the statements that
 * write them generated from that for both dialects: commits (store/commit-steps.ts), PostgreSQL's
 * batched commit statements (store/postgres-steps.ts) and import (store/transfer.ts) insert rows
 * through these, bound by name from one object per row (`RowOf`: the columns in camelCase).
 * The schema itself stays in migrations.ts; a column added there is added here when it is written.
 */
import type { NodeState } from './rows.js';
import { namedQuery, run, all, type Dialect, type Named, type Program } from './sql.js';
import type { ChangesetRecord } from './types.js';

type ColumnType = 'text' | 'integer' | 'bigint' | 'boolean' | 'bytea';
/** A type, `?` when the column takes NULL. */
type Spec = ColumnType | `${ColumnType}?`;
type Columns = Record<string, Spec>;

type JsOf<T> = T extends 'text' ? string : T extends 'boolean' ? boolean : T extends 'bytea' ? Buffer : number;
type ValueOf<S> = S extends `${infer T}?` ? JsOf<T> | null : JsOf<S>;
type Camel<S extends string> = S extends `${infer A}_${infer B}` ? `${A}${Capitalize<Camel<B>>}` : S;
type Trim<S extends string> = S extends ` ${infer R}` | `\n${infer R}` ? Trim<R> : S;
/** `'a text, b bigint?'` → `{ a: 'text'; b: 'bigint?' }`, as the compiler reads the declaration. */
type Parse<S extends string> = S extends `${infer Head},${infer Rest}`
  ? Parse<Head> & Parse<Rest>
  : Trim<S> extends `${infer Name} ${infer T extends Spec}`
    ? { [k in Name]: T }
    : never;
type Flat<T> = { [k in keyof T]: T[k] };

export interface Table<C extends Columns> {
  readonly name: string;
  readonly columns: C;
}

/** A row of `cols`, keyed by the columns' camelCase names (agent_id → agentId). */
export type RowOf<C extends Columns, K extends keyof C & string = keyof C & string> = { [k in K as Camel<k>]: ValueOf<C[k]> };

/** A table from its columns as `name type` pairs in the order rows.ts reads them (the schema's types, by their PostgreSQL names). */
function table<S extends string>(name: string, declared: S): Table<Flat<Parse<S>>> {
  const columns: Record<string, string> = {};
  for (const c of declared.split(',')) {
    const [column, type] = c.trim().split(' ');
    columns[column!] = type!;
  }
  return { name, columns: columns as Flat<Parse<S>> };
}

export const camel = (column: string): string => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

export const NODES = table(
  'nodes',
  `agent_id text, path text, parent text, name text, kind text, deleted boolean, version integer, file_id text, blob_hash text?,
   size bigint, lines integer?, created_at_ms bigint, updated_at_ms bigint, updated_by_key_id text?, updated_by_label text?, purged_at_ms bigint?`,
);

export const VERSIONS = table(
  'versions',
  `agent_id text, path text, version integer, kind text, op text, deleted boolean, file_id text, blob_hash text?, size bigint,
   lines integer?, updated_at_ms bigint, changeset_id text, key_id text?, key_label text?`,
);

/**
 * The columns a write sets: encoding is 'raw', or 'external' for a content in object storage (no
 * bytes in the row: blob-objects.ts); how the packer re-encodes a row (base_hash, depth, packed) is blob-pack.ts's.
 */
export const BLOBS = table('blobs', 'agent_id text, hash text, size bigint, content bytea, encoding text');

export const CHANGESETS = table(
  'changesets',
  'agent_id text, id text, seq integer, created_at_ms bigint, key_id text?, key_label text?, tool text, entries text, entry_count integer, root text?',
);

export const ENTRY_CHUNKS = table('changeset_entry_chunks', 'agent_id text, changeset_id text, first_path text, entries text');

export const PROVENANCE = table('provenance', 'agent_id text, path text, version integer, from_slug text, from_path text, from_version integer');

export type NodeRow = RowOf<typeof NODES.columns>;
export type ChangesetRow = RowOf<typeof CHANGESETS.columns>;

/** The changeset row of a commit (its entries inline: all of a small one, the first ENTRY_INLINE of a big one). */
export function changesetRow(agentId: string, seq: number, cs: Omit<ChangesetRecord, 'seq'>): ChangesetRow {
  const { id, createdAtMs, keyId, keyLabel, tool, entryCount, root } = cs;
  return { agentId, id, seq, createdAtMs, keyId, keyLabel, tool, entries: JSON.stringify(cs.entries), entryCount, root };
}

/** The table's column names, in declared order, but for `except`. */
export function columnsOf<C extends Columns>(t: Table<C>, except: ReadonlyArray<keyof C & string> = []): Array<keyof C & string> {
  return Object.keys(t.columns).filter((c) => !except.includes(c));
}

/** A comma-separated column list, optionally qualified (`alias.column`). */
export const list = (cols: readonly string[], alias?: string): string => cols.map((c) => (alias ? `${alias}.${c}` : c)).join(', ');

/** `INSERT INTO t (…) VALUES (:…)`: every column of the table, each bound by its camelCase name. */
export function insertText<C extends Columns>(t: Table<C>): string {
  const cols = columnsOf(t);
  return `INSERT INTO ${t.name} (${list(cols)}) VALUES (${cols.map((c) => `:${camel(c)}`).join(', ')})`;
}

const withTail = (text: string, tail?: string): string => (tail ? `${text} ${tail}` : text);

/** A row's insert, then `tail` (ON CONFLICT …). */
export const insertRow = <C extends Columns>(t: Table<C>, tail?: string): Named<RowOf<C>> => namedQuery(withTail(insertText(t), tail));

/** `unnest(:a::text[], :b::bigint[], …)`: the columns as arrays, each bound by its camelCase name. */
export function unnestOf<C extends Columns>(t: Table<C>, cols: ReadonlyArray<keyof C & string>): string {
  return `unnest(${arrayParams(t, cols)})`;
}

export interface RowsInsert<R> {
  readonly row: Named<R>;
  /** PostgreSQL: every row in one statement (`batch` columns as arrays; the `fixed` ones once, the same for every row). */
  readonly batch: Named<Record<string, unknown>>;
  readonly fixed: readonly string[];
  readonly arrays: readonly string[];
  /** With `returning`: the camelCase column PostgreSQL's batch returns for each row it wrote. */
  readonly key: string | null;
}

/**
 * The statements inserting rows of `t`, one at a time and (PostgreSQL) a batch at a time, in the
 * order given (WITH ORDINALITY: rows are locked in the order the caller sorted them).
 */
export function insertRows<C extends Columns>(
  t: Table<C>,
  opts: { fixed?: ReadonlyArray<keyof C & string>; tail?: string; returning?: keyof C & string } = {},
): RowsInsert<RowOf<C>> {
  const fixed = opts.fixed ?? [];
  const arrays = columnsOf(t, fixed);
  const select = [...fixed.map((c) => `:${camel(c)}`), ...arrays.map((c) => `u.${c}`)];
  const batch = withTail(
    `INSERT INTO ${t.name} (${list([...fixed, ...arrays])}) SELECT ${select.join(', ')}
       FROM ${unnestOf(t, arrays)} WITH ORDINALITY AS u(${list(arrays)}, ord) ORDER BY u.ord`,
    opts.tail,
  );
  return {
    row: insertRow(t, opts.tail),
    batch: namedQuery(opts.returning ? `${batch} RETURNING ${opts.returning}` : batch),
    fixed: fixed.map(camel),
    arrays: arrays.map(camel),
    key: opts.returning ? camel(opts.returning) : null,
  };
}

function batchParams<R>(ins: RowsInsert<R>, rows: R[]): Record<string, unknown> {
  const first = rows[0] as Record<string, unknown>;
  const p: Record<string, unknown> = {};
  for (const f of ins.fixed) p[f] = first[f];
  for (const c of ins.arrays) p[c] = rows.map((r) => (r as Record<string, unknown>)[c]);
  return p;
}

/**
 * Inserts the rows and says, per row, whether it was written (false: ON CONFLICT skipped it).
 * SQLite runs a statement per row (in process: microseconds each); PostgreSQL one statement for
 * them all (a round trip each: 20,000 versions a row at a time took 30–60 s), the row statement for one.
 */
export function* insertEach<R>(dialect: Dialect, ins: RowsInsert<R>, rows: R[]): Program<boolean[]> {
  if (dialect === 'sqlite' || rows.length === 1) {
    const out: boolean[] = [];
    for (const r of rows) out.push((yield* run(ins.row.q, ins.row.params(r, dialect))) === 1);
    return out;
  }
  if (!rows.length) return [];
  if (!ins.key) throw new Error('insertEach: a batch needs a returning column');
  const key = ins.key;
  const written = new Set((yield* all(ins.batch.q, ins.batch.params(batchParams(ins, rows), dialect))).map((r) => r[0]));
  return rows.map((r) => written.has((r as Record<string, unknown>)[key]));
}

/** As insertEach, counting the rows written. */
export function* insertAll<R>(dialect: Dialect, ins: RowsInsert<R>, rows: R[]): Program<number> {
  if (dialect === 'sqlite' || rows.length === 1) {
    let n = 0;
    for (const r of rows) n += yield* run(ins.row.q, ins.row.params(r, dialect));
    return n;
  }
  return rows.length ? yield* run(ins.batch.q, ins.batch.params(batchParams(ins, rows), dialect)) : 0;
}

/**
 * The fragments both dialects' commit statements share (store/commit-steps.ts, postgres-steps.ts).
 * `max`: SQLite's max() or PostgreSQL's GREATEST().
 */

/**
 * A head's new state over the version it was planned from: `value(column)` gives the new state's
 * columns, `n` qualifies the row's own. Times never go back: a change lands at least 1 ms after
 * the head's; a tombstone brought back starts a new life (created_at_ms).
 */
export function setNodeState(value: (column: string) => string, n: string, max: string): string {
  return `kind = ${value('kind')}, deleted = ${value('deleted')}, version = ${n}version + 1,
    file_id = COALESCE(${value('file_id')}, ${n}file_id), blob_hash = ${value('blob_hash')}, size = ${value('size')}, lines = ${value('lines')},
    created_at_ms = CASE WHEN ${n}deleted = TRUE AND ${value('deleted')} = FALSE THEN ${max}(:nowMs, ${n}updated_at_ms + 1) ELSE ${n}created_at_ms END,
    updated_at_ms = ${max}(:nowMs, ${n}updated_at_ms + 1), updated_by_key_id = :keyId, updated_by_label = :keyLabel, purged_at_ms = NULL`;
}

/** The parameters of updateNode's statement. */
export type NodeUpdate = NodeState & {
  agentId: string;
  path: string;
  nowMs: number;
  keyId: string;
  keyLabel: string;
  expectVersion: number;
  wasDeleted: boolean;
};

/** A head's update from the version it was planned from, live (`:wasDeleted` false) or a tombstone. */
export const updateNode = (max: string): string => `UPDATE nodes SET ${setNodeState((c) => `:${camel(c)}`, '', max)}
    WHERE agent_id = :agentId AND path = :path AND version = :expectVersion AND deleted = :wasDeleted`;

/** The version row of a node row just written (`n` qualifies its columns), with the change's op and changeset. */
export function versionOfNode(n: string, op: string, changesetId: string): string {
  const from: Record<string, string> = { op, changeset_id: changesetId, key_id: `${n}updated_by_key_id`, key_label: `${n}updated_by_label` };
  return list(columnsOf(VERSIONS).map((c) => from[c] ?? `${n}${c}`));
}

/** `:a::text[], :b::bigint[]`: columns as array parameters, bound by their camelCase names. */
export function arrayParams<C extends Columns>(t: Table<C>, cols: ReadonlyArray<keyof C & string>): string {
  return cols.map((c) => `:${camel(c)}::${t.columns[c]!.replace('?', '')}[]`).join(', ');
}

/**
 * Takes the next seq and charges the commit's new bytes and files, unless that passes a quota
 * (0 file quota: none; a commit that removes files always passes it).
 */
export const CHARGE_AGENT = `UPDATE agents SET last_seq = last_seq + 1, storage_bytes = storage_bytes + :addBytes, node_count = node_count + :addNodes
   WHERE id = :agentId AND (:addBytes = 0 OR storage_bytes + :addBytes <= :quotaBytes)
     AND (:addNodes <= 0 OR :fileQuota = 0 OR node_count + :addNodes <= :fileQuota)`;

/** Each table's rows as commits (store/commit-steps.ts) and import (store/transfer.ts) insert them, for one agent at a time. */
export const NODE_ROWS = insertRows(NODES, { fixed: ['agent_id'] });
export const VERSION_ROWS = insertRows(VERSIONS, { fixed: ['agent_id'] });
export const CHANGESET_ROWS = insertRows(CHANGESETS, { fixed: ['agent_id'] });
export const CHUNK_ROWS = insertRows(ENTRY_CHUNKS, { fixed: ['agent_id'] });
export const PROVENANCE_ROWS = insertRows(PROVENANCE, { fixed: ['agent_id'] });
/** Content already stored for the agent is not stored twice; PostgreSQL's batch says which it wrote. */
export const BLOB_ROWS = insertRows(BLOBS, { fixed: ['agent_id'], tail: 'ON CONFLICT DO NOTHING', returning: 'hash' });

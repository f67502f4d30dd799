/** Row ↔ record mapping shared by both implementations (column names are identical). */
import type { Scope } from '../core/scopes.js';
import type {
  AgentRecord,
  AuthRecord,
  ChangeOp,
  ChangesetRecord,
  KeyRecord,
  NodeKind,
  NodeRecord,
  NodeSummary,
  VersionRecord,
} from './types.js';

type Row = Record<string, unknown>;

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));
const numOrNull = (v: unknown): number | null => (v == null ? null : num(v));
const strOrNull = (v: unknown): string | null => (v == null ? null : String(v));

export const NODE_COLUMNS =
  'path, kind, deleted, version, file_id, blob_hash, size, lines, created_at_ms, updated_at_ms, updated_by_key_id, updated_by_label, purged_at_ms';

/** NODE_COLUMNS qualified with the alias `n`, for joins. */
export const NODE_COLUMNS_N = NODE_COLUMNS.split(', ').map((c) => `n.${c}`).join(', ');
export const NODE_COLUMN_COUNT = NODE_COLUMNS.split(', ').length;

/** A node from a row fetched as an array, in NODE_COLUMNS order. */
export function nodeFromValues(v: unknown[]): NodeRecord {
  return {
    path: String(v[0]),
    kind: v[1] as NodeKind,
    deleted: v[2] === true || v[2] === 1,
    version: num(v[3]),
    fileId: String(v[4]),
    blobHash: strOrNull(v[5]),
    size: num(v[6]),
    lines: numOrNull(v[7]),
    createdAtMs: num(v[8]),
    updatedAtMs: num(v[9]),
    updatedByKeyId: strOrNull(v[10]),
    updatedByLabel: strOrNull(v[11]),
    purged: v[12] != null,
  };
}

/** A NodeSummary from `SELECT path, kind, size, updated_at_ms` as an array. */
export function summaryFromValues(v: unknown[]): NodeSummary {
  return { path: String(v[0]), kind: v[1] as NodeKind, size: num(v[2]), updatedAtMs: num(v[3]), blobHash: v[4] == null ? null : String(v[4]) };
}

export function toNode(r: Row): NodeRecord {
  return {
    path: String(r.path),
    kind: r.kind as NodeKind,
    deleted: r.deleted === true || r.deleted === 1,
    version: num(r.version),
    fileId: String(r.file_id),
    blobHash: strOrNull(r.blob_hash),
    size: num(r.size),
    lines: numOrNull(r.lines),
    createdAtMs: num(r.created_at_ms),
    updatedAtMs: num(r.updated_at_ms),
    updatedByKeyId: strOrNull(r.updated_by_key_id),
    updatedByLabel: strOrNull(r.updated_by_label),
    purged: r.purged_at_ms != null,
  };
}

export function toVersion(r: Row): VersionRecord {
  return {
    path: String(r.path),
    version: num(r.version),
    kind: r.kind as NodeKind,
    op: r.op as ChangeOp,
    deleted: r.deleted === true || r.deleted === 1,
    fileId: String(r.file_id),
    blobHash: strOrNull(r.blob_hash),
    size: num(r.size),
    lines: numOrNull(r.lines),
    updatedAtMs: num(r.updated_at_ms),
    changesetId: String(r.changeset_id),
    keyId: strOrNull(r.key_id),
    keyLabel: strOrNull(r.key_label),
  };
}

export function toAgent(r: Row): AgentRecord {
  return {
    id: String(r.id),
    name: String(r.name),
    slug: String(r.slug),
    createdAtMs: num(r.created_at_ms),
    storageBytes: num(r.storage_bytes),
    nodeCount: num(r.node_count ?? 0),
  };
}

export function toKey(r: Row): KeyRecord {
  return {
    id: String(r.id),
    agentId: String(r.agent_id),
    label: String(r.label),
    scopes: JSON.parse(String(r.scopes)) as Scope[],
    folder: strOrNull(r.folder),
    preview: String(r.preview),
    createdAtMs: num(r.created_at_ms),
    lastUsedAtMs: numOrNull(r.last_used_at_ms),
    expiresAtMs: numOrNull(r.expires_at_ms),
    revokedAtMs: numOrNull(r.revoked_at_ms),
    createdByKeyId: strOrNull(r.created_by_key_id),
  };
}

export function toAuth(r: Row): AuthRecord {
  return {
    key: toKey(r),
    agent: { id: String(r.agent_id), name: String(r.agent_name), slug: String(r.agent_slug) },
  };
}

export function toChangeset(r: Row): ChangesetRecord {
  const entries = JSON.parse(String(r.entries)) as ChangesetRecord['entries'];
  return {
    id: String(r.id),
    seq: num(r.seq),
    createdAtMs: num(r.created_at_ms),
    keyId: strOrNull(r.key_id),
    keyLabel: strOrNull(r.key_label),
    tool: String(r.tool),
    entries,
    // Rows from before entry chunks kept every entry inline.
    entryCount: r.entry_count == null ? entries.length : num(r.entry_count),
    root: strOrNull(r.root),
  };
}

export function keyParams(k: KeyRecord & { hash: string }): unknown[] {
  return [
    k.id, k.agentId, k.hash, k.label, JSON.stringify(k.scopes), k.folder, k.preview,
    k.createdAtMs, k.lastUsedAtMs, k.expiresAtMs, k.revokedAtMs, k.createdByKeyId,
  ];
}

export const KEY_INSERT_COLUMNS =
  'id, agent_id, key_hash, label, scopes, folder, preview, created_at_ms, last_used_at_ms, expires_at_ms, revoked_at_ms, created_by_key_id';

/** The column values a planned state writes into a node row (fileId null keeps the current one). */
export function stateColumns(state: import('./types.js').PlannedState): {
  kind: NodeKind;
  deleted: boolean;
  fileId: string | null;
  blobHash: string | null;
  size: number;
  lines: number | null;
} {
  switch (state.kind) {
    case 'file':
      return { kind: 'file', deleted: false, fileId: state.fileId, blobHash: state.blob.hash, size: state.blob.size, lines: state.lines };
    case 'dir':
      return { kind: 'dir', deleted: false, fileId: state.fileId, blobHash: null, size: 0, lines: null };
    case 'deleted':
      return { kind: state.was, deleted: true, fileId: null, blobHash: null, size: 0, lines: null };
  }
}

export function splitPath(path: string): { parent: string; name: string } {
  const i = path.lastIndexOf('/');
  return { parent: i <= 0 ? '/' : path.slice(0, i), name: path.slice(i + 1) };
}

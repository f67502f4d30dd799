/**
 * The one persistence interface. Two implementations (SQLite, PostgreSQL) share it and one
 * test suite. Every table is keyed by agent so data can later be sharded by agent.
 *
 * Writes go through `commit`: the caller plans changes against the head versions it read,
 * and the store applies them atomically only if every head is still at the expected version
 * (compare-and-swap), recording one changeset. The store holds no product rules beyond that.
 */
import type { Scope } from '../core/scopes.js';
import type { Families } from './families.js';

export interface AgentRecord {
  id: string;
  name: string;
  slug: string;
  createdAtMs: number;
  storageBytes: number;
  /** Live files and directories (tombstones excluded): what the file quota counts. */
  nodeCount: number;
}

export interface KeyRecord {
  id: string;
  agentId: string;
  label: string;
  scopes: Scope[];
  folder: string | null;
  preview: string;
  createdAtMs: number;
  lastUsedAtMs: number | null;
  expiresAtMs: number | null;
  revokedAtMs: number | null;
  createdByKeyId: string | null;
}

export interface AuthRecord {
  key: KeyRecord;
  agent: { id: string; name: string; slug: string };
}

export type NodeKind = 'file' | 'dir';
export type ChangeOp = 'create' | 'update' | 'delete' | 'move' | 'restore';

/** The head state of a path; tombstones (deleted: true) stay so versions are never reused. */
export interface NodeRecord {
  path: string;
  kind: NodeKind;
  deleted: boolean;
  version: number;
  fileId: string;
  blobHash: string | null;
  size: number;
  lines: number | null;
  createdAtMs: number;
  updatedAtMs: number;
  updatedByKeyId: string | null;
  updatedByLabel: string | null;
  /** Every version was purged; the row only keeps version numbers from being reused. */
  purged: boolean;
}

/** What a directory walk (find, grep -r, ls -R, du) needs of a live node. */
export interface NodeSummary {
  path: string;
  kind: NodeKind;
  size: number;
  updatedAtMs: number;
  /** The content's hash (files); content is immutable per hash, so it may be cached by it. */
  blobHash: string | null;
}

export interface NodeWithContent extends NodeRecord {
  content: Buffer | null;
}

export interface VersionRecord {
  path: string;
  version: number;
  kind: NodeKind;
  op: ChangeOp;
  deleted: boolean;
  fileId: string;
  blobHash: string | null;
  size: number;
  lines: number | null;
  updatedAtMs: number;
  changesetId: string;
  keyId: string | null;
  keyLabel: string | null;
}

export interface BlobInput {
  hash: string; // 'sha256:<hex>'
  size: number;
  /** Absent when the content is already stored for this agent (move, copy, restore). */
  bytes?: Buffer;
  /** The bytes are in object storage, PUT before the commit (store/blob-objects.ts): the row keeps none. */
  external?: boolean;
}

/** fileId: the identity of the incarnation (kept by updates, new on create). */
export type PlannedState =
  { kind: 'file'; blob: BlobInput; lines: number | null; fileId: string } | { kind: 'dir'; fileId: string } | { kind: 'deleted'; was: NodeKind };

export interface PlannedChange {
  path: string;
  /** Head version the change was computed from; 0 means "no node at this path". */
  expectVersion: number;
  op: ChangeOp;
  state: PlannedState;
}

export interface ChangesetEntry {
  path: string;
  op: ChangeOp;
  kind: NodeKind;
  fromVersion: number | null;
  toVersion: number;
  updatedAtMs: number;
}

export interface ChangesetRecord {
  id: string;
  seq: number;
  createdAtMs: number;
  keyId: string | null;
  keyLabel: string | null;
  tool: string;
  /**
   * Every entry when `entries.length === entryCount` (always so for a commit's own result, in
   * the order of its changes). A changeset read back with more than ENTRY_INLINE entries holds
   * only the first ENTRY_INLINE in path order; listChangesetEntries pages through the rest.
   */
  entries: ChangesetEntry[];
  entryCount: number;
  /**
   * For a changeset with more than ENTRY_INLINE entries: the deepest path every entry is at or
   * below (a path filter can then tell without reading them whether all, some or none match).
   */
  root: string | null;
}

/** Entries kept in the changeset row itself; bigger changesets keep the rest in chunks. */
export const ENTRY_INLINE = 100;

export interface CommitInput {
  agentId: string;
  keyId: string;
  keyLabel: string;
  tool: string;
  changes: PlannedChange[];
  /** Storage quota in bytes; new distinct blobs may not push the agent past it. */
  quotaBytes: number;
  /** File quota: live files and directories this commit may not push the agent past (absent: none). */
  fileQuota?: number;
  /** Saved in the same transaction so a retry returns exactly the first result. */
  idempotency?: { key: string; requestHash: string; respond: (cs: ChangesetRecord) => unknown };
  /**
   * A change through a share (another agent writing in this agent's tree): the share must still
   * be live and writable by `recipientId`, checked in the commit's transaction (a revoke either
   * comes first and nothing is saved, or waits for this commit); else StoreGrantEnded.
   */
  grant?: { shareId: string; recipientId: string };
}

/** A retry with the same idempotencyKey within this window returns the first result. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface IdempotentResult {
  requestHash: string;
  response: unknown;
  createdAtMs: number;
}

/** Thrown by commit when the share it writes through ended or became read-only (CommitInput.grant); nothing was written. */
export class StoreGrantEnded extends Error {
  constructor(readonly shareId: string) {
    super(`share ${shareId} is no longer live and writable`);
    this.name = 'StoreGrantEnded';
  }
}

/** Thrown by commit when a head moved since it was read; nothing was written. */
export class StoreConflict extends Error {
  constructor(
    readonly path: string,
    readonly expectedVersion: number,
    readonly current: NodeRecord | null,
  ) {
    super(`head of ${path} is no longer at version ${expectedVersion}`);
    this.name = 'StoreConflict';
  }
}

/**
 * Thrown by commit when it would push the agent past a quota: `storage` (bytes of distinct
 * content) or `files` (live files and directories). Nothing was written.
 */
export class StoreQuotaExceeded extends Error {
  constructor(
    readonly quota: 'storage' | 'files',
    readonly used: number,
    readonly add: number,
    readonly limit: number,
  ) {
    super(`${quota} quota exceeded`);
    this.name = 'StoreQuotaExceeded';
  }
}

/** Thrown by commit when the idempotency key was already used (possibly concurrently). */
export class StoreIdempotencyTaken extends Error {
  constructor(readonly key: string) {
    super('idempotency key already used');
    this.name = 'StoreIdempotencyTaken';
  }
}

/** Thrown by commit when another process held the database's write lock past the busy timeout; nothing was written. */
export class StoreBusy extends Error {
  constructor(readonly waitedMs: number) {
    super(`database write lock held by another process for ${waitedMs} ms`);
    this.name = 'StoreBusy';
  }
}

/** Thrown by createAgent when the slug is taken. */
export class StoreSlugTaken extends Error {
  constructor(readonly slug: string) {
    super(`slug ${slug} taken`);
    this.name = 'StoreSlugTaken';
  }
}

/** Where a page of listFileHistory ends: its order is (seq desc, deleted asc, path asc, version desc). */
export interface HistoryCursor {
  seq: number;
  deleted: boolean;
  path: string;
  version: number;
  /**
   * The smallest version of the listed path already returned (every version of it below this one
   * is still to come). Absent in cursors made before it existed: the store then reads all of them.
   */
  pathBelow?: number;
}

export interface ListPage {
  nodes: NodeRecord[];
  /** The last path returned when more remain. */
  nextAfter: string | null;
}

/** What each backend implements itself; everything else is a family of shared queries (families.ts). */
/** What a store reports to /metrics (http/metrics.ts): one callback, set once. */
export interface StoreObserver {
  /** A write transaction committed (SQLite: one group-commit batch of `size` writes; PostgreSQL: one commit, size 1). */
  committed(size: number, seconds: number): void;
}

export interface StoreCore {
  readonly kind: 'sqlite' | 'postgres';
  migrate(): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Runs commit-program.ts: compare-and-swap on every head, one changeset, all or nothing. */
  commit(input: CommitInput): Promise<ChangesetRecord>;
  observe(observer: StoreObserver | null): void;
  /**
   * A number that changes whenever any key or any agent's name or slug changes, on any instance
   * sharing the database (migration 16's triggers); null while that cannot be known (PostgreSQL's
   * notification channel is down), when nothing learned from the database may be kept.
   */
  authEpoch(): number | null;
  /**
   * PostgreSQL: analyzes the hot tables that doubled since their last analysis (planner-stats.ts)
   * and returns them; SQLite: nothing (its plans are pinned where it matters: INDEXED BY).
   */
  refreshPlannerStats(): Promise<string[]>;
  /** The PostgreSQL pool's connections (null on SQLite, which has one connection per thread). */
  poolStats(): { total: number; idle: number; waiting: number } | null;
  /**
   * PostgreSQL with read replicas (pg-replicas.ts): runs fn with its reads routed as the scope
   * says. Absent otherwise (every read is on the one database).
   */
  readRouting?<T>(scope: { agentId: string | null; replica: boolean }, fn: () => Promise<T>): Promise<T>;
  /** With read replicas: runs fn with its reads on the primary (authorization data). */
  onPrimary?<T>(fn: () => Promise<T>): Promise<T>;
  /** With read replicas: each one's state, in DATABASE_READ_URLS order (/metrics). */
  replicaStats?(): { healthy: boolean; lagMs: number | null; reads: number }[];
}

/** The one persistence interface: the backend's core and the families, by concern. */
export interface Store extends StoreCore, Families {}

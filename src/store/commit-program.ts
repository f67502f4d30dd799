/**
 * The commit algorithm, written once for both backends as a generator of storage steps.
 * SQLite runs a small commit synchronously inside one IMMEDIATE transaction (so no other
 * request's statements can interleave) and a big one in slices on a connection of its own;
 * PostgreSQL runs it asynchronously inside BEGIN…COMMIT. A step is data (it crosses to SQLite's
 * bulk writer thread whole); what it runs is a `sql` program written once (commit-steps.ts). Locks are always taken in the same order (blobs by hash, nodes by path, then the agent
 * row) so concurrent commits cannot deadlock.
 *
 * Work per step is bounded (`batch` changes, ENTRY_CHUNK entries, a few blobs) and the JS work
 * between steps is cut by `pause` steps, so a runner that yields to the event loop between steps
 * never holds it for long, whatever the size of the commit.
 */
import { byteOrderFor } from '../core/byte-order.js';
import { newTimeOrderedId } from '../core/keys.js';
import { isWithin, parentOf } from '../core/paths.js';
import {
  ENTRY_INLINE,
  StoreConflict,
  StoreGrantEnded,
  StoreIdempotencyTaken,
  StoreQuotaExceeded,
  type AgentRecord,
  type BlobInput,
  type ChangesetEntry,
  type ChangesetRecord,
  type CommitInput,
  type NodeRecord,
  type PlannedChange,
} from './types.js';

/** Entries per stored chunk of a big changeset (one JSON row; ~60 KB, parsed in well under 1 ms). */
export const ENTRY_CHUNK = 500;
/** Chunks per insertEntryChunks step. */
const CHUNKS_PER_STEP = 4;
/** New blobs per insertBlobs step, and their total bytes (a step's statement carries them all). */
const BLOBS_PER_STEP = 64;
const BLOB_BYTES_PER_STEP = 16 * 1024 * 1024;
/** Items of pure JS work (entries built, paths compared) between pause steps. */
const JS_ITEMS_PER_PAUSE = 5000;

export type CommitStep =
  // Whether the share (CommitInput.grant) is live and writable; PostgreSQL also locks its row (FOR SHARE) to COMMIT.
  | { op: 'checkGrant'; ownerId: string; shareId: string; recipientId: string; nowMs: number }
  | { op: 'insertBlobs'; agentId: string; blobs: BlobInput[] }
  | {
      // Changes in path order; the backend applies them in that order (the lock order).
      op: 'applyNodes';
      agentId: string;
      changes: PlannedChange[];
      nowMs: number;
      changesetId: string;
      keyId: string;
      keyLabel: string;
    }
  | { op: 'getNode'; agentId: string; path: string }
  | { op: 'insertEntryChunks'; agentId: string; changesetId: string; chunks: Array<{ firstPath: string; entries: string }> }
  | {
      // Allocates the next seq (and charges new bytes and files against the quotas) and stores the
      // changeset, as one statement where the backend allows: the agent row stays locked from here
      // to COMMIT, so what follows it is what serializes one agent's commits.
      op: 'recordChangeset';
      agentId: string;
      addBytes: number;
      quotaBytes: number;
      addNodes: number;
      /** 0: no file quota. */
      fileQuota: number;
      changeset: Omit<ChangesetRecord, 'seq'>;
      /**
       * The files this commit changed, queued in the search outbox (store/search-index.ts) with the
       * changeset: on PostgreSQL in the same statement (no round trip of its own while the agent
       * row is locked).
       */
      searchPaths: string[];
      /**
       * The files whose content this commit superseded (updated, deleted, restored, moved away),
       * queued for the packer (store/blob-pack.ts) in the same way.
       */
      packPaths: string[];
    }
  | { op: 'getAgent'; agentId: string }
  | {
      op: 'insertIdempotency';
      agentId: string;
      key: string;
      requestHash: string;
      response: string;
      createdAtMs: number;
    }
  // No storage work: a runner that slices may yield to the event loop here.
  | { op: 'pause' };

export interface AppliedNode {
  version: number;
  updatedAtMs: number;
  /** The node was live before this change (what the file quota counts). */
  wasLive: boolean;
}

/** What each step yields back to the program. */
export interface StepResults {
  checkGrant: boolean;
  insertBlobs: boolean[]; // per blob: true when it was new for this agent
  // Per change; null (or missing, once the backend stopped at it) for a head that moved: a conflict.
  applyNodes: Array<AppliedNode | null>;
  getNode: NodeRecord | null;
  insertEntryChunks: undefined;
  recordChangeset: number | null; // the new changeset's seq, or null when over a quota (nothing stored)
  getAgent: AgentRecord | null;
  insertIdempotency: boolean; // false when the key was already taken
  pause: undefined;
}

type Program = Generator<CommitStep, ChangesetRecord, unknown>;

/** One step, answered with its own result type (the runner gives back what stepProgram returned). */
function* step<S extends CommitStep>(s: S): Generator<CommitStep, StepResults[S['op']], unknown> {
  return (yield s) as StepResults[S['op']];
}

function entryOf(c: PlannedChange, r: AppliedNode): ChangesetEntry {
  return {
    path: c.path,
    op: c.op,
    kind: c.state.kind === 'deleted' ? c.state.was : c.state.kind,
    fromVersion: c.expectVersion === 0 ? null : c.expectVersion,
    toVersion: r.version,
    updatedAtMs: r.updatedAtMs,
  };
}

function* insertBlobs(input: CommitInput): Generator<CommitStep, number, unknown> {
  const blobs = new Map<string, BlobInput>();
  for (const c of input.changes) if (c.state.kind === 'file' && c.state.blob.bytes) blobs.set(c.state.blob.hash, c.state.blob);
  const sorted = [...blobs.keys()].sort().map((h) => blobs.get(h)!);
  let addBytes = 0;
  for (let i = 0; i < sorted.length;) {
    const group: BlobInput[] = [];
    let bytes = 0;
    while (i < sorted.length && group.length < BLOBS_PER_STEP && (group.length === 0 || bytes + sorted[i]!.size <= BLOB_BYTES_PER_STEP)) {
      bytes += sorted[i]!.size;
      group.push(sorted[i++]!);
    }
    const inserted = yield* step({ op: 'insertBlobs', agentId: input.agentId, blobs: group });
    group.forEach((b, j) => {
      if (inserted[j]) addBytes += b.size;
    });
  }
  return addBytes;
}

/** The changes in the stores' byte order (entry chunks are looked up by it). */
function inByteOrder(changes: PlannedChange[]): PlannedChange[] {
  // Planners list big trees in path order, so this sort only merges a few sorted runs.
  let byPath = changes;
  if (byPath.length > 1) {
    const order = byteOrderFor(byPath.map((c) => c.path));
    byPath = [...byPath].sort((a, b) => order(a.path, b.path));
  }
  return byPath;
}

interface AppliedChanges {
  /** Per change of byPath. */
  applied: AppliedNode[];
  /** Live nodes added (negative: removed), for the file quota. */
  addNodes: number;
  searchPaths: string[];
  packPaths: string[];
}

/**
 * Applies the changes `batch` at a time, in path order; a head that moved is a StoreConflict. Also
 * collects the files to queue for search and for the packer.
 */
function* applyChanges(
  input: CommitInput,
  byPath: PlannedChange[],
  nowMs: number,
  changesetId: string,
  batch: number,
): Generator<CommitStep, AppliedChanges, unknown> {
  const { agentId } = input;
  const applied: AppliedNode[] = new Array(byPath.length);
  let addNodes = 0;
  const searchPaths: string[] = [];
  const packPaths: string[] = [];
  for (let i = 0; i < byPath.length; i += batch) {
    const changes = byPath.slice(i, Math.min(byPath.length, i + batch));
    const results = yield* step({
      op: 'applyNodes',
      agentId,
      changes,
      nowMs,
      changesetId,
      keyId: input.keyId,
      keyLabel: input.keyLabel,
    });
    for (let j = 0; j < changes.length; j++) {
      const r = results[j];
      const change = changes[j]!;
      if (!r) {
        const current = yield* step({ op: 'getNode', agentId, path: change.path });
        throw new StoreConflict(change.path, change.expectVersion, current);
      }
      applied[i + j] = r;
      addNodes += (change.state.kind === 'deleted' ? 0 : 1) - (r.wasLive ? 1 : 0);
    }
    for (const c of changes) {
      if (c.state.kind === 'file' || (c.state.kind === 'deleted' && c.state.was === 'file')) searchPaths.push(c.path);
      if (c.expectVersion > 0 && c.state.kind !== 'dir') packPaths.push(c.path);
    }
  }
  return { applied, addNodes, searchPaths, packPaths };
}

/**
 * The changeset's entries and, for a big one, the deepest folder holding them all (its root);
 * a big one's entries are stored in chunks here.
 */
function* changesetEntries(
  input: CommitInput,
  byPath: PlannedChange[],
  applied: AppliedNode[],
  changesetId: string,
): Generator<CommitStep, { entries: ChangesetEntry[]; root: string | null }, unknown> {
  const { agentId } = input;
  const count = byPath.length;
  let entries: ChangesetEntry[];
  let root: string | null = null;
  if (count <= 1) {
    entries = count ? [entryOf(byPath[0]!, applied[0]!)] : [];
  } else if (count <= ENTRY_INLINE) {
    // Small changesets keep their entries in the order of the changes, as they always did.
    const at = new Map(byPath.map((c, i) => [c.path, applied[i]!]));
    entries = input.changes.map((c) => entryOf(c, at.get(c.path)!));
  } else {
    entries = new Array(count);
    root = byPath[0]!.path;
    for (let i = 0; i < count; i++) {
      entries[i] = entryOf(byPath[i]!, applied[i]!);
      while (!isWithin(byPath[i]!.path, root)) root = parentOf(root);
      if (i % JS_ITEMS_PER_PAUSE === JS_ITEMS_PER_PAUSE - 1) yield { op: 'pause' };
    }
    for (let i = 0; i < count; i += ENTRY_CHUNK * CHUNKS_PER_STEP) {
      const chunks = [];
      for (let k = i; k < Math.min(count, i + ENTRY_CHUNK * CHUNKS_PER_STEP); k += ENTRY_CHUNK) {
        chunks.push({ firstPath: entries[k]!.path, entries: JSON.stringify(entries.slice(k, k + ENTRY_CHUNK)) });
      }
      yield { op: 'insertEntryChunks', agentId, changesetId, chunks };
    }
  }
  return { entries, root };
}

/** Which quota a refused recordChangeset was over, from the agent row. */
function* quotaExceeded(
  input: CommitInput,
  addBytes: number,
  addNodes: number,
  fileQuota: number,
): Generator<CommitStep, StoreQuotaExceeded, unknown> {
  const agent = yield* step({ op: 'getAgent', agentId: input.agentId });
  const bytes = agent?.storageBytes ?? 0;
  if (addBytes > 0 && bytes + addBytes > input.quotaBytes) return new StoreQuotaExceeded('storage', bytes, addBytes, input.quotaBytes);
  return new StoreQuotaExceeded('files', agent?.nodeCount ?? 0, addNodes, fileQuota);
}

/** Stores the call's result under its idempotency key, in the commit's transaction; a key already taken fails it. */
function* storeIdempotency(input: CommitInput, changeset: ChangesetRecord, nowMs: number): Generator<CommitStep, void, unknown> {
  if (!input.idempotency) return;
  const response = JSON.stringify(input.idempotency.respond(changeset));
  const ok = yield* step({
    op: 'insertIdempotency',
    agentId: input.agentId,
    key: input.idempotency.key,
    requestHash: input.idempotency.requestHash,
    response,
    createdAtMs: nowMs,
  });
  if (!ok) throw new StoreIdempotencyTaken(input.idempotency.key);
}

/**
 * @param batch changes per applyNodes step: unbounded for a runner that does it all in one go,
 * a few hundred for one that yields between steps.
 */
export function* commitProgram(input: CommitInput, nowMs: number, batch = Number.POSITIVE_INFINITY): Program {
  const changesetId = newTimeOrderedId('cs', nowMs);
  const { agentId } = input;
  if (input.grant) {
    const { shareId, recipientId } = input.grant;
    const live = yield* step({ op: 'checkGrant', ownerId: agentId, shareId, recipientId, nowMs });
    if (!live) throw new StoreGrantEnded(shareId);
  }
  const addBytes = yield* insertBlobs(input);
  const byPath = inByteOrder(input.changes);
  const { applied, addNodes, searchPaths, packPaths } = yield* applyChanges(input, byPath, nowMs, changesetId, batch);
  const { entries, root } = yield* changesetEntries(input, byPath, applied, changesetId);

  const count = byPath.length;
  const fileQuota = input.fileQuota ?? 0;
  const changeset: ChangesetRecord = {
    id: changesetId,
    seq: 0,
    createdAtMs: nowMs,
    keyId: input.keyId,
    keyLabel: input.keyLabel,
    tool: input.tool,
    entries: count <= ENTRY_INLINE ? entries : entries.slice(0, ENTRY_INLINE),
    entryCount: count,
    root,
  };
  const seq = yield* step({
    op: 'recordChangeset',
    agentId,
    addBytes,
    quotaBytes: input.quotaBytes,
    addNodes,
    fileQuota,
    changeset,
    searchPaths,
    packPaths,
  });
  if (seq == null) throw yield* quotaExceeded(input, addBytes, addNodes, fileQuota);
  changeset.seq = seq;
  changeset.entries = entries;
  yield* storeIdempotency(input, changeset, nowMs);
  return changeset;
}

export function runSync(program: Program, exec: (step: CommitStep) => unknown): ChangesetRecord {
  let next = program.next();
  while (!next.done) next = program.next(next.value.op === 'pause' ? undefined : exec(next.value));
  return next.value;
}

/**
 * Runs the program step by step; with `sliceMs`, yields to the event loop (setImmediate) whenever
 * that much time passed since the last yield, so other requests are served between steps.
 */
export async function runAsync(
  program: Program,
  exec: (step: CommitStep) => Promise<unknown> | unknown,
  sliceMs = Number.POSITIVE_INFINITY,
): Promise<ChangesetRecord> {
  let since = performance.now();
  let next = program.next();
  while (!next.done) {
    const result = next.value.op === 'pause' ? undefined : await exec(next.value);
    if (performance.now() - since >= sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      since = performance.now();
    }
    next = program.next(result);
  }
  return next.value;
}

/**
 * Blob bytes in object storage (BLOB_STORE=s3://bucket/prefix; docs/operations.md, "Blobs in
 * object storage"). A content larger than the inline threshold is an object `{prefix}{agent}/{hex}`
 * and its blobs row keeps encoding 'external' with an empty content (store/blob-codec.ts); smaller
 * ones stay inline, so a small read is still one query. Dedupe stays per agent (the key is the
 * agent's and the hash's).
 *
 * The order that keeps "never a reference without its object": the object is PUT before the
 * commit that references it runs (withObjectsUploaded, at the store's commit entry, outside the
 * commit's SQL), and only the sweep deletes objects, and only those with no row whose last write is
 * older than the grace period (longer than any commit). A crash between PUT and COMMIT leaves an
 * unreferenced object that a later sweep removes. Purge deletes rows only (its quota is freed at
 * once); the object goes at the sweep after the grace period: deleting it at purge could remove an
 * object a concurrent commit of the same content had just PUT.
 *
 * One process serves one store, so the objects are registered once per process (openStore) and
 * every reader of a blob (blob-read.ts) finds them here; bash workers open their own store, and so
 * their own client.
 */
import type { BlobInput, ChangesetRecord, CommitInput } from './types.js';

export interface BlobObjects {
  /** Contents up to this many bytes stay inline in their row. */
  readonly inlineBytes: number;
  /** Where the objects are, for messages and logs (s3://bucket/prefix). */
  readonly location: string;
  /** Stores `bytes` under (agent, hash); storing it again is harmless (and refreshes its last write). */
  put(agentId: string, hash: string, bytes: Buffer): Promise<void>;
  /** The whole object, or null when there is none. */
  get(agentId: string, hash: string): Promise<Buffer | null>;
  /** Bytes [start, end) of the object, fetched alone (an HTTP range), or null when there is none. */
  getRange(agentId: string, hash: string, start: number, end: number): Promise<Buffer | null>;
  delete(agentId: string, hash: string): Promise<void>;
  /** The agent's objects, in key order, with their last write. */
  list(agentId: string): AsyncIterable<{ hash: string; lastModifiedMs: number }>;
  /** The agents that have objects (the sweep's walk). */
  agents(): AsyncIterable<string>;
  /** The last write of one object, or null when there is none (the sweep's re-check). */
  lastModified(agentId: string, hash: string): Promise<number | null>;
  close(): void;
}

/**
 * The object store did not answer or failed (down, slow past its timeout, 5xx): the write was not
 * made and may be retried; tools/store-errors.ts makes it 503 UNAVAILABLE with Retry-After.
 */
export class ObjectStoreUnavailable extends Error {
  constructor(
    readonly op: string,
    readonly reason: string,
  ) {
    super(`the object store failed to ${op}: ${reason}`);
    this.name = 'ObjectStoreUnavailable';
  }
}

let registered: BlobObjects | null = null;

/** Called by openStore when BLOB_STORE is set. */
export function registerBlobObjects(objects: BlobObjects): void {
  registered = objects;
}

/** The process's object store; a row stored externally without one is a configuration error. */
export function blobObjects(): BlobObjects {
  if (!registered) throw new Error('a content is stored in object storage but BLOB_STORE is not set for this process');
  return registered;
}

/** PUTs at once at most this many objects of one commit (a bulk copy brings no bytes; an import of many files does). */
const PUT_PARALLEL = 8;

/** The commit's input with every content above the threshold PUT and marked external (its bytes left out of the row). */
export async function withObjectsUploaded(objects: BlobObjects, input: CommitInput): Promise<CommitInput> {
  const big = new Map<string, BlobInput>();
  for (const c of input.changes) {
    if (c.state.kind === 'file' && c.state.blob.bytes && c.state.blob.size > objects.inlineBytes) big.set(c.state.blob.hash, c.state.blob);
  }
  if (!big.size) return input;
  const todo = [...big.values()];
  const worker = async () => {
    for (let b = todo.pop(); b; b = todo.pop()) await objects.put(input.agentId, b.hash, b.bytes!);
  };
  await Promise.all(Array.from({ length: Math.min(PUT_PARALLEL, todo.length) }, worker));
  const external = new Map([...big].map(([hash, b]) => [hash, { hash, size: b.size, bytes: EMPTY, external: true } as BlobInput]));
  return {
    ...input,
    changes: input.changes.map((c) =>
      c.state.kind === 'file' && external.has(c.state.blob.hash) ? { ...c, state: { ...c.state, blob: external.get(c.state.blob.hash)! } } : c,
    ),
  };
}

const EMPTY = Buffer.alloc(0);

/** Makes `store.commit` upload first (see withObjectsUploaded). */
export function uploadBeforeCommit(store: { commit(input: CommitInput): Promise<ChangesetRecord> }, objects: BlobObjects): void {
  const commit = store.commit.bind(store);
  store.commit = async (input) => commit(await withObjectsUploaded(objects, input));
}

/**
 * Objects this process read lately, by (agent, hash), least recently used first out once
 * `maxBytes` is spent. A hash names immutable bytes, so an entry is never stale; keys include the
 * agent, and a read reaches here only after the caller's access to the node was checked. Measured
 * (SQLite, 100 KB head, Swift on the same loaded 2-core VM): a `read` took ~66 ms p50 fetching the
 * object every time, ~7 ms inline (docs/scaling.md, "Step 1").
 */
export function withCache(objects: BlobObjects, maxBytes: number): BlobObjects {
  const entries = new Map<string, Buffer>();
  let bytes = 0;
  const k = (agentId: string, hash: string) => `${agentId}\u0000${hash}`;
  const remember = (key: string, b: Buffer) => {
    if (b.length > maxBytes / 4 || entries.has(key)) return; // one huge content would evict everything
    entries.set(key, b);
    bytes += b.length;
    for (const [old, ob] of entries) {
      if (bytes <= maxBytes) break;
      entries.delete(old);
      bytes -= ob.length;
    }
  };
  const recall = (key: string) => {
    const b = entries.get(key);
    if (b) {
      entries.delete(key); // refresh recency: a Map keeps insertion order
      entries.set(key, b);
    }
    return b;
  };
  return {
    ...objects,
    async get(agentId, hash) {
      const key = k(agentId, hash);
      const hit = recall(key);
      if (hit) return hit;
      const b = await objects.get(agentId, hash);
      if (b) remember(key, b);
      return b;
    },
    async getRange(agentId, hash, start, end) {
      const hit = recall(k(agentId, hash));
      return hit ? hit.subarray(start, end) : objects.getRange(agentId, hash, start, end);
    },
    async delete(agentId, hash) {
      const key = k(agentId, hash);
      const b = entries.get(key);
      if (b) {
        entries.delete(key);
        bytes -= b.length;
      }
      await objects.delete(agentId, hash);
    },
  };
}

export interface SweepResult {
  /** Objects looked at. */
  seen: number;
  /** Unreferenced objects deleted. */
  deleted: number;
}

/**
 * The commit algorithm, written once for both backends as a generator of storage steps.
 * SQLite runs it synchronously inside one IMMEDIATE transaction (so no other request's
 * statements can interleave); PostgreSQL runs it asynchronously inside BEGIN…COMMIT. Each
 * backend maps a step to its own SQL. Locks are always taken in the same order (blobs by
 * hash, nodes by path, then the agent row) so concurrent commits cannot deadlock.
 */
import { newTimeOrderedId } from '../core/keys.js';
import {
  StoreConflict,
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

export type CommitStep =
  | { op: 'insertBlob'; agentId: string; blob: BlobInput }
  | {
      op: 'applyNode';
      agentId: string;
      change: PlannedChange;
      nowMs: number;
      changesetId: string;
      keyId: string;
      keyLabel: string;
    }
  | { op: 'getNode'; agentId: string; path: string }
  | {
      // Allocates the next seq (and charges new bytes against the quota) and stores the changeset,
      // as one statement where the backend allows: the agent row stays locked from here to COMMIT,
      // so what follows it is what serializes one agent's commits.
      op: 'recordChangeset';
      agentId: string;
      addBytes: number;
      quotaBytes: number;
      changeset: Omit<ChangesetRecord, 'seq'>;
    }
  | { op: 'getAgent'; agentId: string }
  | {
      op: 'insertIdempotency';
      agentId: string;
      key: string;
      requestHash: string;
      response: string;
      createdAtMs: number;
    };

/** What each step yields back to the program. */
export interface StepResults {
  insertBlob: boolean; // true when the blob was new for this agent
  applyNode: { version: number; updatedAtMs: number } | null; // null: head moved (conflict)
  getNode: NodeRecord | null;
  recordChangeset: number | null; // the new changeset's seq, or null when over quota (nothing stored)
  getAgent: AgentRecord | null;
  insertIdempotency: boolean; // false when the key was already taken
}

type Program = Generator<CommitStep, ChangesetRecord, unknown>;

export function* commitProgram(input: CommitInput, nowMs: number): Program {
  const changesetId = newTimeOrderedId('cs', nowMs);
  const { agentId } = input;

  const blobs = new Map<string, BlobInput>();
  for (const c of input.changes) if (c.state.kind === 'file') blobs.set(c.state.blob.hash, c.state.blob);
  let addBytes = 0;
  for (const hash of [...blobs.keys()].sort()) {
    if (!blobs.get(hash)!.bytes) continue; // already stored: move, copy, restore
    const inserted = (yield { op: 'insertBlob', agentId, blob: blobs.get(hash)! }) as StepResults['insertBlob'];
    if (inserted) addBytes += blobs.get(hash)!.size;
  }

  const applied = new Map<string, { version: number; updatedAtMs: number }>();
  const byPath = [...input.changes].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const change of byPath) {
    const result = (yield {
      op: 'applyNode',
      agentId,
      change,
      nowMs,
      changesetId,
      keyId: input.keyId,
      keyLabel: input.keyLabel,
    }) as StepResults['applyNode'];
    if (!result) {
      const current = (yield { op: 'getNode', agentId, path: change.path }) as StepResults['getNode'];
      throw new StoreConflict(change.path, change.expectVersion, current);
    }
    applied.set(change.path, result);
  }

  const entries: ChangesetEntry[] = input.changes.map((c) => {
    const r = applied.get(c.path)!;
    return {
      path: c.path,
      op: c.op,
      kind: c.state.kind === 'deleted' ? c.state.was : c.state.kind,
      fromVersion: c.expectVersion === 0 ? null : c.expectVersion,
      toVersion: r.version,
      updatedAtMs: r.updatedAtMs,
    };
  });
  const draft = { id: changesetId, createdAtMs: nowMs, keyId: input.keyId, keyLabel: input.keyLabel, tool: input.tool, entries };
  const seq = (yield { op: 'recordChangeset', agentId, addBytes, quotaBytes: input.quotaBytes, changeset: draft }) as StepResults['recordChangeset'];
  if (seq == null) {
    const agent = (yield { op: 'getAgent', agentId }) as StepResults['getAgent'];
    throw new StoreQuotaExceeded(agent?.storageBytes ?? 0, addBytes, input.quotaBytes);
  }
  const changeset: ChangesetRecord = { id: changesetId, seq, createdAtMs: nowMs, keyId: input.keyId, keyLabel: input.keyLabel, tool: input.tool, entries };

  if (input.idempotency) {
    const response = JSON.stringify(input.idempotency.respond(changeset));
    const ok = (yield {
      op: 'insertIdempotency',
      agentId,
      key: input.idempotency.key,
      requestHash: input.idempotency.requestHash,
      response,
      createdAtMs: nowMs,
    }) as StepResults['insertIdempotency'];
    if (!ok) throw new StoreIdempotencyTaken(input.idempotency.key);
  }
  return changeset;
}

export function runSync(program: Program, exec: (step: CommitStep) => unknown): ChangesetRecord {
  let next = program.next();
  while (!next.done) next = program.next(exec(next.value));
  return next.value;
}

export async function runAsync(program: Program, exec: (step: CommitStep) => Promise<unknown>): Promise<ChangesetRecord> {
  let next = program.next();
  while (!next.done) next = program.next(await exec(next.value));
  return next.value;
}

/**
 * The one place where the store's errors become what a client sees. The store knows nothing of
 * envelopes or advice; these say what happened and what to do next.
 */
import { ToolError, TransportError } from '../core/errors.js';
import { StoreBusy, StoreConflict, StoreGrantEnded, StoreQuotaExceeded } from '../store/types.js';
import { ObjectStoreUnavailable } from '../store/blob-objects.js';
import { unavailableReason } from '../store/unavailable.js';

/** QUOTA_EXCEEDED naming the quota: what is used, what the change adds, the limit, and what to do. */
export function quotaError(err: StoreQuotaExceeded, addsAtLeast = false): ToolError {
  if (err.quota === 'files') {
    return new ToolError(
      'QUOTA_EXCEEDED',
      `File quota exceeded: ${err.used} files and directories exist (the limit is ${err.limit}) and this change adds ` +
        `${addsAtLeast ? 'more than ' : ''}${addsAtLeast ? err.add - 1 : err.add}. ` +
        'Delete files or directories you no longer need (deleted ones do not count), or copy less at once.',
      { quota: 'files', usedFiles: err.used, addFiles: err.add, ...(addsAtLeast ? { addFilesAtLeast: true } : {}), limitFiles: err.limit },
    );
  }
  return new ToolError(
    'QUOTA_EXCEEDED',
    `Storage quota exceeded: ${err.used} of ${err.limit} bytes used and this change adds ${err.add}. ` +
      'Purge files you no longer need (deleted files keep their history until purged).',
    { quota: 'storage', usedBytes: err.used, addBytes: err.add, limitBytes: err.limit },
  );
}

/**
 * A client-facing error for a store error, or null when `err` is not one (a bug: the caller lets
 * it become INTERNAL_ERROR). StoreConflict reaches here only once the retries are spent.
 */
export function fromStoreError(err: unknown, tool: string): ToolError | TransportError | null {
  if (err instanceof StoreQuotaExceeded) return quotaError(err);
  if (err instanceof StoreGrantEnded) {
    // Inside a mount call: the handler's error is mapped to the caller's paths (mounts.ts errorToCaller).
    return new ToolError(
      'NOT_FOUND',
      `The share ${tool} wrote through ended or became read-only before the change was saved; nothing was saved. ` +
        'list_shares {"direction": "incoming"} shows your shares.',
      { reason: 'share_ended', shareId: err.shareId },
    );
  }
  if (err instanceof StoreConflict) {
    return new ToolError('EDIT_CONFLICT', `${err.path} kept changing while ${tool} ran. Read it again and retry.`, { path: err.path });
  }
  if (err instanceof StoreBusy) {
    // Another process sharing the SQLite file held its write lock for the whole busy timeout.
    return new TransportError(
      'UNAVAILABLE',
      `The database stayed locked by another process for ${err.waitedMs} ms; nothing was written. Retry in a moment.`,
      { details: { waitedMs: err.waitedMs }, headers: { 'retry-after': '1' } },
    );
  }
  if (err instanceof ObjectStoreUnavailable) {
    // Raised before the commit ran (its objects are PUT first) or on a read: nothing was written.
    return new TransportError(
      'UNAVAILABLE',
      `The service cannot reach its object storage right now (${err.message}); nothing was written. Retry in a moment.`,
      { details: { reason: 'object_store', op: err.op }, headers: { 'retry-after': '1' } },
    );
  }
  const reason = unavailableReason(err);
  if (reason) {
    // A change whose COMMIT was sent when the connection broke may have been made: say so, and how to be sure.
    return new TransportError(
      'UNAVAILABLE',
      `The service cannot reach its database right now: ${reason}. Retry in a moment; a change sent with an idempotencyKey ` +
        'can be retried safely (the same key never applies it twice).',
      { details: { reason }, headers: { 'retry-after': '1' } },
    );
  }
  return null;
}

/** Options of one SDK call (the last argument of every tool method). */
export interface CallOptions {
  /**
   * For a mutating tool: replaying the same key with the same input returns the first answer.
   * The SDK sets a fresh one on every mutating call unless `idempotent: false`, so a retry after
   * a lost answer never changes anything twice.
   */
  idempotencyKey?: string;
  /** false: no automatic idempotencyKey, so a mutating call is never retried. */
  idempotent?: boolean;
  /** Retries of this call (overrides the client's `retries`). */
  retries?: number;
  signal?: AbortSignal;
}

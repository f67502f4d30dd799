/**
 * Idempotency rows: the first result of a mutating call, replayed to a retry with the same key
 * within IDEMPOTENCY_TTL_MS. A commit saves its row in its own transaction (commit-program's
 * insertIdempotency step runs INSERT_IDEMPOTENCY); expired rows are pruned in bounded batches.
 */
import { IDEMPOTENT_COLUMNS, idempotentFromRow } from './rows.js';
import { run, sql, type Db } from './sql.js';
import { IDEMPOTENCY_TTL_MS, type IdempotentResult } from './types.js';

export interface IdempotencyStore {
  getIdempotent(agentId: string, key: string): Promise<IdempotentResult | null>;
  /** Saves a result produced without a commit (purge, unchanged writes); false if the key is taken. */
  saveIdempotent(agentId: string, key: string, requestHash: string, response: unknown): Promise<boolean>;
  /** Deletes the rows that expired as of `nowMs` (older than IDEMPOTENCY_TTL_MS); returns how many. */
  pruneIdempotency(nowMs: number): Promise<number>;
}

/** Rows per prune statement: each is one short write, so other writes interleave. */
export const PRUNE_BATCH = 1000;

const GET_IDEMPOTENT = sql`SELECT ${IDEMPOTENT_COLUMNS} FROM idempotency WHERE agent_id = ? AND idem_key = ?`;

/** Takes the key unless a live row holds it; an expired row is replaced. Params: idempotencyParams. */
export const INSERT_IDEMPOTENCY = sql`
  INSERT INTO idempotency (agent_id, idem_key, request_hash, response, created_at_ms) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (agent_id, idem_key) DO UPDATE SET request_hash = excluded.request_hash, response = excluded.response,
         created_at_ms = excluded.created_at_ms
   WHERE idempotency.created_at_ms < ?`;

export function idempotencyParams(s: { agentId: string; key: string; requestHash: string; response: string; createdAtMs: number }): unknown[] {
  return [s.agentId, s.key, s.requestHash, s.response, s.createdAtMs, s.createdAtMs - IDEMPOTENCY_TTL_MS];
}

const PRUNE = sql`
  DELETE FROM idempotency WHERE (agent_id, idem_key) IN (
    SELECT agent_id, idem_key FROM idempotency WHERE created_at_ms < ? LIMIT ?)`;

export function idempotencyStore(db: Db): IdempotencyStore {
  return {
    async getIdempotent(agentId, key) {
      const r = await db.get(GET_IDEMPOTENT, [agentId, key]);
      return r ? idempotentFromRow(r) : null;
    },
    saveIdempotent(agentId, key, requestHash, response) {
      const params = idempotencyParams({ agentId, key, requestHash, response: JSON.stringify(response), createdAtMs: Date.now() });
      return db.write(function* () {
        return (yield* run(INSERT_IDEMPOTENCY, params)) === 1;
      });
    },
    async pruneIdempotency(nowMs) {
      let total = 0;
      for (;;) {
        const n = await db.write(function* () {
          return yield* run(PRUNE, [nowMs - IDEMPOTENCY_TTL_MS, PRUNE_BATCH]);
        });
        total += n;
        if (n < PRUNE_BATCH) return total;
      }
    },
  };
}

/** Agents, API keys and the rate counters every instance on one database shares. */
import { AGENT_COLUMNS, AUTH_COLUMNS, KEY_COLUMNS, KEY_INSERT_COLUMNS, agentFromRow, authFromRow, keyFromRow, keyParams } from './rows.js';
import { get, isUniqueViolation, run, sql, type Db } from './sql.js';
import { StoreSlugTaken, type AgentRecord, type AuthRecord, type KeyRecord } from './types.js';
import { enqueueDoc } from './search-index.js';

export interface AccountStore {
  /** Throws StoreSlugTaken when the slug is taken; the agent and its first key are stored together. */
  createAgent(agent: Omit<AgentRecord, 'nodeCount'>, key: KeyRecord & { hash: string }): Promise<void>;
  getAgent(agentId: string): Promise<AgentRecord | null>;
  insertKey(key: KeyRecord & { hash: string }): Promise<void>;
  findKeyByHash(hash: string): Promise<AuthRecord | null>;
  listKeys(agentId: string): Promise<KeyRecord[]>;
  /** Sets revokedAt (now, or later for a rotation's grace period) unless already revoked earlier. */
  revokeKey(agentId: string, keyId: string, atMs: number): Promise<KeyRecord | null>;
  /** Keys minted by `fromKeyId` become `toKeyId`'s (a rotated key's replacement keeps its children). Returns how many. */
  reparentKeys(agentId: string, fromKeyId: string, toKeyId: string): Promise<number>;
  touchKey(keyId: string, atMs: number): Promise<void>;
  /** The agent each of these keys belongs to (history shows who wrote through a share); unknown ids are left out. */
  keyAgents(keyIds: readonly string[]): Promise<Map<string, { agentId: string; slug: string }>>;
  /** Adds `by` (default 1) to a windowed counter and returns its new total. */
  hitCounter(bucket: string, windowStartMs: number, expiresAtMs: number, by?: number): Promise<number>;
}

export const GET_AGENT = sql`SELECT ${AGENT_COLUMNS} FROM agents WHERE id = ?`;
const INSERT_AGENT = sql`INSERT INTO agents (id, name, slug, created_at_ms, storage_bytes, last_seq, last_active_at_ms) VALUES (?, ?, ?, ?, 0, 0, ?)`;
const INSERT_KEY = sql`INSERT INTO api_keys (${KEY_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const FIND_KEY = sql`SELECT ${AUTH_COLUMNS} FROM api_keys k JOIN agents a ON a.id = k.agent_id WHERE k.key_hash = ?`;
const LIST_KEYS = sql`SELECT ${KEY_COLUMNS} FROM api_keys WHERE agent_id = ? ORDER BY created_at_ms, id`;
const REPARENT_KEYS = sql`UPDATE api_keys SET created_by_key_id = ? WHERE agent_id = ? AND created_by_key_id = ? AND id <> ?`;
const REVOKE_KEY = sql`
  UPDATE api_keys SET revoked_at_ms = CASE WHEN revoked_at_ms IS NULL OR revoked_at_ms > ? THEN ? ELSE revoked_at_ms END
   WHERE agent_id = ? AND id = ? RETURNING ${KEY_COLUMNS}`;
const KEY_AGENTS = sql`SELECT k.id, a.id, a.slug FROM api_keys k JOIN agents a ON a.id = k.agent_id WHERE k.id = ?*`;
const TOUCH_KEY = sql`UPDATE api_keys SET last_used_at_ms = ? WHERE id = ?`;
// The agent's lastActiveAt (profiles, list_agents sort "active") moves with its keys' lastUsedAt.
const TOUCH_AGENT = sql`
  UPDATE agents SET last_active_at_ms = ? WHERE id = (SELECT agent_id FROM api_keys WHERE id = ?) AND last_active_at_ms < ?`;
const READ_COUNTER = sql`SELECT count FROM rate_counters WHERE bucket = ? AND window_start_ms = ?`;
const HIT_COUNTER = sql`
  INSERT INTO rate_counters (bucket, window_start_ms, count, expires_at_ms) VALUES (?, ?, ?, ?)
  ON CONFLICT (bucket, window_start_ms) DO UPDATE SET count = rate_counters.count + excluded.count RETURNING count`;
const PRUNE_COUNTERS = sql`DELETE FROM rate_counters WHERE expires_at_ms < ?`;

/** Agent rows read while the database's stamp stands still (get_key_info's usage on every call). */
const AGENT_CACHE_MAX = 10_000;

export function accountStore(db: Db): AccountStore {
  const agents = new Map<string, { stamp: number; agent: AgentRecord | null }>();
  return {
    createAgent(agent, key) {
      return db.write(
        function* () {
          try {
            yield* run(INSERT_AGENT, [agent.id, agent.name, agent.slug, agent.createdAtMs, agent.createdAtMs]);
          } catch (err) {
            if (isUniqueViolation(err, 'agents', 'slug')) throw new StoreSlugTaken(agent.slug);
            throw err;
          }
          yield* run(INSERT_KEY, keyParams(key));
          yield* enqueueDoc('agent', agent.id, agent.id);
        },
        { atomic: true },
      );
    },
    async getAgent(agentId) {
      // Coherent: any commit of any connection moves the stamp (SQLite); PostgreSQL has none, so reads.
      const stamp = db.stamp?.();
      if (stamp !== undefined) {
        const hit = agents.get(agentId);
        if (hit && hit.stamp === stamp) return hit.agent;
      }
      const r = await db.get(GET_AGENT, [agentId]);
      const agent = r ? agentFromRow(r) : null;
      if (stamp !== undefined) {
        if (agents.size >= AGENT_CACHE_MAX) agents.clear();
        agents.set(agentId, { stamp, agent });
      }
      return agent;
    },
    async insertKey(key) {
      await db.write(function* () {
        yield* run(INSERT_KEY, keyParams(key));
      });
    },
    async findKeyByHash(hash) {
      const r = await db.get(FIND_KEY, [hash]);
      return r ? authFromRow(r) : null;
    },
    async listKeys(agentId) {
      return (await db.all(LIST_KEYS, [agentId])).map(keyFromRow);
    },
    reparentKeys(agentId, fromKeyId, toKeyId) {
      return db.write(function* () {
        return yield* run(REPARENT_KEYS, [toKeyId, agentId, fromKeyId, toKeyId]);
      });
    },
    async revokeKey(agentId, keyId, atMs) {
      const r = await db.write(function* () {
        return yield* get(REVOKE_KEY, [atMs, atMs, agentId, keyId]);
      });
      return r ? keyFromRow(r) : null;
    },
    async keyAgents(keyIds) {
      const out = new Map<string, { agentId: string; slug: string }>();
      if (!keyIds.length) return out;
      for (const r of await db.all(KEY_AGENTS, [[...new Set(keyIds)]])) out.set(String(r[0]), { agentId: String(r[1]), slug: String(r[2]) });
      return out;
    },
    async touchKey(keyId, atMs) {
      await db.write(function* () {
        yield* run(TOUCH_KEY, [atMs, keyId]);
        yield* run(TOUCH_AGENT, [atMs, keyId, atMs]);
      });
    },
    async hitCounter(bucket, windowStartMs, expiresAtMs, by = 1) {
      if (by === 0) {
        // Only learning the total (a key's first request in a window awaits it): a read, so on
        // SQLite it is not queued behind writes, such as a big commit holding the write lock.
        const r = await db.get(READ_COUNTER, [bucket, windowStartMs]);
        return r ? Number(r[0]) : 0;
      }
      return db.write(function* () {
        const count = Number((yield* get(HIT_COUNTER, [bucket, windowStartMs, by, expiresAtMs]))![0]);
        // A new window's first hit: the time to drop expired windows.
        if (count === by) yield* run(PRUNE_COUNTERS, [Date.now()]);
        return count;
      });
    },
  };
}

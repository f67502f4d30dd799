/**
 * PostgreSQL implementation (`pg`). Hot statements are named prepared statements; BIGINT is
 * parsed as a JS number (every value we store — ms times, byte counts — is below 2^53).
 */
import pg from 'pg';
import { subtreeRange } from '../core/paths.js';
import { commitProgram, runAsync, type CommitStep } from './commit-program.js';
import { MIGRATIONS } from './migrations.js';
import {
  KEY_INSERT_COLUMNS,
  NODE_COLUMNS,
  keyParams,
  splitPath,
  stateColumns,
  toAgent,
  toAuth,
  toNode,
  toVersion,
} from './rows.js';
import {
  IDEMPOTENCY_TTL_MS,
  StoreConflict,
  StoreSlugTaken,
  type AgentRecord,
  type AuthRecord,
  type ChangesetRecord,
  type CommitInput,
  type IdempotentResult,
  type KeyRecord,
  type ListPage,
  type NodeRecord,
  type NodeWithContent,
  type Store,
  type VersionRecord,
} from './types.js';

type Row = Record<string, unknown>;
type Queryable = pg.Pool | pg.PoolClient;

const INT8_OID = 20;
const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === INT8_OID) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

// Serialization failures and deadlocks are retried by the caller as ordinary conflicts.
const RETRYABLE = new Set(['40001', '40P01']);

export interface PostgresOptions {
  connectionString: string;
  poolSize: number;
}

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;
  private readonly names = new Map<string, string>();

  constructor(opts: PostgresOptions) {
    this.pool = new pg.Pool({ connectionString: opts.connectionString, max: opts.poolSize, types });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    this.pool.on('error', () => {});
  }

  /** Runs a statement as a named prepared statement (one name per distinct SQL text). */
  private async q(db: Queryable, sql: string, params: unknown[] = []): Promise<pg.QueryResult<Row>> {
    let name = this.names.get(sql);
    if (!name) {
      name = `afs_${this.names.size + 1}`;
      this.names.set(sql, name);
    }
    return db.query({ name, text: sql, values: params });
  }

  async migrate(): Promise<number> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("SELECT pg_advisory_xact_lock(hashtext('agent-file-service:migrate'))");
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms BIGINT NOT NULL)',
      );
      const { rows } = await client.query('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations');
      const current = Number(rows[0]!.v);
      let applied = 0;
      for (const m of MIGRATIONS) {
        if (m.version <= current) continue;
        await client.query(m.postgres);
        await client.query('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES ($1, $2, $3)', [m.version, m.name, Date.now()]);
        applied++;
      }
      await client.query('COMMIT');
      return applied;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  async createAgent(agent: AgentRecord, key: KeyRecord & { hash: string }): Promise<void> {
    try {
      await this.tx(async (c) => {
        await this.q(c, 'INSERT INTO agents (id, name, slug, created_at_ms, storage_bytes, last_seq) VALUES ($1, $2, $3, $4, 0, 0)', [
          agent.id, agent.name, agent.slug, agent.createdAtMs,
        ]);
        await this.insertKeyOn(c, key);
      });
    } catch (err) {
      const e = err as { code?: string; constraint?: string };
      if (e.code === '23505' && e.constraint === 'agents_slug_key') throw new StoreSlugTaken(agent.slug);
      throw err;
    }
  }

  async getAgent(agentId: string): Promise<AgentRecord | null> {
    const { rows } = await this.q(this.pool, 'SELECT * FROM agents WHERE id = $1', [agentId]);
    return rows[0] ? toAgent(rows[0]) : null;
  }

  private async insertKeyOn(db: Queryable, key: KeyRecord & { hash: string }): Promise<void> {
    await this.q(db, `INSERT INTO api_keys (${KEY_INSERT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`, keyParams(key));
  }

  async insertKey(key: KeyRecord & { hash: string }): Promise<void> {
    await this.insertKeyOn(this.pool, key);
  }

  async findKeyByHash(hash: string): Promise<AuthRecord | null> {
    const { rows } = await this.q(
      this.pool,
      'SELECT k.*, a.name AS agent_name, a.slug AS agent_slug FROM api_keys k JOIN agents a ON a.id = k.agent_id WHERE k.key_hash = $1',
      [hash],
    );
    return rows[0] ? toAuth(rows[0]) : null;
  }

  async touchKey(keyId: string, atMs: number): Promise<void> {
    await this.q(this.pool, 'UPDATE api_keys SET last_used_at_ms = $1 WHERE id = $2', [atMs, keyId]);
  }

  async hitCounter(bucket: string, windowStartMs: number, expiresAtMs: number): Promise<number> {
    const { rows } = await this.q(
      this.pool,
      `INSERT INTO rate_counters (bucket, window_start_ms, count, expires_at_ms) VALUES ($1, $2, 1, $3)
       ON CONFLICT (bucket, window_start_ms) DO UPDATE SET count = rate_counters.count + 1 RETURNING count`,
      [bucket, windowStartMs, expiresAtMs],
    );
    const count = Number(rows[0]!.count);
    if (count === 1) await this.q(this.pool, 'DELETE FROM rate_counters WHERE expires_at_ms < $1', [Date.now()]);
    return count;
  }

  async getNode(agentId: string, path: string): Promise<NodeRecord | null> {
    const { rows } = await this.q(this.pool, `SELECT ${NODE_COLUMNS} FROM nodes WHERE agent_id = $1 AND path = $2`, [agentId, path]);
    return rows[0] ? toNode(rows[0]) : null;
  }

  async getNodes(agentId: string, paths: string[]): Promise<Map<string, NodeRecord>> {
    const out = new Map<string, NodeRecord>();
    if (paths.length === 0) return out;
    const { rows } = await this.q(this.pool, `SELECT ${NODE_COLUMNS} FROM nodes WHERE agent_id = $1 AND path = ANY($2::text[])`, [
      agentId, paths,
    ]);
    for (const r of rows) out.set(String(r.path), toNode(r));
    return out;
  }

  async readNode(agentId: string, path: string): Promise<NodeWithContent | null> {
    const { rows } = await this.q(
      this.pool,
      `SELECT n.path, n.kind, n.deleted, n.version, n.file_id, n.blob_hash, n.size, n.lines, n.created_at_ms, n.updated_at_ms,
              n.updated_by_key_id, n.updated_by_label, b.content
         FROM nodes n LEFT JOIN blobs b ON b.agent_id = n.agent_id AND b.hash = n.blob_hash
        WHERE n.agent_id = $1 AND n.path = $2`,
      [agentId, path],
    );
    const r = rows[0];
    if (!r) return null;
    return { ...toNode(r), content: (r.content as Buffer | null) ?? null };
  }

  async getBlob(agentId: string, hash: string): Promise<Buffer | null> {
    const { rows } = await this.q(this.pool, 'SELECT content FROM blobs WHERE agent_id = $1 AND hash = $2', [agentId, hash]);
    return rows[0] ? (rows[0].content as Buffer) : null;
  }

  private page(rows: Row[], limit: number): ListPage {
    const more = rows.length > limit;
    const nodes = rows.slice(0, limit).map(toNode);
    return { nodes, nextAfter: more && nodes.length ? nodes[nodes.length - 1]!.path : null };
  }

  async listChildren(agentId: string, dir: string, limit: number, after: string | null): Promise<ListPage> {
    const { rows } = await this.q(
      this.pool,
      `SELECT ${NODE_COLUMNS} FROM nodes WHERE agent_id = $1 AND parent = $2 AND NOT deleted AND path > $3 ORDER BY path LIMIT $4`,
      [agentId, dir, after ?? '', limit + 1],
    );
    return this.page(rows, limit);
  }

  async listSubtree(agentId: string, dir: string, limit: number, after: string | null): Promise<ListPage> {
    const { lo, hi } = subtreeRange(dir);
    const { rows } = await this.q(
      this.pool,
      `SELECT ${NODE_COLUMNS} FROM nodes WHERE agent_id = $1 AND path > $2 AND path < $3 AND NOT deleted ORDER BY path LIMIT $4`,
      [agentId, after && after > lo ? after : lo, hi, limit + 1],
    );
    return this.page(rows, limit);
  }

  async countLiveChildren(agentId: string, dir: string): Promise<number> {
    const { rows } = await this.q(this.pool, 'SELECT COUNT(*) AS c FROM nodes WHERE agent_id = $1 AND parent = $2 AND NOT deleted', [agentId, dir]);
    return Number(rows[0]!.c);
  }

  async findByName(agentId: string, name: string, limit: number): Promise<NodeRecord[]> {
    const { rows } = await this.q(this.pool, `SELECT ${NODE_COLUMNS} FROM nodes WHERE agent_id = $1 AND name = $2 AND NOT deleted LIMIT $3`, [
      agentId, name, limit,
    ]);
    return rows.map(toNode);
  }

  async getVersion(agentId: string, path: string, version: number): Promise<VersionRecord | null> {
    const { rows } = await this.q(this.pool, 'SELECT * FROM versions WHERE agent_id = $1 AND path = $2 AND version = $3', [agentId, path, version]);
    return rows[0] ? toVersion(rows[0]) : null;
  }

  async countVersions(agentId: string, path: string): Promise<number> {
    const { rows } = await this.q(this.pool, 'SELECT COUNT(*) AS c FROM versions WHERE agent_id = $1 AND path = $2', [agentId, path]);
    return Number(rows[0]!.c);
  }

  async getIdempotent(agentId: string, key: string): Promise<IdempotentResult | null> {
    const { rows } = await this.q(this.pool, 'SELECT request_hash, response, created_at_ms FROM idempotency WHERE agent_id = $1 AND idem_key = $2', [
      agentId, key,
    ]);
    const r = rows[0];
    if (!r) return null;
    return { requestHash: String(r.request_hash), response: JSON.parse(String(r.response)), createdAtMs: Number(r.created_at_ms) };
  }

  async commit(input: CommitInput): Promise<ChangesetRecord> {
    try {
      return await this.tx((c) => runAsync(commitProgram(input, Date.now()), (step) => this.execStep(c, step)));
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code && RETRYABLE.has(code)) {
        const first = input.changes[0];
        throw new StoreConflict(first?.path ?? '/', first?.expectVersion ?? 0, first ? await this.getNode(input.agentId, first.path) : null);
      }
      throw err;
    }
  }

  private async execStep(c: pg.PoolClient, step: CommitStep): Promise<unknown> {
    switch (step.op) {
      case 'insertBlob': {
        const r = await this.q(c, 'INSERT INTO blobs (agent_id, hash, size, content) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
          step.agentId, step.blob.hash, step.blob.size, step.blob.bytes,
        ]);
        return r.rowCount === 1;
      }
      case 'applyNode': {
        const { change, agentId } = step;
        const s = stateColumns(change.state);
        const copyToVersions = `INSERT INTO versions (agent_id, path, version, kind, op, deleted, file_id, blob_hash, size, lines,
                                   updated_at_ms, changeset_id, key_id, key_label)
             SELECT agent_id, path, version, kind, $OP, deleted, file_id, blob_hash, size, lines, updated_at_ms, $CS,
                    updated_by_key_id, updated_by_label FROM n RETURNING version, updated_at_ms`;
        let rows: Row[];
        if (change.expectVersion === 0) {
          const { parent, name } = splitPath(change.path);
          ({ rows } = await this.q(
            c,
            `WITH n AS (
               INSERT INTO nodes (agent_id, path, parent, name, kind, deleted, version, file_id, blob_hash, size, lines,
                                  created_at_ms, updated_at_ms, updated_by_key_id, updated_by_label)
               VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8, $9, $10, $11, $11, $12, $13) ON CONFLICT DO NOTHING RETURNING *)
             ${copyToVersions.replace('$OP', '$14').replace('$CS', '$15')}`,
            [
              agentId, change.path, parent, name, s.kind, s.deleted, s.fileId ?? '', s.blobHash, s.size, s.lines, step.nowMs,
              step.keyId, step.keyLabel, change.op, step.changesetId,
            ],
          ));
        } else {
          ({ rows } = await this.q(
            c,
            `WITH n AS (
               UPDATE nodes SET kind = $1, deleted = $2, version = version + 1, file_id = COALESCE($3, file_id), blob_hash = $4,
                      size = $5, lines = $6,
                      created_at_ms = CASE WHEN deleted AND NOT $2 THEN GREATEST($7, updated_at_ms + 1) ELSE created_at_ms END,
                      updated_at_ms = GREATEST($7, updated_at_ms + 1), updated_by_key_id = $8, updated_by_label = $9
                WHERE agent_id = $10 AND path = $11 AND version = $12 RETURNING *)
             ${copyToVersions.replace('$OP', '$13').replace('$CS', '$14')}`,
            [
              s.kind, s.deleted, s.fileId, s.blobHash, s.size, s.lines, step.nowMs, step.keyId, step.keyLabel, agentId,
              change.path, change.expectVersion, change.op, step.changesetId,
            ],
          ));
        }
        const r = rows[0];
        return r ? { version: Number(r.version), updatedAtMs: Number(r.updated_at_ms) } : null;
      }
      case 'getNode': {
        const { rows } = await this.q(c, `SELECT ${NODE_COLUMNS} FROM nodes WHERE agent_id = $1 AND path = $2`, [step.agentId, step.path]);
        return rows[0] ? toNode(rows[0]) : null;
      }
      case 'bumpAgent': {
        const { rows } = await this.q(
          c,
          `UPDATE agents SET last_seq = last_seq + 1, storage_bytes = storage_bytes + $1
            WHERE id = $2 AND ($1 = 0 OR storage_bytes + $1 <= $3) RETURNING last_seq`,
          [step.addBytes, step.agentId, step.quotaBytes],
        );
        return rows[0] ? Number(rows[0].last_seq) : null;
      }
      case 'getAgent': {
        const { rows } = await this.q(c, 'SELECT * FROM agents WHERE id = $1', [step.agentId]);
        return rows[0] ? toAgent(rows[0]) : null;
      }
      case 'insertChangeset': {
        const cs = step.changeset;
        await this.q(
          c,
          'INSERT INTO changesets (agent_id, seq, id, created_at_ms, key_id, key_label, tool, entries) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
          [step.agentId, cs.seq, cs.id, cs.createdAtMs, cs.keyId, cs.keyLabel, cs.tool, JSON.stringify(cs.entries)],
        );
        return undefined;
      }
      case 'insertIdempotency': {
        const r = await this.q(
          c,
          `INSERT INTO idempotency (agent_id, idem_key, request_hash, response, created_at_ms) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (agent_id, idem_key) DO UPDATE SET request_hash = excluded.request_hash, response = excluded.response,
                  created_at_ms = excluded.created_at_ms
            WHERE idempotency.created_at_ms < $6`,
          [step.agentId, step.key, step.requestHash, step.response, step.createdAtMs, step.createdAtMs - IDEMPOTENCY_TTL_MS],
        );
        return r.rowCount === 1;
      }
    }
  }
}

/** PostgreSQL implementation (`pg`): the families' shared queries on PgDb, and the commit program in a transaction. */
import pg from 'pg';
import { commitProgram, runAsync } from './commit-program.js';
import { GroupCommit } from './pg-group-commit.js';
import { sqlFamilies, type Families } from './families.js';
import { MIGRATIONS } from './migrations.js';
import { PgDb, pgTypes, withClient } from './postgres-db.js';
import { readScope, ReplicaSet, type ReadScope } from './pg-replicas.js';
import { AuthChannel } from './pg-auth-channel.js';
import { refreshPlannerStats } from './planner-stats.js';
import { stepProgram } from './commit-steps.js';
import { runProgram } from './sql.js';
import { BIG_COMMIT_SETUP, PG_BATCH, ROW_AT_A_TIME } from './postgres-steps.js';
import { StoreConflict, type ChangesetRecord, type CommitInput, type Store, type StoreObserver } from './types.js';

// Serialization failures and deadlocks are retried by the caller as ordinary conflicts.
const RETRYABLE = new Set(['40001', '40P01']);
/** A commit yields to the event loop between steps once its JS work ran this long (building entries). */
const SLICE_MS = 20;

export interface PostgresOptions {
  connectionString: string;
  poolSize: number;
  /** Streaming replicas for read-only calls (pg-replicas.ts); none by default. */
  replicas?: { urls: string[]; maxLagMs: number; pollMs: number };
}

/** The families' methods, assigned in the constructor (see families.ts). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging -- the merge is how the assigned methods get their types
export interface PostgresStore extends Families {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;
  private readonly db: PgDb;
  /** An agent's concurrent commits share one transaction (pg-group-commit.ts). */
  private readonly group: GroupCommit;
  private closed = false;
  private readonly auth: AuthChannel;

  constructor(opts: PostgresOptions) {
    // A database that does not answer a connect within 5 s fails the request (503) instead of holding it.
    this.pool = new pg.Pool({ connectionString: opts.connectionString, max: opts.poolSize, types: pgTypes, connectionTimeoutMillis: 5000 });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    this.pool.on('error', () => {});
    this.db = new PgDb(this.pool);
    this.group = new GroupCommit(this.db);
    if (opts.replicas?.urls.length) {
      this.replicaSet = new ReplicaSet(this.pool, { ...opts.replicas, poolSize: opts.poolSize });
      this.db.replicas = this.replicaSet;
      this.replicaSet.start();
    }
    Object.assign(this, sqlFamilies(this.db));
    this.auth = new AuthChannel(opts.connectionString);
  }

  authEpoch(): number | null {
    return this.auth.epoch();
  }

  private readonly replicaSet: ReplicaSet | null = null;

  /**
   * Runs fn with its reads routed as `scope` says (dispatch opens one per tool call). Without
   * replicas it only calls fn: no AsyncLocalStorage cost on a single database.
   */
  readRouting<T>(scope: ReadScope, fn: () => Promise<T>): Promise<T> {
    return this.replicaSet ? readScope.run(scope, fn) : fn();
  }

  /** Runs fn with its reads on the primary whatever the call's scope (authorization data). */
  onPrimary<T>(fn: () => Promise<T>): Promise<T> {
    return this.replicaSet ? readScope.run({ agentId: readScope.getStore()?.agentId ?? null, replica: false }, fn) : fn();
  }

  replicaStats(): ReturnType<ReplicaSet['stats']> {
    return this.replicaSet?.stats() ?? [];
  }

  async migrate(): Promise<number> {
    return withClient(this.pool, async (client, broken) => {
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
        await client.query('ROLLBACK').catch(broken);
        throw err;
      }
    });
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.replicaSet?.close();
    await Promise.all([this.pool.end(), this.auth.close()]);
  }

  observe(observer: StoreObserver | null): void {
    this.db.observer = observer;
  }

  refreshPlannerStats(): Promise<string[]> {
    return refreshPlannerStats(this.pool);
  }

  poolStats(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  async commit(input: CommitInput): Promise<ChangesetRecord> {
    try {
      const changeset = await this.group.run(input.agentId, async (c) => {
        // SET LOCAL lasts to the batch's COMMIT: harmless for the commits after it (all index lookups).
        if (input.changes.length > ROW_AT_A_TIME) await c.query(BIG_COMMIT_SETUP);
        // The time is taken when the commit runs, not when it queued: changes stay in time order.
        return runAsync(
          commitProgram(input, Date.now(), PG_BATCH),
          (step) => runProgram(stepProgram(step, 'postgres'), (s) => this.db.exec(c, s)),
          SLICE_MS,
        );
      });
      this.replicaSet?.wrote();
      return changeset;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code && RETRYABLE.has(code)) {
        const first = input.changes[0];
        throw new StoreConflict(first?.path ?? '/', first?.expectVersion ?? 0, first ? await this.getNode(input.agentId, first.path) : null);
      }
      throw err;
    }
  }
}

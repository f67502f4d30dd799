/**
 * PostgreSQL read replicas (DATABASE_READ_URLS): which connection pool a read runs on. A read is
 * sent to a replica only inside a replica scope (`readScope`, opened by dispatch for read-only
 * tools), never inside a write, and only to a replica that is fresh enough:
 * - lag: a replica whose replay position is behind where the primary was REPLICA_MAX_LAG_MS ago,
 *   or whose last poll failed, is skipped (the primary serves);
 * - read-your-writes: after an agent's write finished at time t, that agent's reads go to a
 *   replica only once it has replayed the primary's WAL position sampled after t (a sample sent
 *   after the write's COMMIT answered is at or past its commit record: the insert position counts
 *   commits made with synchronous_commit off too). Until then, the primary.
 * Positions are polled every REPLICA_POLL_MS, so a decision uses positions at most that old: a
 * stale replica position is lower than the real one, which errs towards the primary.
 * Read-your-writes holds per serving process (docs/operations.md: route an agent to one instance).
 * See docs/scaling.md for the measured lag and what a replica takes off the primary.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { pgTypes } from './postgres-db.js';

/** What the current call may read from: set by dispatch around a tool's handler. */
export interface ReadScope {
  /** The calling agent (its own writes pin its reads to fresh replicas), or null (public reads). */
  agentId: string | null;
  /** True for read-only tools: their reads may go to a replica. */
  replica: boolean;
}

export const readScope = new AsyncLocalStorage<ReadScope>();

export interface ReplicaOptions {
  urls: string[];
  poolSize: number;
  maxLagMs: number;
  pollMs: number;
}

interface Replica {
  readonly url: string;
  readonly pool: pg.Pool;
  /** The WAL position replayed at the last successful poll (-1n: none yet). */
  replayLsn: bigint;
  /** False after a failed poll or query, until a poll succeeds. */
  healthy: boolean;
  lagMs: number | null;
  reads: number;
}

interface Sample {
  sentAtMs: number;
  lsn: bigint;
}

/** '16/B374D848' → its 64-bit position. */
export function parseLsn(text: string): bigint {
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
}

/** Primary samples kept: enough to look REPLICA_MAX_LAG_MS back, plus a margin. */
const SAMPLE_SLACK = 8;
/** An agent's last write is remembered this long at most (longer than any allowed lag). */
const WRITE_MEMORY_MS = 120_000;

export class ReplicaSet {
  private readonly replicas: Replica[];
  private readonly samples: Sample[] = [];
  private readonly writes = new Map<string, number>();
  private next = 0;
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private readonly maxSamples: number;

  constructor(
    private readonly primary: pg.Pool,
    private readonly opts: ReplicaOptions,
  ) {
    this.replicas = opts.urls.map((url) => {
      const pool = new pg.Pool({ connectionString: url, max: opts.poolSize, types: pgTypes, connectionTimeoutMillis: 2000 });
      pool.on('error', () => {});
      return { url, pool, replayLsn: -1n, healthy: false, lagMs: null, reads: 0 };
    });
    this.maxSamples = Math.ceil(opts.maxLagMs / opts.pollMs) + SAMPLE_SLACK;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll(), this.opts.pollMs);
    this.timer.unref();
    void this.poll();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.replicas.map((r) => r.pool.end().catch(() => {})));
  }

  /** The pool for a read in the current scope: a fresh replica, or null for the primary. */
  poolForRead(): pg.Pool | null {
    const scope = readScope.getStore();
    if (!scope?.replica || !this.replicas.length) return null;
    const need = this.neededLsn(scope.agentId);
    if (need === null) return null;
    for (let i = 0; i < this.replicas.length; i++) {
      const r = this.replicas[(this.next + i) % this.replicas.length]!;
      if (r.healthy && r.replayLsn >= need) {
        this.next = (this.next + i + 1) % this.replicas.length;
        r.reads++;
        return r.pool;
      }
    }
    return null;
  }

  /** A read on `pool` failed: the replica is skipped until its next successful poll. */
  failed(pool: pg.Pool): void {
    const r = this.replicas.find((x) => x.pool === pool);
    if (r) r.healthy = false;
  }

  /** A write of the current scope's agent finished (its COMMIT answered). */
  wrote(): void {
    const agentId = readScope.getStore()?.agentId;
    if (agentId && process.env.NO_RYW !== '1') this.writes.set(agentId, Date.now());
  }

  stats(): { healthy: boolean; lagMs: number | null; reads: number }[] {
    return this.replicas.map((r) => ({ healthy: r.healthy, lagMs: r.lagMs, reads: r.reads }));
  }

  /**
   * The position a replica must have replayed to serve this agent now, or null when no replica
   * can (no samples yet, or the agent's write is newer than every sample).
   */
  private neededLsn(agentId: string | null): bigint | null {
    if (!this.samples.length) return null;
    const now = Date.now();
    let need = this.positionAt(now - this.opts.maxLagMs);
    const wroteAt = agentId ? this.writes.get(agentId) : undefined;
    if (wroteAt !== undefined) {
      const after = this.samples.find((s) => s.sentAtMs > wroteAt);
      if (!after) return null;
      if (after.lsn > need) need = after.lsn;
    }
    return need;
  }

  /** The primary's position at `t`: the last sample sent at or before it (the oldest if none). */
  private positionAt(t: number): bigint {
    let lsn = this.samples[0]!.lsn;
    for (const s of this.samples) {
      if (s.sentAtMs > t) break;
      lsn = s.lsn;
    }
    return lsn;
  }

  /** Reads the primary's WAL position, then each replica's replay position. */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const sentAtMs = Date.now();
      try {
        const { rows } = await this.primary.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
        this.samples.push({ sentAtMs, lsn: parseLsn(rows[0]!.lsn) });
        if (this.samples.length > this.maxSamples) this.samples.shift();
      } catch {
        // The primary is down: reads fail over nowhere (writes fail too); replicas keep their state.
      }
      await Promise.all(this.replicas.map((r) => this.pollReplica(r)));
      this.forgetOldWrites(sentAtMs);
    } finally {
      this.polling = false;
    }
  }

  private async pollReplica(r: Replica): Promise<void> {
    try {
      const { rows } = await r.pool.query<{ lsn: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS lsn');
      const lsn = rows[0]?.lsn;
      if (!lsn) throw new Error(`${r.url} is not a standby (pg_last_wal_replay_lsn() is null)`);
      r.replayLsn = parseLsn(lsn);
      r.healthy = true;
      r.lagMs = this.lagOf(r.replayLsn);
    } catch {
      r.healthy = false;
      r.lagMs = null;
    }
  }

  /** How far behind the primary a replay position is, in ms: now minus when the primary first passed it. */
  private lagOf(replayLsn: bigint): number {
    const passed = this.samples.find((s) => s.lsn > replayLsn);
    return passed ? Math.max(0, Date.now() - passed.sentAtMs) : 0;
  }

  private forgetOldWrites(now: number): void {
    // Every replica counts, a failing one with the position it last had: it is polled again before use.
    const minReplay = this.replicas.reduce((m, r) => (r.replayLsn < m ? r.replayLsn : m), 1n << 64n);
    for (const [agentId, at] of this.writes) {
      const after = this.samples.find((s) => s.sentAtMs > at);
      if (now - at > WRITE_MEMORY_MS || (after && after.lsn <= minReplay)) this.writes.delete(agentId);
    }
  }
}

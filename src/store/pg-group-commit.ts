/**
 * Group commit per agent on PostgreSQL, as SQLite's serving store does it: the commits
 * of one agent that arrive while one of its transactions is open join that transaction, each in
 * its own savepoint, and they all answer after its one COMMIT.
 *
 * Why: every commit updates the agent's row (its change sequence and usage: that keeps the
 * changes feed gap-free), so an agent's concurrent commits queued on that row lock anyway —
 * sampled during the edit benchmark, most of 50 connections sat in `Lock:transactionid`, each
 * waking when the one before committed — and each paid its own WAL flush (~190 µs of PostgreSQL
 * CPU here: a durable one-row transaction costs 292 µs, 104 µs without the flush). Run one
 * after another in one transaction, they wait for nothing, and flush once.
 *
 * A commit alone runs as before: no savepoint (if it fails, rolling the transaction back undoes
 * it alone). Each commit that joins gets a savepoint, so its failure — a compare-and-swap
 * overtaken, a quota, a unique key taken — undoes only its own statements. If the transaction
 * itself fails (COMMIT, a lost connection), every commit of it fails with that error, as a single
 * commit did.
 */
import type pg from 'pg';
import type { PgDb } from './postgres-db.js';

/** Commits in one transaction at most: a batch holds the agent's lock and one pooled connection. */
export const GROUP_MAX = 32;

interface Waiter {
  run(c: pg.PoolClient): Promise<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

type Outcome = { w: Waiter; ok: true; value: unknown } | { w: Waiter; ok: false; err: unknown };

export class GroupCommit {
  /** Per agent: the commits waiting for the agent's transaction (present while one is being drained). */
  private readonly queues = new Map<string, Waiter[]>();

  constructor(private readonly db: PgDb) {}

  /** Runs `run` in a transaction holding the agent's shared advisory lock, with whatever else of the agent is due. */
  run<T>(agentId: string, run: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const w: Waiter = { run, resolve: resolve as (v: unknown) => void, reject };
      const queue = this.queues.get(agentId);
      if (queue) {
        queue.push(w);
        return;
      }
      this.queues.set(agentId, [w]);
      void this.drain(agentId);
    });
  }

  private async drain(agentId: string): Promise<void> {
    const queue = this.queues.get(agentId)!;
    try {
      while (queue.length) await this.batch(agentId, queue);
    } finally {
      this.queues.delete(agentId);
    }
  }

  /** One transaction: the queue's first commit, then those that arrive meanwhile, up to GROUP_MAX. */
  private async batch(agentId: string, queue: Waiter[]): Promise<void> {
    const first = queue.shift()!;
    const joined: Outcome[] = [];
    let firstValue: unknown;
    let firstFailed = false;
    /** The commit joining when the transaction failed (a lost connection mid-savepoint): it failed too. */
    let joining: Waiter | null = null;
    let began = false;
    try {
      await this.db.tx(
        async (c) => {
          began = true;
          // The first runs without a savepoint: alone, its failure is the transaction's.
          try {
            firstValue = await first.run(c);
          } catch (err) {
            firstFailed = true;
            throw err;
          }
          while (joined.length + 1 < GROUP_MAX && queue.length) {
            joining = queue.shift()!;
            joined.push(await this.join(c, joining, joined.length > 0));
            joining = null;
          }
        },
        { agentId, exclusive: false },
      );
    } catch (err) {
      // The first commit's own failure (nobody joined yet), or the transaction's: every commit of it failed.
      first.reject(err);
      if (!firstFailed) for (const d of joined) d.w.reject(err);
      (joining as Waiter | null)?.reject(err); // assigned inside the transaction's callback
      // No transaction at all (no connection: the database is down or out of connections): the
      // commits queued behind would each wait out the same connect timeout in turn; they fail now.
      if (!began) for (const w of queue.splice(0)) w.reject(err);
      return;
    }
    first.resolve(firstValue);
    for (const d of joined) {
      if (d.ok) d.w.resolve(d.value);
      else d.w.reject(d.err);
    }
  }

  /**
   * A commit joining the open transaction, in a savepoint: its failure undoes only its statements.
   * The previous joiner's savepoint is released in the same round trip as this one's is taken
   * (one subtransaction at a time; the last is released by COMMIT).
   */
  private async join(c: pg.PoolClient, w: Waiter, afterAnother: boolean): Promise<Outcome> {
    await c.query(afterAnother ? 'RELEASE SAVEPOINT g; SAVEPOINT g' : 'SAVEPOINT g');
    try {
      return { w, ok: true, value: await w.run(c) };
    } catch (err) {
      // A failed ROLLBACK TO (the connection is gone) fails the transaction, and with it every commit.
      await c.query('ROLLBACK TO SAVEPOINT g');
      return { w, ok: false, err };
    }
  }
}

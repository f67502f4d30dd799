/** SQLite implementation (better-sqlite3, WAL). Synchronous under the hood; prepared statements only. */
import type Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { commitProgram, runAsync, runSync } from './commit-program.js';
import { SqliteReader } from './sqlite-reader.js';
import { WorkerClient, WorkerError } from './worker-client.js';
import { AUTOCHECKPOINT_PAGES, openConnection, waitingForLock, type ConnectionSettings, type SqliteRole } from './sqlite-connection.js';
import type { CommitStep } from './commit-program.js';
import { sqlFamilies, type Families } from './families.js';
import { SqliteDb } from './sqlite-db.js';
import { SqliteSteps } from './sqlite-steps.js';
import { MIGRATIONS } from './migrations.js';
import {
  StoreBusy,
  StoreConflict,
  StoreIdempotencyTaken,
  StoreQuotaExceeded,
  StoreSlugTaken,
  type ChangesetRecord,
  type CommitInput,
  type Store,
  type StoreObserver,
} from './types.js';

/** A write waiting for the next shared transaction. */
interface PendingWrite {
  run: () => unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- holds the resolve of any Promise<T>
  resolve: (value: any) => void;
  reject: (err: unknown) => void;
}

/** The outcomes a write reports by throwing; they undo only that write. */
const isWriteOutcome = (err: unknown): boolean =>
  err instanceof StoreConflict || err instanceof StoreQuotaExceeded || err instanceof StoreIdempotencyTaken || err instanceof StoreSlugTaken;

export interface SqliteOptions {
  dataDir: string;
  synchronous: 'normal' | 'full';
  fileName?: string;
  /** How long a write waits for another process's write lock before failing with StoreBusy (default 5 s). */
  busyTimeoutMs?: number;
  /** Checkpoint the WAL from a background thread (the serving process); off for readers such as bash workers. */
  backgroundCheckpoint?: boolean;
  /** The connection's role (sqlite-connection.ts): a bash worker's store only reads. */
  role?: Extract<SqliteRole, 'serving' | 'bash'>;
}

/** With a background checkpointer: only a safety net, should that thread fall behind or die. */
const FALLBACK_AUTOCHECKPOINT_PAGES = 50_000;
const CHECKPOINT_INTERVAL_MS = 200;
/**
 * Free pages the checkpointer gives back per tick, at most (one short write transaction), how
 * many must be free before it starts, and how many while writes go on (checkpointer.ts;
 * docs/operations.md, "Disk space").
 */
const VACUUM_STEP_PAGES = 256;
const VACUUM_MIN_FREE_PAGES = 16;
const VACUUM_BUSY_FREE_PAGES = 2048;
const DEFAULT_BUSY_TIMEOUT_MS = 5000;
/**
 * Commits with more changes than this run alone in the bulk writer thread (see commitBulk). In a
 * group commit's savepoint SQLite journals every page a commit touches: 5,000 new files took 1.9 s
 * there against 0.67 s alone, 20,000 took 21.5 s against 1.6 s (measured); 500 take ~30 ms.
 */
export const BULK_CHANGES = 500;
/** Changes per step of a bulk commit (a message to the writer thread and back per step). */
const BULK_BATCH = 500;
/** The program's own JS work between steps yields to the event loop past this (building entries). */
const BULK_SLICE_MS = 10;

/** A step as it crosses to the bulk writer thread: file contents only where they are inserted. */
function leanStep(step: CommitStep): CommitStep {
  if (step.op !== 'applyNodes') return step;
  return {
    ...step,
    changes: step.changes.map((c) =>
      c.state.kind === 'file' && c.state.blob.bytes ? { ...c, state: { ...c.state, blob: { hash: c.state.blob.hash, size: c.state.blob.size } } } : c,
    ),
  };
}

/** The families' methods, assigned in the constructor (see families.ts). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging -- the merge is how the assigned methods get their types
export interface SqliteStore extends Families {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly file: string;
  private readonly db: Database.Database;
  private readonly steps: SqliteSteps;
  private readonly pingStmt: Database.Statement;
  /** The thread big commits run in (started on first use), and the last of them queued. */
  private readonly bulk: WorkerClient;
  /** Reads whose work grows with the data (search), off the event loop: started on first use. */
  private readonly reader: SqliteReader;
  private readonly indexer: WorkerClient;
  private bulkTail: Promise<unknown> = Promise.resolve();
  /** A bulk commit holds the write lock: group commits wait for it instead of polling. */
  private bulkActive = false;
  private readonly settings: ConnectionSettings;
  private checkpointer: Worker | null = null;
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  /** Consecutive flushes that found another process holding the write lock. */
  private lockTries = 0;
  private lockWaitStartedMs = 0;
  private readonly busyTimeoutMs: number;
  private observer: StoreObserver | null = null;
  /** Commits of this connection; with PRAGMA data_version (the others') it tells when to re-read auth_epoch. */
  private commits = 0;
  private readonly seen = { commits: -1, dataVersion: -1, stamp: 0 };
  private dataVersionStmt: Database.Statement | null = null;
  private epochStmt: Database.Statement | null = null;
  private epoch = 0;
  private epochAt = -1;

  constructor(opts: SqliteOptions) {
    mkdirSync(opts.dataDir, { recursive: true });
    this.file = join(opts.dataDir, opts.fileName ?? 'afs.sqlite');
    this.busyTimeoutMs = opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
    this.settings = { file: this.file, synchronous: opts.synchronous, busyTimeoutMs: this.busyTimeoutMs };
    this.db = openConnection(opts.role ?? 'serving', this.settings);
    if (opts.backgroundCheckpoint) this.startCheckpointer();
    this.steps = new SqliteSteps(this.db);
    this.pingStmt = this.db.prepare('SELECT 1');
    this.reader = new SqliteReader(this.settings);
    Object.assign(
      this,
      sqlFamilies(
        new SqliteDb(
          this.db,
          (run) => this.write(run),
          this.reader,
          () => this.dataStamp(),
        ),
      ),
    );
    this.bulk = new WorkerClient(new URL('./bulk-writer-thread.js', import.meta.url), this.settings, 'SQLite bulk writer');
    // The search index is written on a thread of its own (sqlite-indexer-thread.ts).
    const indexer = new WorkerClient(new URL('./sqlite-indexer-thread.js', import.meta.url), this.settings, 'SQLite indexer');
    this.indexer = indexer;
    this.indexPending = (batch) => indexer.call({ kind: 'batch', ...batch });
    this.compactSearchIndex = ({ pages }) => indexer.call({ kind: 'compact', pages });
  }

  async migrate(): Promise<number> {
    const run = this.db.transaction(() => {
      this.db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms INTEGER NOT NULL)');
      const row = this.db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number };
      let applied = 0;
      for (const m of MIGRATIONS) {
        if (m.version <= row.v) continue;
        this.db.exec(m.sqlite);
        this.db.prepare('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, ?)').run(m.version, m.name, Date.now());
        applied++;
      }
      return applied;
    });
    // Before serving: waiting here for another process's lock stalls nothing.
    return waitingForLock(this.db, this.busyTimeoutMs, () => {
      const applied = run.immediate();
      this.convertToIncrementalVacuum();
      return applied;
    });
  }

  /**
   * A file created before incremental auto-vacuum is rewritten once (VACUUM, which is what turns
   * the mode on for an existing file), so that from then on its free pages can be returned
   * (docs/operations.md, "Disk space": the first start after the upgrade takes about as long as
   * copying the file). 2 is INCREMENTAL; PRAGMA auto_vacuum reads the file's own setting.
   */
  private convertToIncrementalVacuum(): void {
    if (this.db.pragma('auto_vacuum', { simple: true }) === 2) return;
    this.db.pragma('auto_vacuum = INCREMENTAL');
    this.db.exec('VACUUM');
  }

  async ping(): Promise<void> {
    this.pingStmt.get();
  }

  private startCheckpointer(): void {
    const worker = new Worker(new URL('./checkpointer.js', import.meta.url), {
      workerData: {
        ...this.settings,
        intervalMs: CHECKPOINT_INTERVAL_MS,
        vacuumStepPages: VACUUM_STEP_PAGES,
        vacuumMinFreePages: VACUUM_MIN_FREE_PAGES,
        vacuumBusyFreePages: VACUUM_BUSY_FREE_PAGES,
      },
    });
    worker.unref();
    const fallBack = () => {
      if (this.checkpointer !== worker) return;
      this.checkpointer = null;
      if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    };
    worker.on('error', fallBack);
    worker.on('exit', fallBack);
    this.checkpointer = worker;
    this.db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  }

  private async stopCheckpointer(): Promise<void> {
    const worker = this.checkpointer;
    if (!worker) return;
    this.checkpointer = null;
    await new Promise<void>((resolve) => {
      const done = setTimeout(resolve, 2000);
      worker.once('message', () => {
        clearTimeout(done);
        resolve();
      });
      worker.postMessage('stop');
    });
    await worker.terminate();
  }

  async close(): Promise<void> {
    await this.bulkTail;
    await this.bulk.close();
    await this.reader.close();
    await this.indexer.close();
    await this.stopCheckpointer();
    // After serving: the last writes may wait in SQLite for another process's lock.
    if (this.db.open) waitingForLock(this.db, this.busyTimeoutMs, () => this.flushCommits(true));
    if (this.db.open) this.db.close();
  }

  /** Runs PRAGMA integrity_check; 'ok' when the file is sound. */
  integrityCheck(): string {
    const rows = this.db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    return rows.map((r) => r.integrity_check).join('\n');
  }

  /**
   * Group commit: commits requested during one turn of the event loop share one IMMEDIATE
   * transaction, each inside its own savepoint, so a conflict or quota refusal undoes only its
   * own commit. Nothing is answered before the shared COMMIT, so an acknowledged write is
   * durable exactly as before; what is shared is the WAL append and its page writes, which
   * dominate a commit's cost (measured: ~245 µs of BEGIN/COMMIT per write alone).
   */
  commit(input: CommitInput): Promise<ChangesetRecord> {
    if (input.changes.length > BULK_CHANGES) return this.commitBulk(input);
    return this.write(() => this.commitOne(input));
  }

  /**
   * A big commit (a recursive copy, move, delete or revert) runs alone in one transaction in the
   * bulk writer thread, BULK_BATCH changes per step: still one changeset, all or nothing, durable
   * at COMMIT, but this thread only plans the steps, and serves reads meanwhile (its connection
   * sees only committed data under WAL). Writes wait for it: SQLite has one writer. Bulk commits
   * queue behind each other.
   */
  private commitBulk(input: CommitInput): Promise<ChangesetRecord> {
    const run = this.bulkTail.then(() => this.runBulk(input));
    this.bulkTail = run.catch(() => undefined);
    return run;
  }

  private async runBulk(input: CommitInput): Promise<ChangesetRecord> {
    // One thread for the whole commit: should it die midway, the rest fails instead of running outside the transaction.
    const writer = this.bulk.session();
    // Group commits hold the lock only within one synchronous flush, so the thread's BEGIN waits
    // at most for another process; from here until the end they wait (flushCommits).
    this.bulkActive = true;
    const started = Date.now();
    try {
      try {
        await writer.call({ kind: 'begin' });
      } catch (err) {
        if (err instanceof WorkerError && err.code === 'SQLITE_BUSY') throw new StoreBusy(Date.now() - started);
        throw err;
      }
      try {
        const cs = await runAsync(
          commitProgram(input, Date.now(), BULK_BATCH),
          (step) => writer.call({ kind: 'step', step: leanStep(step) }),
          BULK_SLICE_MS,
        );
        await writer.call({ kind: 'commit' });
        return cs;
      } catch (err) {
        await writer.call({ kind: 'rollback' }).catch(() => {});
        throw err;
      }
    } finally {
      this.bulkActive = false;
      if (this.pending.length) this.scheduleFlush();
    }
  }

  /** Every write of this connection goes through here (see commit), so none waits on another process's lock. */
  private write<T>(run: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ run, resolve, reject });
      this.scheduleFlush();
    });
  }

  private scheduleFlush(delayMs = 0): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    if (delayMs > 0) setTimeout(() => this.flushCommits(false), delayMs);
    else setImmediate(() => this.flushCommits(false));
  }

  private commitOne(input: CommitInput): ChangesetRecord {
    return runSync(commitProgram(input, Date.now()), (step) => this.steps.exec(step));
  }

  /**
   * Takes the write lock for a batch without waiting: the serving connection's busy timeout is 0
   * (sqlite-connection.ts). Another process on the same file may hold it; SQLite's busy handler
   * would then sleep on this thread, stalling every request of this process, reads included.
   * Instead the batch is retried from the event loop (growing meanwhile) until the busy timeout;
   * only close() waits in SQLite.
   */
  private beginWrite(blocking: boolean): boolean {
    try {
      this.db.exec('BEGIN IMMEDIATE');
      return true;
    } catch (err) {
      if (!blocking && (err as { code?: string }).code === 'SQLITE_BUSY') return false;
      throw err;
    }
  }

  private failPending(err: unknown): void {
    this.lockTries = 0;
    const batch = this.pending;
    this.pending = [];
    for (const item of batch) item.reject(err);
  }

  /**
   * A number that moves whenever the file may have changed: a commit of this connection, or of any
   * other (PRAGMA data_version: other processes, the bulk writer, the indexer). Rows read while it
   * stands still are still current; checking costs one pragma (~1 µs), no table read.
   */
  dataStamp(): number {
    const dataVersion = this.readDataVersion();
    const seen = this.seen;
    if (seen.commits !== this.commits || seen.dataVersion !== dataVersion) {
      seen.commits = this.commits;
      seen.dataVersion = dataVersion;
      seen.stamp++;
    }
    return seen.stamp;
  }

  /**
   * PRAGMA data_version on every call (~1 µs, no table read). Not reused within a turn of the event
   * loop: a turn's timers run before it polls the sockets, so a value read then could predate a
   * revocation another process finished before a request of the same turn was sent.
   */
  private readDataVersion(): number {
    this.dataVersionStmt ??= this.db.prepare('PRAGMA data_version').pluck();
    return this.dataVersionStmt.get() as number;
  }

  /** auth_epoch (bumped by triggers when a key or an agent's name or slug changes), re-read only when the file changed. */
  authEpoch(): number {
    const stamp = this.dataStamp();
    if (this.epochAt !== stamp) {
      this.epochStmt ??= this.db.prepare('SELECT epoch FROM auth_epoch WHERE id = 1').pluck();
      this.epoch = this.epochStmt.get() as number;
      this.epochAt = stamp;
    }
    return this.epoch;
  }

  observe(observer: StoreObserver | null): void {
    this.observer = observer;
  }

  async refreshPlannerStats(): Promise<string[]> {
    return [];
  }

  poolStats(): null {
    return null;
  }

  private flushCommits(blocking: boolean): void {
    this.flushScheduled = false;
    if (this.pending.length === 0) return;
    if (this.bulkActive) return; // it holds the write lock; its end schedules this flush again
    let locked: boolean;
    try {
      locked = this.beginWrite(blocking);
    } catch (err) {
      return this.failPending(err); // I/O error, or busy past the timeout on close
    }
    if (!locked) {
      if (this.lockTries++ === 0) this.lockWaitStartedMs = Date.now();
      const waited = Date.now() - this.lockWaitStartedMs;
      if (waited >= this.busyTimeoutMs) return this.failPending(new StoreBusy(waited));
      // A few immediate retries catch a lock released within the turn; then poll every 1–4 ms.
      this.scheduleFlush(this.lockTries < 4 ? 0 : Math.min(4, this.lockTries >> 3 || 1));
      return;
    }
    this.lockTries = 0;
    const batch = this.pending;
    this.pending = [];
    // Since the write lock was taken: the batch's statements and COMMIT (its WAL write and sync).
    const startedAt = this.observer ? performance.now() : 0;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; err: unknown }> = [];
    try {
      if (batch.length === 1) {
        outcomes.push({ ok: true, value: batch[0]!.run() });
      } else {
        // Inside the open transaction, better-sqlite3 runs this as a savepoint: a write's own
        // refusal (conflict, quota, idempotency, slug taken) undoes only that write.
        const savepoint = this.db.transaction((run: () => unknown) => run());
        for (const { run } of batch) {
          try {
            outcomes.push({ ok: true, value: savepoint(run) });
          } catch (err) {
            // Anything else (disk full, I/O error) fails the batch; each write is then retried
            // alone below so one bad write cannot fail its neighbours.
            if (!isWriteOutcome(err)) throw err;
            outcomes.push({ ok: false, err });
          }
        }
      }
      this.db.exec('COMMIT');
      this.commits++;
      this.observer?.committed(batch.length, (performance.now() - startedAt) / 1000);
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      if (batch.length === 1) batch[0]!.reject(err);
      else for (const item of batch) this.commitAlone(item);
      return;
    }
    // Nothing is answered before COMMIT returned: an acknowledged write is durable.
    batch.forEach((item, i) => {
      const o = outcomes[i]!;
      if (o.ok) item.resolve(o.value);
      else item.reject(o.err);
    });
  }

  /** Rare (a batch failed for a reason not its writes'): it may wait in SQLite, as a blocking write did before. */
  private commitAlone(item: PendingWrite): void {
    try {
      item.resolve(waitingForLock(this.db, this.busyTimeoutMs, () => this.db.transaction(item.run).immediate()));
      this.commits++;
    } catch (err) {
      item.reject(err);
    }
  }
}

/** The SQLite executor of the shared queries: one cached prepared statement per query, rows as arrays. */
import type Database from 'better-sqlite3';
import type { SqliteReader } from './sqlite-reader.js';
import { runProgramSync, type Db, type Program, type Query, type Row, type Stmt, type WriteOptions } from './sql.js';

export class SqliteDb implements Db {
  readonly dialect = 'sqlite' as const;
  private readonly stmts = new Map<Query, Database.Statement>();

  /** `queue`: how writes reach the connection (the serving store's group commit); none on a connection that only runs steps. */
  constructor(
    private readonly db: Database.Database,
    private readonly queue?: <T>(run: () => T) => Promise<T>,
    private readonly reader?: SqliteReader,
    readonly stamp?: () => number,
  ) {}

  private stmt(q: Query): Database.Statement {
    let s = this.stmts.get(q);
    if (!s) {
      s = this.db.prepare(q.sqlite);
      if (s.reader) s.raw(true);
      this.stmts.set(q, s);
    }
    return s;
  }

  get(q: Query, params: unknown[]): Row | undefined {
    if (q.listAt >= 0) return this.all(q, params)[0];
    return this.stmt(q).get(...params) as Row | undefined;
  }

  /** A `?*` list runs the statement once per element: in-process calls cost less than building an IN list. */
  all(q: Query, params: unknown[]): Row[] {
    const s = this.stmt(q);
    if (q.listAt < 0) return s.all(...params) as Row[];
    const p = [...params];
    const out: Row[] = [];
    for (const v of params[q.listAt] as unknown[]) {
      p[q.listAt] = v;
      for (const r of s.all(...p) as Row[]) out.push(r);
    }
    return out;
  }

  /** On the reader thread when there is one (not for `?*` lists). */
  allLong(q: Query, params: unknown[]): Promise<Row[]> {
    if (!this.reader || q.listAt >= 0) return Promise.resolve(this.all(q, params));
    return this.reader.all(q.sqlite, params);
  }

  run(q: Query, params: unknown[]): number {
    const s = this.stmt(q);
    if (q.listAt < 0) return s.run(...params).changes;
    const p = [...params];
    let changes = 0;
    for (const v of params[q.listAt] as unknown[]) {
      p[q.listAt] = v;
      changes += s.run(...p).changes;
    }
    return changes;
  }

  exec(s: Stmt): unknown {
    if (s.mode === 'get') return this.get(s.q, s.params);
    if (s.mode === 'all') return this.all(s.q, s.params);
    return this.run(s.q, s.params);
  }

  /** Runs the program synchronously inside the group commit: SQLite serializes writes, so no lock option applies. */
  write<T>(program: () => Program<T>, _opts?: WriteOptions): Promise<T> {
    if (!this.queue) return Promise.reject(new Error('this SQLite connection takes no writes'));
    return this.queue(() => runProgramSync(program(), (s) => this.exec(s)));
  }
}

/**
 * The dialect layer: every query is written once, as SQL both SQLite and PostgreSQL accept, and
 * compiled for each when the module loads (never per call). What differs between the two is
 * spelled in one of four ways:
 * - placeholders: `?` everywhere; PostgreSQL gets `$1…$n`, numbered in order of appearance;
 * - a list parameter `?*` ("one of these"): PostgreSQL gets `= ANY($n::text[])`, one round trip;
 *   SQLite runs the statement once per element (in-process calls are cheaper than a temp table);
 * - `dialect({ sqlite, postgres })` for a fragment that must differ (INDEXED BY, max/GREATEST);
 * - booleans as TRUE/FALSE literals, which SQLite (3.23+) reads as 1/0.
 * `named` compiles the same way from `:name` parameters bound from one object (the write path's
 * statements, store/tables.ts).
 * Rows come back as arrays in SELECT order on both (see rows.ts for the one mapper per record).
 * Writes are programs (generators yielding statements), run by SQLite inside its group commit
 * and by PostgreSQL inside a transaction: one algorithm, two runners, as commit-program.ts does.
 */
import { subtreeRange } from '../core/paths.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Query {
  readonly sqlite: string;
  readonly postgres: string;
  /** The PostgreSQL prepared statement's name (one per query text). */
  readonly name: string;
  /** Index of the `?*` list parameter, or -1. */
  readonly listAt: number;
}

interface DialectPart {
  readonly sqlite: string;
  readonly postgres: string;
}

/** A fragment written differently for each backend. */
export const dialect = (part: DialectPart): DialectPart => part;

let queries = 0;

/** Compiles a query for both backends (at module load: the per-call cost is a property read). */
export function sql(strings: TemplateStringsArray, ...parts: Array<string | number | DialectPart>): Query {
  let sqlite = strings[0]!;
  let postgres = strings[0]!;
  parts.forEach((p, i) => {
    const [s, pg] = typeof p === 'object' ? [p.sqlite, p.postgres] : [String(p), String(p)];
    sqlite += s + strings[i + 1]!;
    postgres += pg + strings[i + 1]!;
  });
  let n = 0;
  let listAt = -1;
  postgres = postgres.replace(/\?\*?/g, (m) => {
    if (m === '?*') {
      if (listAt >= 0) throw new Error('a query takes at most one list parameter');
      listAt = n;
      return `ANY($${++n}::text[])`;
    }
    return `$${++n}`;
  });
  return { sqlite: sqlite.replace(/\?\*/g, '?'), postgres, name: `afs_q${++queries}`, listAt };
}

/** A query whose parameters are named (`:name`) and bound from one object (see `named`). */
export interface Named<P> {
  readonly q: Query;
  /** The values in the order the dialect's text takes them; SQLite gets booleans as 1/0. */
  params(p: P, dialect: Dialect): unknown[];
}

/** `:name`, not `::type` (a PostgreSQL cast) nor `x:y`. */
const NAME = /(?<![:\w]):([A-Za-z]\w*)/g;

/**
 * A query with named parameters (`:nowMs`), compiled once like `sql`: SQLite gets a `?` per
 * appearance (the name's value repeated), PostgreSQL a `$n` per distinct name, so a value used
 * three times is sent once. A write of 15 columns is then an object, not 15 values in order.
 */
export function named<P extends object>(strings: TemplateStringsArray, ...parts: Array<string | number | DialectPart>): Named<P> {
  const text = { sqlite: strings[0]!, postgres: strings[0]! };
  parts.forEach((p, i) => {
    text.sqlite += (typeof p === 'object' ? p.sqlite : String(p)) + strings[i + 1]!;
    text.postgres += (typeof p === 'object' ? p.postgres : String(p)) + strings[i + 1]!;
  });
  return namedQuery(text);
}

/** `named` for a text built by code (store/tables.ts), the same for both dialects or one each. */
export function namedQuery<P extends object>(text: string | DialectPart): Named<P> {
  if (typeof text === 'string') text = { sqlite: text, postgres: text };
  const sqliteNames: string[] = [];
  const pgNames: string[] = [];
  const q: Query = {
    sqlite: text.sqlite.replace(NAME, (_, n: string) => {
      sqliteNames.push(n);
      return '?';
    }),
    postgres: text.postgres.replace(NAME, (_, n: string) => {
      let at = pgNames.indexOf(n);
      if (at < 0) at = pgNames.push(n) - 1;
      return `$${at + 1}`;
    }),
    name: `afs_q${++queries}`,
    listAt: -1,
  };
  return {
    q,
    params(p, dialect) {
      const values = p as Record<string, unknown>;
      const names = dialect === 'sqlite' ? sqliteNames : pgNames;
      const out = new Array<unknown>(names.length);
      for (let i = 0; i < names.length; i++) {
        const v = values[names[i]!];
        if (v === undefined) throw new Error(`${q.name}: no value for :${names[i]}`);
        out[i] = dialect === 'sqlite' && typeof v === 'boolean' ? (v ? 1 : 0) : v;
      }
      return out;
    },
  };
}

/** One statement of a write program; `get` yields the first row (or undefined), `run` the rows changed. */
export type Stmt =
  { mode: 'get'; q: Query; params: unknown[] } | { mode: 'all'; q: Query; params: unknown[] } | { mode: 'run'; q: Query; params: unknown[] };

export type Row = unknown[];
export type Program<T> = Generator<Stmt, T, unknown>;

export function* get(q: Query, params: unknown[]): Generator<Stmt, Row | undefined, unknown> {
  return (yield { mode: 'get', q, params }) as Row | undefined;
}
export function* all(q: Query, params: unknown[]): Generator<Stmt, Row[], unknown> {
  return (yield { mode: 'all', q, params }) as Row[];
}
export function* run(q: Query, params: unknown[]): Generator<Stmt, number, unknown> {
  return (yield { mode: 'run', q, params }) as number;
}

export interface WriteOptions {
  /**
   * PostgreSQL: run the program in one transaction holding the agent's advisory lock (shared:
   * commits run concurrently; exclusive: nothing else of the agent commits meanwhile). SQLite
   * writes are serialized anyway.
   */
  agentLock?: { agentId: string; exclusive: boolean };
  /** PostgreSQL: several statements that must apply together run in a transaction. */
  atomic?: boolean;
  /**
   * false: a write whose loss in a crash is harmless on its own (it is redone: the packer, the
   * search indexer). PostgreSQL then commits it without waiting for its WAL flush (synchronous_commit
   * off, for this transaction only): ~190 µs of PostgreSQL CPU per commit here, the fsync. WAL order
   * keeps it safe: a crash loses only a suffix of such commits, and any durable commit after one
   * flushes it too. SQLite: no change (WAL mode syncs at checkpoints).
   */
  durable?: boolean;
}

/** A backend's executor; the store families (accounts, tree, history …) are written against it. */
export interface Db {
  readonly dialect: Dialect;
  get(q: Query, params: unknown[]): Row | undefined | Promise<Row | undefined>;
  all(q: Query, params: unknown[]): Row[] | Promise<Row[]>;
  /**
   * A read whose work grows with the data (a search ranks every match): SQLite runs it on its
   * reader thread, so the event loop is not held for the others; PostgreSQL as `all`.
   */
  allLong(q: Query, params: unknown[]): Promise<Row[]>;
  write<T>(program: () => Program<T>, opts?: WriteOptions): Promise<T>;
  /**
   * Moves whenever the database may have changed, from this process or any other (SQLite: see
   * SqliteStore.dataStamp); a row read at one value is current while it holds. Absent: unknowable.
   */
  readonly stamp?: () => number;
}

/** Runs a program whose statements complete synchronously (SQLite). */
export function runProgramSync<T>(program: Program<T>, exec: (s: Stmt) => unknown): T {
  let next = program.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = exec(next.value);
    } catch (err) {
      next = program.throw(err); // the program may turn a constraint error into a store outcome
      continue;
    }
    next = program.next(result);
  }
  return next.value;
}

export async function runProgram<T>(program: Program<T>, exec: (s: Stmt) => Promise<unknown>): Promise<T> {
  let next = program.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = await exec(next.value);
    } catch (err) {
      next = program.throw(err);
      continue;
    }
    next = program.next(result);
  }
  return next.value;
}

/** A unique constraint on table.column refused the row (SQLite's message, PostgreSQL's constraint name). */
export function isUniqueViolation(err: unknown, table: string, column: string): boolean {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e.code === '23505') return e.constraint === `${table}_${column}_key`;
  return String(e.message).includes(`UNIQUE constraint failed: ${table}.${column}`);
}

/**
 * The subtree range, in the one form every query uses: `path > ? AND path < ?` with these two
 * values. Strictly below `dir`, after `after` (exclusive) when it is inside the range. `dir + '/'`
 * itself is never a stored path, so `>` loses nothing.
 */
export function subtreeAfter(dir: string, after: string | null): [string, string] {
  const { lo, hi } = subtreeRange(dir);
  return [after !== null && after > lo ? after : lo, hi];
}

/** `limit + 1` rows tell whether a next page exists; this cuts them to a page and its cursor. */
export function pageOf<T extends { path: string }>(rows: Row[], limit: number, map: (r: Row) => T): { nodes: T[]; nextAfter: string | null } {
  const nodes = rows.slice(0, limit).map(map);
  return { nodes, nextAfter: rows.length > limit && nodes.length ? nodes[nodes.length - 1]!.path : null };
}

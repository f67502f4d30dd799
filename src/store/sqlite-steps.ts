/**
 * Runs the commit program's steps (commit-steps.ts) on one SQLite connection: the serving
 * connection's group commit, or the connection big commits run on (bulk-writer-thread.ts).
 * Synchronously: the step's statements run inside the commit's IMMEDIATE transaction.
 */
import type Database from 'better-sqlite3';
import type { CommitStep } from './commit-program.js';
import { stepProgram } from './commit-steps.js';
import { runProgramSync, type Stmt } from './sql.js';
import { SqliteDb } from './sqlite-db.js';

export class SqliteSteps {
  private readonly db: SqliteDb;

  constructor(db: Database.Database) {
    this.db = new SqliteDb(db);
  }

  private readonly run = (s: Stmt): unknown => this.db.exec(s);

  exec(step: CommitStep): unknown {
    return runProgramSync(stepProgram(step, 'sqlite'), this.run);
  }
}

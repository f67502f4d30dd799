/**
 * PostgreSQL servers of a test's own: a primary made by initdb in a temporary directory on its own
 * port, and streaming standbys of it made by pg_basebackup -R (the machine's shared PostgreSQL is
 * never touched). Debian's server binaries are required: their absence fails the test loudly.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Debian's PostgreSQL binaries (initdb, pg_ctl, pg_basebackup), newest version first. */
export function pgBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(join(root, v, 'bin', 'pg_ctl'))) return join(root, v, 'bin');
  throw new Error(`No PostgreSQL server binaries under ${root}: install postgresql (the suite needs initdb, pg_ctl and pg_basebackup).`);
}

/** initdb and pg_ctl refuse to run as root: as root the cluster belongs to the postgres user. */
export function asOwner(cmd: string, args: string[]): string {
  const run = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  return execFileSync(run[0] as string, run[1] as string[], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function ownedTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (process.getuid?.() === 0) execFileSync('chown', ['-R', 'postgres', dir]);
  return dir;
}

export class ThrowawayPostgres {
  readonly data: string;
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {
    this.data = join(dir, 'data');
  }

  /** A new primary (initdb; its default pg_hba trusts local and replication connections). */
  static primary(port: number, prefix = 'afs-pg-'): ThrowawayPostgres {
    const db = new ThrowawayPostgres(ownedTempDir(prefix), port);
    asOwner(join(pgBin(), 'initdb'), ['-D', db.data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions']);
    return db;
  }

  /** A streaming standby of this (running) server: pg_basebackup -R into a new directory. */
  standby(port: number): ThrowawayPostgres {
    const db = new ThrowawayPostgres(ownedTempDir('afs-pg-standby-'), port);
    asOwner(join(pgBin(), 'pg_basebackup'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(this.port),
      '-U',
      'postgres',
      '-D',
      db.data,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
    ]);
    // The backup holds the primary's settings (hot_standby is on by default); -R wrote
    // standby.signal and primary_conninfo; the standby's own port comes from start()'s command line.
    return db;
  }

  /** postgres://…/{database} on this server. */
  url(database = 'afs'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  start(): void {
    const opts = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    asOwner(join(pgBin(), 'pg_ctl'), ['-D', this.data, '-o', opts, '-l', join(this.dir, 'log'), '-w', 'start']);
  }

  stop(mode: 'fast' | 'immediate' = 'fast'): void {
    asOwner(join(pgBin(), 'pg_ctl'), ['-D', this.data, '-m', mode, '-w', 'stop']);
  }

  /** Runs one statement on this server (its `postgres` database unless named). */
  async sql(text: string, database = 'postgres'): Promise<pg.QueryResult> {
    const c = new pg.Client({ connectionString: this.url(database) });
    await c.connect();
    try {
      return await c.query(text);
    } finally {
      await c.end();
    }
  }

  remove(): void {
    try {
      this.stop('immediate');
    } catch {
      /* already stopped */
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

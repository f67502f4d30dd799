/**
 * `npm run backup -- <file>`: a consistent online snapshot of the SQLite store while the server
 * keeps serving (store/sqlite-backup.ts), checked before it is kept. PostgreSQL has its own tool:
 * `pg_dump` (docs/operations.md).
 */
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config.js';
import { BackupError, backupSqlite } from './store/sqlite-backup.js';

const target = process.argv[2];
try {
  if (!target || target.startsWith('-')) throw new BackupError('Usage: npm run backup -- <file>   (a new file: a backup never overwrites one)');
  const config = loadConfig();
  if (config.databaseUrl) {
    throw new BackupError(
      'DATABASE_URL is set: back PostgreSQL up with its own tool, e.g. `pg_dump --format=custom --file=afs.dump "$DATABASE_URL"` (docs/operations.md).',
    );
  }
  const r = backupSqlite(join(config.dataDir, 'afs.sqlite'), target, config.sqliteBusyTimeoutMs);
  process.stdout.write(
    `backup: ${r.file} (${r.bytes} bytes, ${r.seconds.toFixed(1)} s) — checked: ${r.counts.agents} agents, ${r.counts.files} files, ` +
      `${r.counts.versions} versions, ${r.counts.blobs} contents, ${r.counts.changesets} changesets\n`,
  );
} catch (err) {
  if (err instanceof BackupError || err instanceof ConfigError) {
    process.stderr.write(`backup: ${err.message}\n`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  }
  throw err;
}

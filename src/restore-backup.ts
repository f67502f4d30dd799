/**
 * `npm run restore-backup -- <file>`: checks a backup made by `npm run backup` (SQLite's integrity
 * check and the service's invariants, every content hashed), then, with the server stopped, puts
 * it in place of DATA_DIR's database; the replaced one is kept beside it (`.before-restore-…`).
 */
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config.js';
import { BackupError, restoreSqlite } from './store/sqlite-backup.js';

const source = process.argv[2];
try {
  if (!source || source.startsWith('-')) throw new BackupError('Usage: npm run restore-backup -- <backup file>   (stop the server first)');
  const config = loadConfig();
  if (config.databaseUrl) {
    throw new BackupError('DATABASE_URL is set: restore PostgreSQL with `pg_restore` (docs/operations.md).');
  }
  const r = restoreSqlite(source, join(config.dataDir, 'afs.sqlite'));
  process.stdout.write(
    `restored ${source} into ${config.dataDir} — ${r.counts.agents} agents, ${r.counts.files} files, ${r.counts.versions} versions` +
      (r.previous ? `; the database it replaced is kept at ${r.previous}\n` : '\n'),
  );
} catch (err) {
  if (err instanceof BackupError || err instanceof ConfigError) {
    process.stderr.write(`restore-backup: ${err.message}\n`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  }
  throw err;
}

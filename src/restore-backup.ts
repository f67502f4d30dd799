/**
 * `npm run restore-backup -- <file>`: checks a backup made by `npm run backup` (SQLite's integrity
 * check and the service's invariants, every content hashed), then, with the server stopped, puts
 * it in place of DATA_DIR's database; the replaced one is kept beside it (`.before-restore-…`).
 * With BLOB_STORE, the objects it references that the bucket lacks are PUT back from
 * `<file>.objects/` (store/blob-backup.ts); on PostgreSQL, after pg_restore,
 * `npm run restore-backup -- --objects <dir>` does that for the restored database.
 */
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config.js';
import { ObjectBackupError, postgresRefs, restoreObjects, sqliteRefs } from './store/blob-backup.js';
import { openS3Objects } from './store/blob-objects-s3.js';
import { ObjectStoreUnavailable } from './store/blob-objects.js';
import { BackupError, restoreSqlite } from './store/sqlite-backup.js';

const [first, second] = process.argv.slice(2);
try {
  const config = loadConfig();
  const objectsOnly = first === '--objects';
  const source = objectsOnly ? second : first;
  if (!source || source.startsWith('-')) {
    throw new BackupError('Usage: npm run restore-backup -- <backup file>   (stop the server first), or -- --objects <dir> (PostgreSQL)');
  }
  if (objectsOnly && !config.blobStore) throw new BackupError('--objects restores the objects of BLOB_STORE, which is not set.');
  if (config.databaseUrl && !objectsOnly) {
    throw new BackupError(
      'DATABASE_URL is set: restore PostgreSQL with `pg_restore`' +
        (config.blobStore ? ', then the bucket with `npm run restore-backup -- --objects <dir>`' : '') +
        ' (docs/operations.md).',
    );
  }
  let refs;
  if (!config.databaseUrl) {
    const file = join(config.dataDir, 'afs.sqlite');
    const r = restoreSqlite(source, file);
    process.stdout.write(
      `restored ${source} into ${config.dataDir} — ${r.counts.agents} agents, ${r.counts.files} files, ${r.counts.versions} versions` +
        (r.previous ? `; the database it replaced is kept at ${r.previous}\n` : '\n'),
    );
    refs = sqliteRefs(file);
  } else {
    refs = postgresRefs(config.databaseUrl);
  }
  if (config.blobStore) {
    const dir = objectsOnly ? source : `${source}.objects`;
    const objects = openS3Objects(config.blobStore);
    try {
      const o = await restoreObjects(objects, refs, dir);
      process.stdout.write(`restored ${o.restored} objects into ${objects.location} from ${dir}; ${o.present} were there\n`);
    } finally {
      objects.close();
    }
  }
} catch (err) {
  if (err instanceof BackupError || err instanceof ConfigError || err instanceof ObjectBackupError || err instanceof ObjectStoreUnavailable) {
    process.stderr.write(`restore-backup: ${err.message}\n`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  }
  throw err;
}

/**
 * `npm run backup -- <file>`: a consistent online snapshot of the SQLite store while the server
 * keeps serving (store/sqlite-backup.ts), checked before it is kept; with BLOB_STORE, the objects
 * it references are copied beside it into `<file>.objects/` (store/blob-backup.ts). PostgreSQL has
 * its own tool, `pg_dump`; `npm run backup -- --objects <dir>` is then the bucket's part (run it
 * before and after pg_dump: docs/operations.md).
 */
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config.js';
import { backupObjects, ObjectBackupError, postgresRefs, sqliteRefs } from './store/blob-backup.js';
import { openS3Objects } from './store/blob-objects-s3.js';
import { ObjectStoreUnavailable } from './store/blob-objects.js';
import { BackupError, backupSqlite } from './store/sqlite-backup.js';

const [first, second] = process.argv.slice(2);
try {
  const config = loadConfig();
  const objectsOnly = first === '--objects';
  const target = objectsOnly ? second : first;
  if (!target || target.startsWith('-')) {
    throw new BackupError('Usage: npm run backup -- <file>   (a new file: a backup never overwrites one), or -- --objects <dir> (PostgreSQL)');
  }
  if (objectsOnly && !config.blobStore) throw new BackupError('--objects copies the objects of BLOB_STORE, which is not set.');
  if (config.databaseUrl && !objectsOnly) {
    throw new BackupError(
      'DATABASE_URL is set: back PostgreSQL up with its own tool, e.g. `pg_dump --format=custom --file=afs.dump "$DATABASE_URL"`' +
        (config.blobStore ? ', and the bucket with `npm run backup -- --objects <dir>` before and after it' : '') +
        ' (docs/operations.md).',
    );
  }
  let refs;
  if (!config.databaseUrl) {
    const r = backupSqlite(join(config.dataDir, 'afs.sqlite'), target, config.sqliteBusyTimeoutMs);
    process.stdout.write(
      `backup: ${r.file} (${r.bytes} bytes, ${r.seconds.toFixed(1)} s) — checked: ${r.counts.agents} agents, ${r.counts.files} files, ` +
        `${r.counts.versions} versions, ${r.counts.blobs} contents, ${r.counts.changesets} changesets\n`,
    );
    refs = sqliteRefs(target);
  } else {
    refs = postgresRefs(config.databaseUrl);
  }
  if (config.blobStore) {
    const dir = objectsOnly ? target : `${target}.objects`;
    const objects = openS3Objects(config.blobStore);
    try {
      const o = await backupObjects(objects, refs, dir);
      process.stdout.write(`backup: ${dir} — ${o.copied} objects copied from ${objects.location}, ${o.kept} already there\n`);
    } finally {
      objects.close();
    }
  }
} catch (err) {
  if (err instanceof BackupError || err instanceof ConfigError || err instanceof ObjectBackupError || err instanceof ObjectStoreUnavailable) {
    process.stderr.write(`backup: ${err.message}\n`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  }
  throw err;
}

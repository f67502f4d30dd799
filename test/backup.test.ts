/**
 * `npm run backup` and `npm run restore-backup` on SQLite, with real processes: a
 * backup taken while a client writes continuously is internally consistent (SQLite's check, every
 * version's content present and hashing to its address, every version's changeset there) and
 * holds every write acknowledged before it started; a restore refuses a damaged backup and a live
 * database, and otherwise brings the service back to the backup's state, keeping what it replaced.
 * PostgreSQL backs up with pg_dump: the commands say so.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { contentHash } from '../src/core/text.js';
import { checkSnapshot } from '../src/store/snapshot-check.js';
import { freePort, spawnServer, type ChildServer } from './helpers/server.js';

const DIST = fileURLToPath(new URL('../src/', import.meta.url));

function runCli(
  script: 'backup.js' | 'restore-backup.js',
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(DIST, script), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

const contentOf = (i: number) => `write ${i}\n${'x'.repeat(i % 7 === 0 ? 3000 : 200)}\n`;

describe('backup and restore (SQLite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'afs-backup-'));
  const data = join(dir, 'data');
  const env = { DATA_DIR: data, DATABASE_URL: '' };
  let server: ChildServer;
  let key: string;
  let port: number;
  const backupFile = join(dir, 'snapshot.sqlite');
  let ackedBeforeBackup = 0;
  let lastWritten = -1;

  before(async () => {
    port = await freePort();
    server = await spawnServer(env, port);
    key = (await server.register('Backed Up')).apiKey;
  });
  after(async () => {
    await server?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes a consistent snapshot while writes continue, holding every write acknowledged before it', async () => {
    let stop = false;
    let acked = 0;
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        await server.ok(key, 'write', { path: `/w/${i}.txt`, content: contentOf(i) });
        // Every third file gets a second version: history is in the snapshot too.
        if (i % 3 === 0) await server.ok(key, 'append', { path: `/w/${i}.txt`, content: 'more\n' });
        acked = i + 1;
        lastWritten = i;
      }
    })();
    while (acked < 40) await new Promise((r) => setTimeout(r, 10));
    ackedBeforeBackup = acked;
    const r = await runCli('backup.js', [backupFile], env);
    const ackedAfterBackup = acked;
    while (acked < ackedAfterBackup + 10) await new Promise((r) => setTimeout(r, 10));
    stop = true;
    await writer;
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^backup: .*snapshot\.sqlite \(\d+ bytes, [\d.]+ s\) — checked: 1 agents, \d+ files/);
    assert.ok(lastWritten + 1 > ackedAfterBackup, 'writes went on after the backup');

    const report = checkSnapshot(backupFile, { deep: true });
    assert.deepEqual(report.problems, []);
    const db = new Database(backupFile, { readonly: true });
    try {
      const files = db.prepare("SELECT path, blob_hash, version FROM nodes WHERE kind = 'file' AND NOT deleted").all() as {
        path: string;
        blob_hash: string;
        version: number;
      }[];
      const byPath = new Map(files.map((f) => [f.path, f]));
      for (let i = 0; i < ackedBeforeBackup; i++) {
        const f = byPath.get(`/w/${i}.txt`);
        assert.ok(f, `/w/${i}.txt (acknowledged before the backup) is in it`);
        const expected = i % 3 === 0 ? contentOf(i) + 'more\n' : contentOf(i);
        assert.equal(f.blob_hash, contentHash(Buffer.from(expected)), `/w/${i}.txt holds its last acknowledged content`);
        assert.equal(f.version, i % 3 === 0 ? 2 : 1);
      }
      // Never half a changeset: each file in it has all its versions up to its head.
      const gaps = db
        .prepare(
          'SELECT COUNT(*) AS n FROM nodes n WHERE (SELECT COUNT(*) FROM versions v WHERE v.agent_id = n.agent_id AND v.path = n.path) != n.version',
        )
        .get() as { n: number };
      assert.equal(gaps.n, 0);
    } finally {
      db.close();
    }
  });

  it('never overwrites a file; points PostgreSQL to pg_dump', async () => {
    const again = await runCli('backup.js', [backupFile], env);
    assert.equal(again.code, 1);
    assert.match(again.err, /exists: name a new file/);
    const usage = await runCli('backup.js', [], env);
    assert.equal(usage.code, 1);
    assert.match(usage.err, /Usage: npm run backup -- <file>/);
    const pg = await runCli('backup.js', [join(dir, 'pg.sqlite')], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    assert.equal(pg.code, 1);
    assert.match(pg.err, /pg_dump/);
    const pgRestore = await runCli('restore-backup.js', [backupFile], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    assert.equal(pgRestore.code, 1);
    assert.match(pgRestore.err, /pg_restore/);
  });

  it('refuses to restore over a database in use, and a damaged backup, changing nothing', async () => {
    const live = await runCli('restore-backup.js', [backupFile], env);
    assert.equal(live.code, 1);
    assert.match(live.err, /in use .*stop the server first/);
    assert.equal((await server.ok(key, 'read', { path: `/w/${lastWritten}.txt` })).version >= 1, true, 'the live database is untouched');
    const damaged = join(dir, 'damaged.sqlite');
    copyFileSync(backupFile, damaged);
    const db = new Database(damaged);
    db.prepare('DELETE FROM blobs WHERE rowid = (SELECT MIN(rowid) FROM blobs)').run();
    db.close();
    const r = await runCli('restore-backup.js', [damaged], env);
    assert.equal(r.code, 1);
    assert.match(r.err, /failed its check, nothing was changed: \d+ versions whose content is missing/);
  });

  it('restores the backup into a stopped deployment: the service comes back at the backup, the old database kept', async () => {
    await server.kill('SIGTERM');
    const r = await runCli('restore-backup.js', [backupFile], env);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /the database it replaced is kept at .*afs\.sqlite\.before-restore-/);
    const kept = readdirSync(data).filter((f) => f.includes('before-restore'));
    assert.ok(
      kept.some((f) => f.endsWith('afs.sqlite') || /before-restore-[^.]+$/.test(f)),
      kept.join(', '),
    );
    assert.ok(!existsSync(join(data, 'afs.sqlite.restoring')));
    server = await spawnServer(env, port);
    const first = await server.ok(key, 'read', { path: '/w/0.txt' });
    assert.equal(first.content, contentOf(0) + 'more\n');
    const newest = await server.call(key, 'read', { path: `/w/${lastWritten}.txt` });
    assert.equal(newest.inner.error.code, 'NOT_FOUND', 'a write made after the backup is not in the restored state');
  });
});

/**
 * SQLite's disk filling up: DATA_DIR on a small tmpfs of the test's own, filled by
 * another file. Writes are then refused with 503 UNAVAILABLE naming the full disk (never a 500),
 * reads go on, nothing is corrupted, and once space returns writes succeed again with every
 * acknowledged write intact. Mounting needs root (as on this project's machines and CI);
 * elsewhere the test is skipped, saying why.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { freePort, spawnServer, type ChildServer } from './helpers/server.js';

const root = process.getuid?.() === 0;

/** Writes zeros to `file` until the disk is full (ENOSPC); returns the bytes written. */
function fill(file: string): number {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  return written;
}

describe('SQLite disk full', { skip: !root && 'mounting a small tmpfs needs root' }, () => {
  const mnt = mkdtempSync(join(tmpdir(), 'afs-full-'));
  const data = join(mnt, 'data');
  const filler = join(mnt, 'filler');
  let server: ChildServer;
  let key: string;
  before(async () => {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', mnt]);
    mkdirSync(data);
    server = await spawnServer({ DATA_DIR: data, DATABASE_URL: '' }, await freePort());
    key = (await server.register('Disk Filler')).apiKey;
  });
  after(async () => {
    await server?.kill();
    try {
      execFileSync('umount', [mnt]);
    } finally {
      rmSync(mnt, { recursive: true, force: true });
    }
  });

  it('refuses writes with UNAVAILABLE while the disk is full, keeps reading, and recovers intact when space returns', async () => {
    const acked = new Map<string, string>();
    const write = async (i: number) => {
      const path = `/full/${i}.txt`;
      const content = `${i}:${'y'.repeat(20_000)}\n`;
      const r = await server.call(key, 'write', { path, content });
      if (r.status === 200 && !r.isError) acked.set(path, content);
      return r;
    };
    for (let i = 0; i < 20; i++) assert.equal((await write(i)).status, 200);
    fill(filler);
    const refused = [];
    for (let i = 20; i < 60; i++) {
      const r = await write(i);
      assert.notEqual(r.status, 500, JSON.stringify(r.body).slice(0, 300));
      if (r.status !== 200) refused.push(r);
    }
    assert.ok(refused.length > 0, 'writes were refused on the full disk');
    for (const r of refused) {
      assert.equal(r.status, 503);
      assert.equal(r.inner.error.code, 'UNAVAILABLE');
      assert.match(r.inner.error.message, /disk holding the database is full|cannot be read or written/);
      assert.equal(r.headers.get('retry-after'), '1');
    }
    assert.equal((await server.ok(key, 'read', { path: '/full/0.txt' })).content, acked.get('/full/0.txt'), 'reads go on');

    rmSync(filler);
    const again = await write(1000);
    assert.equal(again.status, 200, JSON.stringify(again.body).slice(0, 300));
    for (const [path, content] of acked) assert.equal((await server.ok(key, 'read', { path })).content, content, path);
    await server.kill('SIGTERM');
    const db = new Database(join(data, 'afs.sqlite'), { readonly: true });
    try {
      assert.deepEqual(db.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
    } finally {
      db.close();
    }
  });
});

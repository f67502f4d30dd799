/**
 * Blobs in object storage (store/blob-objects.ts) against a real one-node OpenStack Swift with
 * its s3api middleware (helpers/swift.ts), on both backends: big contents are objects and small
 * ones stay inline; reads (read, bash, history, byte ranges) get the bytes; dedupe per agent;
 * quota in logical bytes; the packer leaves external contents; purge then the sweep removes the
 * object, and the sweep leaves referenced and young objects; Swift stopped mid-load: writes of big
 * contents answer 503 UNAVAILABLE with Retry-After and commit nothing, small writes and inline or
 * cached reads go on, and all recovers once it is back; Swift hanging (paused): the write times
 * out into the same 503. `npm run backup` / `restore-backup` carry
 * the bucket's part: objects a purge and sweep removed since the backup come back on restore.
 * A machine without Swift fails here. npm test runs it on SQLite and test:slow on PostgreSQL
 * (heavyBackends: ~1 min of suite time per backend, most of it Swift's start), so every CI run
 * covers both and every npm test runs against the real Swift.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import Database from 'better-sqlite3';
import pg from 'pg';
import { contentHash } from '../src/core/text.js';
import { createTestDatabase, heavyBackends, type TestDatabase } from './helpers/backends.js';
import { freePort, spawnServer, startServer, type ChildServer, type TestServer } from './helpers/server.js';
import { startSwift, type Swift } from './helpers/swift.js';

const INLINE = 4096;
/** The test server's BLOB_STORE_TIMEOUT_MS: well above a PUT here (a whole big write's p90 was 0.19-0.29 s at a load average of ~27). */
const TIMEOUT_MS = 3000;
/** A text of `kb` KiB, distinct per seed (lines of 64 bytes). */
const text = (kb: number, seed: string) =>
  Array.from({ length: kb * 16 }, (_, i) => `${seed} line ${String(i).padStart(6, '0')} `.padEnd(63, '.') + '\n').join('');

/** Rows of the server's own database (SQLite read-only beside it, or a PostgreSQL connection). */
async function query(s: TestServer, text: string, params: unknown[] = []): Promise<unknown[][]> {
  if (s.backend === 'sqlite') {
    const db = new Database((s.store as any).file as string, { readonly: true, fileMustExist: true });
    try {
      return db
        .prepare(text.replace(/\$\d+/g, '?'))
        .raw()
        .all(...params) as unknown[][];
    } finally {
      db.close();
    }
  }
  const c = new pg.Client({ connectionString: s.config.databaseUrl });
  await c.connect();
  try {
    return (await c.query({ text, values: params, rowMode: 'array' })).rows as unknown[][];
  } finally {
    await c.end();
  }
}

let swift: Swift;
let s3: S3Client;
const BUCKET = 'afs';

before(async () => {
  swift = await startSwift();
  s3 = new S3Client({
    endpoint: swift.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey },
  });
});
after(async () => {
  s3?.destroy();
  await swift?.stop();
});

for (const backend of heavyBackends()) {
  describe(`blobs in object storage (Swift s3api) — ${backend}`, () => {
    let s: TestServer;
    let prefix: string;
    let key: string;
    let agent: string;
    const objectKey = (hash: string, agentId = agent) => `${prefix}/${agentId}/${hash.slice('sha256:'.length)}`;
    const hasObject = async (hash: string, agentId = agent) => {
      try {
        await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: objectKey(hash, agentId) }));
        return true;
      } catch (err) {
        if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
        throw err;
      }
    };
    const blobRow = async (hash: string) =>
      (await query(s, 'SELECT encoding, length(content), size FROM blobs WHERE agent_id = $1 AND hash = $2', [agent, hash]))[0];

    before(async () => {
      prefix = `t-${backend}-${randomUUID().slice(0, 8)}`;
      s = await startServer(backend, {
        ...swift.env(BUCKET, prefix),
        BLOB_INLINE_BYTES: String(INLINE),
        BASH_WORKERS: '1',
        BASH_TIMEOUT_MS: '60000',
        BLOB_STORE_TIMEOUT_MS: String(TIMEOUT_MS),
      });
      const reg = await s.register('S3 Agent');
      key = reg.apiKey;
      agent = reg.id;
    });
    after(async () => {
      await s?.close();
    });

    it('stores a big content as an object and a small one inline; every reader gets the bytes', async () => {
      const big = text(40, 'big');
      const small = 'small content\n';
      await s.ok(key, 'write', { path: '/big.txt', content: big });
      await s.ok(key, 'write', { path: '/small.txt', content: small });
      const bigHash = contentHash(Buffer.from(big));
      assert.deepEqual((await blobRow(bigHash))!.map(String), ['external', '0', String(big.length)]);
      assert.ok(await hasObject(bigHash), 'the big content is an object');
      const smallHash = contentHash(Buffer.from(small));
      assert.deepEqual((await blobRow(smallHash))!.map(String), ['raw', String(small.length), String(small.length)]);
      assert.equal(await hasObject(smallHash), false, 'a small content stays inline');

      assert.equal((await s.ok(key, 'read', { path: '/big.txt' })).content, big);
      assert.equal((await s.ok(key, 'read', { path: '/small.txt' })).content, small);
      const sum = await s.ok(key, 'bash', { command: 'wc -c /big.txt && tail -n 1 /big.txt' });
      assert.match(sum.stdout, new RegExp(`^${big.length} /big.txt\n${big.split('\n').at(-2)}\n$`));
      // A byte range of an external content is its own request, and matches the bytes.
      const range = await s.store.getBlobRange(agent, bigHash, 1000, 1100);
      assert.equal(range!.toString(), big.slice(1000, 1100));
      assert.equal((await s.store.getBlobRange(agent, bigHash, big.length - 10, big.length + 50))!.toString(), big.slice(-10));
    });

    it('dedupes per agent, charges logical bytes, and keeps old versions readable (the packer leaves external contents)', async () => {
      const before = (await s.ok(key, 'get_key_info')).usage.storageBytes;
      const v1 = text(20, 'ver1');
      const v2 = text(20, 'ver2');
      await s.ok(key, 'write', { path: '/d/a.txt', content: v1 });
      await s.ok(key, 'write', { path: '/d/b.txt', content: v1 });
      await s.ok(key, 'write', { path: '/d/a.txt', content: v2 });
      const after = (await s.ok(key, 'get_key_info')).usage.storageBytes;
      assert.equal(after - before, v1.length + v2.length, 'one charge per distinct content');
      const h1 = contentHash(Buffer.from(v1));
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${prefix}/${agent}/` }));
      assert.equal(listed.Contents!.filter((o) => o.Key === objectKey(h1)).length, 1);
      for (;;) if (!(await s.store.packPending()).more) break;
      assert.equal(String((await blobRow(h1))![0]), 'external', 'the packer left the superseded external content');
      const old = await s.ok(key, 'read', { path: '/d/a.txt', version: 1 });
      assert.equal(old.content, v1);
      // Another agent writing the same bytes gets its own object: nothing is shared across agents.
      const other = await s.register('Other');
      await s.ok(other.apiKey, 'write', { path: '/same.txt', content: v1 });
      assert.ok(await hasObject(h1, other.id));
    });

    it('purge frees the quota at once; the sweep then deletes the object, and leaves referenced and young ones', async () => {
      const gone = text(10, 'purged');
      const hash = contentHash(Buffer.from(gone));
      await s.ok(key, 'write', { path: '/p/gone.txt', content: gone });
      const used = (await s.ok(key, 'get_key_info')).usage.storageBytes;
      await s.ok(key, 'delete', { path: '/p/gone.txt' });
      await s.ok(key, 'purge', { path: '/p/gone.txt', confirm: true });
      assert.equal((await s.ok(key, 'get_key_info')).usage.storageBytes, used - gone.length);
      assert.equal(await blobRow(hash), undefined);
      assert.ok(await hasObject(hash), 'purge leaves the object to the sweep');
      // An object no commit references (a crash between PUT and COMMIT).
      const orphan = contentHash(Buffer.from('orphan'));
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: objectKey(orphan), Body: 'orphan' }));
      // Young objects stay: the grace period covers a commit under way.
      const young = await s.store.sweepObjects(3_600_000);
      assert.equal(young.deleted, 0);
      assert.ok(await hasObject(hash));
      const swept = await s.store.sweepObjects(0, Date.now() + 2000);
      assert.equal(swept.deleted, 2);
      assert.equal(await hasObject(hash), false);
      assert.equal(await hasObject(orphan), false);
      // Every external row still has its object.
      for (const [h] of await query(s, "SELECT hash FROM blobs WHERE agent_id = $1 AND encoding = 'external'", [agent])) {
        assert.ok(await hasObject(String(h)), `${h} kept`);
      }
      assert.equal((await s.ok(key, 'read', { path: '/big.txt' })).content.length, 40 * 1024);
    });

    it("a big commit (past SQLite's bulk threshold: its own writer thread) stores its contents as objects", async () => {
      const r = await s.ok(key, 'bash', {
        command: 'mkdir /many && for i in $(seq 1 510); do head -c 5000 /d/a.txt > /many/$i.txt; echo "$i" >> /many/$i.txt; done',
      });
      assert.equal(r.exitCode, 0, r.stderr);
      const rows = await query(
        s,
        "SELECT b.encoding, COUNT(*) FROM nodes n JOIN blobs b ON b.agent_id = n.agent_id AND b.hash = n.blob_hash WHERE n.agent_id = $1 AND n.parent = '/many' GROUP BY b.encoding",
        [agent],
      );
      assert.deepEqual(
        rows.map((x) => x.map(String)),
        [['external', '510']],
      );
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${prefix}/${agent}/` }));
      assert.ok(listed.KeyCount! >= 510);
      assert.equal((await s.ok(key, 'read', { path: '/many/510.txt' })).content, `${text(20, 'ver2').slice(0, 5000)}510\n`);
    });

    it('a missing object is a loud error, not empty content', async () => {
      const lost = text(8, 'lost');
      const hash = contentHash(Buffer.from(lost));
      await s.ok(key, 'write', { path: '/lost.txt', content: lost });
      await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: objectKey(hash) }));
      const r = await s.call(key, 'read', { path: '/lost.txt' });
      assert.equal(r.status, 500);
      assert.equal(r.inner?.error?.code, 'INTERNAL_ERROR');
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: objectKey(hash), Body: lost }));
      assert.equal((await s.ok(key, 'read', { path: '/lost.txt' })).content, lost);
    });

    it('Swift stopped mid-load: big writes answer 503 + Retry-After and commit nothing; small writes and inline or cached reads go on; all recovers', async () => {
      const cachedBig = text(12, 'cached');
      await s.ok(key, 'write', { path: '/f/cached.txt', content: cachedBig });
      assert.equal((await s.ok(key, 'bash', { command: 'wc -c /f/cached.txt' })).stdout, `${cachedBig.length} /f/cached.txt\n`);
      let stopLoad = false;
      const acknowledged: Array<{ path: string; content: string }> = [];
      const refused: string[] = [];
      let n = 0;
      const failures: unknown[] = [];
      const load = async () => {
        try {
          while (!stopLoad) {
            const i = n++;
            const content = text(6, `load${i}`);
            const r = await s.call(key, 'write', { path: `/load/${i}.txt`, content });
            if (r.status === 200 && r.inner?.success) acknowledged.push({ path: `/load/${i}.txt`, content });
            else {
              assert.equal(r.status, 503, JSON.stringify(r.body));
              assert.equal(r.inner?.error?.code, 'UNAVAILABLE');
              assert.equal(r.headers.get('retry-after'), '1');
              refused.push(`/load/${i}.txt`);
            }
          }
        } catch (err) {
          failures.push(err);
          stopLoad = true;
        }
      };
      const loaders = [load(), load()];
      await new Promise((r) => setTimeout(r, 300));
      await swift.stopProxy();
      try {
        const down = await s.call(key, 'write', { path: '/f/down.txt', content: text(6, 'down') });
        assert.equal(down.status, 503);
        assert.equal(down.inner.error.code, 'UNAVAILABLE');
        assert.equal(down.inner.error.details.reason, 'object_store');
        assert.equal(down.headers.get('retry-after'), '1');
        assert.equal((await s.call(key, 'read', { path: '/f/down.txt' })).inner.error.code, 'NOT_FOUND', 'nothing committed');
        // Small contents are inline: written and read as ever; a big one a bash worker cached reads on.
        await s.ok(key, 'write', { path: '/f/small-while-down.txt', content: 'still here\n' });
        assert.equal((await s.ok(key, 'read', { path: '/f/small-while-down.txt' })).content, 'still here\n');
        assert.equal((await s.ok(key, 'read', { path: '/small.txt' })).content, 'small content\n');
        assert.equal((await s.ok(key, 'bash', { command: 'wc -c /f/cached.txt' })).stdout, `${cachedBig.length} /f/cached.txt\n`);
        await new Promise((r) => setTimeout(r, 300));
      } catch (err) {
        stopLoad = true;
        await Promise.allSettled(loaders);
        throw err;
      } finally {
        await swift.startProxy();
      }
      await new Promise((r) => setTimeout(r, 300));
      stopLoad = true;
      await Promise.all(loaders);
      if (failures.length) throw failures[0];
      assert.ok(refused.length > 0, 'some writes met the stopped store');
      assert.ok(acknowledged.length > 0);
      for (const a of acknowledged) assert.equal((await s.ok(key, 'read', { path: a.path })).content, a.content);
      for (const p of refused) assert.equal((await s.call(key, 'read', { path: p })).inner.error.code, 'NOT_FOUND');
      // Never a reference without its object.
      for (const [h] of await query(s, "SELECT hash FROM blobs WHERE agent_id = $1 AND encoding = 'external'", [agent])) {
        assert.ok(await hasObject(String(h)), `${h} has its object`);
      }
      await s.ok(key, 'write', { path: '/f/down.txt', content: text(6, 'down') });
      assert.equal((await s.ok(key, 'read', { path: '/f/down.txt' })).content, text(6, 'down'));
    });

    it('Swift hanging (its proxy paused): a big write answers 503 once its requests time out, commits nothing, and succeeds once it answers', async () => {
      const content = text(7, 'slow');
      swift.pauseProxy();
      let r;
      const t0 = performance.now();
      try {
        r = await s.call(key, 'write', { path: '/f/slow.txt', content });
      } finally {
        swift.resumeProxy();
      }
      const ms = performance.now() - t0;
      assert.equal(r.status, 503, JSON.stringify(r.body));
      assert.equal(r.inner.error.code, 'UNAVAILABLE');
      assert.equal(r.inner.error.details.reason, 'object_store');
      assert.equal(r.headers.get('retry-after'), '1');
      // Never a hang: two attempts of TIMEOUT_MS each, then the answer (generous: a loaded machine).
      assert.ok(ms >= TIMEOUT_MS && ms < 10 * TIMEOUT_MS, `answered in ${ms.toFixed(0)} ms`);
      assert.equal((await s.call(key, 'read', { path: '/f/slow.txt' })).inner.error.code, 'NOT_FOUND', 'nothing committed');
      await s.ok(key, 'write', { path: '/f/slow.txt', content });
      assert.equal((await s.ok(key, 'read', { path: '/f/slow.txt' })).content, content);
    });
  });
}

const DIST = fileURLToPath(new URL('../src/', import.meta.url));

function runCli(
  script: 'backup.js' | 'restore-backup.js',
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(DIST, script), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

for (const backend of heavyBackends()) {
  describe(`backup and restore cover the bucket — ${backend}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'afs-s3-backup-'));
    let db: TestDatabase;
    let env: Record<string, string>;
    let server: ChildServer | null = null;
    const prefix = `b-${backend}-${randomUUID().slice(0, 8)}`;
    const start = async () => {
      server = await spawnServer(env, await freePort());
      return server;
    };
    before(async () => {
      db = await createTestDatabase(backend);
      env = { DATABASE_URL: '', ...db.env, ...swift.env(BUCKET, prefix), BLOB_SWEEP_INTERVAL_MS: '0' };
    });
    after(async () => {
      await server?.kill();
      await db?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('a purged and swept object the backup references comes back with the restore', async () => {
      const s = await start();
      const reg = await s.register('Backed Up');
      const kept = text(9, 'kept');
      const purged = text(9, 'purged later');
      await s.ok(reg.apiKey, 'write', { path: '/kept.txt', content: kept });
      await s.ok(reg.apiKey, 'write', { path: '/purged.txt', content: purged });
      const file = join(dir, 'snapshot.sqlite');
      const objectsDir = backend === 'sqlite' ? `${file}.objects` : join(dir, 'objects');
      const b = await runCli('backup.js', backend === 'sqlite' ? [file] : ['--objects', objectsDir], env);
      assert.equal(b.code, 0, b.out);
      assert.match(b.out, /2 objects copied/);
      const hex = (t: string) => contentHash(Buffer.from(t)).slice('sha256:'.length);
      assert.ok(existsSync(join(objectsDir, reg.id, hex(purged))));
      // After the backup: purged, and its object swept (as the sweep does after the grace period).
      await s.ok(reg.apiKey, 'delete', { path: '/purged.txt' });
      await s.ok(reg.apiKey, 'purge', { path: '/purged.txt', confirm: true });
      const key = `${prefix}/${reg.id}/${hex(purged)}`;
      await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
      await assert.rejects(s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })));
      await server!.kill();
      server = null;
      if (backend === 'postgres') {
        // pg_restore of a dump taken with the backup brings the rows back; the rows stand in for it here.
        const c = new pg.Client({ connectionString: db.env.DATABASE_URL });
        await c.connect();
        try {
          await c.query("INSERT INTO blobs (agent_id, hash, size, content, encoding) VALUES ($1, $2, $3, '', 'external')", [
            reg.id,
            contentHash(Buffer.from(purged)),
            purged.length,
          ]);
        } finally {
          await c.end();
        }
      }
      const r = await runCli('restore-backup.js', backend === 'sqlite' ? [file] : ['--objects', objectsDir], env);
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, /restored 1 objects/);
      const again = await start();
      assert.equal((await again.ok(reg.apiKey, 'read', { path: '/kept.txt' })).content, kept);
      // The backup's database still had the purged file: it reads again, from the object put back.
      if (backend === 'sqlite') assert.equal((await again.ok(reg.apiKey, 'read', { path: '/purged.txt' })).content, purged);
      const back = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
      assert.equal(await back.Body!.transformToString(), purged);
      // A second backup into the same directory copies nothing it already holds.
      if (backend === 'postgres') {
        const second = await runCli('backup.js', ['--objects', objectsDir], env);
        assert.match(second.out, /0 objects copied from .*, 2 already there/);
      }
    });
  });
}

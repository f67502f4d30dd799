/**
 * Read replicas against a real streaming standby (docs/scaling.md): a primary of the test's own
 * (initdb), a standby made from it by pg_basebackup -R on another port, and the server started
 * with DATABASE_READ_URLS naming the standby. Replay is held with pg_wal_replay_pause() so what a
 * read returns tells where it ran: an old state can only come from the held standby.
 * - read-only tools read from the replica (another agent's change is not seen while replay is held);
 * - an agent's own writes are always seen by its reads (read-your-writes), replay held or not;
 * - a replica held past REPLICA_MAX_LAG_MS is skipped: the change shows within the bound;
 * - the standby killed mid-load: every read still answers, from the primary; and after it
 *   returns, reads go back to it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { freePort, spawnServer, type ChildServer } from './helpers/server.js';
import { ThrowawayPostgres } from './helpers/throwaway-pg.js';

const MAX_LAG_MS = 1500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, cond: () => Promise<boolean>, timeoutMs = 10_000): Promise<number> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
  return Date.now() - t0;
}

describe(
  'PostgreSQL read replicas (a real streaming standby)',
  { skip: !backends().includes('postgres') && 'TEST_BACKENDS excludes postgres' },
  () => {
    let primary: ThrowawayPostgres;
    let standby: ThrowawayPostgres;
    let server: ChildServer;
    let owner: { key: string; slug: string };
    let reader: { key: string; slug: string };

    const replayed = async () => {
      const p = (await primary.sql('SELECT pg_current_wal_insert_lsn()::text AS l')).rows[0].l as string;
      const r = await standby.sql(`SELECT pg_last_wal_replay_lsn() >= '${p}'::pg_lsn AS ok`);
      return r.rows[0].ok === true;
    };
    const replicaReads = async () => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      const m = /^afs_pg_replica_reads\{replica="0"\} (\d+)/m.exec(text);
      return m ? Number(m[1]) : NaN;
    };
    let mountPath = '';
    const readShared = async (name: string) => (await server.ok(reader.key, 'read', { path: `${mountPath}/${name}` })).content as string;

    before(async () => {
      primary = ThrowawayPostgres.primary(await freePort(), 'afs-pg-primary-');
      primary.start();
      await primary.sql('CREATE DATABASE afs');
      standby = primary.standby(await freePort());
      standby.start();
      server = await spawnServer(
        { DATABASE_URL: primary.url(), DATABASE_READ_URLS: standby.url(), REPLICA_MAX_LAG_MS: String(MAX_LAG_MS), REPLICA_POLL_MS: '20' },
        await freePort(),
      );
      const o = await server.register('Replica Owner');
      const r = await server.register('Replica Reader');
      owner = { key: o.apiKey, slug: o.slug };
      reader = { key: r.apiKey, slug: r.slug };
      await server.ok(owner.key, 'write', { path: '/doc/a.txt', content: 'v1\n' });
      mountPath = (await server.ok(owner.key, 'share', { path: '/doc', with: reader.slug, permission: 'read' })).share.mountPath;
      await until('the standby to replay the setup', replayed);
    });
    after(async () => {
      await server?.kill();
      standby?.remove();
      primary?.remove();
    });

    it('serves read-only tools from the replica: a change made while replay is held is not seen there', async () => {
      await until('a read from the replica', async () => (await readShared('a.txt')) === 'v1\n' && (await replicaReads()) > 0);
      await standby.sql('SELECT pg_wal_replay_pause()');
      try {
        await server.ok(owner.key, 'write', { path: '/doc/a.txt', content: 'v2\n' });
        const before = await replicaReads();
        // The reader did not write: its read goes to the held replica and sees the state before.
        assert.equal(await readShared('a.txt'), 'v1\n', 'the read ran on the held standby');
        assert.ok((await replicaReads()) > before, 'the replica counted the read');
        // Past REPLICA_MAX_LAG_MS the held replica is skipped: the change shows, within the bound.
        const t0 = Date.now();
        await until('the lagging replica to be skipped', async () => (await readShared('a.txt')) === 'v2\n', MAX_LAG_MS * 4);
        const seenAfter = Date.now() - t0;
        assert.ok(seenAfter <= MAX_LAG_MS + 1000, `the change was seen ${seenAfter} ms later (bound ${MAX_LAG_MS} ms + polling)`);
      } finally {
        await standby.sql('SELECT pg_wal_replay_resume()');
      }
      await until('the standby to catch up', replayed);
      await until('reads back on the replica', async () => {
        const n = await replicaReads();
        await readShared('a.txt');
        return (await replicaReads()) > n;
      });
    });

    it("an agent always reads its own writes, with the replica's replay held", async () => {
      await standby.sql('SELECT pg_wal_replay_pause()');
      try {
        for (let i = 1; i <= 5; i++) {
          const w = await server.ok(owner.key, 'write', { path: '/mine.txt', content: `own ${i}\n` });
          const r = await server.ok(owner.key, 'read', { path: '/mine.txt' });
          assert.equal(r.content, `own ${i}\n`, `write ${i} is read back at once`);
          assert.equal(r.version, w.version);
          const st = await server.ok(owner.key, 'stat', { path: '/mine.txt' });
          assert.equal(st.version, w.version);
          const ls = await server.ok(owner.key, 'list', { path: '/' });
          assert.ok(JSON.stringify(ls).includes('mine.txt'), 'list shows the new file');
          const vs = await server.ok(owner.key, 'list_versions', { path: '/mine.txt' });
          assert.equal(vs.versions.length, i);
        }
      } finally {
        await standby.sql('SELECT pg_wal_replay_resume()');
      }
      await until('the standby to catch up', replayed);
    });

    it('goes on from the primary when the standby is killed mid-load, and back to it once it returns', async () => {
      await server.ok(owner.key, 'write', { path: '/doc/b.txt', content: 'steady\n' });
      await until('the standby to replay it', replayed);
      const failures: string[] = [];
      let reads = 0;
      let stop = false;
      const load = async () => {
        while (!stop) {
          const r = await server.call(reader.key, 'read', { path: `${mountPath}/b.txt` });
          reads++;
          if (r.status !== 200 || r.isError || r.inner?.content !== 'steady\n') failures.push(`${r.status} ${r.text.slice(0, 200)}`);
        }
      };
      const loops = [load(), load(), load(), load()];
      await sleep(500);
      standby.stop('immediate');
      const atKill = reads;
      await sleep(1500);
      stop = true;
      await Promise.all(loops);
      assert.deepEqual(failures, [], `${failures.length} of ${reads} reads failed`);
      assert.ok(reads - atKill > 20, `reads went on while the standby was down (${reads - atKill})`);
      standby.start();
      await until('reads back on the returned standby', async () => {
        const n = await replicaReads();
        await readShared('b.txt');
        return (await replicaReads()) > n;
      });
    });
  },
);

/**
 * PostgreSQL going away mid-load, on a throwaway server of the test's own (initdb into
 * a temporary directory, its own port; the machine's shared PostgreSQL is never touched): while it
 * is down every call answers 503 UNAVAILABLE with Retry-After, quickly (never a 500, never a
 * hang), /readyz says 503; once it is back the service serves again within 2 s by itself; and
 * every write acknowledged before, during or after is there.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { freePort, spawnServer, type ChildServer } from './helpers/server.js';
import { ThrowawayPostgres } from './helpers/throwaway-pg.js';

interface Answer {
  status: number;
  code: string | undefined;
  retryAfter: string | null;
  ms: number;
}

describe('PostgreSQL outage mid-load', { skip: !backends().includes('postgres') && 'TEST_BACKENDS excludes postgres' }, () => {
  let db: ThrowawayPostgres;
  let server: ChildServer;
  let key: string;
  before(async () => {
    db = ThrowawayPostgres.primary(await freePort(), 'afs-pg-outage-');
    db.start();
    await db.sql('CREATE DATABASE afs');
    server = await spawnServer({ DATABASE_URL: db.url() }, await freePort());
    key = (await server.register('Outage Writer')).apiKey;
  });
  after(async () => {
    await server?.kill();
    db?.remove();
  });

  it('answers 503 UNAVAILABLE while the database is down, recovers within 2 s of its return, and loses no acknowledged write', async () => {
    const acked = new Map<string, string>();
    const answers: Answer[] = [];
    let stop = false;
    let n = 0;
    const writer = (async () => {
      while (!stop) {
        const path = `/outage/${n}.txt`;
        const content = `write ${n++}\n`;
        const t0 = performance.now();
        const r = await server.call(key, 'write', { path, content });
        answers.push({ status: r.status, code: r.inner?.error?.code, retryAfter: r.headers.get('retry-after'), ms: performance.now() - t0 });
        if (r.status === 200 && !r.isError) acked.set(path, content);
        else await new Promise((res) => setTimeout(res, 20));
      }
    })();
    const readyz = async () => (await fetch(`${server.url}/readyz`)).status;
    const until = async (cond: () => boolean) => {
      while (!cond()) await new Promise((res) => setTimeout(res, 10));
    };

    await until(() => acked.size >= 20);
    const beforeOutage = answers.length;
    db.stop();
    await new Promise((res) => setTimeout(res, 1500));
    assert.equal(await readyz(), 503, '/readyz says unavailable while the database is down');
    const during = answers.slice(beforeOutage);
    const refused = during.filter((a) => a.status !== 200);
    assert.ok(refused.length >= 3, `calls were refused during the outage (${during.length} answers)`);
    for (const a of refused) {
      assert.equal(a.status, 503, JSON.stringify(a));
      assert.equal(a.code, 'UNAVAILABLE');
      assert.equal(a.retryAfter, '1');
      assert.ok(a.ms < 6000, `answered in ${a.ms.toFixed(0)} ms, not held`);
    }

    const ackedBeforeReturn = acked.size;
    db.start();
    const back = performance.now();
    await until(() => acked.size > ackedBeforeReturn);
    const recovered = performance.now() - back;
    assert.ok(recovered < 2000, `a write succeeded ${recovered.toFixed(0)} ms after the database returned`);
    assert.equal(await readyz(), 200);
    await until(() => acked.size >= ackedBeforeReturn + 20);
    stop = true;
    await writer;

    assert.ok(!answers.some((a) => a.status === 500), 'never a 500');
    assert.equal(server.child.exitCode, null, `the server process lived through the outage:\n${server.output().slice(-2000)}`);
    for (const [path, content] of acked) {
      const r = await server.ok(key, 'read', { path });
      assert.equal(r.content, content, `${path} was acknowledged and is there`);
    }
  });
});

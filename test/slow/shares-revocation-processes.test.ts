/**
 * Permissions are live across instances: two server processes on one database; the
 * owner ends a share (revoke, leave, block) or a link through one, and the recipient's next calls
 * through the other are measured until the mount (or link) is gone. Asserted: at most 1 s (the
 * other instance keeps a share it saw for up to 500 ms: tools/grant-cache.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/backends.js';
import { freePort, spawnServer, type ChildServer } from '../helpers/server.js';

const LIMIT_MS = 1000;

/** Calls `probe` until it says gone; the time from `start` to the first call that saw it. */
async function untilGone(start: number, probe: () => Promise<boolean>): Promise<number> {
  for (;;) {
    if (await probe()) return Date.now() - start;
    if (Date.now() - start > 10 * LIMIT_MS) return Number.POSITIVE_INFINITY;
  }
}

for (const backend of backends()) {
  describe(`shares end within ${LIMIT_MS} ms on another instance (${backend}, two processes)`, () => {
    let db: TestDatabase;
    let a: ChildServer;
    let b: ChildServer;
    before(async () => {
      db = await createTestDatabase(backend);
      const env = { ...db.env, LOG_LEVEL: 'warn' };
      a = await spawnServer(env, await freePort());
      b = await spawnServer(env, await freePort());
    });
    after(async () => {
      await Promise.all([a.kill('SIGTERM'), b.kill('SIGTERM')]);
      await db.drop();
    });

    it('revoke, leave, block and a revoked link', async () => {
      const alice = await a.register('Rev Alice');
      const bob = await b.register('Rev Bob');
      await a.ok(alice.apiKey, 'write', { path: '/doc/a.md', content: 'shared\n' });
      const mount = `/shared/${alice.slug}/doc/a.md`;
      const readable = async () => (await b.call(bob.apiKey, 'read', { path: mount })).inner?.content === 'shared\n';
      const gone = async () => (await b.call(bob.apiKey, 'read', { path: mount })).inner?.error?.code === 'NOT_FOUND';
      const timings: Record<string, number> = {};

      for (const end of ['revoke', 'leave', 'block'] as const) {
        const { share } = await a.ok(alice.apiKey, 'share', { path: '/doc', with: bob.slug, permission: 'write' });
        // A share added where bob already had one from alice may take up to 500 ms to show on B.
        assert.ok(Number.isFinite(await untilGone(Date.now(), readable)), `${end}: bob reads through instance B`);
        const start = Date.now();
        if (end === 'revoke') await a.ok(alice.apiKey, 'revoke_share', { shareId: share.shareId });
        if (end === 'leave') await a.ok(bob.apiKey, 'leave_share', { shareId: share.shareId });
        if (end === 'block') await a.ok(alice.apiKey, 'block', { slug: bob.slug });
        timings[end] = await untilGone(start, gone);
        if (end === 'block') await a.ok(alice.apiKey, 'unblock', { slug: bob.slug });
      }

      const { link } = await a.ok(alice.apiKey, 'create_link', { path: '/doc/a.md' });
      const path = new URL(link.url).pathname;
      assert.equal((await b.raw(path, { method: 'GET' })).status, 200);
      const start = Date.now();
      await a.ok(alice.apiKey, 'revoke_share', { shareId: link.shareId });
      timings.link = await untilGone(start, async () => (await b.raw(path, { method: 'GET' })).status === 410);

      for (const [end, ms] of Object.entries(timings)) assert.ok(ms <= LIMIT_MS, `${end}: the mount was still there after ${ms} ms`);
      console.log(`# ${backend}: gone on the other instance after ${JSON.stringify(timings)} ms`);
    });
  });
}

/**
 * Copies out of other agents' trees (copy-across.ts, bash cp): a published item's `copies` counts
 * distinct copiers (never its author), and the owner gets at most one `copied` notification per
 * copier and source within COPY_NOTIFY_COOLDOWN_MS, however fast the copies come. Through HTTP on
 * both backends; the cooldown's end is reached by ageing the stored events (no sleeps).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { COPY_NOTIFY_COOLDOWN_MS } from '../src/tools/copy-across.js';
import { backends } from './helpers/backends.js';
import { runSql } from './helpers/db-dump.js';
import { startServer, type TestServer } from './helpers/server.js';

interface Agent {
  id: string;
  key: string;
  slug: string;
}

/** Moves an agent's `copied` events back past the cooldown, as if the time had passed. */
async function ageCopiedEvents(s: TestServer, actorId: string): Promise<void> {
  await runSql(s, [
    ['UPDATE events SET created_at_ms = created_at_ms - $1 WHERE verb = $2 AND actor_id = $3', [COPY_NOTIFY_COOLDOWN_MS + 1000, 'copied', actorId]],
  ]);
}

for (const backend of backends()) {
  describe(`copies counted once per copier, notified once per cooldown (${backend})`, () => {
    let s: TestServer;
    let n = 0;
    const reg = async (): Promise<Agent> => {
      const r = await s.register(`Copy Agent ${++n}`);
      return { id: r.id, key: r.apiKey, slug: r.slug };
    };
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
    });
    after(() => s.close());
    const copiedNotes = async (a: Agent) => (await s.ok(a.key, 'list_notifications', { limit: 100 })).items.filter((x: any) => x.type === 'copied');
    const copiesOf = async (author: Agent) => (await s.ok(author.key, 'browse_published', { author: author.slug })).items[0].copies;

    it('copy from /published 12 times (5 in a row, 7 at once): copies 1, one notification; another copier: 2; the author: no change', async () => {
      const [author, b, c] = [await reg(), await reg(), await reg()];
      await s.ok(author.key, 'write', { path: '/p.md', content: 'published\n' });
      await s.ok(author.key, 'publish', { path: '/p.md', title: 'P' });
      const P = `/published/${author.slug}/p.md`;
      for (let i = 0; i < 5; i++) await s.ok(b.key, 'copy', { from: P, to: `/seq${i}.md` });
      await Promise.all(Array.from({ length: 7 }, (_, i) => s.ok(b.key, 'copy', { from: P, to: `/par${i}.md` })));
      const fork = await s.ok(b.key, 'stat', { path: '/par6.md' });
      assert.deepEqual(fork.copiedFrom, { slug: author.slug, path: '/p.md', version: 1 }, 'every copy keeps its provenance');
      assert.equal(await copiesOf(author), 1, 'one copier');
      const notes = await copiedNotes(author);
      assert.equal(notes.length, 1, 'one notification for the 12 copies');
      assert.equal(notes[0].actor.slug, b.slug);

      await s.ok(c.key, 'copy', { from: P, to: '/mine.md' });
      await s.ok(c.key, 'copy', { from: P, to: '/mine2.md' });
      assert.equal(await copiesOf(author), 2, 'two distinct copiers');
      assert.equal((await copiedNotes(author)).length, 2);
      await s.ok(author.key, 'copy', { from: P, to: '/again.md' });
      assert.equal(await copiesOf(author), 2, "the author's own copy is not counted");

      // Once the cooldown passed, the same copier notifies again (and still counts once).
      await ageCopiedEvents(s, b.id);
      await s.ok(b.key, 'copy', { from: P, to: '/later.md' });
      await s.ok(b.key, 'copy', { from: P, to: '/later2.md' });
      assert.equal((await copiedNotes(author)).length, 3);
      assert.equal(await copiesOf(author), 2);
      const popular = (await s.ok(b.key, 'browse_published', { sort: 'popular', author: author.slug })).items;
      assert.equal(popular[0].copies, 2);
    });

    it('copy out of a share: one notification per copier and shared path in the window', async () => {
      const [owner, b] = [await reg(), await reg()];
      await s.ok(owner.key, 'write', { path: '/docs/a.md', content: 'a\n' });
      await s.ok(owner.key, 'write', { path: '/docs/b.md', content: 'b\n' });
      await s.ok(owner.key, 'share', { path: '/docs', with: b.slug });
      const D = `/shared/${owner.slug}/docs`;
      for (let i = 0; i < 4; i++) await s.ok(b.key, 'copy', { from: `${D}/a.md`, to: `/a${i}.md` });
      assert.equal((await copiedNotes(owner)).length, 1);
      await s.ok(b.key, 'copy', { from: `${D}/b.md`, to: '/b.md' });
      const notes = await copiedNotes(owner);
      assert.deepEqual(notes.map((x: any) => x.object.path).sort(), ['/docs/a.md', '/docs/b.md'], 'another source notifies');
    });
  });
}

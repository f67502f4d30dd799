/**
 * A folder key sees and acts on only the shares, links and published items of paths inside its
 * folder (src/tools/folder-scope.ts): list_shares, revoke_share, leave_share, unpublish and
 * browse_published. Outside it they answer as if the item did not exist (NOT_FOUND). Both
 * backends, through HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

for (const backend of backends()) {
  describe(`folder keys and shares, links, publications (${backend})`, () => {
    let s: TestServer;
    let a: { id: string; slug: string; apiKey: string };
    let b: { id: string; slug: string; apiKey: string };
    let c: { id: string; slug: string; apiKey: string };
    let work: string;
    const ids: Record<string, string> = {};

    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
      a = await s.register('Folder Owner');
      b = await s.register('Recipient');
      c = await s.register('Giver');
      work = await s.addKey(a.id, { scopes: ['files', 'shares', 'community', 'social', 'search', 'agents'], folder: '/work', label: 'work' });
      for (const p of ['/work/a.md', '/work/x.md', '/work/p.md', '/vault/a.md', '/vault/y.md', '/vault/q.md', '/workshop/z.md']) {
        await s.ok(a.apiKey, 'write', { path: p, content: p });
      }
      ids.workShare = (await s.ok(a.apiKey, 'share', { path: '/work/a.md', with: b.slug })).share.shareId;
      ids.vaultShare = (await s.ok(a.apiKey, 'share', { path: '/vault/a.md', with: b.slug })).share.shareId;
      ids.workshopShare = (await s.ok(a.apiKey, 'share', { path: '/workshop/z.md', with: b.slug })).share.shareId;
      ids.workLink = (await s.ok(a.apiKey, 'create_link', { path: '/work/x.md' })).link.shareId;
      ids.vaultLink = (await s.ok(a.apiKey, 'create_link', { path: '/vault/y.md' })).link.shareId;
      ids.workPub = (await s.ok(a.apiKey, 'publish', { path: '/work/p.md', title: 'work' })).published.publishedId;
      ids.vaultPub = (await s.ok(a.apiKey, 'publish', { path: '/vault/q.md', title: 'vault' })).published.publishedId;
      await s.ok(c.apiKey, 'write', { path: '/c/gift.md', content: 'gift' });
      ids.incoming = (await s.ok(c.apiKey, 'share', { path: '/c', with: a.slug })).share.shareId;
    });
    after(() => s.close());

    const paths = (items: Array<{ path: string }>) => items.map((i) => i.path).sort();

    it('list_shares: a folder key lists only the shares and links inside its folder (every page), and no incoming share', async () => {
      const all = await s.ok(a.apiKey, 'list_shares', { direction: 'outgoing' });
      assert.equal(all.items.length, 5);
      const mine = await s.ok(work, 'list_shares', { direction: 'outgoing' });
      assert.deepEqual(paths(mine.items), ['/work/a.md', '/work/x.md']);
      assert.equal(mine.nextCursor, null);
      assert.deepEqual(paths((await s.ok(work, 'list_shares', { direction: 'outgoing', kind: 'link' })).items), ['/work/x.md']);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await s.ok(work, 'list_shares', { direction: 'outgoing', limit: 1, ...(cursor ? { cursor } : {}) });
        assert.ok(page.items.length <= 1);
        seen.push(...page.items.map((i: { path: string }) => i.path));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      assert.deepEqual(seen.sort(), ['/work/a.md', '/work/x.md']);
      assert.equal((await s.ok(a.apiKey, 'list_shares', { direction: 'incoming' })).items.length, 1);
      assert.deepEqual((await s.ok(work, 'list_shares', { direction: 'incoming' })).items, []);
    });

    it('revoke_share and leave_share: NOT_FOUND outside the folder (nothing ended); inside it they work', async () => {
      for (const id of [ids.vaultShare, ids.workshopShare, ids.vaultLink]) {
        const err = await s.fail(work, 'revoke_share', { shareId: id }, 'NOT_FOUND');
        assert.deepEqual(err.details, { shareId: id });
      }
      await s.fail(work, 'leave_share', { shareId: ids.incoming }, 'NOT_FOUND');
      await s.fail(work, 'revoke_share', { shareId: ids.incoming }, 'NOT_FOUND');
      const still = await s.ok(a.apiKey, 'list_shares', { direction: 'outgoing' });
      assert.ok(still.items.every((i: { status: string }) => i.status === 'active'));
      assert.equal((await s.ok(b.apiKey, 'read', { path: `/shared/${a.slug}/vault/a.md` })).content, '/vault/a.md');
      assert.equal((await s.ok(a.apiKey, 'list_shares', { direction: 'incoming' })).items.length, 1);
      await s.ok(work, 'revoke_share', { shareId: ids.workShare });
      await s.ok(work, 'revoke_share', { shareId: ids.workLink });
      await s.fail(b.apiKey, 'read', { path: `/shared/${a.slug}/work/a.md` }, 'NOT_FOUND');
    });

    it('unpublish and browse_published: a folder key sees and takes down only its items inside the folder', async () => {
      const own = await s.ok(work, 'browse_published', { author: a.slug });
      assert.deepEqual(paths(own.items), ['/work/p.md']);
      assert.deepEqual(paths((await s.ok(a.apiKey, 'browse_published', { author: a.slug })).items), ['/vault/q.md', '/work/p.md']);
      assert.equal((await s.ok(work, 'browse_published', { author: a.slug, limit: 1 })).nextCursor, null);
      const err = await s.fail(work, 'unpublish', { publishedId: ids.vaultPub }, 'NOT_FOUND');
      assert.deepEqual(err.details, { publishedId: ids.vaultPub });
      assert.equal((await s.ok(b.apiKey, 'read', { path: `/published/${a.slug}/vault/q.md` })).content, '/vault/q.md');
      await s.ok(work, 'unpublish', { publishedId: ids.workPub });
      await s.fail(b.apiKey, 'read', { path: `/published/${a.slug}/work/p.md` }, 'NOT_FOUND');
    });
  });
}

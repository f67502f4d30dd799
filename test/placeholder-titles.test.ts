/**
 * Titles and display names others read cannot pass for the placeholders the service prints in
 * place of removed or deleted text ("[removed]", "[deleted]"): a post's title (create_post,
 * edit_post) and a community's display name (create_community, update_community). Names of
 * agents follow the stricter rule of core/names.ts (test/registration.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

for (const backend of backends()) {
  describe(`placeholder titles (${backend})`, () => {
    let s: TestServer;
    let key: string;
    before(async () => {
      s = await startServer(backend, { COOLDOWN_POST_PER_HOUR: '0' }, { via: 'inject' });
      key = (await s.register('Titler')).apiKey;
      await s.ok(key, 'create_community', { name: 'titles' });
    });
    after(() => s.close());

    it('a post titled like a placeholder is refused, on create and on edit; bracketed prefixes stay titles', async () => {
      for (const title of ['[removed]', '[deleted]', ' Deleted ', '(redacted)', '［removed］', '[removed by a moderator]']) {
        const e = await s.fail(key, 'create_post', { community: 'titles', title }, 'INVALID_INPUT');
        assert.equal(e.details.field, 'title', title);
        assert.match(e.message, /placeholder/, title);
      }
      const post = (await s.ok(key, 'create_post', { community: 'titles', title: '[RFC] removed fields' })).post;
      assert.equal(post.title, '[RFC] removed fields');
      await s.ok(key, 'create_post', { community: 'titles', title: '(draft)' });
      const e = await s.fail(key, 'edit_post', { postId: post.postId, title: '[deleted]' }, 'INVALID_INPUT');
      assert.equal(e.details.field, 'title');
    });

    it("a community's display name like a placeholder is refused, on create and on update", async () => {
      const e = await s.fail(key, 'create_community', { name: 'ghost', displayName: '[deleted]' }, 'INVALID_INPUT');
      assert.equal(e.details.field, 'displayName');
      await s.fail(key, 'update_community', { community: 'titles', displayName: 'Removed' }, 'INVALID_INPUT');
      assert.equal(
        (await s.ok(key, 'update_community', { community: 'titles', displayName: 'Titles [beta]' })).community.displayName,
        'Titles [beta]',
      );
    });
  });
}

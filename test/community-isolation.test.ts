/**
 * Isolation in the community family (security; test/security-isolation.test.ts delegates
 * the family here). Posts, comments and communities are public; what must stay private is:
 *  - the files an agent did not attach: attaching names only the caller's own tree (B's path, a
 *    mount path and a never-existing path answer alike), inside a folder-scoped key's folder;
 *  - reports (their reporter and words) — moderators only; notifications — their recipient only;
 *  - what a moderator removed — its author and the moderators only, in every list and read;
 *  - mentions and replies across a block (no notification, no reply).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { isolationBackends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

interface Agent {
  id: string;
  key: string;
  slug: string;
}

for (const backend of isolationBackends()) {
  describe(`community isolation (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
    });
    after(() => s.close());
    let n = 0;
    const agent = async (): Promise<Agent> => {
      const r = await s.register(`Iso Com ${++n}`);
      return { id: r.id, key: r.apiKey, slug: r.slug };
    };
    // Each test its own secret: the feed's "all" filter reads every agent's public events.
    let SECRET = '';
    beforeEach(() => {
      SECRET = `BZQ-${Math.random().toString(36).slice(2)}`;
    });
    const noSecret = (value: unknown, what: string) => assert.ok(!JSON.stringify(value).includes(SECRET), `${what} leaks the secret`);

    it("attachments name only the caller's own files: B's path answers as a path that never existed", async () => {
      const [a, b] = [await agent(), await agent()];
      await s.ok(b.key, 'write', { path: '/private/plan.md', content: `${SECRET}\n` });
      await s.ok(b.key, 'share', { path: '/private', with: a.slug });
      await s.ok(b.key, 'publish', { path: '/private/plan.md', title: 'plan' });
      await s.ok(a.key, 'create_community', { name: `iso-${backend}` });
      const attach = (path: string) => s.call(a.key, 'create_post', { community: `iso-${backend}`, title: `t ${path}`, attachments: [{ path }] });
      const real = await attach('/private/plan.md');
      const never = await attach('/private/never.md');
      assert.equal(real.inner.error.code, 'NOT_FOUND');
      assert.equal(real.inner.error.message.replace('plan', 'X'), never.inner.error.message.replace('never', 'X'));
      noSecret(real.body, "attaching B's path");
      for (const path of [`/shared/${b.slug}/private/plan.md`, `/published/${b.slug}/private/plan.md`, '/.attachments/x.md']) {
        const r = await attach(path);
        assert.equal(r.inner.error.code, 'INVALID_INPUT', path);
        noSecret(r.body, path);
      }
      // A's own file under the same name attaches A's content, never B's.
      await s.ok(a.key, 'write', { path: '/private/plan.md', content: 'mine\n' });
      const mine = (await s.ok(a.key, 'create_post', { community: `iso-${backend}`, title: 'own', attachments: [{ path: '/private/plan.md' }] }))
        .post;
      const text = (await s.ok(b.key, 'read', { path: mine.attachments[0].publicPath })).content;
      assert.equal(text, 'mine\n');
    });

    it('a folder-scoped key attaches only inside its folder; a read-only key changes nothing', async () => {
      const a = await agent();
      await s.ok(a.key, 'write', { path: '/work/in.md', content: 'in\n' });
      await s.ok(a.key, 'write', { path: '/other/out.md', content: 'out\n' });
      const name = `fold-${backend}`;
      await s.ok(a.key, 'create_community', { name });
      const folderKey = await s.addKey(a.id, { scopes: ['files', 'community'], folder: '/work' });
      const out = await s.fail(
        folderKey,
        'create_post',
        { community: name, title: 'x', attachments: [{ path: '/other/out.md' }] },
        'OUTSIDE_KEY_FOLDER',
      );
      assert.equal(out.details.folder, '/work');
      const ok = (await s.ok(folderKey, 'create_post', { community: name, title: 'y', attachments: [{ path: '/work/in.md' }] })).post;
      assert.equal(ok.attachments[0].path, '/work/in.md');
      const ro = await s.addKey(a.id, { scopes: ['files:read', 'community:read'] });
      for (const [tool, input] of [
        ['create_post', { community: name, title: 'z' }],
        ['comment', { postId: ok.postId, body: 'z' }],
        ['vote', { target: ok.postId, direction: 'up' }],
        ['create_community', { name: `ro-${backend}` }],
        ['moderate', { community: name, action: 'lock', target: ok.postId }],
        ['report', { target: ok.postId, reason: 'spam' }],
      ] as const) {
        await s.fail(ro, tool, input, 'INSUFFICIENT_SCOPE');
      }
      assert.equal((await s.ok(ro, 'get_post', { postId: ok.postId })).post.locked, false);
    });

    it('reports and notifications reach only moderators and recipients; removed posts only their author and moderators', async () => {
      const [owner, author, reporter, bystander] = [await agent(), await agent(), await agent(), await agent()];
      const name = `rep-${backend}`;
      await s.ok(owner.key, 'create_community', { name });
      for (const x of [author, bystander]) await s.ok(x.key, 'join_community', { community: name });
      const p = (await s.ok(author.key, 'create_post', { community: name, title: `removable ${SECRET}`, body: SECRET })).post;
      await s.ok(reporter.key, 'report', { target: p.postId, reason: 'leaked_secret', details: `reporter words ${SECRET}` });
      for (const x of [author, bystander, reporter]) {
        await s.fail(x.key, 'list_reports', { community: name }, 'FORBIDDEN');
        noSecret(
          (await s.ok(x.key, 'list_notifications', {})).items.filter((i: any) => i.type === 'report'),
          'report notifications',
        );
      }
      assert.equal((await s.ok(owner.key, 'list_reports', { community: name })).items[0].details, `reporter words ${SECRET}`);
      await s.ok(owner.key, 'moderate', { community: name, action: 'remove', target: p.postId });
      for (const view of [
        await s.ok(bystander.key, 'get_post', { postId: p.postId }),
        await s.ok(bystander.key, 'list_posts', { community: name, sort: 'new' }),
        await s.ok(bystander.key, 'list_posts', { sort: 'new' }),
        await s.ok(bystander.key, 'list_posts', { author: author.slug }),
        await s.ok(reporter.key, 'list_posts', { sort: 'top' }),
        await s.ok(bystander.key, 'get_feed', { filter: 'all' }),
      ]) {
        noSecret(view, 'a removed post');
      }
      assert.ok(JSON.stringify(await s.ok(author.key, 'get_post', { postId: p.postId })).includes(SECRET), 'its author still reads it');
      // Nothing else reaches a bystander: no comment, vote or report on the removed post.
      await s.fail(bystander.key, 'comment', { postId: p.postId, body: 'hi' }, 'NOT_FOUND');
      await s.fail(bystander.key, 'vote', { target: p.postId, direction: 'up' }, 'NOT_FOUND');
    });

    it("a block: no mention notification, no reply, and the blocker sees none of the blocked agent's posts or comments", async () => {
      const [a, b, host] = [await agent(), await agent(), await agent()];
      const name = `blk-${backend}`;
      await s.ok(host.key, 'create_community', { name });
      for (const x of [a, b]) await s.ok(x.key, 'join_community', { community: name });
      await s.ok(a.key, 'block', { slug: b.slug });
      const hp = (await s.ok(host.key, 'create_post', { community: name, title: 'host' })).post;
      const bp = (await s.ok(b.key, 'create_post', { community: name, title: `b ${SECRET}`, body: `@${a.slug} ${SECRET}` })).post;
      await s.ok(b.key, 'comment', { postId: hp.postId, body: `@${a.slug} ${SECRET}` });
      const ac = (await s.ok(a.key, 'comment', { postId: hp.postId, body: 'a speaks' })).comment;
      assert.equal(
        (await s.fail(b.key, 'comment', { postId: hp.postId, parentId: ac.commentId, body: 'reply' }, 'FORBIDDEN')).details.reason,
        'not_accepted',
      );
      noSecret(await s.ok(a.key, 'list_notifications', {}), 'notifications of a blocker');
      noSecret(await s.ok(a.key, 'list_posts', { community: name, sort: 'new' }), 'posts of a blocked agent');
      noSecret(await s.ok(a.key, 'list_comments', { postId: hp.postId }), 'comments of a blocked agent');
      noSecret(await s.ok(a.key, 'get_feed', { filter: 'all' }), 'the feed of a blocker');
      // The post itself stays readable by id (public), as a profile does.
      assert.equal((await s.ok(a.key, 'get_post', { postId: bp.postId })).post.author.slug, b.slug);
    });
  });
}

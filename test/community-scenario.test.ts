/**
 * The scenario, on both backends: five agents make a community, join, post with a file
 * attached (read, grepped and copied by others at its /published path, pinned to the attached
 * version), comment in threads three deep with a mention, vote, edit with a stale revision, and
 * moderate (pin, lock, remove, ban); one reports; one blocks another and stops seeing its posts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

for (const backend of backends()) {
  describe(`community scenario, five agents (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
    });
    after(() => s.close());

    it('a community lives: attachments, threads, votes, revisions, moderation, a report, a block', async () => {
      const names = ['Owner', 'Mod', 'Alice', 'Bob', 'Carol'];
      const [owner, mod, alice, bob, carol] = await Promise.all(
        names.map(async (n) => {
          const r = await s.register(`Scn ${n}`);
          return { key: r.apiKey, slug: r.slug };
        }),
      );
      const name = `scenario-${backend}`;
      await s.ok(owner!.key, 'create_community', { name, description: 'Where we show work.' });
      await s.ok(owner!.key, 'set_moderator', { community: name, slug: mod!.slug, moderator: true });
      for (const a of [alice!, bob!, carol!]) await s.ok(a.key, 'join_community', { community: name });
      assert.equal((await s.ok(carol!.key, 'get_community', { community: name })).community.memberCount, 5);

      // Alice attaches version 2 of a file that is at version 3 by then.
      await s.ok(alice!.key, 'write', { path: '/work/report.md', content: 'draft\n' });
      await s.ok(alice!.key, 'write', { path: '/work/report.md', content: 'final numbers: 42\n' });
      await s.ok(alice!.key, 'write', { path: '/work/report.md', content: 'later edit\n' });
      const post = (
        await s.ok(alice!.key, 'create_post', {
          community: name,
          title: 'My report',
          body: 'Numbers attached.',
          attachments: [{ path: '/work/report.md', version: 2 }, { path: '/work/report.md' }],
        })
      ).post;
      assert.equal(post.attachments.length, 2);
      const [v2, v3] = post.attachments;
      assert.deepEqual([v2.path, v2.version, v3.version], ['/work/report.md', 2, 3]);
      assert.equal(v2.publicPath, `/published/${alice!.slug}/.attachments/${post.postId}/v2/work/report.md`);
      assert.notEqual(v2.publicPath, v3.publicPath, 'two versions, two paths');
      assert.equal((await s.ok(bob!.key, 'read', { path: v2.publicPath })).content, 'final numbers: 42\n');
      assert.equal((await s.ok(bob!.key, 'stat', { path: v2.publicPath })).contentHash, v2.contentHash);
      const grep = await s.ok(bob!.key, 'bash', { command: `grep -rn numbers /published/${alice!.slug}/.attachments/${post.postId}` });
      assert.equal(grep.stdout, `/published/${alice!.slug}/.attachments/${post.postId}/v2/work/report.md:1:final numbers: 42\n`);
      const copy = await s.ok(carol!.key, 'copy', { from: v2.publicPath, to: '/mine/report.md' });
      assert.equal(copy.copiedFrom.slug, alice!.slug);
      assert.equal((await s.ok(carol!.key, 'read', { path: '/mine/report.md' })).content, 'final numbers: 42\n');
      // Later changes of the original (and publishing it) never change what the post shows.
      await s.ok(alice!.key, 'write', { path: '/work/report.md', content: 'changed again\n' });
      await s.ok(alice!.key, 'publish', { path: '/work/report.md', title: 'the report' });
      assert.equal((await s.ok(bob!.key, 'read', { path: v2.publicPath })).content, 'final numbers: 42\n');
      assert.equal((await s.ok(bob!.key, 'read', { path: v3.publicPath })).content, 'later edit\n');
      // Nor does the author changing the copies in its own tree: through /published they read as attached.
      // Deleting a copy takes it down: others no longer read it.
      const copyOfV2 = `/.attachments/${post.postId}/v2/work/report.md`;
      await s.ok(alice!.key, 'write', { path: copyOfV2, content: 'rewritten afterwards\n' });
      await s.ok(alice!.key, 'delete', { path: `/.attachments/${post.postId}/v3/work/report.md` });
      assert.equal((await s.ok(bob!.key, 'read', { path: v2.publicPath })).content, 'final numbers: 42\n');
      assert.equal((await s.ok(bob!.key, 'stat', { path: v2.publicPath })).contentHash, v2.contentHash);
      await s.fail(bob!.key, 'read', { path: v3.publicPath }, 'NOT_FOUND');
      const cat = await s.ok(bob!.key, 'bash', { command: `cat ${v2.publicPath}` });
      assert.equal(cat.stdout, 'final numbers: 42\n');
      await s.fail(bob!.key, 'read', { path: v2.publicPath, version: 2 }, 'NOT_FOUND');
      // Read-only there; the attachments are not browse_published items.
      assert.equal((await s.fail(bob!.key, 'write', { path: v2.publicPath, content: 'x' }, 'FORBIDDEN')).details.reason, 'published_read_only');
      const browsed = (await s.ok(bob!.key, 'browse_published', { author: alice!.slug })).items;
      assert.deepEqual(
        browsed.map((i: any) => i.path),
        ['/work/report.md'],
      );
      await s.fail(alice!.key, 'publish', { path: '/.attachments', title: 'x' }, 'INVALID_INPUT');

      // A thread three deep with a mention.
      const c1 = (await s.ok(bob!.key, 'comment', { postId: post.postId, body: 'How did you measure?' })).comment;
      const c2 = (
        await s.ok(alice!.key, 'comment', { postId: post.postId, parentId: c1.commentId, body: `With a bench. @${carol!.slug} ran it too.` })
      ).comment;
      const c3 = (await s.ok(carol!.key, 'comment', { postId: post.postId, parentId: c2.commentId, body: 'Confirmed.' })).comment;
      assert.deepEqual([c1.depth, c2.depth, c3.depth], [0, 1, 2]);
      const carolNotes = (await s.ok(carol!.key, 'list_notifications', {})).items;
      assert.ok(carolNotes.some((n: any) => n.type === 'mention' && n.object.id === c2.commentId));
      const aliceNotes = (await s.ok(alice!.key, 'list_notifications', {})).items.map((n: any) => n.type).sort();
      assert.deepEqual(aliceNotes, ['comment', 'copied', 'reply'], 'the copy of the attachment told her too');
      assert.equal((await s.ok(bob!.key, 'list_notifications', {})).items[0].type, 'reply');
      // get_home: the activity on her posts, and the step to answer it.
      const home = await s.ok(alice!.key, 'get_home', {});
      assert.deepEqual(
        home.activityOnYourPosts.map((x: any) => [x.postId, x.title, x.community, x.newComments]),
        [[post.postId, 'My report', name, 2]],
      );
      assert.ok(home.whatToDoNext.some((step: string) => step.includes(`list_comments {"postId": "${post.postId}", "sort": "new"}`)));
      const heartbeat = (await s.raw('/heartbeat.md')).text;
      assert.match(heartbeat, /Reply to activity on your posts/);
      assert.match(heartbeat, /to a community you joined: `create_post`/);

      // Votes.
      for (const a of [bob!, carol!, mod!]) await s.ok(a.key, 'vote', { target: post.postId, direction: 'up' });
      await s.ok(alice!.key, 'vote', { target: c1.commentId, direction: 'up' });
      assert.equal((await s.ok(owner!.key, 'get_post', { postId: post.postId })).post.score, 3);
      assert.equal((await s.ok(owner!.key, 'get_agent', { slug: alice!.slug })).profile.karma, 3);

      // Edits: one stale revision refused, nothing lost.
      await s.ok(alice!.key, 'edit_post', { postId: post.postId, body: 'Numbers attached (v2 is the one).', expectedRevision: 1 });
      const stale = await s.fail(alice!.key, 'edit_post', { postId: post.postId, body: 'older idea', expectedRevision: 1 }, 'CONFLICT');
      assert.equal(stale.details.currentRevision, 2);
      assert.equal((await s.ok(bob!.key, 'get_post', { postId: post.postId })).post.body, 'Numbers attached (v2 is the one).');

      // Moderation: pin, lock, remove, ban — each logged and told to its author.
      await s.ok(mod!.key, 'moderate', { community: name, action: 'pin', target: post.postId });
      assert.equal((await s.ok(carol!.key, 'list_posts', { community: name })).items[0].pinned, true);
      await s.ok(mod!.key, 'moderate', { community: name, action: 'lock', target: post.postId });
      await s.fail(bob!.key, 'comment', { postId: post.postId, body: 'one more' }, 'FORBIDDEN');
      const spam = (await s.ok(bob!.key, 'create_post', { community: name, title: 'Buy now', url: 'https://spam.example' })).post;
      await s.ok(carol!.key, 'report', { target: spam.postId, reason: 'spam' });
      const reports = (await s.ok(mod!.key, 'list_reports', { community: name })).items;
      assert.deepEqual(
        reports.map((r: any) => [r.target.id, r.reason, r.reporter.slug]),
        [[spam.postId, 'spam', carol!.slug]],
      );
      await s.ok(mod!.key, 'moderate', { community: name, action: 'remove', target: spam.postId, reason: 'spam' });
      await s.ok(mod!.key, 'moderate', { community: name, action: 'ban', target: bob!.slug, durationSeconds: 172_800, reason: 'spam' });
      const bobNotes = (await s.ok(bob!.key, 'list_notifications', { types: ['moderation'] })).items;
      assert.equal(bobNotes.length, 2, 'removal and ban told');
      assert.equal((await s.fail(bob!.key, 'create_post', { community: name, title: 'again' }, 'FORBIDDEN')).details.reason, 'banned');
      assert.ok(!(await s.ok(carol!.key, 'list_posts', { community: name })).items.some((p: any) => p.postId === spam.postId));

      // A block: Carol stops seeing Alice's posts and comments.
      await s.ok(carol!.key, 'block', { slug: alice!.slug });
      assert.ok(!(await s.ok(carol!.key, 'list_posts', { community: name })).items.some((p: any) => p.author.slug === alice!.slug));
      const thread = (await s.ok(carol!.key, 'list_comments', { postId: post.postId, sort: 'old' })).items;
      assert.deepEqual(
        thread.map((c: any) => c.commentId),
        [c1.commentId, c3.commentId],
      );
      assert.equal(thread[1].depth, 2, 'replies keep their depth');
    });
  });
}

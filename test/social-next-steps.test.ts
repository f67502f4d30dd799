/**
 * Every item says what to do next (docs/contract/community.md, social): notifications and feed
 * items carry the ids their next call needs, shares notify of a new permission with the owner's
 * note, a message is counted once, and get_home's whatToDoNext names only calls that work. Through
 * HTTP, on both backends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type Registered, type TestServer } from './helpers/server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const backend of backends()) {
  describe(`what to do next (${backend})`, () => {
    let s: TestServer;
    let n = 0;
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
    });
    after(() => s.close());

    const agent = (label: string) => s.register(`${label} ${++n}`);
    const notes = async (who: Registered, types: string[]) => (await s.ok(who.apiKey, 'list_notifications', { types })).items as any[];
    const home = (who: Registered) => s.ok(who.apiKey, 'get_home', {});

    it('a comment and a reply name their post: get_post and list_comments take object.postId', async () => {
      const [author, commenter] = [await agent('Poster'), await agent('Commenter')];
      const community = `next-${backend}-${n}`;
      await s.ok(author.apiKey, 'create_community', { name: community, description: 'next steps' });
      await s.ok(commenter.apiKey, 'join_community', { community: community });
      const post = (await s.ok(author.apiKey, 'create_post', { community, title: 'A post to answer', body: 'body' })).post;
      const top = (await s.ok(commenter.apiKey, 'comment', { postId: post.postId, body: 'a first comment' })).comment;
      const reply = (await s.ok(author.apiKey, 'comment', { postId: post.postId, parentId: top.commentId, body: 'a reply to it' })).comment;

      const [onPost] = await notes(author, ['comment']);
      assert.deepEqual(onPost.object, { type: 'comment', id: top.commentId, commentId: top.commentId, postId: post.postId });
      const [toComment] = await notes(commenter, ['reply']);
      assert.deepEqual(toComment.object, { type: 'comment', id: reply.commentId, commentId: reply.commentId, postId: post.postId });
      assert.equal((await s.ok(commenter.apiKey, 'get_post', { postId: toComment.object.postId })).post.postId, post.postId);
      const thread = await s.ok(commenter.apiKey, 'list_comments', { postId: toComment.object.postId });
      assert.ok(
        thread.items.some((c: any) => c.commentId === toComment.object.id),
        'the comment is in its post',
      );

      // activityOnYourPosts tells the agent's own posts from others' posts where its comment was answered.
      const activity = async (who: Registered) => ((await home(who)).activityOnYourPosts as any[]).map((a) => [a.postId, a.yourPost, a.newComments]);
      assert.deepEqual(await activity(author), [[post.postId, true, 1]]);
      assert.deepEqual(await activity(commenter), [[post.postId, false, 1]]);

      await s.ok(commenter.apiKey, 'follow', { slug: author.slug });
      const item = (await s.ok(commenter.apiKey, 'get_feed', {})).items.find((i: any) => i.kind === 'commented');
      assert.deepEqual(item.object, { type: 'comment', id: reply.commentId, commentId: reply.commentId, postId: post.postId }, 'the feed item too');
    });

    it('a share notification names its path and permission; a change of permission notifies again, with the note', async () => {
      const [owner, friend] = [await agent('Owner'), await agent('Friend')];
      await s.ok(owner.apiKey, 'write', { path: '/proj/a.txt', content: 'a' });
      const shared = await s.ok(owner.apiKey, 'share', { path: '/proj', with: friend.slug, message: 'Have a look' });
      const mountPath = `/shared/${owner.slug}/proj`;
      const [first] = await notes(friend, ['share_received']);
      assert.deepEqual(first.object, { type: 'share', id: shared.share.shareId, shareId: shared.share.shareId, path: mountPath, permission: 'read' });
      assert.equal(first.preview, `@${owner.slug} shared /proj with you (read) at ${mountPath}: "Have a look"`);

      const up = await s.ok(owner.apiKey, 'share', { path: '/proj', with: friend.slug, permission: 'write', message: 'Now edit it' });
      assert.equal(up.updated, true);
      const [upgraded, before] = await notes(friend, ['share_received']);
      assert.equal(before.id, first.id);
      assert.deepEqual(upgraded.object, {
        type: 'share',
        id: shared.share.shareId,
        shareId: shared.share.shareId,
        path: mountPath,
        permission: 'write',
      });
      assert.equal(upgraded.preview, `@${owner.slug} changed your share of /proj from read to write at ${mountPath}: "Now edit it"`);
      await s.ok(friend.apiKey, 'write', { path: `${mountPath}/b.txt`, content: 'b' });

      // The same permission again (a new note only) is no news.
      await s.ok(owner.apiKey, 'share', { path: '/proj', with: friend.slug, permission: 'write', message: 'thanks' });
      assert.equal((await notes(friend, ['share_received'])).length, 2);
    });

    it('stat keeps copiedFrom after the copy is edited, and says which version is the copy (copiedAt)', async () => {
      const [owner, reader] = [await agent('Origin'), await agent('Forker')];
      await s.ok(owner.apiKey, 'write', { path: '/src/lib.md', content: 'one\n' });
      await s.ok(owner.apiKey, 'share', { path: '/src', with: reader.slug });
      await s.ok(reader.apiKey, 'copy', { from: `/shared/${owner.slug}/src/lib.md`, to: '/fork/lib.md' });
      const origin = { slug: owner.slug, path: '/src/lib.md', version: 1 };
      const first = await s.ok(reader.apiKey, 'stat', { path: '/fork/lib.md' });
      assert.deepEqual([first.copiedFrom, first.copiedAt], [origin, 1]);
      await s.ok(reader.apiKey, 'append', { path: '/fork/lib.md', content: 'two\n' });
      const edited = await s.ok(reader.apiKey, 'stat', { path: '/fork/lib.md' });
      assert.deepEqual([edited.version, edited.copiedFrom, edited.copiedAt], [2, origin, 1]);
      await s.ok(reader.apiKey, 'write', { path: '/fork/own.md', content: 'mine' });
      assert.equal((await s.ok(reader.apiKey, 'stat', { path: '/fork/own.md' })).copiedFrom, undefined, 'not a copy');
    });

    it("a change through a write share names the changeset's owner; revert_changeset says where it lives; restore through the share works", async () => {
      const [owner, writer] = [await agent('Keeper'), await agent('Editor')];
      await s.ok(owner.apiKey, 'write', { path: '/team/doc.md', content: 'v1\n' });
      await s.ok(owner.apiKey, 'share', { path: '/team', with: writer.slug, permission: 'write' });
      const doc = `/shared/${owner.slug}/team/doc.md`;
      const edited = await s.ok(writer.apiKey, 'write', { path: doc, content: 'v2\n' });
      assert.equal(edited.changesetOwner, owner.slug);
      assert.ok(
        (await s.ok(owner.apiKey, 'list_changes', {})).changesets.some((c: any) => c.changesetId === edited.changesetId),
        "in the owner's history",
      );
      const mine = await s.ok(writer.apiKey, 'write', { path: '/own.md', content: 'x' });
      assert.equal(mine.changesetOwner, undefined, 'not through a share');
      const refused = await s.fail(writer.apiKey, 'revert_changeset', { changesetId: edited.changesetId }, 'NOT_FOUND');
      assert.match(refused.message, /through \/shared\/\{owner\}\/… \(its answer's changesetOwner\) is in the owner's history/);
      await s.ok(writer.apiKey, 'restore', { path: doc, version: 1 });
      assert.equal((await s.ok(owner.apiKey, 'read', { path: '/team/doc.md' })).content, 'v1\n');
    });

    it('a revert_changeset dry run shows the diff it would apply, as edit and restore dry runs do', async () => {
      const a = await agent('Reverter');
      await s.ok(a.apiKey, 'write', { path: '/r/one.md', content: 'alpha\n' });
      const second = await s.ok(a.apiKey, 'write_files', {
        files: [
          { path: '/r/one.md', content: 'beta\n' },
          { path: '/r/new.md', content: 'fresh\n' },
        ],
      });
      const dry = await s.ok(a.apiKey, 'revert_changeset', { changesetId: second.changesetId, dryRun: true });
      assert.equal(dry.applied, false);
      assert.equal(dry.diffTruncated, false);
      assert.match(dry.diff, /--- a\/r\/one\.md\t\(version 2\)\n\+\+\+ b\/r\/one\.md\t\(after the revert\)\n@@ -1 \+1 @@\n-beta\n\+alpha\n/);
      assert.match(dry.diff, /--- a\/r\/new\.md\t\(version 1\)\n\+\+\+ \/dev\/null\n@@ -1 \+0,0 @@\n-fresh\n/);
      assert.equal((await s.ok(a.apiKey, 'read', { path: '/r/one.md' })).content, 'beta\n', 'nothing written');
    });

    it('whatToDoNext never points at an ended share; a path through it is NOT_FOUND, the share named by id is GONE', async () => {
      const [owner, friend] = [await agent('Lender'), await agent('Borrower')];
      await s.ok(owner.apiKey, 'write', { path: '/brief/x.txt', content: 'x' });
      const brief = await s.ok(owner.apiKey, 'share', { path: '/brief', with: friend.slug, expiresInSeconds: 1 });
      await s.ok(owner.apiKey, 'write', { path: '/live/y.txt', content: 'y' });
      await s.ok(owner.apiKey, 'share', { path: '/live', with: friend.slug });
      const live = `/shared/${owner.slug}/live`;
      const steps = (h: any) => (h.whatToDoNext as string[]).filter((t) => t.includes('shared files with you'));
      await sleep(1100);
      const h = await home(friend);
      assert.equal(h.notifications.filter((x: any) => x.type === 'share_received').length, 2);
      assert.deepEqual(steps(h), [`@${owner.slug} shared files with you: list {"path": "${live}"} (or bash \`ls ${live}\`)`]);

      await s.ok(owner.apiKey, 'revoke_share', { shareId: (await s.ok(owner.apiKey, 'list_shares', { direction: 'outgoing' })).items[0].shareId });
      assert.deepEqual(steps(await home(friend)), [], 'both ended: no step');
      await s.fail(friend.apiKey, 'read', { path: `${live}/y.txt` }, 'NOT_FOUND');
      await s.fail(friend.apiKey, 'leave_share', { shareId: brief.share.shareId }, 'GONE');
      const reference = (await s.raw('/skill.md')).text;
      assert.match(
        reference,
        /\| `GONE` \|.*a path through an ended share \(\/shared\/…\) answers NOT_FOUND/,
        'skill.md says what an ended share answers',
      );
    });

    it('a message is counted once, as unread in its conversation, and reading it clears it', async () => {
      const [a, b] = [await agent('Sender'), await agent('Reader')];
      const sent = await s.ok(a.apiKey, 'send_message', { to: b.slug, body: 'hello there' });
      const h = await home(b);
      assert.deepEqual([h.you.unreadMessages, h.you.unreadNotifications], [1, 0]);
      assert.deepEqual(await notes(b, ['message']), [], 'no message notification');
      assert.deepEqual(
        h.unreadConversations.map((c: any) => [c.conversationId, c.unreadCount]),
        [[sent.conversationId, 1]],
      );
      await s.ok(b.apiKey, 'get_conversation', { conversationId: sent.conversationId });
      const after = await home(b);
      assert.deepEqual([after.you.unreadMessages, after.you.unreadNotifications, after.unreadConversations], [0, 0, []]);
    });

    it('whatToDoNext marks notifications by id, as heartbeat.md does', async () => {
      const [a, b] = [await agent('Follower'), await agent('Followed')];
      await s.ok(a.apiKey, 'follow', { slug: b.slug });
      const steps = (await home(b)).whatToDoNext as string[];
      const step = steps.find((t) => t.includes('list_notifications'));
      assert.ok(step, JSON.stringify(steps));
      assert.match(step, /mark_notifications_read \{"ids": \["…"\]\} with the ids you handled/);
      assert.doesNotMatch(step, /"all"/);
    });

    it("get_home: a new agent's skill is not 'changed'; follow back only who you do not follow; no items about you from those you follow", async () => {
      const [me, friend, stranger] = [await agent('Newcomer'), await agent('Friendly'), await agent('Stranger')];
      const first = await home(me);
      assert.equal(first.skill.changed, false, 'it has just read skill.md to register');
      assert.equal((await home(me)).skill.changed, false);

      await s.ok(me.apiKey, 'follow', { slug: friend.slug });
      await home(me);
      await s.ok(friend.apiKey, 'follow', { slug: me.slug });
      const h = await home(me);
      assert.equal(h.sinceLastHome.newFollowers, 1);
      const followerStep = (h.whatToDoNext as string[]).find((t) => t.includes('new follower'));
      assert.equal(followerStep, 'You have 1 new follower: list_followers {} (you follow them all already)');
      assert.deepEqual(h.fromFollowing, [], "friend's follow of me is a notification, not news");

      await s.ok(stranger.apiKey, 'follow', { slug: me.slug });
      const again = (await home(me)).whatToDoNext as string[];
      assert.ok(
        again.includes('You have 1 new follower: list_followers {} (1 you do not follow: follow back with follow {"slug": "…"})'),
        JSON.stringify(again),
      );
    });
  });
}

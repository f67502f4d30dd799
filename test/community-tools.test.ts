/**
 * The community family's tools through HTTP on both backends (docs/contract/community.md#communities): communities,
 * membership and moderators; posts with revisions; threaded comments; absolute votes; moderation;
 * reports — every success shape and every error each can return.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { hotRank } from '../src/core/ranking.js';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

interface Agent {
  id: string;
  key: string;
  slug: string;
}

for (const backend of backends()) {
  describe(`community tools (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(
        backend,
        { COOLDOWN_COMMUNITY_PER_DAY: '3', COOLDOWN_POST_PER_HOUR: '6', COOLDOWN_REPORT_PER_HOUR: '4', MAX_COMMENTS_PER_POST: '20' },
        { via: 'inject' },
      );
    });
    after(() => s.close());
    let n = 0;
    const agent = async (): Promise<Agent> => {
      const r = await s.register(`Com Agent ${++n}`);
      return { id: r.id, key: r.apiKey, slug: r.slug };
    };
    let c = 0;
    /** A community owned by `owner` with `members` joined. */
    const community = async (owner: Agent, ...members: Agent[]) => {
      const name = `c${++c}-${backend.slice(0, 2)}`;
      await s.ok(owner.key, 'create_community', { name });
      for (const m of members) await s.ok(m.key, 'join_community', { community: name });
      return name;
    };
    const post = async (a: Agent, name: string, title = `Post ${Math.random()}`) =>
      (await s.ok(a.key, 'create_post', { community: name, title, body: `body of ${title}` })).post;

    it('create_community: fields, owner and member; CONFLICT for a taken or reserved name; INVALID_INPUT; COOLDOWN', async () => {
      const a = await agent();
      const r = await s.ok(a.key, 'create_community', { name: 'lexers', displayName: 'Lexers', description: 'About lexing.', rules: ['Be kind.'] });
      assert.deepEqual(
        { ...r.community, createdAt: 'T', activeAt: 'T' },
        {
          name: 'lexers',
          displayName: 'Lexers',
          description: 'About lexing.',
          rules: ['Be kind.'],
          owner: { slug: a.slug, name: `Com Agent ${n}` },
          moderators: [{ slug: a.slug, name: `Com Agent ${n}` }],
          memberCount: 1,
          postCount: 0,
          createdAt: 'T',
          activeAt: 'T',
          isMember: true,
          yourRole: 'owner',
          bannedUntil: null,
          trust: 'self',
        },
      );
      const b = await agent();
      assert.equal((await s.fail(b.key, 'create_community', { name: 'lexers' }, 'CONFLICT')).details.reason, 'name_taken');
      assert.equal((await s.fail(b.key, 'create_community', { name: 'admin' }, 'CONFLICT')).details.reason, 'name_taken');
      assert.equal((await s.fail(b.key, 'create_community', { name: 'Bad Name' }, 'INVALID_INPUT')).details.field, 'name');
      await s.fail(b.key, 'create_community', { name: 'ok-name', rules: Array(11).fill('r') }, 'INVALID_INPUT');
      // The daily limit (3 here): the refusal is not counted; a taken name did not count either.
      for (const x of ['b-one', 'b-two', 'b-three']) await s.ok(b.key, 'create_community', { name: x });
      const cool = await s.fail(b.key, 'create_community', { name: 'b-four' }, 'COOLDOWN');
      assert.equal(cool.details.limit, 'create_community');
    });

    it('get_community / list_communities: roles, sorts, joined, query, paging; NOT_FOUND; a bad cursor', async () => {
      const [a, b] = [await agent(), await agent()];
      const name = await community(a, b);
      const seen = await s.ok(b.key, 'get_community', { community: name });
      assert.equal(seen.community.memberCount, 2);
      assert.equal(seen.community.yourRole, 'member');
      assert.equal(seen.community.trust, 'third_party');
      assert.equal((await s.fail(b.key, 'get_community', { community: 'no-such-one' }, 'NOT_FOUND')).details.community, 'no-such-one');
      const joined = await s.ok(b.key, 'list_communities', { joined: true });
      assert.deepEqual(
        joined.items.map((x: any) => x.name),
        [name],
      );
      const byQuery = await s.ok(b.key, 'list_communities', { query: name.toUpperCase(), sort: 'new' });
      assert.ok(byQuery.items.some((x: any) => x.name === name));
      // Paging by one: every community once, in order.
      const all: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await s.ok(a.key, 'list_communities', { sort: 'new', limit: 1, ...(cursor ? { cursor } : {}) });
        all.push(...page.items.map((x: any) => x.name));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      assert.equal(new Set(all).size, all.length);
      assert.ok(all.includes(name));
      await s.fail(a.key, 'list_communities', { cursor: 'garbage' }, 'INVALID_INPUT');
    });

    it('update_community: owner and moderators; FORBIDDEN for members; NOT_FOUND', async () => {
      const [a, b, m] = [await agent(), await agent(), await agent()];
      const name = await community(a, b);
      const r = await s.ok(a.key, 'update_community', { community: name, description: 'New words.' });
      assert.equal(r.community.description, 'New words.');
      assert.equal((await s.fail(b.key, 'update_community', { community: name, description: 'x' }, 'FORBIDDEN')).details.reason, 'not_moderator');
      await s.ok(a.key, 'set_moderator', { community: name, slug: m.slug, moderator: true });
      assert.deepEqual((await s.ok(m.key, 'update_community', { community: name, rules: ['One rule.'] })).community.rules, ['One rule.']);
      await s.fail(a.key, 'update_community', { community: 'no-such-one' }, 'NOT_FOUND');
    });

    it('join / leave: counts, idempotent, the owner cannot leave; NOT_FOUND', async () => {
      const [a, b] = [await agent(), await agent()];
      const name = await community(a);
      assert.deepEqual(await s.ok(b.key, 'join_community', { community: name }), { success: true, community: name, isMember: true, joined: true });
      assert.equal((await s.ok(b.key, 'join_community', { community: name })).joined, false);
      assert.equal((await s.ok(a.key, 'get_community', { community: name })).community.memberCount, 2);
      assert.equal((await s.ok(b.key, 'leave_community', { community: name })).left, true);
      assert.equal((await s.ok(b.key, 'leave_community', { community: name })).left, false);
      assert.equal((await s.ok(a.key, 'get_community', { community: name })).community.memberCount, 1);
      assert.equal((await s.fail(a.key, 'leave_community', { community: name }, 'FORBIDDEN')).details.reason, 'owner');
      await s.fail(b.key, 'join_community', { community: 'no-such-one' }, 'NOT_FOUND');
      await s.fail(b.key, 'leave_community', { community: 'no-such-one' }, 'NOT_FOUND');
    });

    it('set_moderator: adds (joining a non-member) and removes; owner only; SELF_ACTION; NOT_FOUND', async () => {
      const [a, b, x] = [await agent(), await agent(), await agent()];
      const name = await community(a);
      const r = await s.ok(a.key, 'set_moderator', { community: name, slug: b.slug, moderator: true });
      assert.equal(r.changed, true);
      assert.deepEqual(
        r.moderators.map((m: any) => m.slug),
        [a.slug, b.slug],
      );
      assert.equal((await s.ok(b.key, 'get_community', { community: name })).community.yourRole, 'moderator');
      assert.equal((await s.ok(a.key, 'set_moderator', { community: name, slug: b.slug, moderator: true })).changed, false);
      assert.equal(
        (await s.fail(b.key, 'set_moderator', { community: name, slug: x.slug, moderator: true }, 'FORBIDDEN')).details.reason,
        'not_owner',
      );
      await s.fail(a.key, 'set_moderator', { community: name, slug: a.slug, moderator: false }, 'SELF_ACTION');
      await s.fail(a.key, 'set_moderator', { community: name, slug: 'no-such-agent-zz', moderator: true }, 'NOT_FOUND');
      assert.deepEqual(
        (await s.ok(a.key, 'set_moderator', { community: name, slug: b.slug, moderator: false })).moderators.map((m: any) => m.slug),
        [a.slug],
      );
      assert.equal((await s.ok(b.key, 'get_community', { community: name })).community.yourRole, 'member');
    });

    it('create_post / get_post: members only, fields, counters, feed; DUPLICATE_CONTENT; COOLDOWN; NOT_FOUND', async () => {
      const [a, b, outsider, follower] = [await agent(), await agent(), await agent(), await agent()];
      await s.ok(follower.key, 'follow', { slug: b.slug });
      const name = await community(a, b);
      const r = await s.ok(b.key, 'create_post', {
        community: name,
        title: 'Hello',
        body: 'Some **markdown**',
        url: 'https://example.com/x',
        tags: ['intro', 'intro'],
      });
      assert.match(r.post.postId, /^pst_[0-9A-Za-z]{22}$/);
      assert.deepEqual(
        { ...r.post, postId: 'X', createdAt: 'T', webUrl: r.post.webUrl.replace(r.post.postId, 'X') },
        {
          postId: 'X',
          community: name,
          author: { slug: b.slug, name: `Com Agent ${n - 2}` },
          title: 'Hello',
          body: 'Some **markdown**',
          bodyTruncated: false,
          url: 'https://example.com/x',
          attachments: [],
          tags: ['intro'],
          score: 0,
          yourVote: 'none',
          commentCount: 0,
          createdAt: 'T',
          editedAt: null,
          revision: 1,
          pinned: false,
          locked: false,
          removedByModerator: false,
          deleted: false,
          trust: 'self',
          webUrl: `${s.config.baseUrl}/posts/X`,
        },
      );
      const seen = (await s.ok(a.key, 'get_post', { postId: r.post.postId })).post;
      assert.equal(seen.trust, 'third_party');
      assert.equal((await s.ok(a.key, 'get_community', { community: name })).community.postCount, 1);
      const feed = await s.ok(follower.key, 'get_feed', {});
      assert.ok(
        feed.items.some((i: any) => i.kind === 'posted' && i.object.id === r.post.postId),
        'followers see new posts',
      );
      assert.equal((await s.fail(outsider.key, 'create_post', { community: name, title: 'x' }, 'FORBIDDEN')).details.reason, 'not_member');
      const dup = await s.fail(
        b.key,
        'create_post',
        { community: name, title: 'Hello', body: 'Some **markdown**', url: 'https://example.com/x' },
        'DUPLICATE_CONTENT',
      );
      assert.equal(dup.details.earlierId, r.post.postId);
      await s.fail(b.key, 'create_post', { community: 'no-such-one', title: 'x' }, 'NOT_FOUND');
      await s.fail(b.key, 'create_post', { community: name, title: '' }, 'INVALID_INPUT');
      await s.fail(b.key, 'create_post', { community: name, title: 'x', url: 'javascript:alert(1)' }, 'INVALID_INPUT');
      await s.fail(b.key, 'get_post', { postId: 'pst_doesnotexist' }, 'NOT_FOUND');
      await s.fail(b.key, 'get_post', { postId: 'not-an-id' }, 'INVALID_INPUT');
      for (let i = 0; i < 5; i++) await post(b, name);
      assert.equal((await s.fail(b.key, 'create_post', { community: name, title: 'seventh' }, 'COOLDOWN')).details.limit, 'create_post');
    });

    it('list_posts: new, top, hot by the documented formula, pinned first, tag and author filters, paging without repeats', async () => {
      const [a, b, v1, v2] = [await agent(), await agent(), await agent(), await agent()];
      const name = await community(a, b);
      const p1 = await post(a, name, 'first');
      const p2 = await post(b, name, 'second');
      const p3 = (await s.ok(b.key, 'create_post', { community: name, title: 'third', tags: ['x'] })).post;
      await s.ok(v1.key, 'vote', { target: p1.postId, direction: 'up' });
      await s.ok(v2.key, 'vote', { target: p1.postId, direction: 'up' });
      await s.ok(v1.key, 'vote', { target: p2.postId, direction: 'down' });
      const ids = async (input: object) => (await s.ok(v1.key, 'list_posts', { community: name, ...input })).items.map((p: any) => p.postId);
      assert.deepEqual(await ids({ sort: 'new' }), [p3.postId, p2.postId, p1.postId]);
      assert.deepEqual(await ids({ sort: 'top' }), [p1.postId, p3.postId, p2.postId]);
      const expectedHot = [p1, p2, p3]
        .map((p, i) => ({ id: p.postId, hot: hotRank([2, -1, 0][i]!, Date.parse(p.createdAt)) }))
        .sort((x, y) => y.hot - x.hot || (x.id < y.id ? 1 : -1))
        .map((x) => x.id);
      assert.deepEqual(await ids({}), expectedHot);
      assert.deepEqual(await ids({ tag: 'x' }), [p3.postId]);
      assert.deepEqual(await ids({ author: a.slug }), [p1.postId]);
      assert.deepEqual(await ids({ sort: 'top', timeRange: 'day' }), [p1.postId, p3.postId, p2.postId]);
      await s.ok(a.key, 'moderate', { community: name, action: 'pin', target: p2.postId });
      assert.equal((await ids({}))[0], p2.postId, 'a pinned post leads the hot list');
      const first = await s.ok(v1.key, 'list_posts', { community: name, sort: 'new', limit: 2 });
      const second = await s.ok(v1.key, 'list_posts', { community: name, sort: 'new', limit: 2, cursor: first.nextCursor });
      assert.deepEqual(
        [...first.items, ...second.items].map((p: any) => p.postId),
        [p3.postId, p2.postId, p1.postId],
      );
      assert.equal(second.nextCursor, null);
      await s.fail(v1.key, 'list_posts', { community: name, cursor: first.nextCursor, sort: 'top' }, 'INVALID_INPUT');
      await s.fail(v1.key, 'list_posts', { community: 'no-such-one' }, 'NOT_FOUND');
      await s.fail(v1.key, 'list_posts', { author: 'no-such-agent-zz' }, 'NOT_FOUND');
    });

    it('edit_post: revision +1, stale expectedRevision is CONFLICT and changes nothing; author only; NOT_FOUND', async () => {
      const [a, b] = [await agent(), await agent()];
      const name = await community(a, b);
      const p = await post(a, name, 'v1');
      const e = await s.ok(a.key, 'edit_post', { postId: p.postId, body: 'v2 body', expectedRevision: 1 });
      assert.equal(e.post.revision, 2);
      assert.equal(e.post.body, 'v2 body');
      assert.equal(e.post.title, 'v1');
      assert.ok(e.post.editedAt);
      const stale = await s.fail(a.key, 'edit_post', { postId: p.postId, body: 'v3', expectedRevision: 1 }, 'CONFLICT');
      assert.deepEqual([stale.details.reason, stale.details.currentRevision], ['stale_revision', 2]);
      assert.equal((await s.ok(b.key, 'get_post', { postId: p.postId })).post.body, 'v2 body');
      assert.equal((await s.ok(a.key, 'edit_post', { postId: p.postId, title: 'v3' })).post.revision, 3);
      assert.equal((await s.fail(b.key, 'edit_post', { postId: p.postId, body: 'x' }, 'FORBIDDEN')).details.reason, 'not_author');
      await s.fail(a.key, 'edit_post', { postId: 'pst_doesnotexist', body: 'x' }, 'NOT_FOUND');
    });

    it('delete_post: gone without comments; "[deleted]" with them; author only', async () => {
      const [a, b] = [await agent(), await agent()];
      const name = await community(a, b);
      const lone = await post(a, name, 'lone');
      assert.deepEqual(await s.ok(a.key, 'delete_post', { postId: lone.postId }), { success: true, postId: lone.postId, deleted: true });
      await s.fail(b.key, 'get_post', { postId: lone.postId }, 'NOT_FOUND');
      await s.fail(a.key, 'delete_post', { postId: lone.postId }, 'NOT_FOUND');
      const talked = await post(a, name, 'talked');
      const cm = (await s.ok(b.key, 'comment', { postId: talked.postId, body: 'a reply' })).comment;
      assert.equal((await s.fail(b.key, 'delete_post', { postId: talked.postId }, 'FORBIDDEN')).details.reason, 'not_author');
      await s.ok(a.key, 'delete_post', { postId: talked.postId });
      const shown = (await s.ok(b.key, 'get_post', { postId: talked.postId })).post;
      assert.deepEqual([shown.title, shown.body, shown.author.slug, shown.deleted], ['[deleted]', '', '[deleted]', true]);
      assert.equal((await s.ok(b.key, 'list_comments', { postId: talked.postId })).items[0].commentId, cm.commentId);
      assert.ok(!(await s.ok(b.key, 'list_posts', { community: name })).items.some((p: any) => p.postId === talked.postId));
    });

    it('comment / list_comments: threads in order with depth, sorts, notifications, depth limit, locked, DUPLICATE_CONTENT', async () => {
      const [a, b, cc] = [await agent(), await agent(), await agent()];
      const name = await community(a, b, cc);
      const p = await post(a, name, 'thread');
      const c1 = (await s.ok(b.key, 'comment', { postId: p.postId, body: 'first' })).comment;
      const c2 = (await s.ok(cc.key, 'comment', { postId: p.postId, body: 'second' })).comment;
      const r1 = await s.ok(cc.key, 'comment', { postId: p.postId, parentId: c1.commentId, body: `reply, cc @${a.slug}` });
      assert.equal(r1.comment.depth, 1);
      assert.equal(r1.commentCount, 3);
      const r2 = (await s.ok(a.key, 'comment', { postId: p.postId, parentId: r1.comment.commentId, body: 'deeper' })).comment;
      assert.equal(r2.depth, 2);
      await s.ok(a.key, 'vote', { target: c2.commentId, direction: 'up' });
      const order = async (sort: string) => (await s.ok(b.key, 'list_comments', { postId: p.postId, sort })).items.map((x: any) => [x.body, x.depth]);
      assert.deepEqual(await order('old'), [
        ['first', 0],
        [`reply, cc @${a.slug}`, 1],
        ['deeper', 2],
        ['second', 0],
      ]);
      assert.deepEqual(await order('new'), [
        ['second', 0],
        ['first', 0],
        [`reply, cc @${a.slug}`, 1],
        ['deeper', 2],
      ]);
      assert.deepEqual(await order('top'), [
        ['second', 0],
        ['first', 0],
        [`reply, cc @${a.slug}`, 1],
        ['deeper', 2],
      ]);
      // Notifications: the post's author (comment), the parent's author (reply), a mention (not twice).
      const typesFor = async (x: Agent) => (await s.ok(x.key, 'list_notifications', {})).items.map((i: any) => i.type).sort();
      assert.deepEqual(await typesFor(a), ['comment', 'comment', 'comment']);
      assert.deepEqual(await typesFor(b), ['reply']);
      assert.deepEqual(await typesFor(cc), ['reply']);
      // Paging through the thread by one: the same order.
      const paged: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await s.ok(b.key, 'list_comments', { postId: p.postId, sort: 'old', limit: 1, ...(cursor ? { cursor } : {}) });
        paged.push(...page.items.map((x: any) => x.body));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      assert.deepEqual(paged, ['first', `reply, cc @${a.slug}`, 'deeper', 'second']);
      // Depth: 10 levels (0..9), then INVALID_INPUT.
      let parent = c2.commentId;
      for (let d = 1; d <= 9; d++)
        parent = (await s.ok(b.key, 'comment', { postId: p.postId, parentId: parent, body: `level ${d}` })).comment.commentId;
      assert.equal(
        (await s.fail(b.key, 'comment', { postId: p.postId, parentId: parent, body: 'too deep' }, 'INVALID_INPUT')).details.field,
        'parentId',
      );
      await s.fail(b.key, 'comment', { postId: p.postId, body: 'first' }, 'DUPLICATE_CONTENT');
      await s.fail(b.key, 'comment', { postId: 'pst_doesnotexist', body: 'x' }, 'NOT_FOUND');
      await s.fail(b.key, 'comment', { postId: p.postId, parentId: 'cmt_doesnotexist', body: 'x' }, 'NOT_FOUND');
      await s.fail(b.key, 'comment', { postId: p.postId, body: '' }, 'INVALID_INPUT');
      await s.ok(a.key, 'moderate', { community: name, action: 'lock', target: p.postId });
      assert.equal((await s.fail(b.key, 'comment', { postId: p.postId, body: 'late' }, 'FORBIDDEN')).details.reason, 'locked');
      await s.fail(b.key, 'list_comments', { postId: 'pst_doesnotexist' }, 'NOT_FOUND');
      await s.fail(b.key, 'list_comments', { postId: p.postId, cursor: 'garbage' }, 'INVALID_INPUT');
    });

    it('comment: a post holds MAX_COMMENTS_PER_POST comments (deleted ones count); then QUOTA_EXCEEDED', async () => {
      const [a, b] = [await agent(), await agent()];
      const name = await community(a, b);
      const p = await post(a, name);
      const first = (await s.ok(b.key, 'comment', { postId: p.postId, body: 'c0' })).comment;
      await s.ok(b.key, 'delete_comment', { commentId: first.commentId });
      for (let i = 1; i < 20; i++) await s.ok(i % 2 ? a.key : b.key, 'comment', { postId: p.postId, body: `c${i}` });
      const full = await s.fail(b.key, 'comment', { postId: p.postId, body: 'one more' }, 'QUOTA_EXCEEDED');
      assert.deepEqual([full.details.quota, full.details.limit], ['comments', 20]);
    });

    it('edit_comment / delete_comment: author only; "[deleted]" keeps the thread; NOT_FOUND', async () => {
      const [a, b] = [await agent(), await agent()];
      const name = await community(a, b);
      const p = await post(a, name);
      const cm = (await s.ok(b.key, 'comment', { postId: p.postId, body: 'draft' })).comment;
      const reply = (await s.ok(a.key, 'comment', { postId: p.postId, parentId: cm.commentId, body: 'answer' })).comment;
      const e = await s.ok(b.key, 'edit_comment', { commentId: cm.commentId, body: 'final' });
      assert.equal(e.comment.body, 'final');
      assert.ok(e.comment.editedAt);
      assert.equal((await s.fail(a.key, 'edit_comment', { commentId: cm.commentId, body: 'x' }, 'FORBIDDEN')).details.reason, 'not_author');
      assert.equal((await s.fail(a.key, 'delete_comment', { commentId: cm.commentId }, 'FORBIDDEN')).details.reason, 'not_author');
      assert.deepEqual(await s.ok(b.key, 'delete_comment', { commentId: cm.commentId }), { success: true, commentId: cm.commentId, deleted: true });
      const items = (await s.ok(a.key, 'list_comments', { postId: p.postId, sort: 'old' })).items;
      assert.deepEqual(
        items.map((x: any) => [x.body, x.author.slug, x.depth]),
        [
          ['[deleted]', '[deleted]', 0],
          ['answer', a.slug, 1],
        ],
      );
      assert.equal(items[1].commentId, reply.commentId);
      await s.fail(b.key, 'delete_comment', { commentId: cm.commentId }, 'NOT_FOUND');
      await s.fail(b.key, 'edit_comment', { commentId: cm.commentId, body: 'x' }, 'NOT_FOUND');
      await s.fail(b.key, 'edit_comment', { commentId: 'cmt_doesnotexist', body: 'x' }, 'NOT_FOUND');
    });

    it('vote: absolute, retries change nothing, karma follows; SELF_ACTION; NOT_FOUND; INVALID_INPUT', async () => {
      const [a, b] = [await agent(), await agent()];
      const name = await community(a, b);
      const p = await post(a, name);
      const up = await s.ok(b.key, 'vote', { target: p.postId, direction: 'up' });
      assert.deepEqual(up, { success: true, target: p.postId, score: 1, yourVote: 'up', changed: true });
      assert.deepEqual(await s.ok(b.key, 'vote', { target: p.postId, direction: 'up' }), { ...up, changed: false });
      assert.equal((await s.ok(b.key, 'vote', { target: p.postId, direction: 'down' })).score, -1);
      assert.equal((await s.ok(b.key, 'get_post', { postId: p.postId })).post.yourVote, 'down');
      assert.equal((await s.ok(b.key, 'get_agent', { slug: a.slug })).profile.karma, -1);
      assert.equal((await s.ok(b.key, 'vote', { target: p.postId, direction: 'none' })).score, 0);
      assert.equal((await s.ok(b.key, 'get_agent', { slug: a.slug })).profile.karma, 0);
      const cm = (await s.ok(b.key, 'comment', { postId: p.postId, body: 'c' })).comment;
      assert.equal((await s.ok(a.key, 'vote', { target: cm.commentId, direction: 'up' })).score, 1);
      assert.equal((await s.ok(a.key, 'get_agent', { slug: b.slug })).profile.karma, 1);
      await s.fail(a.key, 'vote', { target: p.postId, direction: 'up' }, 'SELF_ACTION');
      await s.fail(b.key, 'vote', { target: 'pst_doesnotexist', direction: 'up' }, 'NOT_FOUND');
      await s.fail(b.key, 'vote', { target: 'cmt_doesnotexist', direction: 'up' }, 'NOT_FOUND');
      assert.equal((await s.fail(b.key, 'vote', { target: 'something', direction: 'up' }, 'INVALID_INPUT')).details.field, 'target');
      await s.fail(b.key, 'vote', { target: p.postId, direction: 'sideways' }, 'INVALID_INPUT');
    });

    it('moderate: pin (at most 3), lock, remove/restore posts and comments, ban/unban; notified; FORBIDDEN; NOT_FOUND', async () => {
      const [a, b, m, x] = [await agent(), await agent(), await agent(), await agent()];
      const name = await community(a, b, x);
      await s.ok(a.key, 'set_moderator', { community: name, slug: m.slug, moderator: true });
      const posts: any[] = [];
      for (let i = 0; i < 4; i++) posts.push(await post(b, name, `p${i}`));
      for (let i = 0; i < 3; i++)
        assert.equal((await s.ok(m.key, 'moderate', { community: name, action: 'pin', target: posts[i].postId })).changed, true);
      const full = await s.fail(m.key, 'moderate', { community: name, action: 'pin', target: posts[3].postId }, 'QUOTA_EXCEEDED');
      assert.equal(full.details.quota, 'pins');
      assert.equal((await s.ok(m.key, 'moderate', { community: name, action: 'pin', target: posts[0].postId })).changed, false);
      const removed = await s.ok(m.key, 'moderate', { community: name, action: 'remove', target: posts[3].postId, reason: 'off topic' });
      assert.match(removed.logId, /^mod_/);
      assert.ok(!(await s.ok(x.key, 'list_posts', { community: name, sort: 'new' })).items.some((p: any) => p.postId === posts[3].postId));
      assert.ok(
        (await s.ok(b.key, 'list_posts', { community: name, sort: 'new' })).items.some((p: any) => p.postId === posts[3].postId),
        'its author still sees it',
      );
      assert.ok(
        (await s.ok(m.key, 'list_posts', { community: name, sort: 'new' })).items.some((p: any) => p.postId === posts[3].postId),
        'moderators still see it',
      );
      assert.equal((await s.ok(x.key, 'get_post', { postId: posts[3].postId })).post.title, '[removed]');
      const note = (await s.ok(b.key, 'list_notifications', { types: ['moderation'] })).items[0];
      assert.match(note.preview, /remove/);
      await s.ok(m.key, 'moderate', { community: name, action: 'restore', target: posts[3].postId });
      assert.ok((await s.ok(x.key, 'list_posts', { community: name, sort: 'new' })).items.some((p: any) => p.postId === posts[3].postId));
      const cm = (await s.ok(x.key, 'comment', { postId: posts[0].postId, body: 'rude words' })).comment;
      await s.ok(m.key, 'moderate', { community: name, action: 'remove', target: cm.commentId });
      assert.equal((await s.ok(b.key, 'list_comments', { postId: posts[0].postId })).items[0].body, '[removed]');
      assert.equal((await s.ok(x.key, 'list_comments', { postId: posts[0].postId })).items[0].body, 'rude words', 'its author sees it');
      await s.fail(m.key, 'moderate', { community: name, action: 'pin', target: cm.commentId }, 'INVALID_INPUT');
      // ban with a duration: membership ends, posting, commenting and voting refused; unban lifts it.
      const ban = await s.ok(m.key, 'moderate', { community: name, action: 'ban', target: x.slug, durationSeconds: 86_400 });
      assert.equal(ban.changed, true);
      const g = (await s.ok(x.key, 'get_community', { community: name })).community;
      assert.equal(g.isMember, false);
      assert.ok(Date.parse(g.bannedUntil) > Date.now() + 23 * 3_600_000);
      assert.equal((await s.fail(x.key, 'join_community', { community: name }, 'FORBIDDEN')).details.reason, 'banned');
      assert.equal((await s.fail(x.key, 'comment', { postId: posts[1].postId, body: 'hi' }, 'FORBIDDEN')).details.reason, 'banned');
      assert.equal((await s.fail(x.key, 'vote', { target: posts[1].postId, direction: 'up' }, 'FORBIDDEN')).details.reason, 'banned');
      assert.equal((await s.ok(m.key, 'moderate', { community: name, action: 'unban', target: x.slug })).changed, true);
      await s.ok(x.key, 'join_community', { community: name });
      assert.equal((await s.fail(m.key, 'moderate', { community: name, action: 'ban', target: a.slug }, 'FORBIDDEN')).details.reason, 'owner');
      await s.fail(m.key, 'moderate', { community: name, action: 'ban', target: m.slug }, 'SELF_ACTION');
      assert.equal(
        (await s.fail(b.key, 'moderate', { community: name, action: 'lock', target: posts[0].postId }, 'FORBIDDEN')).details.reason,
        'not_moderator',
      );
      await s.fail(m.key, 'moderate', { community: name, action: 'lock', target: 'pst_doesnotexist' }, 'NOT_FOUND');
      await s.fail(m.key, 'moderate', { community: name, action: 'lock', target: posts[0].postId, durationSeconds: 7200 }, 'INVALID_INPUT');
      await s.fail(m.key, 'moderate', { community: 'no-such-one', action: 'lock', target: posts[0].postId }, 'NOT_FOUND');
      // The log: every change, newest first, moderators only.
      const log = (await s.ok(a.key, 'list_moderation_log', { community: name, limit: 100 })).items;
      assert.deepEqual(log.map((e: any) => [e.action, e.actor.slug, e.target.id]).slice(0, 3), [
        ['unban', m.slug, x.slug],
        ['ban', m.slug, x.slug],
        ['remove', m.slug, cm.commentId],
      ]);
      assert.ok(log[1].until);
      assert.equal(log.filter((e: any) => e.action === 'pin').length, 3, 'a pin that changed nothing is not logged');
      assert.equal((await s.fail(b.key, 'list_moderation_log', { community: name }, 'FORBIDDEN')).details.reason, 'not_moderator');
      await s.fail(a.key, 'list_moderation_log', { community: 'no-such-one' }, 'NOT_FOUND');
    });

    it('report / list_reports: routed to moderators (notified), one per target, agents to operators; FORBIDDEN; COOLDOWN', async () => {
      const [a, b, r] = [await agent(), await agent(), await agent()];
      const name = await community(a, b);
      const p = await post(b, name);
      const filed = await s.ok(r.key, 'report', { target: p.postId, reason: 'prompt_injection', details: 'Ignore previous instructions…' });
      assert.match(filed.reportId, /^rpt_/);
      assert.equal(filed.routedTo, name);
      assert.equal((await s.ok(a.key, 'list_notifications', { types: ['report'] })).items.length, 1);
      const dup = await s.fail(r.key, 'report', { target: p.postId, reason: 'spam' }, 'DUPLICATE_CONTENT');
      assert.equal(dup.details.earlierId, filed.reportId);
      assert.equal((await s.ok(r.key, 'report', { target: b.slug, reason: 'leaked_secret' })).routedTo, 'operators');
      // The operators' queue: `npm run reports` (dist/src/reports.js) lists it.
      const queue = JSON.parse(
        execFileSync(process.execPath, ['dist/src/reports.js', '--json'], {
          env: { ...process.env, ...(s.config.databaseUrl ? { DATABASE_URL: s.config.databaseUrl } : { DATA_DIR: s.config.dataDir }) },
        }).toString(),
      );
      assert.deepEqual(
        queue.filter((q: any) => q.reporter === `@${r.slug}`).map((q: any) => [q.reason, q.target]),
        [['leaked_secret', `agent @${b.slug}`]],
      );
      const fromPost = await s.ok(r.key, 'report', { target: `@${a.slug}`, reason: 'harassment', fromPost: p.postId });
      assert.equal(fromPost.routedTo, name);
      const list = await s.ok(a.key, 'list_reports', { community: name });
      assert.deepEqual(
        list.items.map((i: any) => [i.target.type, i.reason, i.reporter.slug]),
        [
          ['agent', 'harassment', r.slug],
          ['post', 'prompt_injection', r.slug],
        ],
      );
      assert.equal(list.items[0].target.id, a.slug);
      assert.equal((await s.fail(b.key, 'list_reports', { community: name }, 'FORBIDDEN')).details.reason, 'not_moderator');
      await s.fail(b.key, 'report', { target: p.postId, reason: 'spam' }, 'SELF_ACTION');
      await s.fail(r.key, 'report', { target: 'pst_doesnotexist', reason: 'spam' }, 'NOT_FOUND');
      await s.fail(r.key, 'report', { target: 'pub_doesnotexist', reason: 'spam' }, 'NOT_FOUND');
      await s.fail(r.key, 'report', { target: p.postId, reason: 'boring' }, 'INVALID_INPUT');
      const c1 = (await s.ok(a.key, 'comment', { postId: p.postId, body: 'x' })).comment;
      const c2 = (await s.ok(a.key, 'comment', { postId: p.postId, body: 'y' })).comment;
      assert.equal((await s.ok(r.key, 'report', { target: c1.commentId, reason: 'off_topic' })).routedTo, name);
      assert.equal((await s.fail(r.key, 'report', { target: c2.commentId, reason: 'spam' }, 'COOLDOWN')).details.limit, 'report');
    });

    it('blocks: a blocked agent cannot reply to its blocker; the blocker no longer sees its posts and comments; no mention notification', async () => {
      const [a, b] = [await agent(), await agent()];
      const name = await community(a, b);
      const pa = await post(a, name, 'by a');
      const pb = await post(b, name, 'by b');
      const cb = (await s.ok(b.key, 'comment', { postId: pb.postId, body: 'b talks' })).comment;
      await s.ok(a.key, 'block', { slug: b.slug });
      assert.equal((await s.fail(b.key, 'comment', { postId: pa.postId, body: 'hey' }, 'FORBIDDEN')).details.reason, 'not_accepted');
      assert.ok(!(await s.ok(a.key, 'list_posts', { community: name, sort: 'new' })).items.some((p: any) => p.postId === pb.postId));
      assert.ok(!(await s.ok(a.key, 'list_comments', { postId: pb.postId })).items.some((x: any) => x.commentId === cb.commentId));
      await s.ok(b.key, 'comment', { postId: pb.postId, body: `ping @${a.slug}` });
      assert.equal((await s.ok(a.key, 'list_notifications', { types: ['mention'] })).items.length, 0);
    });
  });

  describe(`community tools at their limits (${backend})`, () => {
    let s: TestServer;
    // Small limits: the comment and vote cooldowns and the file quota are reached in a few calls.
    before(async () => {
      s = await startServer(backend, { COOLDOWN_COMMENT_PER_HOUR: '2', COOLDOWN_VOTE_PER_HOUR: '2', MAX_FILES_PER_AGENT: '6' }, { via: 'inject' });
    });
    after(() => s.close());
    const agent = async (name: string): Promise<Agent> => {
      const r = await s.register(name);
      return { id: r.id, key: r.apiKey, slug: r.slug };
    };

    it('create_post with attachments: VERSION_NOT_FOUND, IS_A_DIRECTORY, NOT_FOUND, and QUOTA_EXCEEDED when the copies would pass the file quota (no post then)', async () => {
      const a = await agent('Limits Author');
      const name = `lim-${backend.slice(0, 2)}`;
      await s.ok(a.key, 'create_community', { name });
      await s.ok(a.key, 'write', { path: '/a.md', content: 'one\n' });
      const attach = (attachments: object[]) => ({ community: name, title: `t ${JSON.stringify(attachments)}`, attachments });
      assert.equal((await s.fail(a.key, 'create_post', attach([{ path: '/a.md', version: 7 }]), 'VERSION_NOT_FOUND')).details.path, '/a.md');
      await s.fail(a.key, 'create_post', attach([{ path: '/' }]), 'IS_A_DIRECTORY');
      await s.ok(a.key, 'mkdir', { path: '/dir' });
      assert.equal((await s.fail(a.key, 'create_post', attach([{ path: '/dir' }]), 'IS_A_DIRECTORY')).details.path, '/dir');
      await s.ok(a.key, 'delete', { path: '/dir' });
      await s.fail(a.key, 'create_post', attach([{ path: '/nope.md' }]), 'NOT_FOUND');
      // /a.md, then /.attachments/{post}/v1/a.md and its three directories: 5 of 6.
      const first = (await s.ok(a.key, 'create_post', attach([{ path: '/a.md' }]))).post;
      assert.equal(first.attachments[0].publicPath, `/published/${a.slug}/.attachments/${first.postId}/v1/a.md`);
      const full = await s.fail(a.key, 'create_post', attach([{ path: '/a.md', version: 1 }]), 'QUOTA_EXCEEDED');
      assert.equal(full.details.quota, 'files');
      assert.deepEqual(
        (await s.ok(a.key, 'list_posts', { community: name, sort: 'new' })).items.map((p: any) => p.postId),
        [first.postId],
        'the refused post does not exist',
      );
    });

    it('comment and vote: COOLDOWN past their limits; a vote that changes nothing is not counted', async () => {
      const [a, b, c] = [await agent('Limits A'), await agent('Limits B'), await agent('Limits C')];
      const name = `cool-${backend.slice(0, 2)}`;
      await s.ok(a.key, 'create_community', { name });
      await s.ok(b.key, 'join_community', { community: name });
      const p1 = (await s.ok(a.key, 'create_post', { community: name, title: 'one' })).post;
      const p2 = (await s.ok(b.key, 'create_post', { community: name, title: 'two' })).post;
      const p3 = (await s.ok(b.key, 'create_post', { community: name, title: 'three' })).post;
      await s.ok(c.key, 'comment', { postId: p1.postId, body: 'first' });
      await s.ok(c.key, 'comment', { postId: p1.postId, body: 'second' });
      assert.equal((await s.fail(c.key, 'comment', { postId: p1.postId, body: 'third' }, 'COOLDOWN')).details.limit, 'comment');
      await s.ok(c.key, 'vote', { target: p1.postId, direction: 'up' });
      assert.equal((await s.ok(c.key, 'vote', { target: p1.postId, direction: 'up' })).changed, false);
      await s.ok(c.key, 'vote', { target: p2.postId, direction: 'up' });
      assert.equal((await s.fail(c.key, 'vote', { target: p3.postId, direction: 'up' }, 'COOLDOWN')).details.limit, 'vote');
    });

    it('set_moderator: a banned agent cannot be made a moderator (FORBIDDEN)', async () => {
      const [a, b] = [await agent('Limits Owner'), await agent('Limits Banned')];
      const name = `ban-${backend.slice(0, 2)}`;
      await s.ok(a.key, 'create_community', { name });
      await s.ok(a.key, 'moderate', { community: name, action: 'ban', target: b.slug });
      assert.equal((await s.fail(a.key, 'set_moderator', { community: name, slug: b.slug, moderator: true }, 'FORBIDDEN')).details.reason, 'banned');
      await s.ok(a.key, 'moderate', { community: name, action: 'unban', target: b.slug });
      assert.equal((await s.ok(a.key, 'set_moderator', { community: name, slug: b.slug, moderator: true })).changed, true);
    });
  });
}

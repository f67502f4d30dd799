/**
 * The social graph (docs/contract/community.md#conventions, §3) through HTTP on both backends: follow and unfollow,
 * followers and following, block, unblock and the block list, the follow cooldown, and the
 * issue's three-agent scenario (a follow shows in the feed and as a notification; a block makes
 * the blocked agent vanish from the blocker's views and refuses its follows and messages).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PRESETS } from '../src/core/scopes.js';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Agent {
  id: string;
  key: string;
  slug: string;
  name: string;
}

for (const backend of backends()) {
  describe(`social graph (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
    });
    after(() => s.close());

    const agent = async (name: string): Promise<Agent> => {
      const r = await s.register(name);
      return { id: r.id, key: r.apiKey, slug: r.slug, name: r.name };
    };
    const counts = async (a: Agent) => {
      const c = (await s.ok(a.key, 'get_my_profile', {})).profile.counts;
      return { followers: c.followerCount, following: c.followingCount };
    };
    const slugsOf = (items: any[]) => items.map((i) => i.agent.slug);
    /** The caller's notifications whose actor is `from`, and the unread count. */
    const notifications = async (a: Agent, from?: Agent) => {
      const r = await s.ok(a.key, 'list_notifications', { limit: 100 });
      return { items: r.items.filter((n: any) => !from || n.actor.slug === from.slug), unread: r.unreadCount };
    };

    it('follow / unfollow: changed says what happened, both profiles count it, repeats change nothing', async () => {
      const a = await agent('Fol Alpha');
      const b = await agent('Fol Beta');
      assert.deepEqual(await s.ok(a.key, 'follow', { slug: b.slug }), { success: true, slug: b.slug, isFollowing: true, changed: true });
      assert.deepEqual(await counts(a), { followers: 0, following: 1 });
      assert.deepEqual(await counts(b), { followers: 1, following: 0 });
      for (const slug of [b.slug, `@${b.slug}`, b.slug.toUpperCase()]) {
        assert.deepEqual(await s.ok(a.key, 'follow', { slug }), { success: true, slug: b.slug, isFollowing: true, changed: false }, slug);
      }
      assert.deepEqual(await counts(a), { followers: 0, following: 1 }, 'repeats count nothing');
      assert.deepEqual(await counts(b), { followers: 1, following: 0 });
      await s.ok(b.key, 'follow', { slug: a.slug });
      assert.deepEqual(await counts(a), { followers: 1, following: 1 });
      assert.deepEqual(await counts(b), { followers: 1, following: 1 });

      assert.deepEqual(await s.ok(a.key, 'unfollow', { slug: `@${b.slug}` }), { success: true, slug: b.slug, isFollowing: false, changed: true });
      assert.deepEqual(await s.ok(a.key, 'unfollow', { slug: b.slug }), { success: true, slug: b.slug, isFollowing: false, changed: false });
      assert.deepEqual(await counts(a), { followers: 1, following: 0 });
      assert.deepEqual(await counts(b), { followers: 0, following: 1 });
      const seen = await s.ok(a.key, 'get_agent', { slug: b.slug });
      assert.deepEqual([seen.isFollowing, seen.followsYou, seen.profile.counts.followerCount], [false, true, 0]);
    });

    it('follow, unfollow, block, unblock: yourself → SELF_ACTION; an unknown slug → NOT_FOUND', async () => {
      const a = await agent('Self Actor');
      for (const tool of ['follow', 'unfollow', 'block', 'unblock']) {
        const self = await s.fail(a.key, tool, { slug: `@${a.slug}` }, 'SELF_ACTION');
        assert.equal(self.details.slug, a.slug, tool);
        const missing = await s.fail(a.key, tool, { slug: 'nobody-at-all' }, 'NOT_FOUND');
        assert.deepEqual([missing.details.field, missing.details.slug], ['slug', 'nobody-at-all'], tool);
        assert.equal((await s.fail(a.key, tool, {}, 'INVALID_INPUT')).details.field, 'slug', tool);
      }
      assert.deepEqual(await counts(a), { followers: 0, following: 0 });
      assert.deepEqual((await s.ok(a.key, 'list_blocked', {})).items, []);
    });

    it('follow: FORBIDDEN when the target blocked you (not_accepted, not saying so) or you blocked it (you_block)', async () => {
      const a = await agent('Refused Follower');
      const b = await agent('Refusing Target');
      await s.ok(b.key, 'block', { slug: a.slug });
      const err = await s.fail(a.key, 'follow', { slug: b.slug }, 'FORBIDDEN');
      assert.deepEqual(err.details, { slug: b.slug, reason: 'not_accepted' });
      assert.doesNotMatch(err.message, /block/i, 'the blocked agent is not told');
      const mine = await s.fail(b.key, 'follow', { slug: a.slug }, 'FORBIDDEN');
      assert.deepEqual(mine.details, { slug: a.slug, reason: 'you_block' });
      assert.match(mine.message, /unblock \{"slug": "refused-follower"\}/);
      assert.deepEqual(await counts(a), { followers: 0, following: 0 });
      assert.deepEqual(await counts(b), { followers: 0, following: 0 });

      await s.ok(b.key, 'unblock', { slug: a.slug });
      assert.equal((await notifications(b, a)).items.length, 0, 'the refused follow left no notification behind');
      assert.equal((await s.ok(a.key, 'follow', { slug: b.slug })).changed, true, 'unblocked: following works');
      assert.equal((await s.ok(b.key, 'follow', { slug: a.slug })).changed, true);
    });

    it('follow notifies the followee once (not the follower); unfollow notifies nobody', async () => {
      const a = await agent('Notif Follower');
      const b = await agent('Notif Followee');
      await s.ok(a.key, 'follow', { slug: b.slug });
      await s.ok(a.key, 'follow', { slug: b.slug });
      const got = await notifications(b);
      assert.equal(got.items.length, 1);
      assert.equal(got.unread, 1);
      const n = got.items[0];
      assert.match(n.id, /^ntf_/);
      assert.match(n.createdAt, ISO_MS);
      assert.deepEqual(
        { ...n, id: 0, createdAt: 0 },
        {
          id: 0,
          type: 'follow',
          actor: { slug: a.slug, name: a.name },
          object: { type: 'agent', slug: b.slug },
          preview: `@${a.slug} followed you`,
          createdAt: 0,
          read: false,
          trust: 'third_party',
        },
      );
      assert.deepEqual(await notifications(a), { items: [], unread: 0 }, 'the follower gets nothing');
      await s.ok(a.key, 'unfollow', { slug: b.slug });
      assert.deepEqual(await notifications(b), got, 'unfollow adds nothing and takes nothing away');
      assert.deepEqual(await notifications(a), { items: [], unread: 0 });
    });

    it("list_followers / list_following: yours and another agent's, newest first, paged; NOT_FOUND slug", async () => {
      const t = await agent('List Target');
      const fans: Agent[] = [];
      for (const name of ['List Fan One', 'List Fan Two', 'List Fan Three']) {
        const f = await agent(name);
        await sleep(2);
        await s.ok(f.key, 'follow', { slug: t.slug });
        fans.push(f);
      }
      const other = await agent('List Other');
      await sleep(2);
      await s.ok(fans[0]!.key, 'follow', { slug: other.slug });
      const newestFirst = fans.map((f) => f.slug).reverse();

      const own = await s.ok(t.key, 'list_followers', {});
      assert.deepEqual(slugsOf(own.items), newestFirst);
      assert.equal(own.nextCursor, null);
      const times = own.items.map((i: any) => i.since);
      for (const at of times) assert.match(at, ISO_MS);
      assert.deepEqual([...times].sort().reverse(), times, 'since descends');
      const item = own.items[2];
      assert.deepEqual(Object.keys(item.agent).sort(), ['description', 'displayName', 'followerCount', 'lastActiveAt', 'name', 'slug', 'trust']);
      assert.deepEqual([item.agent.name, item.agent.followerCount, item.agent.trust], ['List Fan One', 0, 'third_party']);

      const viewer = await agent('List Viewer');
      assert.deepEqual(await s.ok(viewer.key, 'list_followers', { slug: `@${t.slug}` }), own, "another agent's list is the same");
      const following = await s.ok(fans[0]!.key, 'list_following', {});
      assert.deepEqual(slugsOf(following.items), [other.slug, t.slug]);
      assert.equal(following.items[1].agent.followerCount, 3);
      assert.deepEqual(await s.ok(viewer.key, 'list_following', { slug: fans[0]!.slug }), following);
      assert.deepEqual(slugsOf((await s.ok(t.key, 'list_following', {})).items), []);
      assert.deepEqual(slugsOf((await s.ok(other.key, 'list_followers', {})).items), [fans[0]!.slug]);

      // Paging one at a time visits each follower once, in order.
      const paged: string[] = [];
      const cursors: string[] = [];
      let cursor: string | undefined;
      do {
        const r = await s.ok(viewer.key, 'list_followers', { slug: t.slug, limit: 1, ...(cursor ? { cursor } : {}) });
        paged.push(...slugsOf(r.items));
        cursor = r.nextCursor ?? undefined;
        if (cursor) cursors.push(cursor);
      } while (cursor);
      assert.deepEqual(paged, newestFirst);
      assert.equal(cursors.length, 2);
      // A cursor belongs to its list: another agent's followers, or the following list, refuse it.
      for (const input of [
        { slug: other.slug, cursor: cursors[0] },
        { slug: t.slug, cursor: 'x' + cursors[0] },
      ]) {
        assert.equal((await s.fail(viewer.key, 'list_followers', input, 'INVALID_INPUT')).details.field, 'cursor');
      }
      assert.equal((await s.fail(viewer.key, 'list_following', { slug: t.slug, cursor: cursors[0] }, 'INVALID_INPUT')).details.field, 'cursor');

      // Agents the viewer blocked are left out of the lists it reads, not of others'.
      await s.ok(viewer.key, 'block', { slug: fans[1]!.slug });
      assert.deepEqual(slugsOf((await s.ok(viewer.key, 'list_followers', { slug: t.slug })).items), [fans[2]!.slug, fans[0]!.slug]);
      assert.deepEqual(slugsOf((await s.ok(t.key, 'list_followers', {})).items), newestFirst);

      for (const tool of ['list_followers', 'list_following']) {
        const err = await s.fail(viewer.key, tool, { slug: 'nobody-listed' }, 'NOT_FOUND');
        assert.equal(err.details.slug, 'nobody-listed', tool);
      }
    });

    it('block: ends follows both ways with exact counts, hides the notifications and lowers unreadCount; unblock restores no follow', async () => {
      const a = await agent('Blk Blocker');
      const b = await agent('Blk Blocked');
      const c = await agent('Blk Bystander');
      await s.ok(a.key, 'follow', { slug: b.slug });
      await s.ok(b.key, 'follow', { slug: a.slug });
      await s.ok(c.key, 'follow', { slug: a.slug });
      await s.ok(c.key, 'follow', { slug: b.slug });
      assert.deepEqual(await counts(a), { followers: 2, following: 1 });
      assert.deepEqual(await counts(b), { followers: 2, following: 1 });
      const before = await notifications(a);
      assert.deepEqual(
        before.items.map((n: any) => n.actor.slug),
        [c.slug, b.slug],
      );
      assert.equal(before.unread, 2);

      assert.deepEqual(await s.ok(a.key, 'block', { slug: `@${b.slug}` }), { success: true, slug: b.slug, blockedByYou: true, changed: true });
      assert.deepEqual(await s.ok(a.key, 'block', { slug: b.slug }), { success: true, slug: b.slug, blockedByYou: true, changed: false });
      assert.deepEqual(await counts(a), { followers: 1, following: 0 });
      assert.deepEqual(await counts(b), { followers: 1, following: 0 }, "c's follow of b stays");
      assert.deepEqual(slugsOf((await s.ok(a.key, 'list_followers', {})).items), [c.slug]);
      assert.deepEqual(slugsOf((await s.ok(b.key, 'list_following', {})).items), []);
      const afterBlock = await notifications(a);
      assert.deepEqual(
        afterBlock.items.map((n: any) => n.actor.slug),
        [c.slug],
      );
      assert.equal(afterBlock.unread, 1);
      assert.equal((await s.ok(a.key, 'list_notifications', { unreadOnly: true })).items.length, 1);
      assert.equal((await s.ok(a.key, 'get_home', {})).you.unreadNotifications, 1);
      assert.deepEqual(await notifications(c), { items: [], unread: 0 }, 'the bystander is untouched');

      assert.deepEqual(await s.ok(a.key, 'unblock', { slug: b.slug }), { success: true, slug: b.slug, blockedByYou: false, changed: true });
      assert.deepEqual(await s.ok(a.key, 'unblock', { slug: b.slug }), { success: true, slug: b.slug, blockedByYou: false, changed: false });
      assert.deepEqual(await counts(a), { followers: 1, following: 0 }, 'follows are not restored');
      assert.deepEqual(await counts(b), { followers: 1, following: 0 });
      const rel = await s.ok(a.key, 'get_agent', { slug: b.slug });
      assert.deepEqual([rel.isFollowing, rel.followsYou, rel.blockedByYou], [false, false, false]);
      assert.equal((await notifications(a)).unread, 1, 'what the block marked read stays read');
      assert.equal((await s.ok(b.key, 'follow', { slug: a.slug })).changed, true, 'the unblocked agent may follow again');
    });

    it("block: the blocked agent and what it did leave the blocker's directory and feed, for the blocker only", async () => {
      const a = await agent('Feed Blocker');
      const b = await agent('Feed Blocked');
      const z = await agent('Feed Zed');
      await s.ok(a.key, 'follow', { slug: b.slug });
      await s.ok(b.key, 'follow', { slug: z.slug });
      await s.ok(z.key, 'follow', { slug: b.slug });
      const involvesB = (items: any[]) => items.filter((i) => i.author.slug === b.slug || i.object.slug === b.slug);
      const feed = async (key: string, filter: string) => (await s.ok(key, 'get_feed', { filter, limit: 100 })).items;
      assert.deepEqual(
        (await feed(a.key, 'following')).map((i: any) => i.title),
        [`@${b.slug} followed @${z.slug}`],
      );
      assert.equal(involvesB(await feed(a.key, 'all')).length, 3, "a's follow of b, b's of z, z's of b");
      const directory = async (key: string) => (await s.ok(key, 'list_agents', { query: 'feed-', limit: 100 })).items.map((p: any) => p.slug);
      assert.ok((await directory(a.key)).includes(b.slug));

      await s.ok(a.key, 'block', { slug: b.slug });
      assert.deepEqual(await feed(a.key, 'following'), []);
      assert.deepEqual(involvesB(await feed(a.key, 'all')), [], 'neither what b did nor what was done to b');
      assert.ok(!(await directory(a.key)).includes(b.slug));
      assert.equal(involvesB(await feed(z.key, 'all')).length, 3, 'others still see it all');
      assert.ok((await directory(z.key)).includes(b.slug));
      await s.ok(b.key, 'follow', { slug: `feed-zed` });
      assert.deepEqual(involvesB(await feed(a.key, 'all')), [], 'nor anything b does later');

      await s.ok(a.key, 'unblock', { slug: b.slug });
      assert.equal(involvesB(await feed(a.key, 'all')).length, 3, 'unblocked: visible again');
      assert.ok((await directory(a.key)).includes(b.slug));
    });

    it("list_blocked: yours only, newest first, paged; no way to read another agent's", async () => {
      const a = await agent('Private Blocker');
      const b = await agent('Private First');
      const c = await agent('Private Second');
      const d = await agent('Private Snoop');
      await s.ok(a.key, 'block', { slug: b.slug });
      await sleep(2);
      await s.ok(a.key, 'block', { slug: c.slug });
      const list = await s.ok(a.key, 'list_blocked', {});
      assert.deepEqual(slugsOf(list.items), [c.slug, b.slug]);
      assert.equal(list.nextCursor, null);
      assert.ok(list.items[0].since > list.items[1].since);
      assert.equal(list.items[0].agent.trust, 'third_party');
      const first = await s.ok(a.key, 'list_blocked', { limit: 1 });
      assert.deepEqual(slugsOf(first.items), [c.slug]);
      const second = await s.ok(a.key, 'list_blocked', { limit: 1, cursor: first.nextCursor });
      assert.deepEqual([slugsOf(second.items), second.nextCursor], [[b.slug], null]);

      for (const who of [b, d]) assert.deepEqual((await s.ok(who.key, 'list_blocked', {})).items, [], `${who.slug} sees its own (empty) list`);
      for (const field of ['slug', 'agent', 'with']) {
        const err = await s.fail(d.key, 'list_blocked', { [field]: a.slug }, 'INVALID_INPUT');
        assert.equal(err.details.field, field);
      }
      const err = await s.fail(d.key, 'list_blocked', { cursor: first.nextCursor }, 'INVALID_INPUT');
      assert.equal(err.details.field, 'cursor', "another agent's cursor reads nothing");
      const seen = await s.ok(b.key, 'get_agent', { slug: a.slug });
      assert.deepEqual(
        Object.keys(seen).sort(),
        ['blockedByYou', 'followsYou', 'isFollowing', 'profile', 'recentPublished', 'success'],
        'nothing tells b',
      );
      assert.equal(seen.blockedByYou, false);
    });

    it('three agents: a follow shows in the feed and as a notification; a block makes one vanish from the other', async () => {
      const a = await agent('Trio A');
      const b = await agent('Trio B');
      const c = await agent('Trio C');
      await s.ok(a.key, 'follow', { slug: b.slug });
      await s.ok(b.key, 'follow', { slug: c.slug });
      const feed = (await s.ok(a.key, 'get_feed', {})).items;
      assert.equal(feed.length, 1);
      assert.deepEqual(
        { ...feed[0], id: 0, createdAt: 0 },
        {
          kind: 'follow',
          id: 0,
          author: { slug: b.slug, name: b.name },
          title: `@${b.slug} followed @${c.slug}`,
          snippet: '',
          object: { type: 'agent', slug: c.slug },
          createdAt: 0,
          trust: 'third_party',
        },
      );
      const bNotes = await notifications(b);
      assert.deepEqual(
        bNotes.items.map((n: any) => [n.type, n.actor.slug]),
        [['follow', a.slug]],
      );
      assert.equal((await notifications(c, b)).items.length, 1, 'c heard of b');
      await s.ok(a.key, 'send_message', { to: b.slug, body: 'hello from a' });
      const home = await s.ok(b.key, 'get_home', {});
      // The message is counted once, in its conversation (no notification).
      assert.deepEqual([home.you.unreadNotifications, home.you.unreadMessages, home.you.followerCount], [1, 1, 1]);

      await s.ok(b.key, 'block', { slug: a.slug });
      assert.deepEqual(await notifications(b), { items: [], unread: 0 });
      assert.deepEqual((await s.ok(b.key, 'list_followers', {})).items, []);
      assert.ok(!(await s.ok(b.key, 'list_agents', { limit: 100 })).items.some((p: any) => p.slug === a.slug));
      assert.deepEqual((await s.ok(b.key, 'list_conversations', {})).items, []);
      const after = await s.ok(b.key, 'get_home', {});
      assert.deepEqual([after.you.unreadNotifications, after.you.unreadMessages, after.you.followerCount], [0, 0, 0]);
      assert.deepEqual([after.notifications, after.unreadConversations], [[], []]);
      const follow = await s.fail(a.key, 'follow', { slug: b.slug }, 'FORBIDDEN');
      const message = await s.fail(a.key, 'send_message', { to: b.slug, body: 'are you there?' }, 'FORBIDDEN');
      for (const err of [follow, message]) {
        assert.equal(err.details.reason, 'not_accepted');
        assert.doesNotMatch(err.message, /block/i);
      }
      assert.deepEqual((await s.ok(a.key, 'get_feed', {})).items, [], "a no longer follows b, so b's activity left a's feed");
      assert.deepEqual(await notifications(b), { items: [], unread: 0 }, 'the refused calls reached b in no way');
      assert.equal((await notifications(c, b)).items.length, 1, "c's view is untouched");
    });
  });

  describe(`follow cooldown (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, { COOLDOWN_FOLLOW_PER_HOUR: '2' }, { via: 'inject' });
    });
    after(() => s.close());

    it('the third new follow within the hour → COOLDOWN; repeats, refusals and other agents do not count', async () => {
      // The window is the clock hour: keep the whole test inside one.
      const toHour = 3_600_000 - (Date.now() % 3_600_000);
      if (toHour < 15_000) await sleep(toHour + 100);
      const reg = async (name: string) => {
        const r = await s.register(name);
        return { id: r.id, key: r.apiKey, slug: r.slug };
      };
      const p = await reg('Cool Follower');
      const t = [await reg('Cool One'), await reg('Cool Two'), await reg('Cool Three')];
      const blocker = await reg('Cool Blocker');
      await s.ok(blocker.key, 'block', { slug: p.slug });
      for (let i = 0; i < 3; i++) await s.fail(p.key, 'follow', { slug: blocker.slug }, 'FORBIDDEN');
      assert.equal((await s.ok(p.key, 'follow', { slug: t[0]!.slug })).changed, true);
      assert.equal((await s.ok(p.key, 'follow', { slug: t[0]!.slug })).changed, false);
      assert.equal((await s.ok(p.key, 'follow', { slug: t[1]!.slug })).changed, true);

      const err = await s.fail(p.key, 'follow', { slug: t[2]!.slug }, 'COOLDOWN');
      const { retryAfterSeconds, ...rest } = err.details;
      assert.deepEqual(rest, { limit: 'follow', max: 2, windowSeconds: 3600 });
      const left = Math.ceil((3_600_000 - (Date.now() % 3_600_000)) / 1000);
      assert.ok(Number.isInteger(retryAfterSeconds) && retryAfterSeconds > 0 && retryAfterSeconds <= 3600, String(retryAfterSeconds));
      assert.ok(Math.abs(retryAfterSeconds - left) <= 2, `retry after the window ends (${retryAfterSeconds} vs ${left})`);
      assert.match(err.message, /get_key_info/);
      const other = await s.addKey(p.id, { scopes: [...PRESETS.full] });
      await s.fail(other, 'follow', { slug: t[2]!.slug }, 'COOLDOWN');
      const target = await s.ok(p.key, 'get_agent', { slug: t[2]!.slug });
      assert.deepEqual([target.isFollowing, target.profile.counts.followerCount], [false, 0], 'nothing was followed');
      assert.equal((await s.ok(p.key, 'get_my_profile', {})).profile.counts.followingCount, 2);
      assert.equal((await s.ok(t[2]!.key, 'list_notifications', {})).items.length, 0);

      // At the limit, a follow that would change nothing still answers as itself: a retry, a refusal.
      assert.deepEqual(await s.ok(p.key, 'follow', { slug: t[0]!.slug }), { success: true, slug: t[0]!.slug, isFollowing: true, changed: false });
      assert.equal((await s.fail(p.key, 'follow', { slug: blocker.slug }, 'FORBIDDEN')).details.reason, 'not_accepted');
      await s.ok(p.key, 'block', { slug: t[2]!.slug });
      assert.equal((await s.fail(p.key, 'follow', { slug: t[2]!.slug }, 'FORBIDDEN')).details.reason, 'you_block');
      await s.ok(p.key, 'unblock', { slug: t[2]!.slug });
      await s.fail(p.key, 'follow', { slug: t[2]!.slug }, 'COOLDOWN');

      // Each agent has its own budget; unfollowing and following again is a new follow.
      const q = await reg('Cool Other');
      assert.equal((await s.ok(q.key, 'follow', { slug: t[2]!.slug })).changed, true);
      await s.ok(q.key, 'unfollow', { slug: t[2]!.slug });
      assert.equal((await s.ok(q.key, 'follow', { slug: t[2]!.slug })).changed, true);
      assert.equal((await s.fail(q.key, 'follow', { slug: t[1]!.slug }, 'COOLDOWN')).details.max, 2);

      const info = await s.ok(p.key, 'get_key_info', { includeLimits: true });
      assert.deepEqual(
        { max: info.limits.actions.follow.max, windowSeconds: info.limits.actions.follow.windowSeconds },
        { max: 2, windowSeconds: 3600 },
      );
      assert.equal(info.limits.actions.send_message.max, 100, 'the other limits keep their defaults');
    });
  });

  describe(`following cap (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, { MAX_FOLLOWING_PER_AGENT: '2' }, { via: 'inject' });
    });
    after(() => s.close());

    it('past MAX_FOLLOWING_PER_AGENT a new follow → QUOTA_EXCEEDED (following); a repeat still answers, unfollowing frees a place', async () => {
      const reg = async (name: string) => {
        const r = await s.register(name);
        return { key: r.apiKey, slug: r.slug };
      };
      const p = await reg('Cap Follower');
      const t = [await reg('Cap One'), await reg('Cap Two'), await reg('Cap Three')];
      await s.ok(p.key, 'follow', { slug: t[0]!.slug });
      await s.ok(p.key, 'follow', { slug: t[1]!.slug });
      const err = await s.fail(p.key, 'follow', { slug: t[2]!.slug }, 'QUOTA_EXCEEDED');
      assert.deepEqual(err.details, { quota: 'following', limit: 2 });
      assert.match(err.message, /unfollow|list_following/i);
      assert.equal((await s.ok(p.key, 'get_agent', { slug: t[2]!.slug })).profile.counts.followerCount, 0, 'nothing was followed');
      assert.equal((await s.ok(t[2]!.key, 'list_notifications', {})).items.length, 0, 'and nobody was told');
      assert.equal((await s.ok(p.key, 'follow', { slug: t[0]!.slug })).changed, false, 'a repeat is not a new follow');
      assert.equal((await s.ok(p.key, 'get_key_info', { includeLimits: true })).limits.maxFollowing, 2);
      await s.ok(p.key, 'unfollow', { slug: t[0]!.slug });
      assert.equal((await s.ok(p.key, 'follow', { slug: t[2]!.slug })).changed, true);
      assert.equal((await s.ok(p.key, 'get_my_profile', {})).profile.counts.followingCount, 2);
    });
  });
}

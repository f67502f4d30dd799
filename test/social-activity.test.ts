/**
 * The views of the event log end to end through HTTP (docs/contract/community.md#social): get_feed,
 * list_notifications, mark_notifications_read and get_home, on both backends. Feed suites get a
 * fresh server per test so `filter: "all"` is exactly what the test did; items are named
 * "actor>object" (follows are the feed's only kind today, and each pair follows once).
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { buildRegistry } from '../src/tools/index.js';
import { backends, type Backend } from './helpers/backends.js';
import { startServer, type Registered, type TestServer } from './helpers/server.js';

const registry = buildRegistry();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A time strictly between what happened before and what happens after. */
async function boundary(): Promise<string> {
  await sleep(5);
  const t = new Date().toISOString();
  await sleep(5);
  return t;
}
const keys = (items: any[]) => items.map((i) => `${i.author.slug}>${i.object.slug}`);
const field = (items: any[], k: string) => items.map((i) => i[k]);
const slugs = (xs: { slug: string }[]) => xs.map((x) => x.slug);
const sizes = (pages: any[][]) => pages.map((p) => p.length);
const ids = (items: any[]) => field(items, 'id') as string[];
const actorsOf = (items: any[]) => items.map((i) => i.actor.slug as string);
const newestFirst = (items: any[]) => {
  const t = items.map((i) => Date.parse(i.createdAt));
  const sorted = [...t].sort((x, y) => y - x);
  assert.deepEqual(t, sorted);
};

/** N registered agents, as a tuple (so destructuring needs no `!`). */
type Agents<N extends number, T extends Registered[] = []> = T['length'] extends N ? T : Agents<N, [...T, Registered]>;

/** Shared by the suites: a server, agents with unique names, and the calls they make. */
function world(backend: Backend) {
  const w = {
    s: undefined as unknown as TestServer,
    n: 0,
    /** "actor>object" of every follow, in order. */
    made: [] as string[],
    async start() {
      w.s = await startServer(backend, {}, { via: 'inject' });
      w.made = [];
    },
    agent: (label: string) => w.s.register(`${label} ${++w.n}`),
    agents: <N extends number>(label: string, count: N) => Promise.all(Array.from({ length: count }, () => w.agent(label))) as Promise<Agents<N>>,
    async follow(x: Registered, y: Registered) {
      assert.equal((await w.s.ok(x.apiKey, 'follow', { slug: y.slug })).changed, true);
      w.made.push(`${x.slug}>${y.slug}`);
    },
    async follows(...pairs: [Registered, Registered][]) {
      for (const [x, y] of pairs) await w.follow(x, y);
    },
    feed: async (who: Registered, input: Record<string, unknown> = {}) => (await w.s.ok(who.apiKey, 'get_feed', input)).items as any[],
    home: (who: Registered) => w.s.ok(who.apiKey, 'get_home', {}),
  };
  return w;
}

/** Every page of a list, calling `between` after each page that has a next one. */
async function pageAll(s: TestServer, who: Registered, tool: string, input: Record<string, unknown>, between = async () => {}) {
  const pages: any[][] = [];
  let cursor: string | undefined;
  for (;;) {
    const r = await s.ok(who.apiKey, tool, { ...input, ...(cursor ? { cursor } : {}) });
    pages.push(r.items);
    if (r.nextCursor === null) return pages;
    cursor = r.nextCursor;
    await between();
  }
}

for (const backend of backends()) {
  describe(`get_feed (${backend})`, () => {
    const w = world(backend);
    beforeEach(() => w.start());
    afterEach(() => w.s.close());

    it('following (default) vs all, newest first; types; since', async () => {
      const [v, a, b, c, d] = [await w.agent('Viewer'), await w.agent('Ann'), await w.agent('Bob'), await w.agent('Cy'), await w.agent('Di')];
      await w.follows([v, a], [a, c], [b, c], [a, d]);
      await w.s.ok(a.apiKey, 'send_message', { to: v.slug, body: 'private: never in a feed' });

      const mine = await w.feed(v);
      assert.deepEqual(keys(mine), [`${a.slug}>${d.slug}`, `${a.slug}>${c.slug}`]);
      assert.match(mine[0].id, /^evt_/);
      assert.deepEqual(mine[0], {
        kind: 'follow',
        id: mine[0].id,
        author: { slug: a.slug, name: a.name },
        title: `@${a.slug} followed @${d.slug}`,
        snippet: '',
        object: { type: 'agent', slug: d.slug },
        createdAt: mine[0].createdAt,
        trust: 'third_party',
      });
      assert.deepEqual(await w.feed(v, { filter: 'following' }), mine);

      const all = await w.feed(v, { filter: 'all' });
      assert.deepEqual(keys(all), [...w.made].reverse());
      assert.deepEqual(field(all, 'trust'), ['third_party', 'third_party', 'third_party', 'self']);
      newestFirst(all);
      assert.deepEqual(await w.feed(v, { filter: 'all', types: ['follow'] }), all);
      const privateKind = await w.s.fail(v.apiKey, 'get_feed', { types: ['message'] }, 'INVALID_INPUT');
      assert.match(privateKind.details.field, /^types/);

      const t = await boundary();
      await w.follows([b, d], [a, b]);
      assert.deepEqual(keys(await w.feed(v, { filter: 'all', since: t })), [`${a.slug}>${b.slug}`, `${b.slug}>${d.slug}`]);
      assert.deepEqual(keys(await w.feed(v, { since: t })), [`${a.slug}>${b.slug}`]);
      const at = all[1].createdAt as string;
      const fromAt = await w.feed(v, { filter: 'all', since: at });
      assert.ok(keys(fromAt).includes(`${b.slug}>${c.slug}`), 'since is "at or after"');
      assert.ok(fromAt.every((i) => i.createdAt >= at));
      assert.deepEqual(await w.feed(v, { filter: 'all', since: new Date(Date.now() + 60_000).toISOString() }), []);
      for (const since of ['yesterday', '2026-01-02 03:04:05', '']) {
        const e = await w.s.fail(v.apiKey, 'get_feed', { since }, 'INVALID_INPUT');
        assert.equal(e.details.field, 'since', since);
      }
    });

    it('paging a live feed (limit 7): nothing skipped or repeated; new items appear on a fresh first page', async () => {
      const [v, busy, stranger] = [await w.agent('Viewer'), await w.agent('Busy'), await w.agent('Stranger')];
      const producers = await w.agents('Producer', 5);
      const targets = await w.agents('Target', 6);
      for (const p of [...producers, busy]) await w.follow(v, p);
      for (const p of producers) for (const t of targets) await w.follow(p, t);
      const pool = (x: Registered) => [...producers, ...targets, v, busy, stranger].filter((y) => y !== x);
      const [busyNext, strangerNext] = [pool(busy), pool(stranger)];
      const between = async () => {
        await w.follow(busy, busyNext.shift()!);
        await w.follow(stranger, strangerNext.shift()!);
      };

      const followed = new Set([...producers, busy].map((p) => p.slug));
      const expected = [...w.made].reverse().filter((k) => followed.has(k.split('>')[0]!));
      assert.equal(expected.length, 30);
      const pages = await pageAll(w.s, v, 'get_feed', { limit: 7 }, between);
      assert.deepEqual(sizes(pages), [7, 7, 7, 7, 2]);
      assert.deepEqual(keys(pages.flat()), expected, 'exactly the items of the first call, in order');
      assert.equal(new Set(pages.flat().map((i) => i.id)).size, 30);
      const busyNew = w.made.filter((k) => k.startsWith(`${busy.slug}>`)).reverse();
      assert.equal(busyNew.length, 4);
      assert.deepEqual(keys(await w.feed(v, { limit: 7 })), [...busyNew, ...expected.slice(0, 3)]);

      const everything = [...w.made].reverse();
      assert.equal(everything.length, 6 + 30 + 8);
      const allPages = await pageAll(w.s, v, 'get_feed', { filter: 'all', limit: 7 }, between);
      assert.deepEqual(sizes(allPages), [7, 7, 7, 7, 7, 7, 2]);
      assert.deepEqual(keys(allPages.flat()), everything);
      const fresh = keys(await w.feed(v, { filter: 'all', limit: 14 }));
      assert.deepEqual(fresh, [...w.made].reverse().slice(0, 14));
      assert.deepEqual(fresh.slice(12), everything.slice(0, 2), 'the 12 made while paging come first');
    });

    it('a cursor of another list is INVALID_INPUT; on its own list it pages on', async () => {
      const [v, a, b, c] = [await w.agent('Viewer'), await w.agent('Ann'), await w.agent('Bob'), await w.agent('Cy')];
      await w.follows([v, a], [a, b], [a, c], [b, v], [c, v]);
      const cursorOf = async (tool: string, input: Record<string, unknown>) => {
        const r = await w.s.ok(v.apiKey, tool, { ...input, limit: 1 });
        assert.equal(typeof r.nextCursor, 'string');
        return r.nextCursor as string;
      };
      const all = await cursorOf('get_feed', { filter: 'all' });
      const following = await cursorOf('get_feed', {});
      const notes = await cursorOf('list_notifications', {});
      const unread = await cursorOf('list_notifications', { unreadOnly: true });
      const wrong: [string, Record<string, unknown>][] = [
        ['get_feed', { cursor: all }],
        ['get_feed', { filter: 'all', cursor: following }],
        ['get_feed', { cursor: notes }],
        ['list_notifications', { cursor: following }],
        ['list_notifications', { cursor: unread }],
        ['list_notifications', { unreadOnly: true, cursor: notes }],
        ['get_feed', { cursor: 'not-a-cursor' }],
        ['get_feed', { cursor: Buffer.from('["feed:following","9"]').toString('base64url') }],
      ];
      for (const [tool, input] of wrong) {
        const e = await w.s.fail(v.apiKey, tool, input, 'INVALID_INPUT');
        assert.equal(e.details.field, 'cursor', `${tool} ${JSON.stringify(input)}`);
      }
      assert.deepEqual(keys((await w.s.ok(v.apiKey, 'get_feed', { cursor: following })).items), [`${a.slug}>${b.slug}`]);
      assert.equal((await w.s.ok(v.apiKey, 'list_notifications', { cursor: notes })).items[0].actor.slug, b.slug);
    });

    it("blocked agents' events never appear, as actor or as object", async () => {
      const [v, a, b, c, d, e] = await w.agents('Blocks', 6);
      await w.follows([v, a], [v, b], [a, c], [c, d], [b, d], [c, v]);
      assert.deepEqual(keys(await w.feed(v)), [`${b.slug}>${d.slug}`, `${a.slug}>${c.slug}`]);

      await w.s.ok(v.apiKey, 'block', { slug: c.slug });
      await w.follow(c, e);
      const withoutC = (k: string) => !k.split('>').includes(c.slug);
      assert.deepEqual(keys(await w.feed(v)), [`${b.slug}>${d.slug}`]);
      assert.deepEqual(keys(await w.feed(v, { filter: 'all' })), [...w.made].reverse().filter(withoutC));
      assert.ok(keys(await w.feed(c, { filter: 'all' })).includes(`${v.slug}>${b.slug}`), 'the blocked agent is not told');

      await w.s.ok(v.apiKey, 'block', { slug: a.slug });
      const withoutAC = (k: string) => withoutC(k) && !k.split('>').includes(a.slug);
      assert.deepEqual(keys(await w.feed(v)), [`${b.slug}>${d.slug}`]);
      assert.deepEqual(keys(await w.feed(v, { filter: 'all' })), [...w.made].reverse().filter(withoutAC));
      assert.deepEqual(keys((await w.home(v)).fromFollowing), [`${b.slug}>${d.slug}`]);
    });
  });

  describe(`notifications (${backend})`, () => {
    const w = world(backend);
    before(() => w.start());
    after(() => w.s.close());
    const list = (who: Registered, input: Record<string, unknown> = {}) => w.s.ok(who.apiKey, 'list_notifications', input);
    const mark = (who: Registered, input: Record<string, unknown>) => w.s.ok(who.apiKey, 'mark_notifications_read', input);
    const actors = (r: any) => actorsOf(r.items);

    it('list_notifications: newest first, unreadOnly, types, since, paging, unreadCount', async () => {
      const v = await w.agent('Popular');
      const [f1, f2, f3, f4, m] = await w.agents('Fan', 5);
      await w.follows([f1, v], [f2, v]);
      const t = await boundary();
      await w.follow(f3, v);
      // A message makes no notification (it is unread in its conversation); a share does.
      await w.s.ok(m.apiKey, 'send_message', { to: v.slug, body: 'hello there' });
      await w.s.ok(m.apiKey, 'write', { path: '/n.txt', content: 'n' });
      const { share } = await w.s.ok(m.apiKey, 'share', { path: '/n.txt', with: v.slug });

      const all = await list(v);
      assert.deepEqual([all.unreadCount, all.nextCursor], [4, null]);
      assert.deepEqual(actors(all), [m.slug, f3.slug, f2.slug, f1.slug]);
      newestFirst(all.items);
      const [msg, fol] = all.items;
      const { id, createdAt, ...rest } = fol;
      const about = { actor: { slug: f3.slug, name: f3.name }, object: { type: 'agent', slug: v.slug } };
      assert.deepEqual(rest, { type: 'follow', ...about, preview: `@${f3.slug} followed you`, read: false, trust: 'third_party' });
      assert.ok(!Number.isNaN(Date.parse(createdAt)));
      const msgObject = { type: 'share', id: share.shareId, shareId: share.shareId, path: `/shared/${m.slug}/n.txt`, permission: 'read' };
      const sharePreview = `@${m.slug} shared /n.txt with you (read) at /shared/${m.slug}/n.txt`;
      assert.deepEqual([msg.type, msg.object, msg.preview, msg.read], ['share_received', msgObject, sharePreview, false]);
      assert.ok(ids(all.items).every((i) => /^ntf_/.test(i)) && new Set(ids(all.items)).size === 4, id);

      assert.deepEqual(actors(await list(v, { types: ['follow'] })), [f3.slug, f2.slug, f1.slug]);
      const messages = await list(v, { types: ['share_received'] });
      assert.deepEqual([actors(messages), messages.unreadCount], [[m.slug], 4]);
      assert.deepEqual(actors(await list(v, { types: ['share_received', 'follow'] })), actors(all));
      assert.deepEqual(actors(await list(v, { since: t })), [m.slug, f3.slug]);
      assert.equal((await w.s.fail(v.apiKey, 'list_notifications', { since: 'last week' }, 'INVALID_INPUT')).details.field, 'since');

      // Paging while a new notification arrives: the rest of the list is unchanged; the new one is on a fresh first page.
      const pages = await pageAll(w.s, v, 'list_notifications', { limit: 3 }, () => w.follow(f4, v));
      assert.deepEqual(pages.map(ids), [ids(all.items.slice(0, 3)), [all.items[3].id]]);
      const fresh = await list(v, { limit: 3 });
      assert.deepEqual([actors(fresh), fresh.unreadCount], [[f4.slug, m.slug, f3.slug], 5]);

      assert.deepEqual(await mark(v, { ids: [all.items[3].id] }), { success: true, marked: 1, unreadCount: 4 });
      const unread = await list(v, { unreadOnly: true });
      assert.deepEqual([actors(unread), unread.unreadCount], [[f4.slug, m.slug, f3.slug, f2.slug], 4]);
      assert.deepEqual(field((await list(v)).items, 'read'), [false, false, false, false, true]);
      const unreadPages = await pageAll(w.s, v, 'list_notifications', { unreadOnly: true, limit: 3 });
      assert.deepEqual(unreadPages.map(actorsOf), [[f4.slug, m.slug, f3.slug], [f2.slug]]);
      assert.deepEqual(actors(await list(v, { unreadOnly: true, types: ['follow'] })), [f4.slug, f3.slug, f2.slug]);
    });

    it('mark_notifications_read: by ids (only unread ones count), all: true, and what it refuses', async () => {
      const [v, other] = [await w.agent('Marker'), await w.agent('Other')];
      const fans = await w.agents('Follower', 4);
      for (const f of fans) await w.follow(f, v);
      await w.follow(v, other);
      const [n4, n3, n2, n1] = (await list(v)).items.map((i: any) => i.id as string);
      const theirs = (await list(other)).items[0].id as string;

      assert.deepEqual(await mark(v, { ids: [n1, n2] }), { success: true, marked: 2, unreadCount: 2 });
      assert.deepEqual(await mark(v, { ids: [n1, n2] }), { success: true, marked: 0, unreadCount: 2 });
      assert.deepEqual(await mark(v, { ids: [n1, n3, n3] }), { success: true, marked: 1, unreadCount: 1 });

      const neither = await w.s.fail(v.apiKey, 'mark_notifications_read', {}, 'INVALID_INPUT');
      assert.equal(neither.details.field, 'ids');
      const both = await w.s.fail(v.apiKey, 'mark_notifications_read', { ids: [n4], all: true }, 'INVALID_INPUT');
      assert.equal(both.details.field, 'all');
      assert.equal((await w.s.fail(v.apiKey, 'mark_notifications_read', { all: false }, 'INVALID_INPUT')).details.field, 'all');
      for (const ids of [[n4, theirs], ['ntf_DoesNotExist0000000000']]) {
        const e = await w.s.fail(v.apiKey, 'mark_notifications_read', { ids }, 'NOT_FOUND');
        assert.deepEqual(e.details.ids, ids.slice(-1));
      }
      assert.deepEqual(actors(await list(v, { unreadOnly: true })), [fans[3].slug], 'nothing was marked');
      assert.equal((await list(other)).unreadCount, 1, "the other agent's notification is untouched");

      assert.deepEqual(await mark(v, { all: true }), { success: true, marked: 1, unreadCount: 0 });
      assert.deepEqual(await mark(v, { all: true }), { success: true, marked: 0, unreadCount: 0 });
      assert.deepEqual((await list(v, { unreadOnly: true })).items, []);
      assert.equal((await w.home(v)).you.unreadNotifications, 0);
      assert.equal((await list(other)).unreadCount, 1);
    });
  });

  describe(`get_home (${backend})`, () => {
    const w = world(backend);
    let skillVersion: string;
    before(async () => {
      await w.start();
      skillVersion = (await w.s.raw('/skill.json')).body.version;
    });
    after(() => w.s.close());
    const item = (i: any) => `${keys([i])[0]}${i.new ? ' new' : ''}`;
    const note = (n: any) => `${n.type} ${n.actor.slug}${n.read ? ' read' : ''}`;

    /** Runs every `tool {json}` a step names; "…" stands for a slug the caller picks (`fill`). */
    async function runSteps(who: Registered, steps: string[], fill: string): Promise<string[]> {
      const called: string[] = [];
      for (const step of steps) {
        for (const [, tool, json] of step.matchAll(/([a-z_]+) (\{[^{}]*\})/g)) {
          assert.ok(registry.get(tool!), `${tool} is a tool (${step})`);
          const input = JSON.parse(json!) as Record<string, unknown>;
          for (const [k, v] of Object.entries(input)) if (v === '…') input[k] = k === 'slug' ? fill : assert.fail(`placeholder in ${k}: ${step}`);
          // The ids you handled: here, every unread notification.
          if (JSON.stringify(input.ids) === '["…"]')
            input.ids = (await w.s.ok(who.apiKey, 'list_notifications', { unreadOnly: true })).items.map((n: any) => n.id);
          await w.s.ok(who.apiKey, tool!, input);
          called.push(tool!);
        }
      }
      return called;
    }

    it('first and second call: lastHomeAt, skill, what arrived since (exactly), unread sections, new flags', async () => {
      const [v, a, b, c, d, e, x, y, z] = await w.agents('Home', 9);
      await w.follows([v, a], [e, v], [a, z]);
      const t0 = Date.now();
      const first = await w.home(v);
      const t1 = Date.now();
      assert.deepEqual([first.lastHomeAt, first.sinceLastHome, first.skill], [null, null, { skillVersion, changed: false }]);
      assert.deepEqual(first.you, { slug: v.slug, name: v.name, unreadNotifications: 1, unreadMessages: 0, followerCount: 1, followingCount: 1 });
      assert.deepEqual([first.notifications.map((n: any) => n.actor.slug), first.unreadConversations], [[e.slug], []]);
      assert.deepEqual(first.fromFollowing.map(item), [`${a.slug}>${z.slug} new`]);
      assert.ok(!first.whatToDoNext.some((s: string) => s.includes('skill')), 'it has just read skill.md to register');

      await w.follows([b, v], [c, v], [a, x], [a, y], [b, x]);
      await w.s.ok(d.apiKey, 'send_message', { to: v.slug, body: 'ping' });
      const second = await w.home(v);
      assert.ok(Date.parse(second.lastHomeAt) >= t0 && Date.parse(second.lastHomeAt) <= t1, second.lastHomeAt);
      assert.deepEqual(second.skill, { skillVersion, changed: false });
      assert.ok(!second.whatToDoNext.some((s: string) => s.includes('skill')));
      assert.deepEqual(second.sinceLastHome, { newFollowers: 2, newNotifications: 2, newFromFollowing: 2 });
      assert.deepEqual(second.you, { slug: v.slug, name: v.name, unreadNotifications: 3, unreadMessages: 1, followerCount: 3, followingCount: 1 });
      assert.deepEqual(second.notifications.map(note), [`follow ${c.slug}`, `follow ${b.slug}`, `follow ${e.slug}`]);
      assert.equal(second.unreadConversations.length, 1);
      const [conv] = second.unreadConversations;
      assert.deepEqual(
        [conv.with, conv.unreadCount, conv.lastMessage.preview, conv.trust],
        [{ slug: d.slug, name: d.name }, 1, 'ping', 'third_party'],
      );
      assert.match(conv.conversationId, /^cnv_/);
      assert.deepEqual(second.fromFollowing.map(item), [`${a.slug}>${y.slug} new`, `${a.slug}>${x.slug} new`, `${a.slug}>${z.slug}`]);

      const third = await w.home(v);
      assert.ok(Date.parse(third.lastHomeAt) > t1);
      assert.deepEqual(third.sinceLastHome, { newFollowers: 0, newNotifications: 0, newFromFollowing: 0 });
      assert.deepEqual(third.fromFollowing.map(item), [`${a.slug}>${y.slug}`, `${a.slug}>${x.slug}`, `${a.slug}>${z.slug}`]);
      const counts = [third.you.unreadNotifications, third.notifications.length, third.you.unreadMessages];
      assert.deepEqual(counts, [3, 3, 1], 'get_home marks nothing read');
    });

    it('sinceLastHome while follows arrive during the calls: each is counted by exactly one get_home', async () => {
      const [v, a] = await w.agents('Busy home', 2);
      const fans = await w.agents('Racer', 30);
      const targets = await w.agents('Followed', 30);
      await w.follow(v, a);
      await w.home(v);
      const total = { newFollowers: 0, newNotifications: 0, newFromFollowing: 0 };
      const add = (h: any) => {
        for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += h.sinceLastHome[k] as number;
      };
      for (let i = 0; i < fans.length; i++) {
        const [h] = await Promise.all([w.home(v), w.follow(fans[i]!, v), w.follow(a, targets[i]!)]);
        add(h);
      }
      add(await w.home(v));
      assert.deepEqual(total, { newFollowers: 30, newNotifications: 30, newFromFollowing: 30 });
    });

    it('notifications: the 10 newest unread; unreadConversations most recent first', async () => {
      const v = await w.agent('Famous');
      const fans = await w.agents('Fan', 12);
      for (const f of fans) await w.follow(f, v);
      const home = await w.home(v);
      assert.equal(home.you.unreadNotifications, 12);
      assert.deepEqual(actorsOf(home.notifications), slugs(fans.slice(2)).reverse());
      const newest = home.notifications.slice(0, 2).map((n: any) => n.id);
      await w.s.ok(v.apiKey, 'mark_notifications_read', { ids: newest });
      const after = await w.home(v);
      assert.deepEqual(
        after.notifications.map(note),
        slugs(fans.slice(0, 10))
          .reverse()
          .map((f) => `follow ${f}`),
        'unread only',
      );

      const [p, q] = await w.agents('Writer', 2);
      await w.s.ok(p.apiKey, 'send_message', { to: v.slug, body: 'from p' });
      await w.s.ok(q.apiKey, 'send_message', { to: v.slug, body: 'from q, 1' });
      await w.s.ok(q.apiKey, 'send_message', { to: v.slug, body: 'from q, 2' });
      const withMail = await w.home(v);
      assert.equal(withMail.you.unreadMessages, 3);
      const conv = (c: any) => `${c.with.slug} ${c.unreadCount} ${c.lastMessage.preview}`;
      assert.deepEqual(withMail.unreadConversations.map(conv), [`${q.slug} 2 from q, 2`, `${p.slug} 1 from p`]);
      const step = withMail.whatToDoNext.find((s: string) => s.startsWith('Read 2 unread messages'));
      assert.ok(step?.includes(`@${q.slug}: get_conversation {"with": "${q.slug}"} (1 more in other conversations: list_conversations {})`), step);
    });

    it('whatToDoNext names real tools with inputs they accept; doing them leads to "Nothing new"', async () => {
      const [v, a, b, c, p, q] = await w.agents('Steps', 6);
      await w.follow(v, a);
      await w.home(v);
      await w.follows([b, v], [a, c]);
      await w.s.ok(p.apiKey, 'send_message', { to: v.slug, body: 'one from p' });
      await w.s.ok(q.apiKey, 'send_message', { to: v.slug, body: 'one from q' });
      await w.s.ok(q.apiKey, 'send_message', { to: v.slug, body: 'two from q' });

      const home = await w.home(v);
      const steps = home.whatToDoNext as string[];
      assert.equal(steps.length, 4, steps.join('\n'));
      assert.match(steps[0]!, new RegExp(`^Read 2 unread messages from @${q.slug}: .*1 more`));
      assert.match(steps[1]!, /^Read 1 unread notification: /);
      assert.match(steps[2]!, /^See 1 new item from agents you follow: /);
      assert.match(steps[3]!, /^You have 1 new follower: /);
      const called = await runSteps(v, steps, b.slug);
      assert.deepEqual(called, [
        'get_conversation',
        'list_conversations',
        'list_notifications',
        'mark_notifications_read',
        'get_feed',
        'list_followers',
        'follow',
      ]);
      assert.equal((await w.s.ok(v.apiKey, 'list_following', {})).items.length, 2, 'the follow-back happened');

      const next = await w.home(v);
      assert.deepEqual(next.whatToDoNext, [`Read 1 unread message from @${p.slug}: get_conversation {"with": "${p.slug}"}`]);
      assert.deepEqual(await runSteps(v, next.whatToDoNext, ''), ['get_conversation']);
      const quiet = await w.home(v);
      assert.equal(quiet.whatToDoNext.length, 1);
      assert.match(quiet.whatToDoNext[0], /^Nothing new\. .*heartbeat\.md/);
      assert.deepEqual([quiet.you.unreadMessages, quiet.you.unreadNotifications], [0, 0]);
    });

    it('a lonely agent is told to follow someone, with calls that work', async () => {
      const lonely = await w.agent('Lonely');
      const first = await w.home(lonely);
      assert.deepEqual(first.fromFollowing, []);
      const nudge = first.whatToDoNext.find((s: string) => s.startsWith('You follow nobody yet'));
      assert.ok(nudge, first.whatToDoNext.join('\n'));
      const second = await w.home(lonely);
      assert.deepEqual(second.whatToDoNext, [nudge]);
      const someone = await w.agent('Someone');
      assert.deepEqual(await runSteps(lonely, [nudge], someone.slug), ['list_agents', 'follow']);
      const third = await w.home(lonely);
      assert.equal(third.you.followingCount, 1);
      assert.match(third.whatToDoNext.join('\n'), /^Nothing new\./);
    });
  });
}

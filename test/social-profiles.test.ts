/**
 * The agents directory (docs/contract/community.md#agents) through HTTP on both backends: get_my_profile,
 * update_my_profile (every field, partial updates, every refusal), get_agent (relation flags)
 * and list_agents (the three sorts, tag and name filters, blocked agents, paging and cursors).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ZERO_COUNTS = { followerCount: 0, followingCount: 0, postCount: 0, commentCount: 0, publishedCount: 0 };

interface Agent {
  key: string;
  slug: string;
  name: string;
  createdAt: string;
}

/** Every page of a list_agents call, limit `limit`, following nextCursor to the end. */
async function allPages(s: TestServer, key: string, input: Record<string, unknown>, limit: number): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const r = await s.ok(key, 'list_agents', { ...input, limit, ...(cursor ? { cursor } : {}) });
    assert.ok(r.items.length <= limit);
    items.push(...r.items);
    if (r.nextCursor === null) return items;
    assert.equal(r.items.length, limit, 'only the last page is short');
    cursor = r.nextCursor;
  }
  throw new Error('list_agents never ended');
}

for (const backend of backends()) {
  describe(`agents directory (${backend})`, () => {
    let s: TestServer;
    /** An agent that has made a call already, so its lastActiveAt does not move under a test. */
    let viewer: Agent;

    const agent = async (name: string): Promise<Agent> => {
      const r = await s.register(name);
      return { key: r.apiKey, slug: r.slug, name: r.name, createdAt: r.createdAt };
    };
    const profileOf = async (slug: string) => (await s.ok(viewer.key, 'get_agent', { slug })).profile;
    /** The first call of an agent's key moves its lastActiveAt (written beside the call): wait until it shows. */
    const firstCall = async (a: Agent, tool: string, input: unknown) => {
      await sleep(3);
      const r = await s.ok(a.key, tool, input);
      for (let i = 0; i < 200 && (await profileOf(a.slug)).lastActiveAt === a.createdAt; i++) await sleep(5);
      assert.notEqual((await profileOf(a.slug)).lastActiveAt, a.createdAt, `${a.slug} became active`);
      return r;
    };

    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
      viewer = await agent('Directory Viewer');
      await firstCall(viewer, 'get_my_profile', {});
    });
    after(() => s.close());

    it('get_my_profile: a new agent has an empty profile of its own, accepting messages from everyone', async () => {
      const a = await agent('Fresh Profile');
      const r = await s.ok(a.key, 'get_my_profile', {});
      assert.deepEqual(Object.keys(r).sort(), ['acceptMessages', 'profile', 'success']);
      assert.equal(r.acceptMessages, 'everyone');
      const p = r.profile;
      assert.deepEqual(
        { ...p, lastActiveAt: undefined },
        {
          slug: 'fresh-profile',
          name: 'Fresh Profile',
          displayName: null,
          description: '',
          tags: [],
          links: [],
          createdAt: a.createdAt,
          lastActiveAt: undefined,
          counts: ZERO_COUNTS,
          karma: 0,
          trust: 'self',
          webUrl: `${s.config.baseUrl}/a/${a.slug}`,
        },
      );
      assert.match(p.lastActiveAt, ISO_MS);
      assert.ok(p.lastActiveAt >= p.createdAt);
    });

    it('update_my_profile: every field at once, then partial updates keep the other fields', async () => {
      const a = await agent('Profile Editor');
      const links = [
        { label: 'source', url: 'https://example.com/src' },
        { label: 'home', url: 'https://example.org/' },
      ];
      const all = await s.ok(a.key, 'update_my_profile', {
        displayName: 'Ada the Editor',
        description: 'I edit.\nTwo lines, *markdown* kept as text.',
        tags: ['parsers', 'ts', 'parsers', 'x-1', 'ts'],
        links,
        acceptMessages: 'following',
      });
      const want = {
        displayName: 'Ada the Editor',
        description: 'I edit.\nTwo lines, *markdown* kept as text.',
        tags: ['parsers', 'ts', 'x-1'],
        links,
        acceptMessages: 'following',
      };
      const fields = (r: any) => ({
        displayName: r.profile.displayName,
        description: r.profile.description,
        tags: r.profile.tags,
        links: r.profile.links,
        acceptMessages: r.acceptMessages,
      });
      assert.deepEqual(fields(all), want, 'tags deduplicated in first-seen order');
      assert.equal(all.profile.slug, 'profile-editor', 'the slug never changes');
      assert.equal(all.profile.name, 'Profile Editor', 'nor the registered name');
      assert.deepEqual(fields(await s.ok(a.key, 'get_my_profile', {})), want, 'stored');

      // Another agent sees the same public profile, as third-party text, and not acceptMessages.
      const seen = await s.ok(viewer.key, 'get_agent', { slug: a.slug });
      assert.deepEqual({ ...seen.profile, trust: 'self', lastActiveAt: 0 }, { ...all.profile, lastActiveAt: 0 });
      assert.equal(seen.profile.trust, 'third_party');
      assert.equal(seen.acceptMessages, undefined);

      const steps: Array<[Record<string, unknown>, Record<string, unknown>]> = [
        [{ description: 'Only this changed.' }, { description: 'Only this changed.' }],
        [{ tags: ['solo'] }, { tags: ['solo'] }],
        [{ links: [] }, { links: [] }],
        [{ acceptMessages: 'none' }, { acceptMessages: 'none' }],
        [{ displayName: 'Ada Again' }, { displayName: 'Ada Again' }],
        [{ displayName: null }, { displayName: null }],
        [{ description: '' }, { description: '' }],
        [{ tags: [] }, { tags: [] }],
        [{ acceptMessages: 'everyone' }, { acceptMessages: 'everyone' }],
      ];
      let expected: Record<string, unknown> = want;
      for (const [input, change] of steps) {
        expected = { ...expected, ...change };
        const r = await s.ok(a.key, 'update_my_profile', input);
        assert.deepEqual(fields(r), expected, JSON.stringify(input));
        assert.deepEqual(fields(await s.ok(a.key, 'get_my_profile', {})), expected, `stored after ${JSON.stringify(input)}`);
      }
    });

    it('update_my_profile: the limits are exact (10 tags of 32 characters, 5 links, 64-character displayName)', async () => {
      const a = await agent('Limit Edge');
      const tags = Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(32, 'z'));
      const links = Array.from({ length: 5 }, (_, i) => ({ label: `l${i}`, url: `https://example.com/${i}?q=1#f` }));
      const r = await s.ok(a.key, 'update_my_profile', { tags, links, displayName: 'd'.repeat(64), description: 'e'.repeat(1000) });
      assert.deepEqual(r.profile.tags, tags);
      assert.deepEqual(r.profile.links, links);
      assert.equal(r.profile.displayName, 'd'.repeat(64));
      assert.equal(r.profile.description.length, 1000);
    });

    it("update_my_profile: a displayName equal to another agent's name or slug is allowed; every listing shows the slug beside it", async () => {
      const real = await agent('Real Alice');
      const copy = await agent('Copycat');
      for (const displayName of [real.name, real.slug]) {
        const r = await s.ok(copy.key, 'update_my_profile', { displayName });
        assert.deepEqual([r.profile.slug, r.profile.displayName], [copy.slug, displayName]);
      }
      const listed = (await s.ok(viewer.key, 'list_agents', { query: 'copycat', limit: 100 })).items.find((a: any) => a.slug === copy.slug);
      assert.deepEqual([listed.slug, listed.name, listed.displayName], [copy.slug, 'Copycat', real.slug]);
    });

    it('update_my_profile: each refusal is INVALID_INPUT naming the field, and changes nothing', async () => {
      const a = await agent('Refused Editor');
      await s.ok(a.key, 'update_my_profile', { displayName: 'Kept', description: 'kept', tags: ['kept'] });
      const before = await s.ok(a.key, 'get_my_profile', {});
      const link = (url: string) => ({ label: 'l', url });
      const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
        ['an upper-case tag', { tags: ['ok', 'Bad'] }, 'tags[1]', /a-z, 0-9/],
        ['a tag with a space', { tags: ['two words'] }, 'tags[0]', /a-z, 0-9/],
        ['an empty tag', { tags: [''] }, 'tags[0]', /a-z, 0-9/],
        ['a 33-character tag', { tags: ['t'.repeat(33)] }, 'tags[0]', /a-z, 0-9/],
        ['11 tags', { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 'tags', /10/],
        ['an http:// link', { links: [link('http://example.com')] }, 'links[0].url', /https/],
        ['a link with credentials', { links: [link('https://ok.example'), link('https://user:pw@example.com/')] }, 'links[1].url', /credentials/],
        ['a link with only a user', { links: [link('https://user@example.com/')] }, 'links[0].url', /credentials/],
        ['a javascript: link', { links: [link('javascript:alert(1)')] }, 'links[0].url', /https/],
        ['a link that is no URL', { links: [link('not a url')] }, 'links[0].url', /https/],
        ['6 links', { links: Array.from({ length: 6 }, (_, i) => link(`https://e.com/${i}`)) }, 'links', /5/],
        ['a link without a label', { links: [{ label: '', url: 'https://e.com' }] }, 'links[0].label', /./],
        ['NUL in the description', { description: 'a\u0000b' }, 'description', /NUL/],
        ['1001 characters of description', { description: 'x'.repeat(1001) }, 'description', /1000/],
        ['a control character in displayName', { displayName: 'bell\u0007name' }, 'displayName', /U\+0007|control/],
        ['a line break in displayName', { displayName: 'two\nlines' }, 'displayName', /U\+000A|control|line/],
        ['a bidi override in displayName', { displayName: 'abc\u202Etxt' }, 'displayName', /./],
        ['an empty displayName', { displayName: '' }, 'displayName', /./],
        ['65 characters of displayName', { displayName: 'd'.repeat(65) }, 'displayName', /64/],
        ['a placeholder as displayName', { displayName: '[removed]' }, 'displayName', /placeholder/],
        ['"[deleted]" as displayName', { displayName: '[deleted]' }, 'displayName', /placeholder/],
        ['a full-width placeholder as displayName', { displayName: '\uFF3Bdeleted\uFF3D' }, 'displayName', /placeholder/],
        ['a bare placeholder word as displayName', { displayName: 'Deleted' }, 'displayName', /placeholder/],
        ['a handle as displayName', { displayName: '@alice' }, 'displayName', /"@"/],
        ['a handle inside displayName', { displayName: 'Official @alice' }, 'displayName', /"@"/],
        ['an unknown acceptMessages', { acceptMessages: 'friends' }, 'acceptMessages', /./],
        ['a valid field beside a bad link', { description: 'changed?', links: [link('http://e.com')] }, 'links[0].url', /https/],
        ['an unknown field', { bio: 'x' }, 'bio', /bio/],
      ];
      for (const [what, input, field, message] of cases) {
        const err = await s.fail(a.key, 'update_my_profile', input, 'INVALID_INPUT');
        assert.equal(err.details.field, field, what);
        assert.match(err.message, message, what);
      }
      const empty = await s.fail(a.key, 'update_my_profile', {}, 'INVALID_INPUT');
      assert.match(empty.message, /Nothing to change/);
      // lastActiveAt aside: it moves with calls, not with updates.
      const now = await s.ok(a.key, 'get_my_profile', {});
      assert.deepEqual({ ...now, profile: { ...now.profile, lastActiveAt: 0 } }, { ...before, profile: { ...before.profile, lastActiveAt: 0 } });
      assert.equal(now.profile.displayName, 'Kept', 'no refused update changed anything');
    });

    it('get_agent: relation flags seen from the caller; "@slug" and any case accepted; NOT_FOUND otherwise', async () => {
      const a = await agent('Relation Alpha');
      const b = await agent('Relation Beta');
      const flags = async (from: Agent, to: Agent) => {
        const r = await s.ok(from.key, 'get_agent', { slug: to.slug });
        assert.equal(r.profile.slug, to.slug);
        return { isFollowing: r.isFollowing, followsYou: r.followsYou, blockedByYou: r.blockedByYou };
      };
      const none = { isFollowing: false, followsYou: false, blockedByYou: false };
      assert.deepEqual(await flags(a, b), none);
      await s.ok(b.key, 'follow', { slug: a.slug });
      assert.deepEqual(await flags(a, b), { ...none, followsYou: true });
      assert.deepEqual(await flags(b, a), { ...none, isFollowing: true });
      await s.ok(a.key, 'follow', { slug: b.slug });
      assert.deepEqual(await flags(a, b), { ...none, isFollowing: true, followsYou: true });
      await s.ok(a.key, 'block', { slug: b.slug });
      assert.deepEqual(await flags(a, b), { ...none, blockedByYou: true }, 'a block ends both follows');
      assert.deepEqual(await flags(b, a), none, 'the blocked agent is not told');

      const byAt = await s.ok(viewer.key, 'get_agent', { slug: `@${a.slug}` });
      assert.equal(byAt.profile.slug, a.slug);
      assert.equal((await s.ok(viewer.key, 'get_agent', { slug: ` ${a.slug.toUpperCase()} ` })).profile.slug, a.slug);
      const self = await s.ok(a.key, 'get_agent', { slug: a.slug });
      assert.equal(self.profile.trust, 'self');

      for (const slug of ['no-such-agent', '@nobody-here', 'not a slug!', 'x'.repeat(64)]) {
        const err = await s.fail(viewer.key, 'get_agent', { slug }, 'NOT_FOUND');
        assert.match(err.message, /list_agents/, slug);
      }
      const err = await s.fail(viewer.key, 'get_agent', { slug: '@Nobody-Here' }, 'NOT_FOUND');
      assert.equal(err.details.slug, 'nobody-here');
      assert.equal((await s.fail(viewer.key, 'get_agent', { slug: '' }, 'INVALID_INPUT')).details.field, 'slug');
    });

    it('list_agents: active, new and popular each order the agents right, and tag filters', async () => {
      // Registered x, y, z in that order; first calls (which make an agent active) in the order y, z, x.
      const x = await agent('Order X');
      await sleep(3);
      const y = await agent('Order Y');
      await sleep(3);
      const z = await agent('Order Z');
      for (const a of [y, z, x]) await firstCall(a, 'update_my_profile', { tags: ['order-test'] });
      // Followers: y 2, z 1, x 0 (the followers are outside the tag).
      const f1 = await agent('Order Fan One');
      const f2 = await agent('Order Fan Two');
      await s.ok(f1.key, 'follow', { slug: y.slug });
      await s.ok(f2.key, 'follow', { slug: y.slug });
      await s.ok(f1.key, 'follow', { slug: z.slug });
      const slugs = async (input: Record<string, unknown>) => (await s.ok(viewer.key, 'list_agents', input)).items.map((p: any) => p.slug);
      assert.deepEqual(await slugs({ tag: 'order-test', sort: 'active' }), [x.slug, z.slug, y.slug]);
      assert.deepEqual(await slugs({ tag: 'order-test' }), [x.slug, z.slug, y.slug], 'active is the default');
      assert.deepEqual(await slugs({ tag: 'order-test', sort: 'new' }), [z.slug, y.slug, x.slug]);
      assert.deepEqual(await slugs({ tag: 'order-test', sort: 'popular' }), [y.slug, z.slug, x.slug]);
      assert.deepEqual(await slugs({ tag: 'no-such-tag' }), []);

      // Over everyone, each sort's field never rises down the list.
      const key = { active: (p: any) => p.lastActiveAt, new: (p: any) => p.createdAt, popular: (p: any) => p.counts.followerCount };
      for (const sort of ['active', 'new', 'popular'] as const) {
        const items = (await s.ok(viewer.key, 'list_agents', { sort, limit: 100 })).items;
        assert.ok(items.length >= 6);
        for (let i = 1; i < items.length; i++) assert.ok(key[sort](items[i - 1]) >= key[sort](items[i]), `${sort} at ${i}`);
      }
      const popular = (await s.ok(viewer.key, 'list_agents', { sort: 'popular', tag: 'order-test' })).items;
      assert.deepEqual(
        popular.map((p: any) => p.counts.followerCount),
        [2, 1, 0],
      );

      // A tag dropped from a profile drops the agent from the tag's list.
      await s.ok(y.key, 'update_my_profile', { tags: ['other'] });
      assert.deepEqual(await slugs({ tag: 'order-test', sort: 'new' }), [z.slug, x.slug]);
      assert.deepEqual(await slugs({ tag: 'other' }), [y.slug]);
    });

    it('list_agents: query is a case-insensitive prefix of the slug, the name or the display name', async () => {
      const q = await agent('Quasar Prefix');
      await s.ok(q.key, 'update_my_profile', { displayName: 'Bright Star' });
      const other = await agent('Quiet Other');
      const slugs = async (query: string) => (await s.ok(viewer.key, 'list_agents', { query, sort: 'new' })).items.map((p: any) => p.slug);
      assert.deepEqual(await slugs('quasar-p'), [q.slug], 'slug prefix');
      assert.deepEqual(await slugs('QUASAR-PRE'), [q.slug], 'any case');
      assert.deepEqual(await slugs('@quasar'), [q.slug], 'a leading @ is dropped');
      assert.deepEqual(await slugs('Quasar P'), [q.slug], 'registered-name prefix, with its space');
      assert.deepEqual(await slugs('bRIGHT s'), [q.slug], 'display-name prefix');
      assert.deepEqual(await slugs('q'), [other.slug, q.slug]);
      assert.deepEqual(await slugs('star'), [], 'inside the display name is not a prefix');
      assert.deepEqual(await slugs('prefix'), [], 'inside the slug is not a prefix');

      // Beyond ASCII too, on both backends: a name is found by its own spelling in any case.
      const e = await agent('Émile Zola');
      await s.ok(e.key, 'update_my_profile', { displayName: 'Ärger Öl' });
      for (const query of ['Émile', 'émile z', 'ÉMILE ZOLA', 'emile', 'ärger', 'ÄRGER ö', 'Ärger Öl']) {
        assert.deepEqual(await slugs(query), ['emile-zola'], query);
      }
      assert.deepEqual(await slugs('arger'), [], 'a letter is not its accent-less twin');
    });

    it('list_agents: "%", "_" and "\\" in a query match themselves only', async () => {
      const names: Record<string, string> = {};
      for (const display of ['100% Sure', '100X Sure', 'under_score', 'underXscore', 'back\\slash', 'backXslash']) {
        const a = await agent(`Meta ${display.replace(/\W/g, '')}`);
        await s.ok(a.key, 'update_my_profile', { displayName: display });
        names[a.slug] = display;
      }
      const found = async (query: string) => {
        const items = (await s.ok(viewer.key, 'list_agents', { query, limit: 100 })).items;
        return items.map((p: any) => p.displayName).sort();
      };
      assert.deepEqual(await found('100%'), ['100% Sure']);
      assert.deepEqual(await found('100% s'), ['100% Sure']);
      assert.deepEqual(await found('under_'), ['under_score']);
      assert.deepEqual(await found('back\\'), ['back\\slash']);
      assert.deepEqual(await found('%'), []);
      assert.deepEqual(await found('_'), []);
      assert.deepEqual(await found('100'), ['100% Sure', '100X Sure'], 'the plain prefix still finds both');
    });

    it('list_agents: agents the caller blocked are left out, for the caller only', async () => {
      const blocker = await agent('Dir Blocker');
      const gone = await agent('Dir Gone');
      const listed = async (key: string) => (await s.ok(key, 'list_agents', { query: 'dir-', limit: 100 })).items.map((p: any) => p.slug);
      assert.ok((await listed(blocker.key)).includes(gone.slug));
      await s.ok(blocker.key, 'block', { slug: gone.slug });
      assert.deepEqual(await listed(blocker.key), [blocker.slug]);
      assert.ok((await listed(viewer.key)).includes(gone.slug), 'others still see it');
      assert.ok((await listed(gone.key)).includes(blocker.slug), 'the blocked agent still sees the blocker');
      await s.ok(blocker.key, 'unblock', { slug: gone.slug });
      assert.ok((await listed(blocker.key)).includes(gone.slug), 'unblocked: listed again');
    });

    it('list_agents: paging with limit and cursor visits every agent exactly once, in every sort', async () => {
      // A pager whose key was touched just now: its own lastActiveAt stays put while it pages (keys are touched once a minute).
      const pager = await agent('Pager');
      await firstCall(pager, 'get_my_profile', {});
      const everyone = (await s.ok(pager.key, 'list_agents', { sort: 'new', limit: 100 })).items.map((p: any) => p.slug);
      assert.ok(everyone.length >= 20, `enough agents to page (${everyone.length})`);
      assert.equal(new Set(everyone).size, everyone.length);
      for (const sort of ['active', 'new', 'popular'] as const) {
        const whole = (await s.ok(pager.key, 'list_agents', { sort, limit: 100 })).items.map((p: any) => p.slug);
        for (const limit of [1, 3, 7]) {
          const paged = (await allPages(s, pager.key, { sort }, limit)).map((p) => p.slug);
          assert.deepEqual(paged, whole, `${sort} by ${limit}: the same agents, once each, in order`);
        }
      }
      const tagged = await allPages(s, pager.key, { tag: 'order-test', sort: 'popular' }, 1);
      assert.equal(tagged.length, 2);
      const queried = await allPages(s, pager.key, { query: 'meta', sort: 'new' }, 4);
      assert.equal(queried.length, 6);
    });

    it('list_agents: a cursor of another list, an edited or a garbage one → INVALID_INPUT naming cursor', async () => {
      const fromNew = (await s.ok(viewer.key, 'list_agents', { sort: 'new', limit: 1 })).nextCursor;
      assert.equal(typeof fromNew, 'string');
      const followers = await agent('Cursor Many');
      for (const a of [await agent('Cursor Fan A'), await agent('Cursor Fan B')]) await s.ok(a.key, 'follow', { slug: followers.slug });
      const fromFollowers = (await s.ok(viewer.key, 'list_followers', { slug: followers.slug, limit: 1 })).nextCursor;
      assert.equal(typeof fromFollowers, 'string');
      const forged = (v: unknown[]) => Buffer.from(JSON.stringify(v)).toString('base64url');
      // The list a cursor belongs to names the sort and the filters (tag, query).
      const NEW_LIST = 'agents:new:[null,null]';
      const fromQuery = (await s.ok(viewer.key, 'list_agents', { sort: 'new', query: 'cursor', limit: 1 })).nextCursor;
      assert.equal(typeof fromQuery, 'string');
      const bad: Array<[string, Record<string, unknown>]> = [
        ['a cursor of sort new, for popular', { sort: 'popular', cursor: fromNew }],
        ['a cursor of sort new, for active', { cursor: fromNew }],
        ['a cursor of list_followers', { sort: 'new', cursor: fromFollowers }],
        ['a cursor of query "cursor", without the query', { sort: 'new', cursor: fromQuery }],
        ['garbage', { cursor: 'not-a-cursor!!' }],
        ['base64 of no JSON', { cursor: Buffer.from('hello').toString('base64url') }],
        ['values of the wrong kind', { sort: 'new', cursor: forged([NEW_LIST, 'x', 'y']) }],
        ['a value too many', { sort: 'new', cursor: forged([NEW_LIST, 1, 'a', 2]) }],
        ['an unsafe integer', { sort: 'new', cursor: forged([NEW_LIST, 2 ** 60, 'a']) }],
      ];
      for (const [what, input] of bad) {
        const err = await s.fail(viewer.key, 'list_agents', input, 'INVALID_INPUT');
        assert.equal(err.details.field, 'cursor', what);
        assert.match(err.message, /nextCursor/, what);
      }
      const err = await s.fail(viewer.key, 'list_followers', { slug: followers.slug, cursor: fromNew }, 'INVALID_INPUT');
      assert.equal(err.details.field, 'cursor', 'and the other way round');
      // A forged cursor of the right list and kinds is only a position: the page after it.
      const page = await s.ok(viewer.key, 'list_agents', { sort: 'new', cursor: forged([NEW_LIST, 0, '']) });
      assert.deepEqual(page, { success: true, items: [], nextCursor: null });
    });
  });
}

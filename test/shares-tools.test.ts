/**
 * The shares family's tools through HTTP on both backends (docs/contract/mounts.md): share, list_shares,
 * revoke_share, leave_share, create_link, publish, unpublish, browse_published — every success
 * shape and every error each can return.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

interface Agent {
  id: string;
  key: string;
  slug: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const backend of backends()) {
  describe(`shares tools (${backend})`, () => {
    let s: TestServer;
    // Small limits: the cooldown and the caps are reached in a few calls.
    before(async () => {
      s = await startServer(
        backend,
        { COOLDOWN_SHARE_PER_HOUR: '6', COOLDOWN_PUBLISH_PER_DAY: '4', MAX_ACTIVE_SHARES_PER_AGENT: '4', MAX_PUBLISHED_PER_AGENT: '3' },
        { via: 'inject' },
      );
    });
    after(() => s.close());
    let n = 0;
    const agent = async (): Promise<Agent> => {
      const r = await s.register(`Shr Agent ${++n}`);
      await s.ok(r.apiKey, 'write', { path: '/docs/a.md', content: 'a1\n' });
      return { id: r.id, key: r.apiKey, slug: r.slug };
    };

    it('share: read, then write (same share, updated), notified of each permission; mountPath and fields', async () => {
      const [a, b] = [await agent(), await agent()];
      const first = await s.ok(a.key, 'share', { path: '/docs', with: `@${b.slug.toUpperCase()}`, message: 'for you' });
      assert.equal(first.updated, false);
      assert.match(first.share.shareId, /^shr_[0-9A-Za-z]{22}$/);
      assert.deepEqual(
        { ...first.share, shareId: 'X', createdAt: 'T', updatedAt: 'T' },
        {
          shareId: 'X',
          kind: 'agent',
          owner: { slug: a.slug, name: `Shr Agent ${n - 1}` },
          with: { slug: b.slug, name: `Shr Agent ${n}` },
          path: '/docs',
          mountPath: `/shared/${a.slug}/docs`,
          permission: 'read',
          version: null,
          message: 'for you',
          status: 'active',
          createdAt: 'T',
          updatedAt: 'T',
          expiresAt: null,
          includeHistory: false,
          trust: 'self',
        },
      );
      const again = await s.ok(a.key, 'share', { path: '/docs', with: b.slug, permission: 'write' });
      assert.equal(again.updated, true);
      assert.equal(again.share.shareId, first.share.shareId);
      assert.equal(again.share.permission, 'write');
      assert.equal(again.share.message, null);
      const notes = (await s.ok(b.key, 'list_notifications', {})).items.filter((x: any) => x.type === 'share_received');
      assert.equal(notes.length, 2, 'a change of permission notifies again');
      assert.deepEqual(
        notes.map((x: any) => [x.object.id, x.object.permission]),
        [
          [first.share.shareId, 'write'],
          [first.share.shareId, 'read'],
        ],
      );
      // The write permission holds at once.
      assert.equal((await s.ok(b.key, 'append', { path: `/shared/${a.slug}/docs/a.md`, content: 'b\n' })).version, 2);
    });

    it('share: every refusal', async () => {
      const [a, b] = [await agent(), await agent()];
      const unknown = await s.fail(a.key, 'share', { path: '/docs', with: 'no-such-agent-zz' }, 'NOT_FOUND');
      assert.equal(unknown.details.field, 'with');
      assert.equal((await s.fail(a.key, 'share', { path: '/docs', with: a.slug }, 'SELF_ACTION')).details.slug, a.slug);
      await s.fail(a.key, 'share', { path: '/nope', with: b.slug }, 'NOT_FOUND');
      assert.equal((await s.fail(a.key, 'share', { path: '/', with: b.slug }, 'INVALID_PATH')).details.reason, 'root');
      await s.ok(b.key, 'share', { path: '/docs', with: a.slug });
      const mounted = await s.fail(a.key, 'share', { path: `/shared/${b.slug}/docs`, with: b.slug }, 'INVALID_PATH');
      assert.equal(mounted.details.reason, 'not_yours');
      for (const [input, field] of [
        [{ expiresAt: new Date(Date.now() + 60_000).toISOString(), expiresInSeconds: 60 }, 'expiresAt'],
        [{ expiresAt: '2001-01-01T00:00:00.000Z' }, 'expiresAt'],
        [{ expiresAt: 'tomorrow' }, 'expiresAt'],
        [{ expiresInSeconds: 0 }, 'expiresInSeconds'],
        [{ message: 'x'.repeat(501) }, 'message'],
        [{ permission: 'admin' }, 'permission'],
      ] as const) {
        const err = await s.fail(a.key, 'share', { path: '/docs', with: b.slug, ...input }, 'INVALID_INPUT');
        assert.equal(err.details.field, field, JSON.stringify(input));
      }
      await s.ok(a.key, 'block', { slug: b.slug });
      assert.equal((await s.fail(a.key, 'share', { path: '/docs', with: b.slug }, 'FORBIDDEN')).details.reason, 'you_block');
      assert.equal((await s.fail(b.key, 'share', { path: '/docs', with: a.slug }, 'FORBIDDEN')).details.reason, 'not_accepted');
    });

    it('share: folder-scoped and read-only keys stay bounded', async () => {
      const [a, b] = [await agent(), await agent()];
      const folderKey = await s.addKey(a.id, { scopes: ['files', 'shares'], folder: '/work' });
      await s.fail(folderKey, 'share', { path: '/docs', with: b.slug }, 'OUTSIDE_KEY_FOLDER');
      const readOnly = await s.addKey(a.id, { scopes: ['files:read', 'shares:read'] });
      await s.fail(readOnly, 'share', { path: '/docs', with: b.slug }, 'INSUFFICIENT_SCOPE');
      await s.fail(readOnly, 'publish', { path: '/docs/a.md', title: 't' }, 'INSUFFICIENT_SCOPE');
      assert.deepEqual((await s.ok(readOnly, 'list_shares', { direction: 'outgoing' })).items, []);
    });

    it('create_link and publish: INVALID_PATH (the root, another agent’s files) and OUTSIDE_KEY_FOLDER, as share', async () => {
      const [a, b] = [await agent(), await agent()];
      await s.ok(b.key, 'share', { path: '/docs', with: a.slug });
      const folderKey = await s.addKey(a.id, { scopes: ['files', 'shares'], folder: '/work' });
      for (const [tool, extra] of [
        ['create_link', {}],
        ['publish', { title: 'T' }],
      ] as const) {
        assert.equal((await s.fail(a.key, tool, { path: '/', ...extra }, 'INVALID_PATH')).details.reason, 'root', tool);
        const theirs = await s.fail(a.key, tool, { path: `/shared/${b.slug}/docs/a.md`, ...extra }, 'INVALID_PATH');
        assert.deepEqual(theirs.details, { path: `/shared/${b.slug}/docs/a.md`, reason: 'not_yours' }, tool);
        const outside = await s.fail(folderKey, tool, { path: '/docs/a.md', ...extra }, 'OUTSIDE_KEY_FOLDER');
        assert.equal(outside.details.folder, '/work', tool);
      }
      assert.deepEqual((await s.ok(a.key, 'list_shares', { direction: 'outgoing' })).items, [], 'no link made');
      assert.equal((await s.ok(a.key, 'get_my_profile', {})).profile.counts.publishedCount, 0, 'nothing published');
    });

    it('share: the cooldown refuses a new share', async () => {
      const a = await agent();
      const others = [];
      for (let i = 0; i < 7; i++) others.push(await agent());
      // 6 per hour; each share revoked at once, so the cap (4 live) is never what refuses.
      for (const o of others.slice(0, 6)) {
        const { share } = await s.ok(a.key, 'share', { path: '/docs', with: o.slug });
        await s.ok(a.key, 'revoke_share', { shareId: share.shareId });
      }
      const cool = await s.fail(a.key, 'share', { path: '/docs', with: others[6]!.slug }, 'COOLDOWN');
      assert.deepEqual([cool.details.limit, cool.details.max, cool.details.windowSeconds], ['share', 6, 3600]);
      assert.ok(cool.details.retryAfterSeconds >= 1);
      assert.deepEqual((await s.ok(others[6]!.key, 'list_shares', { direction: 'incoming' })).items, []);
      await s.fail(others[6]!.key, 'read', { path: `/shared/${a.slug}/docs/a.md` }, 'NOT_FOUND');
    });

    it('publish, unpublish, revoke_share, leave_share: a replay with the same idempotencyKey returns the first result, changes nothing more', async () => {
      const [a, b] = [await agent(), await agent()];
      const first = ({ replayed, ...rest }: any) => (assert.equal(replayed, true), rest);
      const pub = await s.ok(a.key, 'publish', { path: '/docs/a.md', title: 'A', idempotencyKey: 'pub-1' });
      await s.ok(a.key, 'write', { path: '/docs/a.md', content: 'a2\n' });
      assert.deepEqual(first(await s.ok(a.key, 'publish', { path: '/docs/a.md', title: 'A', idempotencyKey: 'pub-1' })), pub);
      const items = (await s.ok(b.key, 'browse_published', { author: a.slug })).items;
      assert.deepEqual(
        items.map((i: any) => [i.publishedId, i.version]),
        [[pub.published.publishedId, 1]],
        'still the first version, published once',
      );
      assert.equal((await s.ok(a.key, 'get_my_profile', {})).profile.counts.publishedCount, 1);
      const unpub = await s.ok(a.key, 'unpublish', { publishedId: pub.published.publishedId, idempotencyKey: 'unpub-1' });
      assert.deepEqual(first(await s.ok(a.key, 'unpublish', { publishedId: pub.published.publishedId, idempotencyKey: 'unpub-1' })), unpub);
      assert.deepEqual((await s.ok(b.key, 'browse_published', { author: a.slug })).items, []);
      assert.equal((await s.ok(a.key, 'get_my_profile', {})).profile.counts.publishedCount, 0);

      const toRevoke = (await s.ok(a.key, 'share', { path: '/docs', with: b.slug })).share;
      const revoked = await s.ok(a.key, 'revoke_share', { shareId: toRevoke.shareId, idempotencyKey: 'rv-1' });
      assert.deepEqual(first(await s.ok(a.key, 'revoke_share', { shareId: toRevoke.shareId, idempotencyKey: 'rv-1' })), revoked);
      const notes = (await s.ok(b.key, 'list_notifications', {})).items.filter((x: any) => x.type === 'share_revoked');
      assert.equal(notes.length, 1, 'notified once');
      const toLeave = (await s.ok(a.key, 'share', { path: '/docs', with: b.slug })).share;
      const left = await s.ok(b.key, 'leave_share', { shareId: toLeave.shareId, idempotencyKey: 'lv-1' });
      assert.deepEqual(first(await s.ok(b.key, 'leave_share', { shareId: toLeave.shareId, idempotencyKey: 'lv-1' })), left);
      assert.deepEqual(
        (await s.ok(a.key, 'list_shares', { direction: 'outgoing' })).items.map((i: any) => [i.shareId, i.status]),
        [
          [toLeave.shareId, 'left'],
          [toRevoke.shareId, 'revoked'],
        ],
      );
      // Without the key, the same calls answer as the state now is.
      await s.fail(a.key, 'revoke_share', { shareId: toRevoke.shareId }, 'GONE');
      await s.fail(b.key, 'leave_share', { shareId: toLeave.shareId }, 'GONE');
      await s.fail(a.key, 'unpublish', { publishedId: pub.published.publishedId }, 'NOT_FOUND');
    });

    it('share: expiry ends the mount; sharing again makes a new share; idempotencyKey replays', async () => {
      const [a, b] = [await agent(), await agent()];
      const short = await s.ok(a.key, 'share', { path: '/docs', with: b.slug, expiresInSeconds: 1 });
      assert.ok(Date.parse(short.share.expiresAt) - Date.now() <= 1000);
      assert.equal((await s.ok(b.key, 'read', { path: `/shared/${a.slug}/docs/a.md` })).content, 'a1\n');
      await sleep(1100);
      await s.fail(b.key, 'read', { path: `/shared/${a.slug}/docs/a.md` }, 'NOT_FOUND');
      const out = await s.ok(a.key, 'list_shares', { direction: 'outgoing' });
      assert.equal(out.items[0].status, 'expired');
      assert.deepEqual((await s.ok(b.key, 'list_shares', { direction: 'incoming' })).items, []);
      const renewed = await s.ok(a.key, 'share', { path: '/docs', with: b.slug, idempotencyKey: 'renew-1' });
      assert.notEqual(renewed.share.shareId, short.share.shareId);
      assert.equal(renewed.updated, false);
      const replay = await s.ok(a.key, 'share', { path: '/docs', with: b.slug, idempotencyKey: 'renew-1' });
      assert.equal(replay.replayed, true);
      assert.equal(replay.share.shareId, renewed.share.shareId);
    });

    it('share and create_link: the cooldown, then the cap on live shares', async () => {
      const a = await agent();
      const others = [await agent(), await agent(), await agent(), await agent(), await agent()];
      for (const o of others.slice(0, 4)) await s.ok(a.key, 'share', { path: '/docs', with: o.slug });
      const full = await s.fail(a.key, 'share', { path: '/docs', with: others[4]!.slug }, 'QUOTA_EXCEEDED');
      assert.deepEqual([full.details.quota, full.details.limit], ['shares', 4]);
      await s.fail(a.key, 'create_link', { path: '/docs/a.md' }, 'QUOTA_EXCEEDED');
      const shares = (await s.ok(a.key, 'list_shares', { direction: 'outgoing' })).items;
      await s.ok(a.key, 'revoke_share', { shareId: shares[0].shareId });
      await s.ok(a.key, 'create_link', { path: '/docs/a.md' });
      // 6 per hour: 4 shares, 1 link, and this one; refusals for the cap were not counted.
      await s.ok(a.key, 'revoke_share', { shareId: shares[1].shareId });
      await s.ok(a.key, 'share', { path: '/docs', with: others[4]!.slug });
      const cool = await s.fail(a.key, 'create_link', { path: '/docs/a.md' }, 'COOLDOWN');
      assert.equal(cool.details.limit, 'share');
      assert.equal(cool.details.max, 6);
      assert.ok(cool.details.retryAfterSeconds >= 1);
    });

    it('list_shares: directions, kinds, statuses, paging', async () => {
      const [a, b, c, d] = [await agent(), await agent(), await agent(), await agent()];
      const made = [];
      for (const o of [b, c, d]) made.push((await s.ok(a.key, 'share', { path: '/docs', with: o.slug })).share.shareId);
      const link = (await s.ok(a.key, 'create_link', { path: '/docs/a.md' })).link.shareId;
      const page1 = await s.ok(a.key, 'list_shares', { direction: 'outgoing', limit: 3 });
      assert.equal(page1.items.length, 3);
      const page2 = await s.ok(a.key, 'list_shares', { direction: 'outgoing', limit: 3, cursor: page1.nextCursor });
      assert.equal(page2.nextCursor, null);
      // Newest first. Shares made within one millisecond tie, and their order is the id's (random):
      // the pages hold each share once, in non-increasing creation time.
      const listed = [...page1.items, ...page2.items];
      assert.deepEqual(listed.map((i: any) => i.shareId).sort(), [link, ...made].sort());
      const times = listed.map((i: any) => Date.parse(i.createdAt));
      assert.deepEqual(
        times,
        [...times].sort((x, y) => y - x),
      );
      assert.deepEqual(
        (await s.ok(a.key, 'list_shares', { direction: 'outgoing', kind: 'link' })).items.map((i: any) => [i.shareId, i.with, i.mountPath]),
        [[link, null, null]],
      );
      const err = await s.fail(a.key, 'list_shares', { direction: 'incoming', cursor: page1.nextCursor }, 'INVALID_INPUT');
      assert.equal(err.details.field, 'cursor');
      const incoming = (await s.ok(b.key, 'list_shares', { direction: 'incoming' })).items;
      assert.deepEqual(
        incoming.map((i: any) => [i.trust, i.owner.slug, i.mountPath]),
        [['third_party', a.slug, `/shared/${a.slug}/docs`]],
      );
      await s.ok(b.key, 'leave_share', { shareId: incoming[0].shareId });
      await s.ok(a.key, 'revoke_share', { shareId: made[1] });
      await s.ok(d.key, 'block', { slug: a.slug });
      const statuses = Object.fromEntries(
        (await s.ok(a.key, 'list_shares', { direction: 'outgoing', kind: 'agent' })).items.map((i: any) => [i.with.slug, i.status]),
      );
      assert.deepEqual(statuses, { [b.slug]: 'left', [c.slug]: 'revoked', [d.slug]: 'blocked' });
    });

    it('revoke_share and leave_share: success, GONE, NOT_FOUND', async () => {
      const [a, b, c] = [await agent(), await agent(), await agent()];
      const { share } = await s.ok(a.key, 'share', { path: '/docs', with: b.slug });
      const notMine = await s.fail(c.key, 'revoke_share', { shareId: share.shareId }, 'NOT_FOUND');
      assert.equal(notMine.details.shareId, share.shareId);
      const asRecipient = await s.fail(b.key, 'revoke_share', { shareId: share.shareId }, 'NOT_FOUND');
      assert.match(asRecipient.message, /leave_share/);
      await s.fail(c.key, 'leave_share', { shareId: share.shareId }, 'NOT_FOUND');
      await s.fail(a.key, 'leave_share', { shareId: share.shareId }, 'NOT_FOUND');
      await s.fail(a.key, 'revoke_share', { shareId: 'shr_doesnotexist000000000' }, 'NOT_FOUND');
      // Not an id at all (the deep fuzzer's case: a NUL reached PostgreSQL, a 500): refused before the store.
      for (const shareId of ['shr_\u0000', 'shr_\ud800', 'shr x', '../shr']) {
        for (const tool of ['revoke_share', 'leave_share'])
          assert.equal((await s.fail(a.key, tool, { shareId }, 'INVALID_INPUT')).details.field, 'shareId');
      }
      assert.equal((await s.fail(a.key, 'unpublish', { publishedId: 'pub_\u0000' }, 'INVALID_INPUT')).details.field, 'publishedId');
      assert.deepEqual(await s.ok(b.key, 'leave_share', { shareId: share.shareId }), { success: true, shareId: share.shareId, left: true });
      await s.fail(b.key, 'read', { path: `/shared/${a.slug}/docs/a.md` }, 'NOT_FOUND');
      const gone = await s.fail(b.key, 'leave_share', { shareId: share.shareId }, 'GONE');
      assert.deepEqual(gone.details, { shareId: share.shareId, reason: 'left' });
      const revokedGone = await s.fail(a.key, 'revoke_share', { shareId: share.shareId }, 'GONE');
      assert.equal(revokedGone.details.reason, 'left');
    });

    it('create_link: url, pin, expiry, refusals', async () => {
      const a = await agent();
      await s.ok(a.key, 'write', { path: '/docs/a.md', content: 'a2\n' });
      const head = await s.ok(a.key, 'create_link', { path: '/docs/a.md' });
      assert.match(head.link.url, new RegExp(`^${s.config.baseUrl}/l/lt_[A-Za-z0-9_-]{43}$`));
      assert.equal(head.link.version, null);
      const days = (Date.parse(head.link.expiresAt) - Date.now()) / 86_400_000;
      assert.ok(days > 6.99 && days <= 7, `${days} days`);
      const pinned = await s.ok(a.key, 'create_link', { path: '/docs/a.md', version: 1, expiresInSeconds: 60 });
      assert.equal(pinned.link.version, 1);
      assert.equal((await s.raw(new URL(pinned.link.url).pathname, { method: 'GET' })).text, 'a1\n');
      assert.equal((await s.raw(new URL(head.link.url).pathname, { method: 'GET' })).text, 'a2\n');
      assert.equal((await s.fail(a.key, 'create_link', { path: '/docs/a.md', version: 9 }, 'VERSION_NOT_FOUND')).details.latestVersion, 2);
      assert.equal((await s.fail(a.key, 'create_link', { path: '/docs', version: 1 }, 'INVALID_INPUT')).details.field, 'version');
      await s.fail(a.key, 'create_link', { path: '/missing.md' }, 'NOT_FOUND');
      await s.fail(a.key, 'create_link', { path: '/docs/a.md', expiresInSeconds: 366 * 86_400 }, 'INVALID_INPUT');
      const idem = await s.fail(a.key, 'create_link', { path: '/docs/a.md', idempotencyKey: 'k' }, 'INVALID_INPUT');
      assert.equal(idem.details.field, 'idempotencyKey');
    });

    it('publish: pinned, explicit, head, directory, republish; refusals; the profile counts', async () => {
      const a = await agent();
      await s.ok(a.key, 'write', { path: '/docs/a.md', content: 'a2\n' });
      const count = async () => (await s.ok(a.key, 'get_my_profile', {})).profile.counts.publishedCount;
      const file = await s.ok(a.key, 'publish', { path: '/docs/a.md', title: 'A', description: 'd', tags: ['x-1', 'x-1'] });
      assert.deepEqual(
        { ...file.published, publishedId: 'P' },
        {
          publishedId: 'P',
          path: '/docs/a.md',
          version: 2,
          title: 'A',
          publicPath: `/published/${a.slug}/docs/a.md`,
          webUrl: `${s.config.baseUrl}/published/${a.slug}/docs/a.md`,
        },
      );
      assert.equal(await count(), 1);
      const again = await s.ok(a.key, 'publish', { path: '/docs/a.md', title: 'A v1', version: 1 });
      assert.equal(again.updated, true);
      assert.equal(again.published.publishedId, file.published.publishedId);
      assert.equal(again.published.version, 1);
      assert.equal(await count(), 1, 'republishing counts once');
      assert.equal((await s.ok(a.key, 'publish', { path: '/docs/a.md', title: 'A', version: 'head' })).published.version, null);
      const dir = await s.ok(a.key, 'publish', { path: '/docs', title: 'Docs' });
      assert.equal(dir.published.version, null);
      assert.equal((await s.fail(a.key, 'publish', { path: '/docs', title: 'D', version: 1 }, 'INVALID_INPUT')).details.field, 'version');
      await s.fail(a.key, 'publish', { path: '/docs/a.md', title: 'A', version: 7 }, 'VERSION_NOT_FOUND');
      await s.fail(a.key, 'publish', { path: '/none.md', title: 'N' }, 'NOT_FOUND');
      for (const bad of [
        { title: '' },
        { title: 'x'.repeat(121) },
        { title: 'T', tags: ['Bad Tag'] },
        { title: 'T', description: 'x'.repeat(2001) },
      ]) {
        await s.fail(a.key, 'publish', { path: '/docs/a.md', ...bad }, 'INVALID_INPUT');
      }
      await s.ok(a.key, 'write', { path: '/docs/b.md', content: 'b\n' });
      // 4 per day: a.md (3 times, counted) and /docs make 4.
      const cool = await s.fail(a.key, 'publish', { path: '/docs/b.md', title: 'B' }, 'COOLDOWN');
      assert.equal(cool.details.limit, 'publish');
      assert.equal(cool.details.windowSeconds, 86_400);
    });

    it('publish: the cap on live items; unpublish (by publishedId or path): success, NOT_FOUND, INVALID_INPUT; the count follows', async () => {
      const [a, b] = [await agent(), await agent()];
      const ids = [];
      for (const name of ['p1', 'p2', 'p3']) {
        await s.ok(a.key, 'write', { path: `/${name}.md`, content: name });
        ids.push((await s.ok(a.key, 'publish', { path: `/${name}.md`, title: name })).published.publishedId);
      }
      await s.ok(a.key, 'write', { path: '/p4.md', content: 'p4' });
      const full = await s.fail(a.key, 'publish', { path: '/p4.md', title: 'p4' }, 'QUOTA_EXCEEDED');
      assert.deepEqual([full.details.quota, full.details.limit], ['published', 3]);
      await s.fail(b.key, 'unpublish', { publishedId: ids[0] }, 'NOT_FOUND');
      assert.deepEqual(await s.ok(a.key, 'unpublish', { publishedId: ids[0] }), {
        success: true,
        publishedId: ids[0],
        path: '/p1.md',
        unpublished: true,
      });
      await s.fail(a.key, 'unpublish', { publishedId: ids[0] }, 'NOT_FOUND');
      assert.equal((await s.ok(a.key, 'get_my_profile', {})).profile.counts.publishedCount, 2);
      // By path, as publish took it: the live item there; none (or another agent's path) is NOT_FOUND.
      assert.deepEqual(await s.ok(a.key, 'unpublish', { path: '/p2.md' }), { success: true, publishedId: ids[1], path: '/p2.md', unpublished: true });
      assert.deepEqual((await s.fail(a.key, 'unpublish', { path: '/p2.md' }, 'NOT_FOUND')).details, { path: '/p2.md' });
      await s.fail(b.key, 'unpublish', { path: '/p3.md' }, 'NOT_FOUND');
      assert.equal((await s.fail(a.key, 'unpublish', { path: '/p3.md', publishedId: ids[2] }, 'INVALID_INPUT')).details.field, 'path');
      assert.equal((await s.fail(a.key, 'unpublish', {}, 'INVALID_INPUT')).details.field, 'path');
      assert.equal((await s.ok(a.key, 'get_my_profile', {})).profile.counts.publishedCount, 1);
      await s.ok(a.key, 'publish', { path: '/p4.md', title: 'p4' });
    });

    it('browse_published: newest, most copied, by author and tag, since, paging, blocks', async () => {
      const [a, b, c] = [await agent(), await agent(), await agent()];
      await s.ok(a.key, 'write', { path: '/x.md', content: 'x' });
      const first = (await s.ok(a.key, 'publish', { path: '/x.md', title: 'First', tags: ['alpha'] })).published;
      await sleep(5);
      const second = (await s.ok(b.key, 'publish', { path: '/docs/a.md', title: 'Second', tags: ['beta'] })).published;
      const mine = { author: undefined as string | undefined };
      const titles = async (input: Record<string, unknown>, key = c.key) =>
        (await s.ok(key, 'browse_published', { ...input })).items
          .filter((i: any) => [a.slug, b.slug].includes(i.author.slug))
          .map((i: any) => i.title);
      assert.deepEqual(await titles({}), ['Second', 'First']);
      await s.ok(c.key, 'copy', { from: first.publicPath, to: '/copy.md' });
      assert.deepEqual(await titles({ sort: 'popular', ...mine }), ['First', 'Second']);
      const item = (await s.ok(c.key, 'browse_published', { author: a.slug })).items[0];
      assert.deepEqual(
        [item.publishedId, item.copies, item.size, item.trust, item.author.slug, item.tags],
        [first.publishedId, 1, 1, 'third_party', a.slug, ['alpha']],
      );
      assert.deepEqual(await titles({ tag: 'beta' }), ['Second']);
      assert.deepEqual(await titles({ since: new Date(Date.now() + 60_000).toISOString() }), []);
      await s.fail(c.key, 'browse_published', { author: 'nobody-zz-zz' }, 'NOT_FOUND');
      await s.fail(c.key, 'browse_published', { since: 'yesterday' }, 'INVALID_INPUT');
      const page1 = await s.ok(c.key, 'browse_published', { limit: 1 });
      const page2 = await s.ok(c.key, 'browse_published', { limit: 1, cursor: page1.nextCursor });
      assert.notEqual(page1.items[0].publishedId, page2.items[0].publishedId);
      await s.fail(c.key, 'browse_published', { sort: 'popular', cursor: page1.nextCursor }, 'INVALID_INPUT');
      await s.ok(c.key, 'block', { slug: b.slug });
      assert.deepEqual(await titles({}), ['First'], 'a blocked author is left out');
      await s.fail(c.key, 'read', { path: second.publicPath }, 'NOT_FOUND');
    });
  });
}

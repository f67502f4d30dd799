/**
 * Direct messages end to end through HTTP (docs/contract/community.md#social): send_message, list_conversations,
 * get_conversation, on both backends. What a client sees: unread counts on both sides (per
 * conversation and get_home's total), reading order and paging, acceptMessages and blocks,
 * the error codes with their details, idempotent retries, cooldowns, and no notification for a
 * message (it is counted once, in its conversation).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type Registered, type TestServer } from './helpers/server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const backend of backends()) {
  describe(`messages (${backend})`, () => {
    let s: TestServer;
    let n = 0;
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
    });
    after(() => s.close());

    const agent = (label: string) => s.register(`${label} ${++n}`);
    const send = (from: Registered, to: Registered, body: string, extra: Record<string, unknown> = {}) =>
      s.ok(from.apiKey, 'send_message', { to: to.slug, body, ...extra });
    const refused = (from: Registered, to: Registered, body: string, code: string) =>
      s.fail(from.apiKey, 'send_message', { to: to.slug, body }, code);
    const conversations = async (who: Registered) => (await s.ok(who.apiKey, 'list_conversations', {})).items as any[];
    const unreadTotal = async (who: Registered) => (await s.ok(who.apiKey, 'get_home', {})).you.unreadMessages as number;
    const read = (who: Registered, input: Record<string, unknown>) => s.ok(who.apiKey, 'get_conversation', input);
    const bodies = (page: any) => page.messages.map((m: any) => m.body);
    const messageNotifications = async (who: Registered) => (await s.ok(who.apiKey, 'list_notifications', { types: ['message'] })).items as any[];

    it('a read-only key reads a conversation and get_home without changing anything: unread stays, lastHomeAt is not recorded', async () => {
      const [a, b] = [await agent('Reo'), await agent('Rae')];
      await send(a, b, 'one');
      await send(a, b, 'two');
      const ro = (await s.ok(b.apiKey, 'create_key', { label: 'ro', preset: 'read-only' })).apiKey;
      const page = await s.ok(ro, 'get_conversation', { with: a.slug });
      assert.deepEqual([bodies(page), page.unreadCount], [['one', 'two'], 2], 'read, not marked');
      assert.equal((await conversations(b))[0].unreadCount, 2);
      const first = await s.ok(ro, 'get_home', {});
      const again = await s.ok(ro, 'get_home', {});
      assert.deepEqual([first.lastHomeAt, again.lastHomeAt, again.sinceLastHome], [null, null, null], 'nothing recorded');
      assert.equal(again.skill.changed, false, 'never recorded: nothing to differ from');
      // The full key marks and records, as documented.
      assert.equal((await read(b, { with: a.slug })).unreadCount, 0);
      await s.ok(b.apiKey, 'get_home', {});
      assert.notEqual((await s.ok(ro, 'get_home', {})).lastHomeAt, null, 'the full key recorded it');
    });

    it('both directions: unread counts on both sides; get_conversation reads oldest → newest and marks read', async () => {
      const [a, b] = [await agent('Ann'), await agent('Ben')];
      const first = await send(a, b, 'hello 1');
      assert.equal(first.to, b.slug);
      assert.match(first.messageId, /^msg_/);
      assert.match(first.conversationId, /^cnv_/);
      const second = await send(a, b, 'hello 2');
      assert.equal(second.conversationId, first.conversationId, 'one conversation per pair');
      const c = first.conversationId as string;

      assert.equal(await unreadTotal(b), 2);
      assert.deepEqual(await conversations(b), [
        {
          conversationId: c,
          with: { slug: a.slug, name: a.name },
          lastMessage: { preview: 'hello 2', at: second.sentAt, from: a.slug },
          unreadCount: 2,
          trust: 'third_party',
        },
      ]);
      const [aside] = await conversations(a);
      assert.deepEqual([aside.unreadCount, aside.lastMessage.from, aside.trust, aside.with.slug], [0, a.slug, 'self', b.slug]);
      assert.equal(await unreadTotal(a), 0);

      // B answers without reading first: sending is not reading.
      await send(b, a, 'hi back');
      assert.equal(await unreadTotal(a), 1);
      assert.equal((await conversations(a))[0].unreadCount, 1);
      const [bside] = await conversations(b);
      assert.deepEqual([bside.unreadCount, bside.lastMessage.from, bside.trust], [2, b.slug, 'self']);
      assert.equal(await unreadTotal(b), 2);

      const page = await read(b, { with: a.slug });
      assert.equal(page.conversationId, c);
      assert.deepEqual(page.with, { slug: a.slug, name: a.name });
      assert.deepEqual(bodies(page), ['hello 1', 'hello 2', 'hi back']);
      assert.deepEqual(
        page.messages.map((m: any) => [m.from, m.trust]),
        [
          [a.slug, 'third_party'],
          [a.slug, 'third_party'],
          [b.slug, 'self'],
        ],
      );
      assert.equal(page.messages[0].id, first.messageId);
      const times = page.messages.map((m: any) => Date.parse(m.createdAt));
      assert.deepEqual(
        times,
        [...times].sort((x, y) => x - y),
      );
      assert.deepEqual([page.unreadCount, page.nextCursor], [0, null]);
      assert.equal((await conversations(b))[0].unreadCount, 0);
      assert.equal(await unreadTotal(b), 0);

      const other = await read(a, { conversationId: c });
      assert.deepEqual([other.with.slug, other.unreadCount, bodies(other)], [b.slug, 0, ['hello 1', 'hello 2', 'hi back']]);
      assert.deepEqual(
        other.messages.map((m: any) => m.trust),
        ['self', 'self', 'third_party'],
      );
      assert.equal(await unreadTotal(a), 0);
      assert.equal(await unreadTotal(b), 0, "A's reading changes nothing on B's side");
    });

    it('pages back to older messages with nextCursor; older pages do not change unread', async () => {
      const [a, b, c] = [await agent('Pager'), await agent('Reader'), await agent('Third')];
      for (let i = 1; i <= 9; i++) await send(a, b, `m${i}`);
      const first = await read(b, { with: a.slug, limit: 4 });
      assert.deepEqual(bodies(first), ['m6', 'm7', 'm8', 'm9']);
      assert.equal(first.unreadCount, 0);
      assert.equal(typeof first.nextCursor, 'string');

      await send(a, b, 'n1');
      await send(a, b, 'n2');
      assert.equal(await unreadTotal(b), 2);
      const second = await read(b, { with: a.slug, limit: 4, cursor: first.nextCursor });
      assert.deepEqual(bodies(second), ['m2', 'm3', 'm4', 'm5']);
      assert.equal(second.unreadCount, 2, 'an older page reports the unread count and leaves it');
      const third = await read(b, { conversationId: first.conversationId, limit: 4, cursor: second.nextCursor });
      assert.deepEqual([bodies(third), third.nextCursor, third.unreadCount], [['m1'], null, 2]);
      assert.equal((await conversations(b))[0].unreadCount, 2);
      assert.equal(await unreadTotal(b), 2);

      // Another conversation's cursor is refused, not silently applied.
      await send(c, b, 'hey');
      const wrong = await s.fail(b.apiKey, 'get_conversation', { with: c.slug, cursor: first.nextCursor }, 'INVALID_INPUT');
      assert.equal(wrong.details.field, 'cursor');

      const fresh = await read(b, { with: a.slug, limit: 4 });
      assert.deepEqual([bodies(fresh), fresh.unreadCount], [['m8', 'm9', 'n1', 'n2'], 0]);
      assert.equal(await unreadTotal(b), 1, "c's message is still unread");
    });

    it('with or conversationId: exactly one; only your conversations; none yet → NOT_FOUND naming send_message', async () => {
      const [x, y, z] = [await agent('Ex'), await agent('Why'), await agent('Zed')];
      const { conversationId } = await send(x, y, 'between us');
      const neither = await s.fail(z.apiKey, 'get_conversation', {}, 'INVALID_INPUT');
      assert.equal(neither.details.field, 'with');
      const both = await s.fail(x.apiKey, 'get_conversation', { with: y.slug, conversationId }, 'INVALID_INPUT');
      assert.equal(both.details.field, 'conversationId');

      const theirs = await s.fail(z.apiKey, 'get_conversation', { conversationId }, 'NOT_FOUND');
      assert.equal(theirs.details.field, 'conversationId');
      for (const leak of ['between us', x.slug, y.slug]) assert.ok(!JSON.stringify(theirs).includes(leak), `NOT_FOUND leaks ${leak}`);
      const made = await s.fail(z.apiKey, 'get_conversation', { conversationId: 'cnv_DoesNotExist0000000000' }, 'NOT_FOUND');
      assert.equal(made.details.field, 'conversationId');
      assert.deepEqual(theirs.message.replace(conversationId, '?'), made.message.replace('cnv_DoesNotExist0000000000', '?'));

      const none = await s.fail(z.apiKey, 'get_conversation', { with: x.slug }, 'NOT_FOUND');
      assert.deepEqual([none.details.field, none.details.slug], ['with', x.slug]);
      assert.ok(none.message.includes(`send_message {"to": "${x.slug}"`), none.message);
      const nobody = await s.fail(z.apiKey, 'get_conversation', { with: 'nobody-has-this-slug' }, 'NOT_FOUND');
      assert.equal(nobody.details.field, 'with');
      assert.equal((await read(y, { with: `@${x.slug}` })).conversationId, conversationId, 'a leading @ is ignored');
    });

    it('acceptMessages none and following refuse with FORBIDDEN; following lets in the agents the recipient follows', async () => {
      const [a, b, c] = [await agent('Sender'), await agent('Private'), await agent('Stranger')];
      await s.ok(b.apiKey, 'update_my_profile', { acceptMessages: 'none' });
      const none = await refused(a, b, 'knock knock', 'FORBIDDEN');
      assert.deepEqual([none.details.reason, none.details.slug], ['none', b.slug]);
      assert.deepEqual(await conversations(a), [], 'a refused message starts no conversation');

      await s.ok(b.apiKey, 'update_my_profile', { acceptMessages: 'following' });
      assert.equal((await refused(a, b, 'knock knock', 'FORBIDDEN')).details.reason, 'following');
      await s.ok(b.apiKey, 'follow', { slug: a.slug });
      await send(a, b, 'knock knock');
      assert.equal((await refused(c, b, 'me too?', 'FORBIDDEN')).details.reason, 'following');
      assert.equal(await unreadTotal(b), 1);
      assert.deepEqual(bodies(await read(b, { with: a.slug })), ['knock knock']);

      await s.ok(b.apiKey, 'update_my_profile', { acceptMessages: 'everyone' });
      await send(c, b, 'me too?');
      assert.equal(await unreadTotal(b), 1);
    });

    it('blocks: the blocked sender is refused without being told; the blocker is told to unblock', async () => {
      const [a, b] = [await agent('Pest'), await agent('Recipient')];
      await send(a, b, 'before');
      await s.ok(b.apiKey, 'block', { slug: a.slug });
      const err = await refused(a, b, 'after', 'FORBIDDEN');
      assert.deepEqual([err.details.reason, err.details.slug], ['not_accepted', b.slug]);
      assert.doesNotMatch(err.message, /block/i);
      assert.doesNotMatch(JSON.stringify(err.details), /block/i);
      const mine = await refused(b, a, 'go away', 'FORBIDDEN');
      assert.equal(mine.details.reason, 'you_block');
      assert.ok(mine.message.includes(`unblock {"slug": "${a.slug}"}`), mine.message);
      assert.deepEqual(await conversations(b), [], 'the blocked agent’s conversation is hidden');
      assert.equal(await unreadTotal(b), 0);

      await s.ok(b.apiKey, 'unblock', { slug: a.slug });
      await send(a, b, 'after');
      assert.deepEqual(bodies(await read(b, { with: a.slug })), ['before', 'after']);
    });

    it('SELF_ACTION, an unknown recipient and body limits (0, 4000, 4001 characters, NUL, unpaired surrogates)', async () => {
      const [a, b] = [await agent('Limits'), await agent('Inbox')];
      assert.equal((await refused(a, a, 'note to self', 'SELF_ACTION')).details.slug, a.slug);
      const unknown = await s.fail(a.apiKey, 'send_message', { to: 'nobody-has-this-slug', body: 'hi' }, 'NOT_FOUND');
      assert.equal(unknown.details.field, 'to');
      for (const body of ['', 'x'.repeat(4001), '😀'.repeat(4001), 'a\u0000b', 'half \ud800 pair', 'other half \udc00']) {
        const e = await refused(a, b, body, 'INVALID_INPUT');
        assert.equal(e.details.field, 'body', JSON.stringify(body.slice(0, 20)));
      }
      assert.deepEqual(await conversations(b), [], 'nothing refused was delivered');
      const long = ['x'.repeat(4000), '😀'.repeat(4000), 'tab\tnew\nline ünïcödé'];
      for (const body of long) await send(a, b, body);
      assert.deepEqual(bodies(await read(b, { with: a.slug })), long, 'delivered verbatim');
      assert.equal((await conversations(b))[0].lastMessage.preview, long[2]);
    });

    it('DUPLICATE_CONTENT: the same body to the same agent names the earlier message; other bodies and agents are fine', async () => {
      const [a, b, c] = [await agent('Echo'), await agent('Ear'), await agent('Other Ear')];
      const first = await send(a, b, 'same words');
      const dup = await refused(a, b, 'same words', 'DUPLICATE_CONTENT');
      assert.deepEqual([dup.details.earlierId, dup.details.conversationId], [first.messageId, first.conversationId]);
      assert.equal(await unreadTotal(b), 1, 'the duplicate was not delivered');
      await send(a, b, 'other words');
      await send(a, c, 'same words');
      await send(b, a, 'same words');
      assert.deepEqual(bodies(await read(b, { with: a.slug })), ['same words', 'other words', 'same words']);
    });

    it('idempotencyKey: a retry returns the same messageId with replayed: true and sends nothing twice', async () => {
      const [a, b] = [await agent('Retry'), await agent('Target')];
      const first = await send(a, b, 'exactly once', { idempotencyKey: 'msg-key-1' });
      assert.notEqual(first.replayed, true);
      const again = await send(a, b, 'exactly once', { idempotencyKey: 'msg-key-1' });
      assert.deepEqual([again.messageId, again.conversationId, again.replayed], [first.messageId, first.conversationId, true]);
      const other = await s.fail(a.apiKey, 'send_message', { to: b.slug, body: 'not the same', idempotencyKey: 'msg-key-1' }, 'INVALID_INPUT');
      assert.equal(other.details.field, 'idempotencyKey');
      assert.equal(await unreadTotal(b), 1);
      assert.equal((await conversations(b))[0].unreadCount, 1);
      assert.deepEqual(bodies(await read(b, { with: a.slug })), ['exactly once']);
    });

    it('a message is counted once: unread in its conversation, no notification; reading clears it', async () => {
      const [a, b] = [await agent('Burst'), await agent('Quiet')];
      await send(a, b, 'first of two');
      await send(a, b, 'second of two');
      await send(b, a, 'a reply');
      assert.deepEqual([await messageNotifications(a), await messageNotifications(b)], [[], []]);
      const home = await s.ok(b.apiKey, 'get_home', {});
      assert.deepEqual([home.you.unreadMessages, home.you.unreadNotifications, home.unreadConversations[0].unreadCount], [2, 0, 2]);
      await read(b, { with: a.slug });
      assert.deepEqual([await unreadTotal(b), (await s.ok(b.apiKey, 'list_notifications', {})).unreadCount], [0, 0]);
    });
  });

  describe(`message cooldowns (${backend})`, () => {
    let s: TestServer;
    let n = 0;
    before(async () => {
      s = await startServer(backend, { COOLDOWN_MESSAGE_STRANGER_PER_HOUR: '2' }, { via: 'inject' });
      // The window is a fixed clock hour: do not straddle its end.
      const left = 3_600_000 - (Date.now() % 3_600_000);
      if (left < 15_000) await sleep(left + 100);
    });
    after(() => s.close());
    const agent = (label: string) => s.register(`${label} ${++n}`);
    const send = (from: Registered, to: Registered, body: string) => s.call(from.apiKey, 'send_message', { to: to.slug, body });
    const code = async (p: ReturnType<typeof send>) => {
      const r = await p;
      return r.isError ? (r.inner.error.code as string) : 'ok';
    };

    it('the third message to agents who do not follow you is COOLDOWN; messages to followers are not limited', async () => {
      const [me, t1, t2, fan] = [await agent('Chatty'), await agent('T1'), await agent('T2'), await agent('Fan')];
      await s.ok(fan.apiKey, 'follow', { slug: me.slug });
      assert.equal(await code(send(me, t1, 'one')), 'ok');
      assert.equal(await code(send(me, t2, 'two')), 'ok');
      const r = await send(me, t1, 'three');
      assert.equal(r.inner?.error?.code, 'COOLDOWN');
      const d = r.inner.error.details;
      assert.deepEqual([d.limit, d.max, d.windowSeconds], ['message_stranger', 2, 3600]);
      assert.ok(d.retryAfterSeconds >= 1 && d.retryAfterSeconds <= 3600, String(d.retryAfterSeconds));
      assert.equal(await code(send(me, t2, 'four')), 'COOLDOWN');
      for (const body of ['f1', 'f2', 'f3']) assert.equal(await code(send(me, fan, body)), 'ok');
      const t1Side = await s.ok(t1.apiKey, 'get_home', {});
      assert.equal(t1Side.you.unreadMessages, 1, 'the refused message was not delivered');
    });

    it('refused and duplicate messages do not count against the limit', async () => {
      const [me, closed, t1, t2] = [await agent('Polite'), await agent('Closed'), await agent('U1'), await agent('U2')];
      await s.ok(closed.apiKey, 'update_my_profile', { acceptMessages: 'none' });
      for (let i = 0; i < 3; i++) assert.equal(await code(send(me, closed, `try ${i}`)), 'FORBIDDEN');
      assert.equal(await code(send(me, t1, 'same')), 'ok');
      assert.equal(await code(send(me, t1, 'same')), 'DUPLICATE_CONTENT');
      assert.equal(await code(send(me, t2, 'second stranger')), 'ok');
      assert.equal(await code(send(me, t2, 'third stranger')), 'COOLDOWN');
    });
  });
}

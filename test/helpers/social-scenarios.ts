/**
 * The social layer's concurrency scenarios, shared by test/social-concurrency.test.ts
 * (one server per backend, in npm test) and test/slow/social-concurrency-processes.test.ts (two
 * server processes on one database, in npm run test:slow). See the first for what they prove.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Client, Registered } from './server.js';

export const N = 50;
/** Follows racing the marks, and how many marks. */
const RACE_FOLLOWS = 40;
const RACE_MARKS = 20;
/** The race's window is a few statements wide: several rounds make a lost or doubled count likely to show. */
const RACE_ROUNDS = Number(process.env.SOCIAL_RACE_ROUNDS ?? 2);

/** The client that sends request i (round-robin over the servers). */
const via = (clients: Client[], i: number) => clients[i % clients.length]!;

/** Every item of a paged list tool, following nextCursor. */
async function pageAll(c: Client, key: string, tool: string, input: Record<string, unknown>, limit: number): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await c.ok(key, tool, { ...input, limit, ...(cursor ? { cursor } : {}) });
    assert.ok(r.items.length <= limit, `${tool}: a page holds at most ${limit}`);
    items.push(...r.items);
    if (r.nextCursor === null) return items;
    cursor = r.nextCursor;
  }
  throw new Error(`${tool}: more than 100 pages`);
}

export interface Agents {
  followers: Registered[];
}

export async function registerAll(clients: Client[], prefix: string, n: number): Promise<Registered[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => via(clients, i).register(`${prefix} ${i}`)));
}

async function fiftyFollows(clients: Client[], agents: Agents): Promise<void> {
  const c0 = clients[0]!;
  const [target] = await registerAll(clients, 'Popular Target', 1);
  const results = await Promise.all(agents.followers.map((f, i) => via(clients, i).call(f.apiKey, 'follow', { slug: target!.slug })));
  for (const r of results) assert.equal(r.inner?.success, true, JSON.stringify(r.body));
  assert.ok(
    results.every((r) => r.inner.changed === true),
    'every follow was new',
  );

  for (const c of clients) {
    const seen = await c.ok(agents.followers[0]!.apiKey, 'get_agent', { slug: target!.slug });
    assert.equal(seen.profile.counts.followerCount, N, 'followers on every instance');
  }
  const mine = await c0.ok(target!.apiKey, 'get_my_profile');
  assert.equal(mine.profile.counts.followerCount, N);
  const notes = await c0.ok(target!.apiKey, 'list_notifications', { limit: 1 });
  assert.equal(notes.unreadCount, N);
  const listed = await pageAll(c0, target!.apiKey, 'list_notifications', { unreadOnly: true }, 9);
  assert.equal(listed.length, N, 'one unread notification per follow');
  assert.deepEqual(new Set(listed.map((n) => n.type)), new Set(['follow']));
  assert.equal(new Set(listed.map((n) => n.actor.slug)).size, N);
  const home = await via(clients, 1).ok(target!.apiKey, 'get_home');
  assert.equal(home.you.followerCount, N);
  assert.equal(home.you.unreadNotifications, N);

  // Paged in 8 pages of up to 7: every follower exactly once, although many share a millisecond.
  const pages = await pageAll(c0, target!.apiKey, 'list_followers', {}, 7);
  const slugs = pages.map((e) => e.agent.slug);
  assert.equal(slugs.length, N);
  assert.deepEqual([...slugs].sort(), agents.followers.map((f) => f.slug).sort());
  // Each follower follows one agent more.
  for (const f of agents.followers.slice(0, 3)) {
    assert.equal((await c0.ok(f.apiKey, 'get_my_profile')).profile.counts.followingCount, 1);
  }
}

async function fiftyMessages(clients: Client[]): Promise<void> {
  const c0 = clients[0]!;
  const [sender, recipient] = await registerAll(clients, 'Messenger', 2);
  // The recipient follows the sender: the stranger limit (20 per hour) does not apply.
  await c0.ok(recipient!.apiKey, 'follow', { slug: sender!.slug });
  const bodies = Array.from({ length: N }, (_, i) => `message ${i} of the burst`);
  const results = await Promise.all(bodies.map((body, i) => via(clients, i).call(sender!.apiKey, 'send_message', { to: recipient!.slug, body })));
  for (const r of results) assert.equal(r.inner?.success, true, JSON.stringify(r.body));
  assert.equal(new Set(results.map((r) => r.inner.conversationId)).size, 1, 'one conversation for the pair');
  assert.equal(new Set(results.map((r) => r.inner.messageId)).size, N);
  const conversationId: string = results[0]!.inner.conversationId;

  for (const c of clients) {
    const home = await c.ok(recipient!.apiKey, 'get_home');
    assert.equal(home.you.unreadMessages, N, 'get_home on every instance');
    assert.deepEqual(
      home.unreadConversations.map((x: any) => [x.conversationId, x.unreadCount]),
      [[conversationId, N]],
    );
    const convs = await c.ok(recipient!.apiKey, 'list_conversations');
    assert.deepEqual(
      convs.items.map((x: any) => [x.conversationId, x.with.slug, x.unreadCount]),
      [[conversationId, sender!.slug, N]],
    );
  }
  // Counted once, in the conversation: the burst makes no notification.
  const notes = await pageAll(c0, recipient!.apiKey, 'list_notifications', { types: ['message'] }, 25);
  assert.equal(notes.length, 0, JSON.stringify(notes));
  // The sender has nothing unread.
  assert.equal((await c0.ok(sender!.apiKey, 'list_conversations')).items[0].unreadCount, 0);

  const read = await via(clients, 1).ok(recipient!.apiKey, 'get_conversation', { with: sender!.slug, limit: 100 });
  assert.equal(read.conversationId, conversationId);
  assert.equal(read.messages.length, N);
  assert.equal(read.unreadCount, 0);
  assert.deepEqual(read.messages.map((m: any) => m.body).sort(), [...bodies].sort());
  assert.ok(read.messages.every((m: any) => m.from === sender!.slug && m.trust === 'third_party'));
  assert.deepEqual(read.messages.map((m: any) => m.id).sort(), results.map((r) => r.inner.messageId).sort(), 'the ids each send answered');
  for (const c of clients) {
    assert.equal((await c.ok(recipient!.apiKey, 'get_home')).you.unreadMessages, 0);
    assert.equal((await c.ok(recipient!.apiKey, 'list_conversations')).items[0].unreadCount, 0);
  }
}

/** The unread notifications the agent can list, and the unreadCount the same calls report. */
async function unreadState(c: Client, key: string): Promise<{ listed: number; unreadCount: number; home: number }> {
  const listed = await pageAll(c, key, 'list_notifications', { unreadOnly: true }, 100);
  const { unreadCount } = await c.ok(key, 'list_notifications', { limit: 1 });
  const home = (await c.ok(key, 'get_home')).you.unreadNotifications;
  return { listed: listed.length, unreadCount, home };
}

async function marksRacingFollows(clients: Client[], agents: Agents, round: number): Promise<void> {
  const c0 = clients[0]!;
  const [target] = await registerAll(clients, `Busy Target ${round}`, 1);
  const key = target!.apiKey;
  // A few unread before the race, so the first marks have something to mark.
  for (const f of agents.followers.slice(0, 3)) await c0.ok(f.apiKey, 'follow', { slug: target!.slug });
  const racers = agents.followers.slice(3, 3 + RACE_FOLLOWS);
  const calls: Promise<any>[] = [];
  racers.forEach((f, i) => {
    calls.push(via(clients, i).call(f.apiKey, 'follow', { slug: target!.slug }));
    if (i % (RACE_FOLLOWS / RACE_MARKS) === 0) calls.push(via(clients, i + 1).call(key, 'mark_notifications_read', { all: true }));
  });
  const results = await Promise.all(calls);
  for (const r of results) assert.equal(r.inner?.success, true, JSON.stringify(r.body));
  const marks = results.filter((r) => 'marked' in r.inner);
  assert.equal(marks.length, RACE_MARKS);
  const totalMarked = marks.reduce((n, r) => n + (r.inner.marked as number), 0);

  const after = await unreadState(c0, key);
  assert.equal(after.unreadCount, after.listed, `unreadCount ${after.unreadCount} vs ${after.listed} unread listed`);
  assert.equal(after.home, after.listed);
  // No notification lost or counted twice: marked + still unread = every follow.
  assert.equal(totalMarked + after.listed, 3 + RACE_FOLLOWS, `marked ${totalMarked}, unread ${after.listed}`);
  const all = await pageAll(c0, key, 'list_notifications', {}, 100);
  assert.equal(all.length, 3 + RACE_FOLLOWS);
  assert.equal(all.filter((n) => !n.read).length, after.listed);
  for (const c of clients) assert.equal((await c.ok(key, 'list_notifications', { limit: 1 })).unreadCount, after.listed);

  const done = await via(clients, 1).ok(key, 'mark_notifications_read', { all: true });
  assert.deepEqual([done.marked, done.unreadCount], [after.listed, 0]);
  assert.deepEqual(await unreadState(c0, key), { listed: 0, unreadCount: 0, home: 0 });
}

/** R blocks Y while reading Y's conversation and marking everything read; X's 3 messages stay unread. */
async function blockRacingReads(clients: Client[], round: number): Promise<void> {
  const c0 = clients[0]!;
  const [r, x, y] = await registerAll(clients, `Blocker ${round}`, 3);
  await c0.ok(r!.apiKey, 'follow', { slug: y!.slug });
  await c0.ok(y!.apiKey, 'follow', { slug: r!.slug });
  await c0.ok(x!.apiKey, 'follow', { slug: r!.slug });
  for (let i = 0; i < 3; i++) await c0.ok(x!.apiKey, 'send_message', { to: r!.slug, body: `from x ${i}` });
  for (let i = 0; i < 5; i++) await c0.ok(y!.apiKey, 'send_message', { to: r!.slug, body: `from y ${i}` });
  const calls: Array<[string, Record<string, unknown>]> = [
    ['get_conversation', { with: y!.slug }],
    ['mark_notifications_read', { all: true }],
    ['block', { slug: y!.slug }],
    ['get_conversation', { with: y!.slug }],
    ['mark_notifications_read', { all: true }],
  ];
  const results = await Promise.all(calls.map(([tool, input], i) => via(clients, i).call(r!.apiKey, tool, input)));
  results.forEach((res, i) => assert.equal(res.inner?.success, true, `${calls[i]![0]}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`));

  const home = await c0.ok(r!.apiKey, 'get_home');
  const convs = await c0.ok(r!.apiKey, 'list_conversations');
  assert.deepEqual(
    convs.items.map((c: any) => [c.with.slug, c.unreadCount]),
    [[x!.slug, 3]],
    "Y's conversation is hidden, X's unread",
  );
  assert.equal(home.you.unreadMessages, 3);
  const notes = await c0.ok(r!.apiKey, 'list_notifications', { unreadOnly: true, limit: 100 });
  assert.deepEqual([notes.unreadCount, notes.items.length, home.you.unreadNotifications], [0, 0, 0]);
  assert.deepEqual(
    (await c0.ok(r!.apiKey, 'list_blocked')).items.map((e: any) => e.agent.slug),
    [y!.slug],
  );
}

export function scenarios(clients: () => Client[], agents: Agents): void {
  it(`${N} concurrent follows of one agent: followers ${N}, ${N} unread notifications, list_followers pages to the ${N}`, () =>
    fiftyFollows(clients(), agents));
  it(`${N} concurrent messages to one agent: unread ${N} (get_home, list_conversations), then get_conversation reads ${N}, unread 0`, () =>
    fiftyMessages(clients()));
  it(`${RACE_MARKS} mark_notifications_read {all: true} racing ${RACE_FOLLOWS} follows (${RACE_ROUNDS} rounds): unreadCount = the unread notifications listed`, async () => {
    for (let round = 0; round < RACE_ROUNDS; round++) await marksRacingFollows(clients(), agents, round);
  });
  it(`an agent blocks another while reading its conversation and marking notifications read (${RACE_ROUNDS} rounds): all succeed, counts match`, async () => {
    for (let round = 0; round < RACE_ROUNDS; round++) await blockRacingReads(clients(), round);
  });
}

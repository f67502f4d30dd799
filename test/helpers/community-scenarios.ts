/**
 * The community family's concurrency scenarios, shared by test/community-concurrency.test.ts
 * (one server per backend, npm test) and test/slow/community-concurrency-processes.test.ts (two
 * server processes on one database, test:slow). Requests go round-robin over the clients.
 *
 * - 100 agents vote on one post at once, each a random sequence of up/down/none ending in a known
 *   vote, every call sent twice at once (a retry racing its first try): the score is exactly the
 *   sum of the final votes, and so is the author's karma, seen from every instance.
 * - 50 agents comment on one post at once: commentCount is 50 and the thread lists 50.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Client, Registered } from './server.js';

export const VOTERS = 100;
export const COMMENTERS = 50;

const via = (clients: Client[], i: number) => clients[i % clients.length]!;

export async function registerMany(clients: Client[], prefix: string, n: number): Promise<Registered[]> {
  const out: Registered[] = [];
  // In batches: 100 registrations at once would only measure the key hashing queue.
  for (let i = 0; i < n; i += 25) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(25, n - i) }, (_, j) => via(clients, i + j).register(`${prefix} ${i + j}`)))));
  }
  return out;
}

/** A deterministic pseudo-random sequence (the failure, if any, replays). */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => (x = (x * 1103515245 + 12345) >>> 0) / 2 ** 32;
}

export function communityScenarios(clients: () => Client[], name: string) {
  it(`${VOTERS} agents vote on one post at once, with retries racing: score and karma are the sum of the final votes`, async () => {
    const cs = clients();
    const [author] = await registerMany(cs, `Vote Author ${name}`, 1);
    const voters = await registerMany(cs, `Voter ${name}`, VOTERS);
    await cs[0]!.ok(author!.apiKey, 'create_community', { name });
    const post = (await cs[0]!.ok(author!.apiKey, 'create_post', { community: name, title: 'Vote on me' })).post;
    const random = rng(15);
    const dirs = ['up', 'down', 'none'] as const;
    const plans = voters.map(() => Array.from({ length: 1 + Math.floor(random() * 2) }, () => dirs[Math.floor(random() * 3)]!));
    const value = { up: 1, down: -1, none: 0 };
    await Promise.all(
      voters.map(async (v, i) => {
        for (const direction of plans[i]!) {
          const input = { target: post.postId, direction };
          const [a, b] = await Promise.all([via(cs, i).call(v.apiKey, 'vote', input), via(cs, i + 1).call(v.apiKey, 'vote', input)]);
          for (const r of [a, b]) assert.equal(r.inner?.success, true, JSON.stringify(r.body));
          assert.equal([a, b].filter((r) => r.inner.changed).length <= 1, true, 'a retry changes nothing');
        }
      }),
    );
    const expected = plans.reduce((sum, p) => sum + value[p[p.length - 1]!], 0);
    for (const c of cs) {
      assert.equal((await c.ok(voters[0]!.apiKey, 'get_post', { postId: post.postId })).post.score, expected, 'score on every instance');
      assert.equal((await c.ok(voters[0]!.apiKey, 'get_agent', { slug: author!.slug })).profile.karma, expected, 'karma');
    }
    for (const [i, v] of voters.slice(0, 10).entries()) {
      const mine = (await via(cs, i).ok(v.apiKey, 'get_post', { postId: post.postId })).post.yourVote;
      assert.equal(mine, plans[i]![plans[i]!.length - 1]);
    }
  });

  it(`${COMMENTERS} agents comment on one post at once: commentCount ${COMMENTERS}, every comment listed once`, async () => {
    const cs = clients();
    const [author] = await registerMany(cs, `Comment Author ${name}`, 1);
    const commenters = await registerMany(cs, `Commenter ${name}`, COMMENTERS);
    await cs[0]!.ok(author!.apiKey, 'create_community', { name: `${name}-c` });
    const post = (await cs[0]!.ok(author!.apiKey, 'create_post', { community: `${name}-c`, title: 'Talk to me' })).post;
    const results = await Promise.all(commenters.map((c, i) => via(cs, i).call(c.apiKey, 'comment', { postId: post.postId, body: `comment ${i}` })));
    for (const r of results) assert.equal(r.inner?.success, true, JSON.stringify(r.body));
    for (const c of cs) assert.equal((await c.ok(author!.apiKey, 'get_post', { postId: post.postId })).post.commentCount, COMMENTERS);
    const listed = (await cs[0]!.ok(author!.apiKey, 'list_comments', { postId: post.postId, sort: 'old', limit: 100 })).items;
    assert.equal(new Set(listed.map((x: any) => x.commentId)).size, COMMENTERS);
    const notes = await cs[0]!.ok(author!.apiKey, 'list_notifications', { types: ['comment'], limit: 100 });
    assert.equal(notes.items.length, COMMENTERS, 'one notification per comment');
  });
}

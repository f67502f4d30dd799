/**
 * Ranked lists under change (docs/contract/community.md#conventions, §5): walking hot and top lists and a top-sorted
 * thread page by page while other agents vote posts across the cursor and post new ones, every
 * item that existed when the walk began comes exactly once, in the order of the first page's
 * moment (tools/post-ranking.ts). Without the snapshot, a post voted up past the cursor is skipped
 * and one voted down past it comes twice.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const POSTS = 24;
const VOTERS = 8;

for (const backend of backends()) {
  describe(`ranked lists stay stable while agents vote and post (${backend})`, () => {
    let s: TestServer;
    let voters: string[] = [];
    before(async () => {
      s = await startServer(backend, { COOLDOWN_POST_PER_HOUR: '0', COOLDOWN_COMMENT_PER_HOUR: '0', COOLDOWN_VOTE_PER_HOUR: '0' }, { via: 'inject' });
      voters = await Promise.all(Array.from({ length: VOTERS }, async (_, i) => (await s.register(`Rank Voter ${i}`)).apiKey));
    });
    after(() => s.close());

    /** Walks a list by pages of 5, running `between` after each page; returns the ids in order. */
    async function walk(key: string, tool: string, input: object, idOf: (x: any) => string, between: (page: number) => Promise<void>) {
      const ids: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 50; page++) {
        const r = await s.ok(key, tool, { ...input, limit: 5, ...(cursor ? { cursor } : {}) });
        ids.push(...r.items.map(idOf));
        if (!r.nextCursor) return ids;
        cursor = r.nextCursor;
        // The votes start right after the first page, possibly in its millisecond: a first page is
        // read only once the clock has left its snapshot's millisecond (tools/post-ranking.ts).
        await between(page);
      }
      throw new Error('too many pages');
    }

    it("a first page's snapshot is a millisecond already past when the page was read (a vote in it cannot land after the read)", async () => {
      const author = await s.register('Rank Snapshot Author');
      const name = `rank-snap-${backend.slice(0, 2)}`;
      await s.ok(author.apiKey, 'create_community', { name });
      for (let i = 0; i < 3; i++) await s.ok(author.apiKey, 'create_post', { community: name, title: `s${i}` });
      const post = (await s.ok(author.apiKey, 'list_posts', { community: name, sort: 'new', limit: 1 })).items[0].postId;
      await s.ok(author.apiKey, 'comment', { postId: post, body: 'c1' });
      await s.ok(author.apiKey, 'comment', { postId: post, body: 'c2' });
      const snapshotOf = (cursor: string) => {
        const values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
        return values[values.length - 1] as number;
      };
      // In-process calls answer within a millisecond: without the wait most snapshots would be "now".
      for (let i = 0; i < 20; i++) {
        for (const sort of ['hot', 'top'] as const) {
          const page = await s.ok(author.apiKey, 'list_posts', { community: name, sort, limit: 1 });
          const answeredAt = Date.now();
          assert.ok(snapshotOf(page.nextCursor) < answeredAt, `${sort}: snapshot ${snapshotOf(page.nextCursor)}, answered at ${answeredAt}`);
        }
        const thread = await s.ok(author.apiKey, 'list_comments', { postId: post, sort: 'top', limit: 1 });
        assert.ok(snapshotOf(thread.nextCursor) < Date.now());
      }
    });

    for (const sort of ['hot', 'top'] as const) {
      it(`${sort}: every post once, in the first page's order, while posts are voted across the cursor`, async () => {
        const author = await s.register(`Rank Author ${sort}`);
        const name = `rank-${sort}-${backend.slice(0, 2)}`;
        await s.ok(author.apiKey, 'create_community', { name });
        const ids: string[] = [];
        for (let i = 0; i < POSTS; i++) {
          ids.push((await s.ok(author.apiKey, 'create_post', { community: name, title: `p${i}` })).post.postId);
        }
        // A spread of scores: post i gets (i mod 5) up-votes.
        for (const [i, id] of ids.entries()) for (let v = 0; v < i % 5; v++) await s.ok(voters[v]!, 'vote', { target: id, direction: 'up' });
        const reader = voters[VOTERS - 1]!;
        const before = (await s.ok(reader, 'list_posts', { community: name, sort, limit: 100 })).items.map((p: any) => p.postId);
        let flip = 0;
        const walked = await walk(
          reader,
          'list_posts',
          { community: name, sort },
          (p) => p.postId,
          async () => {
            // Move the last post of the initial order to the top and the first to the bottom; post a new one.
            const up = before[before.length - 1 - (flip % 3)]!;
            const down = before[flip % 3]!;
            flip++;
            for (const v of voters.slice(0, VOTERS - 1)) {
              await s.ok(v, 'vote', { target: up, direction: 'up' });
              await s.ok(v, 'vote', { target: down, direction: 'down' });
            }
          },
        );
        assert.deepEqual(walked, before, 'the walk is the order of its first page, each post once');
        // A fresh walk sees the changes.
        const now = (await s.ok(reader, 'list_posts', { community: name, sort, limit: 100 })).items.map((p: any) => p.postId);
        assert.notDeepEqual(now, before);
      });
    }

    it('a thread sorted by top: every comment once while its comments are voted across the cursor', async () => {
      const author = await s.register('Rank Thread Author');
      const name = `rank-thread-${backend.slice(0, 2)}`;
      await s.ok(author.apiKey, 'create_community', { name });
      const post = (await s.ok(author.apiKey, 'create_post', { community: name, title: 'thread' })).post;
      const comments: string[] = [];
      for (let i = 0; i < 16; i++) comments.push((await s.ok(author.apiKey, 'comment', { postId: post.postId, body: `c${i}` })).comment.commentId);
      for (const [i, id] of comments.entries()) for (let v = 0; v < i % 4; v++) await s.ok(voters[v]!, 'vote', { target: id, direction: 'up' });
      const reader = voters[VOTERS - 1]!;
      const before = (await s.ok(reader, 'list_comments', { postId: post.postId, sort: 'top', limit: 100 })).items.map((c: any) => c.commentId);
      let flip = 0;
      const walked = await walk(
        reader,
        'list_comments',
        { postId: post.postId, sort: 'top' },
        (c) => c.commentId,
        async () => {
          const up = before[before.length - 1 - flip]!;
          flip++;
          for (const v of voters.slice(0, VOTERS - 1)) await s.ok(v, 'vote', { target: up, direction: 'up' });
          await s.ok(author.apiKey, 'comment', { postId: post.postId, body: `late ${flip}` });
        },
      );
      assert.deepEqual(walked, before);
    });
  });
}

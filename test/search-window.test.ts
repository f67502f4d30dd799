/**
 * `search`'s rank window (store/search.ts, SEARCH_RANK_WINDOW): a query ranks at most the window's
 * number of matches, the most recently changed ones the caller may see, and says so
 * (`exhaustive: false`); a narrower query ranks everything again; a changed document is the newest;
 * and the window is taken after visibility, so other agents' newer documents never push the
 * caller's own matches out of it. Over HTTP, on both backends, with a window of 100.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const WINDOW = 100;

for (const backend of backends()) {
  describe(`search: the rank window (${backend})`, () => {
    let s: TestServer;
    let alice: string;
    let bob: string;
    let carol: string;
    const bulk = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({ path: `${prefix}/f${i}.txt`, content: `zebra number ${i} and some plain words\n` }));
    const search = (key: string, input: object) => s.ok(key, 'search', { types: ['files'], ...input });
    /** Every page of a query: the paths in order, and what each page said of the ranking. */
    async function all(key: string, input: object): Promise<{ paths: string[]; exhaustive: boolean[] }> {
      const out = { paths: [] as string[], exhaustive: [] as boolean[] };
      let cursor: string | undefined;
      do {
        const r = await search(key, { ...input, limit: 50, ...(cursor ? { cursor } : {}) });
        out.paths.push(...r.items.map((i: { path: string }) => i.path));
        out.exhaustive.push(r.exhaustive);
        cursor = r.nextCursor ?? undefined;
      } while (cursor);
      return out;
    }
    /** Waits until the indexer has reached the last file of a batch (the outbox drains in order). */
    async function indexed(key: string, path: string) {
      const deadline = Date.now() + 10_000;
      while ((await search(key, { query: '"zebra number"', path })).items.length === 0) {
        assert.ok(Date.now() < deadline, `${path} indexed`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    before(async () => {
      s = await startServer(backend, { SEARCH_RANK_WINDOW: String(WINDOW) });
      [alice, bob, carol] = [
        (await s.register('Window Alice')).apiKey,
        (await s.register('Window Bob')).apiKey,
        (await s.register('Window Carol')).apiKey,
      ];
      await s.ok(alice, 'write', { path: '/old/best.md', content: 'zebra zebra zebra zebra\n' });
      await s.ok(alice, 'write_files', { files: bulk('/bulk', 120) });
      await s.ok(carol, 'write_files', { files: bulk('/mine', 3) });
      // Newer than carol's, and not hers to see.
      await s.ok(bob, 'write_files', { files: bulk('/private', 150) });
      await indexed(alice, '/bulk/f119.txt');
      await indexed(bob, '/private/f149.txt');
    });
    after(() => s.close());

    it('more matches than the window: the newest ranked, exhaustive false on every page, no result from outside it', async () => {
      const r = await all(alice, { query: 'zebra' });
      assert.equal(r.paths.length, WINDOW, 'the window bounds what one query ranks and pages through');
      assert.ok(!r.paths.includes('/old/best.md'), 'the best match, but the oldest of 121: outside the window');
      assert.ok(
        r.exhaustive.every((e) => e === false),
        JSON.stringify(r.exhaustive),
      );
      assert.equal(new Set(r.paths).size, WINDOW, 'no result twice across pages');
    });

    it('a narrower query ranks every match again (exhaustive true), best first', async () => {
      const old = await search(alice, { query: 'zebra', path: '/old' });
      assert.deepEqual(
        old.items.map((i: { path: string }) => i.path),
        ['/old/best.md'],
      );
      assert.equal(old.exhaustive, true);
      const few = await search(alice, { query: 'zebra number 7' });
      assert.equal(few.exhaustive, true);
      assert.ok(few.items.some((i: { path: string }) => i.path === '/bulk/f7.txt'));
    });

    it('a changed file is the newest: back in the window, and ranked first', async () => {
      await s.ok(alice, 'write', { path: '/old/best.md', content: 'zebra zebra zebra zebra, again\n' });
      const deadline = Date.now() + 5000;
      for (;;) {
        const r = await search(alice, { query: 'zebra', limit: 5 });
        if (r.items[0]?.path === '/old/best.md') {
          assert.equal(r.exhaustive, false);
          assert.equal(r.items[0].version, 2);
          break;
        }
        assert.ok(
          Date.now() < deadline,
          `the rewritten file ranked first within 5 s: ${JSON.stringify(r.items.map((i: { path: string }) => i.path))}`,
        );
        await new Promise((res) => setTimeout(res, 50));
      }
    });

    it("the window holds what the caller may see: another agent's 150 newer matches leave carol her 3, exhaustive", async () => {
      const r = await search(carol, { query: 'zebra' });
      assert.deepEqual(r.items.map((i: { path: string }) => i.path).sort(), ['/mine/f0.txt', '/mine/f1.txt', '/mine/f2.txt']);
      assert.equal(r.exhaustive, true);
      const posts = await s.ok(carol, 'search', { query: 'zebra', types: ['posts'] });
      assert.deepEqual(posts.items, []);
      assert.equal(posts.exhaustive, true, 'no match at all is exhaustive');
    });
  });
}

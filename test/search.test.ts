/**
 * `search`: the query syntax, identifiers, snippets, ranking on a fixed corpus, every
 * filter, paging, the boundaries (folder keys, shares, published pins, blocks, removals: nothing —
 * no result, count or snippet — from what the caller cannot read), freshness, skipped files, the
 * errors, and the rebuild. Over HTTP, on both backends.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import path from 'node:path';
import { ftsSegmentCount } from '../src/store/search-index.js';
import { compactSearchIndex, drainSearchOutbox } from '../src/tools/search-indexer.js';
import { backends } from './helpers/backends.js';
import { freePort, spawnServer, startServer, type TestServer } from './helpers/server.js';

interface Agent {
  id: string;
  key: string;
  slug: string;
}

for (const backend of backends()) {
  describe(`search (${backend})`, () => {
    let s: TestServer;
    let alice: Agent;
    let bob: Agent;
    let carol: Agent;
    const agent = async (name: string): Promise<Agent> => {
      const r = await s.register(name);
      return { id: r.id, key: r.apiKey, slug: r.slug };
    };
    const find = async (key: string, input: object) => (await s.ok(key, 'search', input)).items as any[];
    const paths = async (key: string, query: string, extra: object = {}) =>
      (await find(key, { query, types: ['files'], ...extra })).map((i) => i.path).sort();

    before(async () => {
      s = await startServer(backend, { SEARCH_MAX_FILE_BYTES: '2000' });
      [alice, bob, carol] = [await agent('Search Alice'), await agent('Search Bob'), await agent('Search Carol')];
      const files: Array<[string, string]> = [
        ['/code/parser.ts', 'export function parseConfig(fooBar) {\n  return foo_bar.baz + HTTPServer;\n}\n'],
        ['/docs/guide.md', 'The config loader reads settings.\nA quick brown fox jumps over the café in Москва.\n'],
        ['/docs/other.md', 'brown quick fox\n'],
        ['/rank/long.md', `needle ${'hay '.repeat(60)}\n`],
        ['/rank/short.md', 'needle\n'],
        ['/rank/many.md', 'needle needle needle\n'],
      ];
      for (const [path, content] of files) await s.ok(alice.key, 'write', { path, content });
    });
    after(() => s.close());

    it('query syntax: words ANDed, "phrase", -exclude, prefix*; AND allowed; identifiers, paths and Unicode words', async () => {
      assert.deepEqual(await paths(alice.key, 'config loader'), ['/docs/guide.md']);
      assert.deepEqual(await paths(alice.key, 'config AND loader'), ['/docs/guide.md']);
      assert.deepEqual(await paths(alice.key, '"quick brown"'), ['/docs/guide.md'], 'a phrase keeps its order');
      assert.deepEqual(await paths(alice.key, 'quick brown'), ['/docs/guide.md', '/docs/other.md']);
      assert.deepEqual(await paths(alice.key, 'fox -guide'), ['/docs/other.md'], "a path's words are searchable, and excluded");
      assert.deepEqual(await paths(alice.key, 'fox -"quick brown"'), ['/docs/other.md']);
      assert.deepEqual(await paths(alice.key, 'pars*'), ['/code/parser.ts']);
      for (const q of ['fooBar', 'foobar', 'bar', 'foo_bar', 'foo.bar', 'HTTPServer', 'server', 'parser.ts', 'code/parser']) {
        assert.deepEqual(await paths(alice.key, q), ['/code/parser.ts'], q);
      }
      for (const q of ['cafe', 'CAFÉ', 'москва']) assert.deepEqual(await paths(alice.key, q), ['/docs/guide.md'], q);
      assert.deepEqual(await paths(alice.key, 'nowhere'), []);
    });

    it('snippets mark the hits in the text as written; ranking: BM25-style, best first', async () => {
      const [hit] = await find(alice.key, { query: 'cafe fox', types: ['files'] });
      assert.equal(hit.path, '/docs/guide.md');
      assert.match(hit.snippet, /«fox».*«café»/);
      assert.equal(hit.trust, 'self');
      assert.equal(hit.version, 1);
      assert.equal(hit.author.slug, alice.slug);
      const byPath = (await find(alice.key, { query: 'parser', types: ['files'] }))[0];
      assert.match(byPath.snippet, /«parser»/, 'found by its path: the path is shown marked');
      const ranked = await find(alice.key, { query: 'needle', types: ['files'] });
      assert.deepEqual(
        ranked.map((i) => i.path),
        ['/rank/many.md', '/rank/short.md', '/rank/long.md'],
        'more hits first, then the shorter text',
      );
      assert.ok(ranked[0].rank > ranked[1].rank && ranked[1].rank > ranked[2].rank);
    });

    it('paging: cursors walk the results once; a cursor of another query is refused', async () => {
      const first = await s.ok(alice.key, 'search', { query: 'needle', limit: 2 });
      assert.equal(first.items.length, 2);
      assert.ok(first.nextCursor);
      const second = await s.ok(alice.key, 'search', { query: 'needle', limit: 2, cursor: first.nextCursor });
      assert.deepEqual(
        second.items.map((i: any) => i.path),
        ['/rank/long.md'],
      );
      assert.equal(second.nextCursor, null);
      await s.fail(alice.key, 'search', { query: 'fox', limit: 2, cursor: first.nextCursor }, 'INVALID_INPUT');
    });

    it('other agents find nothing of private files; shares and published files are found at their mount paths, live', async () => {
      for (const q of ['config', 'needle', 'parseConfig']) assert.deepEqual(await find(bob.key, { query: q, types: ['files'] }), [], q);
      const share = await s.ok(alice.key, 'share', { path: '/docs', with: bob.slug, permission: 'read' });
      assert.deepEqual(await paths(bob.key, 'quick fox'), [`/shared/${alice.slug}/docs/guide.md`, `/shared/${alice.slug}/docs/other.md`]);
      const [shared] = await find(bob.key, { query: 'loader', types: ['files'] });
      assert.equal(shared.trust, 'third_party');
      assert.deepEqual(await paths(bob.key, 'needle'), [], 'only the shared subtree');
      assert.deepEqual(await paths(bob.key, 'fox', { path: `/shared/${alice.slug}/docs` }), [
        `/shared/${alice.slug}/docs/guide.md`,
        `/shared/${alice.slug}/docs/other.md`,
      ]);
      assert.deepEqual(await paths(bob.key, 'fox', { path: `/published/${alice.slug}` }), []);
      await s.ok(alice.key, 'revoke_share', { shareId: share.share.shareId });
      assert.deepEqual(await paths(bob.key, 'fox'), [], 'revoked: gone at once');

      const pub = await s.ok(alice.key, 'publish', { path: '/code/parser.ts', title: 'A config parser', description: 'parses configs' });
      assert.deepEqual(await paths(bob.key, 'fooBar'), [`/published/${alice.slug}/code/parser.ts`]);
      const items = await find(bob.key, { query: 'config parser', types: ['published'] });
      assert.deepEqual(
        items.map((i) => [i.type, i.id, i.title, i.publicPath]),
        [['published', pub.published.publishedId, 'A config parser', `/published/${alice.slug}/code/parser.ts`]],
      );
      assert.equal(items[0].publicPath, pub.published.publicPath, 'the path publish answered: read it there');
      // The published version is pinned: a newer head is not shown to others (its words would leak).
      await s.ok(alice.key, 'write', { path: '/code/parser.ts', content: 'export const secretSauce = 1;\n' });
      assert.deepEqual(await paths(bob.key, 'secretSauce'), []);
      assert.deepEqual(await paths(bob.key, 'fooBar'), [], 'the index holds the head only: the pinned version is not searchable');
      assert.deepEqual(await paths(alice.key, 'secretSauce'), ['/code/parser.ts']);
      await s.ok(alice.key, 'unpublish', { publishedId: pub.published.publishedId });
      assert.deepEqual(await find(bob.key, { query: 'config parser', types: ['published'] }), []);
    });

    it('a folder key finds its own files inside its folder only; OUTSIDE_KEY_FOLDER for a path outside', async () => {
      const folderKey = await s.addKey(alice.id, { scopes: ['search', 'files:read'], folder: '/docs' });
      assert.deepEqual(await paths(folderKey, 'fox'), ['/docs/guide.md', '/docs/other.md']);
      assert.deepEqual(await paths(folderKey, 'needle'), []);
      await s.ok(bob.key, 'write', { path: '/docs/bob.md', content: 'fox of bob\n' });
      await s.ok(bob.key, 'share', { path: '/docs', with: alice.slug, permission: 'read' });
      assert.deepEqual(await paths(alice.key, 'bob'), [`/shared/${bob.slug}/docs/bob.md`], 'the full key sees the share');
      assert.deepEqual(await paths(folderKey, 'bob'), [], 'the folder key does not');
      await s.fail(folderKey, 'search', { query: 'needle', path: '/rank' }, 'OUTSIDE_KEY_FOLDER');
      await s.fail(folderKey, 'search', { query: 'bob', path: `/shared/${bob.slug}` }, 'OUTSIDE_KEY_FOLDER');
      const noScope = await s.addKey(alice.id, { scopes: ['files:read'] });
      await s.fail(noScope, 'search', { query: 'fox' }, 'INSUFFICIENT_SCOPE');
    });

    it('posts, comments, agents, communities: found with their ids; filters; removed and deleted ones disappear; blocks hide', async () => {
      await s.ok(alice.key, 'update_my_profile', { description: 'I write zebrafish parsers.' });
      await s.ok(alice.key, 'create_community', {
        name: `zebra-${backend.slice(0, 2)}`,
        displayName: 'Zebrafish lab',
        description: 'All about zebrafish.',
      });
      const community = `zebra-${backend.slice(0, 2)}`;
      await s.ok(carol.key, 'join_community', { community: community });
      const post = (
        await s.ok(carol.key, 'create_post', { community, title: 'Zebrafish genome notes', body: 'The zebrafish genome has many genes.' })
      ).post;
      const comment = await s.ok(bob.key, 'comment', { postId: post.postId, body: 'Which zebrafish strain did you use?' });
      const all = await find(alice.key, { query: 'zebrafish' });
      assert.deepEqual(all.map((i) => i.type).sort(), ['agent', 'comment', 'community', 'post']);
      assert.equal(all.find((i) => i.type === 'agent').id, alice.slug);
      assert.equal(all.find((i) => i.type === 'comment').id, comment.comment.commentId);
      assert.equal(all.find((i) => i.type === 'post').id, post.postId);
      assert.match(all.find((i) => i.type === 'community').id, /^com_/);
      const p = all.find((i) => i.type === 'post');
      assert.equal(p.title, 'Zebrafish genome notes');
      assert.equal(p.community, community);
      assert.equal(p.trust, 'third_party');
      assert.match(p.snippet, /«Zebrafish»/);
      assert.equal(all.find((i) => i.type === 'comment').postId, post.postId);
      // Filters.
      assert.deepEqual(
        (await find(alice.key, { query: 'zebrafish', types: ['posts', 'comments'], author: bob.slug })).map((i) => i.type),
        ['comment'],
      );
      assert.deepEqual((await find(alice.key, { query: 'zebrafish', community })).map((i) => i.type).sort(), ['comment', 'community', 'post']);
      assert.deepEqual(await find(alice.key, { query: 'zebrafish', since: new Date(Date.now() + 60_000).toISOString() }), []);
      await s.fail(alice.key, 'search', { query: 'zebrafish', author: 'nobody-here' }, 'NOT_FOUND');
      await s.fail(alice.key, 'search', { query: 'zebrafish', community: 'no-such-one' }, 'NOT_FOUND');
      // A moderator removes the post: gone for others, still found by its author.
      await s.ok(alice.key, 'moderate', { community, action: 'remove', target: post.postId, reason: 'test' });
      assert.deepEqual((await find(bob.key, { query: 'genome', types: ['posts'] })).length, 0);
      assert.deepEqual(
        (await find(carol.key, { query: 'genome', types: ['posts'] })).map((i) => i.id),
        [post.postId],
      );
      assert.deepEqual(await find(bob.key, { query: 'strain', types: ['comments'] }), [], "a removed post's comments go with it");
      await s.ok(alice.key, 'moderate', { community, action: 'restore', target: post.postId });
      assert.equal((await find(bob.key, { query: 'genome', types: ['posts'] })).length, 1);
      // A block hides the blocked agent's things from the blocker.
      await s.ok(alice.key, 'block', { slug: carol.slug });
      assert.deepEqual(await find(alice.key, { query: 'genome' }), []);
      assert.equal((await find(bob.key, { query: 'genome' })).length, 1);
      // Deleting the post: gone for everyone.
      await s.ok(carol.key, 'delete_post', { postId: post.postId });
      assert.deepEqual(await find(carol.key, { query: 'genome', types: ['posts'] }), []);
    });

    it('each result type needs its read scope: left out without it, and the answer says which and why', async () => {
      const community = `tapir-${backend.slice(0, 2)}`;
      await s.ok(bob.key, 'update_my_profile', { description: 'I study tapir herds.' });
      await s.ok(bob.key, 'create_community', { name: community, displayName: 'Tapir lab', description: 'All about tapir.' });
      const post = (await s.ok(bob.key, 'create_post', { community, title: 'Tapir notes', body: 'The tapir is shy.' })).post;
      await s.ok(bob.key, 'comment', { postId: post.postId, body: 'An tapir comment.' });
      await s.ok(bob.key, 'write', { path: '/tapir.md', content: 'tapir file\n' });
      await s.ok(bob.key, 'publish', { path: '/tapir.md', title: 'Tapir file', description: 'tapir' });
      await s.ok(alice.key, 'write', { path: '/tapir-mine.md', content: 'my tapir\n' });
      const typesOf = (r: any) => r.items.map((i: any) => i.type).sort();
      const full = await s.ok(alice.key, 'search', { query: 'tapir' });
      assert.deepEqual(typesOf(full), ['agent', 'comment', 'community', 'file', 'file', 'post', 'published']);
      assert.equal(full.omittedTypes, undefined, 'nothing left out for a key with every read scope');

      const filesOnly = await s.addKey(alice.id, { scopes: ['files:read', 'search'] });
      const r = await s.ok(filesOnly, 'search', { query: 'tapir' });
      assert.deepEqual(typesOf(r), ['file', 'file'], 'no posts, comments, published items, communities or agents');
      assert.deepEqual(r.omittedTypes, [
        { type: 'posts', missingScope: 'community:read' },
        { type: 'comments', missingScope: 'community:read' },
        { type: 'agents', missingScope: 'agents:read' },
        { type: 'communities', missingScope: 'community:read' },
        { type: 'published', missingScope: 'community:read' },
      ]);
      const asked = await s.ok(filesOnly, 'search', { query: 'tapir', types: ['files', 'published'] });
      assert.deepEqual(typesOf(asked), ['file', 'file']);
      assert.deepEqual(asked.omittedTypes, [{ type: 'published', missingScope: 'community:read' }]);
      const none = await s.fail(filesOnly, 'search', { query: 'tapir', types: ['posts', 'comments'] }, 'INSUFFICIENT_SCOPE');
      assert.deepEqual(none.details.missing, ['community:read']);

      const communityOnly = await s.addKey(alice.id, { scopes: ['community:read', 'search'] });
      const c = await s.ok(communityOnly, 'search', { query: 'tapir' });
      assert.deepEqual(typesOf(c), ['comment', 'community', 'post', 'published'], 'no files without files:read');
      assert.deepEqual(c.omittedTypes, [
        { type: 'files', missingScope: 'files:read' },
        { type: 'agents', missingScope: 'agents:read' },
      ]);
      await s.fail(communityOnly, 'search', { query: 'tapir', path: `/published/${bob.slug}` }, 'INSUFFICIENT_SCOPE');
      const agentsOnly = await s.addKey(alice.id, { scopes: ['agents:read', 'search'] });
      assert.deepEqual(typesOf(await s.ok(agentsOnly, 'search', { query: 'tapir' })), ['agent']);
    });

    it('results the second stage drops (removed posts outranking the rest) are replaced: pages stay full', async () => {
      const community = `quokka-${backend.slice(0, 2)}`;
      await s.ok(alice.key, 'create_community', { name: community, displayName: 'Quokkas', description: 'Small marsupials.' });
      await s.ok(carol.key, 'join_community', { community: community });
      const post = async (title: string, body: string) => (await s.ok(carol.key, 'create_post', { community, title, body })).post.postId as string;
      // Six posts rank above the three others (more hits, shorter); a moderator removes them.
      const removed = [];
      for (let i = 0; i < 6; i++) removed.push(await post(`quokka ${i}`, 'quokka quokka quokka'));
      const kept = [];
      for (let i = 0; i < 3; i++)
        kept.push(await post(`Notes ${i}`, `A long note on marsupials that names the quokka once, ${'and more words '.repeat(10)}`));
      assert.deepEqual(
        (await find(bob.key, { query: 'quokka', types: ['posts'] }))
          .slice(0, 6)
          .map((i) => i.id)
          .sort(),
        [...removed].sort(),
      );
      for (const target of removed) await s.ok(alice.key, 'moderate', { community, action: 'remove', target, reason: 'test' });
      const first = await s.ok(bob.key, 'search', { query: 'quokka', types: ['posts'], limit: 2 });
      assert.equal(first.items.length, 2, 'a full page though the six best matches are dropped');
      assert.ok(first.nextCursor);
      const second = await s.ok(bob.key, 'search', { query: 'quokka', types: ['posts'], limit: 2, cursor: first.nextCursor });
      assert.deepEqual([...first.items, ...second.items].map((i) => i.id).sort(), [...kept].sort());
      assert.equal(second.nextCursor, null);
      // Their author still finds all nine.
      assert.equal((await find(carol.key, { query: 'quokka', types: ['posts'] })).length, 9);
    });

    it('binary files and files over SEARCH_MAX_FILE_BYTES are not indexed; deletes and moves follow at once', async () => {
      await s.ok(alice.key, 'write', { path: '/big.txt', content: `walrus ${'x '.repeat(1500)}` });
      await s.ok(alice.key, 'write', { path: '/small.txt', content: 'walrus\n' });
      assert.deepEqual(await paths(alice.key, 'walrus'), ['/small.txt']);
      await s.ok(alice.key, 'move', { from: '/small.txt', to: '/moved.txt' });
      assert.deepEqual(await paths(alice.key, 'walrus'), ['/moved.txt']);
      await s.ok(alice.key, 'delete', { path: '/moved.txt' });
      assert.deepEqual(await paths(alice.key, 'walrus'), []);
      await s.ok(alice.key, 'restore', { path: '/moved.txt', version: 1 });
      assert.deepEqual(await paths(alice.key, 'walrus'), ['/moved.txt']);
    });

    it('the background indexer drains the outbox within a second, without a search', async () => {
      await s.ok(alice.key, 'write', { path: '/fresh.md', content: 'narwhal\n' });
      const deadline = Date.now() + 1000;
      while ((await s.store.pendingSearchCount()) > 0) {
        assert.ok(Date.now() < deadline, 'indexed within 1 s');
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.deepEqual(await paths(alice.key, 'narwhal'), ['/fresh.md']);
    });

    it('errors: a query with nothing to find, only exclusions, OR, too long; a bad path; a bad cursor', async () => {
      for (const query of ['!!! ???', '-fox', 'fox OR dog', 'x'.repeat(501), '']) await s.fail(alice.key, 'search', { query }, 'INVALID_INPUT');
      await s.fail(alice.key, 'search', { query: 'fox', types: ['nope'] }, 'INVALID_INPUT');
      await s.fail(alice.key, 'search', { query: 'fox', path: 'a\u0000b' }, 'INVALID_PATH');
      await s.fail(alice.key, 'search', { query: 'fox', cursor: 'garbage' }, 'INVALID_INPUT');
    });

    it('the index rebuilds from the tables (npm run reindex): same answers after', async () => {
      // Scores follow the corpus' statistics (deleted documents count until rebuilt): compare what is found.
      const found = async () => (await find(alice.key, { query: 'fox' })).map((i) => `${i.type} ${i.path ?? i.id} ${i.snippet}`).sort();
      const before = await found();
      assert.ok(before.length >= 3);
      const env = { ...process.env, ...(s.config.databaseUrl ? { DATABASE_URL: s.config.databaseUrl } : { DATA_DIR: s.config.dataDir }) };
      const out = execFileSync(process.execPath, ['dist/src/reindex.js'], { env }).toString();
      assert.match(out, /queued \d+/);
      assert.deepEqual(await found(), before);
    });

    it('indexer batches: cut at their byte budget (the rest next), each thing indexed once however often it changed', async () => {
      // A server whose background indexer waits a minute: the test drives the batches itself.
      const t = await startServer(backend, { SEARCH_INDEX_INTERVAL_MS: '60000', SEARCH_MAX_FILE_BYTES: '2000' });
      try {
        const r = await t.register('Batch Owner');
        for (let i = 0; i < 6; i++) await t.ok(r.apiKey, 'write', { path: `/b/${i}.md`, content: `kiwi ${i} ${'word '.repeat(100)}` });
        await t.ok(r.apiKey, 'write', { path: '/b/0.md', content: 'kiwi again, shorter' }); // a second outbox row for /b/0.md
        await t.ok(r.apiKey, 'write', { path: '/b/bin', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' });
        await t.ok(r.apiKey, 'delete', { path: '/b/5.md' });
        const queued = await t.store.pendingSearchCount();
        assert.ok(queued >= 10, `${queued} rows queued`);
        // ~500 bytes a file: a 1,200-byte budget takes three files a batch.
        const opts = { maxItems: 200, maxBytes: 1200, maxFileBytes: 2000 };
        const firstBatch = await t.store.indexPending(opts);
        assert.equal(firstBatch.more, true, 'cut at the budget');
        assert.ok(firstBatch.done >= 2 && firstBatch.done < queued, `first batch took ${firstBatch.done} of ${queued}`);
        let batches = 1;
        while ((await t.store.indexPending(opts)).more) assert.ok(++batches < 20);
        assert.equal(await t.store.pendingSearchCount(), 0);
        const found = (await t.ok(r.apiKey, 'search', { query: 'kiwi', types: ['files'] })).items.map((i: any) => `${i.path} ${i.version}`);
        assert.deepEqual(found.sort(), ['/b/0.md 2', '/b/1.md 1', '/b/2.md 1', '/b/3.md 1', '/b/4.md 1']);
      } finally {
        await t.close();
      }
    });

    it('an idle indexer merges the index segments its batches left (SQLite), and nothing is lost by it', async () => {
      // The background loop waits a minute: the test drains and merges through the loop's own functions.
      const t = await startServer(backend, { SEARCH_INDEX_INTERVAL_MS: '60000' });
      const segments = () => {
        const db = new Database(path.join(t.config.dataDir, 'afs.sqlite'), { readonly: true });
        try {
          return ftsSegmentCount(db.prepare('SELECT block FROM search_fts_data WHERE id = 10').pluck().get() as Buffer);
        } finally {
          db.close();
        }
      };
      try {
        const r = await t.register('Merge Owner');
        await drainSearchOutbox(t.store, t.config, 5000); // the agent's own document
        // One batch, so one new segment, per file: FTS5 merges small segments only at 16 (crisismerge).
        for (let i = 0; i < 10; i++) {
          await t.ok(r.apiKey, 'write', { path: `/m/${i}.md`, content: `walrus${i} tundra ${'floe '.repeat(i)}` });
          assert.equal(await drainSearchOutbox(t.store, t.config, 5000), 1);
        }
        await t.ok(r.apiKey, 'delete', { path: '/m/3.md' });
        assert.equal(await drainSearchOutbox(t.store, t.config, 5000), 1);
        const found = async (query: string) => (await t.ok(r.apiKey, 'search', { query, types: ['files'] })).items.map((i: any) => i.path).sort();
        const all = [...Array(10).keys()]
          .filter((i) => i !== 3)
          .map((i) => `/m/${i}.md`)
          .sort();
        assert.deepEqual(await found('tundra'), all);
        if (backend === 'sqlite') {
          // Any two segments of a level (migration 12): FTS5's default, four, left 9 of the bench corpus's 26.
          const db = new Database(path.join(t.config.dataDir, 'afs.sqlite'), { readonly: true });
          assert.equal(db.prepare("SELECT v FROM search_fts_config WHERE k = 'usermerge'").pluck().get(), 2);
          db.close();
          const before = segments();
          assert.ok(before >= 8, `${before} segments after 12 batches`);
          await compactSearchIndex(t.store, 10_000);
          const merged = segments();
          assert.ok(merged <= 2, `${before} segments merged to ${merged}`);
          // Nothing left to merge: the next step says so.
          assert.equal(await t.store.compactSearchIndex({ pages: 64 }), false);
          // Segments left by this process are merged by the next one to start, with nothing to index.
          for (let i = 10; i < 20; i++) {
            await t.ok(r.apiKey, 'write', { path: `/n/${i}.md`, content: `narwhal${i} taiga` });
            assert.equal(await drainSearchOutbox(t.store, t.config, 5000), 1);
          }
          assert.ok(segments() >= 8, `${segments()} segments after ten more batches`);
          const next = await spawnServer({ DATA_DIR: t.config.dataDir, SEARCH_INDEX_INTERVAL_MS: '20' }, await freePort());
          try {
            const deadline = Date.now() + 10_000;
            while (segments() > 2) {
              assert.ok(Date.now() < deadline, `${segments()} segments 10 s after a server started`);
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
          } finally {
            await next.kill('SIGTERM');
          }
          assert.deepEqual(await found('narwhal15'), ['/n/15.md']);
        } else assert.equal(await t.store.compactSearchIndex({ pages: 64 }), false, 'PostgreSQL: GIN has no segments');
        assert.deepEqual(await found('tundra'), all);
        assert.deepEqual(await found('walrus7'), ['/m/7.md']);
        assert.deepEqual(await found('walrus3'), []);
        assert.deepEqual(await found('"tundra floe floe floe floe floe floe floe floe floe"'), ['/m/9.md']);
      } finally {
        await t.close();
      }
    });

    if (backend === 'postgres') {
      it('two server processes on one database: a change through one is searchable through the other within 1 s', async () => {
        const other = await spawnServer({ DATABASE_URL: s.config.databaseUrl! }, await freePort());
        try {
          await other.ok(alice.key, 'write', { path: '/far.md', content: 'okapi\n' });
          // The other process may be draining the outbox (one indexer per database): then within its batch.
          const found = Date.now() + 1000;
          while ((await paths(alice.key, 'okapi')).length === 0) assert.ok(Date.now() < found, 'found within 1 s on this process');
          await s.ok(alice.key, 'delete', { path: '/far.md' });
          const deadline = Date.now() + 1000;
          for (;;) {
            const found = (await other.ok(alice.key, 'search', { query: 'okapi' })).items;
            if (!found.length) break;
            assert.ok(Date.now() < deadline, 'gone within 1 s on the other process');
          }
        } finally {
          await other.kill('SIGTERM');
        }
      });
    }
  });
}

/**
 * Path boundaries in byte order on any database collation: a share of /proj/pub, a publish of
 * /proj/pub and a folder key for /web reach nothing at /proj/PUB, /proj/pub#old, /proj/pub+bak or
 * /WEB — paths a locale's collation (ICU en-US: case and punctuation compare weakly) sorts
 * between "/proj/pub/" and "/proj/pub0". On SQLite, PostgreSQL, and PostgreSQL on an ICU database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { isolationBackends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const NEAR = ['/proj/PUB/secret.md', '/proj/pub#old/notes.md', '/proj/pub+bak/keys.txt', '/proj/pub.md', '/proj/Pub/x.md'];

for (const backend of isolationBackends({ always: true })) {
  describe(`path boundaries in byte order (${backend})`, () => {
    let s: TestServer;
    let owner: { id: string; key: string; slug: string };
    let reader: { key: string; slug: string };
    const paths = async (key: string, extra: object = {}) =>
      ((await s.ok(key, 'search', { query: 'needle', types: ['files'], limit: 50, ...extra })).items as any[]).map((i) => i.path).sort();

    before(async () => {
      s = await startServer(backend);
      const a = await s.register('Collation Owner');
      owner = { id: a.id, key: a.apiKey, slug: a.slug };
      const r = await s.register('Collation Reader');
      reader = { key: r.apiKey, slug: r.slug };
      const all = ['/proj/pub/ok.md', '/web/ok.md', '/WEB/secret.md', '/web#x/secret.md', ...NEAR];
      for (const p of all) await s.ok(owner.key, 'write', { path: p, content: `needle in ${p}\n` });
      // Indexed (a search catches up for a bounded time only; a loaded machine may need more).
      for (let i = 0; (await paths(owner.key)).length < all.length; i++) {
        assert.ok(i < 200, 'the files were never indexed');
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    after(() => s.close());

    if (backend === 'postgres-icu') {
      it('the database compares text by ICU en-US (not bytes)', async () => {
        const c = new pg.Client({ connectionString: s.config.databaseUrl });
        await c.connect();
        try {
          const r = await c.query("SELECT datlocprovider, daticulocale, 'a/B' < 'a/b' AS cased FROM pg_database WHERE datname = current_database()");
          assert.deepEqual(r.rows[0], { datlocprovider: 'i', daticulocale: 'en-US', cased: false });
        } finally {
          await c.end();
        }
      });
    }

    it('a share of /proj/pub: search finds what is under it only', async () => {
      const share = await s.ok(owner.key, 'share', { path: '/proj/pub', with: reader.slug, permission: 'read' });
      assert.deepEqual(await paths(reader.key), [`/shared/${owner.slug}/proj/pub/ok.md`]);
      assert.deepEqual(await paths(reader.key, { path: `/shared/${owner.slug}/proj/pub` }), [`/shared/${owner.slug}/proj/pub/ok.md`]);
      await s.ok(owner.key, 'revoke_share', { shareId: share.share.shareId });
    });

    it('a publish of the directory /proj/pub: search finds what is under it only', async () => {
      const pub = await s.ok(owner.key, 'publish', { path: '/proj/pub', title: 'pub', description: 'the pub folder' });
      assert.deepEqual(await paths(reader.key), [`/published/${owner.slug}/proj/pub/ok.md`]);
      assert.deepEqual(await paths(reader.key, { path: `/published/${owner.slug}/proj/pub` }), [`/published/${owner.slug}/proj/pub/ok.md`]);
      await s.ok(owner.key, 'unpublish', { publishedId: pub.published.publishedId });
    });

    it('a folder key for /web (and one for /proj/pub) finds its folder only', async () => {
      const web = await s.addKey(owner.id, { scopes: ['search', 'files:read'], folder: '/web' });
      assert.deepEqual(await paths(web), ['/web/ok.md']);
      const pubKey = await s.addKey(owner.id, { scopes: ['search', 'files:read'], folder: '/proj/pub' });
      assert.deepEqual(await paths(pubKey), ['/proj/pub/ok.md']);
      assert.deepEqual(await paths(owner.key, { path: '/proj/pub' }), ['/proj/pub/ok.md'], 'a full key asking for a subtree');
    });
  });
}

/**
 * The web UI's HTTP side, on both backends, without a browser: who gets the page and who keeps
 * markdown, JSON or raw bytes; the headers every page carries (CSP, Vary, caching); the hashed
 * assets; and the keyless public tool route: only its read-only tools, only /published.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PAGE_CSP, prefersHtml } from '../src/http/ui.js';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

function assertPage(res: Response, body: string, status = 200) {
  assert.equal(res.status, status);
  assert.match(res.headers.get('content-type')!, /^text\/html/);
  assert.equal(res.headers.get('content-security-policy'), PAGE_CSP);
  assert.equal(res.headers.get('cache-control'), 'no-cache');
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(res.headers.get('x-frame-options'), 'DENY');
  assert.match(res.headers.get('vary')!, /Accept/);
  // No inline script or style: every <script> has a src, and nothing carries a style attribute.
  assert.doesNotMatch(body, /<script(?![^>]*\ssrc=)[^>]*>/);
  assert.doesNotMatch(body, /<style|\sstyle=/);
}

describe('prefersHtml', () => {
  it('is true for browsers navigating, false for curl, fetch, agents and images', () => {
    assert.equal(prefersHtml(BROWSER_ACCEPT), true);
    assert.equal(prefersHtml('text/html'), true);
    assert.equal(prefersHtml(undefined), false);
    assert.equal(prefersHtml('*/*'), false);
    assert.equal(prefersHtml('application/json'), false);
    assert.equal(prefersHtml('text/markdown, text/html;q=0.5'), false);
    assert.equal(prefersHtml('image/avif,image/webp,image/apng,image/*,*/*;q=0.8'), false);
  });
});

for (const backend of backends()) {
  describe(`web UI over HTTP (${backend})`, () => {
    let s: TestServer;
    let key: string;
    let slug: string;
    before(async () => {
      s = await startServer(backend);
      const reg = await s.register('Pub Lisher');
      key = reg.apiKey;
      slug = reg.slug;
      await s.ok(key, 'write', { path: '/out/report.md', content: '# Report\n' });
      await s.ok(key, 'write', { path: '/private/secret.md', content: 'secret\n' });
      await s.ok(key, 'publish', { path: '/out/report.md', title: 'Report' });
      await s.ok(key, 'write', { path: '/out/page.html', content: '<script>alert(1)</script>\n' });
      await s.ok(key, 'publish', { path: '/out/page.html', title: 'Page' });
    });
    after(() => s.close());

    it('GET / is the page for a browser and stays markdown or JSON for everyone else, with Vary: Accept', async () => {
      const page = await fetch(`${s.url}/`, { headers: { accept: BROWSER_ACCEPT } });
      assertPage(page, await page.text());
      const md = await fetch(`${s.url}/`);
      assert.match(md.headers.get('content-type')!, /^text\/markdown/);
      assert.match(md.headers.get('vary')!, /Accept/);
      const json = await fetch(`${s.url}/`, { headers: { accept: 'application/json' } });
      assert.match(json.headers.get('content-type')!, /^application\/json/);
    });

    it("the app's routes answer the page (BASE_URL in it); its assets are hashed and cached for a year", async () => {
      // A published file has no raw route: its HTML never comes back as a page of this origin.
      const published = [`/published/${slug}/out/report.md`, `/published/${slug}/out/page.html`];
      const absent = ['/a/someone', '/c/x', '/posts/pst_x'];
      for (const path of ['/console', '/console/files/a%20b/c.md', ...absent, ...published, '/c']) {
        const res = await fetch(`${s.url}${path}`);
        const body = await res.text();
        // Public pages are rendered on the server: what does not exist is a 404 page.
        assertPage(res, body, absent.includes(path) ? 404 : 200);
        // Its text may show (escaped), never its markup.
        assert.ok(!body.includes('<script>alert(1)'), path);
        assert.ok(body.includes(`<meta name="afs-base-url" content="${s.config.baseUrl}"`), path);
      }
      const body = await (await fetch(`${s.url}/console`)).text();
      const assets = [...body.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
      assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), assets.join());
      for (const a of assets) {
        assert.match(a, /-[A-Za-z0-9_-]{8,}\.(js|css)$/, 'hashed name');
        const res = await fetch(`${s.url}${a}`);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
        assert.match(res.headers.get('content-type')!, a.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      }
      const missing = await s.raw('/assets/nope-12345678.js');
      assert.equal(missing.status, 404);
      assert.equal(missing.inner.error.code, 'NOT_FOUND');
      // Nothing loads from another origin: no absolute URL in the page or its scripts.
      const js = await (await fetch(`${s.url}${assets.find((a) => a.endsWith('.js'))}`)).text();
      assert.doesNotMatch(js, /https?:\/\/(?!www\.w3\.org)[a-z0-9.-]+\.[a-z]{2,}\//i);
    });

    it('/l/{token}: a browser gets the page, everything else and ?raw get the bytes, all with Vary: Accept', async () => {
      const created = await s.ok(key, 'create_link', { path: '/out/report.md' });
      const link = { link: { url: s.url + new URL(created.link.url).pathname } };
      const page = await fetch(link.link.url, { headers: { accept: BROWSER_ACCEPT } });
      assertPage(page, await page.text());
      const raw = await fetch(`${link.link.url}?raw`, { headers: { accept: BROWSER_ACCEPT } });
      assert.equal(await raw.text(), '# Report\n');
      assert.match(raw.headers.get('vary')!, /Accept/);
      assert.equal(raw.headers.get('content-security-policy'), "sandbox; default-src 'none'");
      assert.equal(raw.headers.get('content-disposition'), "inline; filename*=UTF-8''report.md");
      const plain = await fetch(link.link.url);
      assert.equal(await plain.text(), '# Report\n');
      assert.match(plain.headers.get('vary')!, /Accept/);
    });

    it('POST /api/public/{tool}: the public read tools without a key, in the envelope', async () => {
      const agents = await s.raw('/api/public/list_agents', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(agents.status, 200);
      assert.ok(agents.inner.items.some((a: { slug: string }) => a.slug === slug));
      const agent = await s.raw('/api/public/get_agent', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ slug }),
      });
      assert.equal(agent.inner.isFollowing, false);
      assert.equal(agent.inner.profile.trust, 'third_party');
      const read = await s.raw('/api/public/read', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ path: `/published/${slug}/out/report.md` }),
      });
      assert.equal(read.inner.content, '# Report\n');
    });

    it('POST /api/public/{tool}: nothing private, nothing written, no other tool', async () => {
      const post = (tool: string, input: unknown) =>
        s.raw(`/api/public/${tool}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
      const own = await post('read', { path: '/private/secret.md' });
      assert.equal(own.inner.error.code, 'OUTSIDE_KEY_FOLDER');
      const unpublished = await post('read', { path: `/published/${slug}/private/secret.md` });
      assert.equal(unpublished.inner.error.code, 'NOT_FOUND');
      const listing = await post('list', { path: '/', recursive: true });
      assert.ok(!JSON.stringify(listing.body).includes('secret'));
      for (const tool of ['write', 'delete', 'get_key_info', 'list_keys', 'create_key', 'get_home', 'bash', 'search', 'list_notifications', 'vote']) {
        const r = await post(tool, {});
        assert.equal(r.status, 404, tool);
        assert.equal(r.inner.error.code, 'UNKNOWN_TOOL', tool);
      }
      const stat = await s.ok(key, 'stat', { path: '/private/secret.md' });
      assert.equal(stat.version, 1);
    });

    it('POST /api/public/{tool} is budgeted per client address', async () => {
      const limited = await startServer(backend, { RATE_LIMIT_PER_MINUTE: '3' });
      try {
        const codes: number[] = [];
        for (let i = 0; i < 5; i++) {
          codes.push(
            (await limited.raw('/api/public/list_agents', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status,
          );
        }
        assert.deepEqual(codes, [200, 200, 200, 429, 429]);
      } finally {
        await limited.close();
      }
    });
  });
}

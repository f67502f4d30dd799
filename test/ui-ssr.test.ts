/**
 * The public pages rendered on the server, on both backends, without a browser: what curl with
 * `Accept: text/html` reads (title, author @slug, body text) is in the HTML, an agent's hostile
 * text comes out escaped, unknown pages asked for as HTML are HTML 404s, and the API answers carry
 * each page's webUrl.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PAGE_CSP } from '../src/http/ui.js';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const HTML = 'text/html';
const HOSTILE = `<script>alert("pwn")</script><img src=x onerror=alert(1)>`;

async function page(s: TestServer, path: string, accept = HTML): Promise<{ status: number; body: string; res: Response }> {
  const res = await fetch(`${s.url}${path}`, { headers: { accept } });
  return { status: res.status, body: await res.text(), res };
}

/** The page's HTML holds no markup an agent wrote: only its escaped text. */
function assertEscaped(body: string) {
  assert.ok(!body.includes('<script>alert'), 'no agent script');
  assert.ok(!body.includes('<img src=x'), 'no agent markup');
  assert.ok(body.includes('&lt;script&gt;alert(&quot;pwn&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;'), 'the text, escaped');
  assert.doesNotMatch(body, /<script(?![^>]*\ssrc=)[^>]*>/, 'no inline script');
  assert.doesNotMatch(body, /<[^>]*\s(style|on[a-z]+)=/i, 'no style or handler attribute');
}

for (const backend of backends()) {
  describe(`public pages rendered on the server (${backend})`, () => {
    let s: TestServer;
    let slug: string;
    let key: string;
    let postId: string;
    let publicPath: string;
    const answers: Record<string, any> = {};
    before(async () => {
      s = await startServer(backend);
      const reg = await s.register('Page Writer');
      slug = reg.slug;
      key = reg.apiKey;
      answers.profile = await s.ok(key, 'update_my_profile', { description: `Writes pages. ${HOSTILE}` });
      await s.ok(key, 'write', { path: '/out/notes.md', content: `# Notes\n\nThe notes body line.\n${HOSTILE}\n` });
      answers.publish = await s.ok(key, 'publish', { path: '/out/notes.md', title: `Field notes ${HOSTILE}` });
      publicPath = answers.publish.published.publicPath;
      await s.ok(key, 'create_community', { name: 'pagers', displayName: 'Pagers', description: `About pages. ${HOSTILE}` });
      answers.post = await s.ok(key, 'create_post', {
        community: 'pagers',
        title: `A post title ${HOSTILE}`,
        body: `The post body text.\n\n${HOSTILE}`,
      });
      postId = answers.post.post.postId;
      await s.ok(key, 'comment', { postId, body: `A comment text. ${HOSTILE}` });
    });
    after(() => s.close());

    it('each public page carries its content as escaped HTML in the app page (CSP kept)', async () => {
      const expect: Record<string, string[]> = {
        '/': ['Field notes', `@${slug}`, 'c/pagers'],
        [`/a/${slug}`]: ['Writes pages.', `@${slug}`, 'Field notes', 'A post title'],
        '/c': ['c/pagers', 'About pages.'],
        '/c/pagers': ['c/pagers', 'About pages.', 'A post title', `@${slug}`],
        [`/posts/${postId}`]: ['A post title', `@${slug}`, 'The post body text.', 'A comment text.'],
        [publicPath]: ['The notes body line.', publicPath],
      };
      for (const [path, texts] of Object.entries(expect)) {
        const r = await page(s, path);
        assert.equal(r.status, 200, path);
        assert.equal(r.res.headers.get('content-security-policy'), PAGE_CSP, path);
        assert.match(r.res.headers.get('content-type')!, /^text\/html/, path);
        assert.match(
          r.body,
          /<div id="app"><a class="skip"[\s\S]*<main id="main"[^>]*>[\s\S]+<\/main>/,
          `${path}: content inside the app's mount point`,
        );
        for (const t of texts) assert.ok(r.body.includes(t), `${path} shows ${JSON.stringify(t)}`);
        if (path !== '/c') assertEscaped(r.body);
      }
      const post = await page(s, `/posts/${postId}`);
      assert.match(post.body, /<title>A post title &lt;script&gt;[^<]*· Agent File Service<\/title>/);
    });

    it('pages show only public data; a missing agent, post, community or file is an HTML 404', async () => {
      for (const path of ['/a/nobody-here', '/posts/pst_nothing', '/c/nowhere', `/published/${slug}/out/private.md`, '/no/such/page']) {
        const r = await page(s, path);
        assert.equal(r.status, 404, path);
        assert.match(r.res.headers.get('content-type')!, /^text\/html/, path);
        assert.equal(r.res.headers.get('content-security-policy'), PAGE_CSP, path);
        assert.match(r.body, /<h1>Not found<\/h1>/, path);
      }
      // Clients that do not ask for HTML keep the JSON envelope.
      const json = await s.raw('/no/such/page', { headers: { accept: 'application/json' } });
      assert.equal(json.status, 404);
      assert.equal(json.inner.error.code, 'NOT_FOUND');
      // The console is the app alone: nothing rendered on the server.
      assert.match((await page(s, '/console')).body, /<div id="app"><\/div>/);
    });

    it('API answers carry the webUrl of posts, profiles and published files', async () => {
      const base = s.config.baseUrl;
      const postUrl = `${base}/posts/${postId}`;
      assert.equal(answers.post.post.webUrl, postUrl);
      assert.equal((await s.ok(key, 'get_post', { postId })).post.webUrl, postUrl);
      assert.equal((await s.ok(key, 'list_posts', { community: 'pagers' })).items[0].webUrl, postUrl);
      const profileUrl = `${base}/a/${slug}`;
      assert.equal((await s.ok(key, 'get_agent', { slug })).profile.webUrl, profileUrl);
      assert.equal(answers.profile.profile.webUrl, profileUrl);
      assert.equal((await s.ok(key, 'list_agents', {})).items.find((a: any) => a.slug === slug).webUrl, profileUrl);
      const fileUrl = `${base}${publicPath}`;
      assert.equal(answers.publish.published.webUrl, fileUrl);
      assert.equal((await s.ok(key, 'browse_published', {})).items[0].webUrl, fileUrl);
      // Each webUrl answers its page.
      for (const url of [postUrl, profileUrl, fileUrl]) assert.equal((await page(s, new URL(url).pathname)).status, 200, url);
    });
  });
}

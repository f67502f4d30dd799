/**
 * Links (docs/contract/mounts.md): GET {BASE_URL}/l/{token} without a key, through HTTP on both backends —
 * bytes, content types, ETag and 304, byte ranges, the privacy headers, pinned and head-following
 * links, directory listings and files below them (never above), 410 for revoked and expired
 * links, only 404/410 for 200 hostile tokens (the same 404 at any length), and a token that is neither logged nor stored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { dumpDatabase } from './helpers/db-dump.js';
import { startServer, type TestServer } from './helpers/server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0xff]);

for (const backend of backends()) {
  describe(`links (${backend})`, () => {
    let s: TestServer;
    let key: string;
    before(async () => {
      // Request logging on: the last test reads the log lines.
      s = await startServer(backend, { LOG_LEVEL: 'info' }, { via: 'inject' });
      key = (await s.register('Link Owner')).apiKey;
      await s.ok(key, 'write', { path: '/site/readme.md', content: '# Hello\nworld\n' });
      await s.ok(key, 'write', { path: '/site/data.json', content: '{"a":1}\n' });
      await s.ok(key, 'write', { path: '/site/img.png', content: PNG.toString('base64'), encoding: 'base64' });
      await s.ok(key, 'write', { path: '/site/blob.bin', content: Buffer.from([1, 0, 2, 0, 3]).toString('base64'), encoding: 'base64' });
      await s.ok(key, 'write', { path: '/site/notes', content: 'plain text without an extension\n' });
      await s.ok(key, 'write', { path: '/site/sub/deep.txt', content: 'deep\n' });
      await s.ok(key, 'write', { path: '/private.md', content: 'PRIVATE\n' });
    });
    after(() => s.close());

    const link = async (input: Record<string, unknown>) => new URL((await s.ok(key, 'create_link', input)).link.url).pathname;
    const get = (path: string, headers: Record<string, string> = {}) => s.raw(path, { method: 'GET', headers });

    it('a file: its bytes, content type by extension or content, ETag = contentHash, privacy headers', async () => {
      for (const [path, type, body] of [
        ['/site/readme.md', 'text/markdown; charset=utf-8', '# Hello\nworld\n'],
        ['/site/data.json', 'application/json', '{"a":1}\n'],
        ['/site/notes', 'text/plain; charset=utf-8', 'plain text without an extension\n'],
      ] as const) {
        const r = await get(await link({ path }));
        assert.equal(r.status, 200, path);
        assert.equal(r.text, body);
        assert.equal(r.headers.get('content-type'), type, path);
        const stat = await s.ok(key, 'stat', { path });
        assert.equal(r.headers.get('etag'), `"${stat.contentHash}"`);
        assert.equal(r.headers.get('cache-control'), 'private');
        assert.equal(r.headers.get('x-robots-tag'), 'noindex');
        assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
        assert.match(r.headers.get('content-security-policy') ?? '', /sandbox/);
        assert.equal(r.headers.get('accept-ranges'), 'bytes');
      }
      const png = await s.raw(await link({ path: '/site/img.png' }), { method: 'GET' });
      assert.equal(png.headers.get('content-type'), 'image/png');
      assert.equal(png.headers.get('content-length'), String(PNG.length));
      const bin = await get(await link({ path: '/site/blob.bin' }));
      assert.equal(bin.headers.get('content-type'), 'application/octet-stream');
    });

    it('If-None-Match → 304; ranges → 206 or 416', async () => {
      const path = await link({ path: '/site/readme.md' });
      const etag = (await get(path)).headers.get('etag')!;
      const same = await get(path, { 'if-none-match': etag });
      assert.equal(same.status, 304);
      assert.equal(same.text, '');
      for (const [range, status, body, contentRange] of [
        ['bytes=0-4', 206, '# Hel', 'bytes 0-4/14'],
        ['bytes=-6', 206, 'world\n', 'bytes 8-13/14'],
        ['bytes=8-', 206, 'world\n', 'bytes 8-13/14'],
        ['bytes=8-999', 206, 'world\n', 'bytes 8-13/14'],
        ['bytes=14-', 416, '', 'bytes */14'],
        ['bytes=5-2', 416, '', 'bytes */14'],
        ['items=0-1', 416, '', 'bytes */14'],
      ] as const) {
        const r = await get(path, { range });
        assert.equal(r.status, status, range);
        assert.equal(r.text, body, range);
        assert.equal(r.headers.get('content-range'), contentRange, range);
      }
    });

    it('pinned links keep their version; head links follow; both answer 410 once the file is deleted and serve again once restored', async () => {
      await s.ok(key, 'write', { path: '/site/v.txt', content: 'v1\n' });
      await s.ok(key, 'write', { path: '/site/v.txt', content: 'v2\n' });
      const pinned = await link({ path: '/site/v.txt', version: 1 });
      const head = await link({ path: '/site/v.txt' });
      assert.equal((await get(pinned)).text, 'v1\n');
      assert.equal((await get(head)).text, 'v2\n');
      await s.ok(key, 'write', { path: '/site/v.txt', content: 'v3\n' });
      assert.equal((await get(pinned)).text, 'v1\n');
      assert.equal((await get(head)).text, 'v3\n');
      await s.ok(key, 'delete', { path: '/site/v.txt' });
      for (const [which, url] of [
        ['pinned', pinned],
        ['head', head],
        ['pinned, ranged', pinned],
      ] as const) {
        const gone = await get(url, which.endsWith('ranged') ? { range: 'bytes=0-0' } : {});
        assert.equal(gone.status, 410, which);
        const body = JSON.parse(gone.text);
        assert.equal(body.error.code, 'GONE', which);
        assert.deepEqual(body.error.details, { reason: 'deleted' }, which);
        assert.match(body.error.message, /deleted/);
        assert.ok(!gone.text.includes('v1') && !gone.text.includes('v3'), which);
      }
      await s.ok(key, 'restore', { path: '/site/v.txt', version: 3 });
      assert.equal((await get(pinned)).text, 'v1\n', 'restored: the pinned version serves again');
      assert.equal((await get(head)).text, 'v3\n', 'restored: the head serves again');
      // Moved away is deleted at the link's path; a directory link ends with its directory.
      await s.ok(key, 'write', { path: '/gone/a.txt', content: 'a\n' });
      const dir = await link({ path: '/gone' });
      const below = `${dir}/a.txt`;
      assert.equal((await get(below)).text, 'a\n');
      await s.ok(key, 'move', { from: '/site/v.txt', to: '/moved/v.txt' });
      assert.equal((await get(pinned)).status, 410, 'moved away');
      await s.ok(key, 'delete', { path: '/gone', recursive: true });
      for (const url of [dir, below]) {
        const r = await get(url);
        assert.equal(r.status, 410, url);
        assert.deepEqual(JSON.parse(r.text).error.details, { reason: 'deleted' });
      }
    });

    it('active types (HTML, JS, CSS, SVG, XML…) go out as text/plain attachments; inert ones inline; a quoted CSP', async () => {
      const files: Array<[string, string, string]> = [
        ['/web/x.js', 'alert(document.cookie)\n', 'attachment'],
        ['/web/x.mjs', 'export default 1;\n', 'attachment'],
        ['/web/page.html', '<script>alert(1)</script>\n', 'attachment'],
        ['/web/PAGE.HTM', '<script>alert(1)</script>\n', 'attachment'],
        ['/web/p.xhtml', '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>\n', 'attachment'],
        ['/web/img.svg', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>\n', 'attachment'],
        ['/web/feed.xml', '<?xml version="1.0"?><a/>\n', 'attachment'],
        ['/web/s.css', 'body{background:url(//evil)}\n', 'attachment'],
        ['/web/.html', '<script>alert(1)</script>\n', 'attachment'],
        ['/web/notes.txt', '<script>alert(1)</script>\n', 'inline'],
        ['/web/html', '<script>alert(1)</script>\n', 'inline'],
      ];
      for (const [path, content, disposition] of files) {
        await s.ok(key, 'write', { path, content });
        const r = await get(await link({ path }));
        assert.equal(r.status, 200, path);
        assert.equal(r.text, content, path);
        assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8', path);
        assert.equal(r.headers.get('x-content-type-options'), 'nosniff', path);
        const name = path.split('/').pop()!;
        assert.equal(r.headers.get('content-disposition'), `${disposition}; filename*=UTF-8''${encodeURIComponent(name)}`, path);
        assert.equal(r.headers.get('content-security-policy'), "sandbox; default-src 'none'", path);
      }
      await s.ok(key, 'write', { path: '/web/doc.pdf', content: Buffer.from('%PDF-1.4\n\0').toString('base64'), encoding: 'base64' });
      const pdf = await get(await link({ path: '/web/doc.pdf' }));
      assert.equal(pdf.headers.get('content-type'), 'application/pdf');
      assert.match(pdf.headers.get('content-disposition') ?? '', /^attachment;/);
      // Below a directory link, the same rule.
      const dir = await link({ path: '/web' });
      const below = await get(`${dir}/x.js`);
      assert.equal(below.headers.get('content-type'), 'text/plain; charset=utf-8');
      assert.match(below.headers.get('content-disposition') ?? '', /^attachment;/);
    });

    it('a directory: a JSON listing, files and directories below it, never above', async () => {
      const dir = await link({ path: '/site' });
      const listing = JSON.parse((await get(dir)).text);
      assert.equal(listing.path, '/');
      assert.deepEqual(
        listing.entries.map((e: any) => [e.name, e.path, e.type]),
        [
          ['blob.bin', '/blob.bin', 'file'],
          ['data.json', '/data.json', 'file'],
          ['img.png', '/img.png', 'file'],
          ['notes', '/notes', 'file'],
          ['readme.md', '/readme.md', 'file'],
          ['sub', '/sub', 'directory'],
        ],
      );
      assert.equal(listing.nextCursor, null);
      assert.equal((await get(`${dir}/sub/deep.txt`)).text, 'deep\n');
      assert.deepEqual(
        JSON.parse((await get(`${dir}/sub`)).text).entries.map((e: any) => e.path),
        ['/sub/deep.txt'],
      );
      for (const escape of [
        '/../private.md',
        '/sub/../../private.md',
        '/%2e%2e/private.md',
        '/..%2fprivate.md',
        '/%2E%2E%2Fprivate.md',
        '//../private.md',
      ]) {
        const r = await get(dir + escape);
        assert.equal(r.status, 404, escape);
        assert.ok(!r.text.includes('PRIVATE'), escape);
      }
      const file = await link({ path: '/site/readme.md' });
      assert.equal((await get(`${file}/x`)).status, 404, 'a file link has nothing below it');
    });

    it('revoked and expired links answer 410 with the reason', async () => {
      const r1 = await s.ok(key, 'create_link', { path: '/site/readme.md' });
      await s.ok(key, 'revoke_share', { shareId: r1.link.shareId });
      const revoked = await get(new URL(r1.link.url).pathname);
      assert.equal(revoked.status, 410);
      assert.deepEqual(JSON.parse(revoked.text).error.details, { reason: 'revoked' });
      const short = await link({ path: '/site/readme.md', expiresInSeconds: 1 });
      assert.equal((await get(short)).status, 200);
      await sleep(1100);
      const expired = await get(short);
      assert.equal(expired.status, 410);
      assert.equal(JSON.parse(expired.text).error.code, 'GONE');
      assert.deepEqual(JSON.parse(expired.text).error.details, { reason: 'expired' });
    });

    it('200 hostile tokens answer 404 or 410, never a file, never a 500', async () => {
      const good = await link({ path: '/private.md' });
      const token = good.slice('/l/'.length);
      const revokedToken = new URL((await s.ok(key, 'create_link', { path: '/private.md' })).link.url).pathname.slice(3);
      const list = (await s.ok(key, 'list_shares', { direction: 'outgoing', kind: 'link' })).items;
      await s.ok(key, 'revoke_share', { shareId: list[0].shareId });
      const hostile: string[] = ['', 'lt_', 'x', token.toUpperCase(), token.slice(0, -1), `${token}x`, `${token}/../x`, revokedToken];
      for (let i = 0; i < 40; i++) hostile.push(token.slice(0, 10 + i) + 'A'.repeat(Math.max(0, token.length - 10 - i)));
      for (let i = 3; i < 43; i++) hostile.push(token.slice(0, i) + (token[i] === 'a' ? 'b' : 'a') + token.slice(i + 1));
      for (let i = 0; i < 60; i++) hostile.push(`lt_${Buffer.from(`${i}-guess`).toString('base64url').padEnd(43, 'Q')}`);
      hostile.push(
        'lt_' + 'A'.repeat(10_000),
        '../api/tools/read',
        '%2e%2e%2fapi',
        'lt_%00',
        'lt_é',
        '🙂',
        'lt_' + '\u202e'.repeat(5),
        encodeURIComponent(token),
      );
      while (hostile.length < 200) hostile.push(`lt_${'Z'.repeat(hostile.length % 60)}`);
      let n = 0;
      for (const t of hostile) {
        if (t === token || t === encodeURIComponent(token)) continue;
        const r = await get(`/l/${encodeURIComponent(t)}`);
        assert.ok([404, 410].includes(r.status), `${JSON.stringify(t.slice(0, 60))} → ${r.status}`);
        assert.ok(!r.text.includes('PRIVATE'), t);
        n++;
      }
      assert.ok(n >= 190, `${n} hostile tokens`);
      // Past the router's parameter limit (100 characters), with or without a path below: the
      // same 404 as any unknown token, not Fastify's 414.
      const unknown = await get(`/l/lt_${'Q'.repeat(43)}`);
      assert.equal(unknown.status, 404);
      for (const long of [`lt_${'A'.repeat(98)}`, `lt_${'A'.repeat(1000)}`, `lt_${'A'.repeat(10_000)}`, `${token}${'A'.repeat(200)}`]) {
        for (const path of [`/l/${long}`, `/l/${long}/sub/x.md`]) {
          const r = await get(path);
          assert.equal(r.status, 404, `${long.length} characters`);
          assert.deepEqual(JSON.parse(r.text), JSON.parse(unknown.text), `${long.length} characters`);
          assert.equal(r.headers.get('cache-control'), 'no-store');
        }
      }
      assert.equal((await get(good)).text, 'PRIVATE\n', 'the real token still works');
      assert.equal((await get(good, { authorization: 'Bearer mk_wrong' })).text, 'PRIVATE\n', 'a key is neither needed nor checked');
    });

    it('the token is neither logged nor stored', async () => {
      const url = (await s.ok(key, 'create_link', { path: '/site/readme.md' })).link.url;
      const token = new URL(url).pathname.slice(3);
      await get(new URL(url).pathname);
      await get(`/l/${token}/sub`);
      const logged = s.logs.join('');
      assert.ok(logged.includes('/l/lt_…'), 'the request is logged, scrubbed');
      assert.ok(!logged.includes(token.slice(3)), 'the token is in the logs');
      const stored = await dumpDatabase(s);
      assert.ok(!stored.some((v) => v.includes(token.slice(3))), 'the token is stored in clear');
    });
  });
}

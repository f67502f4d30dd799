/**
 * Exposing a file to others requires what reading it requires (src/tools/exposure.ts): create_post
 * attachments, create_link, share, publish and copy between owners each refuse a key without
 * files:read (INSUFFICIENT_SCOPE), a path outside the key's folder (OUTSIDE_KEY_FOLDER) and a
 * version that is not there (VERSION_NOT_FOUND), and succeed for a key that may read the file.
 * Both backends, through HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

for (const backend of backends()) {
  describe(`exposure requires reading (${backend})`, () => {
    let s: TestServer;
    let a: { id: string; slug: string; apiKey: string };
    let b: { id: string; slug: string; apiKey: string };
    /** Everything but files:read. */
    let noRead: string;
    /** Every scope, folder /work. */
    let workOnly: string;
    /** Every scope but files:read, folder /work. */
    let workNoRead: string;
    const ALL_BUT_READ = ['files:write', 'files:delete', 'shares', 'community', 'social', 'search', 'agents'];
    const ALL = ['files', 'shares', 'community', 'social', 'search', 'agents'];

    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
      a = await s.register('Exposer');
      b = await s.register('Stranger');
      noRead = await s.addKey(a.id, { scopes: ALL_BUT_READ, label: 'no-read' });
      workOnly = await s.addKey(a.id, { scopes: ALL, folder: '/work', label: 'work' });
      workNoRead = await s.addKey(a.id, { scopes: ALL_BUT_READ, folder: '/work', label: 'work-no-read' });
      await s.ok(a.apiKey, 'write', { path: '/vault/key.pem', content: 'SECRET v1' });
      await s.ok(a.apiKey, 'write', { path: '/vault/key.pem', content: 'SECRET v2' });
      await s.ok(a.apiKey, 'write', { path: '/work/notes.md', content: 'notes v1' });
      await s.ok(a.apiKey, 'write', { path: '/work/notes.md', content: 'notes v2' });
      await s.ok(a.apiKey, 'create_community', { name: 'exposure' });
      await s.ok(b.apiKey, 'write', { path: '/w/keep.txt', content: 'b' });
      await s.ok(b.apiKey, 'share', { path: '/w', with: a.slug, permission: 'write' });
    });
    after(() => s.close());

    const post = (key: string, path: string, version?: number) =>
      s.call(key, 'create_post', {
        community: 'exposure',
        title: `t ${Math.random()}`,
        body: 'b',
        attachments: [{ path, ...(version ? { version } : {}) }],
      });
    const code = (r: { inner?: any }) => r.inner?.error?.code ?? (r.inner?.success ? 'OK' : 'NONE');

    it('create_post attachments: INSUFFICIENT_SCOPE without files:read, the folder error outside the folder, VERSION_NOT_FOUND; else attached', async () => {
      const refused = await post(noRead, '/vault/key.pem', 1);
      assert.equal(code(refused), 'INSUFFICIENT_SCOPE');
      assert.deepEqual(refused.inner.error.details.missing, ['files:read']);
      assert.equal(code(await post(workNoRead, '/work/notes.md')), 'INSUFFICIENT_SCOPE');
      const outside = await post(workOnly, '/vault/key.pem', 1);
      assert.equal(code(outside), 'OUTSIDE_KEY_FOLDER');
      assert.equal(code(await post(workOnly, '/work/notes.md', 9)), 'VERSION_NOT_FOUND');
      // Nothing was published by the refusals: the stranger finds no attachment of A's.
      const none = await s.call(b.apiKey, 'list', { path: `/published/${a.slug}` });
      assert.equal(none.inner.error?.code, 'NOT_FOUND');
      const ok = await post(workOnly, '/work/notes.md', 1);
      assert.equal(code(ok), 'OK');
      const att = ok.inner.post.attachments[0];
      assert.equal((await s.ok(b.apiKey, 'read', { path: att.publicPath })).content, 'notes v1');
    });

    it('create_link: INSUFFICIENT_SCOPE without files:read, the folder error outside the folder; else a link that serves', async () => {
      const refused = await s.call(noRead, 'create_link', { path: '/vault/key.pem', version: 1 });
      assert.equal(code(refused), 'INSUFFICIENT_SCOPE');
      assert.ok(refused.inner.error.details.missing.includes('files:read'));
      assert.equal(code(await s.call(workOnly, 'create_link', { path: '/vault/key.pem' })), 'OUTSIDE_KEY_FOLDER');
      assert.equal(code(await s.call(workOnly, 'create_link', { path: '/work/notes.md', version: 7 })), 'VERSION_NOT_FOUND');
      const made = await s.ok(workOnly, 'create_link', { path: '/work/notes.md', version: 1 });
      const got = await s.raw(new URL(made.link.url).pathname, { method: 'GET' });
      assert.equal(got.status, 200);
      assert.equal(got.text, 'notes v1');
    });

    it('share: INSUFFICIENT_SCOPE without files:read, the folder error outside the folder; else shared', async () => {
      assert.equal(code(await s.call(noRead, 'share', { path: '/vault', with: b.slug })), 'INSUFFICIENT_SCOPE');
      assert.equal(code(await s.call(workOnly, 'share', { path: '/vault', with: b.slug })), 'OUTSIDE_KEY_FOLDER');
      assert.equal((await s.call(b.apiKey, 'read', { path: `/shared/${a.slug}/vault/key.pem` })).inner.error.code, 'NOT_FOUND');
      await s.ok(workOnly, 'share', { path: '/work', with: b.slug });
      assert.equal((await s.ok(b.apiKey, 'read', { path: `/shared/${a.slug}/work/notes.md` })).content, 'notes v2');
    });

    it('publish: INSUFFICIENT_SCOPE without files:read, the folder error outside the folder, VERSION_NOT_FOUND; else published', async () => {
      assert.equal(code(await s.call(noRead, 'publish', { path: '/vault/key.pem', title: 'k', version: 1 })), 'INSUFFICIENT_SCOPE');
      assert.equal(code(await s.call(workOnly, 'publish', { path: '/vault/key.pem', title: 'k' })), 'OUTSIDE_KEY_FOLDER');
      assert.equal(code(await s.call(workOnly, 'publish', { path: '/work/notes.md', title: 'n', version: 5 })), 'VERSION_NOT_FOUND');
      assert.equal((await s.call(b.apiKey, 'read', { path: `/published/${a.slug}/vault/key.pem` })).inner.error.code, 'NOT_FOUND');
      await s.ok(workOnly, 'publish', { path: '/work/notes.md', title: 'n', version: 1 });
      assert.equal((await s.ok(b.apiKey, 'read', { path: `/published/${a.slug}/work/notes.md` })).content, 'notes v1');
    });

    it("copy into another owner's tree (a write share): INSUFFICIENT_SCOPE without files:read; else copied", async () => {
      const into = `/shared/${b.slug}/w`;
      assert.equal(code(await s.call(noRead, 'copy', { from: '/vault/key.pem', to: `${into}/stolen.pem` })), 'INSUFFICIENT_SCOPE');
      assert.equal((await s.call(b.apiKey, 'read', { path: '/w/stolen.pem' })).inner.error.code, 'NOT_FOUND');
      assert.equal(code(await s.call(workOnly, 'copy', { from: '/vault/key.pem', to: `${into}/stolen.pem` })), 'OUTSIDE_KEY_FOLDER');
      assert.equal(code(await s.call(workOnly, 'copy', { from: '/work/notes.md', to: `${into}/stolen.pem` })), 'OUTSIDE_KEY_FOLDER');
      // Within its own tree a key without files:read still copies (nothing is shown to anyone).
      await s.ok(noRead, 'copy', { from: '/vault/key.pem', to: '/vault/copy.pem' });
      await s.ok(a.apiKey, 'copy', { from: '/work/notes.md', to: `${into}/notes.md` });
      assert.equal((await s.ok(b.apiKey, 'read', { path: '/w/notes.md' })).content, 'notes v2');
    });

    it("a post's attachment copies are not linked, shared or published on their own (INVALID_INPUT)", async () => {
      const made = await post(a.apiKey, '/work/notes.md');
      const copy = made.inner.post.attachments[0].publicPath.replace(`/published/${a.slug}`, '');
      for (const [tool, input] of [
        ['create_link', { path: copy }],
        ['share', { path: copy, with: b.slug }],
        ['publish', { path: copy, title: 'c' }],
      ] as const) {
        assert.equal((await s.fail(a.apiKey, tool, input, 'INVALID_INPUT')).details.field, 'path', tool);
      }
    });

    it('the reference lists files:read among the scopes of share, create_link and publish', async () => {
      const skill = await s.raw('/skill.md', { method: 'GET' });
      for (const tool of ['share', 'create_link', 'publish']) {
        // skill.md: one line per tool, `- \`name\` (scopes) …`.
        const line = skill.text.split('\n').find((l) => l.startsWith(`- \`${tool}\` (`));
        assert.ok(line, tool);
        assert.match(line, /^- `\w+` \(shares:write \+ files:read\)/, tool);
      }
    });
  });
}

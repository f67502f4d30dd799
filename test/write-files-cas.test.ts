/**
 * write_files as `afs push` uses it, on both backends: compare-and-swap per file (expectedVersion,
 * mode "create") with every conflict listed in one EDIT_CONFLICT and nothing written; and the
 * same calls through a write share (/shared/{owner}/…), where the answer names the caller's paths
 * and never the owner's keys.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

for (const backend of backends()) {
  describe(`write_files compare-and-swap and shares (${backend})`, () => {
    let s: TestServer;
    let owner: { apiKey: string; slug: string };
    let writer: { apiKey: string; slug: string };
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
      owner = await s.register('Owner Of Work');
      writer = await s.register('Share Writer');
    });
    after(() => s.close());

    const read = async (key: string, path: string) => (await s.ok(key, 'read', { path })).content;

    it('lists every file whose version moved (and every create over a live file) and writes nothing', async () => {
      await s.ok(owner.apiKey, 'write_files', {
        files: [
          { path: '/cas/a.txt', content: 'a1\n' },
          { path: '/cas/b.txt', content: 'b1\n' },
          { path: '/cas/c.txt', content: 'c1\n' },
        ],
      });
      await s.ok(owner.apiKey, 'append', { path: '/cas/b.txt', content: 'b2\n' });
      const e = await s.fail(
        owner.apiKey,
        'write_files',
        {
          files: [
            { path: '/cas/a.txt', content: 'mine\n', expectedVersion: 1 },
            { path: '/cas/b.txt', content: 'mine\n', expectedVersion: 1 },
            { path: '/cas/c.txt', content: 'mine\n', mode: 'create' },
            { path: '/cas/new.txt', content: 'mine\n', mode: 'create' },
          ],
        },
        'EDIT_CONFLICT',
      );
      assert.equal(e.details.conflictCount, 2);
      assert.deepEqual(
        e.details.conflicts.map((c: any) => [c.path, c.expected, c.current.version, c.current.deleted]),
        [
          ['/cas/b.txt', 1, 2, false],
          ['/cas/c.txt', 'absent', 1, false],
        ],
      );
      assert.equal(await read(owner.apiKey, '/cas/a.txt'), 'a1\n', 'all or nothing: a is untouched');
      assert.equal((await s.call(owner.apiKey, 'read', { path: '/cas/new.txt' })).inner.error.code, 'NOT_FOUND');
      const ok = await s.ok(owner.apiKey, 'write_files', {
        files: [
          { path: '/cas/a.txt', content: 'mine\n', expectedVersion: 1 },
          { path: '/cas/b.txt', content: 'mine\n', expectedVersion: 2 },
          { path: '/cas/new.txt', content: 'mine\n', mode: 'create' },
        ],
      });
      assert.deepEqual(
        ok.files.map((f: any) => f.version),
        [2, 3, 1],
      );
    });

    it('works through a write share: paths of the mount in the answer, the owner sees the files, conflicts hide its keys', async () => {
      await s.ok(owner.apiKey, 'write', { path: '/projects/wc/readme.md', content: 'v1\n' });
      await s.ok(owner.apiKey, 'share', { path: '/projects/wc', with: writer.slug, permission: 'write' });
      const mount = `/shared/${owner.slug}/projects/wc`;
      const r = await s.ok(writer.apiKey, 'write_files', {
        files: [
          { path: `${mount}/readme.md`, content: 'v2\n', expectedVersion: 1 },
          { path: `${mount}/src/main.ts`, content: 'export {};\n', mode: 'create' },
        ],
      });
      assert.match(r.changesetId, /^cs_/);
      assert.deepEqual(
        r.files.map((f: any) => [f.path, f.version]),
        [
          [`${mount}/readme.md`, 2],
          [`${mount}/src/main.ts`, 1],
        ],
      );
      assert.equal(await read(owner.apiKey, '/projects/wc/src/main.ts'), 'export {};\n');
      assert.equal(await read(owner.apiKey, '/projects/wc/readme.md'), 'v2\n');

      await s.ok(owner.apiKey, 'append', { path: '/projects/wc/readme.md', content: 'owner\n' });
      const e = await s.fail(
        writer.apiKey,
        'write_files',
        { files: [{ path: `${mount}/readme.md`, content: 'v3\n', expectedVersion: 2 }] },
        'EDIT_CONFLICT',
      );
      assert.equal(e.details.conflicts[0].path, `${mount}/readme.md`);
      assert.equal(e.details.conflicts[0].current.version, 3);
      assert.ok(!JSON.stringify(e).includes('key_'), 'no key of the owner in the answer');
      assert.ok(e.message.startsWith(`${mount}/readme.md changed`), e.message);
    });

    it('refuses a read-only share, a path outside every share, and a call mixing trees', async () => {
      await s.ok(owner.apiKey, 'write', { path: '/ro/x.md', content: 'x\n' });
      await s.ok(owner.apiKey, 'share', { path: '/ro', with: writer.slug, permission: 'read' });
      const ro = await s.fail(writer.apiKey, 'write_files', { files: [{ path: `/shared/${owner.slug}/ro/x.md`, content: 'y\n' }] }, 'FORBIDDEN');
      assert.equal(ro.details.reason, 'read_only_share');
      await s.fail(writer.apiKey, 'write_files', { files: [{ path: `/shared/${owner.slug}/private/y.md`, content: 'y\n' }] }, 'INVALID_PATH');
      const mixed = await s.fail(
        writer.apiKey,
        'write_files',
        {
          files: [
            { path: '/mine.md', content: 'm\n' },
            { path: `/shared/${owner.slug}/projects/wc/z.md`, content: 'z\n' },
          ],
        },
        'INVALID_INPUT',
      );
      assert.equal(mixed.details.field, 'files[0].path');
      assert.equal((await s.call(owner.apiKey, 'read', { path: '/projects/wc/z.md' })).inner.error.code, 'NOT_FOUND');
    });
  });
}

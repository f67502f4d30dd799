/**
 * /shared and /published are discoverable from /: `list {"path": "/"}`, `ls /`, `find /`, `tree /`,
 * `du /`, `ls -R /` and `grep -r` show them as directories, and recursive walks from / do not
 * enter them (a walk started at /shared or below does), on both backends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

for (const backend of backends()) {
  describe(`the mount points at / (${backend})`, () => {
    let s: TestServer;
    let key: string;
    let owner: string;
    let publisher: string;
    const bash = async (command: string): Promise<string> => {
      const r = await s.ok(key, 'bash', { command });
      assert.equal(r.exitCode, 0, `${command}: ${r.stderr}`);
      return r.stdout;
    };
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
      const [o, p, v] = [await s.register('Root Owner'), await s.register('Root Publisher'), await s.register('Root Viewer')];
      [owner, publisher, key] = [o.slug, p.slug, v.apiKey];
      await s.ok(o.apiKey, 'write', { path: '/team/t.md', content: 'needle in the share\n' });
      await s.ok(o.apiKey, 'share', { path: '/team', with: v.slug, permission: 'read' });
      await s.ok(p.apiKey, 'write', { path: '/pub/a.md', content: 'needle published\n' });
      await s.ok(p.apiKey, 'publish', { path: '/pub/a.md', title: 'A' });
      await s.ok(key, 'follow', { slug: p.slug });
      await s.ok(key, 'write', { path: '/mine/x.md', content: 'needle of my own\n' });
      await s.ok(key, 'write', { path: '/zeta.md', content: 'z\n' });
    });
    after(() => s.close());

    it('list /: the mount points first (mount marker), a recursive list shows them without entering them', async () => {
      const top = await s.ok(key, 'list', { path: '/' });
      assert.deepEqual(
        top.entries.map((e: any) => [e.path, e.type, e.mount ?? null]),
        [
          ['/published', 'directory', 'published'],
          ['/shared', 'directory', 'shared'],
          ['/mine', 'directory', null],
          ['/zeta.md', 'file', null],
        ],
      );
      const deep = await s.ok(key, 'list', { path: '/', recursive: true });
      const paths = deep.entries.map((e: any) => e.path);
      assert.deepEqual(paths, ['/published', '/shared', '/mine', '/mine/x.md', '/zeta.md']);
      // Only the first page carries them; listing one goes in.
      const first = await s.ok(key, 'list', { path: '/', limit: 1 });
      const next = await s.ok(key, 'list', { path: '/', limit: 1, cursor: first.nextCursor });
      assert.ok(!next.entries.some((e: any) => e.mount), 'the mount points once');
      assert.deepEqual(
        (await s.ok(key, 'list', { path: '/shared' })).entries.map((e: any) => e.name),
        [owner],
      );
    });

    it('bash: ls / shows them; find, tree, du, ls -R and grep -r from / stay out; from /shared they go in', async () => {
      assert.deepEqual((await bash('ls /')).split('\n').filter(Boolean), ['mine', 'published', 'shared', 'zeta.md']);
      assert.match(await bash('ls -ld /shared /published'), /^d.* \/published\nd.* \/shared\n$/);
      const find = (await bash('find /')).split('\n').filter(Boolean);
      assert.deepEqual(find, ['/', '/mine', '/mine/x.md', '/published', '/shared', '/zeta.md']);
      assert.deepEqual((await bash('find / -type d')).split('\n').filter(Boolean), ['/', '/mine', '/published', '/shared']);
      const tree = await bash('tree /');
      assert.match(tree, /published/);
      assert.match(tree, /shared/);
      assert.ok(!tree.includes(owner) && !tree.includes(publisher), tree);
      const du = await bash('du -a /');
      assert.match(du, /\t\/shared\n/);
      assert.ok(!du.includes(`/shared/${owner}`), du);
      const lsR = await bash('ls -R /');
      assert.ok(!lsR.includes(`/shared/${owner}`) && lsR.includes('shared'), lsR);
      assert.equal(await bash('grep -r needle /'), '/mine/x.md:needle of my own\n');
      // Started at a mount point (or below), walks go in.
      assert.equal(await bash('grep -r needle /shared'), `/shared/${owner}/team/t.md:needle in the share\n`);
      assert.match(await bash('find /shared /published -type f'), new RegExp(`^/shared/${owner}/team/t.md\n/published/${publisher}/pub/a.md\n$`));
      assert.match(await bash('tree /published'), new RegExp(publisher));
    });
  });
}

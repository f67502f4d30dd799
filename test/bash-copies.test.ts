/**
 * One rule for bash and the file tools across owners: `mv` between another agent's files and yours
 * is refused like the move tool (nothing moves), and `cp` out of /shared or /published is a fork
 * like the copy tool (copiedFrom on the copy, the owner told, a published item counted once per
 * copier). Through HTTP on both backends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

interface Agent {
  id: string;
  key: string;
  slug: string;
}

const EXDEV = "Invalid cross-device link (another owner's files: cp, then rm the source)";

for (const backend of backends()) {
  describe(`bash across owners: mv refused, cp a fork (${backend})`, () => {
    let s: TestServer;
    let n = 0;
    const reg = async (): Promise<Agent> => {
      const r = await s.register(`Bcp Agent ${++n}`);
      return { id: r.id, key: r.apiKey, slug: r.slug };
    };
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
    });
    after(() => s.close());
    const bash = (a: Agent, command: string) => s.ok(a.key, 'bash', { command });
    const copiedNotes = async (a: Agent) => (await s.ok(a.key, 'list_notifications', { limit: 100 })).items.filter((x: any) => x.type === 'copied');

    it('mv out of a write share, and into it: refused like move, nothing moves', async () => {
      const [owner, writer] = [await reg(), await reg()];
      await s.ok(owner.key, 'write', { path: '/w/a.md', content: 'a\n' });
      await s.ok(owner.key, 'share', { path: '/w', with: writer.slug, permission: 'write' });
      await s.ok(writer.key, 'write', { path: '/mine.md', content: 'mine\n' });
      const W = `/shared/${owner.slug}/w`;
      const out = await bash(writer, `mv ${W}/a.md /taken.md`);
      assert.equal(out.stderr, `mv: cannot move '${W}/a.md' to '/taken.md': ${EXDEV}\n`);
      assert.equal(out.exitCode, 1);
      assert.deepEqual(out.changedPaths, []);
      const into = await bash(writer, `mv /mine.md ${W}/`);
      assert.equal(into.stderr, `mv: cannot move '/mine.md' to '${W}/mine.md': ${EXDEV}\n`);
      assert.equal((await s.ok(owner.key, 'read', { path: '/w/a.md' })).content, 'a\n', 'the source stays');
      await s.fail(writer.key, 'stat', { path: '/taken.md' }, 'NOT_FOUND');
      assert.equal((await s.ok(writer.key, 'read', { path: '/mine.md' })).content, 'mine\n');
      await s.fail(owner.key, 'stat', { path: '/w/mine.md' }, 'NOT_FOUND');
      // The move tool answers the same case with its own refusal: the same rule.
      await s.fail(writer.key, 'move', { from: `${W}/a.md`, to: '/taken.md' }, 'INVALID_INPUT');
      // Inside one owner's tree mv still works.
      assert.equal((await bash(writer, `mv ${W}/a.md ${W}/b.md`)).exitCode, 0);
    });

    it('cp out of /published: copiedFrom, one notification, counted once; a copy changed by the command gets none', async () => {
      const [author, b] = [await reg(), await reg()];
      await s.ok(author.key, 'write', { path: '/p.md', content: 'v1\n' });
      await s.ok(author.key, 'write', { path: '/p.md', content: 'v2\n' });
      await s.ok(author.key, 'publish', { path: '/p.md', title: 'P', version: 1 });
      const P = `/published/${author.slug}/p.md`;
      const r = await bash(b, `cp ${P} /fork.md && cp ${P} /fork2.md && cp ${P} /edited.md && echo more >> /edited.md`);
      assert.equal(r.exitCode, 0, r.stderr);
      const from = { slug: author.slug, path: '/p.md', version: 1 };
      assert.deepEqual((await s.ok(b.key, 'stat', { path: '/fork.md' })).copiedFrom, from);
      assert.deepEqual((await s.ok(b.key, 'list_versions', { path: '/fork2.md' })).versions[0].copiedFrom, from);
      assert.equal((await s.ok(b.key, 'stat', { path: '/edited.md' })).copiedFrom, undefined, 'not the published bytes any more');
      const notes = await copiedNotes(author);
      assert.equal(notes.length, 1);
      assert.deepEqual([notes[0].actor.slug, notes[0].object.type], [b.slug, 'published']);
      assert.equal((await s.ok(author.key, 'browse_published', { author: author.slug })).items[0].copies, 1);
      // The copy tool after it: the same copier and source, inside the cooldown: no second notification.
      await s.ok(b.key, 'copy', { from: P, to: '/fork3.md' });
      assert.equal((await copiedNotes(author)).length, 1);
    });

    it('cp -r out of a share: every file keeps its origin; the owner is told once, of the directory', async () => {
      const [owner, b] = [await reg(), await reg()];
      await s.ok(owner.key, 'write', { path: '/docs/a.md', content: 'a\n' });
      await s.ok(owner.key, 'write', { path: '/docs/sub/c.md', content: 'c1\n' });
      await s.ok(owner.key, 'write', { path: '/docs/sub/c.md', content: 'c2\n' });
      await s.ok(owner.key, 'share', { path: '/docs', with: b.slug });
      const r = await bash(b, `cp -r /shared/${owner.slug}/docs /mine`);
      assert.equal(r.exitCode, 0, r.stderr);
      assert.deepEqual((await s.ok(b.key, 'stat', { path: '/mine/a.md' })).copiedFrom, { slug: owner.slug, path: '/docs/a.md', version: 1 });
      assert.deepEqual((await s.ok(b.key, 'stat', { path: '/mine/sub/c.md' })).copiedFrom, {
        slug: owner.slug,
        path: '/docs/sub/c.md',
        version: 2,
      });
      const notes = await copiedNotes(owner);
      assert.equal(notes.length, 1);
      assert.deepEqual([notes[0].actor.slug, notes[0].object.path], [b.slug, '/docs']);
    });
  });
}

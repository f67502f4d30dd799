/**
 * The history a share shows (docs/contract/visibility.md), on both backends: the
 * version that was the head when the share was made and every later one; earlier versions and
 * files deleted before the share are not there (read, stat, list_versions, diff, list_deleted,
 * restore); includeHistory shows all of it. And a recipient sees agents (@slug), never the owner's
 * key ids or labels (stat, list_versions, EDIT_CONFLICT details).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

interface Agent {
  key: string;
  slug: string;
}

for (const backend of backends()) {
  describe(`a share shows the history from its creation on (${backend})`, () => {
    let s: TestServer;
    let owner: Agent;
    let reader: Agent;
    let writer: Agent;
    let full: Agent;
    let M: string;
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
      const reg = async (name: string): Promise<Agent> => {
        const r = await s.register(name);
        return { key: r.apiKey, slug: r.slug };
      };
      [owner, reader, writer, full] = [await reg('Hist Owner'), await reg('Hist Reader'), await reg('Hist Writer'), await reg('Hist Full')];
      await s.ok(owner.key, 'write', { path: '/proj/a.md', content: 'OLD SECRET\n' });
      await s.ok(owner.key, 'write', { path: '/proj/a.md', content: 'at share\n' });
      await s.ok(owner.key, 'write', { path: '/proj/gone.md', content: 'deleted before\n' });
      await s.ok(owner.key, 'delete', { path: '/proj/gone.md' });
      await sleep(5); // the share starts strictly after these versions
      await s.ok(owner.key, 'share', { path: '/proj', with: reader.slug });
      await s.ok(owner.key, 'share', { path: '/proj', with: writer.slug, permission: 'write' });
      const made = await s.ok(owner.key, 'share', { path: '/proj', with: full.slug, includeHistory: true });
      assert.equal(made.share.includeHistory, true);
      await sleep(5);
      await s.ok(owner.key, 'write', { path: '/proj/a.md', content: 'after share\n' });
      await s.ok(owner.key, 'write', { path: '/proj/later.md', content: 'later\n' });
      await s.ok(owner.key, 'delete', { path: '/proj/later.md' });
      M = `/shared/${owner.slug}/proj`;
    });
    after(() => s.close());

    it('versions from before the share are NOT_FOUND; the head at the share and later ones read', async () => {
      const versions = await s.ok(reader.key, 'list_versions', { path: `${M}/a.md` });
      assert.deepEqual(
        versions.versions.map((v: any) => v.version),
        [3, 2],
      );
      assert.equal(versions.nextCursor, null);
      assert.deepEqual(
        (await s.ok(reader.key, 'list_versions', { path: `${M}/a.md`, before: 3 })).versions.map((v: any) => v.version),
        [2],
      );
      assert.deepEqual((await s.ok(reader.key, 'list_versions', { path: `${M}/a.md`, before: 2 })).versions, []);
      const hidden = await s.fail(reader.key, 'read', { path: `${M}/a.md`, version: 1 }, 'NOT_FOUND');
      assert.equal(hidden.details.path, `${M}/a.md`);
      assert.ok(!JSON.stringify(hidden).includes('OLD SECRET'));
      await s.fail(reader.key, 'stat', { path: `${M}/a.md`, version: 1 }, 'NOT_FOUND');
      await s.fail(reader.key, 'diff', { path: `${M}/a.md`, fromVersion: 1 }, 'NOT_FOUND');
      await s.fail(reader.key, 'diff', { path: `${M}/a.md`, fromVersion: 3, toVersion: 1 }, 'NOT_FOUND');
      // The old spellings are read as these fields before the mount's history gate, which holds for them too.
      assert.ok(!JSON.stringify(await s.fail(reader.key, 'diff', { path: `${M}/a.md`, from: 1 }, 'NOT_FOUND')).includes('OLD SECRET'));
      await s.fail(reader.key, 'diff', { path: `${M}/a.md`, fromVersion: 3, to: 1 }, 'NOT_FOUND');
      assert.equal((await s.ok(reader.key, 'read', { path: `${M}/a.md`, version: 2 })).content, 'at share\n');
      assert.equal((await s.ok(reader.key, 'read', { path: `${M}/a.md` })).content, 'after share\n');
      assert.match((await s.ok(reader.key, 'diff', { path: `${M}/a.md`, fromVersion: 2 })).diff, /\+after share/);
      assert.equal((await s.ok(reader.key, 'stat', { path: `${M}/a.md` })).versionCount, 2);
    });

    it('a file deleted before the share is absent; one deleted after is listed and restorable', async () => {
      for (const [tool, input] of [
        ['read', { path: `${M}/gone.md` }],
        ['stat', { path: `${M}/gone.md` }],
        ['read', { path: `${M}/gone.md`, version: 1 }],
        ['list_versions', { path: `${M}/gone.md` }],
      ] as const) {
        const err = await s.fail(reader.key, tool, input, 'NOT_FOUND');
        assert.equal(err.details.deleted, undefined, tool);
        assert.doesNotMatch(err.message, /deleted|restore/, tool);
      }
      const deleted = await s.ok(reader.key, 'list_deleted', { path: M });
      assert.deepEqual(
        deleted.deletedPaths.map((d: any) => d.path),
        [`${M}/later.md`],
      );
      await s.fail(writer.key, 'restore', { path: `${M}/gone.md`, version: 1 }, 'NOT_FOUND');
      await s.fail(writer.key, 'restore', { path: `${M}/a.md`, version: 1 }, 'NOT_FOUND');
      assert.equal((await s.ok(owner.key, 'read', { path: '/proj/a.md', version: 3 })).content, 'after share\n', 'nothing restored');
      await s.ok(writer.key, 'restore', { path: `${M}/later.md`, version: 1 });
      assert.equal((await s.ok(owner.key, 'read', { path: '/proj/later.md' })).content, 'later\n');
    });

    it('includeHistory: true shows all of it', async () => {
      const versions = await s.ok(full.key, 'list_versions', { path: `${M}/a.md` });
      assert.deepEqual(
        versions.versions.map((v: any) => v.version),
        [3, 2, 1],
      );
      assert.equal((await s.ok(full.key, 'read', { path: `${M}/a.md`, version: 1 })).content, 'OLD SECRET\n');
      assert.equal((await s.ok(full.key, 'read', { path: `${M}/gone.md`, version: 1 })).content, 'deleted before\n');
      assert.ok((await s.ok(full.key, 'list_deleted', { path: M })).deletedPaths.some((d: any) => d.path === `${M}/gone.md`));
      const listed = await s.ok(owner.key, 'list_shares', { direction: 'outgoing' });
      assert.deepEqual(
        listed.items.map((x: any) => [x.with.slug, x.includeHistory]).sort(),
        [
          [full.slug, true],
          [reader.slug, false],
          [writer.slug, false],
        ].sort(),
      );
    });

    it("recipients see agents, never the owner's key ids or labels", async () => {
      const by = { keyId: null, label: null, slug: owner.slug };
      assert.deepEqual((await s.ok(reader.key, 'stat', { path: `${M}/a.md` })).updatedBy, by);
      assert.deepEqual((await s.ok(reader.key, 'stat', { path: `${M}/a.md`, version: 2 })).updatedBy, by);
      assert.deepEqual(
        (await s.ok(full.key, 'list_versions', { path: `${M}/a.md` })).versions.map((v: any) => v.by),
        [by, by, by],
      );
      const conflict = await s.fail(writer.key, 'write', { path: `${M}/a.md`, content: 'x\n', expectedVersion: 2 }, 'EDIT_CONFLICT');
      assert.ok(!JSON.stringify(conflict).includes('key_'), JSON.stringify(conflict));
      assert.match(conflict.message, new RegExp(`at version 3, updatedAt \\S+ by @${owner.slug}\\. Read it again`));
      assert.deepEqual(conflict.details.current.by, by);
      const w = await s.ok(writer.key, 'write', { path: `${M}/w.md`, content: 'w\n' });
      assert.equal(w.path, `${M}/w.md`);
      const byWriter = { keyId: null, label: null, slug: writer.slug };
      assert.deepEqual((await s.ok(reader.key, 'stat', { path: `${M}/w.md` })).updatedBy, byWriter);
      await s.ok(writer.key, 'write', { path: `${M}/w.md`, content: 'w2\n' });
      const theirs = await s.fail(writer.key, 'write', { path: `${M}/w.md`, content: 'x\n', expectedVersion: 1 }, 'EDIT_CONFLICT');
      assert.match(theirs.message, new RegExp(` by @${writer.slug}\\. Read it again`));
      assert.deepEqual(theirs.details.current.by, byWriter);
      await s.ok(writer.key, 'delete', { path: `${M}/w.md` });
      const tomb = (await s.ok(reader.key, 'list_deleted', { path: M })).deletedPaths.find((d: any) => d.path === `${M}/w.md`);
      assert.deepEqual(tomb.by, byWriter);
      const gone = await s.fail(reader.key, 'read', { path: `${M}/w.md` }, 'NOT_FOUND');
      assert.deepEqual(gone.details.deleted.by, byWriter);
      const own = await s.ok(owner.key, 'stat', { path: '/proj/a.md' });
      assert.equal(typeof own.updatedBy.keyId, 'string', 'the owner sees its keys');
    });
  });
}

/**
 * The file tools inside /shared and /published (COMMUNITY.md §4) through HTTP on both backends:
 * what each tool answers in a read share, a write share and a published item, the mounts'
 * skeleton directories, and where the changes land (the owner's history and quota).
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

for (const backend of backends()) {
  describe(`file tools in the mounts (${backend})`, () => {
    let s: TestServer;
    let owner: Agent;
    let reader: Agent;
    let writer: Agent;
    let R: string; // the read share, as the reader sees it
    let W: string; // the write share, as the writer sees it
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
      const reg = async (name: string): Promise<Agent> => {
        const r = await s.register(name);
        return { id: r.id, key: r.apiKey, slug: r.slug };
      };
      [owner, reader, writer] = [await reg('Mnt Owner'), await reg('Mnt Reader'), await reg('Mnt Writer')];
      await s.ok(owner.key, 'write', { path: '/team/notes.md', content: 'one\n' });
      await s.ok(owner.key, 'write', { path: '/team/notes.md', content: 'one\ntwo\n' });
      await s.ok(owner.key, 'write', { path: '/team/sub/deep.md', content: 'deep\n' });
      await s.ok(owner.key, 'write', { path: '/other/x.md', content: 'x\n' });
      await s.ok(owner.key, 'share', { path: '/team', with: reader.slug, permission: 'read' });
      await s.ok(owner.key, 'share', { path: '/team', with: writer.slug, permission: 'write' });
      R = `/shared/${owner.slug}/team`;
      W = R;
    });
    after(() => s.close());

    it('the skeleton: list and stat of /shared, /shared/{slug} and the way to a share', async () => {
      const root = await s.ok(reader.key, 'list', { path: '/shared' });
      assert.deepEqual(root.entries, [
        { name: owner.slug, path: `/shared/${owner.slug}`, type: 'directory', size: 0, version: 0, updatedAt: '1970-01-01T00:00:00.000Z' },
      ]);
      assert.equal(root.nextCursor, null);
      assert.deepEqual(
        (await s.ok(reader.key, 'list', { path: `/shared/${owner.slug}` })).entries.map((e: any) => e.path),
        [R],
      );
      const st = await s.ok(reader.key, 'stat', { path: `/shared/${owner.slug}` });
      assert.deepEqual([st.type, st.version, st.entries, st.updatedBy], ['directory', 0, 1, null]);
      assert.equal((await s.ok(reader.key, 'stat', { path: '/shared' })).entries, 1);
      const rec = await s.fail(reader.key, 'list', { path: '/shared', recursive: true }, 'INVALID_INPUT');
      assert.equal(rec.details.field, 'recursive');
      await s.fail(reader.key, 'read', { path: `/shared/${owner.slug}` }, 'IS_A_DIRECTORY');
      const nothing = await s.ok(writer.key, 'list', { path: '/published' });
      assert.deepEqual(nothing.entries, []);
      assert.deepEqual((await s.ok(owner.key, 'list', { path: '/shared' })).entries, [], 'nobody shares with the owner');
    });

    it('a read share: read, stat, list (recursive), list_versions, diff, list_deleted; nothing that changes', async () => {
      const st = await s.ok(reader.key, 'stat', { path: `${R}/notes.md` });
      assert.deepEqual([st.path, st.version, st.versionCount, st.type], [`${R}/notes.md`, 2, 2, 'file']);
      assert.equal((await s.ok(reader.key, 'read', { path: `${R}/notes.md`, version: 1 })).content, 'one\n');
      assert.deepEqual(
        (await s.ok(reader.key, 'list', { path: R, recursive: true })).entries.map((e: any) => e.path),
        [`${R}/notes.md`, `${R}/sub`, `${R}/sub/deep.md`],
      );
      const versions = await s.ok(reader.key, 'list_versions', { path: `${R}/notes.md` });
      assert.deepEqual(
        versions.versions.map((v: any) => [v.path, v.version]),
        [
          [`${R}/notes.md`, 2],
          [`${R}/notes.md`, 1],
        ],
      );
      const diff = await s.ok(reader.key, 'diff', { path: `${R}/notes.md`, from: 1, to: 2 });
      assert.equal(diff.path, `${R}/notes.md`);
      assert.match(diff.diff, /\+two/);
      assert.equal((await s.ok(reader.key, 'list_deleted', { path: R })).path, R);
      for (const [tool, input] of [
        ['write', { path: `${R}/n.md`, content: 'x' }],
        ['append', { path: `${R}/notes.md`, content: 'x' }],
        ['edit', { path: `${R}/notes.md`, old_string: 'one', new_string: '1' }],
        ['mkdir', { path: `${R}/d` }],
        ['delete', { path: `${R}/notes.md` }],
        ['move', { from: `${R}/notes.md`, to: `${R}/moved.md` }],
        ['copy', { from: `${R}/notes.md`, to: `${R}/copy.md` }],
        ['restore', { path: `${R}/notes.md`, version: 1 }],
      ] as const) {
        const err = await s.fail(reader.key, tool, input, 'FORBIDDEN');
        assert.equal(err.details.reason, 'read_only_share', tool);
      }
      for (const [tool, input] of [
        ['purge', { path: `${R}/notes.md`, confirm: true }],
        ['list_changes', { path: R }],
      ] as const) {
        assert.equal((await s.fail(reader.key, tool, input, 'FORBIDDEN')).details.reason, 'not_through_mount', tool);
      }
    });

    it('a write share: every change lands in the owner’s history and quota, attributed to the writer', async () => {
      const usage = async (a: Agent) => (await s.ok(a.key, 'get_key_info', {})).usage.storageBytes;
      const [ownerBefore, writerBefore] = [await usage(owner), await usage(writer)];
      const w = await s.ok(writer.key, 'write', { path: `${W}/new/file.md`, content: 'x'.repeat(1000) });
      assert.deepEqual([w.path, w.version, w.created], [`${W}/new/file.md`, 1, true]);
      assert.ok((await usage(owner)) >= ownerBefore + 1000, "the owner's quota");
      assert.equal(await usage(writer), writerBefore, "not the writer's");
      await s.ok(writer.key, 'append', { path: `${W}/new/file.md`, content: '\nend\n' });
      assert.equal((await s.ok(writer.key, 'mkdir', { path: `${W}/made` })).path, `${W}/made`);
      const mv = await s.ok(writer.key, 'move', { from: `${W}/new/file.md`, to: `${W}/made/file.md` });
      assert.deepEqual([mv.from, mv.to], [`${W}/new/file.md`, `${W}/made/file.md`]);
      const cp = await s.ok(writer.key, 'copy', { from: `${W}/made/file.md`, to: `${W}/made/copy.md` });
      assert.equal(cp.copiedFrom, undefined, 'a copy inside one tree is an ordinary copy');
      const del = await s.ok(writer.key, 'delete', { path: `${W}/made/copy.md` });
      const back = await s.ok(writer.key, 'restore', { path: `${W}/made/copy.md`, version: del.version - 1 });
      assert.equal(back.path, `${W}/made/copy.md`);
      const own = await s.ok(owner.key, 'list_versions', { path: '/team/made/file.md' });
      assert.ok(own.versions.every((v: any) => v.by.label.startsWith(`@${writer.slug}/`)));
      const changes = (await s.ok(owner.key, 'list_changes', { limit: 6 })).changesets;
      assert.deepEqual(
        changes.map((c: any) => c.tool),
        ['restore', 'delete', 'copy', 'move', 'mkdir', 'append'],
      );
      // From the writer's own tree into the share: a version of the owner's.
      await s.ok(writer.key, 'write', { path: '/mine.md', content: 'mine\n' });
      const into = await s.ok(writer.key, 'copy', { from: '/mine.md', to: `${W}/mine.md` });
      assert.deepEqual([into.from, into.to, into.copiedFrom], ['/mine.md', `${W}/mine.md`, undefined]);
      assert.equal((await s.ok(owner.key, 'read', { path: '/team/mine.md' })).content, 'mine\n');
    });

    it('bash in a write share: touch, >, mv, rm — one changeset of the owner per command, attributed to the writer', async () => {
      const r = await s.ok(writer.key, 'bash', {
        command: `touch ${W}/b1.md && echo hi > ${W}/b2.md && mv ${W}/b2.md ${W}/b3.md && rm ${W}/b1.md && echo mine > /bash-own.md`,
      });
      assert.equal(r.exitCode, 0, r.stderr);
      assert.deepEqual(
        r.changesets.map((c: any) => c.owner),
        [null, owner.slug],
      );
      assert.deepEqual(
        r.changed.map((c: any) => [c.path, c.op]),
        [
          ['/bash-own.md', 'create'],
          [`${W}/b3.md`, 'create'],
        ],
      );
      assert.equal((await s.ok(owner.key, 'read', { path: '/team/b3.md' })).content, 'hi\n');
      await s.fail(owner.key, 'read', { path: '/team/b1.md' }, 'NOT_FOUND');
      const [latest] = (await s.ok(owner.key, 'list_changes', { limit: 1 })).changesets;
      assert.deepEqual([latest.tool, latest.by.label.startsWith(`@${writer.slug}/`)], ['bash', true]);
      assert.equal((await s.ok(writer.key, 'read', { path: '/bash-own.md' })).content, 'mine\n');
    });

    it('a write share’s bounds: out of it, across owners, to an uncovered mount path', async () => {
      const out = await s.fail(writer.key, 'move', { from: `${W}/notes.md`, to: '/stolen.md' }, 'INVALID_INPUT');
      assert.equal(out.details.field, 'to');
      const uncovered = await s.fail(writer.key, 'move', { from: `${W}/notes.md`, to: `/shared/${owner.slug}/other/n.md` }, 'INVALID_PATH');
      assert.equal(uncovered.details.reason, 'reserved');
      await s.fail(writer.key, 'read', { path: `/shared/${owner.slug}/other/x.md` }, 'NOT_FOUND');
      await s.fail(writer.key, 'write', { path: `/shared/${owner.slug}/other/y.md`, content: 'y' }, 'INVALID_PATH');
      const conflict = await s.fail(
        writer.key,
        'edit',
        { path: `${W}/notes.md`, old_string: 'one', new_string: '1', expectedVersion: 1 },
        'EDIT_CONFLICT',
      );
      assert.equal(conflict.details.path, `${W}/notes.md`);
      assert.ok(!JSON.stringify(conflict).includes('"/team/'), 'no owner path in the error');
      const missing = await s.fail(writer.key, 'read', { path: `${W}/notes.mdx` }, 'NOT_FOUND');
      assert.ok(
        missing.details.similar.every((p: string) => p.startsWith(W)),
        JSON.stringify(missing.details.similar),
      );
    });

    it('/published: read-only, one version; copy counts and keeps provenance', async () => {
      const pub = (await s.ok(owner.key, 'publish', { path: '/team/notes.md', title: 'Notes', version: 1 })).published;
      const P = pub.publicPath;
      const st = await s.ok(reader.key, 'stat', { path: P });
      assert.deepEqual([st.path, st.version, st.size], [P, 1, 4]);
      await s.fail(reader.key, 'read', { path: P, version: 2 }, 'VERSION_NOT_FOUND');
      assert.equal((await s.fail(reader.key, 'list_versions', { path: P }, 'FORBIDDEN')).details.reason, 'published_read_only');
      assert.equal((await s.fail(reader.key, 'delete', { path: P }, 'FORBIDDEN')).details.reason, 'published_read_only');
      assert.equal((await s.fail(reader.key, 'copy', { from: `${R}/notes.md`, to: P }, 'FORBIDDEN')).details.reason, 'published_read_only');
      const cp = await s.ok(reader.key, 'copy', { from: P, to: '/forked.md' });
      assert.deepEqual(cp.copiedFrom, { slug: owner.slug, path: '/team/notes.md', version: 1 });
      const hist = await s.ok(reader.key, 'list_versions', { path: '/forked.md' });
      assert.deepEqual(hist.versions[0].copiedFrom, cp.copiedFrom);
      assert.equal((await s.ok(reader.key, 'read', { path: '/forked.md' })).content, 'one\n');
      const item = (await s.ok(reader.key, 'browse_published', { author: owner.slug })).items[0];
      assert.equal(item.copies, 1);
      const note = (await s.ok(owner.key, 'list_notifications', {})).items.find((n: any) => n.type === 'copied');
      assert.deepEqual([note.actor.slug, note.object.type, note.object.id], [reader.slug, 'published', pub.publishedId]);
      // A directory item follows its files.
      const dir = (await s.ok(owner.key, 'publish', { path: '/team/sub', title: 'Sub' })).published;
      await s.ok(owner.key, 'write', { path: '/team/sub/later.md', content: 'later\n' });
      assert.deepEqual(
        (await s.ok(reader.key, 'list', { path: dir.publicPath })).entries.map((e: any) => e.name),
        ['deep.md', 'later.md'],
      );
      assert.deepEqual(
        (await s.ok(reader.key, 'list', { path: `/published/${owner.slug}` })).entries.map((e: any) => e.name),
        ['team'],
      );
    });
  });
}

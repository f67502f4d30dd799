/**
 * The file tools inside /shared and /published (docs/contract/mounts.md) through HTTP on both backends:
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
      // With the history from before the share (the default shows it from the share on: shares-history.test.ts).
      await s.ok(owner.key, 'share', { path: '/team', with: reader.slug, permission: 'read', includeHistory: true });
      await s.ok(owner.key, 'share', { path: '/team', with: writer.slug, permission: 'write' });
      R = `/shared/${owner.slug}/team`;
      W = R;
    });
    after(() => s.close());

    it('the skeleton: list and stat of /shared, /shared/{slug} and the way to a share', async () => {
      const root = await s.ok(reader.key, 'list', { path: '/shared' });
      assert.deepEqual(root.entries, [{ name: owner.slug, path: `/shared/${owner.slug}`, type: 'directory', size: 0, version: 0, updatedAt: null }]);
      assert.equal(root.nextCursor, null);
      assert.deepEqual(
        (await s.ok(reader.key, 'list', { path: `/shared/${owner.slug}` })).entries.map((e: any) => e.path),
        [R],
      );
      const st = await s.ok(reader.key, 'stat', { path: `/shared/${owner.slug}` });
      assert.deepEqual([st.type, st.version, st.entryCount, st.updatedBy, st.updatedAt, st.createdAt], ['directory', 0, 1, null, null, null]);
      assert.equal((await s.ok(reader.key, 'stat', { path: '/shared' })).entryCount, 1);
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
      // stat of an earlier version: that version's metadata, as the owner sees it, at the mount path.
      const v1 = await s.ok(reader.key, 'stat', { path: `${R}/notes.md`, version: 1 });
      const own1 = await s.ok(owner.key, 'stat', { path: '/team/notes.md', version: 1 });
      assert.deepEqual(
        [v1.path, v1.version, v1.size, v1.lineCount, v1.deleted, v1.op, v1.contentHash, v1.changesetId, v1.updatedBy],
        [`${R}/notes.md`, 1, 4, 1, false, 'create', own1.contentHash, own1.changesetId, { keyId: null, label: null, slug: owner.slug }],
      );
      assert.notEqual(v1.contentHash, st.contentHash);
      assert.equal((await s.fail(reader.key, 'stat', { path: `${R}/notes.md`, version: 9 }, 'VERSION_NOT_FOUND')).details.path, `${R}/notes.md`);
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
      const diff = await s.ok(reader.key, 'diff', { path: `${R}/notes.md`, fromVersion: 1, toVersion: 2 });
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
      // The owner's changesets are the owner's to revert: the writer's revert_changeset does not find them.
      const ownerTree = async () => JSON.stringify((await s.ok(owner.key, 'list', { path: '/team', recursive: true })).entries);
      const before = await ownerTree();
      for (const changesetId of [w.changesetId, into.changesetId, del.changesetId]) {
        for (const extra of [{}, { dryRun: true }, { force: true }]) {
          const err = await s.fail(writer.key, 'revert_changeset', { changesetId, ...extra }, 'NOT_FOUND');
          assert.ok(!JSON.stringify(err).includes('/team'), 'no owner path in the refusal');
        }
      }
      assert.equal(await ownerTree(), before, "the owner's tree is unchanged");
      assert.equal((await s.ok(owner.key, 'read', { path: '/team/mine.md' })).content, 'mine\n');
      // The writer's own history shows its own tree only: none of the owner's paths or changesets.
      const mine = (await s.ok(writer.key, 'list_changes', {})).changesets;
      assert.deepEqual(
        mine.flatMap((c: any) => c.entries.map((e: any) => [e.path, e.op])),
        [['/mine.md', 'create']],
      );
      assert.ok(!mine.some((c: any) => [w.changesetId, into.changesetId].includes(c.changesetId)));
    });

    it('edit in a write share: edits[] in order, replace_all, NO_MATCH at the mount path (all or nothing)', async () => {
      await s.ok(owner.key, 'write', { path: '/team/edit.md', content: 'alpha beta\nalpha gamma\nTODO one\nTODO two\n' });
      const r = await s.ok(writer.key, 'edit', {
        path: `${W}/edit.md`,
        edits: [
          { old_string: 'alpha beta', new_string: 'ALPHA beta' },
          { old_string: 'alpha', new_string: 'A' },
          { old_string: 'TODO', new_string: 'DONE', replace_all: true },
        ],
      });
      assert.deepEqual([r.path, r.replacements, r.version], [`${W}/edit.md`, 4, 2]);
      const all = await s.ok(writer.key, 'edit', { path: `${W}/edit.md`, old_string: 'DONE', new_string: 'OK', replace_all: true });
      assert.deepEqual([all.path, all.replacements, all.version], [`${W}/edit.md`, 2, 3]);
      assert.equal((await s.ok(owner.key, 'read', { path: '/team/edit.md' })).content, 'ALPHA beta\nA gamma\nOK one\nOK two\n');
      const miss = await s.fail(writer.key, 'edit', { path: `${W}/edit.md`, old_string: 'OK   one', new_string: 'x' }, 'NO_MATCH');
      assert.equal(miss.details.path, `${W}/edit.md`);
      assert.deepEqual(
        miss.details.reasons.map((x: string) => x.split(':')[0]),
        ['whitespace'],
      );
      assert.deepEqual(miss.details.closest, { line: 3, text: 'OK one' });
      assert.ok(miss.message.includes(`${W}/edit.md`), miss.message);
      assert.ok(!JSON.stringify(miss).includes('"/team/'), 'no owner path in the error');
      const third = await s.fail(
        writer.key,
        'edit',
        {
          path: `${W}/edit.md`,
          edits: [
            { old_string: 'ALPHA', new_string: 'a' },
            { old_string: 'gamma', new_string: 'g' },
            { old_string: 'missing', new_string: 'm' },
          ],
        },
        'NO_MATCH',
      );
      assert.equal(third.details.editIndex, 2);
      assert.match(third.message, /edits\[2\]/);
      const st = await s.ok(owner.key, 'stat', { path: '/team/edit.md' });
      assert.equal(st.version, 3, 'nothing written');
    });

    it('/published and `ls /published` list the followed agents who published, no others', async () => {
      const reg = async (name: string): Promise<Agent> => {
        const r = await s.register(name);
        return { id: r.id, key: r.apiKey, slug: r.slug };
      };
      const [followed, other, viewer] = [await reg('Mnt Pub Followed'), await reg('Mnt Pub Other'), await reg('Mnt Pub Viewer')];
      for (const a of [followed, other]) {
        await s.ok(a.key, 'write', { path: '/pub/x.md', content: `${a.slug}\n` });
        await s.ok(a.key, 'publish', { path: '/pub/x.md', title: 'X' });
      }
      await s.ok(viewer.key, 'follow', { slug: followed.slug });
      const names = async () => (await s.ok(viewer.key, 'list', { path: '/published' })).entries.map((e: any) => e.name);
      const ls = async () => (await s.ok(viewer.key, 'bash', { command: 'ls /published' })).stdout;
      assert.deepEqual(await names(), [followed.slug]);
      assert.equal(await ls(), `${followed.slug}\n`);
      assert.equal((await s.ok(viewer.key, 'stat', { path: '/published' })).entryCount, 1);
      // Not listed is not hidden: the other's published work reads by its path.
      assert.equal((await s.ok(viewer.key, 'read', { path: `/published/${other.slug}/pub/x.md` })).content, `${other.slug}\n`);
      await s.ok(viewer.key, 'follow', { slug: other.slug });
      const both = [followed.slug, other.slug].sort();
      assert.deepEqual(await names(), both);
      assert.equal(await ls(), both.map((x) => `${x}\n`).join(''));
    });

    it('leave_share and block end a grant this instance has just used, at the next request', async () => {
      const reg = async (name: string): Promise<Agent> => {
        const r = await s.register(name);
        return { id: r.id, key: r.apiKey, slug: r.slug };
      };
      const [o, leaver, blocker, blocked] = [
        await reg('Mnt Gc Owner'),
        await reg('Mnt Gc Leaver'),
        await reg('Mnt Gc Blocker'),
        await reg('Mnt Gc Blocked'),
      ];
      await s.ok(o.key, 'write', { path: '/box/f.md', content: 'box\n' });
      const ids: Record<string, string> = {};
      for (const r of [leaver, blocker, blocked]) ids[r.slug] = (await s.ok(o.key, 'share', { path: '/box', with: r.slug })).share.shareId;
      const F = `/shared/${o.slug}/box/f.md`;
      // Each read keeps the grant in this instance's cache (grant-cache.ts, 500 ms); the change
      // right after it must show on the next request all the same.
      assert.equal((await s.ok(leaver.key, 'read', { path: F })).content, 'box\n');
      await s.ok(leaver.key, 'leave_share', { shareId: ids[leaver.slug] });
      await s.fail(leaver.key, 'read', { path: F }, 'NOT_FOUND');
      assert.equal((await s.ok(blocker.key, 'read', { path: F })).content, 'box\n');
      await s.ok(blocker.key, 'block', { slug: o.slug });
      await s.fail(blocker.key, 'read', { path: F }, 'NOT_FOUND');
      assert.equal((await s.ok(blocked.key, 'read', { path: F })).content, 'box\n');
      await s.ok(o.key, 'block', { slug: blocked.slug });
      await s.fail(blocked.key, 'read', { path: F }, 'NOT_FOUND');
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
        r.changedPaths.map((c: any) => [c.path, c.op]),
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
      // Another version is not there (published-visibility.test.ts); list_versions shows the one published.
      await s.fail(reader.key, 'read', { path: P, version: 2 }, 'NOT_FOUND');
      assert.deepEqual(
        (await s.ok(reader.key, 'list_versions', { path: P })).versions.map((v: any) => v.version),
        [1],
      );
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

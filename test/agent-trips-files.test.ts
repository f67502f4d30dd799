/**
 * What an agent trips on, reading/paging and files/history items: read's paging
 * fields, move/copy into an existing directory, restoring a deleted directory, list_versions
 * order after a move, partial changesets, a second revert, edits[] NO_MATCH details and
 * create_key's schema and folder warning. Over HTTP, on both backends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

for (const backend of backends()) {
  describe(`what an agent trips on: files and history (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, { READ_PAGE_LINES: '4', READ_PAGE_BYTES: '1024' });
    });
    after(() => s.close());

    let n = 0;
    const fresh = async () => {
      const { apiKey } = await s.register(`Trips ${++n}`);
      return { key: apiKey, agentId: (await s.ok(apiKey, 'get_key_info')).agent.id as string };
    };

    describe('read paging', () => {
      /** The loop skill.md describes: read, and while truncated is true, read again at next.offset. */
      const readAll = async (key: string, path: string, limit?: number) => {
        const pages: any[] = [];
        let offset: number | undefined;
        for (;;) {
          const r = await s.ok(key, 'read', { path, ...(offset !== undefined ? { offset } : {}), ...(limit ? { limit } : {}) });
          pages.push(r);
          assert.equal(r.truncated, 'next' in r, `truncated and next agree on page ${pages.length}`);
          if (!r.truncated) break;
          offset = r.next.offset;
          assert.ok(pages.length < 50, 'the loop ends');
        }
        return pages;
      };

      it('a loop that follows the docs reads a multi-page file exactly once, to the end', async () => {
        const { key } = await fresh();
        const content = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join('');
        await s.ok(key, 'write', { path: '/ten.txt', content });
        const pages = await readAll(key, '/ten.txt');
        assert.deepEqual(
          pages.map((p) => [p.lines.start, p.lines.end]),
          [
            [1, 4],
            [5, 8],
            [9, 10],
          ],
        );
        assert.equal(pages.map((p) => p.content).join(''), content);
        const last = pages[pages.length - 1];
        assert.equal(last.truncated, false);
        assert.equal(last.next, undefined);
        // A smaller limit: the same contract.
        const small = await readAll(key, '/ten.txt', 3);
        assert.equal(small.length, 4);
        assert.equal(small.map((p) => p.content).join(''), content);
        // A page that starts mid-file and reaches the end is the last one.
        const tail = await s.ok(key, 'read', { path: '/ten.txt', offset: 7 });
        assert.deepEqual([tail.truncated, tail.next], [false, undefined]);
        const past = await s.ok(key, 'read', { path: '/ten.txt', offset: 50 });
        assert.deepEqual([past.truncated, past.next], [false, undefined]);
      });

      it('a cut over-long line says cutLine; truncated only when lines follow it', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/long.txt', content: 'short\n' + 'x'.repeat(3000) });
        const pages = await readAll(key, '/long.txt', 1);
        assert.equal(pages.length, 2);
        assert.equal(pages[1].cutLine, 2);
        assert.equal(pages[1].truncated, false);
        assert.match(pages[1].note, /base64/);
        await s.ok(key, 'write', { path: '/long2.txt', content: 'y'.repeat(3000) + '\nend\n' });
        const first = await s.ok(key, 'read', { path: '/long2.txt' });
        assert.deepEqual([first.cutLine, first.truncated, first.next], [1, true, { offset: 2 }]);
        assert.match(first.note, /offset 2/);
      });
    });

    describe('move and copy into an existing directory (like mv)', () => {
      it('move lands at dir/name; a taken name is named exactly, overwrite offered only when it works', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/notes/done.md', content: 'done\n' });
        await s.ok(key, 'mkdir', { path: '/archive' });
        const mv = await s.ok(key, 'move', { from: '/notes/done.md', to: '/archive' });
        assert.equal(mv.to, '/archive/done.md');
        assert.equal(mv.into, '/archive');
        assert.equal((await s.ok(key, 'read', { path: '/archive/done.md' })).content, 'done\n');
        await s.fail(key, 'read', { path: '/notes/done.md' }, 'NOT_FOUND');

        // The same name again: the error names /archive/done.md and offers overwrite, which works.
        await s.ok(key, 'write', { path: '/notes/done.md', content: 'again\n' });
        const taken = await s.fail(key, 'move', { from: '/notes/done.md', to: '/archive' }, 'ALREADY_EXISTS');
        assert.equal(taken.details.path, '/archive/done.md');
        assert.equal(taken.details.overwritable, true);
        assert.match(taken.message, /\/archive\/done\.md already exists/);
        assert.match(taken.message, /overwrite: true/);
        const ow = await s.ok(key, 'move', { from: '/notes/done.md', to: '/archive', overwrite: true });
        assert.equal(ow.to, '/archive/done.md');
        assert.equal((await s.ok(key, 'read', { path: '/archive/done.md' })).content, 'again\n');

        // A directory in the way: no overwrite suggestion, since overwrite would fail too.
        await s.ok(key, 'write', { path: '/notes/sub/x.md', content: 'x' });
        await s.ok(key, 'mkdir', { path: '/archive/sub' });
        const dir = await s.fail(key, 'move', { from: '/notes/sub', to: '/archive' }, 'ALREADY_EXISTS');
        assert.equal(dir.details.path, '/archive/sub');
        assert.equal(dir.details.overwritable, false);
        assert.doesNotMatch(dir.message, /Pass overwrite/);
        await s.fail(key, 'move', { from: '/notes/sub', to: '/archive', overwrite: true }, 'ALREADY_EXISTS');
        // A file onto a file that is a directory's name, named directly: no overwrite offer either.
        await s.ok(key, 'write', { path: '/f.md', content: 'f' });
        const fileOnDir = await s.fail(key, 'move', { from: '/notes/sub', to: '/f.md' }, 'ALREADY_EXISTS');
        assert.equal(fileOnDir.details.overwritable, false);
        assert.doesNotMatch(fileOnDir.message, /Pass overwrite/);
        // Into its own parent: it is already there.
        const same = await s.fail(key, 'move', { from: '/archive/done.md', to: '/archive' }, 'INVALID_INPUT');
        assert.match(same.message, /already in \/archive/);
        // / is a directory too.
        assert.equal((await s.ok(key, 'move', { from: '/archive/done.md', to: '/' })).to, '/done.md');
      });

      it('copy of a file and of a directory into an existing directory', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/src/a.md', content: 'a' });
        await s.ok(key, 'write', { path: '/src/d/b.md', content: 'b' });
        await s.ok(key, 'mkdir', { path: '/dst' });
        const f = await s.ok(key, 'copy', { from: '/src/a.md', to: '/dst' });
        assert.deepEqual([f.to, f.into], ['/dst/a.md', '/dst']);
        const d = await s.ok(key, 'copy', { from: '/src/d', to: '/dst' });
        assert.equal(d.to, '/dst/d');
        assert.equal((await s.ok(key, 'read', { path: '/dst/d/b.md' })).content, 'b');
        const again = await s.fail(key, 'copy', { from: '/src/a.md', to: '/dst' }, 'ALREADY_EXISTS');
        assert.equal(again.details.path, '/dst/a.md');
        assert.equal((await s.ok(key, 'copy', { from: '/src/a.md', to: '/dst', overwrite: true })).version, 2);
      });
    });

    describe('list_versions after moving a directory', () => {
      it('is newest first: later edits, the move, then the history under the old path; paging keeps the order', async () => {
        const { key } = await fresh();
        // Old path /b sorts before the new path /c: the order must not depend on that.
        await s.ok(key, 'write', { path: '/b/x.md', content: 'one\n' });
        await s.ok(key, 'write', { path: '/b/x.md', content: 'two\n' });
        await s.ok(key, 'move', { from: '/b', to: '/c' });
        await s.ok(key, 'write', { path: '/c/x.md', content: 'three\n' });
        await s.ok(key, 'write', { path: '/c/x.md', content: 'four\n' });
        const expected = [
          ['/c/x.md', 3, 'update'],
          ['/c/x.md', 2, 'update'],
          ['/c/x.md', 1, 'move'],
          ['/b/x.md', 3, 'move'],
          ['/b/x.md', 2, 'update'],
          ['/b/x.md', 1, 'create'],
        ];
        const all = await s.ok(key, 'list_versions', { path: '/c/x.md' });
        assert.deepEqual(
          all.versions.map((v: any) => [v.path, v.version, v.op]),
          expected,
        );
        const paged: any[] = [];
        for (let before: string | undefined; ;) {
          const p = await s.ok(key, 'list_versions', { path: '/c/x.md', limit: 1, ...(before ? { cursor: before } : {}) });
          paged.push(...p.versions);
          if (p.nextCursor === null) break;
          before = p.nextCursor;
        }
        assert.deepEqual(
          paged.map((v: any) => [v.path, v.version, v.op]),
          expected,
        );
        // before as a version number of this path.
        const older = await s.ok(key, 'list_versions', { path: '/c/x.md', before: 1 });
        assert.deepEqual(
          older.versions.map((v: any) => [v.path, v.version]),
          [
            ['/b/x.md', 3],
            ['/b/x.md', 2],
            ['/b/x.md', 1],
          ],
        );
        await s.fail(key, 'list_versions', { path: '/c/x.md', cursor: 'bm90IGEgdG9rZW4' }, 'INVALID_INPUT');
      });
    });

    describe('restore of a recursively deleted directory', () => {
      it('under a directory that exists again: the missing paths come back, later ones are kept', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/proj/a.md', content: 'a1\n' });
        await s.ok(key, 'write', { path: '/proj/a.md', content: 'a2\n' });
        await s.ok(key, 'write', { path: '/proj/src/b.ts', content: 'b\n' });
        await s.ok(key, 'mkdir', { path: '/proj/empty' });
        const del = await s.ok(key, 'delete', { path: '/proj', recursive: true });
        // Something new at one of the paths since: kept as it is.
        await s.ok(key, 'write', { path: '/proj/src/b.ts', content: 'new b\n' });
        const dirVersion = del.version - 1;

        const dry = await s.ok(key, 'restore', { path: '/proj', version: dirVersion, dryRun: true });
        assert.equal(dry.applied, false);
        assert.equal(dry.restoredBelowCount, 2);
        await s.fail(key, 'read', { path: '/proj/a.md' }, 'NOT_FOUND');

        const r = await s.ok(key, 'restore', { path: '/proj', version: dirVersion });
        // /proj exists again (the write re-created it): its deleted subtree still comes back under it.
        assert.equal(r.subtreeDeletedBy, del.changesetId);
        assert.deepEqual(
          r.restoredBelow.map((e: any) => e.path),
          ['/proj/a.md', '/proj/empty'],
        );
        assert.equal(r.restoredBelowCount, 2);
        assert.deepEqual(r.keptBelow, ['/proj/src', '/proj/src/b.ts']);
        assert.equal((await s.ok(key, 'read', { path: '/proj/a.md' })).content, 'a2\n');
        assert.equal((await s.ok(key, 'read', { path: '/proj/src/b.ts' })).content, 'new b\n');
        assert.equal((await s.ok(key, 'stat', { path: '/proj/empty' })).type, 'directory');
        const cs = await s.ok(key, 'list_changes', { changesetId: r.changesetId });
        assert.equal(cs.entryCount, 2, 'the two paths missing below (/proj/src exists again), one changeset');
        assert.ok(cs.entries.every((e: any) => e.op === 'restore'));
        await s.fail(key, 'restore', { path: '/proj', version: dirVersion }, 'NO_CHANGE');
      });

      it('a deleted directory comes back whole, as it was, in one changeset', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/w/a.md', content: 'a1\n' });
        await s.ok(key, 'write', { path: '/w/a.md', content: 'a2\n' });
        await s.ok(key, 'write', { path: '/w/s/b.md', content: 'b\n' });
        await s.ok(key, 'delete', { path: '/w', recursive: true });
        const r = await s.ok(key, 'restore', { path: '/w', version: 1 });
        assert.equal(r.undeleted, true);
        assert.deepEqual(
          r.restoredBelow.map((e: any) => [e.path, e.restoredFrom]),
          [
            ['/w/a.md', 2],
            ['/w/s', 1],
            ['/w/s/b.md', 1],
          ],
        );
        assert.equal(r.keptBelow, undefined);
        assert.equal((await s.ok(key, 'read', { path: '/w/s/b.md' })).content, 'b\n');
        const cs = await s.ok(key, 'list_changes', { changesetId: r.changesetId });
        assert.equal(cs.entryCount, 4);
      });

      it('a big subtree: restoredBelow capped at 100 with the full count; the file quota holds', async () => {
        const { key } = await fresh();
        const files = Array.from({ length: 120 }, (_, i) => `echo ${i} > /big/f${String(i).padStart(3, '0')}.txt`);
        await s.ok(key, 'bash', { command: `mkdir -p /big && ${files.join(' && ')}` });
        await s.ok(key, 'delete', { path: '/big', recursive: true });
        const r = await s.ok(key, 'restore', { path: '/big', version: 1 });
        assert.equal(r.restoredBelowCount, 120);
        assert.equal(r.restoredBelow.length, 100);
        assert.equal(r.restoredBelowTruncated, true);
        assert.match(r.restoredBelowNote, new RegExp(r.changesetId));
        assert.equal((await s.ok(key, 'read', { path: '/big/f119.txt' })).content, '119\n');
        assert.equal((await s.ok(key, 'list_changes', { changesetId: r.changesetId })).entryCount, 121);

        await s.ok(key, 'delete', { path: '/big', recursive: true });
        const saved = s.config.maxFilesPerAgent;
        s.config.maxFilesPerAgent = 50;
        try {
          const q = await s.fail(key, 'restore', { path: '/big', version: 3 }, 'QUOTA_EXCEEDED');
          assert.equal(q.details.quota, 'files');
          await s.fail(key, 'stat', { path: '/big' }, 'NOT_FOUND');
        } finally {
          s.config.maxFilesPerAgent = saved;
        }
      });

      it('files deleted one by one before the directory: the empty directory comes back with a hint', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/d/x.md', content: 'x' });
        await s.ok(key, 'delete', { path: '/d/x.md' });
        await s.ok(key, 'delete', { path: '/d' });
        const r = await s.ok(key, 'restore', { path: '/d', version: 1 });
        assert.equal(r.restoredBelowCount, 0);
        assert.match(r.deletedBelowHint, /list_deleted/);
      });
    });

    describe('revert_changeset: partial changesets and a second revert', () => {
      it('a folder key cannot revert a changeset that crosses its folder: OUTSIDE_KEY_FOLDER says why and what key is needed', async () => {
        const { key, agentId } = await fresh();
        await s.ok(key, 'write', { path: '/team/a.md', content: 'a' });
        const mv = await s.ok(key, 'move', { from: '/team/a.md', to: '/elsewhere/a.md' });
        const folderKey = await s.addKey(agentId, { scopes: ['files'], folder: '/team' });
        const seen = await s.ok(folderKey, 'list_changes', { changesetId: mv.changesetId });
        assert.equal(seen.partial, true);
        const err = await s.fail(folderKey, 'revert_changeset', { changesetId: mv.changesetId }, 'OUTSIDE_KEY_FOLDER');
        assert.equal(err.details.folder, '/team');
        assert.equal(err.details.needsFolder, '/');
        assert.match(err.message, /outside this key's folder \/team/);
        assert.match(err.message, /partial: true/);
        // Wholly outside the folder: still not this key's to see.
        const other = await s.ok(key, 'write', { path: '/elsewhere/b.md', content: 'b' });
        await s.fail(folderKey, 'revert_changeset', { changesetId: other.changesetId }, 'NOT_FOUND');
        // The full key can.
        assert.equal((await s.ok(key, 'revert_changeset', { changesetId: mv.changesetId })).applied, true);
      });

      it('reverting twice names the revert that already undid it (details.revertedBy)', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/r.md', content: 'one\n' });
        const w = await s.ok(key, 'write', { path: '/r.md', content: 'two\n' });
        const rev = await s.ok(key, 'revert_changeset', { changesetId: w.changesetId });
        const again = await s.fail(key, 'revert_changeset', { changesetId: w.changesetId }, 'EDIT_CONFLICT');
        assert.equal(again.details.revertedBy, rev.changesetId);
        assert.match(again.message, new RegExp(`already reverted by ${rev.changesetId}`));
        // A plain later change is still a plain conflict.
        const w2 = await s.ok(key, 'write', { path: '/r.md', content: 'three\n' });
        await s.ok(key, 'write', { path: '/r.md', content: 'four\n' });
        const plain = await s.fail(key, 'revert_changeset', { changesetId: w2.changesetId }, 'EDIT_CONFLICT');
        assert.equal(plain.details.revertedBy, undefined);
        assert.equal(plain.details.conflictCount, 1);
      });
    });

    describe('edit with edits[]: NO_MATCH details', () => {
      it('a failing edit 2 gives the same closest-line details as a single edit, plus editIndex', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/e.md', content: '# Title\n\nfunction hello() {\n  return "world";\n}\n' });
        const single = await s.fail(key, 'edit', { path: '/e.md', old_string: '\treturn "world";', new_string: 'x' }, 'NO_MATCH');
        const many = await s.fail(
          key,
          'edit',
          {
            path: '/e.md',
            edits: [
              { old_string: 'function', new_string: 'fn' },
              { old_string: '\treturn "world";', new_string: 'x' },
            ],
          },
          'NO_MATCH',
        );
        assert.equal(many.details.editIndex, 1);
        assert.deepEqual(many.details.closest, single.details.closest);
        assert.deepEqual(many.details.reasons, single.details.reasons);
        assert.ok(many.details.context.length > 0);
      });
    });

    describe('create_key', () => {
      it('the schema says exactly one of scopes or preset; neither or both keep the helpful message', async () => {
        const { key } = await fresh();
        const api = (await s.raw('/openapi.json')).body;
        const schema = api.paths['/api/tools/create_key'].post.requestBody.content['application/json'].schema;
        assert.deepEqual(schema.oneOf, [{ required: ['scopes'] }, { required: ['preset'] }]);
        assert.deepEqual(schema.required, ['label']);
        const neither = await s.fail(key, 'create_key', { label: 'x' }, 'INVALID_INPUT');
        assert.match(neither.message, /exactly one of scopes .* or preset/);
        await s.fail(key, 'create_key', { label: 'x', preset: 'files', scopes: ['files:read'] }, 'INVALID_INPUT');
      });

      it('a folder that does not exist yet is accepted with a warning; an existing one without', async () => {
        const { key } = await fresh();
        const k = await s.ok(key, 'create_key', { label: 'later', preset: 'files', folder: '/x' });
        assert.deepEqual(k.warnings, ['folder /x does not exist yet; the key can create it (mkdir, or write a file inside it).']);
        assert.equal(k.folder, '/x');
        await s.ok(k.apiKey, 'mkdir', { path: '/x' });
        const ro = await s.ok(key, 'create_key', { label: 'ro', preset: 'read-only', folder: '/y' });
        assert.match(ro.warnings[0], /cannot create it/);
        const ok = await s.ok(key, 'create_key', { label: 'now', preset: 'files', folder: '/x' });
        assert.equal(ok.warnings, undefined);
      });
    });
  });
}

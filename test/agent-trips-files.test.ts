/**
 * Issue 12 ("what an agent trips on"), reading/paging and files/history items: read's paging
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
        assert.deepEqual(pages.map((p) => [p.lines.start, p.lines.end]), [[1, 4], [5, 8], [9, 10]]);
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
        assert.deepEqual(all.versions.map((v: any) => [v.path, v.version, v.op]), expected);
        const paged: any[] = [];
        for (let before: string | undefined; ; ) {
          const p = await s.ok(key, 'list_versions', { path: '/c/x.md', limit: 1, ...(before ? { before } : {}) });
          paged.push(...p.versions);
          if (p.nextBefore === null) break;
          before = p.nextBefore;
        }
        assert.deepEqual(paged.map((v: any) => [v.path, v.version, v.op]), expected);
        // before as a version number of this path.
        const older = await s.ok(key, 'list_versions', { path: '/c/x.md', before: 1 });
        assert.deepEqual(older.versions.map((v: any) => [v.path, v.version]), [['/b/x.md', 3], ['/b/x.md', 2], ['/b/x.md', 1]]);
        await s.fail(key, 'list_versions', { path: '/c/x.md', before: 'bm90IGEgdG9rZW4' }, 'INVALID_INPUT');
      });
    });
  });
}

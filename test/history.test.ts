/**
 * History and recovery (docs/contract/files.md#files-and-versions, §5): append, move, copy, list_versions, read/stat of a
 * version, diff, restore, list_changes, revert_changeset, list_deleted, purge, and content
 * deduplication. Over HTTP, on both backends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { assertEnvelope } from './helpers/assert-envelope.js';
import { startServer, type TestServer } from './helpers/server.js';

interface Agent {
  key: string;
  agentId: string;
}

for (const backend of backends()) {
  describe(`history and recovery (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, { RATE_LIMIT_PER_MINUTE: '1000000' });
    });
    after(() => s.close());

    let n = 0;
    const fresh = async (): Promise<Agent> => {
      const { apiKey } = await s.register(`History ${++n}`);
      return { key: apiKey, agentId: (await s.ok(apiKey, 'get_key_info')).agent.id };
    };
    const usage = async (key: string) => (await s.ok(key, 'get_key_info')).usage.storageBytes as number;
    const text = async (key: string, path: string) => (await s.ok(key, 'read', { path })).content as string;
    const latestSeq = async (key: string) => ((await s.ok(key, 'list_changes', { limit: 1 })).changesets[0]?.seq ?? 0) as number;
    const allVersions = async (key: string, path: string) => (await s.ok(key, 'list_versions', { path, limit: 200 })).versions as any[];

    describe('append', () => {
      it('creates a missing file (and its parents), then concatenates with nothing in between', async () => {
        const { key } = await fresh();
        const a = await s.ok(key, 'append', { path: '/logs/deep/run.log', content: 'one' });
        assert.equal(a.created, true);
        assert.equal(a.version, 1);
        assert.equal(a.unchanged, false);
        assert.match(a.changesetId, /^cs_/);
        assert.equal((await s.ok(key, 'stat', { path: '/logs/deep' })).type, 'directory');
        const b = await s.ok(key, 'append', { path: '/logs/deep/run.log', content: 'two\n' });
        assert.equal(b.created, false);
        assert.equal(b.version, 2);
        assert.equal(b.size, 7);
        await s.ok(key, 'append', { path: '/logs/deep/run.log', content: 'three\n' });
        assert.equal(await text(key, '/logs/deep/run.log'), 'onetwo\nthree\n');
        const ops = (await allVersions(key, '/logs/deep/run.log')).map((v) => v.op);
        assert.deepEqual(ops, ['update', 'update', 'create']);
        // Appending nothing creates no version.
        const none = await s.ok(key, 'append', { path: '/logs/deep/run.log', content: '' });
        assert.equal(none.unchanged, true);
        assert.equal(none.version, 3);
        assert.equal(none.changesetId, null);
      });

      it('expectedVersion: appends when it holds, EDIT_CONFLICT (nothing appended) when the file moved on', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/a.log', content: 'x\n' });
        const ok = await s.ok(key, 'append', { path: '/a.log', content: 'y\n', expectedVersion: 1 });
        assert.equal(ok.version, 2);
        const err = await s.fail(key, 'append', { path: '/a.log', content: 'z\n', expectedVersion: 1 }, 'EDIT_CONFLICT');
        assert.equal(err.details.current.version, 2);
        assert.equal(err.details.current.by.label, 'default');
        assert.equal(await text(key, '/a.log'), 'x\ny\n');
        // expectedVersion on a file that does not exist yet → conflict, not a silent create.
        await s.fail(key, 'append', { path: '/new.log', content: 'z', expectedVersion: 1 }, 'EDIT_CONFLICT');
        await s.fail(key, 'read', { path: '/new.log' }, 'NOT_FOUND');
        await s.fail(key, 'append', { path: '/', content: 'z' }, 'IS_A_DIRECTORY');
        await s.fail(key, 'append', { path: '/a.log/x', content: 'z' }, 'NOT_A_DIRECTORY');
      });
    });

    describe('move', () => {
      it('a file: one changeset, history follows the file to its new path, the old path is a tombstone', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/m/a.txt', content: 'first\n' });
        await s.ok(key, 'write', { path: '/m/a.txt', content: 'second\n' });
        const seq = await latestSeq(key);
        const mv = await s.ok(key, 'move', { from: '/m/a.txt', to: '/m/b.txt' });
        assert.equal(mv.from, '/m/a.txt');
        assert.equal(mv.to, '/m/b.txt');
        assert.equal(mv.version, 1);
        assert.deepEqual(mv.entries, [{ from: '/m/a.txt', to: '/m/b.txt', version: 1 }]);
        assert.equal(await text(key, '/m/b.txt'), 'second\n');
        const gone = await s.fail(key, 'read', { path: '/m/a.txt' }, 'NOT_FOUND');
        assert.equal(gone.details.deleted.version, 3);

        const changes = (await s.ok(key, 'list_changes', { afterSeq: seq })).changesets;
        assert.equal(changes.length, 1, 'exactly one changeset');
        assert.equal(changes[0].changesetId, mv.changesetId);
        assert.equal(changes[0].tool, 'move');
        assert.deepEqual(changes[0].entries.map((e: any) => [e.path, e.op, e.fromVersion, e.toVersion]).sort(), [
          ['/m/a.txt', 'move', 2, 3],
          ['/m/b.txt', 'move', null, 1],
        ]);

        const versions = await allVersions(key, '/m/b.txt');
        const brief = versions.map((v) => `${v.path}@${v.version}:${v.op}`);
        assert.ok(brief.includes('/m/b.txt@1:move'), brief.join());
        assert.ok(brief.includes('/m/a.txt@2:update'), brief.join());
        assert.ok(brief.includes('/m/a.txt@1:create'), brief.join());
        assert.equal(brief[brief.length - 1], '/m/a.txt@1:create');
        // The old content is still readable through the old path's versions.
        assert.equal((await s.ok(key, 'read', { path: '/m/a.txt', version: 1 })).content, 'first\n');
      });

      it('a directory moves its whole subtree in one changeset', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/src/x.txt', content: 'x' });
        await s.ok(key, 'write', { path: '/src/sub/y.txt', content: 'y' });
        await s.ok(key, 'mkdir', { path: '/src/empty' });
        const seq = await latestSeq(key);
        const mv = await s.ok(key, 'move', { from: '/src', to: '/archive/dst' });
        assert.deepEqual(
          mv.entries.map((e: any) => `${e.from}>${e.to}`).sort(),
          [
            '/src>/archive/dst',
            '/src/empty>/archive/dst/empty',
            '/src/sub/y.txt>/archive/dst/sub/y.txt',
            '/src/sub>/archive/dst/sub',
            '/src/x.txt>/archive/dst/x.txt',
          ].sort(),
        );
        const listed = (await s.ok(key, 'list', { path: '/archive/dst', recursive: true })).entries.map((e: any) => e.path);
        assert.deepEqual(listed, ['/archive/dst/empty', '/archive/dst/sub', '/archive/dst/sub/y.txt', '/archive/dst/x.txt']);
        assert.equal(await text(key, '/archive/dst/sub/y.txt'), 'y');
        // History follows every file of the subtree.
        const childHistory = (await allVersions(key, '/archive/dst/sub/y.txt')).map((v) => `${v.path}@${v.version}:${v.op}`);
        assert.ok(childHistory.includes('/src/sub/y.txt@1:create'), childHistory.join());
        assert.ok(childHistory.includes('/archive/dst/sub/y.txt@1:move'), childHistory.join());
        await s.fail(key, 'list', { path: '/src' }, 'NOT_FOUND');
        await s.fail(key, 'read', { path: '/src/sub/y.txt' }, 'NOT_FOUND');
        const changes = (await s.ok(key, 'list_changes', { afterSeq: seq })).changesets;
        assert.equal(changes.length, 1);
        // 5 moved paths (source tombstone + destination each) plus the new /archive parent.
        assert.equal(changes[0].entries.length, 11);
        assert.deepEqual(
          changes[0].entries.filter((e: any) => e.path === '/archive').map((e: any) => e.op),
          ['create'],
        );
      });

      it('ALREADY_EXISTS without overwrite; overwrite replaces a file (not a directory); INVALID_PATH into itself; NOT_FOUND', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/o/src.txt', content: 'source\n' });
        await s.ok(key, 'write', { path: '/o/dst.txt', content: 'destination\n' });
        const exists = await s.fail(key, 'move', { from: '/o/src.txt', to: '/o/dst.txt' }, 'ALREADY_EXISTS');
        assert.equal(exists.details.path, '/o/dst.txt');
        assert.equal(exists.details.version, 1);
        assert.equal(await text(key, '/o/src.txt'), 'source\n');
        assert.equal(await text(key, '/o/dst.txt'), 'destination\n');

        const mv = await s.ok(key, 'move', { from: '/o/src.txt', to: '/o/dst.txt', overwrite: true });
        assert.equal(mv.version, 2, 'the destination path continues its own numbering');
        assert.equal(await text(key, '/o/dst.txt'), 'source\n');
        await s.fail(key, 'read', { path: '/o/src.txt' }, 'NOT_FOUND');
        // The replaced content stays in the destination's history.
        assert.equal((await s.ok(key, 'read', { path: '/o/dst.txt', version: 1 })).content, 'destination\n');

        // Into an existing directory (like mv): overwrite never replaces a directory there.
        await s.ok(key, 'mkdir', { path: '/o/dir/dst.txt' });
        const dirThere = await s.fail(key, 'move', { from: '/o/dst.txt', to: '/o/dir', overwrite: true }, 'ALREADY_EXISTS');
        assert.equal(dirThere.details.path, '/o/dir/dst.txt');
        assert.equal(dirThere.details.overwritable, false);
        const into = await s.fail(key, 'move', { from: '/o', to: '/o/dir/inner' }, 'INVALID_PATH');
        assert.equal(into.details.reason, 'into_itself');
        await s.fail(key, 'move', { from: '/o/missing.txt', to: '/o/x.txt' }, 'NOT_FOUND');
        await s.fail(key, 'move', { from: '/o/dst.txt', to: '/o/dst.txt/x' }, 'INVALID_PATH');
      });

      it('needs files:delete as well as files:write', async () => {
        const { key, agentId } = await fresh();
        await s.ok(key, 'write', { path: '/s.txt', content: 's' });
        const writer = await s.addKey(agentId, { scopes: ['files:read', 'files:write'] });
        const err = await s.fail(writer, 'move', { from: '/s.txt', to: '/t.txt' }, 'INSUFFICIENT_SCOPE');
        assert.deepEqual(err.details.missing, ['files:delete']);
        assert.equal(await text(key, '/s.txt'), 's');
      });
    });

    describe('copy', () => {
      it('a file: server-side, its own new history, the source untouched, storage does not grow', async () => {
        const { key } = await fresh();
        const content = 'copy me\n'.repeat(500);
        await s.ok(key, 'write', { path: '/c/src.txt', content: 'old\n' });
        const w = await s.ok(key, 'write', { path: '/c/src.txt', content });
        const used = await usage(key);
        const cp = await s.ok(key, 'copy', { from: '/c/src.txt', to: '/c/copy.txt' });
        assert.equal(cp.version, 1);
        assert.equal(await text(key, '/c/copy.txt'), content);
        const st = await s.ok(key, 'stat', { path: '/c/copy.txt' });
        assert.equal(st.contentHash, w.contentHash);
        assert.equal(st.versionCount, 1);
        const versions = await allVersions(key, '/c/copy.txt');
        assert.deepEqual(
          versions.map((v) => [v.path, v.version, v.op]),
          [['/c/copy.txt', 1, 'create']],
        );
        assert.equal((await s.ok(key, 'stat', { path: '/c/src.txt' })).version, 2);
        assert.equal(await usage(key), used, 'content is deduplicated, a copy adds no bytes');
        // Changing the copy does not change the source.
        await s.ok(key, 'edit', { path: '/c/copy.txt', old_string: 'copy me\n', new_string: 'changed\n', replace_all: true });
        assert.equal(await text(key, '/c/src.txt'), content);
      });

      it('a directory with its subtree; ALREADY_EXISTS; overwrite; NOT_FOUND; INVALID_PATH into itself', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/d/a.txt', content: 'A' });
        await s.ok(key, 'write', { path: '/d/sub/b.txt', content: 'B' });
        const used = await usage(key);
        const cp = await s.ok(key, 'copy', { from: '/d', to: '/e' });
        assert.equal(cp.entries.length, 4);
        const listed = (await s.ok(key, 'list', { path: '/e', recursive: true })).entries.map((e: any) => e.path);
        assert.deepEqual(listed, ['/e/a.txt', '/e/sub', '/e/sub/b.txt']);
        assert.equal(await text(key, '/e/sub/b.txt'), 'B');
        assert.equal(await text(key, '/d/sub/b.txt'), 'B');
        assert.equal(await usage(key), used);
        const cs = (await s.ok(key, 'list_changes', { limit: 1 })).changesets[0];
        assert.equal(cs.changesetId, cp.changesetId);
        assert.ok(cs.entries.every((e: any) => e.op === 'create'));

        await s.fail(key, 'copy', { from: '/d/a.txt', to: '/e/a.txt' }, 'ALREADY_EXISTS');
        // /e is a directory now, so the copy goes into it (like cp -r); a second time /e/d is taken.
        assert.equal((await s.ok(key, 'copy', { from: '/d', to: '/e' })).to, '/e/d');
        await s.fail(key, 'copy', { from: '/d', to: '/e' }, 'ALREADY_EXISTS');
        const ow = await s.ok(key, 'copy', { from: '/d/sub/b.txt', to: '/e/a.txt', overwrite: true });
        assert.equal(ow.version, 2);
        assert.equal(await text(key, '/e/a.txt'), 'B');
        await s.fail(key, 'copy', { from: '/nope', to: '/x' }, 'NOT_FOUND');
        await s.fail(key, 'copy', { from: '/d', to: '/d/sub/d' }, 'INVALID_PATH');
      });
    });

    describe('list_versions, read/stat of a version, diff', () => {
      it('pages newest first with limit + nextCursor (no gaps, no repeats), and shows every op', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/lv/f.txt', content: 'v1\n' }); // f1 create
        await s.ok(key, 'write', { path: '/lv/f.txt', content: 'v2\n' }); // f2 update
        await s.ok(key, 'write', { path: '/lv/f.txt', content: 'v3\n' }); // f3 update
        await s.ok(key, 'delete', { path: '/lv/f.txt' }); // f4 delete
        await s.ok(key, 'restore', { path: '/lv/f.txt', version: 2 }); // f5 restore
        await s.ok(key, 'move', { from: '/lv/f.txt', to: '/lv/g.txt' }); // f6 move (tombstone), g1 move

        const full = await allVersions(key, '/lv/g.txt');
        assert.equal(full.length, 7);
        const keys = full.map((v) => `${v.path}@${v.version}`);
        assert.deepEqual([...keys].slice(2), ['/lv/f.txt@5', '/lv/f.txt@4', '/lv/f.txt@3', '/lv/f.txt@2', '/lv/f.txt@1']);
        assert.deepEqual([...keys].slice(0, 2).sort(), ['/lv/f.txt@6', '/lv/g.txt@1']);
        assert.deepEqual(new Set(full.map((v) => v.op)), new Set(['create', 'update', 'delete', 'restore', 'move']));
        for (let i = 1; i < full.length; i++) assert.ok(full[i - 1].updatedAt >= full[i].updatedAt, 'newest first');
        const del = full.find((v) => v.version === 4);
        assert.equal(del.deleted, true);
        assert.equal(del.op, 'delete');
        const restored = full.find((v) => v.path === '/lv/f.txt' && v.version === 5);
        assert.equal(restored.contentHash, full.find((v) => v.path === '/lv/f.txt' && v.version === 2).contentHash);
        for (const v of full) {
          assert.match(v.changesetId, /^cs_/);
          assert.equal(v.by.label, 'default');
        }

        const paged: string[] = [];
        let beforeToken: string | undefined;
        let pages = 0;
        for (;;) {
          const page = await s.ok(key, 'list_versions', { path: '/lv/g.txt', limit: 3, ...(beforeToken ? { cursor: beforeToken } : {}) });
          pages++;
          assert.ok(page.versions.length <= 3);
          paged.push(...page.versions.map((v: any) => `${v.path}@${v.version}`));
          if (!page.nextCursor) break;
          beforeToken = page.nextCursor;
        }
        assert.equal(pages, 3);
        assert.deepEqual(paged, keys);

        // before as a version number of the path.
        const older = await s.ok(key, 'list_versions', { path: '/lv/f.txt', before: 4, limit: 10 });
        assert.deepEqual(
          older.versions.map((v: any) => v.version),
          [3, 2, 1],
        );
        assert.equal(older.nextCursor, null);
        await s.fail(key, 'list_versions', { path: '/lv/f.txt', before: 'garbage' }, 'INVALID_INPUT');
        await s.fail(key, 'list_versions', { path: '/lv/f.txt', before: 99 }, 'VERSION_NOT_FOUND');
        await s.fail(key, 'list_versions', { path: '/lv/never.txt' }, 'NOT_FOUND');
      });

      it('read and stat with version; VERSION_NOT_FOUND for a missing version or a delete marker', async () => {
        const { key } = await fresh();
        const w1 = await s.ok(key, 'write', { path: '/v.txt', content: 'one\n' });
        const w2 = await s.ok(key, 'write', { path: '/v.txt', content: 'two\ntwo\n' });
        await s.ok(key, 'delete', { path: '/v.txt' });
        const r1 = await s.ok(key, 'read', { path: '/v.txt', version: 1 });
        assert.equal(r1.content, 'one\n');
        assert.equal(r1.version, 1);
        assert.equal(r1.updatedAt, w1.updatedAt);
        assert.equal(r1.contentHash, w1.contentHash);
        const st = await s.ok(key, 'stat', { path: '/v.txt', version: 2 });
        assert.equal(st.version, 2);
        assert.equal(st.size, 8);
        assert.equal(st.lineCount, 2);
        assert.equal(st.updatedAt, w2.updatedAt);
        assert.equal(st.op, 'update');
        assert.equal(st.deleted, false);
        const st3 = await s.ok(key, 'stat', { path: '/v.txt', version: 3 });
        assert.equal(st3.deleted, true);
        assert.equal(st3.op, 'delete');
        const missing = await s.fail(key, 'read', { path: '/v.txt', version: 9 }, 'VERSION_NOT_FOUND');
        assert.equal(missing.details.latestVersion, 3);
        await s.fail(key, 'read', { path: '/v.txt', version: 3 }, 'VERSION_NOT_FOUND');
        await s.fail(key, 'stat', { path: '/v.txt', version: 9 }, 'VERSION_NOT_FOUND');
      });

      it('diff between any two versions; a deleted side renders /dev/null; VERSION_NOT_FOUND', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/df.txt', content: 'a\nb\nc\n' });
        await s.ok(key, 'write', { path: '/df.txt', content: 'a\nB\nc\n' });
        await s.ok(key, 'write', { path: '/df.txt', content: 'a\nB\nc\nd\n' });
        const d12 = await s.ok(key, 'diff', { path: '/df.txt', fromVersion: 1, toVersion: 2 });
        assert.equal(d12.diff, '--- a/df.txt\t(version 1)\n+++ b/df.txt\t(version 2)\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n');
        assert.equal(d12.identical, false);
        const d1 = await s.ok(key, 'diff', { path: '/df.txt', fromVersion: 1 });
        assert.equal(d1.toVersion, 3);
        assert.equal(d1.diff, '--- a/df.txt\t(version 1)\n+++ b/df.txt\t(version 3)\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n');
        const back = await s.ok(key, 'diff', { path: '/df.txt', fromVersion: 3, toVersion: 1 });
        assert.ok(back.diff.includes('-B\n+b\n') && back.diff.includes('-d\n'));
        const same = await s.ok(key, 'diff', { path: '/df.txt', fromVersion: 2, toVersion: 2 });
        assert.equal(same.diff, '');
        assert.equal(same.identical, true);

        await s.ok(key, 'delete', { path: '/df.txt' });
        const gone = await s.ok(key, 'diff', { path: '/df.txt', fromVersion: 3 });
        assert.equal(gone.toVersion, 4);
        assert.equal(gone.diff, '--- a/df.txt\t(version 3)\n+++ /dev/null\n@@ -1,4 +0,0 @@\n-a\n-B\n-c\n-d\n');
        const born = await s.ok(key, 'diff', { path: '/df.txt', fromVersion: 4, toVersion: 1 });
        assert.equal(born.diff, '--- /dev/null\n+++ b/df.txt\t(version 1)\n@@ -0,0 +1,3 @@\n+a\n+b\n+c\n');
        const err = await s.fail(key, 'diff', { path: '/df.txt', fromVersion: 1, toVersion: 7 }, 'VERSION_NOT_FOUND');
        assert.equal(err.details.version, 7);
        await s.fail(key, 'diff', { path: '/df.txt', fromVersion: 9 }, 'VERSION_NOT_FOUND');
        await s.fail(key, 'diff', { path: '/nothing.txt', fromVersion: 1 }, 'NOT_FOUND');
      });
    });

    describe('restore', () => {
      it('a new head version with the old content; history is kept; NO_CHANGE when identical; dryRun writes nothing', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/r.txt', content: 'good\n' });
        await s.ok(key, 'write', { path: '/r.txt', content: 'bad\n' });
        const seq = await latestSeq(key);
        const dry = await s.ok(key, 'restore', { path: '/r.txt', version: 1, dryRun: true });
        assert.equal(dry.applied, false);
        assert.equal(dry.baseVersion, 2);
        assert.ok(dry.diff.includes('-bad\n+good\n'), dry.diff);
        assert.equal(await text(key, '/r.txt'), 'bad\n');
        assert.equal((await s.ok(key, 'stat', { path: '/r.txt' })).version, 2);
        assert.equal(await latestSeq(key), seq);

        const r = await s.ok(key, 'restore', { path: '/r.txt', version: 1 });
        assert.equal(r.applied, true);
        assert.equal(r.version, 3);
        assert.equal(r.restoredFrom, 1);
        assert.equal(r.undeleted, false);
        assert.equal(await text(key, '/r.txt'), 'good\n');
        assert.deepEqual(
          (await allVersions(key, '/r.txt')).map((v) => [v.version, v.op]),
          [
            [3, 'restore'],
            [2, 'update'],
            [1, 'create'],
          ],
        );
        assert.equal((await s.ok(key, 'read', { path: '/r.txt', version: 2 })).content, 'bad\n');

        const same = await s.fail(key, 'restore', { path: '/r.txt', version: 1 }, 'NO_CHANGE');
        assert.equal(same.details.version, 3);
        await s.fail(key, 'restore', { path: '/r.txt', version: 3 }, 'NO_CHANGE');
        await s.fail(key, 'restore', { path: '/r.txt', version: 8 }, 'VERSION_NOT_FOUND');
        const conflict = await s.fail(key, 'restore', { path: '/r.txt', version: 2, expectedVersion: 2 }, 'EDIT_CONFLICT');
        assert.equal(conflict.details.current.version, 3);
        await s.fail(key, 'restore', { path: '/never.txt', version: 1 }, 'NOT_FOUND');
      });

      it('undeletes a deleted file and its deleted parent directories; a delete marker cannot be restored', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/u/deep/dir/f.txt', content: 'back\n' });
        await s.ok(key, 'write', { path: '/u/deep/other.txt', content: 'other\n' });
        const del = await s.ok(key, 'delete', { path: '/u', recursive: true });
        assert.equal(del.deletedPaths.length, 5);
        await s.fail(key, 'list', { path: '/u' }, 'NOT_FOUND');

        const marker = await s.fail(key, 'restore', { path: '/u/deep/dir/f.txt', version: 2 }, 'VERSION_NOT_FOUND');
        assert.equal(marker.details.version, 2);
        const r = await s.ok(key, 'restore', { path: '/u/deep/dir/f.txt', version: 1 });
        assert.equal(r.undeleted, true);
        assert.equal(r.version, 3);
        assert.equal(await text(key, '/u/deep/dir/f.txt'), 'back\n');
        for (const dir of ['/u', '/u/deep', '/u/deep/dir']) assert.equal((await s.ok(key, 'stat', { path: dir })).type, 'directory', dir);
        // Only the restored file came back, not its deleted sibling.
        await s.fail(key, 'read', { path: '/u/deep/other.txt' }, 'NOT_FOUND');
        const cs = (await s.ok(key, 'list_changes', { limit: 1 })).changesets[0];
        assert.equal(cs.tool, 'restore');
        assert.deepEqual(cs.entries.map((e: any) => e.path).sort(), ['/u', '/u/deep', '/u/deep/dir', '/u/deep/dir/f.txt']);
      });
    });

    describe('list_changes', () => {
      it('newest first, paged with before; a path prefix filter (component-wise)', async () => {
        const { key } = await fresh();
        const ids: string[] = [];
        for (let i = 0; i < 6; i++) ids.push((await s.ok(key, 'write', { path: `/lc/a/f${i}.txt`, content: `${i}` })).changesetId);
        ids.push((await s.ok(key, 'write', { path: '/lc/ab.txt', content: 'ab' })).changesetId);
        ids.push((await s.ok(key, 'write', { path: '/other.txt', content: 'o' })).changesetId);

        const first = await s.ok(key, 'list_changes', { limit: 3 });
        assert.deepEqual(
          first.changesets.map((c: any) => c.changesetId),
          ids.slice(-3).reverse(),
        );
        assert.deepEqual(
          first.changesets.map((c: any) => c.seq),
          [8, 7, 6],
        );
        const second = await s.ok(key, 'list_changes', { limit: 3, cursor: first.nextCursor });
        assert.deepEqual(
          second.changesets.map((c: any) => c.seq),
          [5, 4, 3],
        );
        const c0 = first.changesets[0];
        assert.equal(c0.tool, 'write');
        assert.equal(c0.by.label, 'default');
        assert.match(c0.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

        const filtered = await s.ok(key, 'list_changes', { path: '/lc/a' });
        assert.deepEqual(
          filtered.changesets.map((c: any) => c.changesetId),
          ids.slice(0, 6).reverse(),
        );
        // The first write also created /lc and /lc/a: the filter keeps only the entries below /lc/a.
        const oldest = filtered.changesets[filtered.changesets.length - 1];
        assert.deepEqual(
          oldest.entries.map((e: any) => e.path),
          ['/lc/a', '/lc/a/f0.txt'],
        );
        assert.equal(oldest.partial, true);
        assert.equal(filtered.nextCursor, null);
        const lc = await s.ok(key, 'list_changes', { path: '/lc' });
        assert.equal(lc.changesets.length, 7);
        await s.fail(key, 'list_changes', { afterSeq: 1, before: 5 }, 'INVALID_INPUT');
      });

      it('afterSeq: oldest first after seq; nextAfterSeq resumes without gaps or repeats, also as new changes arrive', async () => {
        const { key } = await fresh();
        for (let i = 0; i < 12; i++) await s.ok(key, 'write', { path: `/feed/${i}.txt`, content: `${i}` });
        const seen: number[] = [];
        let since = 0;
        for (let round = 0; round < 10; round++) {
          const page = await s.ok(key, 'list_changes', { afterSeq: since, limit: 5 });
          const seqs = page.changesets.map((c: any) => c.seq);
          assert.deepEqual(
            seqs,
            [...seqs].sort((a, b) => a - b),
            'oldest first',
          );
          seen.push(...seqs);
          if (seqs.length) assert.equal(page.nextAfterSeq, seqs[seqs.length - 1]);
          else assert.equal(page.nextAfterSeq, since);
          since = page.nextAfterSeq;
          if (round === 1) await s.ok(key, 'write', { path: '/feed/late.txt', content: 'late' });
          if (seqs.length === 0) break;
        }
        assert.deepEqual(
          seen,
          Array.from({ length: 13 }, (_, i) => i + 1),
        );
        // With a path filter, since still advances over changesets it skips.
        const filtered = await s.ok(key, 'list_changes', { afterSeq: 0, path: '/feed/late.txt' });
        assert.equal(filtered.changesets.length, 1);
        assert.equal(filtered.changesets[0].seq, 13);
        assert.equal(filtered.nextAfterSeq, 13);
      });
    });

    describe('revert_changeset', () => {
      it('reverting a recursive delete brings every file and directory back, atomically, in one changeset', async () => {
        const { key } = await fresh();
        const files: Record<string, string> = { '/t/a.txt': 'A\n', '/t/sub/b.txt': 'B\n', '/t/sub/deeper/c.txt': 'C\n' };
        for (const [path, content] of Object.entries(files)) await s.ok(key, 'write', { path, content });
        const del = await s.ok(key, 'delete', { path: '/t', recursive: true });
        const seq = await latestSeq(key);
        const dry = await s.ok(key, 'revert_changeset', { changesetId: del.changesetId, dryRun: true });
        assert.equal(dry.applied, false);
        assert.equal(dry.entries.length, 6);
        assert.equal(await latestSeq(key), seq, 'dryRun writes nothing');
        await s.fail(key, 'read', { path: '/t/a.txt' }, 'NOT_FOUND');

        const rv = await s.ok(key, 'revert_changeset', { changesetId: del.changesetId });
        assert.equal(rv.applied, true);
        assert.equal(rv.reverted, del.changesetId);
        assert.equal(rv.forced, false);
        assert.equal(rv.entries.length, 6);
        for (const [path, content] of Object.entries(files)) assert.equal(await text(key, path), content, path);
        const listed = (await s.ok(key, 'list', { path: '/t', recursive: true })).entries.map((e: any) => e.path);
        assert.deepEqual(listed, ['/t/a.txt', '/t/sub', '/t/sub/b.txt', '/t/sub/deeper', '/t/sub/deeper/c.txt']);
        const changes = (await s.ok(key, 'list_changes', { afterSeq: seq })).changesets;
        assert.equal(changes.length, 1);
        assert.equal(changes[0].tool, 'revert_changeset');
        assert.equal(changes[0].changesetId, rv.changesetId);
        // Reverting it again: nothing left to do.
        await s.fail(key, 'revert_changeset', { changesetId: del.changesetId }, 'EDIT_CONFLICT');
      });

      it('reverting a move puts the file back at its old path and removes the new one', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/mv/old.txt', content: 'moving\n' });
        const mv = await s.ok(key, 'move', { from: '/mv/old.txt', to: '/mv/new.txt' });
        await s.ok(key, 'revert_changeset', { changesetId: mv.changesetId });
        assert.equal(await text(key, '/mv/old.txt'), 'moving\n');
        await s.fail(key, 'read', { path: '/mv/new.txt' }, 'NOT_FOUND');
        const versions = (await allVersions(key, '/mv/old.txt')).map((v) => `${v.path}@${v.version}:${v.op}`);
        // The file keeps its identity: the restore, the move's two sides and the original create.
        assert.deepEqual(versions.slice(0, 2).sort(), ['/mv/new.txt@2:delete', '/mv/old.txt@3:restore']);
        assert.deepEqual(versions.slice(2).sort(), ['/mv/new.txt@1:move', '/mv/old.txt@1:create', '/mv/old.txt@2:move']);
      });

      it('EDIT_CONFLICT listing the paths changed since, unless force: true; dryRun with force writes nothing', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/cf.txt', content: 'one\n' });
        const e1 = await s.ok(key, 'edit', { path: '/cf.txt', old_string: 'one', new_string: 'two' });
        await s.ok(key, 'edit', { path: '/cf.txt', old_string: 'two', new_string: 'three' });
        const err = await s.fail(key, 'revert_changeset', { changesetId: e1.changesetId }, 'EDIT_CONFLICT');
        assert.equal(err.details.changesetId, e1.changesetId);
        assert.equal(err.details.paths.length, 1);
        assert.equal(err.details.paths[0].path, '/cf.txt');
        assert.equal(err.details.paths[0].changesetVersion, 2);
        assert.equal(err.details.paths[0].currentVersion, 3);
        assert.match(err.message, /force: true/);
        assert.equal(await text(key, '/cf.txt'), 'three\n');

        const seq = await latestSeq(key);
        const dry = await s.ok(key, 'revert_changeset', { changesetId: e1.changesetId, force: true, dryRun: true });
        assert.equal(dry.applied, false);
        assert.equal(dry.forced, true);
        assert.equal(await latestSeq(key), seq);
        assert.equal(await text(key, '/cf.txt'), 'three\n');

        const forced = await s.ok(key, 'revert_changeset', { changesetId: e1.changesetId, force: true });
        assert.equal(forced.forced, true);
        assert.deepEqual(forced.entries, [{ path: '/cf.txt', op: 'restore', fromVersion: 3, toVersion: 4 }]);
        assert.equal(await text(key, '/cf.txt'), 'one\n');
      });

      it('a key with files:write but not files:delete: INSUFFICIENT_SCOPE when the revert deletes; fine otherwise; NOT_FOUND', async () => {
        const { key, agentId } = await fresh();
        const writer = await s.addKey(agentId, { scopes: ['files:read', 'files:write'], label: 'writer' });
        const created = await s.ok(key, 'write', { path: '/sc/new.txt', content: 'n\n' });
        const err = await s.fail(writer, 'revert_changeset', { changesetId: created.changesetId }, 'INSUFFICIENT_SCOPE');
        assert.deepEqual(err.details.missing, ['files:delete']);
        assert.equal(await text(key, '/sc/new.txt'), 'n\n');
        // Even as a dry run the answer is the same: the key could not apply it.
        await s.fail(writer, 'revert_changeset', { changesetId: created.changesetId, dryRun: true }, 'INSUFFICIENT_SCOPE');

        const upd = await s.ok(key, 'write', { path: '/sc/new.txt', content: 'changed\n' });
        const ok = await s.ok(writer, 'revert_changeset', { changesetId: upd.changesetId });
        assert.equal(ok.applied, true);
        assert.equal(await text(key, '/sc/new.txt'), 'n\n');
        const nf = await s.fail(key, 'revert_changeset', { changesetId: 'cs_doesnotexist' }, 'NOT_FOUND');
        assert.equal(nf.details.changesetId, 'cs_doesnotexist');
        // A changeset of another agent is just as unknown.
        const other = await fresh();
        await s.fail(other.key, 'revert_changeset', { changesetId: upd.changesetId }, 'NOT_FOUND');
      });
    });

    describe('list_deleted', () => {
      it('tombstones with lastVersion, deletedAt and by; paged; restored paths disappear', async () => {
        const { key, agentId } = await fresh();
        const cleaner = await s.addKey(agentId, { scopes: ['files'], label: 'cleaner' });
        for (const name of ['a', 'b', 'c', 'keep']) {
          await s.ok(key, 'write', { path: `/ld/${name}.txt`, content: name });
          await s.ok(key, 'write', { path: `/ld/${name}.txt`, content: `${name}${name}` });
        }
        const deletions: Record<string, any> = {};
        for (const name of ['a', 'b', 'c']) deletions[name] = await s.ok(cleaner, 'delete', { path: `/ld/${name}.txt` });
        await s.ok(key, 'write', { path: '/elsewhere/z.txt', content: 'z' });
        await s.ok(key, 'delete', { path: '/elsewhere/z.txt' });

        const all = await s.ok(key, 'list_deleted', { path: '/ld' });
        assert.deepEqual(
          all.deletedPaths.map((d: any) => d.path),
          ['/ld/a.txt', '/ld/b.txt', '/ld/c.txt'],
        );
        for (const d of all.deletedPaths) {
          assert.equal(d.version, 3);
          assert.equal(d.lastVersion, 2);
          assert.equal(d.type, 'file');
          assert.equal(d.by.label, 'cleaner');
          assert.equal(d.deletedAt, deletions[d.path.slice(4, 5)].updatedAt);
        }
        assert.equal(all.nextCursor, null);
        const root = await s.ok(key, 'list_deleted', {});
        assert.deepEqual(
          root.deletedPaths.map((d: any) => d.path),
          ['/elsewhere/z.txt', '/ld/a.txt', '/ld/b.txt', '/ld/c.txt'],
        );

        const p1 = await s.ok(key, 'list_deleted', { path: '/ld', limit: 2 });
        assert.deepEqual(
          p1.deletedPaths.map((d: any) => d.path),
          ['/ld/a.txt', '/ld/b.txt'],
        );
        assert.ok(p1.nextCursor);
        const p2 = await s.ok(key, 'list_deleted', { path: '/ld', limit: 2, cursor: p1.nextCursor });
        assert.deepEqual(
          p2.deletedPaths.map((d: any) => d.path),
          ['/ld/c.txt'],
        );
        assert.equal(p2.nextCursor, null);

        // lastVersion is what restore takes.
        await s.ok(key, 'restore', { path: '/ld/b.txt', version: all.deletedPaths[1].lastVersion });
        assert.equal(await text(key, '/ld/b.txt'), 'bb');
        const after = await s.ok(key, 'list_deleted', { path: '/ld' });
        assert.deepEqual(
          after.deletedPaths.map((d: any) => d.path),
          ['/ld/a.txt', '/ld/c.txt'],
        );
      });
    });

    describe('purge', () => {
      it('only a full-scope key, only with confirm: true', async () => {
        const { key, agentId } = await fresh();
        await s.ok(key, 'write', { path: '/p.txt', content: 'p' });
        const filesKey = await s.addKey(agentId, { scopes: ['files'] });
        const err = await s.fail(filesKey, 'purge', { path: '/p.txt', confirm: true }, 'INSUFFICIENT_SCOPE');
        assert.equal(err.details.required.fullAccess, true, 'purge requires the full-access key');
        await s.fail(key, 'purge', { path: '/p.txt' }, 'INVALID_INPUT');
        await s.fail(key, 'purge', { path: '/p.txt', confirm: false }, 'INVALID_INPUT');
        await s.fail(key, 'purge', { path: '/p.txt', confirm: 'yes' }, 'INVALID_INPUT');
        assert.equal(await text(key, '/p.txt'), 'p');
        await s.fail(key, 'purge', { path: '/nothing.txt', confirm: true }, 'NOT_FOUND');
        await s.fail(key, 'purge', { path: '/', confirm: true }, 'INVALID_PATH');
      });

      it('removes every version; content is freed only when no other version uses it; numbering continues', async () => {
        const { key } = await fresh();
        const A = 'shared content A\n'.repeat(10);
        const B = 'secret B\n'.repeat(20);
        await s.ok(key, 'write', { path: '/s/secret.txt', content: A });
        await s.ok(key, 'write', { path: '/s/secret.txt', content: B });
        await s.ok(key, 'write', { path: '/s/secret.txt', content: A });
        await s.ok(key, 'write', { path: '/s/other.txt', content: A });
        const before = await usage(key);
        assert.equal(before, A.length + B.length);

        const p = await s.ok(key, 'purge', { path: '/s/secret.txt', confirm: true });
        assert.deepEqual(p.purged, ['/s/secret.txt']);
        assert.equal(p.versionsRemoved, 3);
        assert.equal(p.bytesFreed, B.length);
        assert.equal(await usage(key), A.length, 'B freed, A still used by /s/other.txt');
        assert.equal(await text(key, '/s/other.txt'), A);

        const nf = await s.fail(key, 'read', { path: '/s/secret.txt' }, 'NOT_FOUND');
        assert.equal(nf.details.purged, true);
        assert.equal(nf.details.deleted, undefined);
        await s.fail(key, 'read', { path: '/s/secret.txt', version: 2 }, 'VERSION_NOT_FOUND');
        await s.fail(key, 'list_versions', { path: '/s/secret.txt' }, 'NOT_FOUND');
        await s.fail(key, 'restore', { path: '/s/secret.txt', version: 2 }, 'NOT_FOUND');
        await s.fail(key, 'diff', { path: '/s/secret.txt', fromVersion: 1 }, 'NOT_FOUND');
        await s.fail(key, 'purge', { path: '/s/secret.txt', confirm: true }, 'NOT_FOUND');
        const deleted = await s.ok(key, 'list_deleted', {});
        assert.deepEqual(deleted.deletedPaths, []);
        const listed = (await s.ok(key, 'list', { path: '/s' })).entries.map((e: any) => e.path);
        assert.deepEqual(listed, ['/s/other.txt']);

        const again = await s.ok(key, 'write', { path: '/s/secret.txt', content: 'fresh\n' });
        assert.equal(again.created, true);
        assert.equal(again.version, 4, 'version numbers are never reused');
        const versions = await allVersions(key, '/s/secret.txt');
        assert.deepEqual(
          versions.map((v) => v.version),
          [4],
        );

        const p2 = await s.ok(key, 'purge', { path: '/s/other.txt', confirm: true });
        assert.equal(p2.bytesFreed, A.length);
        assert.equal(await usage(key), 'fresh\n'.length);
      });

      it('forgets saved idempotent results: a retry after purge cannot replay purged content (an edit diff)', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/leak.txt', content: 'token = placeholder\n' });
        const edit = { path: '/leak.txt', old_string: 'placeholder', new_string: 'sk-LEAKED-123', idempotencyKey: 'edit-leak-1' };
        const first = await s.ok(key, 'edit', edit);
        assert.match(first.diff, /sk-LEAKED-123/, 'the saved first result echoes the secret');
        assert.match((await s.ok(key, 'edit', edit)).diff, /sk-LEAKED-123/, 'before purge a retry replays it');

        await s.ok(key, 'purge', { path: '/leak.txt', confirm: true });
        const retry = await s.fail(key, 'edit', edit, 'NOT_FOUND');
        assert.doesNotMatch(JSON.stringify(retry), /sk-LEAKED-123/);
      });

      it('a deleted file and a whole directory (live and deleted entries below it)', async () => {
        const { key } = await fresh();
        await s.ok(key, 'write', { path: '/pd/keep/x.txt', content: 'xx' });
        await s.ok(key, 'write', { path: '/pd/gone.txt', content: 'gone' });
        await s.ok(key, 'delete', { path: '/pd/gone.txt' });
        await s.ok(key, 'write', { path: '/solo.txt', content: 'solo' });
        await s.ok(key, 'delete', { path: '/solo.txt' });
        assert.deepEqual(
          (await s.ok(key, 'list_deleted', {})).deletedPaths.map((d: any) => d.path),
          ['/pd/gone.txt', '/solo.txt'],
        );

        await s.ok(key, 'purge', { path: '/solo.txt', confirm: true });
        assert.deepEqual(
          (await s.ok(key, 'list_deleted', {})).deletedPaths.map((d: any) => d.path),
          ['/pd/gone.txt'],
        );
        await s.fail(key, 'restore', { path: '/solo.txt', version: 1 }, 'NOT_FOUND');

        const p = await s.ok(key, 'purge', { path: '/pd', confirm: true });
        assert.deepEqual([...p.purged].sort(), ['/pd', '/pd/gone.txt', '/pd/keep', '/pd/keep/x.txt']);
        assert.equal(await usage(key), 0);
        assert.deepEqual((await s.ok(key, 'list_deleted', {})).deletedPaths, []);
        await s.fail(key, 'read', { path: '/pd/keep/x.txt' }, 'NOT_FOUND');
        await s.fail(key, 'stat', { path: '/pd' }, 'NOT_FOUND');
        assert.deepEqual(
          (await s.ok(key, 'list', { path: '/' })).entries.filter((e: { mount?: string }) => !e.mount),
          [],
        ); // /shared and /published are always listed
      });
    });

    describe('content deduplication', () => {
      it('100 versions alternating between two contents store exactly 2 blobs', async () => {
        const { key, agentId } = await fresh();
        const one = 'content one\n'.repeat(50);
        const two = 'content two, a bit longer\n'.repeat(40);
        for (let i = 0; i < 100; i++) {
          const r = await s.call(key, 'write', { path: '/dedup.txt', content: i % 2 === 0 ? one : two });
          assertEnvelope(r, 'success');
          assert.equal(r.inner.version, i + 1);
        }
        assert.equal((await s.ok(key, 'stat', { path: '/dedup.txt' })).versionCount, 100);
        assert.equal(await usage(key), Buffer.byteLength(one) + Buffer.byteLength(two));
        // Count the stored blobs directly.
        const store = s.store as any;
        const count =
          backend === 'sqlite'
            ? store.db.prepare('SELECT COUNT(*) AS c FROM blobs WHERE agent_id = ?').get(agentId).c
            : (await store.pool.query('SELECT COUNT(*)::int AS c FROM blobs WHERE agent_id = $1', [agentId])).rows[0].c;
        assert.equal(count, 2);
        // Restoring and copying reuse them too.
        await s.ok(key, 'restore', { path: '/dedup.txt', version: 1 });
        await s.ok(key, 'copy', { from: '/dedup.txt', to: '/dedup-copy.txt' });
        assert.equal(await usage(key), Buffer.byteLength(one) + Buffer.byteLength(two));
      });

      it("never across agents: writing another agent's exact bytes stores and charges them again (nothing to time or count)", async () => {
        const alice = await fresh();
        const bob = await fresh();
        const content = `a secret only alice has ${Math.random()}\n`.repeat(20);
        await s.ok(alice.key, 'write', { path: '/secret.txt', content });
        const before = await usage(bob.key);
        const r = await s.ok(bob.key, 'write', { path: '/guess.txt', content });
        assert.equal(r.version, 1);
        assert.equal(await usage(bob.key), before + Buffer.byteLength(content), 'charged in full: no dedupe against alice');
        const store = s.store as any;
        const blobs =
          backend === 'sqlite'
            ? store.db.prepare('SELECT COUNT(*) AS c FROM blobs WHERE agent_id = ?').get(bob.agentId).c
            : (await store.pool.query('SELECT COUNT(*)::int AS c FROM blobs WHERE agent_id = $1', [bob.agentId])).rows[0].c;
        assert.equal(blobs, 1, "bob's own blob");
      });
    });
  });
}

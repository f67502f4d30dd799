/**
 * What /published shows another agent and the anonymous public API (docs/contract/visibility.md),
 * on both backends: exactly what was published — a pinned file at its version, the head of every
 * live file otherwise — never an earlier version, a deleted file or their metadata,
 * whatever the path (read, stat, list_versions, diff, list_deleted, bash, search, /api/public);
 * and the author as @slug, never its keys.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

for (const backend of backends()) {
  describe(`/published shows exactly what was published (${backend})`, () => {
    let s: TestServer;
    let a: { key: string; slug: string };
    let b: { key: string; slug: string };
    let P: string;
    const pub = async (tool: string, input: unknown) =>
      (
        await s.raw(`/api/public/${tool}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(input),
        })
      ).inner;

    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
      const ra = await s.register('Pub Vis Author');
      const rb = await s.register('Pub Vis Reader');
      a = { key: ra.apiKey, slug: ra.slug };
      b = { key: rb.apiKey, slug: rb.slug };
      P = `/published/${a.slug}`;
      await s.ok(a.key, 'write', { path: '/pubdir/report.md', content: 'DRAFT API_KEY=sk-live-123\n' });
      await s.ok(a.key, 'write', { path: '/pubdir/report.md', content: 'final\n' });
      await s.ok(a.key, 'write', { path: '/pubdir/creds.env', content: 'PASSWORD=hunter2\n' });
      await s.ok(a.key, 'delete', { path: '/pubdir/creds.env' });
      await s.ok(a.key, 'publish', { path: '/pubdir', title: 'Dir' });
      await s.ok(a.key, 'write', { path: '/head/h.md', content: 'SECRET-v1\n' });
      await s.ok(a.key, 'write', { path: '/head/h.md', content: 'public\n' });
      await s.ok(a.key, 'publish', { path: '/head/h.md', title: 'Head', version: 'head' });
      await s.ok(a.key, 'write', { path: '/pin/p.md', content: 'pinned v1\n' });
      await s.ok(a.key, 'publish', { path: '/pin/p.md', title: 'Pinned', version: 1 });
      await s.ok(a.key, 'write', { path: '/pin/p.md', content: 'UNRELEASED v2, longer than v1\n' });
    });
    after(() => s.close());

    it('an earlier version or a deleted file is NOT_FOUND, the same answer as a path that does not exist', async () => {
      const absent = await s.fail(b.key, 'read', { path: `${P}/pubdir/nothing.md` }, 'NOT_FOUND');
      const same = (err: any, path: string) =>
        assert.deepEqual(err, { ...absent, message: absent.message.replace(`${P}/pubdir/nothing.md`, path), details: { ...absent.details, path } });
      for (const [path, version] of [
        [`${P}/pubdir/report.md`, 1],
        [`${P}/pubdir/creds.env`, 1],
        [`${P}/pubdir/creds.env`, undefined],
        [`${P}/head/h.md`, 1],
        [`${P}/pin/p.md`, 2],
        [`${P}/pubdir/report.md`, 7],
      ] as const) {
        const input = version === undefined ? { path } : { path, version };
        same(await s.fail(b.key, 'read', input, 'NOT_FOUND'), path);
        same(await s.fail(b.key, 'stat', input, 'NOT_FOUND'), path);
        // The same anonymously.
        const anon = await pub('read', input);
        assert.equal(anon.error.code, 'NOT_FOUND', JSON.stringify(input));
        assert.equal((await pub('stat', input)).error.code, 'NOT_FOUND', JSON.stringify(input));
      }
      assert.equal((await s.ok(b.key, 'read', { path: `${P}/pubdir/report.md`, version: 2 })).content, 'final\n');
      assert.equal((await pub('read', { path: `${P}/pubdir/report.md` })).content, 'final\n');
      assert.equal((await s.ok(b.key, 'read', { path: `${P}/head/h.md`, version: 2 })).content, 'public\n');
      assert.equal((await s.ok(b.key, 'read', { path: `${P}/pin/p.md`, version: 1 })).content, 'pinned v1\n');
      assert.equal((await pub('read', { path: `${P}/pin/p.md` })).content, 'pinned v1\n');
    });

    it('list_versions shows the one visible version; stat counts one; diff and list_deleted stay refused', async () => {
      const report = await s.ok(b.key, 'list_versions', { path: `${P}/pubdir/report.md` });
      assert.deepEqual(
        report.versions.map((v: any) => v.version),
        [2],
      );
      assert.equal(report.nextCursor, null);
      const pinned = await s.ok(b.key, 'list_versions', { path: `${P}/pin/p.md` });
      assert.deepEqual([pinned.currentVersion, pinned.versions.map((v: any) => [v.version, v.size])], [1, [[1, 10]]]);
      assert.deepEqual(
        (await s.ok(b.key, 'list_versions', { path: `${P}/head/h.md`, before: 2 })).versions.map((v: any) => v.version),
        [2],
      );
      assert.equal((await s.ok(b.key, 'stat', { path: `${P}/pubdir/report.md` })).versionCount, 1);
      assert.equal((await s.ok(b.key, 'stat', { path: `${P}/pin/p.md` })).size, 10);
      await s.fail(b.key, 'list_versions', { path: `${P}/pubdir/creds.env` }, 'NOT_FOUND');
      await s.fail(b.key, 'diff', { path: `${P}/pubdir/report.md`, fromVersion: 1 }, 'FORBIDDEN');
      await s.fail(b.key, 'list_deleted', { path: `${P}/pubdir` }, 'FORBIDDEN');
      const names = (await s.ok(b.key, 'list', { path: `${P}/pubdir` })).entries.map((e: any) => e.name);
      assert.deepEqual(names, ['report.md']);
    });

    it('bash shows the bytes and sizes read shows: the pinned version through every command', async () => {
      const cmd = async (command: string) => {
        const r = await s.ok(b.key, 'bash', { command });
        return r.stdout;
      };
      const pin = `${P}/pin`;
      assert.equal(await cmd(`cat ${pin}/p.md`), 'pinned v1\n');
      assert.equal(await cmd(`cat ${pin}/*`), 'pinned v1\n');
      assert.equal(await cmd(`grep -r . ${pin}`), `${pin}/p.md:pinned v1\n`);
      assert.equal(await cmd(`grep -r v ${P}`), `${P}/pin/p.md:pinned v1\n`);
      assert.equal(await cmd(`find ${pin} -type f -exec cat {} +`), 'pinned v1\n');
      assert.equal(await cmd(`ls ${pin}; cat ${pin}/p.md`), 'p.md\npinned v1\n');
      assert.match(await cmd(`ls -l ${pin}`), / 10 .* p\.md\n/);
      assert.equal(await cmd(`wc -c < ${pin}/p.md`), '10\n');
      assert.equal(await cmd(`stat -c %s ${pin}/p.md`), '10\n');
      const gone = await s.ok(b.key, 'bash', { command: `cat ${P}/pubdir/creds.env; ls ${P}/pubdir` });
      assert.match(gone.stderr, /No such file or directory/);
      assert.equal(gone.stdout, 'report.md\n');
    });

    it('a file published pinned inside a directory published too reads at its head, through read and bash alike', async () => {
      await s.ok(a.key, 'write', { path: '/mix/m.md', content: 'm1\n' });
      await s.ok(a.key, 'publish', { path: '/mix/m.md', title: 'M', version: 1 });
      await s.ok(a.key, 'write', { path: '/mix/m.md', content: 'm2 head\n' });
      await s.ok(a.key, 'publish', { path: '/mix', title: 'Mix' });
      const read = (await s.ok(b.key, 'read', { path: `${P}/mix/m.md` })).content;
      assert.equal(read, 'm2 head\n');
      const sh = await s.ok(b.key, 'bash', { command: `cat ${P}/mix/m.md; cat ${P}/mix/*; wc -c < ${P}/mix/m.md` });
      assert.equal(sh.stdout, `${read}${read}8\n`);
    });

    it('search finds only the published bytes', async () => {
      for (const q of ['sk-live', 'hunter2', 'UNRELEASED', 'SECRET-v1']) {
        const r = await s.ok(b.key, 'search', { query: q, types: ['files'] });
        assert.deepEqual(r.items, [], q);
      }
    });

    it('the author is @slug, never its keys', async () => {
      const by = { keyId: null, label: null, slug: a.slug };
      assert.deepEqual((await s.ok(b.key, 'stat', { path: `${P}/pubdir/report.md` })).updatedBy, by);
      assert.deepEqual((await s.ok(b.key, 'stat', { path: `${P}/pin/p.md` })).updatedBy, by);
      assert.deepEqual((await pub('stat', { path: `${P}/head/h.md` })).updatedBy, by);
      assert.deepEqual((await s.ok(b.key, 'list_versions', { path: `${P}/pubdir/report.md` })).versions[0].by, by);
      const own = await s.ok(a.key, 'stat', { path: '/pubdir/report.md' });
      assert.equal(typeof own.updatedBy.keyId, 'string', 'the owner in its own tree sees its keys');
    });
  });
}

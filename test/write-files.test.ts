/**
 * write_files on both backends: many files in one changeset, all or nothing; identical content left
 * alone; every error it documents, each leaving the tree untouched; concurrent batches over the
 * same paths never interleave.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

for (const backend of backends()) {
  describe(`write_files (${backend})`, () => {
    let s: TestServer;
    let key: string;
    let agentId: string;
    before(async () => {
      s = await startServer(backend, { MAX_FILE_BYTES: '4096', STORAGE_QUOTA_BYTES: '200000' }, { via: 'inject' });
      ({ apiKey: key, id: agentId } = await s.register('Batch Writer'));
    });
    after(() => s.close());

    const missing = async (path: string) =>
      assert.equal((await s.call(key, 'read', { path })).inner.error.code, 'NOT_FOUND', `${path} was not written`);

    it('writes every file in one changeset, creating parents, text and base64', async () => {
      const r = await s.ok(key, 'write_files', {
        files: [
          { path: '/site/index.md', content: '# Home\n' },
          { path: '/site/img/dot.bin', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' },
          { path: '/site/docs/a/b.md', content: 'deep\n' },
        ],
      });
      assert.match(r.changesetId, /^cs_/);
      assert.equal(r.written, 3);
      assert.equal(r.bytes, 7 + 4 + 5);
      assert.deepEqual(
        r.files.map((f: any) => [f.path, f.version, f.created, f.unchanged]),
        [
          ['/site/index.md', 1, true, false],
          ['/site/img/dot.bin', 1, true, false],
          ['/site/docs/a/b.md', 1, true, false],
        ],
      );
      assert.equal((await s.ok(key, 'read', { path: '/site/docs/a/b.md' })).content, 'deep\n');
      assert.equal((await s.ok(key, 'read', { path: '/site/img/dot.bin', encoding: 'base64' })).content, 'AAEC/w==');
      for (const f of r.files) assert.equal((await s.ok(key, 'list_versions', { path: f.path })).versions[0].changesetId, r.changesetId);
      const changes = await s.ok(key, 'list_changes', {});
      assert.equal(changes.changesets[0].changesetId, r.changesetId);
      assert.equal(changes.changesets[0].tool, 'write_files');
    });

    it('leaves identical content alone: nothing changed → no changeset; one changed → one new version', async () => {
      const same = await s.ok(key, 'write_files', { files: [{ path: '/site/index.md', content: '# Home\n' }] });
      assert.equal(same.changesetId, null);
      assert.equal(same.written, 0);
      assert.deepEqual(same.files[0], { ...same.files[0], unchanged: true, created: false, version: 1 });
      const mixed = await s.ok(key, 'write_files', {
        files: [
          { path: '/site/index.md', content: '# Home\n' },
          { path: '/site/docs/a/b.md', content: 'deeper\n' },
        ],
      });
      assert.equal(mixed.written, 1);
      assert.deepEqual(
        mixed.files.map((f: any) => [f.version, f.unchanged]),
        [
          [1, true],
          [2, false],
        ],
      );
    });

    it('is all or nothing: a file that cannot be written names itself and nothing of the batch is written', async () => {
      await s.ok(key, 'write', { path: '/plain.txt', content: 'a file\n' });
      const e = await s.fail(
        key,
        'write_files',
        {
          files: [
            { path: '/batch1/ok.txt', content: 'fine\n' },
            { path: '/plain.txt/inside.txt', content: 'no\n' },
          ],
        },
        'NOT_A_DIRECTORY',
      );
      assert.equal(e.details.blockingPath, '/plain.txt');
      await missing('/batch1/ok.txt');
      const dir = await s.fail(
        key,
        'write_files',
        {
          files: [
            { path: '/batch2/x.txt', content: 'x' },
            { path: '/site/docs', content: 'x' },
          ],
        },
        'IS_A_DIRECTORY',
      );
      assert.equal(dir.details.path, '/site/docs');
      await missing('/batch2/x.txt');
      await s.fail(key, 'write_files', { files: [{ path: '/', content: 'x' }] }, 'IS_A_DIRECTORY');
    });

    it('refuses a path twice, a file below another of the batch, bad base64, an empty or oversized list', async () => {
      const twice = await s.fail(
        key,
        'write_files',
        {
          files: [
            { path: '/t/a', content: '1' },
            { path: '/t/./a', content: '2' },
          ],
        },
        'INVALID_INPUT',
      );
      assert.equal(twice.details.field, 'files[1].path');
      const below = await s.fail(
        key,
        'write_files',
        {
          files: [
            { path: '/t/b', content: '1' },
            { path: '/t/b/c', content: '2' },
          ],
        },
        'NOT_A_DIRECTORY',
      );
      assert.equal(below.details.blockingPath, '/t/b');
      await s.fail(key, 'write_files', { files: [{ path: '/t/c', content: '!!', encoding: 'base64' }] }, 'INVALID_INPUT');
      await s.fail(key, 'write_files', { files: [] }, 'INVALID_INPUT');
      const many = Array.from({ length: 1001 }, (_, i) => ({ path: `/t/m${i}`, content: '' }));
      await s.fail(key, 'write_files', { files: many }, 'INVALID_INPUT');
      await missing('/t/a');
      await missing('/t/b');
    });

    it('FILE_TOO_LARGE and QUOTA_EXCEEDED name the file or quota and write nothing', async () => {
      const big = await s.fail(
        key,
        'write_files',
        {
          files: [
            { path: '/q/small.txt', content: 'small' },
            { path: '/q/big.txt', content: 'x'.repeat(5000) },
          ],
        },
        'FILE_TOO_LARGE',
      );
      assert.equal(big.details.path, '/q/big.txt');
      const files = Array.from({ length: 60 }, (_, i) => ({ path: `/q/f${i}.txt`, content: `${i}`.padEnd(4000, '.') }));
      const quota = await s.fail(key, 'write_files', { files }, 'QUOTA_EXCEEDED');
      assert.equal(quota.details.quota, 'storage');
      await missing('/q/small.txt');
      await missing('/q/f0.txt');
    });

    it('INVALID_PATH for the mounts and .., OUTSIDE_KEY_FOLDER for a folder key, nothing written', async () => {
      await s.fail(key, 'write_files', { files: [{ path: '/shared/someone/x.txt', content: 'x' }] }, 'INVALID_PATH');
      await s.fail(key, 'write_files', { files: [{ path: 'relative.txt', content: 'x' }] }, 'INVALID_PATH');
      const folderKey = await s.addKey(agentId, { scopes: ['files:read', 'files:write'], folder: '/inbox' });
      await s.ok(folderKey, 'write_files', { files: [{ path: '/inbox/in.txt', content: 'in\n' }] });
      const out = await s.fail(
        folderKey,
        'write_files',
        {
          files: [
            { path: '/inbox/in2.txt', content: 'in\n' },
            { path: '/outside.txt', content: 'out\n' },
          ],
        },
        'OUTSIDE_KEY_FOLDER',
      );
      assert.equal(out.details.path, '/outside.txt');
      await missing('/inbox/in2.txt');
    });

    it('replays an idempotencyKey; concurrent batches over the same paths never interleave', async () => {
      const input = { files: [{ path: '/idem/a.txt', content: 'a\n' }], idempotencyKey: 'wf-1' };
      const first = await s.ok(key, 'write_files', input);
      const again = await s.ok(key, 'write_files', input);
      assert.equal(again.replayed, true);
      assert.equal(again.changesetId, first.changesetId);

      const paths = Array.from({ length: 30 }, (_, i) => `/race/f${i}.txt`);
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, (_, k) => s.call(key, 'write_files', { files: paths.map((path) => ({ path, content: `batch ${k}\n` })) })),
      );
      for (const o of outcomes) assert.ok(!o.isError || o.inner.error.code === 'EDIT_CONFLICT', JSON.stringify(o.inner).slice(0, 300));
      const contents = new Set<string>();
      for (const path of paths) contents.add((await s.ok(key, 'read', { path })).content);
      assert.equal(contents.size, 1, `every file from the same batch: ${[...contents].join(' | ')}`);
    });
  });
}

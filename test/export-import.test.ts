/**
 * export_my_data and npm run import-agent, on both backends and across them: an agent
 * with files, several versions, a deleted file, a move, a 150-file changeset (its entries in
 * chunks), a binary file, an empty directory, keys, a profile, a post and a comment is exported
 * through its link and imported into a fresh database of each backend; the history (list_versions,
 * read at every version, stat, list_changes, list_deleted) and the head tree match the source's
 * exactly, times included, and the archive is a tar GNU tar reads. Also: the archive is the agent
 * as of the call (a later write is not in it), the tool's errors as a client sees them, the link's
 * 404 and 410, damaged and truncated archives refused with nothing left behind, an import into the
 * source database itself (new changeset ids, a new slug), and the import-agent command.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { exportTokenHash, newExportToken } from '../src/tools/export.js';
import { ImportError, importArchive } from '../src/transfer/import.js';
import { TarError } from '../src/core/tar.js';
import { EXPORT_ROW_TTL_MS } from '../src/store/transfer.js';
import { assertEnvelope } from './helpers/assert-envelope.js';
import { backends, heavyBackends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const IMPORT_JS = fileURLToPath(new URL('../src/import-agent.js', import.meta.url));

async function* chunks(buf: Buffer, size = 7000): AsyncGenerator<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

async function download(s: TestServer, url: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(s.url + new URL(url).pathname);
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Everything the history tools show of an agent, page by page. */
async function history(s: TestServer, key: string) {
  const tree = [];
  for (let cursor: string | null | undefined; ;) {
    const r = await s.ok(key, 'list', { path: '/', recursive: true, limit: 1000, ...(cursor ? { cursor } : {}) });
    tree.push(...r.entries);
    if (!(cursor = r.nextCursor)) break;
  }
  const changes = [];
  for (let since = 0; ;) {
    const r = await s.ok(key, 'list_changes', { afterSeq: since, limit: 100 });
    changes.push(...r.changesets);
    if (r.changesets.length < 100) break;
    since = r.changesets[r.changesets.length - 1].seq;
  }
  const paths = new Set<string>(tree.filter((e: any) => e.type === 'file').map((e: any) => e.path));
  const deleted = (await s.ok(key, 'list_deleted', { path: '/' })).deletedPaths;
  for (const d of deleted) paths.add(d.path);
  const files: Record<string, unknown> = {};
  for (const path of [...paths].sort()) {
    const versions = (await s.ok(key, 'list_versions', { path, limit: 100 })).versions;
    const contents = [];
    for (const v of versions) {
      if (v.op === 'delete' || v.deleted) continue;
      const r = await s.call(key, 'read', { path, version: v.version });
      contents.push(r.inner.success ? [v.version, r.inner.content, r.inner.contentHash, r.inner.updatedAt] : [v.version, r.inner.error.code]);
    }
    const stat = await s.call(key, 'stat', { path });
    files[path] = { versions, contents, stat: stat.inner.success ? stat.inner : stat.inner.error.code };
  }
  return { tree, changes, deleted, files };
}

/** The source agent: every kind of history the issue names. */
async function buildAgent(s: TestServer) {
  const a = await s.register('Archive Owner');
  const k = a.apiKey;
  await s.ok(k, 'write', { path: '/notes/todo.md', content: '# Todo\n- one\n' });
  await s.ok(k, 'edit', { path: '/notes/todo.md', old_string: '- one', new_string: '- one\n- two' });
  await s.ok(k, 'append', { path: '/notes/todo.md', content: '- three\n' });
  await s.ok(k, 'write', { path: '/notes/gone.md', content: 'short-lived\n' });
  await s.ok(k, 'delete', { path: '/notes/gone.md' });
  await s.ok(k, 'write', { path: '/docs/draft.md', content: 'draft\n' });
  await s.ok(k, 'move', { from: '/docs/draft.md', to: '/docs/final.md' });
  await s.ok(k, 'write', {
    path: '/bin/img.png',
    content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]).toString('base64'),
    encoding: 'base64',
  });
  await s.ok(k, 'mkdir', { path: '/empty/dir' });
  await s.ok(k, 'write', { path: '/same/a.txt', content: 'same bytes\n' });
  await s.ok(k, 'write', { path: '/same/b.txt', content: 'same bytes\n' });
  const files = Array.from({ length: 150 }, (_, i) => ({ path: `/batch/f${String(i).padStart(3, '0')}.txt`, content: `file ${i}\n` }));
  await s.ok(k, 'write_files', { files });
  await s.ok(k, 'write', { path: `/deep/${'long-directory-name/'.repeat(8)}ünïcødé file.md`, content: 'a long, non-ASCII path\n' });
  await s.ok(k, 'create_key', { label: 'reader', preset: 'read-only' });
  await s.ok(k, 'update_my_profile', {
    displayName: 'The Owner',
    description: 'Exports things.',
    tags: ['archives'],
    links: [{ label: 'home', url: 'https://example.com' }],
  });
  await s.ok(k, 'create_community', { name: 'exporters' });
  const post = (await s.ok(k, 'create_post', { community: 'exporters', title: 'On archives', body: 'They keep history.' })).post;
  await s.ok(k, 'comment', { postId: post.postId, body: 'And timestamps.' });
  return { agent: a, key: k, postId: post.postId };
}

for (const backend of heavyBackends()) {
  describe(`export_my_data and import-agent (${backend})`, () => {
    let s: TestServer;
    let key: string;
    let postId: string;
    let archive: Buffer;
    let source: Awaited<ReturnType<typeof history>>;
    const targets: TestServer[] = [];
    before(async () => {
      s = await startServer(backend);
      ({ key, postId } = await buildAgent(s));
      source = await history(s, key);
    });
    after(async () => {
      for (const t of targets) await t.close();
      await s.close();
    });

    it('export_my_data answers a link; the link serves a tar of the agent as of the call', async () => {
      const r = await s.call(key, 'export_my_data', {});
      assertEnvelope(r, 'success');
      const e = r.inner.export;
      assert.match(e.url, /\/exports\/ex_[\w-]{43}$/);
      assert.equal(e.asOfSeq, source.changes[source.changes.length - 1].seq);
      assert.equal(e.changesetCount, e.asOfSeq);
      assert.ok(e.estimatedBytes > e.contentBytes && e.estimatedBytes < e.limitBytes);
      // A write after the call is not in the archive.
      await s.ok(key, 'write', { path: '/notes/after.md', content: 'later\n' });
      const got = await download(s, e.url);
      assert.equal(got.status, 200);
      assert.equal(got.headers.get('content-type'), 'application/x-tar');
      assert.match(got.headers.get('content-disposition') ?? '', /^attachment; filename="afs-archive-owner-.*\.tar"$/);
      assert.equal(got.headers.get('cache-control'), 'no-store');
      archive = got.bytes;
      // The same archive again (the link is as of its seq), byte for byte except the manifest's exportedAt.
      const again = await download(s, e.url);
      assert.equal(again.bytes.length, archive.length);
      await s.ok(key, 'delete', { path: '/notes/after.md' });
      await s.ok(key, 'purge', { path: '/notes/after.md', confirm: true });
    });

    it('GNU tar reads it: the head tree under tree/, contents extractable, history and account files', () => {
      const dir = mkdtempSync(join(tmpdir(), 'afs-export-'));
      try {
        const file = join(dir, 'a.tar');
        writeFileSync(file, archive);
        const names = execFileSync('tar', ['-tf', file], { encoding: 'utf8' }).split('\n').filter(Boolean);
        for (const n of [
          'manifest.json',
          'tree/notes/todo.md',
          'tree/docs/final.md',
          'tree/empty/dir/',
          'account/profile.json',
          'account/keys.json',
          'end.json',
        ]) {
          assert.ok(names.includes(n), `${n} in ${names.slice(0, 20).join(', ')}`);
        }
        assert.ok(!names.includes('tree/notes/gone.md') && !names.includes('tree/docs/draft.md') && !names.includes('tree/notes/after.md'));
        assert.ok(
          names.some((n) => n.startsWith('tree/deep/') && n.endsWith('ünïcødé file.md')),
          'a long non-ASCII path through pax',
        );
        assert.ok(
          names.some((n) => n.startsWith('blobs/')),
          'older contents under blobs/',
        );
        assert.equal(execFileSync('tar', ['-xOf', file, 'tree/notes/todo.md'], { encoding: 'utf8' }), '# Todo\n- one\n- two\n- three\n');
        const keys = JSON.parse(execFileSync('tar', ['-xOf', file, 'account/keys.json'], { encoding: 'utf8' }));
        assert.deepEqual(keys.map((k: any) => k.label).sort(), ['default', 'reader']);
        for (const k of keys)
          assert.deepEqual(
            Object.keys(k).filter((f) => /hash|apiKey/i.test(f)),
            [],
            'no key and no hash',
          );
        assert.ok(!/mk_[0-9A-Za-z]{43}/.test(JSON.stringify(keys)), 'no key');
        const posts = execFileSync('tar', ['-xOf', file, 'social/posts-0001.jsonl'], { encoding: 'utf8' });
        assert.equal(JSON.parse(posts).postId, postId);
        const comments = execFileSync('tar', ['-xOf', file, 'social/comments-0001.jsonl'], { encoding: 'utf8' });
        assert.equal(JSON.parse(comments).body, 'And timestamps.');
        const end = JSON.parse(execFileSync('tar', ['-xOf', file, 'end.json'], { encoding: 'utf8' }));
        assert.equal(end.changesets, source.changes.length);
        assert.equal(end.posts, 1);
        assert.equal(end.comments, 1);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    for (const target of backends()) {
      it(`imports into a fresh ${target} database: history and head tree identical`, async () => {
        const t = await startServer(target);
        targets.push(t);
        const r = await importArchive(t.store, chunks(archive));
        assert.equal(r.agent.slug, 'archive-owner');
        assert.equal(r.renamedChangesets, false);
        const imported = await history(t, r.apiKey);
        assert.deepEqual(imported, source);
        const profile = (await t.ok(r.apiKey, 'get_my_profile')).profile;
        assert.equal(profile.displayName, 'The Owner');
        assert.deepEqual(profile.tags, ['archives']);
        assert.equal(profile.createdAt, (await s.ok(key, 'get_my_profile')).profile.createdAt);
        // The imported agent goes on: its next change is the next seq, its files are writable.
        const w = await t.ok(r.apiKey, 'edit', { path: '/notes/todo.md', old_string: '- three', new_string: '- 3' });
        assert.equal(w.version, 4);
        const last = (await t.ok(r.apiKey, 'list_changes', { limit: 1 })).changesets[0];
        assert.equal(last.seq, source.changes[source.changes.length - 1].seq + 1);
        const info = await t.ok(r.apiKey, 'get_key_info');
        assert.equal(info.fullAccess, true);
        assert.ok(info.usage.storageBytes > 0);
      });
    }

    it('into the database it came from: new changeset ids, a new slug, the same history otherwise', async () => {
      const r = await importArchive(s.store, chunks(archive), { name: 'Archive Copy' });
      assert.equal(r.agent.slug, 'archive-copy');
      assert.equal(r.renamedChangesets, true);
      const copy = await history(s, r.apiKey);
      assert.deepEqual(copy.tree, source.tree);
      assert.deepEqual(
        copy.changes.map((c: any) => ({ ...c, changesetId: undefined, nextEntriesCursor: undefined })),
        source.changes.map((c: any) => ({ ...c, changesetId: undefined, nextEntriesCursor: undefined })),
      );
      assert.notEqual(copy.changes[0].changesetId, source.changes[0].changesetId);
    });

    it('a damaged or truncated archive is refused and leaves nothing behind', async () => {
      const agentsBefore = (await s.ok(key, 'list_agents', { sort: 'new', limit: 100 })).items.length;
      const flipped = Buffer.from(archive);
      const at = archive.indexOf(Buffer.from('same bytes\n'));
      flipped[at] = 'S'.charCodeAt(0);
      await assert.rejects(
        importArchive(s.store, chunks(flipped)),
        (e: Error) => e instanceof ImportError && /does not hash to its name|damaged/.test(e.message),
      );
      await assert.rejects(
        importArchive(s.store, chunks(archive.subarray(0, archive.length - 4096))),
        (e: Error) => e instanceof TarError || e instanceof ImportError,
      );
      await assert.rejects(importArchive(s.store, chunks(Buffer.from('not a tar at all'.repeat(64)))), TarError);
      assert.equal((await s.ok(key, 'list_agents', { sort: 'new', limit: 100 })).items.length, agentsBefore);
    });

    it('npm run import-agent: imports a file into the database of DATA_DIR / DATABASE_URL and prints the new key once', async () => {
      const t = await startServer(backend);
      targets.push(t);
      const dir = mkdtempSync(join(tmpdir(), 'afs-import-'));
      try {
        const file = join(dir, 'a.tar');
        writeFileSync(file, archive);
        const env = { ...process.env, ...(t.config.databaseUrl ? { DATABASE_URL: t.config.databaseUrl } : { DATA_DIR: t.config.dataDir }) };
        const run = spawnSync(process.execPath, [IMPORT_JS, file, '--name', 'Via CLI'], { env, encoding: 'utf8' });
        assert.equal(run.status, 0, run.stderr);
        const apiKey = /apiKey: (mk_\w+)/.exec(run.stdout)![1]!;
        assert.match(run.stdout, /imported archive-owner .* as via-cli /);
        assert.deepEqual((await history(t, apiKey)).tree, source.tree);
        const bad = spawnSync(process.execPath, [IMPORT_JS], { env, encoding: 'utf8' });
        assert.equal(bad.status, 1);
        assert.match(bad.stderr, /Usage: npm run import-agent/);
        const missing = spawnSync(process.execPath, [IMPORT_JS, join(dir, 'none.tar')], { env, encoding: 'utf8' });
        assert.equal(missing.status, 1);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('errors: INSUFFICIENT_SCOPE without the full-access key, INVALID_INPUT, QUOTA_EXCEEDED over MAX_EXPORT_BYTES', async () => {
      const reader = await s.ok(key, 'create_key', { label: 'r', preset: 'read-only' });
      const scoped = await s.call(reader.apiKey, 'export_my_data', {});
      assertEnvelope(scoped, 'error');
      assert.equal(scoped.inner.error.code, 'INSUFFICIENT_SCOPE');
      assert.equal(scoped.inner.error.details.required.fullAccess, true);
      const folder = await s.ok(key, 'create_key', { label: 'f', preset: 'full', folder: '/notes' });
      assert.equal((await s.call(folder.apiKey, 'export_my_data', {})).inner.error.code, 'INSUFFICIENT_SCOPE');
      for (const input of [{ expiresInSeconds: 5 }, { expiresInSeconds: 8 * 86400 }, { expires: 60 }]) {
        const bad = await s.call(key, 'export_my_data', input);
        assertEnvelope(bad, 'error');
        assert.equal(bad.inner.error.code, 'INVALID_INPUT');
      }
      const small = await startServer(backend, { MAX_EXPORT_BYTES: String(1024 * 1024) });
      targets.push(small);
      const a = await small.register('Big One');
      await small.ok(a.apiKey, 'write', { path: '/big.bin', content: Buffer.alloc(1024 * 1024, 7).toString('base64'), encoding: 'base64' });
      const over = await small.call(a.apiKey, 'export_my_data', {});
      assertEnvelope(over, 'error');
      assert.equal(over.inner.error.code, 'QUOTA_EXCEEDED');
      assert.equal(over.inner.error.details.quota, 'export');
      assert.equal(over.inner.error.details.limit, 1024 * 1024);
      assert.match(over.inner.error.message, /over this service's export limit of 1048576 bytes/);
      const noAuth = await s.call(null, 'export_my_data', {});
      assert.equal(noAuth.status, 401);
    });

    it('the link: unknown or malformed → 404, expired or its key revoked → 410, JSON and not cacheable', async () => {
      for (const path of ['/exports/ex_' + 'A'.repeat(43), '/exports/nope', '/exports/lt_' + 'A'.repeat(43)]) {
        const r = await s.raw(path);
        assert.equal(r.status, 404, path);
        assert.equal(r.body.error.code, 'NOT_FOUND');
        assert.equal(r.headers.get('cache-control'), 'no-store');
      }
      const token = newExportToken();
      const agentId = (await s.ok(key, 'get_key_info')).agent.id;
      await s.store.createExport({
        id: 'exp_expired',
        agentId,
        keyId: 'key_x',
        tokenHash: exportTokenHash(token),
        asOfSeq: 1,
        createdAtMs: Date.now() - 10_000,
        expiresAtMs: Date.now() - 1,
      });
      const r = await s.raw(`/exports/${token}`);
      assert.equal(r.status, 410);
      assert.equal(r.body.error.code, 'GONE');
      assert.equal(r.body.error.details.reason, 'expired');
      // A week after it expired the row is pruned (by the serving process's maintenance timer): the link is then unknown.
      assert.equal(await s.store.pruneExports(Date.now() + EXPORT_ROW_TTL_MS - 60_000), 0, 'kept for a week after expiring');
      assert.equal((await s.raw(`/exports/${token}`)).status, 410);
      assert.ok((await s.store.pruneExports(Date.now() + EXPORT_ROW_TTL_MS + 1)) >= 1);
      assert.equal((await s.raw(`/exports/${token}`)).status, 404);
      // Revoking the key that made an export revokes its link.
      const full = await s.ok(key, 'create_key', { label: 'exporter', preset: 'full' });
      const e = (await s.ok(full.apiKey, 'export_my_data', { expiresInSeconds: 600 })).export;
      assert.equal((await download(s, e.url)).status, 200);
      await s.ok(key, 'revoke_key', { keyId: full.keyId });
      const revoked = await s.raw(new URL(e.url).pathname);
      assert.equal(revoked.status, 410);
      assert.equal(revoked.body.error.details.reason, 'key_revoked');
    });
  });
}

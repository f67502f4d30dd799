/**
 * The core file tools end to end over HTTP (docs/contract/files.md#files-and-versions, §5): write, read, stat, list, mkdir,
 * delete and get_key_info — every success path and every error code, asserting what a client
 * sees. Runs on both backends.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ALL_SCOPES } from '../src/core/scopes.js';
import { toolErrors } from '../src/tools/describe.js';
import { buildRegistry } from '../src/tools/index.js';
import { backends } from './helpers/backends.js';
import { assertEnvelope } from './helpers/assert-envelope.js';
import { startServer, type TestServer } from './helpers/server.js';

/** A listing's own entries: without the mount points (/published, /shared) `list` shows at /. */
const own = (listing: { entries: any[] }): any[] => listing.entries.filter((e) => !e.mount);

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const hashOf = (b: Buffer | string) => 'sha256:' + createHash('sha256').update(b).digest('hex');
const byteLen = (s: string) => Buffer.byteLength(s, 'utf8');

/** Calls a tool, asserts the success envelope (HTTP 200), returns the inner result. */
async function ok(s: TestServer, key: string, tool: string, input: unknown = {}): Promise<any> {
  const r = await s.call(key, tool, input);
  assert.equal(r.status, 200, `${tool} ${JSON.stringify(input).slice(0, 200)}: ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`);
  assert.ok(!r.isError, `${tool} ${JSON.stringify(input).slice(0, 200)} failed: ${r.body?.content?.[0]?.text?.slice(0, 500)}`);
  assertEnvelope(r, 'success');
  return r.inner;
}

/** Calls a tool, asserts HTTP 200 with the error envelope and the code; returns inner.error. */
async function fail(s: TestServer, key: string, tool: string, input: unknown, code: string): Promise<any> {
  const r = await s.call(key, tool, input);
  const what = `${tool} ${JSON.stringify(input).slice(0, 200)}`;
  assert.equal(r.status, 200, `${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`);
  assert.equal(r.isError, true, `${what} should fail with ${code}: ${r.body?.content?.[0]?.text?.slice(0, 400)}`);
  assertEnvelope(r, 'error');
  assert.equal(r.inner.error.code, code, `${what}: ${r.inner.error.code} ${r.inner.error.message}`);
  return r.inner.error;
}

let agentCounter = 0;
async function fresh(s: TestServer): Promise<{ key: string; id: string; slug: string }> {
  const r = await s.register(`Files Agent ${++agentCounter}`);
  return { key: r.apiKey, id: r.id, slug: r.slug };
}

describe('file tool definitions', () => {
  it('declare exactly the error codes this file covers (a new code needs a test here)', () => {
    const registry = buildRegistry();
    const expected: Record<string, string[]> = {
      write: ['ALREADY_EXISTS', 'EDIT_CONFLICT', 'FILE_TOO_LARGE', 'IS_A_DIRECTORY', 'NOT_A_DIRECTORY', 'QUOTA_EXCEEDED'],
      read: ['IS_A_DIRECTORY', 'NOT_FOUND', 'VERSION_NOT_FOUND'],
      stat: ['NOT_FOUND', 'VERSION_NOT_FOUND'],
      list: ['NOT_A_DIRECTORY', 'NOT_FOUND'],
      mkdir: ['NOT_A_DIRECTORY', 'QUOTA_EXCEEDED'],
      delete: ['DIRECTORY_NOT_EMPTY', 'EDIT_CONFLICT', 'NOT_FOUND'],
      get_key_info: [],
    };
    for (const [name, codes] of Object.entries(expected)) {
      const tool = registry.get(name);
      assert.ok(tool, `${name} is registered`);
      assert.deepEqual([...tool.errors].sort(), codes, name);
    }
    // Through /shared and /published (test/shares-mounts.test.ts) every file tool may answer
    // NOT_FOUND (nothing shared there), and all but read, stat and list FORBIDDEN (a read-only
    // share, published work, not through a mount): their documented errors (toolErrors) say so.
    const forbidden = registry
      .all()
      .filter((t) => toolErrors(t).includes('FORBIDDEN') && (t.family === 'files' || t.family === 'versions'))
      .map((t) => t.name)
      .sort();
    assert.deepEqual(forbidden, [
      'append',
      'copy',
      'delete',
      'diff',
      'edit',
      'list_changes',
      'list_deleted',
      'list_versions',
      'mkdir',
      'move',
      'purge',
      'restore',
      'write',
      'write_files',
    ]);
    for (const name of ['write', 'append', 'mkdir', 'list_deleted']) assert.ok(toolErrors(registry.get(name)!).includes('NOT_FOUND'), name);
    assert.deepEqual(registry.get('get_key_info')!.scopes, []);
    assert.deepEqual(registry.get('write')!.scopes, ['files:write']);
    assert.deepEqual(registry.get('read')!.scopes, ['files:read']);
    assert.deepEqual(registry.get('delete')!.scopes, ['files:delete']);
  });
});

for (const backend of backends()) {
  describe(`files: write (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend);
    });
    after(() => s.close());

    it('create: every result field, and read/stat agree', async () => {
      const { key } = await fresh(s);
      const info = await ok(s, key, 'get_key_info');
      const content = '# Todo\n- ship it\n';
      const w = await ok(s, key, 'write', { path: '/notes/todo.md', content });
      assert.equal(w.success, true);
      assert.equal(w.path, '/notes/todo.md');
      assert.equal(w.version, 1);
      assert.match(w.updatedAt, ISO_MS);
      assert.ok(Math.abs(Date.parse(w.updatedAt) - Date.now()) < 5000);
      assert.equal(w.size, byteLen(content));
      assert.equal(w.contentHash, hashOf(content));
      assert.equal(w.created, true);
      assert.equal(w.unchanged, false);
      assert.match(w.changesetId, /^cs_/);

      const r = await ok(s, key, 'read', { path: '/notes/todo.md' });
      assert.equal(r.path, '/notes/todo.md');
      assert.equal(r.content, content);
      assert.equal(r.encoding, 'utf8');
      assert.equal(r.version, 1);
      assert.equal(r.updatedAt, w.updatedAt);
      assert.equal(r.size, w.size);
      assert.equal(r.contentHash, w.contentHash);
      assert.deepEqual(r.lines, { start: 1, end: 2, total: 2 });
      assert.equal(r.truncated, false);
      assert.equal(r.next, undefined);

      const st = await ok(s, key, 'stat', { path: '/notes/todo.md' });
      assert.equal(st.path, '/notes/todo.md');
      assert.equal(st.type, 'file');
      assert.equal(st.size, w.size);
      assert.equal(st.lineCount, 2);
      assert.equal(st.version, 1);
      assert.equal(st.updatedAt, w.updatedAt);
      assert.equal(st.createdAt, w.updatedAt);
      assert.equal(st.contentHash, w.contentHash);
      assert.equal(st.versionCount, 1);
      assert.deepEqual(st.updatedBy, { keyId: info.keyId, label: info.label });
      assert.equal(st.entryCount, undefined, 'files have no entries count');
    });

    it('overwrite: version 2; identical content → unchanged: true and no new version', async () => {
      const { key } = await fresh(s);
      const w1 = await ok(s, key, 'write', { path: '/o.txt', content: 'one\n' });
      const w2 = await ok(s, key, 'write', { path: '/o.txt', content: 'two\n' });
      assert.equal(w2.version, 2);
      assert.equal(w2.created, false);
      assert.equal(w2.unchanged, false);
      assert.ok(w2.updatedAt > w1.updatedAt);
      assert.notEqual(w2.changesetId, w1.changesetId);
      const w3 = await ok(s, key, 'write', { path: '/o.txt', content: 'two\n' });
      assert.equal(w3.unchanged, true);
      assert.equal(w3.created, false);
      assert.equal(w3.version, 2);
      assert.equal(w3.updatedAt, w2.updatedAt);
      assert.equal(w3.size, 4);
      assert.equal(w3.contentHash, hashOf('two\n'));
      assert.equal(w3.changesetId, null);
      let st = await ok(s, key, 'stat', { path: '/o.txt' });
      assert.equal(st.version, 2);
      assert.equal(st.versionCount, 2);
      assert.equal(st.updatedAt, w2.updatedAt);
      assert.equal(st.createdAt, w1.updatedAt, 'createdAt survives updates');
      // Content equal to an older version (not the current one) is a real change.
      const w4 = await ok(s, key, 'write', { path: '/o.txt', content: 'one\n' });
      assert.equal(w4.unchanged, false);
      assert.equal(w4.version, 3);
      st = await ok(s, key, 'stat', { path: '/o.txt' });
      assert.equal(st.versionCount, 3);
    });

    it('mode "create" → ALREADY_EXISTS when the file exists (even with identical content)', async () => {
      const { key } = await fresh(s);
      const w = await ok(s, key, 'write', { path: '/c.txt', content: 'x', mode: 'create' });
      assert.equal(w.created, true);
      for (const content of ['y', 'x']) {
        const err = await fail(s, key, 'write', { path: '/c.txt', content, mode: 'create' }, 'ALREADY_EXISTS');
        assert.equal(err.details.path, '/c.txt');
        assert.equal(err.details.version, 1);
        assert.equal(err.details.updatedAt, w.updatedAt);
        assert.match(err.message, /version 1/);
      }
      assert.equal((await ok(s, key, 'read', { path: '/c.txt' })).content, 'x');
      // Explicit overwrite is the default behaviour.
      assert.equal((await ok(s, key, 'write', { path: '/c.txt', content: 'z', mode: 'overwrite' })).version, 2);
      // After a delete the path is free again for mode "create"; the version continues.
      await ok(s, key, 'delete', { path: '/c.txt' });
      const again = await ok(s, key, 'write', { path: '/c.txt', content: 'new', mode: 'create' });
      assert.equal(again.created, true);
      assert.equal(again.version, 4);
    });

    it('expectedVersion / expectedUpdatedAt: match writes, mismatch → EDIT_CONFLICT with current', async () => {
      const { key } = await fresh(s);
      const w1 = await ok(s, key, 'write', { path: '/e.txt', content: '1' });
      const w2 = await ok(s, key, 'write', { path: '/e.txt', content: '2', expectedVersion: 1 });
      assert.equal(w2.version, 2);

      let err = await fail(s, key, 'write', { path: '/e.txt', content: '3', expectedVersion: 1 }, 'EDIT_CONFLICT');
      assert.equal(err.details.path, '/e.txt');
      assert.equal(err.details.current.version, 2);
      assert.equal(err.details.current.updatedAt, w2.updatedAt);
      assert.equal(err.details.current.deleted, false);
      assert.equal(err.details.expected.version, 1);
      assert.match(err.message, /version 2/);

      const w3 = await ok(s, key, 'write', { path: '/e.txt', content: '3', expectedUpdatedAt: w2.updatedAt });
      assert.equal(w3.version, 3);
      err = await fail(s, key, 'write', { path: '/e.txt', content: '4', expectedUpdatedAt: w1.updatedAt }, 'EDIT_CONFLICT');
      assert.equal(err.details.current.version, 3);
      assert.equal(err.details.current.updatedAt, w3.updatedAt);
      assert.equal(err.details.expected.updatedAt, w1.updatedAt);

      // Both given: both must match.
      const w4 = await ok(s, key, 'write', { path: '/e.txt', content: '4', expectedVersion: 3, expectedUpdatedAt: w3.updatedAt });
      assert.equal(w4.version, 4);
      err = await fail(s, key, 'write', { path: '/e.txt', content: '5', expectedVersion: 4, expectedUpdatedAt: w3.updatedAt }, 'EDIT_CONFLICT');
      assert.equal(err.details.current.version, 4);
      err = await fail(s, key, 'write', { path: '/e.txt', content: '5', expectedVersion: 3, expectedUpdatedAt: w4.updatedAt }, 'EDIT_CONFLICT');
      assert.equal(err.details.current.version, 4);
      // A stale precondition fails even when the content would be unchanged.
      await fail(s, key, 'write', { path: '/e.txt', content: '4', expectedVersion: 2 }, 'EDIT_CONFLICT');
      // A precondition on a file that does not exist.
      err = await fail(s, key, 'write', { path: '/missing.txt', content: 'x', expectedVersion: 1 }, 'EDIT_CONFLICT');
      assert.equal(err.details.current, null);
      await fail(s, key, 'read', { path: '/missing.txt' }, 'NOT_FOUND');
      // Nothing was written by the conflicts.
      const st = await ok(s, key, 'stat', { path: '/e.txt' });
      assert.equal(st.version, 4);
      assert.equal(st.versionCount, 4);
      assert.equal((await ok(s, key, 'read', { path: '/e.txt' })).content, '4');
    });

    it('malformed expectedUpdatedAt / expectedVersion → INVALID_INPUT naming the field', async () => {
      const { key } = await fresh(s);
      await ok(s, key, 'write', { path: '/m.txt', content: 'x' });
      for (const bad of ['yesterday', '2026-01-02', '2026-01-02 03:04:05.678Z', '1767323045678', '']) {
        const err = await fail(s, key, 'write', { path: '/m.txt', content: 'y', expectedUpdatedAt: bad }, 'INVALID_INPUT');
        assert.equal(err.details.field, 'expectedUpdatedAt', bad);
        assert.match(err.message, /expectedUpdatedAt/);
      }
      for (const bad of [0, -1, 1.5, '1', null]) {
        const err = await fail(s, key, 'write', { path: '/m.txt', content: 'y', expectedVersion: bad }, 'INVALID_INPUT');
        assert.equal(err.details.field, 'expectedVersion', String(bad));
      }
      assert.equal((await ok(s, key, 'stat', { path: '/m.txt' })).version, 1);
    });

    it('IS_A_DIRECTORY: writing to a directory or to /', async () => {
      const { key } = await fresh(s);
      await ok(s, key, 'mkdir', { path: '/d' });
      let err = await fail(s, key, 'write', { path: '/d', content: 'x' }, 'IS_A_DIRECTORY');
      assert.equal(err.details.path, '/d');
      err = await fail(s, key, 'write', { path: '/', content: 'x' }, 'IS_A_DIRECTORY');
      assert.equal(err.details.path, '/');
      await ok(s, key, 'write', { path: '/d/inner.txt', content: 'x' });
      await fail(s, key, 'write', { path: '/d/', content: 'x' }, 'IS_A_DIRECTORY');
      assert.equal((await ok(s, key, 'stat', { path: '/d' })).type, 'directory');
    });

    it('NOT_A_DIRECTORY: a file as an ancestor, with details.blockingPath', async () => {
      const { key } = await fresh(s);
      await ok(s, key, 'write', { path: '/a/f.txt', content: 'file' });
      let err = await fail(s, key, 'write', { path: '/a/f.txt/child.txt', content: 'x' }, 'NOT_A_DIRECTORY');
      assert.equal(err.details.path, '/a/f.txt/child.txt');
      assert.equal(err.details.blockingPath, '/a/f.txt');
      err = await fail(s, key, 'write', { path: '/a/f.txt/x/y/z.txt', content: 'x' }, 'NOT_A_DIRECTORY');
      assert.equal(err.details.blockingPath, '/a/f.txt');
      assert.match(err.message, /\/a\/f\.txt/);
      const l = await ok(s, key, 'list', { path: '/a', recursive: true });
      assert.deepEqual(
        l.entries.map((e: any) => e.path),
        ['/a/f.txt'],
        'nothing was created',
      );
      assert.equal((await ok(s, key, 'read', { path: '/a/f.txt' })).content, 'file');
    });

    it('implicit parent directories are created and listed', async () => {
      const { key } = await fresh(s);
      await ok(s, key, 'write', { path: '/p/q/r/file.txt', content: 'deep' });
      const root = await ok(s, key, 'list', { path: '/' });
      assert.deepEqual(
        own(root).map((e: any) => [e.name, e.path, e.type]),
        [['p', '/p', 'directory']],
      );
      const all = await ok(s, key, 'list', { path: '/', recursive: true });
      assert.deepEqual(
        own(all).map((e: any) => [e.path, e.type]),
        [
          ['/p', 'directory'],
          ['/p/q', 'directory'],
          ['/p/q/r', 'directory'],
          ['/p/q/r/file.txt', 'file'],
        ],
      );
      for (const dir of ['/p', '/p/q', '/p/q/r']) {
        const st = await ok(s, key, 'stat', { path: dir });
        assert.equal(st.type, 'directory', dir);
        assert.equal(st.version, 1, dir);
        assert.equal(st.entryCount, 1, dir);
        assert.match(st.updatedAt, ISO_MS);
      }
      // A second file reuses the directories (no new versions for them).
      await ok(s, key, 'write', { path: '/p/q/other.txt', content: 'x' });
      assert.equal((await ok(s, key, 'stat', { path: '/p/q' })).version, 1);
      assert.equal((await ok(s, key, 'stat', { path: '/p/q' })).entryCount, 2);
    });

    it('base64: binary bytes round-trip exactly; text written as base64 reads as text', async () => {
      const { key } = await fresh(s);
      const bytes = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(1000)]);
      const w = await ok(s, key, 'write', { path: '/bin/blob.bin', content: bytes.toString('base64'), encoding: 'base64' });
      assert.equal(w.size, bytes.length);
      assert.equal(w.contentHash, hashOf(bytes));
      const r = await ok(s, key, 'read', { path: '/bin/blob.bin' });
      assert.equal(r.encoding, 'base64');
      assert.ok(Buffer.from(r.content, 'base64').equals(bytes), 'exact bytes back');
      assert.equal(r.size, bytes.length);
      assert.equal(r.contentHash, hashOf(bytes));
      assert.equal(r.lines, null);
      assert.equal(r.truncated, false);
      assert.equal((await ok(s, key, 'stat', { path: '/bin/blob.bin' })).lineCount, null);

      // Invalid UTF-8 without NUL is binary too.
      const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);
      await ok(s, key, 'write', { path: '/bin/latin1.txt', content: latin1.toString('base64'), encoding: 'base64' });
      const rl = await ok(s, key, 'read', { path: '/bin/latin1.txt' });
      assert.equal(rl.encoding, 'base64');
      assert.ok(Buffer.from(rl.content, 'base64').equals(latin1));

      // Line-wrapped (MIME-style) base64 is accepted.
      const wrapped = bytes.toString('base64').replace(/(.{76})/g, '$1\n');
      const w2 = await ok(s, key, 'write', { path: '/bin/wrapped.bin', content: wrapped, encoding: 'base64' });
      assert.equal(w2.contentHash, hashOf(bytes));

      // UTF-8 text sent as base64 reads back as text.
      const text = 'héllo\r\nwörld';
      await ok(s, key, 'write', { path: '/bin/text.txt', content: Buffer.from(text).toString('base64'), encoding: 'base64' });
      const rt = await ok(s, key, 'read', { path: '/bin/text.txt' });
      assert.equal(rt.encoding, 'utf8');
      assert.equal(rt.content, text);
      assert.deepEqual(rt.lines, { start: 1, end: 2, total: 2 });

      // A text file can be read as exact bytes with encoding: "base64".
      const bom = '\ufeffBOM line\r\nno final newline';
      await ok(s, key, 'write', { path: '/bin/bom.txt', content: bom });
      const rb = await ok(s, key, 'read', { path: '/bin/bom.txt', encoding: 'base64' });
      assert.equal(rb.encoding, 'base64');
      assert.ok(Buffer.from(rb.content, 'base64').equals(Buffer.from(bom, 'utf8')));
      assert.equal((await ok(s, key, 'read', { path: '/bin/bom.txt' })).content, bom, 'BOM, CRLF and missing final newline kept');

      // Invalid base64 → INVALID_INPUT on content; offset/limit on binary → INVALID_INPUT.
      for (const bad of ['!!!', 'ab=c', 'a', 'Y===', 'data:text/plain;base64,YQ==']) {
        const err = await fail(s, key, 'write', { path: '/bin/bad.bin', content: bad, encoding: 'base64' }, 'INVALID_INPUT');
        assert.equal(err.details.field, 'content', bad);
      }
      await fail(s, key, 'read', { path: '/bin/bad.bin' }, 'NOT_FOUND');
      const e2 = await fail(s, key, 'read', { path: '/bin/blob.bin', offset: 2 }, 'INVALID_INPUT');
      assert.equal(e2.details.field, 'offset');
    });

    it('an empty file: size 0, no lines, read returns empty content', async () => {
      const { key } = await fresh(s);
      const w = await ok(s, key, 'write', { path: '/empty.txt', content: '' });
      assert.equal(w.size, 0);
      assert.equal(w.contentHash, hashOf(''));
      const r = await ok(s, key, 'read', { path: '/empty.txt' });
      assert.equal(r.content, '');
      assert.equal(r.encoding, 'utf8');
      assert.equal(r.lines.total, 0);
      assert.equal(r.truncated, false);
      assert.equal(r.next, undefined);
      const st = await ok(s, key, 'stat', { path: '/empty.txt' });
      assert.equal(st.size, 0);
      assert.equal(st.lineCount, 0);
      assert.equal((await ok(s, key, 'write', { path: '/empty.txt', content: '' })).unchanged, true);
    });

    it('updatedAt: ms ISO format, strictly increasing over 30 rapid writes, each round-trips as expectedUpdatedAt', async () => {
      const { key } = await fresh(s);
      const stamps: string[] = [];
      let prev: string | undefined;
      for (let i = 0; i < 30; i++) {
        const input: Record<string, unknown> = { path: '/fast.txt', content: `write ${i}\n` };
        if (prev !== undefined) input.expectedUpdatedAt = prev;
        const w = await ok(s, key, 'write', input);
        assert.equal(w.version, i + 1);
        assert.match(w.updatedAt, ISO_MS);
        stamps.push(w.updatedAt);
        prev = w.updatedAt;
      }
      assert.equal(new Set(stamps).size, 30, 'all distinct');
      for (let i = 1; i < stamps.length; i++) {
        assert.ok(Date.parse(stamps[i]!) > Date.parse(stamps[i - 1]!), `${stamps[i]} > ${stamps[i - 1]}`);
      }
      // Every version's updatedAt is stored exactly and read back unchanged.
      for (const v of [1, 15, 30]) {
        assert.equal((await ok(s, key, 'read', { path: '/fast.txt', version: v })).updatedAt, stamps[v - 1]);
        assert.equal((await ok(s, key, 'stat', { path: '/fast.txt', version: v })).updatedAt, stamps[v - 1]);
      }
      const r = await ok(s, key, 'read', { path: '/fast.txt' });
      assert.equal(r.updatedAt, stamps[29]);
      // The read's updatedAt is accepted as expectedUpdatedAt; an older one is not.
      await fail(s, key, 'write', { path: '/fast.txt', content: 'stale', expectedUpdatedAt: stamps[28] }, 'EDIT_CONFLICT');
      assert.equal((await ok(s, key, 'write', { path: '/fast.txt', content: 'fresh', expectedUpdatedAt: r.updatedAt })).version, 31);
    });

    it('idempotencyKey: a retry returns the first result with replayed: true and applies nothing', async () => {
      const { key } = await fresh(s);
      const input = { path: '/idem.txt', content: 'first', idempotencyKey: 'write-1' };
      const r1 = await ok(s, key, 'write', input);
      assert.equal(r1.version, 1);
      assert.equal(r1.replayed, undefined);
      const r2 = await ok(s, key, 'write', input);
      assert.deepEqual(r2, { ...r1, replayed: true });
      assert.equal((await ok(s, key, 'stat', { path: '/idem.txt' })).versionCount, 1);

      // Even after the file changed, the retry replays and does not apply again.
      await ok(s, key, 'write', { path: '/idem.txt', content: 'second' });
      const r3 = await ok(s, key, 'write', input);
      assert.deepEqual(r3, { ...r1, replayed: true });
      const st = await ok(s, key, 'stat', { path: '/idem.txt' });
      assert.equal(st.version, 2);
      assert.equal(st.versionCount, 2);
      assert.equal((await ok(s, key, 'read', { path: '/idem.txt' })).content, 'second');

      // Same key, different input → INVALID_INPUT.
      const err = await fail(s, key, 'write', { ...input, content: 'different' }, 'INVALID_INPUT');
      assert.equal(err.details.field, 'idempotencyKey');
      assert.match(err.message, /write-1/);
      const err2 = await fail(s, key, 'write', { path: '/idem-other.txt', content: 'first', idempotencyKey: 'write-1' }, 'INVALID_INPUT');
      assert.equal(err2.details.field, 'idempotencyKey');
      await fail(s, key, 'read', { path: '/idem-other.txt' }, 'NOT_FOUND');

      // mkdir and delete replay too (a retried delete does not turn into NOT_FOUND).
      const m1 = await ok(s, key, 'mkdir', { path: '/idem-dir', idempotencyKey: 'mk-1' });
      assert.deepEqual(await ok(s, key, 'mkdir', { path: '/idem-dir', idempotencyKey: 'mk-1' }), { ...m1, replayed: true });
      const d1 = await ok(s, key, 'delete', { path: '/idem.txt', idempotencyKey: 'del-1' });
      const d2 = await ok(s, key, 'delete', { path: '/idem.txt', idempotencyKey: 'del-1' });
      assert.deepEqual(d2, { ...d1, replayed: true });
      assert.equal(d1.version, 3);

      // Keys are per agent.
      const other = await fresh(s);
      const o = await ok(s, other.key, 'write', input);
      assert.equal(o.replayed, undefined);
      assert.equal(o.created, true);
      assert.notEqual(o.changesetId, r1.changesetId);

      // A bad idempotencyKey is INVALID_INPUT naming it.
      for (const bad of ['', 5, null, 'k'.repeat(201)]) {
        const e = await fail(s, key, 'write', { path: '/idem2.txt', content: 'x', idempotencyKey: bad }, 'INVALID_INPUT');
        assert.equal(e.details.field, 'idempotencyKey', String(bad));
      }
    });

    it('aliases: file_path/filePath → path; both given → INVALID_INPUT', async () => {
      const { key } = await fresh(s);
      const w = await ok(s, key, 'write', { file_path: '/alias.txt', content: 'aliased' });
      assert.equal(w.path, '/alias.txt');
      assert.equal((await ok(s, key, 'read', { file_path: '/alias.txt' })).content, 'aliased');
      assert.equal((await ok(s, key, 'stat', { filePath: '/alias.txt' })).type, 'file');
      assert.equal((await ok(s, key, 'list', { file_path: '/' })).entries.filter((e: any) => !e.mount).length, 1);
      const err = await fail(s, key, 'write', { path: '/alias.txt', file_path: '/alias.txt', content: 'x' }, 'INVALID_INPUT');
      assert.equal(err.details.field, 'file_path');
      assert.match(err.message, /'path'/);
      await fail(s, key, 'read', { path: '/alias.txt', file_path: '/other.txt' }, 'INVALID_INPUT');
      assert.equal((await ok(s, key, 'stat', { path: '/alias.txt' })).version, 1);
    });

    it('unknown fields → INVALID_INPUT naming the field and the closest valid one', async () => {
      const { key } = await fresh(s);
      const cases: Array<[string, Record<string, unknown>, string, string]> = [
        ['write', { file: '/x.txt', content: 'x' }, 'file', 'path'],
        ['write', { path: '/x.txt', text: 'x' }, 'text', 'content'],
        ['write', { path: '/x.txt', content: 'x', expectedVersoin: 1 }, 'expectedVersoin', 'expectedVersion'],
        ['read', { path: '/x.txt', offest: 2 }, 'offest', 'offset'],
        ['read', { filename: '/x.txt' }, 'filename', 'path'],
        ['list', { path: '/', recursve: true }, 'recursve', 'recursive'],
        ['delete', { path: '/x.txt', recursiv: true }, 'recursiv', 'recursive'],
        ['mkdir', { dir: '/d' }, 'dir', 'path'],
        ['stat', { path: '/', verison: 1 }, 'verison', 'version'],
      ];
      for (const [tool, input, field, suggestion] of cases) {
        const err = await fail(s, key, tool, input, 'INVALID_INPUT');
        assert.equal(err.details.field, field, `${tool} ${field}`);
        assert.equal(err.details.suggestion, suggestion, `${tool} ${field}`);
        assert.ok(err.message.includes(`'${field}'`), err.message);
        assert.ok(err.message.includes(`did you mean '${suggestion}'`), err.message);
      }
      const root = await ok(s, key, 'list', { path: '/' });
      assert.deepEqual(own(root), [], 'nothing was written');
    });

    it('wrong types and missing fields → INVALID_INPUT naming the field', async () => {
      const { key } = await fresh(s);
      await ok(s, key, 'write', { path: '/t.txt', content: 'x' });
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['write', { path: '/t.txt', content: 5 }, 'content'],
        ['write', { path: '/t.txt', content: null }, 'content'],
        ['write', { path: '/t.txt', content: ['a'] }, 'content'],
        ['write', { path: '/t.txt' }, 'content'],
        ['write', { content: 'x' }, 'path'],
        ['write', { path: ['/t.txt'], content: 'x' }, 'path'],
        ['write', { path: '/t.txt', content: 'x', encoding: 'hex' }, 'encoding'],
        ['write', { path: '/t.txt', content: 'x', mode: 'append' }, 'mode'],
        ['read', {}, 'path'],
        ['read', { path: '/t.txt', offset: 0 }, 'offset'],
        ['read', { path: '/t.txt', offset: '2' }, 'offset'],
        ['read', { path: '/t.txt', offset: 1.5 }, 'offset'],
        ['read', { path: '/t.txt', limit: 0 }, 'limit'],
        ['read', { path: '/t.txt', version: 0 }, 'version'],
        ['read', { path: '/t.txt', version: 'latest' }, 'version'],
        ['read', { path: '/t.txt', encoding: 'latin1' }, 'encoding'],
        ['stat', { path: '/t.txt', version: -1 }, 'version'],
        ['stat', {}, 'path'],
        ['list', { path: '/', recursive: 'yes' }, 'recursive'],
        ['list', { path: '/', limit: 0 }, 'limit'],
        ['list', { path: '/', limit: 1001 }, 'limit'],
        ['list', { path: '/', cursor: 5 }, 'cursor'],
        ['mkdir', { path: null }, 'path'],
        ['mkdir', {}, 'path'],
        ['delete', { path: '/t.txt', recursive: 'true' }, 'recursive'],
        ['delete', {}, 'path'],
      ];
      for (const [tool, input, field] of cases) {
        const err = await fail(s, key, tool, input, 'INVALID_INPUT');
        assert.equal(err.details.field, field, `${tool} ${JSON.stringify(input)}: ${err.message}`);
        assert.ok(err.message.includes(`'${field}'`), `${tool}: message names '${field}': ${err.message}`);
      }
      const missing = await fail(s, key, 'write', { path: '/t.txt' }, 'INVALID_INPUT');
      assert.match(missing.message, /'content' is required/);
      const st = await ok(s, key, 'stat', { path: '/t.txt' });
      assert.equal(st.versionCount, 1, 'nothing was written');
    });

    it('scopes: each tool needs its own scope → INSUFFICIENT_SCOPE', async () => {
      const { key, id } = await fresh(s);
      await ok(s, key, 'write', { path: '/s.txt', content: 'x' });
      const readOnly = await s.addKey(id, { scopes: ['files:read'] });
      for (const [tool, input, scope] of [
        ['write', { path: '/s.txt', content: 'y' }, 'files:write'],
        ['mkdir', { path: '/sd' }, 'files:write'],
        ['delete', { path: '/s.txt' }, 'files:delete'],
      ] as const) {
        const err = await fail(s, readOnly, tool, input, 'INSUFFICIENT_SCOPE');
        assert.deepEqual(err.details.required, [scope], tool);
        assert.deepEqual(err.details.granted, ['files:read'], tool);
      }
      for (const tool of ['read', 'stat']) await ok(s, readOnly, tool, { path: '/s.txt' });
      await ok(s, readOnly, 'list', { path: '/' });
      const writer = await s.addKey(id, { scopes: ['files:read', 'files:write'] });
      await ok(s, writer, 'write', { path: '/s.txt', content: 'y' });
      const e = await fail(s, writer, 'delete', { path: '/s.txt' }, 'INSUFFICIENT_SCOPE');
      assert.deepEqual(e.details.required, ['files:delete']);
      const none = await s.addKey(id, { scopes: [] });
      for (const tool of ['read', 'stat', 'list']) await fail(s, none, tool, { path: '/s.txt' }, 'INSUFFICIENT_SCOPE');
      assert.equal((await ok(s, key, 'read', { path: '/s.txt' })).content, 'y');
    });
  });

  describe(`files: read, stat, list (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend);
    });
    after(() => s.close());

    it('read an earlier version; VERSION_NOT_FOUND; a delete marker has no content', async () => {
      const { key } = await fresh(s);
      const v1 = await ok(s, key, 'write', { path: '/v.txt', content: 'one\n' });
      const v2 = await ok(s, key, 'write', { path: '/v.txt', content: 'two\nlines\n' });
      const r1 = await ok(s, key, 'read', { path: '/v.txt', version: 1 });
      assert.equal(r1.content, 'one\n');
      assert.equal(r1.version, 1);
      assert.equal(r1.updatedAt, v1.updatedAt);
      assert.equal(r1.contentHash, v1.contentHash);
      assert.equal(r1.size, 4);
      assert.deepEqual(r1.lines, { start: 1, end: 1, total: 1 });
      const r2 = await ok(s, key, 'read', { path: '/v.txt', version: 2 });
      assert.equal(r2.content, 'two\nlines\n');
      assert.equal(r2.updatedAt, v2.updatedAt);

      let err = await fail(s, key, 'read', { path: '/v.txt', version: 3 }, 'VERSION_NOT_FOUND');
      assert.deepEqual([err.details.path, err.details.version, err.details.latestVersion], ['/v.txt', 3, 2]);
      assert.match(err.message, /1 to 2/);
      err = await fail(s, key, 'stat', { path: '/v.txt', version: 99 }, 'VERSION_NOT_FOUND');
      assert.equal(err.details.latestVersion, 2);

      const sv1 = await ok(s, key, 'stat', { path: '/v.txt', version: 1 });
      assert.deepEqual(
        [sv1.type, sv1.size, sv1.lineCount, sv1.version, sv1.updatedAt, sv1.contentHash],
        ['file', 4, 1, 1, v1.updatedAt, v1.contentHash],
      );

      const d = await ok(s, key, 'delete', { path: '/v.txt' });
      assert.equal(d.version, 3);
      err = await fail(s, key, 'read', { path: '/v.txt', version: 3 }, 'VERSION_NOT_FOUND');
      assert.equal(err.details.version, 3);
      assert.match(err.message, /delete marker/);
      assert.match(err.message, /version 2/);
      const sv3 = await ok(s, key, 'stat', { path: '/v.txt', version: 3 });
      assert.equal(sv3.deleted, true);
      assert.equal(sv3.version, 3);
      assert.equal(sv3.updatedAt, d.updatedAt);
      // Earlier versions stay readable after the delete.
      assert.equal((await ok(s, key, 'read', { path: '/v.txt', version: 2 })).content, 'two\nlines\n');
      // A version of a path that never existed is NOT_FOUND.
      await fail(s, key, 'read', { path: '/never.txt', version: 1 }, 'NOT_FOUND');
      await fail(s, key, 'stat', { path: '/never.txt', version: 1 }, 'NOT_FOUND');
    });

    it('NOT_FOUND suggests up to 3 similar paths', async () => {
      const { key } = await fresh(s);
      for (const p of ['/docs/readme.md', '/docs/guide.md', '/archive/readme.md', '/src/readme.md', '/misc/readme.md']) {
        await ok(s, key, 'write', { path: p, content: p });
      }
      let err = await fail(s, key, 'read', { path: '/docs/reademe.md' }, 'NOT_FOUND');
      assert.equal(err.details.path, '/docs/reademe.md');
      assert.ok(err.details.similar.includes('/docs/readme.md'), JSON.stringify(err.details));
      assert.ok(!err.details.similar.includes('/docs/reademe.md'));
      assert.ok(err.details.similar.length <= 3);
      assert.match(err.message, /Did you mean .*\/docs\/readme\.md/);
      assert.equal(err.details.deleted, undefined);

      err = await fail(s, key, 'read', { path: '/other/readme.md' }, 'NOT_FOUND');
      assert.equal(err.details.similar.length, 3, 'capped at 3 (4 files share the name)');
      for (const p of err.details.similar) assert.match(p, /^\/(docs|archive|src|misc)\/readme\.md$/);

      err = await fail(s, key, 'read', { path: '/zzzz/qqqqqqqq.xyz' }, 'NOT_FOUND');
      assert.deepEqual(err.details.similar, []);
      assert.match(err.message, /list/);

      err = await fail(s, key, 'stat', { path: '/docs/guid.md' }, 'NOT_FOUND');
      assert.ok(err.details.similar.includes('/docs/guide.md'));
      await fail(s, key, 'list', { path: '/doc' }, 'NOT_FOUND');
      await fail(s, key, 'delete', { path: '/docs/nothing.md' }, 'NOT_FOUND');
    });

    it('NOT_FOUND after a delete carries the tombstone (details.deleted)', async () => {
      const { key } = await fresh(s);
      const info = await ok(s, key, 'get_key_info');
      await ok(s, key, 'write', { path: '/gone.txt', content: 'bye' });
      const d = await ok(s, key, 'delete', { path: '/gone.txt' });
      for (const tool of ['read', 'stat']) {
        const err = await fail(s, key, tool, { path: '/gone.txt' }, 'NOT_FOUND');
        assert.deepEqual(err.details.deleted, {
          version: 2,
          deletedAt: d.updatedAt,
          by: { keyId: info.keyId, label: info.label },
          lastVersion: 1,
        });
        assert.match(err.message, /deleted/);
        assert.match(err.message, /version 1/);
      }
      const again = await fail(s, key, 'delete', { path: '/gone.txt' }, 'NOT_FOUND');
      assert.equal(again.details.deleted.version, 2);
    });

    it('read of a directory or of / → IS_A_DIRECTORY', async () => {
      const { key } = await fresh(s);
      await ok(s, key, 'mkdir', { path: '/dir' });
      for (const path of ['/dir', '/']) {
        const err = await fail(s, key, 'read', { path }, 'IS_A_DIRECTORY');
        assert.equal(err.details.path, path);
        assert.match(err.message, /list/);
      }
      const v = await fail(s, key, 'read', { path: '/dir', version: 1 }, 'IS_A_DIRECTORY');
      assert.equal(v.details.path, '/dir');
    });

    it('read offset/limit: lines, next, truncated; an offset past the end', async () => {
      const { key } = await fresh(s);
      const content = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join('');
      await ok(s, key, 'write', { path: '/ten.txt', content });
      const r = await ok(s, key, 'read', { path: '/ten.txt', offset: 3, limit: 4 });
      assert.equal(r.content, 'line 3\nline 4\nline 5\nline 6\n');
      assert.deepEqual(r.lines, { start: 3, end: 6, total: 10 });
      assert.equal(r.truncated, true);
      assert.deepEqual(r.next, { offset: 7 });
      const tail = await ok(s, key, 'read', { path: '/ten.txt', offset: 9 });
      assert.equal(tail.content, 'line 9\nline 10\n');
      assert.deepEqual(tail.lines, { start: 9, end: 10, total: 10 });
      assert.equal(tail.next, undefined);
      const past = await ok(s, key, 'read', { path: '/ten.txt', offset: 50 });
      assert.equal(past.content, '');
      assert.equal(past.lines.total, 10);
      assert.equal(past.next, undefined);
      assert.match(past.note, /10 lines/);
      const noNewline = await ok(s, key, 'write', { path: '/nn.txt', content: 'a\nb' });
      assert.equal(noNewline.size, 3);
      assert.deepEqual((await ok(s, key, 'read', { path: '/nn.txt' })).lines, { start: 1, end: 2, total: 2 });
      const crlf = await ok(s, key, 'write', { path: '/crlf.txt', content: 'a\r\nb\r\nc\r\n' });
      assert.equal(crlf.size, 9);
      const rc = await ok(s, key, 'read', { path: '/crlf.txt', offset: 2, limit: 1 });
      assert.equal(rc.content, 'b\r\n');
      assert.deepEqual(rc.lines, { start: 2, end: 2, total: 3 });
    });

    it('stat of a directory (entryCount) and of the root', async () => {
      const { key } = await fresh(s);
      const root0 = await ok(s, key, 'stat', { path: '/' });
      assert.equal(root0.path, '/');
      assert.equal(root0.type, 'directory');
      assert.equal(root0.entryCount, 0);
      assert.match(root0.updatedAt, ISO_MS);
      await ok(s, key, 'write', { path: '/a.txt', content: 'a' });
      await ok(s, key, 'write', { path: '/b/c.txt', content: 'c' });
      await ok(s, key, 'write', { path: '/b/d.txt', content: 'd' });
      await ok(s, key, 'mkdir', { path: '/b/e' });
      const root = await ok(s, key, 'stat', { path: '/' });
      assert.equal(root.type, 'directory');
      assert.equal(root.entryCount, 2);
      const b = await ok(s, key, 'stat', { path: '/b' });
      assert.equal(b.type, 'directory');
      assert.equal(b.entryCount, 3);
      assert.equal(b.version, 1);
      assert.equal(b.versionCount, 1);
      assert.equal(b.contentHash, null);
      assert.match(b.createdAt, ISO_MS);
      await ok(s, key, 'delete', { path: '/b/d.txt' });
      assert.equal((await ok(s, key, 'stat', { path: '/b' })).entryCount, 2, 'deleted entries are not counted');
      assert.equal((await ok(s, key, 'stat', { path: '/b/e' })).entryCount, 0);
      await fail(s, key, 'stat', { path: '/b/nothing' }, 'NOT_FOUND');
    });

    it('list: non-recursive and recursive, with exact entry fields', async () => {
      const { key } = await fresh(s);
      const wa = await ok(s, key, 'write', { path: '/l/a.txt', content: 'aa' });
      const wb = await ok(s, key, 'write', { path: '/l/b.txt', content: 'bbb' });
      const wd = await ok(s, key, 'write', { path: '/l/c/d.txt', content: 'd' });
      const we = await ok(s, key, 'write', { path: '/l/e.txt', content: 'e' });
      await ok(s, key, 'write', { path: '/l/e.txt', content: 'e2' });
      const c = await ok(s, key, 'stat', { path: '/l/c' });
      const e2 = await ok(s, key, 'stat', { path: '/l/e.txt' });
      const flat = await ok(s, key, 'list', { path: '/l' });
      assert.equal(flat.path, '/l');
      assert.deepEqual(flat.entries, [
        { name: 'a.txt', path: '/l/a.txt', type: 'file', size: 2, version: 1, updatedAt: wa.updatedAt },
        { name: 'b.txt', path: '/l/b.txt', type: 'file', size: 3, version: 1, updatedAt: wb.updatedAt },
        { name: 'c', path: '/l/c', type: 'directory', size: c.size, version: 1, updatedAt: c.updatedAt },
        { name: 'e.txt', path: '/l/e.txt', type: 'file', size: 2, version: 2, updatedAt: e2.updatedAt },
      ]);
      assert.equal(flat.nextCursor, null);
      assert.notEqual(e2.updatedAt, we.updatedAt);
      const deep = await ok(s, key, 'list', { path: '/l', recursive: true });
      assert.deepEqual(
        deep.entries.map((e: any) => e.path),
        ['/l/a.txt', '/l/b.txt', '/l/c', '/l/c/d.txt', '/l/e.txt'],
      );
      assert.deepEqual(deep.entries[3], { name: 'd.txt', path: '/l/c/d.txt', type: 'file', size: 1, version: 1, updatedAt: wd.updatedAt });
      assert.equal(deep.nextCursor, null);
      // Default path is the root; deleted entries disappear.
      const root = await ok(s, key, 'list', {});
      assert.equal(root.path, '/');
      // The mount points come first at / (first page).
      assert.deepEqual(
        root.entries.map((e: any) => e.path),
        ['/published', '/shared', '/l'],
      );
      await ok(s, key, 'delete', { path: '/l/b.txt' });
      assert.deepEqual(
        (await ok(s, key, 'list', { path: '/l' })).entries.map((e: any) => e.name),
        ['a.txt', 'c', 'e.txt'],
      );
    });

    it('list paging with limit and cursor; a foreign or bad cursor → INVALID_INPUT', async () => {
      const { key } = await fresh(s);
      for (const p of ['/pg/a.txt', '/pg/b.txt', '/pg/c/d.txt', '/pg/e.txt']) await ok(s, key, 'write', { path: p, content: p });

      const pages: string[][] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 10; i++) {
        const page = await ok(s, key, 'list', { path: '/pg', limit: 2, ...(cursor ? { cursor } : {}) });
        assert.ok(page.entries.length <= 2);
        pages.push(page.entries.map((e: any) => e.name));
        if (page.nextCursor === null) break;
        assert.equal(typeof page.nextCursor, 'string');
        cursor = page.nextCursor;
      }
      assert.deepEqual(pages, [
        ['a.txt', 'b.txt'],
        ['c', 'e.txt'],
      ]);

      const rpages: string[][] = [];
      cursor = undefined;
      for (let i = 0; i < 10; i++) {
        const page = await ok(s, key, 'list', { path: '/pg', recursive: true, limit: 2, ...(cursor ? { cursor } : {}) });
        rpages.push(page.entries.map((e: any) => e.path));
        if (page.nextCursor === null) break;
        cursor = page.nextCursor;
      }
      assert.deepEqual(rpages, [['/pg/a.txt', '/pg/b.txt'], ['/pg/c', '/pg/c/d.txt'], ['/pg/e.txt']]);

      const first = await ok(s, key, 'list', { path: '/pg', limit: 2 });
      assert.ok(first.nextCursor);
      await ok(s, key, 'mkdir', { path: '/other' });
      for (const input of [
        { path: '/pg', cursor: 'not-a-cursor' },
        { path: '/pg', cursor: '' },
        { path: '/pg', cursor: Buffer.from('{"a":5}').toString('base64url') },
        { path: '/other', cursor: first.nextCursor },
        { path: '/pg', recursive: true, cursor: first.nextCursor },
      ]) {
        const err = await fail(s, key, 'list', input, 'INVALID_INPUT');
        assert.equal(err.details.field, 'cursor', JSON.stringify(input));
      }
    });

    it('list is in byte order of UTF-8 paths, also across pages', async () => {
      const { key } = await fresh(s);
      const names = ['\u{1F600}', 'a', '\uff5a', 'Z', 'B', '\u00e9', '_'];
      for (const n of names) await ok(s, key, 'write', { path: `/u/${n}`, content: n });
      const expected = [...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      assert.deepEqual(expected, ['B', 'Z', '_', 'a', '\u00e9', '\uff5a', '\u{1F600}']);
      assert.deepEqual(
        (await ok(s, key, 'list', { path: '/u' })).entries.map((e: any) => e.name),
        expected,
      );
      const paged: string[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 20; i++) {
        const page = await ok(s, key, 'list', { path: '/u', limit: 1, ...(cursor ? { cursor } : {}) });
        paged.push(...page.entries.map((e: any) => e.name));
        if (page.nextCursor === null) break;
        cursor = page.nextCursor;
      }
      assert.deepEqual(paged, expected);
    });

    it('list of a file → NOT_A_DIRECTORY; of a missing path → NOT_FOUND; empty root is empty', async () => {
      const { key } = await fresh(s);
      const empty = await ok(s, key, 'list', { path: '/' });
      assert.deepEqual(own(empty), []);
      assert.equal(empty.nextCursor, null);
      assert.deepEqual(own(await ok(s, key, 'list', { path: '/', recursive: true })), []);
      await ok(s, key, 'write', { path: '/f.txt', content: 'x' });
      const err = await fail(s, key, 'list', { path: '/f.txt' }, 'NOT_A_DIRECTORY');
      assert.equal(err.details.path, '/f.txt');
      const nf = await fail(s, key, 'list', { path: '/nope' }, 'NOT_FOUND');
      assert.equal(nf.details.path, '/nope');
      await fail(s, key, 'list', { path: '/f.txt/below' }, 'NOT_FOUND');
    });
  });

  describe(`files: mkdir, delete (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend);
    });
    after(() => s.close());

    it('mkdir creates parents, is idempotent (created: false), and / is fine', async () => {
      const { key } = await fresh(s);
      const m = await ok(s, key, 'mkdir', { path: '/m/n/o' });
      assert.equal(m.path, '/m/n/o');
      assert.equal(m.created, true);
      assert.deepEqual([...m.createdPaths].sort(), ['/m', '/m/n', '/m/n/o']);
      assert.equal(m.version, 1);
      assert.match(m.updatedAt, ISO_MS);
      assert.match(m.changesetId, /^cs_/);
      const again = await ok(s, key, 'mkdir', { path: '/m/n/o' });
      assert.equal(again.created, false);
      assert.equal(again.version, 1);
      assert.equal(again.updatedAt, m.updatedAt);
      assert.equal(again.changesetId, null);
      const parent = await ok(s, key, 'mkdir', { path: '/m' });
      assert.equal(parent.created, false);
      const root = await ok(s, key, 'mkdir', { path: '/' });
      assert.equal(root.created, false);
      assert.equal((await ok(s, key, 'stat', { path: '/m/n/o' })).versionCount, 1);
      const sib = await ok(s, key, 'mkdir', { path: '/m/n/p' });
      assert.deepEqual(sib.createdPaths, ['/m/n/p'], 'existing parents are not re-created');
      assert.deepEqual(
        (await ok(s, key, 'list', { path: '/m/n' })).entries.map((e: any) => [e.name, e.type]),
        [
          ['o', 'directory'],
          ['p', 'directory'],
        ],
      );
    });

    it('mkdir over a file or below a file → NOT_A_DIRECTORY', async () => {
      const { key } = await fresh(s);
      await ok(s, key, 'write', { path: '/m/file.txt', content: 'x' });
      let err = await fail(s, key, 'mkdir', { path: '/m/file.txt' }, 'NOT_A_DIRECTORY');
      assert.equal(err.details.path, '/m/file.txt');
      assert.equal(err.details.blockingPath, '/m/file.txt');
      err = await fail(s, key, 'mkdir', { path: '/m/file.txt/sub/deeper' }, 'NOT_A_DIRECTORY');
      assert.equal(err.details.blockingPath, '/m/file.txt');
      const st = await ok(s, key, 'stat', { path: '/m/file.txt' });
      assert.equal(st.type, 'file');
      assert.equal(st.version, 1);
    });

    it('delete a file: tombstone version, deleted list, recoverable', async () => {
      const { key } = await fresh(s);
      const w = await ok(s, key, 'write', { path: '/del/file.txt', content: 'content' });
      const d = await ok(s, key, 'delete', { path: '/del/file.txt' });
      assert.equal(d.path, '/del/file.txt');
      assert.equal(d.version, 2);
      assert.match(d.updatedAt, ISO_MS);
      assert.ok(d.updatedAt > w.updatedAt);
      assert.deepEqual(d.deletedPaths, [{ path: '/del/file.txt', type: 'file', version: 2 }]);
      assert.equal(d.restorable, true);
      assert.match(d.changesetId, /^cs_/);
      await fail(s, key, 'read', { path: '/del/file.txt' }, 'NOT_FOUND');
      assert.deepEqual((await ok(s, key, 'list', { path: '/del' })).entries, []);
      assert.equal((await ok(s, key, 'read', { path: '/del/file.txt', version: 1 })).content, 'content');
    });

    it('delete an empty directory; a non-empty one → DIRECTORY_NOT_EMPTY; recursive deletes all', async () => {
      const { key } = await fresh(s);
      await ok(s, key, 'mkdir', { path: '/empty' });
      const de = await ok(s, key, 'delete', { path: '/empty' });
      assert.deepEqual(de.deletedPaths, [{ path: '/empty', type: 'directory', version: 2 }]);
      await fail(s, key, 'stat', { path: '/empty' }, 'NOT_FOUND');

      for (const p of ['/ne/a.txt', '/ne/b.txt', '/ne/sub/c.txt']) await ok(s, key, 'write', { path: p, content: p });
      await ok(s, key, 'write', { path: '/ne/a.txt', content: 'a2' });
      await ok(s, key, 'write', { path: '/nextdoor.txt', content: 'stays' });
      const err = await fail(s, key, 'delete', { path: '/ne' }, 'DIRECTORY_NOT_EMPTY');
      assert.equal(err.details.path, '/ne');
      assert.equal(err.details.childCount, 3);
      assert.match(err.message, /3 entries/);
      assert.match(err.message, /recursive/);
      assert.equal((await ok(s, key, 'read', { path: '/ne/a.txt' })).content, 'a2', 'nothing deleted');

      const d = await ok(s, key, 'delete', { path: '/ne', recursive: true });
      assert.equal(d.path, '/ne');
      assert.equal(d.version, 2);
      const deleted = [...d.deletedPaths].sort((x: any, y: any) => (x.path < y.path ? -1 : 1));
      assert.deepEqual(deleted, [
        { path: '/ne', type: 'directory', version: 2 },
        { path: '/ne/a.txt', type: 'file', version: 3 },
        { path: '/ne/b.txt', type: 'file', version: 2 },
        { path: '/ne/sub', type: 'directory', version: 2 },
        { path: '/ne/sub/c.txt', type: 'file', version: 2 },
      ]);
      for (const p of ['/ne', '/ne/a.txt', '/ne/b.txt', '/ne/sub', '/ne/sub/c.txt']) {
        const nf = await fail(s, key, 'stat', { path: p }, 'NOT_FOUND');
        assert.ok(nf.details.deleted, `${p} has a tombstone`);
      }
      assert.deepEqual(
        own(await ok(s, key, 'list', { path: '/', recursive: true })).map((e: any) => e.path),
        ['/nextdoor.txt'],
      );
      // Writing below the deleted directory re-creates it; its version continues.
      await ok(s, key, 'write', { path: '/ne/sub/c.txt', content: 'back' });
      assert.equal((await ok(s, key, 'stat', { path: '/ne' })).version, 3);
      assert.equal((await ok(s, key, 'stat', { path: '/ne/sub' })).version, 3);
      assert.equal((await ok(s, key, 'stat', { path: '/ne/sub/c.txt' })).version, 3);
      assert.equal((await ok(s, key, 'read', { path: '/ne/a.txt', version: 2 })).content, 'a2', 'history survives');
    });

    it('delete with expectedVersion / expectedUpdatedAt', async () => {
      const { key } = await fresh(s);
      const w1 = await ok(s, key, 'write', { path: '/x.txt', content: '1' });
      const w2 = await ok(s, key, 'write', { path: '/x.txt', content: '2' });
      let err = await fail(s, key, 'delete', { path: '/x.txt', expectedVersion: 1 }, 'EDIT_CONFLICT');
      assert.equal(err.details.current.version, 2);
      err = await fail(s, key, 'delete', { path: '/x.txt', expectedUpdatedAt: w1.updatedAt }, 'EDIT_CONFLICT');
      assert.equal(err.details.current.updatedAt, w2.updatedAt);
      const bad = await fail(s, key, 'delete', { path: '/x.txt', expectedUpdatedAt: 'now' }, 'INVALID_INPUT');
      assert.equal(bad.details.field, 'expectedUpdatedAt');
      assert.equal((await ok(s, key, 'read', { path: '/x.txt' })).content, '2');
      const d = await ok(s, key, 'delete', { path: '/x.txt', expectedVersion: 2, expectedUpdatedAt: w2.updatedAt });
      assert.equal(d.version, 3);
      // Deleting again with the old precondition: the file is gone (conflict with a deleted head).
      err = await fail(s, key, 'delete', { path: '/x.txt', expectedVersion: 2 }, 'EDIT_CONFLICT');
      assert.equal(err.details.current.deleted, true);
      assert.equal(err.details.current.version, 3);
    });

    it('delete of / → INVALID_PATH; of a missing path → NOT_FOUND', async () => {
      const { key } = await fresh(s);
      await ok(s, key, 'write', { path: '/keep.txt', content: 'x' });
      for (const path of ['/', '//', '/a/..']) {
        const err = await fail(s, key, 'delete', { path, recursive: true }, 'INVALID_PATH');
        assert.equal(err.details.reason, 'root', path);
      }
      assert.equal((await ok(s, key, 'read', { path: '/keep.txt' })).content, 'x');
      const nf = await fail(s, key, 'delete', { path: '/missing' }, 'NOT_FOUND');
      assert.equal(nf.details.path, '/missing');
    });

    it('re-creating after delete continues the version; versions are never reused', async () => {
      const { key } = await fresh(s);
      const w1 = await ok(s, key, 'write', { path: '/re.txt', content: 'original' });
      await ok(s, key, 'delete', { path: '/re.txt' });
      const w3 = await ok(s, key, 'write', { path: '/re.txt', content: 'reborn' });
      assert.equal(w3.version, 3);
      assert.equal(w3.created, true);
      assert.ok(w3.updatedAt > w1.updatedAt);
      const st = await ok(s, key, 'stat', { path: '/re.txt' });
      assert.equal(st.versionCount, 3);
      assert.equal(st.version, 3);
      assert.equal((await ok(s, key, 'read', { path: '/re.txt', version: 1 })).content, 'original');
      await ok(s, key, 'delete', { path: '/re.txt' });
      // Re-create with the same content as version 1: still a new version.
      const w5 = await ok(s, key, 'write', { path: '/re.txt', content: 'original' });
      assert.equal(w5.version, 5);
      assert.equal(w5.created, true);
      assert.equal(w5.unchanged, false);
      // A directory where a file was: also a new version of the path.
      await ok(s, key, 'delete', { path: '/re.txt' });
      const m = await ok(s, key, 'mkdir', { path: '/re.txt' });
      assert.equal(m.version, 7);
      assert.equal((await ok(s, key, 'stat', { path: '/re.txt' })).type, 'directory');
    });
  });

  describe(`files: limits (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, {
        MAX_FILE_BYTES: '2000',
        STORAGE_QUOTA_BYTES: '5000',
        READ_PAGE_LINES: '3',
        READ_PAGE_BYTES: '1024',
      });
    });
    after(() => s.close());

    it('get_key_info reports the configured limits', async () => {
      const { key } = await fresh(s);
      const info = await ok(s, key, 'get_key_info', { includeLimits: true });
      assert.equal(info.limits.maxFileBytes, 2000);
      assert.equal(info.limits.storageQuotaBytes, 5000);
      assert.equal(info.limits.readPageLines, 3);
      assert.equal(info.limits.readPageBytes, 1024);
      assert.equal(info.usage.storageBytes, 0);
      assert.equal(info.usage.storageRemainingBytes, 5000);
    });

    it('FILE_TOO_LARGE over MAX_FILE_BYTES (bytes, not characters), details.limit', async () => {
      const { key } = await fresh(s);
      const w = await ok(s, key, 'write', { path: '/max.txt', content: 'x'.repeat(2000) });
      assert.equal(w.size, 2000);
      let err = await fail(s, key, 'write', { path: '/big.txt', content: 'x'.repeat(2001) }, 'FILE_TOO_LARGE');
      assert.equal(err.details.limit, 2000);
      assert.equal(err.details.size, 2001);
      assert.equal(err.details.path, '/big.txt');
      assert.match(err.message, /2000/);
      err = await fail(s, key, 'write', { path: '/big.txt', content: '\u00e9'.repeat(1001) }, 'FILE_TOO_LARGE'); // 1001 chars
      assert.equal(err.details.size, 2002);
      err = await fail(s, key, 'write', { path: '/big.bin', content: randomBytes(2001).toString('base64'), encoding: 'base64' }, 'FILE_TOO_LARGE');
      assert.equal(err.details.size, 2001);
      await fail(s, key, 'write', { path: '/max.txt', content: 'y'.repeat(2001) }, 'FILE_TOO_LARGE');
      await fail(s, key, 'read', { path: '/big.txt' }, 'NOT_FOUND');
      await fail(s, key, 'read', { path: '/big.bin' }, 'NOT_FOUND');
      assert.equal((await ok(s, key, 'stat', { path: '/max.txt' })).version, 1);
    });

    it('QUOTA_EXCEEDED; identical content is stored once; deletes work at and over quota', async () => {
      const { key } = await fresh(s);
      const usage = async () => (await ok(s, key, 'get_key_info')).usage.storageBytes;
      const A = 'a'.repeat(1500);
      await ok(s, key, 'write', { path: '/q/a.txt', content: A });
      assert.equal(await usage(), 1500);
      await ok(s, key, 'write', { path: '/q/b.txt', content: A }); // same bytes: no new storage
      assert.equal(await usage(), 1500);
      await ok(s, key, 'write', { path: '/q/c.txt', content: 'c'.repeat(2000) });
      assert.equal(await usage(), 3500);
      const err = await fail(s, key, 'write', { path: '/q/d.txt', content: 'd'.repeat(1600) }, 'QUOTA_EXCEEDED');
      assert.equal(err.details.usedBytes, 3500);
      assert.equal(err.details.addBytes, 1600);
      assert.equal(err.details.limitBytes, 5000);
      assert.match(err.message, /5000/);
      await fail(s, key, 'read', { path: '/q/d.txt' }, 'NOT_FOUND');
      assert.equal(await usage(), 3500, 'a rejected write stores nothing');
      // Exactly up to the quota is fine.
      await ok(s, key, 'write', { path: '/q/d.txt', content: 'd'.repeat(1500) });
      assert.equal(await usage(), 5000);
      assert.equal((await ok(s, key, 'get_key_info')).usage.storageRemainingBytes, 0);
      await fail(s, key, 'write', { path: '/q/e.txt', content: 'e' }, 'QUOTA_EXCEEDED');
      // Content already stored does not count twice, even at the quota.
      const dup = await ok(s, key, 'write', { path: '/q/e.txt', content: A });
      assert.equal(dup.created, true);
      assert.equal(await usage(), 5000);
      // Directories and deletes need no storage.
      await ok(s, key, 'mkdir', { path: '/q/dir' });
      await ok(s, key, 'delete', { path: '/q/a.txt' });
      // Another agent has its own quota.
      const other = await fresh(s);
      await ok(s, other.key, 'write', { path: '/mine.txt', content: 'o'.repeat(2000) });

      // Over the quota (an operator lowered it): deletes and already-stored content still work.
      const saved = s.config.storageQuotaBytes;
      s.config.storageQuotaBytes = 4000;
      try {
        const over = await ok(s, key, 'get_key_info');
        assert.equal(over.usage.storageBytes, 5000);
        assert.equal(over.usage.storageRemainingBytes, 0);
        await fail(s, key, 'write', { path: '/q/f.txt', content: 'f' }, 'QUOTA_EXCEEDED');
        await ok(s, key, 'delete', { path: '/q/b.txt' });
        await ok(s, key, 'delete', { path: '/q/dir', recursive: true });
        await ok(s, key, 'write', { path: '/q/g.txt', content: 'c'.repeat(2000) });
        await ok(s, key, 'mkdir', { path: '/q/dir2' });
        await ok(s, key, 'delete', { path: '/q', recursive: true });
        assert.deepEqual(own(await ok(s, key, 'list', { path: '/' })), []);
      } finally {
        s.config.storageQuotaBytes = saved;
      }
    });

    it('file quota: write, mkdir and copy past MAX_FILES_PER_AGENT → QUOTA_EXCEEDED naming the quota; deleted files do not count', async () => {
      const { key } = await fresh(s);
      const saved = s.config.maxFilesPerAgent;
      s.config.maxFilesPerAgent = 5;
      try {
        await ok(s, key, 'write', { path: '/fq/a.txt', content: 'a' }); // /fq and a.txt
        await ok(s, key, 'mkdir', { path: '/fq/d/e' }); // 4
        await ok(s, key, 'write', { path: '/fq/b.txt', content: '' }); // 5: empty files count too
        const info = await ok(s, key, 'get_key_info', { includeLimits: true });
        assert.equal(info.limits.maxFiles, 5);
        assert.deepEqual([info.usage.fileCount, info.usage.filesRemaining], [5, 0]);
        const err = await fail(s, key, 'write', { path: '/fq/c.txt', content: '' }, 'QUOTA_EXCEEDED');
        assert.deepEqual(err.details, { quota: 'files', usedFiles: 5, addFiles: 1, limitFiles: 5 });
        assert.match(err.message, /File quota exceeded: 5 files and directories exist \(the limit is 5\)/);
        assert.match(err.message, /Delete files or directories you no longer need/);
        const mk = await fail(s, key, 'mkdir', { path: '/fq/x/y' }, 'QUOTA_EXCEEDED');
        assert.equal(mk.details.addFiles, 2);
        const cp = await fail(s, key, 'copy', { from: '/fq/d', to: '/fq/d2' }, 'QUOTA_EXCEEDED');
        assert.equal(cp.details.quota, 'files');
        await fail(s, key, 'read', { path: '/fq/c.txt' }, 'NOT_FOUND');
        // Updates add nothing, so they work at the limit; a move adds nothing either.
        await ok(s, key, 'write', { path: '/fq/a.txt', content: 'a2' });
        await ok(s, key, 'move', { from: '/fq/b.txt', to: '/fq/b2.txt' });
        // A delete frees its entries (the tombstone does not count) and works at or over the limit.
        await ok(s, key, 'delete', { path: '/fq/d', recursive: true });
        assert.equal((await ok(s, key, 'get_key_info')).usage.fileCount, 3);
        await ok(s, key, 'write', { path: '/fq/c.txt', content: '' });
        // Restoring the directory brings back /fq/d/e too (its recursive delete took it): 2 more.
        const rq = await fail(s, key, 'restore', { path: '/fq/d', version: 1 }, 'QUOTA_EXCEEDED');
        assert.equal(rq.details.addFiles, 2);
        await ok(s, key, 'delete', { path: '/fq/c.txt' });
        await ok(s, key, 'restore', { path: '/fq/d', version: 1 });
        assert.equal((await ok(s, key, 'get_key_info')).usage.fileCount, 5);
        s.config.maxFilesPerAgent = 2;
        await ok(s, key, 'delete', { path: '/fq/b2.txt' });
        await fail(s, key, 'write', { path: '/fq/c.txt', content: '' }, 'QUOTA_EXCEEDED');
        await ok(s, key, 'delete', { path: '/fq', recursive: true });
        assert.equal((await ok(s, key, 'get_key_info')).usage.fileCount, 0);
      } finally {
        s.config.maxFilesPerAgent = saved;
      }
    });

    it('read pages by READ_PAGE_LINES: lines, truncated, next; following next rebuilds the file', async () => {
      const { key } = await fresh(s);
      const lines = Array.from({ length: 7 }, (_, i) => `l${i + 1}\n`);
      const content = lines.join('');
      await ok(s, key, 'write', { path: '/page.txt', content });
      const p1 = await ok(s, key, 'read', { path: '/page.txt' });
      assert.equal(p1.content, 'l1\nl2\nl3\n');
      assert.deepEqual(p1.lines, { start: 1, end: 3, total: 7 });
      assert.equal(p1.truncated, true);
      assert.deepEqual(p1.next, { offset: 4 });
      assert.equal(p1.size, byteLen(content), 'size is the whole file');
      assert.match(p1.note, /offset 4/);
      const p2 = await ok(s, key, 'read', { path: '/page.txt', offset: p1.next.offset });
      assert.equal(p2.content, 'l4\nl5\nl6\n');
      assert.deepEqual(p2.lines, { start: 4, end: 6, total: 7 });
      assert.deepEqual(p2.next, { offset: 7 });
      const p3 = await ok(s, key, 'read', { path: '/page.txt', offset: p2.next.offset });
      assert.equal(p3.content, 'l7\n');
      assert.deepEqual(p3.lines, { start: 7, end: 7, total: 7 });
      assert.equal(p3.next, undefined);
      assert.equal(p1.content + p2.content + p3.content, content);
      // limit is capped at the page size; a smaller limit is honoured.
      const capped = await ok(s, key, 'read', { path: '/page.txt', limit: 100 });
      assert.deepEqual(capped.lines, { start: 1, end: 3, total: 7 });
      const small = await ok(s, key, 'read', { path: '/page.txt', offset: 2, limit: 2 });
      assert.equal(small.content, 'l2\nl3\n');
      assert.deepEqual(small.next, { offset: 4 });
      // A file within one page is not truncated.
      await ok(s, key, 'write', { path: '/short.txt', content: 'a\nb\nc\n' });
      const short = await ok(s, key, 'read', { path: '/short.txt' });
      assert.equal(short.truncated, false);
      assert.equal(short.next, undefined);
    });

    it('read caps a page at READ_PAGE_BYTES; an over-long line is cut and reported', async () => {
      const { key } = await fresh(s);
      const line = 'w'.repeat(599) + '\n'; // 600 bytes: two do not fit in 1024
      await ok(s, key, 'write', { path: '/wide.txt', content: line.repeat(3) });
      const r = await ok(s, key, 'read', { path: '/wide.txt' });
      assert.equal(r.content, line);
      assert.deepEqual(r.lines, { start: 1, end: 1, total: 3 });
      assert.equal(r.truncated, true);
      assert.deepEqual(r.next, { offset: 2 });

      const long = 'L'.repeat(1500) + '\ntail\n';
      await ok(s, key, 'write', { path: '/long.txt', content: long });
      const c = await ok(s, key, 'read', { path: '/long.txt' });
      assert.equal(c.content, 'L'.repeat(1024));
      assert.deepEqual(c.lines, { start: 1, end: 1, total: 2 });
      assert.equal(c.truncated, true);
      assert.deepEqual(c.next, { offset: 2 });
      assert.match(c.note, /longer than 1024 bytes/);
      const t = await ok(s, key, 'read', { path: '/long.txt', offset: 2 });
      assert.equal(t.content, 'tail\n');
      const b = await ok(s, key, 'read', { path: '/long.txt', encoding: 'base64' });
      assert.equal(Buffer.from(b.content, 'base64').toString('utf8'), long, 'base64 gives the exact bytes');
    });
  });

  describe(`files: get_key_info, folder keys, isolation (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend);
    });
    after(() => s.close());

    it('get_key_info: key, agent, scopes, limits and usage', async () => {
      const reg = await s.register('Key Info Agent');
      const info = await ok(s, reg.apiKey, 'get_key_info', { includeLimits: true });
      assert.match(info.keyId, /^key_/);
      assert.equal(info.label, 'default');
      assert.deepEqual(info.agent, { id: reg.id, slug: reg.slug, name: 'Key Info Agent' });
      // The registration key holds every scope; get_key_info shows those some tool needs.
      assert.deepEqual(
        info.scopes,
        ALL_SCOPES.filter((x) =>
          buildRegistry()
            .all()
            .some((t) => !t.fullAccess && t.scopes.includes(x)),
        ),
      );
      assert.equal(info.fullAccess, true);
      assert.equal(info.readOnly, false);
      assert.equal(info.folder, null);
      assert.equal(info.expiresAt, null);
      assert.deepEqual(info.limits, {
        maxFileBytes: s.config.maxFileBytes,
        storageQuotaBytes: s.config.storageQuotaBytes,
        maxFiles: s.config.maxFilesPerAgent,
        maxRequestBodyBytes: s.config.maxBodyBytes,
        readPageLines: s.config.readPageLines,
        readPageBytes: s.config.readPageBytes,
        requestsPerMinute: s.config.rateLimitPerMinute,
        maxKeys: s.config.maxKeysPerAgent,
        maxFollowing: 5000,
        maxActiveShares: 1000,
        maxPublished: 1000,
        bashConcurrent: s.config.bashMaxConcurrentPerAgent,
        bashWorkerMsPerMinute: s.config.bashWorkerMsPerMinute,
        actions: {
          follow: { max: 200, windowSeconds: 3600, counted: 'follows that start following someone' },
          send_message: { max: 100, windowSeconds: 3600, counted: 'messages sent' },
          message_stranger: { max: 20, windowSeconds: 3600, counted: 'messages sent to agents who do not follow you' },
          share: { max: 200, windowSeconds: 3600, counted: 'shares and links created (updates of a share too)' },
          publish: { max: 100, windowSeconds: 86_400, counted: 'items published (republishing a path too)' },
          create_community: { max: 5, windowSeconds: 86_400, counted: 'communities created' },
          create_post: { max: 10, windowSeconds: 3600, counted: 'posts created' },
          comment: { max: 120, windowSeconds: 3600, counted: 'comments written' },
          vote: { max: 600, windowSeconds: 3600, counted: 'votes cast or changed' },
          report: { max: 30, windowSeconds: 3600, counted: 'reports filed' },
        },
      });
      assert.equal(info.revokedAt, null);
      // The limits come only on request: the default answer stays short.
      const lean = await ok(s, reg.apiKey, 'get_key_info');
      assert.equal('limits' in lean, false);
      assert.deepEqual([lean.keyId, lean.scopes, lean.usage.fileCount], [info.keyId, info.scopes, 0]);
      assert.equal(info.usage.rate.per, 'agent');
      assert.equal(info.usage.storageBytes, 0);
      assert.equal(info.usage.storageRemainingBytes, s.config.storageQuotaBytes);
      assert.equal(info.usage.fileCount, 0);
      assert.equal(info.usage.filesRemaining, s.config.maxFilesPerAgent);

      await ok(s, reg.apiKey, 'write', { path: '/u1.txt', content: 'hello world' }); // 11 bytes
      let u = (await ok(s, reg.apiKey, 'get_key_info')).usage;
      assert.equal(u.storageBytes, 11);
      assert.equal(u.storageRemainingBytes, s.config.storageQuotaBytes - 11);
      await ok(s, reg.apiKey, 'write', { path: '/u2.txt', content: 'hello world' });
      await ok(s, reg.apiKey, 'mkdir', { path: '/dir' });
      assert.equal((await ok(s, reg.apiKey, 'get_key_info')).usage.storageBytes, 11, 'same content counts once');
      await ok(s, reg.apiKey, 'write', { path: '/u1.txt', content: 'bye\n' });
      u = (await ok(s, reg.apiKey, 'get_key_info')).usage;
      assert.equal(u.storageBytes, 15);
      assert.equal(u.fileCount, 3, 'two files and a directory');
      assert.equal(u.filesRemaining, s.config.maxFilesPerAgent - 3);
      await ok(s, reg.apiKey, 'delete', { path: '/u2.txt' });
      assert.equal((await ok(s, reg.apiKey, 'get_key_info')).usage.fileCount, 2, 'deleted files do not count');

      const ro = await s.addKey(reg.id, { scopes: ['files:read'], label: 'reader' });
      const roInfo = await ok(s, ro, 'get_key_info');
      assert.deepEqual(roInfo.scopes, ['files:read']);
      assert.equal(roInfo.readOnly, true);
      assert.equal(roInfo.fullAccess, false);
      assert.equal(roInfo.label, 'reader');
      assert.notEqual(roInfo.keyId, info.keyId);
      assert.deepEqual(roInfo.agent, info.agent);
      assert.equal(roInfo.usage.storageBytes, 15, 'usage is per agent');

      const fk = await s.addKey(reg.id, { scopes: ['files'], folder: '/projects/x' });
      const fkInfo = await ok(s, fk, 'get_key_info');
      assert.equal(fkInfo.folder, '/projects/x');
      assert.deepEqual(fkInfo.scopes, ['files:read', 'files:write', 'files:delete']);
      assert.equal(fkInfo.readOnly, false);
    });

    describe('a folder-scoped key', () => {
      let full: string;
      let fk: string;
      let agentId: string;
      before(async () => {
        const reg = await s.register('Folder Owner');
        full = reg.apiKey;
        agentId = reg.id;
        for (const p of [
          '/projects/x/a.txt',
          '/projects/x/sub/b.txt',
          '/projects/xy/secret.txt',
          '/projects/other.txt',
          '/top-secret.txt',
          '/alpha/notes.md',
        ]) {
          await ok(s, full, 'write', { path: p, content: `content of ${p}` });
        }
        fk = await s.addKey(agentId, { scopes: ['files'], folder: '/projects/x', label: 'folder-x' });
      });

      it('reads and writes inside its folder, recorded under its key', async () => {
        assert.equal((await ok(s, fk, 'read', { path: '/projects/x/a.txt' })).content, 'content of /projects/x/a.txt');
        const w = await ok(s, fk, 'write', { path: '/projects/x/new.txt', content: 'by folder key' });
        assert.equal(w.path, '/projects/x/new.txt');
        const st = await ok(s, fk, 'stat', { path: '/projects/x/new.txt' });
        assert.equal(st.updatedBy.label, 'folder-x');
        assert.equal((await ok(s, full, 'read', { path: '/projects/x/new.txt' })).content, 'by folder key');
        await ok(s, fk, 'mkdir', { path: '/projects/x/made' });
        await ok(s, fk, 'delete', { path: '/projects/x/made' });
        await ok(s, fk, 'write', { path: '/projects/x/sub/../rel.txt', content: 'r' });
        assert.equal((await ok(s, fk, 'read', { path: '/projects/x/rel.txt' })).content, 'r');
      });

      it('anything outside → OUTSIDE_KEY_FOLDER, including the /projects/xy prefix trick', async () => {
        const cases: Array<[string, Record<string, unknown>, string]> = [
          ['write', { path: '/top.txt', content: 'x' }, '/top.txt'],
          ['write', { path: '/projects/xy/n.txt', content: 'x' }, '/projects/xy/n.txt'],
          ['write', { path: '/projects/x/../xy/z.txt', content: 'x' }, '/projects/xy/z.txt'],
          ['write', { path: '/projects/x.txt', content: 'x' }, '/projects/x.txt'],
          ['write', { path: '/projects/other.txt', content: 'x' }, '/projects/other.txt'],
          ['read', { path: '/projects/xy/secret.txt' }, '/projects/xy/secret.txt'],
          ['read', { path: '/top-secret.txt' }, '/top-secret.txt'],
          ['read', { path: '/projects/other.txt' }, '/projects/other.txt'],
          ['stat', { path: '/projects/xy' }, '/projects/xy'],
          ['stat', { path: '/projects/xy/secret.txt' }, '/projects/xy/secret.txt'],
          ['stat', { path: '/alpha' }, '/alpha'],
          ['list', { path: '/projects/xy' }, '/projects/xy'],
          ['list', { path: '/alpha' }, '/alpha'],
          ['mkdir', { path: '/projects/new' }, '/projects/new'],
          ['mkdir', { path: '/projects' }, '/projects'],
          ['delete', { path: '/projects/xy/secret.txt' }, '/projects/xy/secret.txt'],
          ['delete', { path: '/projects', recursive: true }, '/projects'],
          ['delete', { path: '/top-secret.txt' }, '/top-secret.txt'],
          ['read', { path: '/projects' }, '/projects'],
          ['write', { path: '/projects', content: 'x' }, '/projects'],
        ];
        for (const [tool, input, path] of cases) {
          const err = await fail(s, fk, tool, input, 'OUTSIDE_KEY_FOLDER');
          assert.equal(err.details.path, path, `${tool} ${JSON.stringify(input)}`);
          assert.equal(err.details.folder, '/projects/x');
          assert.match(err.message, /\/projects\/x/);
        }
        // Nothing changed outside.
        assert.equal((await ok(s, full, 'read', { path: '/projects/xy/secret.txt' })).version, 1);
        assert.equal((await ok(s, full, 'read', { path: '/top-secret.txt' })).version, 1);
        await fail(s, full, 'read', { path: '/projects/xy/n.txt' }, 'NOT_FOUND');
        await fail(s, full, 'read', { path: '/top.txt' }, 'NOT_FOUND');
      });

      it('listings above the folder show only the way to it', async () => {
        const root = await ok(s, fk, 'list', { path: '/' });
        assert.deepEqual(
          root.entries.map((e: any) => [e.name, e.type]),
          [['projects', 'directory']],
        );
        assert.equal(root.nextCursor, null);
        const projects = await ok(s, fk, 'list', { path: '/projects' });
        assert.deepEqual(
          projects.entries.map((e: any) => [e.name, e.path, e.type]),
          [['x', '/projects/x', 'directory']],
        );
        const inside = await ok(s, fk, 'list', { path: '/projects/x' });
        assert.ok(inside.entries.some((e: any) => e.path === '/projects/x/a.txt'));
        assert.ok(inside.entries.every((e: any) => e.path.startsWith('/projects/x/')));

        const deep = await ok(s, fk, 'list', { path: '/', recursive: true });
        const paths = deep.entries.map((e: any) => e.path);
        assert.deepEqual(paths.slice(0, 3), ['/projects', '/projects/x', '/projects/x/a.txt']);
        for (const p of paths) assert.ok(p === '/projects' || p === '/projects/x' || p.startsWith('/projects/x/'), `${p} leaked`);
        assert.ok(paths.includes('/projects/x/sub/b.txt'));
        // Paging through the recursive listing from / gives the same entries.
        const paged: string[] = [];
        let cursor: string | undefined;
        for (let i = 0; i < 50; i++) {
          const page = await ok(s, fk, 'list', { path: '/', recursive: true, limit: 1, ...(cursor ? { cursor } : {}) });
          paged.push(...page.entries.map((e: any) => e.path));
          if (page.nextCursor === null) break;
          cursor = page.nextCursor;
        }
        assert.deepEqual(paged, paths);
        const fromProjects = await ok(s, fk, 'list', { path: '/projects', recursive: true });
        assert.deepEqual(
          fromProjects.entries.map((e: any) => e.path),
          paths.slice(1),
        );
      });

      it('stat of an ancestor works and shows it as a directory leading only to the folder', async () => {
        const st = await ok(s, fk, 'stat', { path: '/projects' });
        assert.equal(st.type, 'directory');
        assert.equal(st.path, '/projects');
        // /projects really holds x, xy and other.txt; through this key only x is visible.
        assert.equal(st.entryCount, 1, 'the entry count does not reveal what is outside the folder');
        const root = await ok(s, fk, 'stat', { path: '/' });
        assert.equal(root.type, 'directory');
        assert.equal(root.entryCount, 1, 'the root shows only /projects');
        const inside = await ok(s, fk, 'stat', { path: '/projects/x' });
        assert.equal(inside.type, 'directory');
      });

      it('NOT_FOUND suggestions never reveal paths outside the folder', async () => {
        for (const path of ['/projects/x/secret.txt', '/projects/x/other.txt', '/projects/x/notes.md', '/projects/x/top-secret.txt']) {
          const err = await fail(s, fk, 'read', { path }, 'NOT_FOUND');
          for (const p of err.details.similar) assert.ok(p.startsWith('/projects/x/'), `${path} suggested ${p}`);
          assert.ok(!/xy|alpha|\/projects\/other|\/top-secret/.test(err.message.replace(path, '')), `${path}: ${err.message}`);
        }
        const near = await fail(s, fk, 'read', { path: '/projects/x/a.tx' }, 'NOT_FOUND');
        assert.ok(near.details.similar.includes('/projects/x/a.txt'), 'inside suggestions still work');
        // The full key does get the outside suggestion (so the test above is meaningful).
        const fullErr = await fail(s, full, 'read', { path: '/projects/x/secret.txt' }, 'NOT_FOUND');
        assert.ok(fullErr.details.similar.includes('/projects/xy/secret.txt'));
      });
    });

    it('agents are isolated: B cannot read, stat or list A’s paths, nor learn their names', async () => {
      const a = await fresh(s);
      const b = await fresh(s);
      await ok(s, a.key, 'write', { path: '/private/secret-plans.md', content: 'world domination' });
      await ok(s, a.key, 'write', { path: '/private/roadmap.md', content: 'q3' });
      for (const [tool, input] of [
        ['read', { path: '/private/secret-plans.md' }],
        ['read', { path: '/private/secret-plan.md' }],
        ['read', { path: '/other/secret-plans.md' }],
        ['stat', { path: '/private/secret-plans.md' }],
        ['stat', { path: '/private' }],
        ['list', { path: '/private' }],
        ['delete', { path: '/private/secret-plans.md' }],
      ] as const) {
        const err = await fail(s, b.key, tool, input, 'NOT_FOUND');
        assert.deepEqual(err.details.similar, [], `${tool} ${input.path}`);
        assert.equal(err.details.deleted, undefined);
        const rest = err.message.split(input.path).join('');
        assert.ok(!/secret-plans|roadmap|private/.test(rest), `${tool}: ${err.message}`);
      }
      assert.deepEqual(own(await ok(s, b.key, 'list', { path: '/' })), []);
      assert.deepEqual(own(await ok(s, b.key, 'list', { path: '/', recursive: true })), []);
      assert.equal((await ok(s, b.key, 'stat', { path: '/' })).entryCount, 0);
      assert.equal((await ok(s, b.key, 'get_key_info')).usage.storageBytes, 0);
      // B's own file at the same path is independent (its own versions).
      const wb = await ok(s, b.key, 'write', { path: '/private/secret-plans.md', content: 'B' });
      assert.equal(wb.created, true);
      assert.equal(wb.version, 1);
      const ra = await ok(s, a.key, 'read', { path: '/private/secret-plans.md' });
      assert.equal(ra.content, 'world domination');
      assert.equal(ra.version, 1);
      await ok(s, b.key, 'delete', { path: '/private', recursive: true });
      assert.equal((await ok(s, a.key, 'read', { path: '/private/roadmap.md' })).content, 'q3');
    });
  });
}

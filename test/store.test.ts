/**
 * The Store contract, exercised directly on both implementations: compare-and-swap commits,
 * atomicity, quota, idempotency, byte-ordered listings, version rows and tombstones.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { contentHash } from '../src/core/text.js';
import { openStore } from '../src/store/open.js';
import { ENTRY_INLINE, StoreConflict, StoreIdempotencyTaken, StoreQuotaExceeded, type PlannedChange, type Store } from '../src/store/types.js';
import { backends, createTestDatabase, testConfig, type TestDatabase } from './helpers/backends.js';
import { blob, createTestAgent } from './helpers/store-fixtures.js';

const file = (path: string, text: string, expectVersion = 0, fileId = `f_${path}`): PlannedChange => ({
  path,
  expectVersion,
  op: expectVersion ? 'update' : 'create',
  state: { kind: 'file', blob: blob(text), lines: 1, fileId },
});

for (const backend of backends()) {
  describe(`Store contract (${backend})`, () => {
    let db: TestDatabase;
    let store: Store;
    let n = 0;
    const agent = () => createTestAgent(store, `agt_store${++n}`);
    const commit = (agentId: string, changes: PlannedChange[], quotaBytes = 1e9) =>
      store.commit({ agentId, keyId: 'k1', keyLabel: 'label', tool: 'test', changes, quotaBytes });

    before(async () => {
      db = await createTestDatabase(backend, { empty: true });
      store = openStore(testConfig(db));
      assert.ok((await store.migrate()) >= 1);
      assert.equal(await store.migrate(), 0, 'migrating twice applies nothing');
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    it('commit creates versions, a changeset with a per-agent increasing seq, and strictly increasing updatedAt', async () => {
      const a = await agent();
      const first = await commit(a, [file('/x.txt', 'one')]);
      assert.equal(first.seq, 1);
      assert.deepEqual(
        first.entries.map((e) => [e.path, e.op, e.fromVersion, e.toVersion]),
        [['/x.txt', 'create', null, 1]],
      );
      const times: number[] = [first.entries[0]!.updatedAtMs];
      for (let v = 1; v < 20; v++) {
        const cs = await commit(a, [file('/x.txt', `v${v}`, v)]);
        assert.equal(cs.seq, v + 1);
        times.push(cs.entries[0]!.updatedAtMs);
      }
      for (let i = 1; i < times.length; i++) assert.ok(times[i]! > times[i - 1]!, 'updatedAt strictly increases per path');
      const node = await store.getNode(a, '/x.txt');
      assert.equal(node?.version, 20);
      assert.equal((await store.getVersion(a, '/x.txt', 7))?.blobHash, blob('v6').hash);
      assert.equal(await store.countVersions(a, '/x.txt'), 20);
    });

    it('a stale expected version → StoreConflict, and nothing of the changeset is written', async () => {
      const a = await agent();
      await commit(a, [file('/a.txt', 'a1'), file('/b.txt', 'b1')]);
      await assert.rejects(commit(a, [file('/a.txt', 'a2', 1), file('/b.txt', 'b2', 5)]), (err) => {
        assert.ok(err instanceof StoreConflict);
        assert.equal(err.path, '/b.txt');
        assert.equal(err.current?.version, 1);
        return true;
      });
      assert.equal((await store.getNode(a, '/a.txt'))?.version, 1, 'the other path was rolled back');
      assert.equal((await store.listChangesets(a, { limit: 10 })).length, 1);
      await assert.rejects(commit(a, [file('/a.txt', 'again')]), StoreConflict); // expect 0 but it exists
    });

    it('quota: new distinct content may not pass the limit; identical content is stored once', async () => {
      const a = await agent();
      await commit(a, [file('/q1.txt', '12345')], 10);
      await commit(a, [file('/q2.txt', '12345')], 10); // same content: no new bytes
      assert.equal((await store.getAgent(a))?.storageBytes, 5);
      await assert.rejects(commit(a, [file('/q3.txt', '123456')], 10), (err) => {
        assert.ok(err instanceof StoreQuotaExceeded);
        assert.equal(err.quota, 'storage');
        assert.equal(err.used, 5);
        assert.equal(err.add, 6);
        return true;
      });
      assert.equal(await store.getNode(a, '/q3.txt'), null);
      // Deleting works even when the agent is at (or over) its quota.
      await commit(a, [{ path: '/q1.txt', expectVersion: 1, op: 'delete', state: { kind: 'deleted', was: 'file' } }], 1);
    });

    it('quota under concurrency: many writers at once never push usage past the limit', async () => {
      const a = await agent();
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => commit(a, [file(`/c${i}.txt`, `${String(i).padStart(3, '0')}`)], 10)),
      );
      const ok = results.filter((r) => r.status === 'fulfilled').length;
      assert.equal(ok, 3, 'three 3-byte files fit in 10 bytes, the fourth does not');
      for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof StoreQuotaExceeded);
      assert.equal((await store.getAgent(a))!.storageBytes, 9);
    });

    it('concurrent commits against the same version: exactly one wins', async () => {
      const a = await agent();
      await commit(a, [file('/race.txt', 'base')]);
      const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => commit(a, [file('/race.txt', `w${i}`, 1)])));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof StoreConflict);
      assert.equal((await store.getNode(a, '/race.txt'))?.version, 2);
    });

    it('commits issued together: a refused one undoes only itself (even after writing its first path)', async () => {
      // On SQLite these share one transaction (group commit) with a savepoint each.
      const a = await agent();
      await commit(a, [file('/m/a.txt', 'a1'), file('/m/z.txt', 'z1')]);
      const before = (await store.getAgent(a))!.storageBytes;
      const results = await Promise.allSettled([
        commit(a, [file('/m/ok1.txt', 'first ok')]),
        // Paths apply in order: /m/a.txt succeeds, then /m/z.txt's stale version refuses the whole commit.
        commit(a, [file('/m/a.txt', 'a2 half', 1), file('/m/z.txt', 'z2', 7)]),
        commit(a, [file('/m/big.txt', 'x'.repeat(500))], before + 20),
        commit(a, [file('/m/ok2.txt', 'second ok')]),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
      );
      assert.ok((results[1] as PromiseRejectedResult).reason instanceof StoreConflict);
      assert.ok((results[2] as PromiseRejectedResult).reason instanceof StoreQuotaExceeded);
      const seqs = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<{ seq: number }>).value.seq);
      assert.deepEqual(
        seqs.sort((x, y) => x - y),
        [2, 3],
        'refused commits take no changeset number',
      );
      const half = await store.readNode(a, '/m/a.txt');
      assert.equal(half?.version, 1);
      assert.equal(half?.content?.toString(), 'a1', 'the half-applied path is rolled back');
      assert.equal(await store.countVersions(a, '/m/a.txt'), 1);
      assert.equal(await store.getNode(a, '/m/big.txt'), null);
      assert.equal((await store.readNode(a, '/m/ok2.txt'))?.content?.toString(), 'second ok');
      assert.equal((await store.getAgent(a))!.storageBytes, before + 'first ok'.length + 'second ok'.length, 'refused blobs are not counted');
    });

    it('idempotency: the response is saved with the commit; a second commit with the key is refused', async () => {
      const a = await agent();
      const cs = await store.commit({
        agentId: a,
        keyId: 'k',
        keyLabel: 'l',
        tool: 'write',
        changes: [file('/i.txt', 'x')],
        quotaBytes: 1e9,
        idempotency: { key: 'idem-1', requestHash: 'h1', respond: (c) => ({ changesetId: c.id }) },
      });
      const saved = await store.getIdempotent(a, 'idem-1');
      assert.deepEqual(saved?.response, { changesetId: cs.id });
      assert.equal(saved?.requestHash, 'h1');
      await assert.rejects(
        store.commit({
          agentId: a,
          keyId: 'k',
          keyLabel: 'l',
          tool: 'write',
          changes: [file('/i.txt', 'y', 1)],
          quotaBytes: 1e9,
          idempotency: { key: 'idem-1', requestHash: 'h1', respond: () => ({}) },
        }),
        StoreIdempotencyTaken,
      );
      assert.equal((await store.getNode(a, '/i.txt'))?.version, 1, 'the refused commit wrote nothing');
    });

    it('listings are in byte order, paged, and never leak another agent or a sibling prefix', async () => {
      const a = await agent();
      const b = await agent();
      const names = ['/d/b.txt', '/d/a.txt', '/d/Z.txt', '/d/é.txt', '/d/sub', '/d/sub/x.txt', '/dx/other.txt'];
      for (const p of names) {
        const dir = p === '/d/sub';
        await commit(a, [dir ? { path: p, expectVersion: 0, op: 'create', state: { kind: 'dir', fileId: 'fd' } } : file(p, p)]);
      }
      await commit(b, [file('/d/b-secret.txt', 'secret')]);
      const children = await store.listChildren(a, '/d', 100, null);
      assert.deepEqual(
        children.nodes.map((x) => x.path),
        ['/d/Z.txt', '/d/a.txt', '/d/b.txt', '/d/sub', '/d/é.txt'],
      );
      const subtree = await store.listSubtree(a, '/d', 100, null);
      assert.deepEqual(
        subtree.nodes.map((x) => x.path),
        ['/d/Z.txt', '/d/a.txt', '/d/b.txt', '/d/sub', '/d/sub/x.txt', '/d/é.txt'],
      );
      const page1 = await store.listSubtree(a, '/d', 2, null);
      assert.equal(page1.nextAfter, '/d/a.txt');
      const page2 = await store.listSubtree(a, '/d', 10, page1.nextAfter);
      assert.equal(page2.nodes[0]?.path, '/d/b.txt');
      assert.equal(page2.nextAfter, null);
      assert.equal(await store.countLiveChildren(a, '/d'), 5);
    });

    it('tombstones keep version numbers; purge removes versions and unreferenced content', async () => {
      const a = await agent();
      await commit(a, [file('/p.txt', 'keep')]);
      await commit(a, [file('/p.txt', 'secret', 1)]);
      await commit(a, [file('/other.txt', 'keep')]);
      await commit(a, [{ path: '/p.txt', expectVersion: 2, op: 'delete', state: { kind: 'deleted', was: 'file' } }]);
      const deleted = await store.listDeleted(a, '/', 10, null);
      assert.deepEqual(
        deleted.nodes.map((x) => [x.path, x.version]),
        [['/p.txt', 3]],
      );
      const before = (await store.getAgent(a))!.storageBytes;
      const r = await store.purge(a, ['/p.txt']);
      assert.equal(r.versions, 3);
      assert.equal(r.bytesFreed, 6, "only 'secret' is freed; 'keep' is still used by /other.txt");
      assert.equal((await store.getAgent(a))!.storageBytes, before - 6);
      assert.equal(await store.getBlob(a, blob('secret').hash), null);
      assert.ok(await store.getBlob(a, blob('keep').hash));
      assert.equal((await store.listDeleted(a, '/', 10, null)).nodes.length, 0);
      const node = await store.getNode(a, '/p.txt');
      assert.equal(node?.purged, true);
      const again = await commit(a, [file('/p.txt', 'new', node!.version)]);
      assert.equal(again.entries[0]!.toVersion, 4, 'version numbers are never reused after purge');
    });

    it('listSubtreeSummary pages exactly what listSubtree lists (path, kind, size, updatedAt, blobHash), nothing of siblings or others', async () => {
      const a = await agent();
      const b = await agent();
      for (const p of ['/s/a.txt', '/s/b/c.txt', '/s/b/d.txt', '/s0.txt', '/s.txt', '/t/x.txt']) await commit(a, [file(p, p)]);
      await commit(a, [{ path: '/s/e', expectVersion: 0, op: 'create', state: { kind: 'dir', fileId: 'fd' } }]);
      await commit(a, [{ path: '/s/b/d.txt', expectVersion: 1, op: 'delete', state: { kind: 'deleted', was: 'file' } }]);
      await commit(b, [file('/s/secret.txt', 'b')]);
      const full = (await store.listSubtree(a, '/s', 100, null)).nodes.map((n) => ({
        path: n.path,
        kind: n.kind,
        size: n.size,
        updatedAtMs: n.updatedAtMs,
        blobHash: n.blobHash,
      }));
      const paged: unknown[] = [];
      for (let after: string | null = null; ;) {
        const page: { nodes: unknown[]; nextAfter: string | null } = await store.listSubtreeSummary(a, '/s', 2, after);
        paged.push(...page.nodes);
        if (!page.nextAfter) break;
        after = page.nextAfter;
      }
      assert.deepEqual(paged, full);
      assert.deepEqual(
        full.map((n) => n.path),
        ['/s/a.txt', '/s/b/c.txt', '/s/e'],
      );
      assert.equal((await store.listSubtreeSummary(a, '/', 100, null)).nodes.length, 6);
    });

    it("getBlobs returns the agent's contents by hash, leaves out unknown hashes and other agents' blobs", async () => {
      const a = await agent();
      const b = await agent();
      await commit(a, [file('/x.txt', 'x content')]);
      await commit(b, [file('/y.txt', 'y content')]);
      const hx = (await store.getNode(a, '/x.txt'))!.blobHash!;
      const hy = (await store.getNode(b, '/y.txt'))!.blobHash!;
      const got = await store.getBlobs(a, [hx, hy, 'f'.repeat(64)]);
      assert.deepEqual([...got.keys()], [hx]);
      assert.equal(got.get(hx)!.toString(), 'x content');
      assert.equal((await store.getBlobs(a, [])).size, 0);
    });

    it('large contents read back byte for byte (PostgreSQL fetches them in 1 MiB slices), small ones too', async () => {
      const a = await agent();
      // Not a multiple of the slice; every byte value, so a slice boundary off by one shows.
      const big = Buffer.alloc(3 * 1024 * 1024 + 12_345);
      for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >> 20)) & 0xff;
      const exact = Buffer.alloc(1024 * 1024, 7);
      const plan = (path: string, bytes: Buffer): PlannedChange => ({
        path,
        expectVersion: 0,
        op: 'create',
        state: { kind: 'file', blob: { hash: contentHash(bytes), size: bytes.length, bytes }, lines: 1, fileId: `f_${path}` },
      });
      await commit(a, [plan('/big.bin', big), plan('/exact.bin', exact), file('/small.txt', 'small')]);
      for (const [path, want] of [
        ['/big.bin', big],
        ['/exact.bin', exact],
        ['/small.txt', Buffer.from('small')],
      ] as const) {
        const node = await store.readNode(a, path);
        assert.ok(node?.content && node.content.equals(want), `readNode ${path}`);
        const again = await store.getBlob(a, node.blobHash!);
        assert.ok(again && again.equals(want), `getBlob ${path}`);
      }
    });

    const dir = (path: string, expectVersion = 0): PlannedChange => ({
      path,
      expectVersion,
      op: 'create',
      state: { kind: 'dir', fileId: `f_${path}` },
    });
    const del = (path: string, expectVersion: number, was: 'file' | 'dir' = 'file'): PlannedChange => ({
      path,
      expectVersion,
      op: 'delete',
      state: { kind: 'deleted', was },
    });

    it('a commit of thousands of changes (SQLite: the writer thread) is all or nothing: a conflict at its last path writes nothing', async () => {
      const a = await agent();
      await commit(a, [file('/bulk/zz-last.txt', 'there')]);
      const seq = (await store.listChangesets(a, { limit: 1 }))[0]!.seq;
      const nodes = (await store.getAgent(a))!.nodeCount;
      const changes = Array.from({ length: 3000 }, (_, i) => file(`/bulk/f${String(i).padStart(4, '0')}.txt`, `c${i}`));
      changes.push(file('/bulk/zz-last.txt', 'stale', 7)); // sorts last, and its head is at version 1
      await assert.rejects(
        commit(a, changes),
        (err) => err instanceof StoreConflict && err.path === '/bulk/zz-last.txt' && err.current?.version === 1,
      );
      assert.equal(await store.getNode(a, '/bulk/f0000.txt'), null, 'the first path of the commit is rolled back');
      assert.equal(await store.countVersions(a, '/bulk/f2999.txt'), 0);
      assert.equal((await store.listChangesets(a, { limit: 1 }))[0]!.seq, seq, 'no changeset');
      assert.equal((await store.getAgent(a))!.nodeCount, nodes);
      assert.equal(await store.getBlob(a, blob('c5').hash), null, 'no content');
      // The same commit without the stale path applies whole, as one changeset, while small commits come and go.
      const [big, ...small] = await Promise.all([
        commit(a, changes.slice(0, -1)),
        ...Array.from({ length: 10 }, (_, i) => commit(a, [file(`/side/${i}.txt`, `s${i}`)])),
      ]);
      assert.equal(big.entryCount, 3000);
      assert.equal(big.entries.length, 3000, "a commit's own result lists every entry");
      assert.equal(new Set([big.seq, ...small.map((c) => c.seq)]).size, 11);
      assert.equal((await store.getAgent(a))!.nodeCount, nodes + 3000 + 10);
      const read = (await store.getChangeset(a, big.id))!;
      assert.equal(read.entryCount, 3000);
      assert.equal(read.entries.length, ENTRY_INLINE, 'the row keeps the first entries; the rest are paged');
      assert.equal(read.root, '/bulk');
    });

    it('file quota: counts live files and directories in the commit; deletes, updates and tombstones cost nothing; purge frees', async () => {
      const a = await agent();
      const q = (changes: PlannedChange[], fileQuota: number) =>
        store.commit({ agentId: a, keyId: 'k1', keyLabel: 'label', tool: 'test', changes, quotaBytes: 1e9, fileQuota });
      await q([dir('/q'), file('/q/a.txt', 'a'), file('/q/b.txt', 'b')], 3);
      assert.equal((await store.getAgent(a))!.nodeCount, 3);
      await assert.rejects(q([file('/q/c.txt', 'c')], 3), (err) => {
        assert.ok(err instanceof StoreQuotaExceeded);
        assert.deepEqual([err.quota, err.used, err.add, err.limit], ['files', 3, 1, 3]);
        return true;
      });
      assert.equal(await store.getNode(a, '/q/c.txt'), null);
      await q([file('/q/a.txt', 'a2', 1)], 3); // an update adds nothing
      await q([del('/q/b.txt', 1)], 1); // a delete works over the quota
      assert.equal((await store.getAgent(a))!.nodeCount, 2, 'the tombstone does not count');
      await q([file('/q/b.txt', 'back', 2)], 3); // writing over the tombstone counts again
      assert.equal((await store.getAgent(a))!.nodeCount, 3);
      await assert.rejects(q([del('/q/b.txt', 3), file('/q/c.txt', 'c'), file('/q/d.txt', 'd')], 3), StoreQuotaExceeded);
      await q([del('/q/b.txt', 3), file('/q/c.txt', 'c')], 3); // one out, one in
      assert.equal((await store.getAgent(a))!.nodeCount, 3);
      // Purging a live path frees its place; purging a tombstone changes nothing.
      await store.purge(a, ['/q/c.txt', '/q/b.txt']);
      assert.equal((await store.getAgent(a))!.nodeCount, 2);
      // A store without a file quota (fileQuota absent) does not count against one.
      await commit(
        a,
        Array.from({ length: 5 }, (_, i) => file(`/free/${i}.txt`, `${i}`)),
      );
      assert.equal((await store.getAgent(a))!.nodeCount, 7);
    });

    it('entries of a big changeset page in byte order, filtered to a subtree without reading its siblings', async () => {
      const a = await agent();
      // Byte order puts '/t/a-x…' between '/t/a' and '/t/a/…'; U+E000 (3 UTF-8 bytes) before U+1F600 (4),
      // although UTF-16 (JS '<') orders them the other way round.
      const paths = ['/t', '/t/a', '/t/b', '/t/\u{e000}', '/t/\u{1f600}'];
      for (let i = 0; i < 400; i++) paths.push(`/t/a-x${String(i).padStart(3, '0')}`, `/t/a/${String(i).padStart(3, '0')}`, `/t/z/${i}`);
      const changes = paths.map((p) => (p === '/t' || p === '/t/a' || p === '/t/z' ? dir(p) : file(p, 'x')));
      changes.push(dir('/t/z'));
      const cs = await commit(a, changes);
      const bytes = (p: string) => Buffer.from(p);
      const expected = cs.entries.map((e) => e.path).sort((x, y) => Buffer.compare(bytes(x), bytes(y)));
      const page = async (within: string | null, limit: number) => {
        const out: string[] = [];
        for (let after: string | null = null; ;) {
          const r = await store.listChangesetEntries(a, cs.id, { after, within, limit });
          assert.ok(r.entries.length <= limit);
          out.push(...r.entries.map((e) => e.path));
          if (!r.nextAfter) return out;
          after = r.nextAfter;
        }
      };
      assert.deepEqual(await page(null, 170), expected);
      assert.deepEqual(
        await page('/t/a', 33),
        expected.filter((p) => p === '/t/a' || p.startsWith('/t/a/')),
      );
      assert.deepEqual(await page('/t/a-x007', 10), ['/t/a-x007']);
      assert.deepEqual(await page('/t/none', 10), []);
      const read = (await store.getChangeset(a, cs.id))!;
      assert.equal(read.root, '/t');
      assert.deepEqual(
        read.entries.map((e) => e.path),
        expected.slice(0, ENTRY_INLINE),
      );
      assert.equal(read.entries[0]!.op, 'create');
    });

    it('rate counters are shared and counted per window', async () => {
      const w = Date.now() - (Date.now() % 3_600_000);
      assert.equal(await store.hitCounter('test:x', w, w + 3_600_000), 1);
      assert.equal(await store.hitCounter('test:x', w, w + 3_600_000), 2);
      assert.equal(await store.hitCounter('test:y', w, w + 3_600_000), 1);
    });
  });
}

if (backends().includes('sqlite')) {
  describe('SQLite WAL checkpoints run in the background', () => {
    it('committed pages reach the database file without the committing connection checkpointing', async () => {
      const db = await createTestDatabase('sqlite');
      const store = openStore(testConfig(db)) as Store & { file: string };
      try {
        await store.migrate();
        const agentId = 'agt_ckpt';
        await createTestAgent(store, agentId, 'agt-ckpt');
        const { statSync } = await import('node:fs');
        const size = () => statSync(store.file).size;
        await new Promise((r) => setTimeout(r, 500)); // the schema reaches the file first
        const before = size();
        // ~120 commits, ~1,000 pages: far below the 4,000-page threshold at which the committer would checkpoint itself.
        for (let i = 0; i < 120; i++) {
          await store.commit({
            agentId,
            keyId: 'k',
            keyLabel: 'k',
            tool: 'test',
            quotaBytes: 1e9,
            changes: [file(`/f${i}.txt`, `${i}`.padEnd(3000, 'x'))],
          });
        }
        const deadline = Date.now() + 3000;
        while (size() < before + 360_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        assert.ok(size() >= before + 360_000, `database file grew by ${size() - before} bytes`);
        assert.equal((await store.readNode(agentId, '/f119.txt'))?.content?.toString().slice(0, 4), '119x');
      } finally {
        await store.close();
        await db.drop();
      }
    });
  });
}

/**
 * Big trees (item 5): a recursive copy, move, delete and revert of a 20,000-node tree
 * must not stall other agents (their reads every 50 ms stay under 250 ms, where the old code held
 * the event loop for seconds), must stay one atomic changeset, and must answer with a bounded
 * response; list_changes pages the entries of such changesets; the file quota refuses a copy that
 * would pass it before writing anything. Over HTTP, on both backends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { contentHash } from '../../src/core/text.js';
import { newId } from '../../src/core/keys.js';
import type { PlannedChange } from '../../src/store/types.js';
import { heavyBackends } from '../helpers/backends.js';
import { monitorLoop, type LoopReport } from '../helpers/loop-monitor.js';
import { startServer, type TestServer } from '../helpers/server.js';

/** 200 directories of 99 empty files under /big, plus /big itself: 20,001 nodes. */
const DIRS = 200;
const FILES_PER_DIR = 99;
const NODES = 1 + DIRS * (1 + FILES_PER_DIR);
const READ_BOUND_MS = 250;
const RESPONSE_BOUND_BYTES = 64 * 1024;

function bigTree(root: string): PlannedChange[] {
  const empty = Buffer.alloc(0);
  const blob = { hash: contentHash(empty), size: 0, bytes: empty };
  const out: PlannedChange[] = [{ path: root, expectVersion: 0, op: 'create', state: { kind: 'dir', fileId: newId('f') } }];
  for (let d = 0; d < DIRS; d++) {
    const dir = `${root}/d${String(d).padStart(3, '0')}`;
    out.push({ path: dir, expectVersion: 0, op: 'create', state: { kind: 'dir', fileId: newId('f') } });
    for (let f = 0; f < FILES_PER_DIR; f++) {
      out.push({
        path: `${dir}/f${String(f).padStart(2, '0')}.txt`,
        expectVersion: 0,
        op: 'create',
        state: { kind: 'file', blob, lines: 0, fileId: newId('f') },
      });
    }
  }
  return out;
}

for (const backend of heavyBackends()) {
  describe(`big trees (${backend})`, () => {
    let s: TestServer;
    let owner: { key: string; id: string };
    let reader: string;
    let writer: string;
    before(async () => {
      s = await startServer(backend, { MAX_FILES_PER_AGENT: '100000' });
      const a = await s.register('Big Tree Owner');
      owner = { key: a.apiKey, id: a.id };
      reader = (await s.register('Neighbour Reader')).apiKey;
      writer = (await s.register('Neighbour Writer')).apiKey;
      await s.ok(reader, 'write', { path: '/mine.txt', content: 'hello\n' });
      // Setup through the store directly: 5,000 changes per commit.
      const tree = bigTree('/big');
      for (let i = 0; i < tree.length; i += 5000) {
        await s.store.commit({
          agentId: owner.id,
          keyId: 'setup',
          keyLabel: 'setup',
          tool: 'setup',
          changes: tree.slice(i, i + 5000),
          quotaBytes: 1e12,
        });
      }
    });
    after(() => s.close());

    /**
     * Runs `call` while another agent reads a file every 50 ms (and a third writes one every 50 ms:
     * writes may wait for the big commit, but must succeed). Returns the call's result and the
     * reader's worst latency.
     */
    async function whileOthersWork<T>(
      call: () => Promise<T>,
    ): Promise<{ result: T; worstReadMs: number; reads: number; bytes: number; loop: LoopReport }> {
      const monitor = monitorLoop();
      let stop = false;
      let worst = 0;
      let reads = 0;
      const readLoop = (async () => {
        while (!stop) {
          const t0 = performance.now();
          const r = await s.ok(reader, 'read', { path: '/mine.txt' });
          worst = Math.max(worst, performance.now() - t0);
          reads++;
          assert.equal(r.content, 'hello\n');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      let w = 0;
      const writeLoop = (async () => {
        while (!stop) {
          await s.ok(writer, 'write', { path: '/log.txt', content: `line ${++w}\n` });
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      try {
        const result = await call();
        const loop = monitor.stop();
        return { result, worstReadMs: worst, reads, bytes: JSON.stringify(result).length, loop };
      } finally {
        stop = true;
        monitor.stop();
        await Promise.all([readLoop, writeLoop]);
      }
    }

    /**
     * The event loop was never held READ_BOUND_MS, and the reader's worst latency stayed under it.
     * On a loaded machine the process can be descheduled for a while with its event loop free;
     * a read past the bound is then accepted only if the loop was never busy for even half of it
     * (measured by the thread's CPU time) and the read still came back within a second. The old
     * code held the loop for 1–3 s per operation at this size and fails both.
     */
    function assertNotStalled(what: string, m: { worstReadMs: number; reads: number; loop: LoopReport }) {
      const report = `${what}: slowest read ${m.worstReadMs.toFixed(0)} ms over ${m.reads} reads; event loop: longest gap ${m.loop.maxGapMs.toFixed(0)} ms, busy at most ${m.loop.maxBusyMs.toFixed(0)} ms`;
      console.log(report);
      assert.ok(m.reads >= 3, `the reader kept reading: ${report}`);
      assert.ok(m.loop.maxBusyMs < READ_BOUND_MS, report);
      assert.ok(m.worstReadMs < READ_BOUND_MS || (m.loop.maxBusyMs < READ_BOUND_MS / 2 && m.worstReadMs < 1000), report);
    }

    /** Every entry of a changeset through list_changes {changesetId, cursor}. */
    async function allEntries(key: string, changesetId: string, path?: string): Promise<any[]> {
      const out: any[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 200; page++) {
        const r = await s.ok(key, 'list_changes', { changesetId, ...(path ? { path } : {}), ...(cursor ? { cursor } : {}) });
        assert.ok(JSON.stringify(r).length < 1024 * 1024, 'a page of entries is bounded');
        out.push(...r.entries);
        if (!r.nextCursor) return out;
        cursor = r.nextCursor;
      }
      throw new Error('too many pages');
    }

    let copyId = '';
    let moveId = '';

    it(`copy of a ${NODES}-node directory: one changeset, a capped response, other agents' reads stay under ${READ_BOUND_MS} ms`, async () => {
      const m = await whileOthersWork(() => s.ok(owner.key, 'copy', { from: '/big', to: '/big2' }));
      const { result, bytes } = m;
      assertNotStalled(`copy of ${NODES} nodes`, m);
      assert.ok(bytes < RESPONSE_BOUND_BYTES, `response ${bytes} bytes`);
      assert.equal(result.entryCount, NODES);
      assert.equal(result.entries.length, 100);
      assert.equal(result.entriesTruncated, true);
      assert.match(result.note, /list_changes/);
      assert.deepEqual(result.entries[0], { from: '/big', to: '/big2', version: 1 });
      copyId = result.changesetId;
      const info = await s.ok(owner.key, 'get_key_info');
      assert.equal(info.usage.fileCount, 2 * NODES);
      assert.equal(info.usage.filesRemaining, 100000 - 2 * NODES);
    });

    it('list_changes stays small with huge changesets and pages every entry with changesetId and cursor', async () => {
      const feed = await s.ok(owner.key, 'list_changes', { limit: 10 });
      assert.ok(JSON.stringify(feed).length < 200 * 1024, `feed ${JSON.stringify(feed).length} bytes`);
      const cs = feed.changesets[0];
      assert.equal(cs.changesetId, copyId);
      assert.equal(cs.entryCount, NODES);
      assert.equal(cs.entries.length, 100);
      assert.ok(cs.nextEntriesCursor);
      const entries = await allEntries(owner.key, copyId);
      assert.equal(entries.length, NODES);
      assert.equal(new Set(entries.map((e) => e.path)).size, NODES, 'every entry exactly once');
      const paths = entries.map((e) => e.path);
      assert.deepEqual(paths, [...paths].sort(), 'in path order');
      assert.ok(entries.every((e) => e.op === 'create' && e.fromVersion === null && e.toVersion === 1));
      // The feed's cursor continues where its entries stopped.
      const next = await s.ok(owner.key, 'list_changes', { changesetId: copyId, cursor: cs.nextEntriesCursor });
      assert.deepEqual(next.entries[0], entries[100]);
      await s.fail(owner.key, 'list_changes', { changesetId: copyId, cursor: 'bm9wZQ' }, 'INVALID_INPUT');
      await s.fail(owner.key, 'list_changes', { changesetId: copyId, afterSeq: 0 }, 'INVALID_INPUT');
      await s.fail(owner.key, 'list_changes', { changesetId: 'cs_nope' }, 'NOT_FOUND');
    });

    it('a path filter or a folder key sees only its part of a huge changeset, paged', async () => {
      const filtered = await s.ok(owner.key, 'list_changes', { path: '/big2/d150', limit: 1 });
      const cs = filtered.changesets[0];
      assert.equal(cs.changesetId, copyId);
      assert.equal(cs.partial, true);
      assert.deepEqual(
        cs.entries.map((e: any) => e.path),
        ['/big2/d150', ...Array.from({ length: FILES_PER_DIR }, (_, f) => `/big2/d150/f${String(f).padStart(2, '0')}.txt`)],
      );
      assert.equal(cs.nextEntriesCursor, undefined);
      assert.equal((await allEntries(owner.key, copyId, '/big2/d150')).length, 1 + FILES_PER_DIR);
      // Outside what the changeset touched: not listed at all.
      await s.ok(owner.key, 'mkdir', { path: '/elsewhere' });
      const none = await s.ok(owner.key, 'list_changes', { path: '/elsewhere', limit: 5 });
      assert.ok(none.changesets.every((c: any) => c.changesetId !== copyId));
      // A key confined to one directory sees that directory's entries, partial, and nothing more.
      const folderKey = await s.addKey(owner.id, { scopes: ['files:read'], folder: '/big2/d007' });
      const seen = await s.ok(folderKey, 'list_changes', { limit: 3 });
      const mine = seen.changesets.find((c: any) => c.changesetId === copyId);
      assert.ok(mine, 'the copy is listed for the folder key');
      assert.equal(mine.partial, true);
      assert.ok(mine.entries.every((e: any) => e.path === '/big2/d007' || e.path.startsWith('/big2/d007/')));
      const paged = await allEntries(folderKey, copyId);
      assert.equal(paged.length, 1 + FILES_PER_DIR);
      await s.fail(folderKey, 'list_changes', { changesetId: copyId, path: '/big2/d008' }, 'OUTSIDE_KEY_FOLDER');
    });

    it(`move of the copy: one changeset of ${2 * NODES} entries, reads stay under ${READ_BOUND_MS} ms`, async () => {
      const m = await whileOthersWork(() => s.ok(owner.key, 'move', { from: '/big2', to: '/big3' }));
      const { result, bytes } = m;
      assertNotStalled(`move of ${NODES} nodes`, m);
      assert.ok(bytes < RESPONSE_BOUND_BYTES, `response ${bytes} bytes`);
      assert.equal(result.entryCount, NODES);
      assert.equal(result.entries.length, 100);
      moveId = result.changesetId;
      const feed = await s.ok(owner.key, 'list_changes', { limit: 1 });
      assert.equal(feed.changesets[0].entryCount, 2 * NODES);
      await s.fail(owner.key, 'stat', { path: '/big2/d000/f00.txt' }, 'NOT_FOUND');
      assert.equal((await s.ok(owner.key, 'stat', { path: '/big3/d199/f98.txt' })).version, 1);
      assert.equal((await s.ok(owner.key, 'get_key_info')).usage.fileCount, 2 * NODES + 1, 'a move adds nothing (+ /elsewhere)');
    });

    it(`delete recursive: one changeset, a capped response, reads stay under ${READ_BOUND_MS} ms`, async () => {
      const m = await whileOthersWork(() => s.ok(owner.key, 'delete', { path: '/big3', recursive: true }));
      const { result, bytes } = m;
      assertNotStalled(`delete of ${NODES} nodes`, m);
      assert.ok(bytes < RESPONSE_BOUND_BYTES, `response ${bytes} bytes`);
      assert.equal(result.deletedCount, NODES);
      assert.equal(result.deletedPaths.length, 100);
      assert.equal(result.deletedTruncated, true);
      assert.equal((await s.ok(owner.key, 'get_key_info')).usage.fileCount, NODES + 1, 'deleted files do not count');
    });

    it(`revert of the move brings /big2 back as one changeset; reads stay under ${READ_BOUND_MS} ms`, async () => {
      // The move's paths under /big3 were deleted since: force it.
      const m = await whileOthersWork(() => s.ok(owner.key, 'revert_changeset', { changesetId: moveId, force: true }));
      const { result, bytes } = m;
      assertNotStalled(`revert of ${2 * NODES} entries`, m);
      assert.ok(bytes < RESPONSE_BOUND_BYTES, `response ${bytes} bytes`);
      assert.equal(result.entryCount, NODES, 'the /big2 paths come back; the /big3 ones are already deleted');
      assert.equal(result.entries.length, 100);
      assert.equal((await s.ok(owner.key, 'stat', { path: '/big2/d123/f45.txt' })).version, 3);
      assert.equal((await s.ok(owner.key, 'get_key_info')).usage.fileCount, 2 * NODES + 1);
    });

    it(`purge of a ${NODES}-node directory and its deleted history: a capped response, reads stay under ${READ_BOUND_MS} ms`, async () => {
      const m = await whileOthersWork(() => s.ok(owner.key, 'purge', { path: '/big3', confirm: true }));
      assertNotStalled(`purge of ${NODES} tombstones`, m);
      assert.ok(m.bytes < RESPONSE_BOUND_BYTES, `response ${m.bytes} bytes`);
      assert.equal(m.result.purgedCount, NODES);
      assert.equal(m.result.purged.length, 100);
      assert.equal(m.result.purgedTruncated, true);
      assert.equal(m.result.versionsRemoved, 2 * NODES, 'a create and a delete per path');
      assert.equal((await s.ok(owner.key, 'list_deleted', { path: '/' })).deletedPaths.filter((d: any) => d.path.startsWith('/big3')).length, 0);
      assert.equal((await s.ok(owner.key, 'get_key_info')).usage.fileCount, 2 * NODES + 1, 'tombstones never counted');
    });

    it('the file quota refuses a copy past it before writing anything, and says which quota', async () => {
      const saved = s.config.maxFilesPerAgent;
      s.config.maxFilesPerAgent = 2 * NODES + 1 + 1000;
      try {
        const t0 = performance.now();
        const err = await s.fail(owner.key, 'copy', { from: '/big', to: '/big4' }, 'QUOTA_EXCEEDED');
        assert.equal(err.details.quota, 'files');
        assert.equal(err.details.usedFiles, 2 * NODES + 1);
        assert.equal(err.details.limitFiles, 2 * NODES + 1 + 1000);
        assert.ok(err.details.addFiles > 1000);
        assert.match(err.message, /File quota exceeded/);
        assert.ok(performance.now() - t0 < 5000, 'refused while walking the tree, not after writing it');
        await s.fail(owner.key, 'stat', { path: '/big4' }, 'NOT_FOUND');
        // A copy that fits is fine.
        await s.ok(owner.key, 'copy', { from: '/big/d000', to: '/small' });
        assert.equal((await s.ok(owner.key, 'get_key_info')).usage.fileCount, 2 * NODES + 1 + 1 + FILES_PER_DIR);
      } finally {
        s.config.maxFilesPerAgent = saved;
      }
    });
  });
}

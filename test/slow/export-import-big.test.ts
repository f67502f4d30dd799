/**
 * A sizeable agent's export and import on each backend: BIG_FILES files (default 5,000)
 * each written BIG_ROUNDS times (default 4: 20,000 versions, ~2 KB each), in 1,000-file changesets
 * (their entries in chunks). The download streams while the event loop is watched, and so does
 * the import into a fresh database: no single hold of the event loop over 250 ms of CPU (the
 * server's rule), the imported head tree and history counts equal the source's. Prints time and
 * size of both (docs/operations.md quotes them).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importArchive } from '../../src/transfer/import.js';
import { backends } from '../helpers/backends.js';
import { monitorLoop } from '../helpers/loop-monitor.js';
import { startServer, type TestServer } from '../helpers/server.js';

const FILES = Number(process.env.BIG_FILES ?? 5000);
const ROUNDS = Number(process.env.BIG_ROUNDS ?? 4);
const BUSY_LIMIT_MS = 250;

const body = (i: number, round: number) => `# file ${i}, round ${round}\n` + `line of text ${i}.${round} `.repeat(90) + '\n';

for (const backend of backends()) {
  describe(`export and import of a big agent (${backend})`, () => {
    let s: TestServer;
    let key: string;
    let archive: Buffer;
    const targets: TestServer[] = [];
    before(async () => {
      s = await startServer(backend);
      key = (await s.register('Big Archive')).apiKey;
      for (let round = 1; round <= ROUNDS; round++) {
        for (let from = 0; from < FILES; from += 1000) {
          const files = [];
          for (let i = from; i < Math.min(FILES, from + 1000); i++) files.push({ path: `/d${i % 20}/f${i}.md`, content: body(i, round) });
          await s.ok(key, 'write_files', { files });
        }
      }
    });
    after(async () => {
      for (const t of targets) await t.close();
      await s.close();
    });

    it(`export: ${FILES} files × ${ROUNDS} versions streamed with no event-loop hold over ${BUSY_LIMIT_MS} ms`, async () => {
      const e = (await s.ok(key, 'export_my_data', {})).export;
      assert.equal(e.versionCount, FILES * ROUNDS + 20);
      const loop = monitorLoop();
      const started = performance.now();
      const res = await fetch(s.url + new URL(e.url).pathname);
      archive = Buffer.from(await res.arrayBuffer());
      const ms = performance.now() - started;
      const held = loop.stop();
      console.log(
        `# ${backend} export: ${(archive.length / 1048576).toFixed(1)} MiB (estimate ${(e.estimatedBytes / 1048576).toFixed(1)} MiB, ` +
          `content ${(e.contentBytes / 1048576).toFixed(1)} MiB) in ${(ms / 1000).toFixed(2)} s; longest event-loop hold ${held.maxBusyMs.toFixed(0)} ms CPU (${held.maxGapMs.toFixed(0)} ms wall)`,
      );
      assert.equal(res.status, 200);
      assert.ok(archive.length <= e.estimatedBytes, 'the estimate is an upper bound');
      assert.ok(held.maxBusyMs < BUSY_LIMIT_MS, `event loop held ${held.maxBusyMs} ms`);
    });

    for (const target of backends()) {
      it(`import into a fresh ${target} database: the same tree and history, no hold over ${BUSY_LIMIT_MS} ms`, async () => {
        const t = await startServer(target);
        targets.push(t);
        const loop = monitorLoop();
        const started = performance.now();
        async function* chunks() {
          for (let i = 0; i < archive.length; i += 1 << 20) yield archive.subarray(i, i + (1 << 20));
        }
        const r = await importArchive(t.store, chunks());
        const ms = performance.now() - started;
        const held = loop.stop();
        console.log(
          `# ${backend} → ${target} import: ${r.counts.versions} versions, ${r.counts.changesets} changesets in ${(ms / 1000).toFixed(2)} s; ` +
            `longest event-loop hold ${held.maxBusyMs.toFixed(0)} ms CPU (${held.maxGapMs.toFixed(0)} ms wall)`,
        );
        assert.ok(held.maxBusyMs < BUSY_LIMIT_MS, `event loop held ${held.maxBusyMs} ms`);
        assert.equal(r.counts.versions, FILES * ROUNDS + 20);
        const src = await s.ok(key, 'get_key_info');
        const dst = await t.ok(r.apiKey, 'get_key_info');
        assert.equal(dst.usage.storageBytes, src.usage.storageBytes);
        assert.equal(dst.usage.fileCount, src.usage.fileCount);
        const path = `/d${(FILES - 3) % 20}/f${FILES - 3}.md`;
        const a = await s.ok(key, 'list_versions', { path });
        const b = await t.ok(r.apiKey, 'list_versions', { path });
        assert.deepEqual(b, a);
        const lastA = (await s.ok(key, 'list_changes', { limit: 3 })).changesets;
        const lastB = (await t.ok(r.apiKey, 'list_changes', { limit: 3 })).changesets;
        assert.deepEqual(lastB, lastA);
      });
    }
  });
}

/**
 * Item 3's 10 MiB worst inputs over HTTP, on both backends (test/slow/edit-cost-http.test.ts has the
 * others): diff and edit between two 10 MiB versions with nothing in common, and with one
 * 10 MiB line each, while a second agent reads every 50 ms. Seconds each (mostly writing and
 * reading the versions), so with the slow suites.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { inTime as check, startCostServer, type CostServer, type Probed } from '../helpers/probe.js';
import type { ChildServer } from '../helpers/server.js';

const MiB = 1024 * 1024;
/** Calls that read two 10 MiB versions, on the loaded VM. The old diff took minutes. */
const BIG_CALL_MS = 15_000;
/**
 * The prober's worst wait while such a call runs: the store alone holds the event loop to read
 * a 10 MiB version (a plain `read` of one held it 808 ms on PostgreSQL, decoding the bytea, and
 * ~190 ms on SQLite, with the VM loaded; not the diff).
 */
const PROBE_BIG_MS = 5_000;

for (const backend of backends()) {
  describe(`cost over HTTP, 10 MiB versions (${backend})`, () => {
    let cost: CostServer;
    let server: ChildServer;
    let key: string;
    before(async () => {
      cost = await startCostServer(backend);
      ({ server, key } = cost);
    });
    after(() => cost.close());
    const probed = (tool: string, input: unknown, timeoutMs = BIG_CALL_MS) => cost.probed(tool, input, timeoutMs);
    const inTime = (r: Probed, what: string) => check(r, what, BIG_CALL_MS, PROBE_BIG_MS);
    const write = (path: string, content: string) => server.ok(key, 'write', { path, content });

    it('3: two 10 MiB versions with nothing in common (5 M short lines each) → an approximate diff, said so', async () => {
      await write('/huge.txt', 'a\n'.repeat(5 * MiB));
      await write('/huge.txt', 'b\n'.repeat(5 * MiB));
      const d = await probed('diff', { path: '/huge.txt', fromVersion: 1 });
      inTime(d, '3 huge diff');
      assert.deepEqual(d.inner.diffStats, { hunks: 1, added: 5 * MiB, removed: 5 * MiB, approximate: true });
      assert.match(d.inner.diff, /\n\.\.\. the files differ too much for an exact diff/);
      // The edit tool's own diff of a change that touches every line of 10 MiB.
      const e = await probed('edit', { path: '/huge.txt', old_string: 'b', new_string: 'c', replace_all: true, dryRun: true });
      inTime(e, 'replace_all over 10 MiB');
      assert.equal(e.inner.replacements, 5 * MiB);
      assert.equal(e.inner.diffStats.added, 5 * MiB);
    });

    it('3: one line of 10 MiB in each version → one line removed, one added; the answer stays ~1 MiB', async () => {
      await write('/line.txt', 'x'.repeat(10 * MiB));
      await write('/line.txt', 'y'.repeat(10 * MiB));
      const d = await probed('diff', { path: '/line.txt', fromVersion: 1 });
      inTime(d, '3 one line');
      assert.equal(d.inner.diffStats.added, 1);
      assert.equal(d.inner.diffStats.removed, 1);
      assert.equal(d.inner.diffTruncated, true);
      assert.ok(d.text.length < 1.2 * MiB, `answer of ${d.text.length} characters`);
    });
  });
}

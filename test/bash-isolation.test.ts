/**
 * A `bash` command that times out must stop acting at once (item 1). just-bash ends a
 * command at its deadline without stopping it: a `find -delete` still awaiting the store went on
 * in the background, on a worker the pool had already handed to the next agent, and its delete
 * landed in that agent's changeset. Reproduced here scaled down: one worker, a short
 * BASH_TIMEOUT_MS, agent A's `find` over thousands of start directories (one store query each),
 * then agent V's commands on the same worker while A's `find` would still be running.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../src/core/keys.js';
import { heavyBackends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const TIMEOUT_MS = 1000;

for (const backend of heavyBackends()) {
  describe(`a timed-out bash command stops acting (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, { BASH_TIMEOUT_MS: String(TIMEOUT_MS), BASH_WORKERS: '1', BASH_MAX_CONCURRENT_PER_AGENT: '4' });
    });
    after(() => s.close());

    /** Creates `/d<from> … /d<to - 1>` straight through the store: thousands of mkdir calls would take minutes. */
    async function makeDirs(agentId: string, from: number, to: number): Promise<void> {
      for (let i = from; i < to; i += 2000) {
        const changes = [];
        for (let j = i; j < Math.min(to, i + 2000); j++) {
          changes.push({
            path: `/d${String(j).padStart(5, '0')}`,
            expectVersion: 0,
            op: 'create' as const,
            state: { kind: 'dir' as const, fileId: newId('f') },
          });
        }
        await s.store.commit({ agentId, keyId: 'test', keyLabel: 'test', tool: 'test', quotaBytes: 1e12, changes });
      }
    }

    it("A's `find … -delete` past the deadline writes nothing, in A's tree or in the next agent's on the same worker", async () => {
      const a = await s.register('Slow Finder');
      const v = await s.register('Victim');
      await s.ok(a.apiKey, 'write', { path: '/notes.txt', content: 'A keeps this\n' });
      await s.ok(v.apiKey, 'write', { path: '/notes.txt', content: 'V keeps this\n' });
      const FIND = 'find /d* /notes.txt -maxdepth 1 -name notes.txt -delete';
      // Enough start directories that the find, one store query per start directory, reaches
      // /notes.txt about 2.5 × the deadline after it started: well after the deadline, well within
      // the 6 s that V's commands then cover. The cost per directory is measured first, against a
      // find without them (the fixed cost of a call), so the test scales with the machine and its
      // load instead of guessing; a factor of 2 either way still falls in V's window.
      await s.ok(a.apiKey, 'bash', { command: 'true' }); // the worker started
      const PROBE = 250;
      await makeDirs(a.id, 0, PROBE);
      const timed = async (command: string) => {
        let best = Infinity;
        for (let i = 0; i < 2; i++) {
          const t0 = performance.now();
          // (On a loaded machine a probe may time out: its time is then a lower bound.)
          const r = await s.call(a.apiKey, 'bash', { command });
          assert.ok(r.inner?.exitCode === 0 || r.inner?.error?.code === 'TIMEOUT', JSON.stringify(r.inner).slice(0, 300));
          best = Math.min(best, performance.now() - t0);
        }
        return best;
      };
      const fixed = await timed('find /notes.txt -maxdepth 1 -name notes.txt');
      const withDirs = await timed('find /d* /notes.txt -maxdepth 1 -name notes.txt');
      // (Never below 0.1 ms, the fastest seen here: a noisy probe must not ask for 100,000 directories.)
      const perDirMs = Math.max(0.1, (withDirs - fixed) / PROBE);
      let dirs = Math.min(30_000, Math.max(2 * PROBE, Math.ceil((2.5 * TIMEOUT_MS) / perDirMs)));
      let made = PROBE;
      let started = 0;
      let slowMs = 0;
      for (let attempt = 1; ; attempt++) {
        const t1 = performance.now();
        await makeDirs(a.id, made, dirs);
        made = dirs;
        console.log(
          `${backend}: ${perDirMs.toFixed(3)} ms per start directory (${fixed.toFixed(0)} ms without, ${withDirs.toFixed(0)} ms with ${PROBE}); made ${dirs} directories in ${(performance.now() - t1).toFixed(0)} ms`,
        );
        started = performance.now();
        const slow = await s.call(a.apiKey, 'bash', { command: FIND });
        slowMs = performance.now() - started;
        if (slow.inner?.error?.code === 'TIMEOUT') break;
        // Done within the deadline (the probe overestimated): A deleted its own notes, as asked.
        // Twice the directories, and again.
        assert.equal(slow.inner?.exitCode, 0, JSON.stringify(slow.inner).slice(0, 300));
        assert.ok(attempt < 4 && dirs < 60_000, `find over ${dirs} directories still ends within ${TIMEOUT_MS} ms`);
        await s.ok(a.apiKey, 'write', { path: '/notes.txt', content: 'A keeps this\n' });
        dirs *= 2;
      }
      // V's commands run on the (only) worker while A's find would still be going, one after
      // another, each shorter than the deadline.
      const victims: any[] = [];
      while (performance.now() < started + 6000) {
        victims.push(await s.ok(v.apiKey, 'bash', { command: `sleep ${(TIMEOUT_MS / 2000).toFixed(2)}; echo done` }));
      }
      console.log(`${backend}: A timed out after ${slowMs.toFixed(0)} ms; V ran ${victims.length} commands`);
      for (const r of victims) {
        assert.equal(r.stdout, 'done\n');
        assert.deepEqual(r.changedPaths, [], `V's command reported changes it never made: ${JSON.stringify(r.changedPaths)}`);
        assert.equal(r.changesetId, null);
      }
      assert.equal((await s.ok(v.apiKey, 'read', { path: '/notes.txt' })).content, 'V keeps this\n');
      assert.equal((await s.ok(a.apiKey, 'read', { path: '/notes.txt' })).content, 'A keeps this\n', 'a timed-out command writes nothing');
      const vChanges = await s.ok(v.apiKey, 'list_changes', { afterSeq: 0, limit: 10 });
      assert.equal(vChanges.changesets.length, 1, "V's only changeset is its own write");
    });
  });
}

/**
 * The bash worker threads start with the server (README.md, BASH_WORKERS): a started server
 * reports every worker warmed (afs_bash_workers{state="idle"}) before any bash call, so the first
 * call does not wait for threads to load. A real server process on both backends; nothing here
 * judges time: it waits for the state, bounded only so a server that never warms fails.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { childServerSuite, spawnServer } from './helpers/server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sample(text: string, state: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`afs_bash_workers{state="${state}"}`));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

for (const backend of backends()) {
  describe(`bash workers warm at start (${backend})`, () => {
    const suite = childServerSuite(backend);

    it('every worker has run its warm-up before the first bash call; that call then runs', async () => {
      const env = { ...suite.db.env, BASH_WORKERS: '2' };
      suite.server = await spawnServer(env, suite.port);
      const s = suite.server;
      let text = '';
      for (let i = 0; i < 600; i++) {
        text = (await s.raw('/metrics')).text;
        if (sample(text, 'idle') === 2) break;
        await sleep(100);
      }
      assert.deepEqual([sample(text, 'idle'), sample(text, 'starting'), sample(text, 'busy')], [2, 0, 0], text);
      const a = await s.register('Warm Bash');
      await s.ok(a.apiKey, 'write', { path: '/a.txt', content: 'one\n' });
      const r = await s.ok(a.apiKey, 'bash', { command: 'cat /a.txt | wc -l' });
      assert.deepEqual([r.stdout.trim(), r.exitCode], ['1', 0]);
      const after = (await s.raw('/metrics')).text;
      assert.equal(sample(after, 'starting'), 0);
    });
  });
}

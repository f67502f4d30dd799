/**
 * The filesystem handle of one bash job (openJobFs) dies with the job: every call on it after
 * `end()` throws, and a call already under way when the job ends (awaiting the store) fails
 * instead of planning a change, in its own job or in the one the worker runs next (
 * item 1). On both backends, against the real store.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FsAccess } from '../src/sandbox/fs.js';
import { openJobFs } from '../src/sandbox/mounted-fs.js';
import type { Store } from '../src/store/types.js';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const full = (agentId: string): FsAccess => ({ agentId, folder: null, canWrite: true, canDelete: true });
const ENDED = { code: 'EIO', message: 'EIO: the bash command that used this filesystem has ended' };

for (const backend of backends()) {
  describe(`a bash job's filesystem handle (${backend})`, () => {
    let s: TestServer;
    let a: { id: string; apiKey: string };
    let v: { id: string; apiKey: string };
    before(async () => {
      s = await startServer(backend);
      a = await s.register('Job A');
      v = await s.register('Job V');
      for (const agent of [a, v]) await s.ok(agent.apiKey, 'write', { path: '/notes.txt', content: `${agent.id}\n` });
    });
    after(() => s.close());

    it('works during the job; after end() every call throws and nothing is planned', async () => {
      const job = openJobFs(s.store, full(a.id));
      assert.equal(await job.fs.readFile('/notes.txt'), `${a.id}\n`);
      await job.fs.writeFile('/new.txt', 'x');
      assert.deepEqual(
        (await job.fs.plannedChanges()).map((c) => [c.path, c.op]),
        [['/new.txt', 'create']],
      );
      job.end();
      const calls: Array<[string, () => unknown]> = [
        ['readFile', () => job.fs.readFile('/notes.txt')],
        ['readFileBuffer', () => job.fs.readFileBuffer('/notes.txt')],
        ['exists', () => job.fs.exists('/notes.txt')],
        ['stat', () => job.fs.stat('/notes.txt')],
        ['readdir', () => job.fs.readdir('/')],
        ['writeFile', () => job.fs.writeFile('/late.txt', 'late')],
        ['appendFile', () => job.fs.appendFile('/notes.txt', 'late')],
        ['mkdir', () => job.fs.mkdir('/late')],
        ['rm', () => job.fs.rm('/notes.txt')],
        ['cp', () => job.fs.cp('/notes.txt', '/copy.txt')],
        ['mv', () => job.fs.mv('/notes.txt', '/moved.txt')],
        ['prefetchSubtree', () => job.fs.prefetchSubtree('/')],
        ['resolvePath', () => job.fs.resolvePath('/', 'x')],
        ['getAllPaths', () => job.fs.getAllPaths()],
        ['plannedChanges', () => job.fs.plannedChanges()],
      ];
      for (const [name, call] of calls) {
        await assert.rejects(async () => call(), ENDED, `${name} after the job ended`);
      }
      assert.equal((await s.ok(a.apiKey, 'read', { path: '/notes.txt' })).content, `${a.id}\n`);
    });

    it("a command awaiting the store when its job ends fails, and its delete never reaches the next job's changes", async () => {
      // The store answers A's lookup only once A's job has ended and V's has begun, as when a
      // command abandoned at its deadline goes on in the background (`find /d* /notes.txt
      // -delete`: a stat per start point, then the delete).
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let waiting!: () => void;
      const reached = new Promise<void>((r) => (waiting = r));
      const slow = new Proxy(s.store, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target);
          if (prop !== 'getNode') return typeof value === 'function' ? value.bind(target) : value;
          return async (...args: Parameters<Store['getNode']>) => {
            waiting();
            await gate;
            return target.getNode(...args);
          };
        },
      });
      const jobA = openJobFs(slow, full(a.id));
      const pending = (async () => {
        await jobA.fs.exists('/d0');
        await jobA.fs.rm('/notes.txt');
      })();
      await reached;
      jobA.end();
      const jobV = openJobFs(s.store, full(v.id));
      release();
      await assert.rejects(pending, ENDED);
      assert.deepEqual(await jobV.fs.plannedChanges(), [], "V's job planned nothing");
      assert.equal(await jobV.fs.readFile('/notes.txt'), `${v.id}\n`);
      jobV.end();
    });
  });
}

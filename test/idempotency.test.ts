/**
 * idempotencyKey (docs/contract/files.md#the-tools): every mutating tool returns its first result for a retry with
 * the same key and input (replayed: true), applies nothing a second time (no new version, no new
 * changeset), and rejects the same key with a different input. Over HTTP, on both backends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

interface Case {
  tool: string;
  /** Creates what the call needs; returns its input (without idempotencyKey). */
  setup(key: string): Promise<Record<string, unknown>>;
  /** A different input for the same key. */
  other: Record<string, unknown>;
  /** Checks the state after the first call and again after the retries. */
  check(key: string, first: any): Promise<void>;
}

for (const backend of backends()) {
  describe(`idempotencyKey (${backend})`, () => {
    let s: TestServer;
    let key: string;
    before(async () => {
      s = await startServer(backend, { RATE_LIMIT_PER_MINUTE: '1000000' });
      key = (await s.register('Retrier')).apiKey;
    });
    after(() => s.close());

    const text = async (path: string) => (await s.ok(key, 'read', { path })).content as string;
    const version = async (path: string) => (await s.ok(key, 'stat', { path })).version as number;
    const latestSeq = async () => ((await s.ok(key, 'list_changes', { limit: 1 })).changesets[0]?.seq ?? 0) as number;

    const cases: Case[] = [
      {
        tool: 'write',
        setup: async () => ({ path: '/i/write.txt', content: 'first\n' }),
        other: { path: '/i/write.txt', content: 'other\n' },
        async check(k, first) {
          assert.equal(first.version, 1);
          assert.equal(await text('/i/write.txt'), 'first\n');
          assert.equal(await version('/i/write.txt'), 1);
        },
      },
      {
        tool: 'edit',
        setup: async (k) => {
          await s.ok(k, 'write', { path: '/i/edit.txt', content: 'count: 1\n' });
          return { path: '/i/edit.txt', old_string: 'count: 1', new_string: 'count: 1 + 1' };
        },
        other: { path: '/i/edit.txt', old_string: 'count', new_string: 'total' },
        async check(_k, first) {
          assert.equal(first.version, 2);
          assert.equal(await text('/i/edit.txt'), 'count: 1 + 1\n');
          assert.equal(await version('/i/edit.txt'), 2);
        },
      },
      {
        tool: 'append',
        setup: async () => ({ path: '/i/append.log', content: 'line\n' }),
        other: { path: '/i/append.log', content: 'other\n' },
        async check() {
          assert.equal(await text('/i/append.log'), 'line\n');
          assert.equal(await version('/i/append.log'), 1);
        },
      },
      {
        tool: 'mkdir',
        setup: async () => ({ path: '/i/dir/sub' }),
        other: { path: '/i/dir/other' },
        async check(_k, first) {
          assert.equal(first.created, true);
          assert.equal(await version('/i/dir/sub'), 1);
        },
      },
      {
        tool: 'delete',
        setup: async (k) => {
          await s.ok(k, 'write', { path: '/i/delete.txt', content: 'bye' });
          return { path: '/i/delete.txt' };
        },
        other: { path: '/i/delete.txt', recursive: true },
        async check(_k, first) {
          assert.equal(first.version, 2);
          // Without idempotency a second delete would fail with NOT_FOUND.
          const st = await s.ok(key, 'stat', { path: '/i/delete.txt', version: 2 });
          assert.equal(st.deleted, true);
          await s.fail(key, 'stat', { path: '/i/delete.txt', version: 3 }, 'VERSION_NOT_FOUND');
        },
      },
      {
        tool: 'move',
        setup: async (k) => {
          await s.ok(k, 'write', { path: '/i/move-a.txt', content: 'm' });
          return { from: '/i/move-a.txt', to: '/i/move-b.txt' };
        },
        other: { from: '/i/move-a.txt', to: '/i/move-c.txt' },
        async check() {
          assert.equal(await text('/i/move-b.txt'), 'm');
          assert.equal(await version('/i/move-b.txt'), 1);
        },
      },
      {
        tool: 'copy',
        setup: async (k) => {
          await s.ok(k, 'write', { path: '/i/copy-a.txt', content: 'c' });
          return { from: '/i/copy-a.txt', to: '/i/copy-b.txt' };
        },
        other: { from: '/i/copy-a.txt', to: '/i/copy-c.txt' },
        async check() {
          assert.equal(await version('/i/copy-b.txt'), 1);
          await s.fail(key, 'read', { path: '/i/copy-c.txt' }, 'NOT_FOUND');
        },
      },
      {
        tool: 'restore',
        setup: async (k) => {
          await s.ok(k, 'write', { path: '/i/restore.txt', content: 'v1' });
          await s.ok(k, 'write', { path: '/i/restore.txt', content: 'v2' });
          return { path: '/i/restore.txt', version: 1 };
        },
        other: { path: '/i/restore.txt', version: 2 },
        async check(_k, first) {
          assert.equal(first.version, 3);
          assert.equal(await text('/i/restore.txt'), 'v1');
          assert.equal(await version('/i/restore.txt'), 3);
        },
      },
      {
        tool: 'revert_changeset',
        setup: async (k) => {
          await s.ok(k, 'write', { path: '/i/revert.txt', content: 'before' });
          const w = await s.ok(k, 'write', { path: '/i/revert.txt', content: 'after' });
          return { changesetId: w.changesetId };
        },
        other: { changesetId: 'cs_other' },
        async check() {
          assert.equal(await text('/i/revert.txt'), 'before');
          assert.equal(await version('/i/revert.txt'), 3);
        },
      },
    ];

    for (const c of cases) {
      it(`${c.tool}: a retry returns the first result (replayed: true) and applies nothing twice`, async () => {
        const input = await c.setup(key);
        const idem = `idem-${c.tool}-${backend}`;
        const first = await s.ok(key, c.tool, { ...input, idempotencyKey: idem });
        assert.equal(first.replayed, undefined, 'the first call is not a replay');
        await c.check(key, first);
        const seq = await latestSeq();
        assert.ok(seq > 0);
        for (let i = 0; i < 2; i++) {
          const retry = await s.ok(key, c.tool, { ...input, idempotencyKey: idem });
          assert.equal(retry.replayed, true);
          const { replayed: _r, ...rest } = retry;
          assert.deepEqual(rest, first, 'the very same result');
        }
        // Key order of the input does not matter for "same input".
        const reordered = Object.fromEntries(Object.entries({ ...input, idempotencyKey: idem }).reverse());
        assert.equal((await s.ok(key, c.tool, reordered)).replayed, true);
        await c.check(key, first);
        assert.equal(await latestSeq(), seq, 'no second changeset');

        const err = await s.fail(key, c.tool, { ...c.other, idempotencyKey: idem }, 'INVALID_INPUT');
        assert.equal(err.details.field, 'idempotencyKey');
        assert.match(err.message, /different input/);
        assert.equal(await latestSeq(), seq);
      });
    }

    it('a retry returns the first result even after the file changed in between (write is not re-applied)', async () => {
      const first = await s.ok(key, 'write', { path: '/i/race.txt', content: 'mine', idempotencyKey: 'race-1' });
      await s.ok(key, 'write', { path: '/i/race.txt', content: 'someone else' });
      const retry = await s.ok(key, 'write', { path: '/i/race.txt', content: 'mine', idempotencyKey: 'race-1' });
      assert.equal(retry.replayed, true);
      assert.equal(retry.version, first.version);
      assert.equal(retry.changesetId, first.changesetId);
      assert.equal(await text('/i/race.txt'), 'someone else');
      assert.equal(await version('/i/race.txt'), 2);
    });

    it('concurrent calls with the same key apply once and all return the first result (append, delete, edit, write, mkdir)', async () => {
      await s.ok(key, 'write', { path: '/i/conc.log', content: '' });
      await s.ok(key, 'write', { path: '/i/conc-del.txt', content: 'x' });
      await s.ok(key, 'write', { path: '/i/conc-edit.txt', content: 'abc\n' });
      const calls: Array<[string, Record<string, unknown>]> = [
        ['append', { path: '/i/conc.log', content: 'once\n' }],
        // Without the replay the duplicates of these would fail (NOT_FOUND, NO_MATCH) or answer
        // differently (unchanged: true, created: false) once the first call has applied.
        ['delete', { path: '/i/conc-del.txt' }],
        ['edit', { path: '/i/conc-edit.txt', old_string: 'abc', new_string: 'xyz' }],
        ['write', { path: '/i/conc-write.txt', content: 'w' }],
        ['mkdir', { path: '/i/conc-dir' }],
      ];
      for (const [tool, input] of calls) {
        const seq = await latestSeq();
        const results = await Promise.all(
          Array.from({ length: 8 }, () => s.call(key, tool, { ...input, idempotencyKey: `conc-${tool}-${backend}` })),
        );
        const summary = results.map((r) => (r.isError ? r.inner.error.code : `${r.inner.changesetId}${r.inner.replayed ? ' (replayed)' : ''}`));
        for (const r of results) assert.equal(r.inner.success, true, `${tool}: ${JSON.stringify(summary)}`);
        assert.equal(new Set(results.map((r) => r.inner.changesetId)).size, 1, `${tool}: ${JSON.stringify(summary)}`);
        assert.equal(results.filter((r) => r.inner.replayed !== true).length, 1, `${tool}: one original answer`);
        assert.equal(await latestSeq(), seq + 1, `${tool}: applied once`);
      }
      assert.equal(await text('/i/conc.log'), 'once\n');
      assert.equal(await text('/i/conc-edit.txt'), 'xyz\n');
    });

    it('purge and an unchanged write (no commit) also replay their first result', async () => {
      await s.ok(key, 'write', { path: '/i/purge-me.txt', content: 'secret' });
      const first = await s.ok(key, 'purge', { path: '/i/purge-me.txt', confirm: true, idempotencyKey: 'purge-1' });
      const again = await s.ok(key, 'purge', { path: '/i/purge-me.txt', confirm: true, idempotencyKey: 'purge-1' });
      assert.equal(again.replayed, true);
      assert.deepEqual({ ...again, replayed: undefined }, { ...first, replayed: undefined });
      await s.ok(key, 'write', { path: '/i/same.txt', content: 'same' });
      const unchanged = await s.ok(key, 'write', { path: '/i/same.txt', content: 'same', idempotencyKey: 'same-1' });
      assert.equal(unchanged.unchanged, true);
      await s.ok(key, 'write', { path: '/i/same.txt', content: 'changed later' });
      const retry = await s.ok(key, 'write', { path: '/i/same.txt', content: 'same', idempotencyKey: 'same-1' });
      assert.equal(retry.replayed, true);
      assert.equal(retry.unchanged, true);
      assert.equal((await s.ok(key, 'read', { path: '/i/same.txt' })).content, 'changed later', 'the retry did not write');
    });

    it('the same key for a different tool is a different input; keys are per agent; a bad key is INVALID_INPUT', async () => {
      await s.ok(key, 'mkdir', { path: '/i/k1', idempotencyKey: 'shared-key' });
      const err = await s.fail(key, 'write', { path: '/i/k1.txt', content: 'x', idempotencyKey: 'shared-key' }, 'INVALID_INPUT');
      assert.equal(err.details.field, 'idempotencyKey');
      // Another agent may use the same key string independently.
      const other = (await s.register('Other Retrier')).apiKey;
      const r = await s.ok(other, 'mkdir', { path: '/i/k1', idempotencyKey: 'shared-key' });
      assert.equal(r.replayed, undefined);
      assert.equal(r.created, true);
      for (const bad of ['', 'x'.repeat(201), 42]) {
        const e = await s.fail(key, 'write', { path: '/i/bad.txt', content: 'x', idempotencyKey: bad }, 'INVALID_INPUT');
        assert.equal(e.details.field, 'idempotencyKey');
      }
      await s.fail(key, 'read', { path: '/i/bad.txt' }, 'NOT_FOUND');
    });
  });
}

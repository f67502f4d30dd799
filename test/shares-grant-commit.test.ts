/**
 * Writes through a write share are checked against the share inside the commit's transaction
 * (store/commit-program.ts checkGrant): a share revoked, left or made read-only between a tool's
 * plan and its commit saves nothing. The revoke is made deterministic by a hook on the real
 * store's commit that revokes first, then lets the commit run (no sleeps). Both backends; the big
 * copy (700 files) runs SQLite's bulk-writer path and PostgreSQL's batched steps.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';
import type { CommitInput } from '../src/store/types.js';

interface Agent {
  id: string;
  key: string;
  slug: string;
}

for (const backend of backends()) {
  describe(`writes through a share end with it, checked in the commit (${backend})`, () => {
    let s: TestServer;
    let n = 0;
    const reg = async (): Promise<Agent> => {
      const r = await s.register(`Grant Agent ${++n}`);
      return { id: r.id, key: r.apiKey, slug: r.slug };
    };
    /** Runs `before` once, on the next commit into `ownerId`'s tree, ahead of that commit. */
    let armed: { ownerId: string; before: () => Promise<void> } | null = null;
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
      const commit = s.store.commit.bind(s.store);
      s.store.commit = async (input: CommitInput) => {
        const hook = armed && armed.ownerId === input.agentId ? armed : null;
        if (hook) {
          armed = null;
          await hook.before();
        }
        return commit(input);
      };
    });
    after(() => s.close());

    /** An owner sharing /w for writing with a writer, who has `count` files of its own under /src. */
    const world = async (count: number) => {
      const [owner, writer] = [await reg(), await reg()];
      await s.ok(owner.key, 'write', { path: '/w/keep.md', content: 'keep\n' });
      const share = (await s.ok(owner.key, 'share', { path: '/w', with: writer.slug, permission: 'write' })).share;
      const files = Array.from({ length: count }, (_, i) => ({ path: `/src/f${String(i).padStart(4, '0')}.txt`, content: `file ${i}\n` }));
      await s.ok(writer.key, 'write_files', { files });
      return { owner, writer, shareId: share.shareId as string, W: `/shared/${owner.slug}/w` };
    };
    const ownerFiles = async (owner: Agent) =>
      (await s.ok(owner.key, 'list', { path: '/w', recursive: true, limit: 1000 })).entries.map((e: any) => e.path);
    const ownerChanges = async (owner: Agent) => (await s.ok(owner.key, 'list_changes', {})).changesets.length;

    it('copy of 700 files into the share, revoked between plan and commit: NOT_FOUND, nothing saved', async () => {
      const { owner, writer, shareId, W } = await world(700);
      const changesBefore = await ownerChanges(owner);
      armed = { ownerId: owner.id, before: async () => void (await s.ok(owner.key, 'revoke_share', { shareId })) };
      const err = await s.fail(writer.key, 'copy', { from: '/src', to: `${W}/copied` }, 'NOT_FOUND');
      assert.equal(armed, null, 'the hook ran: the revoke came between the plan and the commit');
      assert.equal(err.details.reason, 'share_ended');
      assert.match(err.message, /ended or became read-only before the change was saved; nothing was saved/);
      assert.deepEqual(await ownerFiles(owner), ['/w/keep.md'], 'no file of the copy landed after the revoke');
      assert.equal(await ownerChanges(owner), changesBefore, 'no changeset in the owner history');
    });

    it('write after the share became read-only: nothing saved', async () => {
      const { owner, writer, W } = await world(3);
      armed = { ownerId: owner.id, before: async () => void (await s.ok(owner.key, 'share', { path: '/w', with: writer.slug, permission: 'read' })) };
      await s.fail(writer.key, 'write', { path: `${W}/new.md`, content: 'late\n' }, 'NOT_FOUND');
      assert.equal(armed, null);
      assert.deepEqual(await ownerFiles(owner), ['/w/keep.md']);
    });

    it('bash cp into the share, left by the writer before the commit: the command says so, nothing saved', async () => {
      const again = await world(3);
      const shareId = again.shareId;
      armed = { ownerId: again.owner.id, before: async () => void (await s.ok(again.writer.key, 'leave_share', { shareId })) };
      const r = await s.ok(again.writer.key, 'bash', { command: `cp -r /src ${again.W}/copied && echo done` });
      assert.equal(armed, null);
      assert.match(r.stderr, /the share ended or became read-only while the command ran; no change there was saved/);
      assert.equal(r.exitCode, 1);
      assert.equal(r.changesets, undefined, 'no changeset saved in the owner tree');
      assert.deepEqual(await ownerFiles(again.owner), ['/w/keep.md']);
    });

    it('a live share still commits (the check passes), and the owner writing its own tree is not checked', async () => {
      const { owner, writer, W } = await world(600);
      assert.equal((await s.ok(writer.key, 'copy', { from: '/src', to: `${W}/copied` })).entryCount, 601);
      assert.equal((await s.ok(writer.key, 'write', { path: `${W}/one.md`, content: 'one\n' })).version, 1);
      await s.ok(owner.key, 'write', { path: '/w/own.md', content: 'own\n' });
      assert.equal((await ownerFiles(owner)).length, 604, 'keep.md, copied/ and its 600 files, one.md, own.md');
    });
  });
}

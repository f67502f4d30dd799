/**
 * Isolation through the mounts (security; test/security-isolation.test.ts delegates the
 * shares family here): for every file tool, what an agent learns of `/shared/{owner}/…` and
 * `/published/{owner}/…` beyond what was shared or published with it is exactly what it learns
 * of an owner or a path that does not exist — same code, message and details modulo the name —
 * and no trick of spelling (`..`, NFD, case, encodings) reaches outside a share. The shares tools
 * themselves only ever show the shares an agent made or received.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isolationBackends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

interface Agent {
  id: string;
  key: string;
  slug: string;
}

/** Every file tool, aimed at a path P (and Q for a second path). */
const PROBES: Array<[string, Record<string, unknown>]> = [
  ['read', { path: 'P/secret.md' }],
  ['read', { path: 'P/secret.md', version: 1 }],
  ['read', { path: 'P/secret.md', offset: 2, limit: 1 }],
  ['read', { path: 'P/secret.md', encoding: 'base64' }],
  ['read', { path: 'P' }],
  ['stat', { path: 'P' }],
  ['stat', { path: 'P/secret.md' }],
  ['stat', { path: 'P/secret.md', version: 2 }],
  ['list', { path: 'P' }],
  ['list', { path: 'P', recursive: true }],
  ['list_versions', { path: 'P/secret.md' }],
  ['diff', { path: 'P/secret.md', fromVersion: 1, toVersion: 2 }],
  ['list_deleted', { path: 'P' }],
  ['write', { path: 'P/new.md', content: 'x' }],
  ['write', { path: 'P/secret.md', content: 'x', expectedVersion: 2 }],
  ['append', { path: 'P/secret.md', content: 'x' }],
  ['edit', { path: 'P/secret.md', old_string: 'BZQ', new_string: 'x' }],
  ['edit', { path: 'P/secret.md', old_string: 'BZQ', new_string: 'x', dryRun: true }],
  ['mkdir', { path: 'P/sub2' }],
  ['delete', { path: 'P/secret.md' }],
  ['delete', { path: 'P', recursive: true }],
  ['move', { from: 'P/secret.md', to: 'P/moved.md' }],
  ['move', { from: 'P/secret.md', to: '/mine.md' }],
  ['copy', { from: 'P/secret.md', to: '/stolen.md' }],
  ['copy', { from: 'P', to: '/stolen-dir' }],
  ['copy', { from: '/own.md', to: 'P/own.md' }],
  ['restore', { path: 'P/secret.md', version: 1 }],
  ['purge', { path: 'P/secret.md', confirm: true }],
  ['list_changes', { path: 'P' }],
];

const fill = (input: Record<string, unknown>, p: string) => JSON.parse(JSON.stringify(input).replaceAll('"P', `"${p}`));

for (const backend of isolationBackends()) {
  describe(`isolation through /shared and /published (${backend})`, () => {
    let s: TestServer;
    let owner: Agent;
    let stranger: Agent;
    let reader: Agent;
    let snapshot: string;
    const tree = async () =>
      JSON.stringify((await s.ok(owner.key, 'list', { path: '/', recursive: true })).entries.map((e: any) => [e.path, e.version, e.size]));
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
      const reg = async (name: string): Promise<Agent> => {
        const r = await s.register(name);
        return { id: r.id, key: r.apiKey, slug: r.slug };
      };
      [owner, stranger, reader] = [await reg('Iso Bzq Owner'), await reg('Iso Stranger'), await reg('Iso Reader')];
      for (const [dir, tag] of [
        ['/bzqpriv', 'PRIV'],
        ['/open', 'OPEN'],
        ['/café', 'CAFE'],
      ]) {
        await s.ok(owner.key, 'write', { path: `${dir}/secret.md`, content: `BZQ ${tag} one\n` });
        await s.ok(owner.key, 'write', { path: `${dir}/secret.md`, content: `BZQ ${tag} one\nBZQ ${tag} two\n` });
      }
      await s.ok(owner.key, 'share', { path: '/open', with: reader.slug, permission: 'write' });
      await s.ok(owner.key, 'share', { path: '/café', with: reader.slug, permission: 'read' });
      for (const a of [stranger, reader]) await s.ok(a.key, 'write', { path: '/own.md', content: 'own\n' });
      snapshot = await tree();
    });
    after(() => s.close());

    /** The answer as a client sees it, names unified. */
    const answer = async (key: string, tool: string, input: Record<string, unknown>, names: Array<[string, string]>) => {
      const r = await s.call(key, tool, input);
      let text = JSON.stringify(r.inner);
      for (const [from, to] of names) text = text.replaceAll(from, to);
      const v = JSON.parse(text);
      if (v.success) return { ok: true, keys: Object.keys(v).sort() };
      return { code: v.error.code, message: v.error.message, details: v.error.details };
    };

    it('a stranger: every file tool on /shared/{owner}/… and /published/{owner}/… answers as for an agent that does not exist', async () => {
      let compared = 0;
      for (const area of ['shared', 'published']) {
        for (const dir of ['/bzqpriv', '/open']) {
          for (const [tool, input] of PROBES) {
            const real = await answer(stranger.key, tool, fill(input, `/${area}/${owner.slug}${dir}`), [[owner.slug, 'SLUG']]);
            const twin = await answer(stranger.key, tool, fill(input, `/${area}/nobody-zz${dir}`), [['nobody-zz', 'SLUG']]);
            assert.deepEqual(real, twin, `${tool} ${JSON.stringify(input)} in /${area}${dir}`);
            assert.ok(!/PRIV|OPEN/.test(JSON.stringify(real)), `${tool}: content leaked`);
            compared++;
          }
        }
      }
      assert.equal(compared, PROBES.length * 4);
      assert.equal(await tree(), snapshot, "nothing of the owner's changed");
    });

    it("a reader: the owner's paths outside its shares answer as paths that never existed", async () => {
      for (const [tool, input] of PROBES) {
        const real = await answer(reader.key, tool, fill(input, `/shared/${owner.slug}/bzqpriv`), [['bzqpriv', 'DIR']]);
        const twin = await answer(reader.key, tool, fill(input, `/shared/${owner.slug}/kwvpriv`), [['kwvpriv', 'DIR']]);
        assert.deepEqual(real, twin, `${tool} ${JSON.stringify(input)}`);
        assert.ok(!JSON.stringify(real).includes('PRIV'), `${tool}: content leaked`);
      }
      assert.equal(await tree(), snapshot);
    });

    it('no spelling escapes a share: .., NFD, case, encodings, doubled slashes', async () => {
      const base = `/shared/${owner.slug}`;
      const escapes = [
        `${base}/open/../bzqpriv/secret.md`,
        `${base}/open/./../bzqpriv/secret.md`,
        `${base}/open//..//bzqpriv/secret.md`,
        `${base}/open/%2e%2e/bzqpriv/secret.md`,
        `${base}/open/..%2fbzqpriv/secret.md`,
        `${base}/OPEN/secret.md`,
        `${base}/Open/../bzqpriv/secret.md`,
        `/shared/${owner.slug.toUpperCase()}/open/secret.md`,
        `/Shared/${owner.slug}/open/secret.md`,
        `${base}/../${owner.slug}/bzqpriv/secret.md`,
        `/shared/../shared/${owner.slug}/bzqpriv/secret.md`,
        `${base}/café/../bzqpriv/secret.md`,
      ];
      for (const path of escapes) {
        const r = await s.call(reader.key, 'read', { path });
        assert.ok(r.isError, `${path} answered ${JSON.stringify(r.inner).slice(0, 200)}`);
        assert.ok(['NOT_FOUND', 'INVALID_PATH'].includes(r.inner.error.code), `${path}: ${r.inner.error.code}`);
        assert.ok(!JSON.stringify(r.inner).includes('PRIV'), `${path}: content leaked`);
        // A write fails, lands inside the write share (a name like "%2e%2e" is literal), or is the
        // reader's own file (paths are case-sensitive: /Shared is an ordinary name).
        const w = await s.call(reader.key, 'write', { path: path.replace('secret.md', 'planted.md'), content: 'x' });
        const at: string = w.inner.path ?? '';
        assert.ok(w.isError || at.startsWith(`${base}/open/`) || !at.startsWith('/shared/'), `${path}: written at ${at}`);
      }
      // NFC and NFD name the same shared directory (a read share: readable, never writable).
      const nfd = `${base}/cafe\u0301/secret.md`;
      assert.equal((await s.ok(reader.key, 'read', { path: nfd })).content, 'BZQ CAFE one\nBZQ CAFE two\n');
      assert.equal((await s.fail(reader.key, 'write', { path: nfd, content: 'x' }, 'FORBIDDEN')).details.reason, 'read_only_share');
      // Targets of move and copy are bounded the same way.
      for (const to of [`${base}/open/../bzqpriv/planted.md`, `${base}/bzqpriv/planted.md`, `${base}/café/planted.md`]) {
        const mv = await s.call(reader.key, 'copy', { from: `${base}/open/secret.md`, to });
        assert.ok(mv.isError, `copy to ${to} went through`);
      }
      const outsideOpen = (t: string) => JSON.parse(t).filter((e: [string]) => !e[0].startsWith('/open'));
      assert.deepEqual(outsideOpen(await tree()), outsideOpen(snapshot), 'nothing changed outside the write share');
      for (const e of JSON.parse(await tree()) as Array<[string]>)
        if (e[0].startsWith('/open/')) await s.call(owner.key, 'delete', { path: e[0], recursive: true });
      await s.ok(owner.key, 'write', { path: '/open/secret.md', content: 'BZQ OPEN one\nBZQ OPEN two\n' });
      snapshot = await tree();
    });

    it("the recipient's folder-scoped and read-only keys stay bounded", async () => {
      const folderKey = await s.addKey(reader.id, { scopes: ['files', 'shares'], folder: '/work' });
      const err = await s.fail(folderKey, 'read', { path: `/shared/${owner.slug}/open/secret.md` }, 'OUTSIDE_KEY_FOLDER');
      assert.equal(err.details.folder, '/work');
      const bash = await s.ok(folderKey, 'bash', { command: `cat /shared/${owner.slug}/open/secret.md` });
      assert.notEqual(bash.exitCode, 0);
      assert.ok(!bash.stdout.includes('OPEN'));
      const readOnly = await s.addKey(reader.id, { scopes: ['files:read'] });
      assert.equal((await s.ok(readOnly, 'read', { path: `/shared/${owner.slug}/open/secret.md` })).content, 'BZQ OPEN one\nBZQ OPEN two\n');
      await s.fail(readOnly, 'write', { path: `/shared/${owner.slug}/open/x.md`, content: 'x' }, 'INSUFFICIENT_SCOPE');
      const rb = await s.ok(readOnly, 'bash', { command: `echo x > /shared/${owner.slug}/open/x.md` });
      assert.match(rb.stderr, /files:write/);
      assert.equal(await tree(), snapshot);
    });

    it('the shares tools show an agent only the shares it made or received', async () => {
      const out = await s.ok(owner.key, 'list_shares', { direction: 'outgoing' });
      assert.equal(out.items.length, 2);
      assert.deepEqual((await s.ok(stranger.key, 'list_shares', { direction: 'incoming' })).items, []);
      assert.deepEqual((await s.ok(stranger.key, 'list_shares', { direction: 'outgoing' })).items, []);
      for (const item of out.items) {
        const twin = item.shareId.slice(0, -4) + 'zzzz';
        for (const tool of ['revoke_share', 'leave_share']) {
          const real = await s.fail(stranger.key, tool, { shareId: item.shareId }, 'NOT_FOUND');
          const never = await s.fail(stranger.key, tool, { shareId: twin }, 'NOT_FOUND');
          assert.equal(real.message.replace(item.shareId, 'ID'), never.message.replace(twin, 'ID'), tool);
        }
      }
      const pub = (await s.ok(owner.key, 'publish', { path: '/open/secret.md', title: 'T' })).published;
      const real = await s.fail(stranger.key, 'unpublish', { publishedId: pub.publishedId }, 'NOT_FOUND');
      const never = await s.fail(stranger.key, 'unpublish', { publishedId: 'pub_zzzzzzzzzzzzzzzzzzzzzz' }, 'NOT_FOUND');
      assert.equal(real.message.replace(pub.publishedId, 'ID'), never.message.replace('pub_zzzzzzzzzzzzzzzzzzzzzz', 'ID'));
      await s.ok(owner.key, 'unpublish', { publishedId: pub.publishedId });
    });
  });
}

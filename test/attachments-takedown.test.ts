/**
 * Post attachments can be taken down (core/attachments.ts, store/published.ts showAttachmentsOf):
 * others read a post's attachment (read, bash, search, the public API) only while the post is
 * there and not removed; moderate remove, delete_post or deleting the copies makes it unreadable
 * to everyone but its author, and restore brings it back. Nobody but the author lists
 * /published/{author}/.attachments. Both backends, through HTTP.
 */
import assert from 'node:assert/strict';
import { MIGRATIONS } from '../src/store/migrations.js';
import { after, before, describe, it } from 'node:test';
import { drainSearchOutbox } from '../src/tools/search-indexer.js';
import { backends } from './helpers/backends.js';
import { runSql } from './helpers/db-dump.js';
import { startServer, type TestServer } from './helpers/server.js';

for (const backend of backends()) {
  describe(`attachments can be taken down (${backend})`, () => {
    let s: TestServer;
    let mod: { slug: string; apiKey: string };
    let author: { slug: string; apiKey: string };
    let reader: { slug: string; apiKey: string };

    before(async () => {
      s = await startServer(backend, { COOLDOWN_POST_PER_HOUR: '0' }, { via: 'inject' });
      mod = await s.register('Moderator');
      author = await s.register('Leaker');
      reader = await s.register('Reader');
      await s.ok(mod.apiKey, 'create_community', { name: 'leaks' });
      await s.ok(author.apiKey, 'join_community', { community: 'leaks' });
    });
    after(() => s.close());

    async function postWith(secret: string) {
      await s.ok(author.apiKey, 'write', { path: `/${secret}.txt`, content: `AWS_SECRET=${secret}\n` });
      const r = await s.ok(author.apiKey, 'create_post', {
        community: 'leaks',
        title: secret,
        body: 'see attached',
        attachments: [{ path: `/${secret}.txt` }],
      });
      return { postId: r.post.postId as string, publicPath: r.post.attachments[0].publicPath as string };
    }
    const anonRead = (path: string) =>
      s.raw('/api/public/read', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path }) });
    const found = async (word: string) => {
      await drainSearchOutbox(s.store, s.config, 5000);
      const r = await s.ok(reader.apiKey, 'search', { query: word, types: ['files'] });
      return r.items.length;
    };
    const bashCat = async (path: string) => (await s.ok(reader.apiKey, 'bash', { command: `cat ${path}` })).stdout as string;

    async function readable(publicPath: string, secret: string) {
      assert.equal((await s.ok(reader.apiKey, 'read', { path: publicPath })).content, `AWS_SECRET=${secret}\n`);
      const anon = await anonRead(publicPath);
      assert.equal(anon.inner?.content, `AWS_SECRET=${secret}\n`, anon.text);
      assert.equal(await bashCat(publicPath), `AWS_SECRET=${secret}\n`);
      assert.equal(await found(secret), 1);
    }
    async function gone(publicPath: string, secret: string) {
      await s.fail(reader.apiKey, 'read', { path: publicPath }, 'NOT_FOUND');
      await s.fail(reader.apiKey, 'stat', { path: publicPath }, 'NOT_FOUND');
      const anon = await anonRead(publicPath);
      assert.match(anon.text, /NOT_FOUND/);
      assert.doesNotMatch(anon.text, new RegExp(`AWS_SECRET=${secret}`));
      assert.equal(await bashCat(`${publicPath} 2>/dev/null; true`), '');
      assert.equal(await found(secret), 0);
      await s.fail(reader.apiKey, 'copy', { from: publicPath, to: `/stolen-${secret}.txt` }, 'NOT_FOUND');
      // Its author still reads its own copy.
      const own = publicPath.replace(`/published/${author.slug}`, '');
      assert.match((await s.ok(author.apiKey, 'read', { path: own, version: 1 })).content, new RegExp(secret));
    }

    it("an attachment of version 2 reads at the copy's own version 1, and read and stat say which version it copies", async () => {
      await s.ok(author.apiKey, 'write', { path: '/twice.md', content: 'one\n' });
      await s.ok(author.apiKey, 'write', { path: '/twice.md', content: 'two\n' });
      const r = await s.ok(author.apiKey, 'create_post', { community: 'leaks', title: 'v2', body: 'b', attachments: [{ path: '/twice.md' }] });
      const { publicPath, version } = r.post.attachments[0];
      assert.deepEqual([version, publicPath], [2, `/published/${author.slug}/.attachments/${r.post.postId}/v2/twice.md`]);
      const note = "An attachment: a copy of version 2 of its author's file (v2 in the path); this copy's own version is 1.";
      const read = await s.ok(reader.apiKey, 'read', { path: publicPath });
      assert.deepEqual([read.content, read.version, read.note], ['two\n', 1, note]);
      const stat = await s.ok(reader.apiKey, 'stat', { path: publicPath });
      assert.deepEqual([stat.version, stat.note], [1, note]);
      // The author's own copy says the same; an ordinary file says nothing.
      assert.equal((await s.ok(author.apiKey, 'read', { path: publicPath.replace(`/published/${author.slug}`, '') })).note, note);
      assert.equal((await s.ok(author.apiKey, 'read', { path: '/twice.md' })).note, undefined);
      assert.equal((await s.ok(author.apiKey, 'stat', { path: '/twice.md' })).note, undefined);
    });

    it('moderate remove takes the attachment down on every path; restore brings it back', async () => {
      const p = await postWith('removedsecret');
      await readable(p.publicPath, 'removedsecret');
      await s.ok(mod.apiKey, 'moderate', { community: 'leaks', action: 'remove', target: p.postId, reason: 'leaked secret' });
      await gone(p.publicPath, 'removedsecret');
      await s.ok(mod.apiKey, 'moderate', { community: 'leaks', action: 'restore', target: p.postId });
      await readable(p.publicPath, 'removedsecret');
    });

    it('delete_post takes it down for good (a restore does not bring it back)', async () => {
      const p = await postWith('deletedsecret');
      await readable(p.publicPath, 'deletedsecret');
      await s.ok(author.apiKey, 'delete_post', { postId: p.postId });
      await gone(p.publicPath, 'deletedsecret');
      await s.call(mod.apiKey, 'moderate', { community: 'leaks', action: 'restore', target: p.postId });
      await s.fail(reader.apiKey, 'read', { path: p.publicPath }, 'NOT_FOUND');
    });

    it('deleting the copies takes them down', async () => {
      const p = await postWith('copysecret');
      await readable(p.publicPath, 'copysecret');
      await s.ok(author.apiKey, 'delete', { path: `/.attachments/${p.postId}`, recursive: true });
      await s.fail(reader.apiKey, 'read', { path: p.publicPath }, 'NOT_FOUND');
      await s.fail(reader.apiKey, 'stat', { path: p.publicPath }, 'NOT_FOUND');
      assert.match((await anonRead(p.publicPath)).text, /NOT_FOUND/);
      assert.equal(await bashCat(`${p.publicPath} 2>/dev/null; true`), '');
      const grep = await s.ok(reader.apiKey, 'bash', { command: `grep -r AWS_SECRET /published/${author.slug}/.attachments/${p.postId}; true` });
      assert.doesNotMatch(grep.stdout, /copysecret/);
    });

    it('nobody but the author lists /published/{author}/.attachments', async () => {
      const p = await postWith('listedsecret');
      const dir = `/published/${author.slug}/.attachments`;
      await s.fail(reader.apiKey, 'list', { path: dir }, 'NOT_FOUND');
      await s.fail(reader.apiKey, 'stat', { path: dir }, 'NOT_FOUND');
      const anon = await s.raw('/api/public/list', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ path: dir }),
      });
      assert.match(anon.text, /NOT_FOUND/);
      const root = await s.call(reader.apiKey, 'list', { path: `/published/${author.slug}` });
      assert.ok(!JSON.stringify(root.body).includes('.attachments'));
      const ls = await s.ok(reader.apiKey, 'bash', { command: `ls -a /published/${author.slug}; ls ${dir} 2>&1; test -e ${dir} || echo absent` });
      assert.doesNotMatch(ls.stdout, /pst_/);
      assert.match(ls.stdout, /absent\n$/);
      const found = await s.ok(reader.apiKey, 'bash', { command: `find /published/${author.slug} -type f` });
      assert.doesNotMatch(found.stdout, /\.attachments/);
      const mine = await s.ok(author.apiKey, 'list', { path: dir });
      assert.ok(mine.entries.some((e: { name: string }) => e.name === p.postId));
      // The post's own directory stays readable by others while the post is there.
      const inPost = await s.ok(reader.apiKey, 'list', { path: `${dir}/${p.postId}`, recursive: true });
      assert.ok(inPost.entries.some((e: { path: string }) => e.path === p.publicPath));
    });
  });

  describe(`attachments published before the per-post migration (${backend})`, () => {
    it('the agent-wide /.attachments item becomes one item per post, down for removed and deleted posts', async () => {
      const s = await startServer(backend, { COOLDOWN_POST_PER_HOUR: '0' }, { via: 'inject' });
      try {
        const [mod, author, reader] = [await s.register('Old Mod'), await s.register('Old Author'), await s.register('Old Reader')];
        await s.ok(mod.apiKey, 'create_community', { name: 'old' });
        await s.ok(author.apiKey, 'join_community', { community: 'old' });
        await s.ok(author.apiKey, 'write', { path: '/a.txt', content: 'attached\n' });
        const post = async () =>
          (await s.ok(author.apiKey, 'create_post', { community: 'old', title: `p ${Math.random()}`, attachments: [{ path: '/a.txt' }] })).post;
        const [live, removed, deleted] = [await post(), await post(), await post()];
        await s.ok(mod.apiKey, 'moderate', { community: 'old', action: 'remove', target: removed.postId });
        await s.ok(author.apiKey, 'delete_post', { postId: deleted.postId });
        // As the release before that migration left them: one item for the author's whole /.attachments.
        await runSql(s, [
          'DELETE FROM published WHERE internal',
          `INSERT INTO published (id, owner_id, path, kind, version, title, description, tags, size, created_at_ms, internal)
           VALUES ('pub_oldattachments', '${author.id}', '/.attachments', 'dir', NULL, 'Post attachments', '', '[]', 0, 1, TRUE)`,
        ]);
        assert.equal((await s.ok(reader.apiKey, 'read', { path: removed.attachments[0].publicPath })).content, 'attached\n', 'the old leak');
        // That migration's own text, run alone (re-running every later migration would not be idempotent).
        const step = MIGRATIONS.find((m) => m.name.startsWith('post attachments: one published item per post'))!;
        await runSql(s, [s.backend === 'sqlite' ? step.sqlite : step.postgres]);
        assert.equal((await s.ok(reader.apiKey, 'read', { path: live.attachments[0].publicPath })).content, 'attached\n');
        await s.fail(reader.apiKey, 'read', { path: removed.attachments[0].publicPath }, 'NOT_FOUND');
        await s.fail(reader.apiKey, 'read', { path: deleted.attachments[0].publicPath }, 'NOT_FOUND');
        await s.fail(reader.apiKey, 'list', { path: `/published/${author.slug}/.attachments` }, 'NOT_FOUND');
        await s.ok(mod.apiKey, 'moderate', { community: 'old', action: 'restore', target: removed.postId });
        assert.equal((await s.ok(reader.apiKey, 'read', { path: removed.attachments[0].publicPath })).content, 'attached\n');
      } finally {
        await s.close();
      }
    });
  });
}

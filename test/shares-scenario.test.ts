/**
 * The scenario through HTTP on both backends: alice shares a directory read-only with bob
 * and read-write with carol; carol edits a file in it (alice's history shows carol's version);
 * alice revokes carol, whose next edit is refused; bob copies a file into his tree (provenance
 * kept, alice notified); alice publishes a pinned version; dave, a stranger, reads it under
 * /published and fetches a link without a key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

interface Agent {
  key: string;
  slug: string;
}

for (const backend of backends()) {
  describe(`shares scenario (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
    });
    after(() => s.close());
    const agent = async (name: string): Promise<Agent> => {
      const r = await s.register(name);
      return { key: r.apiKey, slug: r.slug };
    };

    it('alice shares with bob (read) and carol (write); revoke, copy, publish, link', async () => {
      const [alice, bob, carol, dave] = [await agent('Sc Alice'), await agent('Sc Bob'), await agent('Sc Carol'), await agent('Sc Dave')];
      await s.ok(alice.key, 'write', { path: '/projects/x/readme.md', content: 'hello\nTODO: ship\n' });
      await s.ok(alice.key, 'write', { path: '/projects/x/src/a.ts', content: 'export const a = 1; // TODO\n' });
      await s.ok(alice.key, 'write', { path: '/private/secret.md', content: 'not for you' });

      const toBob = await s.ok(alice.key, 'share', { path: '/projects/x', with: bob.slug, permission: 'read', message: 'have a look' });
      assert.equal(toBob.updated, false);
      assert.equal(toBob.share.mountPath, `/shared/${alice.slug}/projects/x`);
      assert.equal(toBob.share.permission, 'read');
      assert.equal(toBob.share.status, 'active');
      assert.equal(toBob.share.trust, 'self');
      const toCarol = await s.ok(alice.key, 'share', { path: '/projects/x', with: carol.slug, permission: 'write' });
      const mount = `/shared/${alice.slug}/projects/x`;

      // bob sees the share: notification, incoming list, the mount's skeleton, the files.
      const notes = await s.ok(bob.key, 'list_notifications', {});
      const received = notes.items.find((n: any) => n.type === 'share_received');
      assert.ok(received, 'bob is notified');
      assert.equal(received.actor.slug, alice.slug);
      assert.equal(received.object.path, mount);
      const incoming = await s.ok(bob.key, 'list_shares', { direction: 'incoming' });
      assert.deepEqual(
        incoming.items.map((i: any) => [i.shareId, i.trust, i.message]),
        [[toBob.share.shareId, 'third_party', 'have a look']],
      );
      assert.deepEqual(
        (await s.ok(bob.key, 'list', { path: '/shared' })).entries.map((e: any) => e.path),
        [`/shared/${alice.slug}`],
      );
      assert.deepEqual(
        (await s.ok(bob.key, 'list', { path: `/shared/${alice.slug}` })).entries.map((e: any) => e.name),
        ['projects'],
      );
      assert.deepEqual(
        (await s.ok(bob.key, 'list', { path: mount })).entries.map((e: any) => e.path),
        [`${mount}/readme.md`, `${mount}/src`],
      );
      const read = await s.ok(bob.key, 'read', { path: `${mount}/readme.md` });
      assert.equal(read.content, 'hello\nTODO: ship\n');
      assert.equal(read.path, `${mount}/readme.md`);

      // Nothing outside the share: the same NOT_FOUND as a path that does not exist.
      const outside = await s.fail(bob.key, 'read', { path: `/shared/${alice.slug}/private/secret.md` }, 'NOT_FOUND');
      const nowhere = await s.fail(bob.key, 'read', { path: `/shared/${alice.slug}/private/none.md` }, 'NOT_FOUND');
      assert.equal(outside.message.replace('secret', 'X'), nowhere.message.replace('none', 'X'));
      await s.fail(bob.key, 'read', { path: `${mount}/../../private/secret.md` }, 'NOT_FOUND');
      // A read share refuses writes.
      const refused = await s.fail(bob.key, 'write', { path: `${mount}/new.md`, content: 'x' }, 'FORBIDDEN');
      assert.equal(refused.details.reason, 'read_only_share');
      await s.fail(bob.key, 'purge', { path: `${mount}/readme.md`, confirm: true }, 'FORBIDDEN');

      // bob explores the share with bash: ls, grep -rn, find, cat; writes are refused (read-only share).
      const ls = await s.ok(bob.key, 'bash', { command: 'ls /shared' });
      assert.equal(ls.stdout, `${alice.slug}\n`);
      const grep = await s.ok(bob.key, 'bash', { command: `grep -rn TODO /shared/${alice.slug}` });
      assert.equal(grep.stdout, `${mount}/readme.md:2:TODO: ship\n${mount}/src/a.ts:1:export const a = 1; // TODO\n`);
      const find = await s.ok(bob.key, 'bash', { command: 'find /shared -type f' });
      assert.equal(find.stdout, `${mount}/readme.md\n${mount}/src/a.ts\n`);
      assert.equal((await s.ok(bob.key, 'bash', { command: `cat ${mount}/readme.md` })).stdout, 'hello\nTODO: ship\n');
      assert.equal((await s.ok(bob.key, 'bash', { command: 'cat readme.md', cwd: mount })).stdout, 'hello\nTODO: ship\n');
      const roWrite = await s.ok(bob.key, 'bash', { command: `echo x > ${mount}/new.md` });
      assert.notEqual(roWrite.exitCode, 0);
      assert.match(roWrite.stderr, /Read-only file system/i);
      assert.deepEqual(roWrite.changedPaths, []);
      const hidden = await s.ok(bob.key, 'bash', { command: `cat /shared/${alice.slug}/private/secret.md; ls /shared/${alice.slug}` });
      assert.match(hidden.stderr, /No such file or directory/);
      assert.equal(hidden.stdout, 'projects\n');

      // carol changes the share with bash: sed -i and a new file, one changeset in alice's tree.
      const sed = await s.ok(carol.key, 'bash', { command: `sed -i 's/hello/hello there/' ${mount}/readme.md && echo note > ${mount}/carol.md` });
      assert.equal(sed.exitCode, 0, sed.stderr);
      assert.deepEqual(
        sed.changedPaths.map((c: any) => c.path),
        [`${mount}/carol.md`, `${mount}/readme.md`],
      );
      assert.equal(sed.changesets.length, 1);
      assert.equal(sed.changesets[0].owner, alice.slug);
      assert.equal(sed.changesetId, null, 'nothing changed in carol’s own tree');
      assert.equal((await s.ok(alice.key, 'read', { path: '/projects/x/readme.md' })).content, 'hello there\nTODO: ship\n');
      assert.equal((await s.ok(alice.key, 'read', { path: '/projects/x/carol.md' })).content, 'note\n');
      // The shared directory itself stays alice's to remove or move (file tools and bash).
      const rootDelete = await s.fail(carol.key, 'delete', { path: mount, recursive: true }, 'FORBIDDEN');
      assert.equal(rootDelete.details.reason, 'share_root');
      const rootRm = await s.ok(carol.key, 'bash', { command: `rm -rf ${mount}` });
      assert.match(rootRm.stderr, /Operation not permitted/i);
      assert.deepEqual(rootRm.changedPaths, []);
      await s.ok(alice.key, 'delete', { path: '/projects/x/carol.md' });
      await s.ok(alice.key, 'write', { path: '/projects/x/readme.md', content: 'hello\nTODO: ship\n' });

      // carol edits through the mount: a version in alice's history, attributed to carol.
      const edited = await s.ok(carol.key, 'edit', {
        path: `${mount}/readme.md`,
        old_string: 'TODO: ship',
        new_string: 'DONE: shipped',
        expectedVersion: 3,
      });
      assert.equal(edited.path, `${mount}/readme.md`);
      assert.equal(edited.version, 4);
      await s.fail(carol.key, 'edit', { path: `${mount}/readme.md`, old_string: 'hello', new_string: 'hi', expectedVersion: 3 }, 'EDIT_CONFLICT');
      const versions = await s.ok(alice.key, 'list_versions', { path: '/projects/x/readme.md' });
      assert.equal(versions.versions[0].version, 4);
      assert.match(versions.versions[0].by.label, new RegExp(`^@${carol.slug}/`));
      // by names carol (her slug, her key's id) as another agent; alice's own versions stay { keyId, label }.
      const [carolKey, aliceKey] = [(await s.ok(carol.key, 'get_key_info', {})).keyId, (await s.ok(alice.key, 'get_key_info', {})).keyId];
      assert.deepEqual(versions.versions[0].by, { keyId: carolKey, label: `@${carol.slug}/default`, slug: carol.slug });
      assert.deepEqual(versions.versions[1].by, { keyId: aliceKey, label: 'default' });
      assert.deepEqual((await s.ok(alice.key, 'stat', { path: '/projects/x/readme.md' })).updatedBy, versions.versions[0].by);
      assert.deepEqual((await s.ok(alice.key, 'stat', { path: '/projects/x/readme.md', version: 3 })).updatedBy, versions.versions[1].by);
      // bob, reading alice's history through his share, sees the agents, never their keys.
      assert.deepEqual(
        (await s.ok(bob.key, 'list_versions', { path: `${mount}/readme.md`, limit: 2 })).versions.map((v: any) => v.by),
        [
          { keyId: null, label: null, slug: carol.slug },
          { keyId: null, label: null, slug: alice.slug },
        ],
      );
      const changes = await s.ok(alice.key, 'list_changes', {});
      assert.ok(
        changes.changesets.some((c: any) => c.by.label?.startsWith(`@${carol.slug}/`)),
        "alice's list_changes shows carol's change",
      );
      assert.equal((await s.ok(alice.key, 'read', { path: '/projects/x/readme.md' })).content, 'hello\nDONE: shipped\n');

      // alice revokes carol: carol's next edit is refused, the mount is gone.
      assert.deepEqual(await s.ok(alice.key, 'revoke_share', { shareId: toCarol.share.shareId }), {
        success: true,
        shareId: toCarol.share.shareId,
        revoked: true,
      });
      await s.fail(carol.key, 'edit', { path: `${mount}/readme.md`, old_string: 'hello', new_string: 'hi' }, 'NOT_FOUND');
      await s.fail(alice.key, 'revoke_share', { shareId: toCarol.share.shareId }, 'GONE');
      const carolNotes = await s.ok(carol.key, 'list_notifications', {});
      assert.ok(carolNotes.items.some((n: any) => n.type === 'share_revoked'));

      // bob copies a file into his own tree: a fork with provenance; alice is notified.
      const copied = await s.ok(bob.key, 'copy', { from: `${mount}/readme.md`, to: '/mine/readme.md' });
      assert.equal(copied.from, `${mount}/readme.md`);
      assert.equal(copied.to, '/mine/readme.md');
      assert.deepEqual(copied.copiedFrom, { slug: alice.slug, path: '/projects/x/readme.md', version: 4 });
      assert.deepEqual((await s.ok(bob.key, 'stat', { path: '/mine/readme.md' })).copiedFrom, copied.copiedFrom);
      assert.equal((await s.ok(bob.key, 'read', { path: '/mine/readme.md' })).content, 'hello\nDONE: shipped\n');
      const aliceNotes = await s.ok(alice.key, 'list_notifications', {});
      const copiedNote = aliceNotes.items.find((n: any) => n.type === 'copied');
      assert.ok(copiedNote, 'alice is notified of the copy');
      assert.equal(copiedNote.actor.slug, bob.slug);

      // alice publishes a pinned version, then changes the file: dave reads the pinned one.
      const pub = await s.ok(alice.key, 'publish', { path: '/projects/x/readme.md', title: 'Readme', tags: ['docs'] });
      assert.equal(pub.published.version, 4);
      assert.equal(pub.published.publicPath, `/published/${alice.slug}/projects/x/readme.md`);
      await s.ok(alice.key, 'write', { path: '/projects/x/readme.md', content: 'draft, unpublished' });
      const pubRead = await s.ok(dave.key, 'read', { path: pub.published.publicPath });
      assert.equal(pubRead.content, 'hello\nDONE: shipped\n');
      await s.fail(dave.key, 'write', { path: pub.published.publicPath, content: 'x' }, 'FORBIDDEN');
      await s.fail(dave.key, 'read', { path: `/published/${alice.slug}/private/secret.md` }, 'NOT_FOUND');
      assert.equal((await s.ok(dave.key, 'bash', { command: `cat ${pub.published.publicPath}` })).stdout, 'hello\nDONE: shipped\n');
      const browse = await s.ok(dave.key, 'browse_published', { author: alice.slug });
      assert.deepEqual(
        browse.items.map((i: any) => [i.publishedId, i.title, i.version, i.trust]),
        [[pub.published.publishedId, 'Readme', 4, 'third_party']],
      );

      const profile = await s.ok(dave.key, 'get_agent', { slug: alice.slug });
      assert.deepEqual(
        profile.recentPublished.map((i: any) => [i.publishedId, i.publicPath]),
        [[pub.published.publishedId, pub.published.publicPath]],
      );
      // A follower sees it in its feed and get_home, with the call to read it.
      await s.ok(dave.key, 'follow', { slug: alice.slug });
      const feed = await s.ok(dave.key, 'get_feed', {});
      assert.ok(feed.items.some((i: any) => i.kind === 'published' && i.object.id === pub.published.publishedId));
      const home = await s.ok(dave.key, 'get_home', {});
      assert.ok(
        home.whatToDoNext.some((step: string) => step.includes(`read {"path": "${pub.published.publicPath}"}`)),
        home.whatToDoNext.join('\n'),
      );
      assert.deepEqual(
        (await s.ok(dave.key, 'list', { path: '/published' })).entries.map((e: any) => e.name),
        [alice.slug],
      );

      // A link, fetched without a key.
      const link = await s.ok(alice.key, 'create_link', { path: '/projects/x/src/a.ts' });
      const url = new URL(link.link.url);
      const got = await s.raw(url.pathname, { method: 'GET' });
      assert.equal(got.status, 200);
      assert.equal(got.text, 'export const a = 1; // TODO\n');
      assert.equal(got.headers.get('cache-control'), 'private');
      assert.equal(got.headers.get('x-robots-tag'), 'noindex');
      await s.ok(alice.key, 'revoke_share', { shareId: link.link.shareId });
      assert.equal((await s.raw(url.pathname, { method: 'GET' })).status, 410);

      // unpublish: gone from /published and browse at once.
      await s.ok(alice.key, 'unpublish', { publishedId: pub.published.publishedId });
      await s.fail(dave.key, 'read', { path: pub.published.publicPath }, 'NOT_FOUND');
      assert.deepEqual((await s.ok(dave.key, 'browse_published', { author: alice.slug })).items, []);
      assert.deepEqual((await s.ok(dave.key, 'get_agent', { slug: alice.slug })).recentPublished, []);
      assert.ok(!(await s.ok(dave.key, 'get_feed', {})).items.some((i: any) => i.kind === 'published'), 'the feed item is withdrawn');
    });
  });
}

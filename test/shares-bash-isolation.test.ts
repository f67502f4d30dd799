/**
 * bash over the mounts leaks nothing (security): for 60 commands, what an agent sees of
 * `/shared/{owner}/…` where nothing is shared with it is exactly what it sees of an owner that
 * does not exist; and where a share exists, the owner's paths outside it answer exactly like
 * paths that never existed. Nothing of the owner's other files (contents, names) ever appears,
 * and no command changes the owner's tree.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

/** Commands over a directory P that holds (for the owner) secret.md, data.json and sub/deep.md. */
const COMMANDS = [
  'ls P',
  'ls -la P',
  'ls -R P',
  'ls -d P/*',
  'echo P/*',
  'ls P/*.md',
  'cat P/secret.md',
  'head -n 1 P/secret.md',
  'tail -n 1 P/secret.md',
  'wc -l P/secret.md',
  'wc -c P/secret.md',
  'grep -r BZQ P',
  'grep -rn BZQ P',
  'grep -rl BZQ P',
  'grep -c BZQ P/secret.md',
  'grep -rn BZQ /shared',
  'find P',
  'find P -name "*.md"',
  'find P -type f',
  'find /shared -type f',
  'find /shared',
  'du -s P',
  'du -a P',
  'du -sh /shared',
  'stat P',
  'stat P/secret.md',
  'test -e P/secret.md && echo yes || echo no',
  'test -d P && echo dir || echo nodir',
  '[ -f P/sub/deep.md ] && echo f || echo nof',
  'cd P && pwd',
  'cd P/sub && ls',
  'file P/secret.md',
  'md5sum P/secret.md',
  'sha256sum P/secret.md',
  'sort P/secret.md',
  'uniq P/secret.md',
  'cut -c1-3 P/secret.md',
  "awk '{print NR}' P/secret.md",
  'sed -n 1p P/secret.md',
  'od -c P/secret.md',
  'base64 P/secret.md',
  'jq . P/data.json',
  'realpath P/secret.md',
  'tree P',
  'diff P/secret.md /dev/null',
  'cat P/../secret.md',
  'ls P/..',
  'cp P/secret.md /stolen.md',
  'cp -r P /stolen',
  'mv P/secret.md P/moved.md',
  'rm P/secret.md',
  'rm -rf P',
  'mkdir P/newdir',
  'touch P/new.md',
  'echo x > P/new.md',
  'echo x >> P/secret.md',
  'sed -i s/BZQ/X/ P/secret.md',
  'tee P/t.md < /dev/null',
  'printf "%s\\n" P/sub/deep.md | xargs cat',
  'ls /shared; ls /published',
];

for (const backend of backends()) {
  describe(`bash over /shared leaks nothing (${backend})`, () => {
    let s: TestServer;
    let owner: { apiKey: string; slug: string };
    let stranger: { apiKey: string; slug: string };
    let reader: { apiKey: string; slug: string };
    let snapshot: string;
    const ownerTree = async () =>
      JSON.stringify((await s.ok(owner.apiKey, 'list', { path: '/', recursive: true })).entries.map((e: any) => [e.path, e.version, e.size]));
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
      owner = await s.register('Bzq Owner');
      stranger = await s.register('Stranger');
      reader = await s.register('Reader');
      // The same names in both; the unshared one's contents carry PRIV (never to be seen).
      for (const [dir, tag] of [
        ['/bzqpriv', 'PRIV'],
        ['/open', 'OPEN'],
      ]) {
        await s.ok(owner.apiKey, 'write', { path: `${dir}/secret.md`, content: `BZQ ${tag} secret line\nsecond BZQ\n` });
        await s.ok(owner.apiKey, 'write', { path: `${dir}/data.json`, content: `{"bzq": "${tag}"}\n` });
        await s.ok(owner.apiKey, 'write', { path: `${dir}/sub/deep.md`, content: `deep BZQ ${tag}\n` });
      }
      await s.ok(owner.apiKey, 'share', { path: '/open', with: reader.slug, permission: 'read' });
      snapshot = await ownerTree();
    });
    after(() => s.close());

    /** A command's answer as a client sees it, with the names that differ by construction unified. */
    const run = async (key: string, command: string, names: Array<[string, string]>) => {
      const r = await s.call(key, 'bash', { command });
      let text = JSON.stringify(r.inner);
      for (const [from, to] of names) text = text.replaceAll(from, to);
      const v = JSON.parse(text);
      if (v.success) return { stdout: v.stdout, stderr: v.stderr, exitCode: v.exitCode, changed: v.changedPaths };
      return { error: v.error?.code, message: v.error?.message };
    };

    it('a stranger: /shared/{owner}/… answers as /shared/{nobody}/… for 60 commands', async () => {
      const nobody = 'nobody-zz';
      for (const template of COMMANDS) {
        for (const dir of ['/bzqpriv', '/open']) {
          const real = template.replaceAll('P', `/shared/${owner.slug}${dir}`);
          const twin = template.replaceAll('P', `/shared/${nobody}${dir}`);
          const a = await run(stranger.apiKey, real, [[owner.slug, 'SLUG']]);
          const b = await run(stranger.apiKey, twin, [[nobody, 'SLUG']]);
          assert.deepEqual(a, b, real);
          assert.ok(!/PRIV|OPEN/.test(JSON.stringify(a)), `${real}: content leaked`);
        }
      }
    });

    it('a reader of /open: the owner’s other paths answer as paths that never existed', async () => {
      for (const template of COMMANDS) {
        const real = template.replaceAll('P', `/shared/${owner.slug}/bzqpriv`);
        const twin = template.replaceAll('P', `/shared/${owner.slug}/kwvpriv`);
        const a = await run(reader.apiKey, real, [['bzqpriv', 'DIR']]);
        const b = await run(reader.apiKey, twin, [['kwvpriv', 'DIR']]);
        assert.deepEqual(a, b, real);
        assert.ok(!JSON.stringify(a).includes('PRIV'), `${real}: content leaked`);
      }
    });

    it('the share itself reads, refuses every change (read-only), and the owner’s tree never changed', async () => {
      const p = `/shared/${owner.slug}/open`;
      assert.equal((await s.ok(reader.apiKey, 'bash', { command: `cat ${p}/secret.md` })).stdout, 'BZQ OPEN secret line\nsecond BZQ\n');
      assert.equal(
        (await s.ok(reader.apiKey, 'bash', { command: `grep -rn BZQ ${p}` })).stdout,
        `${p}/secret.md:1:BZQ OPEN secret line\n${p}/secret.md:2:second BZQ\n${p}/sub/deep.md:1:deep BZQ OPEN\n`,
      );
      for (const template of COMMANDS.filter((c) => /^(mv|rm|mkdir|touch|echo x|sed -i|tee)/.test(c))) {
        const r = await s.ok(reader.apiKey, 'bash', { command: template.replaceAll('P', p) });
        assert.notEqual(r.exitCode, 0, template);
        assert.deepEqual(r.changedPaths, [], template);
        assert.match(r.stderr, /Read-only file system|Permission denied|No such file/, template);
      }
      assert.equal(await ownerTree(), snapshot);
    });
  });
}

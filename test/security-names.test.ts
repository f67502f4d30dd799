/**
 * Names and the reserved /dev, through HTTP on both backends. One rule
 * (core/identifier.ts) for client text that becomes an identifier or is shown to others: agent
 * names, key labels, idempotency keys and the names of new files. Refused with the offending
 * code point: unpaired surrogates, bidi controls, invisible characters. Ordinary Unicode
 * (accents, CJK, emoji with joiners, Arabic, Hebrew, Persian with ZWNJ) is stored exactly.
 * Files that already exist under such names, or under /dev, stay readable, deletable, movable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../src/core/keys.js';
import { contentHash, countLines } from '../src/core/text.js';
import type { PlannedChange } from '../src/store/types.js';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

/** Names people write: all of them must work everywhere. */
const ORDINARY = ['Zoë Müller', '日本語のエージェント', 'مرحبا بالعالم', 'שלום עולם', 'می‌خواهم', 'क्‍ष-agent', '👩‍💻 coder', '❤️‍🔥 🏳️‍🌈', 'Ünïcödé ✓'];

/** [text, the code point the answer must name] */
const HOSTILE: Array<[string, string]> = [
  ['\u202E', 'U+202E'],
  ['abc\u202Etxt.exe', 'U+202E'],
  ['\u200B\u200B', 'U+200B'],
  ['\u200D', 'U+200D'],
  ['ad\u200Bmin', 'U+200B'],
  ['a\u200Db', 'U+200D'],
  ['x\uD800y', 'U+D800'],
  ['\uDC00', 'U+DC00'],
  ['\u2066isolate\u2069', 'U+2066'],
  ['na\uFEFFme', 'U+FEFF'],
  ['two\u2028lines', 'U+2028'],
  ['\u3164', 'U+3164'],
];

async function plant(s: TestServer, key: string, files: Array<[string, 'dir' | 'file', string?]>): Promise<void> {
  const info = await s.ok(key, 'get_key_info');
  const changes: PlannedChange[] = files.map(([path, kind, content]) => {
    if (kind === 'dir') return { path, expectVersion: 0, op: 'create', state: { kind: 'dir', fileId: newId('f') } };
    const bytes = Buffer.from(content ?? '', 'utf8');
    return {
      path,
      expectVersion: 0,
      op: 'create',
      state: { kind: 'file', blob: { hash: contentHash(bytes), size: bytes.length, bytes }, lines: countLines(content ?? ''), fileId: newId('f') },
    };
  });
  // As a server before these rules would have stored them.
  await s.store.commit({ agentId: info.agent.id, keyId: info.keyId, keyLabel: 'legacy', tool: 'write', changes, quotaBytes: 1e12 });
}

for (const backend of backends()) {
  describe(`identifier text: names, labels, idempotency keys (${backend})`, () => {
    let s: TestServer;
    let key: string;
    before(async () => {
      s = await startServer(backend, { RATE_LIMIT_PER_MINUTE: '1000000', REGISTRATIONS_PER_IP_PER_HOUR: '0' });
      key = (await s.register('Namer')).apiKey;
    });
    after(() => s.close());

    it('registration refuses hostile names with 400 INVALID_INPUT naming the code point', async () => {
      for (const [name, cp] of HOSTILE) {
        const r = await s.raw('/api/users/register', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name }),
        });
        assert.equal(r.status, 400, `${JSON.stringify(name)}: ${r.status} ${JSON.stringify(r.body)}`);
        assert.equal(r.inner.error.code, 'INVALID_INPUT');
        assert.ok(r.inner.error.message.includes(cp), `${JSON.stringify(name)}: ${r.inner.error.message}`);
        assert.equal(r.inner.error.details.codePoint, cp);
      }
    });

    it('registration keeps ordinary Unicode names exactly, as stored and as echoed', async () => {
      for (const name of ORDINARY) {
        const reg = await s.register(name);
        assert.equal(reg.name, name);
        assert.equal((await s.ok(reg.apiKey, 'get_key_info')).agent.name, name, 'the stored name is the echoed one');
      }
    });

    it('create_key labels follow the same rule; ordinary labels round-trip through list_keys', async () => {
      for (const [label, cp] of HOSTILE) {
        const err = await s.fail(key, 'create_key', { label, preset: 'files-read' }, 'INVALID_INPUT');
        assert.equal(err.details.field, 'label');
        assert.equal(err.details.codePoint, cp, JSON.stringify(label));
      }
      for (const label of ORDINARY) {
        const made = await s.ok(key, 'create_key', { label, preset: 'files-read' });
        assert.equal(made.label, label);
        const listed = (await s.ok(key, 'list_keys')).keys.find((k: any) => k.keyId === made.keyId);
        assert.equal(listed.label, label, 'stored exactly');
        await s.ok(key, 'revoke_key', { keyId: made.keyId });
      }
    });

    it('idempotency keys follow the same rule; ordinary ones replay', async () => {
      for (const [idem, cp] of HOSTILE) {
        const err = await s.fail(key, 'write', { path: '/i.txt', content: 'x', idempotencyKey: idem }, 'INVALID_INPUT');
        assert.equal(err.details.field, 'idempotencyKey');
        assert.equal(err.details.codePoint, cp, JSON.stringify(idem));
      }
      for (const [n, idem] of ORDINARY.entries()) {
        const input = { path: `/idem/${n}.txt`, content: `${n}\n`, idempotencyKey: idem };
        const first = await s.ok(key, 'write', input);
        const again = await s.ok(key, 'write', input);
        assert.equal(again.replayed, true, idem);
        assert.equal(again.changesetId, first.changesetId);
      }
    });
  });

  describe(`new file names and the reserved /dev (${backend})`, () => {
    let s: TestServer;
    let key: string;
    before(async () => {
      s = await startServer(backend, { RATE_LIMIT_PER_MINUTE: '1000000' });
      key = (await s.register('Files')).apiKey;
      await s.ok(key, 'write', { path: '/src.txt', content: 'source\n' });
      await s.ok(key, 'mkdir', { path: '/n' });
    });
    after(() => s.close());

    it('every tool that creates refuses invisible and bidi characters in a new name (INVALID_PATH, reason, code point)', async () => {
      for (const [name, cp] of HOSTILE) {
        if (/[\uD800-\uDFFF]/.test(name)) continue; // not Unicode: refused for every path (security-paths)
        const p = `/n/${name}.txt`;
        const attempts: Array<[string, Record<string, unknown>]> = [
          ['write', { path: p, content: 'x' }],
          ['append', { path: p, content: 'x' }],
          ['mkdir', { path: p }],
          ['copy', { from: '/src.txt', to: p }],
          ['move', { from: '/src.txt', to: p }],
        ];
        for (const [tool, input] of attempts) {
          const err = await s.fail(key, tool, input, 'INVALID_PATH');
          assert.equal(err.details.codePoint, cp, `${tool} ${JSON.stringify(name)}`);
          assert.match(err.details.reason, /^contains /);
          assert.ok(err.message.includes(cp));
        }
        const sh = await s.ok(key, 'bash', { command: `touch '/n/${name}'` });
        assert.equal(sh.exitCode, 1, `bash touch ${JSON.stringify(name)}: ${JSON.stringify(sh)}`);
      }
      assert.deepEqual((await s.ok(key, 'list', { path: '/n' })).entries, [], 'nothing was created');
    });

    it('ordinary Unicode names work with every tool and list exactly', async () => {
      for (const [n, name] of ORDINARY.entries()) {
        const p = `/u/${name}/${n}.md`;
        assert.equal((await s.ok(key, 'write', { path: p, content: `${n}\n` })).path, p);
        assert.equal((await s.ok(key, 'copy', { from: p, to: `${p}.bak` })).to, `${p}.bak`);
        assert.equal((await s.ok(key, 'bash', { command: `cat '${p}.bak'` })).stdout, `${n}\n`);
      }
      const listed = (await s.ok(key, 'list', { path: '/u' })).entries.map((e: any) => e.name).sort();
      assert.deepEqual(listed, [...ORDINARY].sort());
    });

    it('existing files with such names stay readable, deletable and movable to a valid name; writing them is refused', async () => {
      await plant(s, key, [
        ['/old\u200Bname.txt', 'file', 'legacy\n'],
        ['/rlo\u202Etxt.exe', 'file', 'legacy 2\n'],
      ]);
      assert.equal((await s.ok(key, 'read', { path: '/old\u200Bname.txt' })).content, 'legacy\n');
      await s.fail(key, 'write', { path: '/old\u200Bname.txt', content: 'more' }, 'INVALID_PATH');
      assert.equal((await s.ok(key, 'move', { from: '/old\u200Bname.txt', to: '/oldname.txt' })).to, '/oldname.txt');
      assert.equal((await s.ok(key, 'read', { path: '/oldname.txt' })).content, 'legacy\n');
      await s.ok(key, 'delete', { path: '/rlo\u202Etxt.exe' });
      // Bringing it back is creating it again.
      await s.fail(key, 'restore', { path: '/rlo\u202Etxt.exe', version: 1 }, 'INVALID_PATH');
    });

    it('/dev is reserved: write, mkdir, append, copy/move into it and bash are refused; > /dev/null stays a device', async () => {
      const refused: Array<[string, Record<string, unknown>]> = [
        ['write', { path: '/dev/null', content: 'hidden' }],
        ['write', { path: '/dev/notes.txt', content: 'x' }],
        ['mkdir', { path: '/dev' }],
        ['mkdir', { path: '/dev/sub' }],
        ['append', { path: '/dev/stdout', content: 'x' }],
        ['copy', { from: '/src.txt', to: '/dev/null' }],
        ['move', { from: '/src.txt', to: '/dev/src.txt' }],
      ];
      for (const [tool, input] of refused) {
        const err = await s.fail(key, tool, input, 'INVALID_PATH');
        assert.equal(err.details.reason, 'reserved', `${tool} ${JSON.stringify(input)}`);
        assert.equal(err.details.reserved, '/dev');
        assert.match(err.message, /reserved for bash's devices/);
      }
      for (const command of ['touch /dev/x', 'mkdir /dev/d', 'cp /src.txt /dev/copy']) {
        const r = await s.ok(key, 'bash', { command });
        assert.notEqual(r.exitCode, 0, `${command}: ${JSON.stringify(r)}`);
        assert.match(r.stderr, /read-only/i, command);
      }
      const dn = await s.ok(key, 'bash', { command: 'echo gone > /dev/null && cat /dev/null && echo ok' });
      assert.deepEqual([dn.stdout, dn.exitCode, dn.changedPaths], ['ok\n', 0, []]);
      await s.fail(key, 'stat', { path: '/dev' }, 'NOT_FOUND');
    });

    it('files an agent already has under /dev stay readable, deletable and movable out; restoring or reverting into /dev is refused', async () => {
      const k = (await s.register('Dev Owner')).apiKey;
      await plant(s, k, [
        ['/dev', 'dir'],
        ['/dev/null', 'file', 'old null\n'],
        ['/dev/keep.txt', 'file', 'keep\n'],
      ]);
      assert.equal((await s.ok(k, 'read', { path: '/dev/null' })).content, 'old null\n');
      assert.deepEqual(
        (await s.ok(k, 'list', { path: '/dev' })).entries.map((e: any) => e.name),
        ['keep.txt', 'null'],
      );
      await s.fail(k, 'write', { path: '/dev/keep.txt', content: 'changed\n' }, 'INVALID_PATH');
      const moved = await s.ok(k, 'move', { from: '/dev/keep.txt', to: '/kept.txt' });
      assert.equal((await s.ok(k, 'read', { path: '/kept.txt' })).content, 'keep\n');
      const del = await s.ok(k, 'delete', { path: '/dev/null' });
      await s.fail(k, 'restore', { path: '/dev/null', version: 1 }, 'INVALID_PATH');
      for (const cs of [moved.changesetId, del.changesetId]) {
        const err = await s.fail(k, 'revert_changeset', { changesetId: cs }, 'INVALID_PATH');
        assert.equal(err.details.reserved, '/dev');
      }
      await s.ok(k, 'delete', { path: '/dev' });
    });
  });
}

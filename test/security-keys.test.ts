/**
 * The key-bound security findings, through HTTP on both backends:
 * - idempotencyKey replays belong to the API key that made the call (4 a, b, c);
 * - purge needs the agent's full-access key: every scope, no folder, no expiry (9);
 * - a key rotated out (in its grace period) can only read (10);
 * - scope names such as '__proto__' are INVALID_INPUT, not a 500 (11), and bash options
 *   looked up in tables answer like GNU for such names;
 * - expiresAt must be a real calendar instant at most ten years ahead (13).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const YEAR_MS = 365 * 86400_000;

for (const backend of backends()) {
  describe(`idempotency keys belong to the API key (${backend})`, () => {
    let s: TestServer;
    let agentId: string;
    let full: string;
    before(async () => {
      s = await startServer(backend, { RATE_LIMIT_PER_MINUTE: '1000000' });
      const a = await s.register('Idem Owner');
      agentId = a.id;
      full = a.apiKey;
      await s.ok(full, 'write', { path: '/secret/pw.txt', content: 'hunter2\n' });
      await s.ok(full, 'mkdir', { path: '/proj' });
    });
    after(() => s.close());

    it("(a) a read-only folder key sending the full key's request runs it itself: no replay of the secret", async () => {
      const input = { command: 'cat /secret/pw.txt', idempotencyKey: 'read-1' };
      const first = await s.ok(full, 'bash', input);
      assert.equal(first.stdout, 'hunter2\n');
      const reader = await s.addKey(agentId, { scopes: ['files:read', 'search'], folder: '/proj', label: 'proj reader' });
      const r = await s.ok(reader, 'bash', input);
      assert.equal(r.replayed, undefined, 'not a replay');
      assert.doesNotMatch(r.stdout + r.stderr, /hunter2/);
      assert.notEqual(r.exitCode, 0, 'the folder key cannot see /secret');
      // The full key's own retry still replays.
      const again = await s.ok(full, 'bash', input);
      assert.equal(again.replayed, true);
      assert.equal(again.stdout, 'hunter2\n');
    });

    it("(b) a read-only key using job-42 first does not stop the full key's job-42 from writing", async () => {
      const reader = await s.addKey(agentId, { scopes: ['files:read'], label: 'reader' });
      const input = { command: 'echo made > /proj/out.txt', idempotencyKey: 'job-42' };
      const denied = await s.ok(reader, 'bash', input);
      assert.notEqual(denied.exitCode, 0);
      assert.match(denied.stderr, /read-only|Permission denied/i);
      const r = await s.ok(full, 'bash', input);
      assert.equal(r.replayed, undefined, "the full key's call ran");
      assert.equal(r.exitCode, 0);
      assert.equal((await s.ok(full, 'read', { path: '/proj/out.txt' })).content, 'made\n');
    });

    it('(c) a read-only key writes no idempotency rows: its key is checked, then ignored', async () => {
      const reader = await s.addKey(agentId, { scopes: ['files:read'], label: 'reader c' });
      const readerId = (await s.ok(reader, 'get_key_info')).keyId as string;
      const one = await s.ok(reader, 'bash', { command: 'echo one', idempotencyKey: 'ro-1' });
      assert.equal(one.stdout, 'one\n');
      // Same key, other input: runs (nothing was remembered), no "already used".
      const two = await s.ok(reader, 'bash', { command: 'echo two', idempotencyKey: 'ro-1' });
      assert.equal(two.stdout, 'two\n');
      const three = await s.ok(reader, 'bash', { command: 'echo two', idempotencyKey: 'ro-1' });
      assert.equal(three.replayed, undefined);
      // The full key's ro-1 is its own.
      assert.equal((await s.ok(full, 'bash', { command: 'echo mine', idempotencyKey: 'ro-1' })).stdout, 'mine\n');
      for (const k of ['ro-1', `${readerId}/ro-1`]) assert.equal(await s.store.getIdempotent(agentId, k), null, k);
      // Still validated like any idempotencyKey.
      await s.fail(reader, 'bash', { command: 'echo x', idempotencyKey: '' }, 'INVALID_INPUT');
    });

    it('a call refused for its folder stores nothing: the same idempotencyKey then runs a valid call', async () => {
      const writer = await s.addKey(agentId, { scopes: ['files'], folder: '/proj', label: 'proj writer' });
      await s.fail(writer, 'write', { path: '/elsewhere.txt', content: 'x', idempotencyKey: 'w-1' }, 'OUTSIDE_KEY_FOLDER');
      const r = await s.ok(writer, 'write', { path: '/proj/w.txt', content: 'in\n', idempotencyKey: 'w-1' });
      assert.equal(r.replayed, undefined);
      assert.equal(r.version, 1);
    });

    it('rotation: the rotated-out key cannot retry a write (it only reads); its replacement starts with no idempotencyKeys', async () => {
      const old = (await s.ok(full, 'create_key', { label: 'rotating', preset: 'files' })).apiKey as string;
      const input = { path: '/proj/rot.txt', content: 'v1\n', idempotencyKey: 'rot-1' };
      assert.equal((await s.ok(old, 'write', input)).version, 1);
      const next = (await s.ok(old, 'rotate_key', { gracePeriodSeconds: 600 })).apiKey as string;
      const err = await s.fail(old, 'write', input, 'INSUFFICIENT_SCOPE');
      assert.match(err.message, /rotated out/);
      const r = await s.ok(next, 'write', input);
      assert.equal(r.replayed, undefined);
      assert.equal(r.unchanged, true, 'same content: nothing applied twice');
    });
  });

  describe(`purge, rotation grace, scope names, expiry dates (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, { RATE_LIMIT_PER_MINUTE: '1000000' });
    });
    after(() => s.close());

    it('purge needs the full-access key: preset full with a folder or an expiry is refused (REST and tools/list)', async () => {
      const a = await s.register('Purger');
      await s.ok(a.apiKey, 'write', { path: '/p/leak.txt', content: 'secret\n' });
      const withFolder = (await s.ok(a.apiKey, 'create_key', { label: 'full in /p', preset: 'full', folder: '/p' })).apiKey;
      const expiring = (await s.ok(a.apiKey, 'create_key', { label: 'full 1h', preset: 'full', expiresIn: 3600 })).apiKey;
      for (const [key, why] of [
        [withFolder, /restricted to \/p/],
        [expiring, /expires at/],
      ] as const) {
        assert.equal((await s.ok(key, 'get_key_info')).fullAccess, false);
        const err = await s.fail(key, 'purge', { path: '/p/leak.txt', confirm: true }, 'INSUFFICIENT_SCOPE');
        assert.match(err.message, /full-access key/);
        assert.match(err.message, why);
        assert.equal(err.details.required.fullAccess, true);
        const mcp = new McpClient({ name: 't', version: '1' });
        await mcp.connect(
          new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
        );
        const names = (await mcp.listTools()).tools.map((t) => t.name);
        await mcp.close();
        assert.ok(names.includes('write') && !names.includes('purge'), 'tools/list leaves purge out');
      }
      assert.equal((await s.ok(a.apiKey, 'read', { path: '/p/leak.txt' })).content, 'secret\n', 'nothing was purged');
      const done = await s.ok(a.apiKey, 'purge', { path: '/p/leak.txt', confirm: true });
      assert.ok(done.versionsRemoved >= 1);
    });

    it('a key in its rotation grace period only reads: it cannot rotate itself into a fresh full key, mint, write or purge', async () => {
      const a = await s.register('Rotator');
      await s.ok(a.apiKey, 'write', { path: '/r.txt', content: 'r\n' });
      const rotated = await s.ok(a.apiKey, 'rotate_key', { gracePeriodSeconds: 600 });
      const old = a.apiKey;
      const info = await s.ok(old, 'get_key_info');
      assert.equal(info.revokedAt, rotated.replaced.revokedAt);
      // Its read scopes (and search, a reading scope), of those some tool needs (get_key_info shows no scope without a tool).
      assert.deepEqual(info.scopes, ['files:read', 'shares:read', 'community:read', 'social:read', 'search', 'agents:read']);
      assert.equal(info.readOnly, true);
      assert.equal(info.fullAccess, false);
      // The finding: rotate_key on itself minted a non-expiring full key.
      const again = await s.fail(old, 'rotate_key', {}, 'INVALID_INPUT');
      assert.match(again.message, /already rotated out/);
      await s.fail(old, 'create_key', { label: 'escape', preset: 'full' }, 'INSUFFICIENT_SCOPE');
      await s.fail(old, 'write', { path: '/r.txt', content: 'w\n' }, 'INSUFFICIENT_SCOPE');
      await s.fail(old, 'purge', { path: '/r.txt', confirm: true }, 'INSUFFICIENT_SCOPE');
      const sh = await s.ok(old, 'bash', { command: 'cat /r.txt; echo x > /r2.txt' });
      assert.equal(sh.stdout, 'r\n');
      assert.equal(sh.stderr, 'bash: /r2.txt: Permission denied (this key lacks files:write)\n');
      // Nobody can rotate it a second time (its replacement exists), not even the new full key.
      const byNew = await s.fail(rotated.apiKey, 'rotate_key', { keyId: info.keyId }, 'INVALID_INPUT');
      assert.match(byNew.message, /replacement/);
      const keys = (await s.ok(rotated.apiKey, 'list_keys')).keys;
      assert.equal(keys.length, 2, 'exactly one replacement was minted');
      assert.equal((await s.ok(rotated.apiKey, 'get_key_info')).fullAccess, true);
    });

    it("scopes: ['__proto__'] and other Object.prototype names are INVALID_INPUT listing the valid scopes", async () => {
      const a = await s.register('Protos');
      for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
        const r = await s.call(a.apiKey, 'create_key', { label: 'x', scopes: [name] });
        assert.equal(r.status, 200, `${name}: HTTP ${r.status}`);
        assert.equal(r.inner.error?.code, 'INVALID_INPUT', `${name}: ${JSON.stringify(r.inner)}`);
        assert.match(r.inner.error.message, /unknown scope/);
        assert.match(r.inner.error.message, /files:read/);
        assert.ok(r.inner.error.details.valid.includes('agents:write'));
      }
      // Families still expand.
      assert.deepEqual((await s.ok(a.apiKey, 'create_key', { label: 'fam', scopes: ['files'] })).scopes, [
        'files:read',
        'files:write',
        'files:delete',
      ]);
    });

    it('bash options looked up in tables refuse Object.prototype names like GNU does', async () => {
      const a = await s.register('Proto Shell');
      await s.ok(a.apiKey, 'write', { path: '/a.txt', content: 'hello\n' });
      const cases: Array<[string, number, RegExp]> = [
        ['ls --format=constructor /', 1, /invalid argument/],
        ['ls --quoting-style=__proto__ /', 1, /invalid argument/],
        ['grep -X constructor hello /a.txt', 2, /invalid matcher/],
        ['printf "a b" | xargs -d constructor echo', 1, /delimiter/],
        ["grep -P '[[:constructor:]]' /a.txt", 2, /class/],
      ];
      for (const [command, exitCode, stderr] of cases) {
        const r = await s.ok(a.apiKey, 'bash', { command });
        assert.equal(r.exitCode, exitCode, `${command}: ${JSON.stringify(r)}`);
        assert.match(r.stderr, stderr, command);
      }
      assert.equal((await s.ok(a.apiKey, 'bash', { command: "find / -name '[[:constructor:]]*'" })).stdout, '');
    });

    it('expiresAt: impossible calendar dates and times are refused; more than ten years ahead is refused like expiresIn', async () => {
      const a = await s.register('Expiry');
      const next = new Date().getUTCFullYear() + 1;
      for (const at of [
        `${next}-02-31T00:00:00Z`,
        `${next}-04-31T12:00:00Z`,
        `${next}-06-15T24:00:00Z`,
        `${next}-06-15T23:60:00Z`,
        `${next}-13-01T00:00:00Z`,
        `${next}-06-15T10:00:00+25:00`,
      ]) {
        const err = await s.fail(a.apiKey, 'create_key', { label: 'x', preset: 'files-read', expiresAt: at }, 'INVALID_INPUT');
        assert.equal(err.details.field, 'expiresAt', at);
        assert.match(err.message, /real date/, at);
      }
      const far = await s.fail(a.apiKey, 'create_key', { label: 'x', preset: 'files-read', expiresAt: '9999-12-31T23:59:59Z' }, 'INVALID_INPUT');
      assert.match(far.message, /ten years/);
      await s.fail(
        a.apiKey,
        'create_key',
        { label: 'x', preset: 'files-read', expiresAt: new Date(Date.now() + 10 * YEAR_MS + 86400_000).toISOString() },
        'INVALID_INPUT',
      );
      // Leap day, and nine years ahead, are fine.
      let leap = next;
      while (!(leap % 4 === 0 && (leap % 100 !== 0 || leap % 400 === 0))) leap++;
      const ok = await s.ok(a.apiKey, 'create_key', { label: 'leap', preset: 'files-read', expiresAt: `${leap}-02-29T12:00:00Z` });
      assert.equal(ok.expiresAt, `${leap}-02-29T12:00:00.000Z`);
      const nine = new Date(Date.now() + 9 * YEAR_MS).toISOString();
      assert.equal((await s.ok(a.apiKey, 'create_key', { label: 'nine', preset: 'files-read', expiresAt: nine })).expiresAt, nine);
    });
  });
}

/**
 * Key management (docs/contract/http.md "API keys", §2 "Scopes"): create_key, list_keys, revoke_key,
 * rotate_key and the 401s a client sees for revoked and expired keys, over real HTTP on both
 * backends; revocation across two server processes sharing one PostgreSQL database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PRESETS } from '../src/core/scopes.js';
import { buildRegistry } from '../src/tools/index.js';
import { backends, createTestDatabase } from './helpers/backends.js';
import { assertEnvelope } from './helpers/assert-envelope.js';
import { freePort, spawnServer, startServer, type Client, type TestServer } from './helpers/server.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const KEY = /^mk_[0-9A-Za-z]{43}$/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The contract's presets, written out (§2). */
const EXPECTED_PRESETS: Record<string, string[]> = {
  full: [
    'files:read',
    'files:write',
    'files:delete',
    'shares:read',
    'shares:write',
    'community:read',
    'community:write',
    'social:read',
    'social:write',
    'search',
    'agents:read',
    'agents:write',
  ],
  'read-only': ['files:read', 'shares:read', 'community:read', 'social:read', 'search', 'agents:read'],
  files: ['files:read', 'files:write', 'files:delete'],
  'files-read': ['files:read'],
};

/**
 * Keys hold every scope of their preset, but outputs show only the scopes some tool needs (the
 * others have no tool yet): the scopes the registry's tools declare, full-access tools aside.
 */
const IN_USE = new Set<string>(
  buildRegistry()
    .all()
    .flatMap((t) => (t.fullAccess ? [] : t.scopes)),
);
const shown = (scopes: string[]) => scopes.filter((x) => IN_USE.has(x));

/** Calls a tool, asserts HTTP 200 with the success envelope, returns the inner result. */
async function ok(s: Client, key: string, tool: string, input: unknown = {}): Promise<any> {
  const r = await s.call(key, tool, input);
  const what = `${tool} ${JSON.stringify(input).slice(0, 200)}`;
  assert.equal(r.status, 200, `${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`);
  assert.ok(!r.isError, `${what} failed: ${r.body?.content?.[0]?.text?.slice(0, 500)}`);
  assertEnvelope(r, 'success');
  return r.inner;
}

/** Calls a tool, asserts HTTP 200 with the error envelope and the code; returns inner.error. */
async function fail(s: Client, key: string, tool: string, input: unknown, code: string): Promise<any> {
  const r = await s.call(key, tool, input);
  const what = `${tool} ${JSON.stringify(input).slice(0, 200)}`;
  assert.equal(r.status, 200, `${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`);
  assert.equal(r.isError, true, `${what} should fail with ${code}: ${r.body?.content?.[0]?.text?.slice(0, 400)}`);
  assertEnvelope(r, 'error');
  assert.equal(r.inner.error.code, code, `${what}: ${r.inner.error.code} ${r.inner.error.message}`);
  return r.inner.error;
}

/** Asserts a 401 UNAUTHORIZED envelope with the given details.reason; returns inner.error. */
async function unauthorized(s: Client, key: string, reason: string, tool = 'get_key_info', input: unknown = {}): Promise<any> {
  const r = await s.call(key, tool, input);
  assert.equal(r.status, 401, `expected 401 ${reason}, got ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  assertEnvelope(r, 'error');
  assert.equal(r.inner.error.code, 'UNAUTHORIZED');
  assert.equal(r.inner.error.details.reason, reason, r.inner.error.message);
  return r.inner.error;
}

/** create_key, asserting the shape of a freshly minted key. */
async function mint(s: Client, key: string, input: Record<string, unknown>): Promise<any> {
  const r = await ok(s, key, 'create_key', input);
  assert.match(r.apiKey, KEY);
  assert.equal(r.preview, `${r.apiKey.slice(0, 7)}…${r.apiKey.slice(-4)}`);
  assert.match(r.keyId, /^key_[0-9A-Za-z]+$/);
  assert.equal(r.label, input.label);
  assert.equal(r.important, 'Save apiKey now: it is shown only once.');
  assert.match(r.createdAt, ISO_MS);
  assert.equal(r.revokedAt, null);
  assert.equal(r.lastUsedAt, null);
  return r;
}

let agentCounter = 0;
async function agent(s: TestServer): Promise<{ key: string; id: string; keyId: string }> {
  const r = await s.register(`Key Agent ${++agentCounter}`);
  const info = await ok(s, r.apiKey, 'get_key_info');
  return { key: r.apiKey, id: r.id, keyId: info.keyId };
}

const ids = (keys: Array<{ keyId: string }>) => keys.map((k) => k.keyId).sort();

/** NOT_FOUND for an unmanageable key: same message as for a key that does not exist, id aside. */
function sameNotFound(err: any, id: string, reference: any, referenceId: string): void {
  assert.equal(err.message.replaceAll(id, '<id>'), reference.message.replaceAll(referenceId, '<id>'));
  assert.deepEqual(err.details, { keyId: id });
  assert.deepEqual(reference.details, { keyId: referenceId });
}

for (const backend of backends()) {
  describe(`keys (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend);
    });
    after(() => s.close());

    it('create_key with each preset: exact scopes; the new key works; apiKey shown once', async () => {
      assert.deepEqual(PRESETS, EXPECTED_PRESETS, 'src/core/scopes.ts PRESETS match the contract');
      const a = await agent(s);
      const minted: string[] = [];
      for (const [preset, scopes] of Object.entries(EXPECTED_PRESETS)) {
        const r = await mint(s, a.key, { label: `preset ${preset}`, preset });
        minted.push(r.apiKey);
        assert.deepEqual(r.scopes, shown(scopes), preset);
        assert.equal(r.readOnly, preset === 'read-only' || preset === 'files-read', preset);
        assert.equal(r.folder, null);
        assert.equal(r.expiresAt, null);
        assert.equal(r.createdByKeyId, a.keyId);
        assert.equal(r.current, false);

        const info = await ok(s, r.apiKey, 'get_key_info');
        assert.equal(info.keyId, r.keyId);
        assert.equal(info.label, `preset ${preset}`);
        assert.equal(info.agent.id, a.id);
        assert.deepEqual(info.scopes, shown(scopes));
        assert.equal(info.readOnly, r.readOnly);
        assert.equal(info.fullAccess, preset === 'full');
        assert.equal(info.folder, null);
        assert.equal(info.expiresAt, null);
      }
      // The files preset really writes, files-read really cannot.
      await ok(s, minted[2]!, 'write', { path: '/p/x.txt', content: 'x' });
      assert.equal((await ok(s, minted[3]!, 'read', { path: '/p/x.txt' })).content, 'x');
      const denied = await fail(s, minted[3]!, 'write', { path: '/p/y.txt', content: 'y' }, 'INSUFFICIENT_SCOPE');
      assert.deepEqual(denied.details.granted, ['files:read']);

      // list_keys never returns a key, only its preview.
      const r = await s.call(a.key, 'list_keys', {});
      assertEnvelope(r, 'success');
      const text = JSON.stringify(r.body);
      for (const k of [a.key, ...minted]) {
        assert.ok(!text.includes(k), 'no full key in list_keys');
        assert.ok(!text.includes(k.slice(3)), 'no key body in list_keys');
      }
      assert.equal(r.inner.keys.length, 5);
      for (const k of r.inner.keys) {
        assert.equal(k.apiKey, undefined);
        assert.match(k.preview, /^mk_[0-9A-Za-z]{4}…[0-9A-Za-z]{4}$/);
        assert.deepEqual(Object.keys(k).sort(), [
          'createdAt',
          'createdByKeyId',
          'current',
          'expiresAt',
          'folder',
          'keyId',
          'label',
          'lastUsedAt',
          'preview',
          'readOnly',
          'revokedAt',
          'scopes',
        ]);
      }
      const previews = new Set(r.inner.keys.map((k: any) => k.preview));
      for (const k of minted) assert.ok(previews.has(`${k.slice(0, 7)}…${k.slice(-4)}`));
      assert.deepEqual(
        r.inner.keys.filter((k: any) => k.current).map((k: any) => k.keyId),
        [a.keyId],
      );
    });

    it('create_key with scopes: family names expand, duplicates fold, canonical order', async () => {
      const a = await agent(s);
      const cases: Array<[string[], string[]]> = [
        [['files'], ['files:read', 'files:write', 'files:delete']],
        [
          ['agents:read', 'files:read', 'files:read'],
          ['files:read', 'agents:read'],
        ],
        [
          ['shares', 'search', 'files:write'],
          ['files:write', 'shares:read', 'shares:write', 'search'],
        ],
        [
          ['community', 'social'],
          ['community:read', 'community:write', 'social:read', 'social:write'],
        ],
        [
          ['agents', 'agents:read'],
          ['agents:read', 'agents:write'],
        ],
        [[], []],
      ];
      for (const [input, want] of cases) {
        const r = await mint(s, a.key, { label: 'by scopes', scopes: input });
        assert.deepEqual(r.scopes, shown(want), JSON.stringify(input));
        const info = await ok(s, r.apiKey, 'get_key_info');
        assert.deepEqual(info.scopes, shown(want), JSON.stringify(input));
        assert.equal(info.readOnly, !want.some((x) => x.endsWith(':write') || x.endsWith(':delete')));
      }
    });

    it('a folder and an expiry are applied; folder is normalized', async () => {
      const a = await agent(s);
      const t0 = Date.now();
      const r = await mint(s, a.key, { label: 'scoped', preset: 'files', folder: '/proj//x/./', expiresInSeconds: 3600 });
      assert.equal(r.folder, '/proj/x');
      assert.match(r.expiresAt, ISO_MS);
      const exp = Date.parse(r.expiresAt);
      assert.ok(exp >= t0 + 3600_000 && exp <= Date.now() + 3600_000, r.expiresAt);
      const info = await ok(s, r.apiKey, 'get_key_info');
      assert.equal(info.folder, '/proj/x');
      assert.equal(info.expiresAt, r.expiresAt);
      await ok(s, r.apiKey, 'write', { path: '/proj/x/in.txt', content: 'in' });
      await fail(s, r.apiKey, 'write', { path: '/proj/xy.txt', content: 'out' }, 'OUTSIDE_KEY_FOLDER');

      const at = new Date(Date.now() + 7200_000).toISOString();
      const b = await mint(s, a.key, { label: 'at', scopes: ['files:read'], expiresAt: at });
      assert.equal(b.expiresAt, at);
      assert.equal((await ok(s, b.apiKey, 'get_key_info')).expiresAt, at);
    });

    it('subset rule, scopes: a key cannot mint scopes it lacks (INSUFFICIENT_SCOPE with details)', async () => {
      const a = await agent(s);
      const reader = await mint(s, a.key, { label: 'reader+mint', scopes: ['files:read', 'agents:write'] });
      const err = await fail(s, reader.apiKey, 'create_key', { label: 'w', scopes: ['files:write'] }, 'INSUFFICIENT_SCOPE');
      assert.deepEqual(err.details.required, ['files:write']);
      assert.deepEqual(err.details.granted, ['files:read', 'agents:write']);
      assert.deepEqual(err.details.missing, ['files:write']);
      assert.match(err.message, /files:write/);
      const fam = await fail(s, reader.apiKey, 'create_key', { label: 'f', scopes: ['files'] }, 'INSUFFICIENT_SCOPE');
      assert.deepEqual(fam.details.missing, ['files:write', 'files:delete']);
      const pre = await fail(s, reader.apiKey, 'create_key', { label: 'p', preset: 'full' }, 'INSUFFICIENT_SCOPE');
      assert.deepEqual(pre.details.required, EXPECTED_PRESETS.full);
      // A subset (or its own scopes exactly, or nothing) is fine.
      assert.deepEqual((await mint(s, reader.apiKey, { label: 'ok', preset: 'files-read' })).scopes, ['files:read']);
      assert.deepEqual((await mint(s, reader.apiKey, { label: 'same', scopes: ['files:read', 'agents:write'] })).scopes, [
        'files:read',
        'agents:write',
      ]);
      assert.deepEqual((await mint(s, reader.apiKey, { label: 'none', scopes: [] })).scopes, []);
    });

    it('a key without agents:write cannot call create_key (INSUFFICIENT_SCOPE from the registry)', async () => {
      const a = await agent(s);
      for (const preset of ['files-read', 'read-only', 'files']) {
        const k = await mint(s, a.key, { label: preset, preset });
        const err = await fail(s, k.apiKey, 'create_key', { label: 'x', preset: 'files-read' }, 'INSUFFICIENT_SCOPE');
        assert.deepEqual(err.details.required, ['agents:write']);
        assert.deepEqual(err.details.granted, shown(EXPECTED_PRESETS[preset]!));
        assert.deepEqual(err.details.missing, ['agents:write']);
        assert.match(err.message, /agents:write/);
      }
      // The check comes before input validation: even an invalid input gets INSUFFICIENT_SCOPE.
      const none = await mint(s, a.key, { label: 'none', scopes: [] });
      const err = await fail(s, none.apiKey, 'create_key', { bogus: true }, 'INSUFFICIENT_SCOPE');
      assert.deepEqual(err.details.granted, []);
    });

    it('subset rule, folder: inside its own folder only (component-wise)', async () => {
      const a = await agent(s);
      const fk = await mint(s, a.key, { label: 'folder a', scopes: ['files', 'agents'], folder: '/a' });
      for (const folder of ['/b', '/', '/ab', '/a/../b', '/abc/d']) {
        const err = await fail(s, fk.apiKey, 'create_key', { label: 'out', scopes: ['files:read'], folder }, 'INSUFFICIENT_SCOPE');
        assert.deepEqual(err.details.granted, { folder: '/a' }, folder);
        assert.equal(typeof err.details.required.folder, 'string', folder);
        assert.match(err.message, /\/a/);
      }
      const same = await mint(s, fk.apiKey, { label: 'same', scopes: ['files:read'], folder: '/a' });
      assert.equal(same.folder, '/a');
      const sub = await mint(s, fk.apiKey, { label: 'sub', scopes: ['files:read'], folder: '/a/./sub/' });
      assert.equal(sub.folder, '/a/sub');
      assert.equal((await ok(s, sub.apiKey, 'get_key_info')).folder, '/a/sub');
      // Without a folder the minted key inherits the caller's.
      const inherit = await mint(s, fk.apiKey, { label: 'inherit', scopes: ['files:read'] });
      assert.equal(inherit.folder, '/a');
      assert.equal((await ok(s, inherit.apiKey, 'get_key_info')).folder, '/a');
      // A grandchild stays inside the child's folder.
      const subMint = await mint(s, fk.apiKey, { label: 'sub minter', scopes: ['agents:write', 'files:read'], folder: '/a/sub' });
      await fail(s, subMint.apiKey, 'create_key', { label: 'up', scopes: ['files:read'], folder: '/a' }, 'INSUFFICIENT_SCOPE');
    });

    it("subset rule, expiry: no later than the caller; no expiry inherits the caller's expiry and folder", async () => {
      const a = await agent(s);
      const hour = await mint(s, a.key, { label: '1h', scopes: ['files', 'agents'], folder: '/e', expiresInSeconds: 3600 });
      const err = await fail(s, hour.apiKey, 'create_key', { label: 'day', scopes: ['files:read'], expiresInSeconds: 86400 }, 'INSUFFICIENT_SCOPE');
      assert.deepEqual(err.details.granted, { expiresAt: hour.expiresAt });
      assert.match(err.details.required.expiresAt, ISO_MS);
      assert.ok(Date.parse(err.details.required.expiresAt) > Date.parse(hour.expiresAt));
      const late = new Date(Date.parse(hour.expiresAt) + 1).toISOString();
      await fail(s, hour.apiKey, 'create_key', { label: 'late', scopes: ['files:read'], expiresAt: late }, 'INSUFFICIENT_SCOPE');

      const child = await mint(s, hour.apiKey, { label: 'child', scopes: ['files:read'] });
      assert.equal(child.expiresAt, hour.expiresAt);
      assert.equal(child.folder, '/e');
      assert.equal(child.createdByKeyId, hour.keyId);
      const info = await ok(s, child.apiKey, 'get_key_info');
      assert.equal(info.expiresAt, hour.expiresAt);
      assert.equal(info.folder, '/e');
      // Exactly the caller's expiry, or sooner, is fine.
      assert.equal((await mint(s, hour.apiKey, { label: 'same', scopes: [], expiresAt: hour.expiresAt })).expiresAt, hour.expiresAt);
      const t0 = Date.now();
      const short = await mint(s, hour.apiKey, { label: 'short', scopes: [], expiresInSeconds: 60 });
      const exp = Date.parse(short.expiresAt);
      assert.ok(exp >= t0 + 60_000 && exp <= Date.now() + 60_000, short.expiresAt);
    });

    it('invalid input: INVALID_INPUT / INVALID_PATH', async () => {
      const a = await agent(s);
      const future = new Date(Date.now() + 3600_000).toISOString();
      const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
        ['both scopes and preset', { label: 'x', scopes: ['files:read'], preset: 'files-read' }, 'INVALID_INPUT', /scopes|preset/],
        ['neither scopes nor preset', { label: 'x' }, 'INVALID_INPUT', /scopes|preset/],
        ['unknown scope', { label: 'x', scopes: ['files:admin'] }, 'INVALID_INPUT', /files:admin/],
        ['unknown family', { label: 'x', scopes: ['everything'] }, 'INVALID_INPUT', /everything/],
        ['unknown preset', { label: 'x', preset: 'admin' }, 'INVALID_INPUT', /preset/],
        ['scopes not a list', { label: 'x', scopes: 'files:read' }, 'INVALID_INPUT', /scopes/],
        [
          'expiresAt in the past',
          { label: 'x', preset: 'files-read', expiresAt: new Date(Date.now() - 60_000).toISOString() },
          'INVALID_INPUT',
          /past/,
        ],
        ['expiresAt not a timestamp', { label: 'x', preset: 'files-read', expiresAt: 'tomorrow' }, 'INVALID_INPUT', /expiresAt/],
        [
          'expiresInSeconds and expiresAt',
          { label: 'x', preset: 'files-read', expiresInSeconds: 3600, expiresAt: future },
          'INVALID_INPUT',
          /expiresIn|expiresAt/,
        ],
        ['expiresInSeconds below 60 s', { label: 'x', preset: 'files-read', expiresInSeconds: 59 }, 'INVALID_INPUT', /expiresIn/],
        ['expiresInSeconds not an integer', { label: 'x', preset: 'files-read', expiresInSeconds: 60.5 }, 'INVALID_INPUT', /expiresIn/],
        ['empty label', { label: '   ', preset: 'files-read' }, 'INVALID_INPUT', /label/],
        ['missing label', { preset: 'files-read' }, 'INVALID_INPUT', /label/],
        ['label over 64', { label: 'l'.repeat(65), preset: 'files-read' }, 'INVALID_INPUT', /label/],
        ['unknown field', { label: 'x', preset: 'files-read', scope: 'files' }, 'INVALID_INPUT', /scope/],
        ['relative folder', { label: 'x', preset: 'files-read', folder: 'projects/x' }, 'INVALID_PATH', /absolute/],
        ['folder with NUL', { label: 'x', preset: 'files-read', folder: '/a\u0000b' }, 'INVALID_PATH', /NUL/],
        ['folder rising above /', { label: 'x', preset: 'files-read', folder: '/../x' }, 'INVALID_PATH', /\.\./],
        ['empty folder', { label: 'x', preset: 'files-read', folder: '' }, 'INVALID_PATH', /empty|absolute/],
      ];
      const before = (await ok(s, a.key, 'list_keys')).keys.length;
      for (const [why, input, code, message] of cases) {
        const err = await fail(s, a.key, 'create_key', input, code);
        assert.match(err.message, message, `${why}: ${err.message}`);
      }
      const notIso = await fail(s, a.key, 'create_key', { label: 'x', preset: 'files-read', expiresAt: '2030-01-01' }, 'INVALID_INPUT');
      assert.doesNotMatch(notIso.message, /updatedAt|read\/stat/, 'the message is about an expiry, not a file version');
      assert.equal(notIso.details.field, 'expiresAt');
      assert.equal((await ok(s, a.key, 'list_keys')).keys.length, before, 'no key was created by a failed call');
    });

    it("list_keys: the full key sees all the agent's keys; a minted key itself and what it minted (transitively)", async () => {
      const a = await agent(s);
      const other = await agent(s);
      const otherChild = await mint(s, other.key, { label: 'other child', preset: 'full' });
      const A = await mint(s, a.key, { label: 'A', scopes: ['agents', 'files'] });
      const B = await mint(s, a.key, { label: 'B', scopes: ['agents:read'] });
      const A1 = await mint(s, A.apiKey, { label: 'A1', scopes: ['agents', 'files:read'] });
      const A11 = await mint(s, A1.apiKey, { label: 'A11', scopes: ['agents:read'] });
      const A2 = await mint(s, A.apiKey, { label: 'A2', scopes: [] });
      assert.equal(A11.createdByKeyId, A1.keyId);
      assert.equal(A1.createdByKeyId, A.keyId);

      const cases: Array<[string, string, string[]]> = [
        ['full', a.key, [a.keyId, A.keyId, B.keyId, A1.keyId, A11.keyId, A2.keyId]],
        ['A', A.apiKey, [A.keyId, A1.keyId, A11.keyId, A2.keyId]],
        ['A1', A1.apiKey, [A1.keyId, A11.keyId]],
        ['A11', A11.apiKey, [A11.keyId]],
        ['B', B.apiKey, [B.keyId]],
      ];
      const foreign = [other.keyId, otherChild.keyId];
      for (const [who, key, want] of cases) {
        const listed = (await ok(s, key, 'list_keys')).keys;
        assert.deepEqual(ids(listed), [...want].sort(), who);
        for (const f of foreign) assert.ok(!ids(listed).includes(f), `${who} never sees another agent's keys`);
        const mine = listed.filter((k: any) => k.current);
        assert.equal(mine.length, 1, who);
        for (const k of listed) assert.equal(k.apiKey, undefined);
      }
      const full = (await ok(s, a.key, 'list_keys')).keys;
      const byId = new Map<string, any>(full.map((k: any) => [k.keyId, k]));
      assert.equal(byId.get(A1.keyId).createdByKeyId, A.keyId);
      assert.deepEqual(byId.get(A1.keyId).scopes, ['files:read', 'agents:read', 'agents:write']);
      assert.equal(byId.get(a.keyId).createdByKeyId, null);
      assert.equal(byId.get(A.keyId).preview, A.preview);
      assert.deepEqual(ids((await ok(s, other.key, 'list_keys')).keys), [...foreign].sort());

      // No agents:read → INSUFFICIENT_SCOPE.
      const err = await fail(s, A2.apiKey, 'list_keys', {}, 'INSUFFICIENT_SCOPE');
      assert.deepEqual(err.details.required, ['agents:read']);
    });

    it('revoke_key: itself, a key it minted, any key with the full key; others → NOT_FOUND like a missing id', async () => {
      const a = await agent(s);
      const other = await agent(s);
      const missing = 'key_DoesNotExist0000000000';
      const ref = await fail(s, a.key, 'revoke_key', { keyId: missing }, 'NOT_FOUND');
      assert.match(ref.message, /list_keys/);

      // A key with no scopes at all, and a read-only key, can revoke themselves.
      for (const spec of [{ scopes: [] }, { preset: 'read-only' }]) {
        const k = await mint(s, a.key, { label: 'self', ...spec });
        await ok(s, k.apiKey, 'get_key_info'); // now in the auth cache
        const r = await ok(s, k.apiKey, 'revoke_key', { keyId: k.keyId });
        assert.equal(r.keyId, k.keyId);
        assert.match(r.revokedAt, ISO_MS);
        assert.ok(Date.parse(r.revokedAt) <= Date.now());
        const e = await unauthorized(s, k.apiKey, 'revoked');
        assert.match(e.message, /revoked/);
      }

      // Parent and child, siblings.
      const P = await mint(s, a.key, { label: 'P', scopes: ['agents', 'files'] });
      const S = await mint(s, a.key, { label: 'S', scopes: ['agents', 'files'] });
      const C = await mint(s, P.apiKey, { label: 'C', scopes: ['agents:read', 'files:read'] });
      const G = await mint(s, P.apiKey, { label: 'G', scopes: ['agents', 'files:read'] });
      const GG = await mint(s, G.apiKey, { label: 'GG', scopes: ['files:read'] });
      // The child cannot revoke its parent or its sibling; a sibling cannot revoke P or its children;
      // another agent cannot revoke anything here; and nobody here can revoke the other agent's key.
      const forbidden: Array<[string, string]> = [
        [C.apiKey, P.keyId],
        [C.apiKey, G.keyId],
        [C.apiKey, a.keyId],
        [S.apiKey, P.keyId],
        [S.apiKey, C.keyId],
        [P.apiKey, S.keyId],
        [P.apiKey, a.keyId],
        [other.key, P.keyId],
        [other.key, a.keyId],
        [a.key, other.keyId],
        [P.apiKey, other.keyId],
      ];
      for (const [key, target] of forbidden) {
        const e = await fail(s, key, 'revoke_key', { keyId: target }, 'NOT_FOUND');
        sameNotFound(e, target, ref, missing);
      }
      for (const k of [P, S, C, G, GG]) await ok(s, k.apiKey, 'get_key_info'); // nothing was revoked
      await ok(s, other.key, 'get_key_info');
      await ok(s, a.key, 'get_key_info');

      // A key revokes one it minted (transitively), and the change is immediate.
      await ok(s, C.apiKey, 'get_key_info');
      assert.equal((await ok(s, P.apiKey, 'revoke_key', { keyId: C.keyId })).keyId, C.keyId);
      await unauthorized(s, C.apiKey, 'revoked');
      await ok(s, GG.apiKey, 'get_key_info');
      await ok(s, P.apiKey, 'revoke_key', { keyId: GG.keyId });
      await unauthorized(s, GG.apiKey, 'revoked');
      // The full key revokes any key of its agent.
      await ok(s, G.apiKey, 'get_key_info');
      await ok(s, a.key, 'revoke_key', { keyId: G.keyId });
      await unauthorized(s, G.apiKey, 'revoked', 'list_keys');
      // Revoking twice is harmless and keeps the first revokedAt.
      const first = (await ok(s, a.key, 'list_keys')).keys.find((k: any) => k.keyId === C.keyId);
      assert.match(first.revokedAt, ISO_MS);
      const again = await ok(s, a.key, 'revoke_key', { keyId: C.keyId });
      assert.equal(again.revokedAt, first.revokedAt);
      // Revoked keys stay listed, with revokedAt.
      const listed = (await ok(s, P.apiKey, 'list_keys')).keys;
      assert.deepEqual(ids(listed), [P.keyId, C.keyId, G.keyId, GG.keyId].sort());
      for (const k of listed) assert.equal(k.revokedAt === null, k.keyId === P.keyId);
      // S and P still work; the revoked key cannot do anything at all.
      await ok(s, S.apiKey, 'get_key_info');
      await ok(s, P.apiKey, 'get_key_info');
      await unauthorized(s, C.apiKey, 'revoked', 'read', { path: '/x' });
      await unauthorized(s, C.apiKey, 'revoked', 'revoke_key', { keyId: C.keyId });

      // The full key may revoke itself, too.
      const full2 = await mint(s, a.key, { label: 'full 2', preset: 'full' });
      await ok(s, full2.apiKey, 'revoke_key', { keyId: full2.keyId });
      await unauthorized(s, full2.apiKey, 'revoked');
    });

    it('a folder-restricted or expiring key with every scope cannot manage keys outside its own lineage', async () => {
      const a = await agent(s);
      const sib = await mint(s, a.key, { label: 'sibling', preset: 'files' });
      for (const spec of [{ folder: '/r' }, { expiresInSeconds: 3600 }]) {
        const R = await mint(s, a.key, { label: 'restricted full', preset: 'full', ...spec });
        const child = await mint(s, R.apiKey, { label: 'child', preset: 'files-read' });
        assert.deepEqual(ids((await ok(s, R.apiKey, 'list_keys')).keys), [R.keyId, child.keyId].sort(), JSON.stringify(spec));
        for (const target of [a.keyId, sib.keyId]) {
          await fail(s, R.apiKey, 'rotate_key', { keyId: target }, 'NOT_FOUND');
          await fail(s, R.apiKey, 'revoke_key', { keyId: target }, 'NOT_FOUND');
        }
        await ok(s, a.key, 'get_key_info');
        await ok(s, sib.apiKey, 'get_key_info');
        // Rotating itself hands back the same restrictions, never more.
        const rot = await ok(s, R.apiKey, 'rotate_key', {});
        const info = await ok(s, rot.apiKey, 'get_key_info');
        assert.equal(info.folder, R.folder);
        assert.equal(info.expiresAt, R.expiresAt);
        assert.deepEqual(info.scopes, shown(EXPECTED_PRESETS.full!));
      }
    });

    it('rotate_key with gracePeriodSeconds 0: a new key with the same grants; the old one is refused at once', async () => {
      const a = await agent(s);
      const old = await mint(s, a.key, { label: 'rotating', scopes: ['files', 'agents:read'], folder: '/rot', expiresInSeconds: 7200 });
      await ok(s, old.apiKey, 'get_key_info'); // cached
      const r = await ok(s, a.key, 'rotate_key', { keyId: old.keyId, gracePeriodSeconds: 0 });
      assert.match(r.apiKey, KEY);
      assert.notEqual(r.apiKey, old.apiKey);
      assert.notEqual(r.keyId, old.keyId);
      assert.equal(r.important, 'Save apiKey now: it is shown only once.');
      assert.equal(r.label, 'rotating');
      assert.deepEqual(r.scopes, old.scopes);
      assert.equal(r.folder, '/rot');
      assert.equal(r.expiresAt, old.expiresAt);
      assert.equal(r.replaced.keyId, old.keyId);
      assert.ok(Date.parse(r.replaced.revokedAt) <= Date.now());
      await unauthorized(s, old.apiKey, 'revoked');
      const info = await ok(s, r.apiKey, 'get_key_info');
      assert.equal(info.keyId, r.keyId);
      assert.equal(info.label, 'rotating');
      assert.deepEqual(info.scopes, ['files:read', 'files:write', 'files:delete', 'agents:read']);
      assert.equal(info.folder, '/rot');
      assert.equal(info.expiresAt, old.expiresAt);
      await ok(s, r.apiKey, 'write', { path: '/rot/f.txt', content: 'new key writes' });
      // Rotating an already revoked key → NOT_FOUND.
      await fail(s, a.key, 'rotate_key', { keyId: old.keyId }, 'NOT_FOUND');

      // Default: the calling key rotates itself, with no scope needed; default grace is 0.
      const bare = await mint(s, a.key, { label: 'bare', scopes: [] });
      const self = await ok(s, bare.apiKey, 'rotate_key', {});
      assert.equal(self.replaced.keyId, bare.keyId);
      assert.deepEqual(self.scopes, []);
      assert.equal(self.label, 'bare');
      await unauthorized(s, bare.apiKey, 'revoked');
      await ok(s, self.apiKey, 'get_key_info');
      // Someone else's key, or a missing one → NOT_FOUND.
      const other = await agent(s);
      await fail(s, a.key, 'rotate_key', { keyId: other.keyId }, 'NOT_FOUND');
      await fail(s, self.apiKey, 'rotate_key', { keyId: a.keyId }, 'NOT_FOUND');
      await fail(s, a.key, 'rotate_key', { gracePeriodSeconds: -1 }, 'INVALID_INPUT');
    });

    it('rotate_key: the keys the old key minted now belong to its replacement (list, revoke, rotate them)', async () => {
      const a = await agent(s);
      const parent = await mint(s, a.key, { label: 'parent', scopes: ['files:read', 'agents:read', 'agents:write'] });
      const child = await mint(s, parent.apiKey, { label: 'child', scopes: ['files:read', 'agents:write'] });
      const grandchild = await mint(s, child.apiKey, { label: 'grandchild', scopes: ['files:read'] });
      const rotated = await ok(s, parent.apiKey, 'rotate_key', {});
      const listed = await ok(s, rotated.apiKey, 'list_keys');
      assert.deepEqual(listed.keys.map((k: any) => k.label).sort(), ['child', 'grandchild', 'parent']);
      const childRow = listed.keys.find((k: any) => k.keyId === child.keyId);
      assert.equal(childRow.createdByKeyId, rotated.keyId);
      const again = await ok(s, rotated.apiKey, 'rotate_key', { keyId: grandchild.keyId });
      assert.equal(again.replaced.keyId, grandchild.keyId);
      await ok(s, rotated.apiKey, 'revoke_key', { keyId: child.keyId });
      await unauthorized(s, child.apiKey, 'revoked');
      // The replacement is nobody's child of itself, and the old key's listing is gone with it.
      assert.notEqual((await ok(s, rotated.apiKey, 'list_keys')).keys.find((k: any) => k.keyId === rotated.keyId)?.createdByKeyId, rotated.keyId);
      await unauthorized(s, parent.apiKey, 'revoked');
    });

    it('rotate_key with a grace period: the old key keeps reading (only) until it ends, then 401 revoked', async () => {
      const a = await agent(s);
      await ok(s, a.key, 'write', { path: '/g/old.txt', content: 'old' });
      const old = await mint(s, a.key, { label: 'graceful', preset: 'files' });
      const t0 = Date.now();
      const r = await ok(s, old.apiKey, 'rotate_key', { gracePeriodSeconds: 1 });
      const until = Date.parse(r.replaced.revokedAt);
      assert.ok(until >= t0 + 1000 && until <= Date.now() + 1000, r.replaced.revokedAt);
      // During the grace period the old key reads; writing is for its replacement.
      assert.equal((await ok(s, old.apiKey, 'read', { path: '/g/old.txt' })).content, 'old');
      await fail(s, old.apiKey, 'write', { path: '/g/old.txt', content: 'changed' }, 'INSUFFICIENT_SCOPE');
      await ok(s, r.apiKey, 'write', { path: '/g/new.txt', content: 'new' });
      const listed = (await ok(s, a.key, 'list_keys')).keys.find((k: any) => k.keyId === old.keyId);
      assert.equal(listed.revokedAt, r.replaced.revokedAt);
      await sleep(Math.max(0, until - Date.now()) + 30);
      await unauthorized(s, old.apiKey, 'revoked');
      await ok(s, r.apiKey, 'read', { path: '/g/old.txt' });
    });

    it('expired keys → 401 reason expired', async () => {
      const a = await agent(s);
      const past = await s.addKey(a.id, { scopes: ['files:read'], expiresAtMs: Date.now() - 1 });
      const e = await unauthorized(s, past, 'expired');
      assert.match(e.message, /expired/);
      await unauthorized(s, past, 'expired', 'revoke_key', { keyId: a.keyId });

      // A minted key valid for a moment works, then expires.
      const at = Date.now() + 800;
      const soon = await mint(s, a.key, { label: 'soon', preset: 'files-read', expiresAt: new Date(at).toISOString() });
      await ok(s, soon.apiKey, 'get_key_info');
      await sleep(Math.max(0, at - Date.now()) + 30);
      await unauthorized(s, soon.apiKey, 'expired');
      // An expired key cannot be rotated into a replacement (it would inherit the expiry, dead on arrival).
      const rot = await fail(s, a.key, 'rotate_key', { keyId: soon.keyId }, 'NOT_FOUND');
      assert.match(rot.message, /expired/);
      assert.equal((await ok(s, a.key, 'list_keys')).keys.length, 3, 'no replacement was minted (registration, past, soon)');
      // A revoked key reports revoked; unknown keys are unknown.
      const revoked = await s.addKey(a.id, { scopes: [], revokedAtMs: Date.now() - 1 });
      await unauthorized(s, revoked, 'revoked');
      await unauthorized(s, 'mk_' + 'Z'.repeat(43), 'unknown');
    });

    // Each instance caches key lookups until the store's auth epoch moves (http/auth.ts): a change
    // made through one instance must hold on the other at its very next request on SQLite (the
    // epoch is read through PRAGMA data_version on each request), and once the notification has
    // arrived on PostgreSQL: within 1 s however loaded the machine (milliseconds when quiet).
    it('a key rotated, revoked or expired through one instance holds on another instance at once', async (t) => {
      const db = await createTestDatabase(backend);
      const [portA, portB] = [await freePort(), await freePort()];
      const A = await spawnServer(db.env, portA);
      const B = await spawnServer(db.env, portB);
      const lags: number[] = [];
      /** Runs `check` until it passes: once on SQLite; on PostgreSQL retried for up to 1 s, the lag recorded. */
      const holds = async (check: () => Promise<unknown>) => {
        const t0 = Date.now();
        for (;;) {
          const sent = Date.now() - t0;
          try {
            await check();
            lags.push(sent); // when the passing request was sent
            return;
          } catch (err) {
            if (backend === 'sqlite' || Date.now() - t0 > 1000) throw err;
            await sleep(5);
          }
        }
      };
      try {
        const { apiKey } = await A.register('Two Instances');
        for (let round = 0; round < 6; round++) {
          const [from, to] = round % 2 ? [B, A] : [A, B];
          const k = await mint(from, apiKey, { label: `shared ${round}`, preset: 'files' });
          // Both instances have the key in their auth cache.
          for (const s of [from, to, to]) assert.equal((await ok(s, k.apiKey, 'get_key_info')).revokedAt, null);
          // Rotated with a grace period: the old key only reads, on the other instance too.
          const rotated = await ok(from, k.apiKey, 'rotate_key', { gracePeriodSeconds: 600 });
          await holds(async () => {
            const seen = await ok(to, k.apiKey, 'get_key_info');
            assert.equal(seen.revokedAt, rotated.replaced.revokedAt);
            assert.equal(seen.readOnly, true);
          });
          await fail(to, k.apiKey, 'write', { path: `/r${round}.txt`, content: 'x' }, 'INSUFFICIENT_SCOPE');
          // Revoked: refused by the other instance.
          for (const s of [from, to]) await ok(s, rotated.apiKey, 'get_key_info');
          await ok(from, apiKey, 'revoke_key', { keyId: rotated.keyId });
          await unauthorized(from, rotated.apiKey, 'revoked');
          await holds(() => unauthorized(to, rotated.apiKey, 'revoked'));
        }
        t.diagnostic(`the other instance's first request seeing each change was sent ${lags.join(', ')} ms after it was answered`);
        // Usage read through one instance follows writes through the other (cached agent rows are coherent).
        for (const [w, r, i] of [
          [A, B, 1],
          [B, A, 2],
          [A, B, 3],
        ] as const) {
          await ok(r, apiKey, 'get_key_info');
          await ok(w, apiKey, 'write', { path: `/usage-${i}.txt`, content: 'x'.repeat(i) });
          assert.equal((await ok(r, apiKey, 'get_key_info')).usage.fileCount, i);
        }
        // Expiry needs no announcement: every cached key is checked against the clock.
        const at = Date.now() + 700;
        const soon = await mint(A, apiKey, { label: 'soon', preset: 'files-read', expiresAt: new Date(at).toISOString() });
        await ok(B, soon.apiKey, 'get_key_info');
        await sleep(Math.max(0, at - Date.now()) + 5);
        await unauthorized(B, soon.apiKey, 'expired');
      } finally {
        await Promise.all([A.kill('SIGTERM'), B.kill('SIGTERM')]);
        await db.drop();
      }
    });
  });
}

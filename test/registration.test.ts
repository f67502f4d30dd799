/**
 * POST /api/users/register (docs/contract/http.md) and Bearer authentication failures, over real HTTP,
 * on both backends. Also checks that the database holds only the SHA-256 of a key.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { generateApiKey } from '../src/core/keys.js';
import { backends } from './helpers/backends.js';
import { assertEnvelope } from './helpers/assert-envelope.js';
import { dumpDatabase } from './helpers/db-dump.js';
import { startServer, type CallResult, type TestServer } from './helpers/server.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SLUG = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

function assertSlug(slug: unknown, why: string): void {
  assert.equal(typeof slug, 'string', why);
  const s = slug as string;
  assert.match(s, SLUG, `${why}: ${s}`);
  assert.ok(s.length >= 2 && s.length <= 40, `${why}: length ${s.length}`);
}

function register(s: TestServer, body: unknown, rawBody?: string): Promise<CallResult> {
  return s.raw('/api/users/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: rawBody ?? JSON.stringify(body),
  });
}

/** A 400 from registration: the error envelope holding {error: {code: 'INVALID_INPUT', message}}. */
function assertBadRequest(r: CallResult, why: string): void {
  assert.equal(r.status, 400, `${why}: ${JSON.stringify(r.body)}`);
  assertEnvelope(r, 'error');
  assert.equal(r.inner.error.code, 'INVALID_INPUT', why);
  assert.ok(r.inner.error.message.length > 10, `${why}: message says something`);
}

async function keyHashesInDatabase(s: TestServer): Promise<string[]> {
  if (s.backend === 'sqlite') {
    const db = new Database((s.store as any).file as string, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT key_hash FROM api_keys').all() as Array<{ key_hash: string }>).map((r) => r.key_hash);
    } finally {
      db.close();
    }
  }
  const c = new pg.Client({ connectionString: s.config.databaseUrl });
  await c.connect();
  try {
    return (await c.query<{ key_hash: string }>('SELECT key_hash FROM api_keys')).rows.map((r) => r.key_hash);
  } finally {
    await c.end();
  }
}

for (const backend of backends()) {
  describe(`registration (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend);
    });
    after(() => s.close());

    it('201 with exactly success, id, name, slug, createdAt, apiKey, important; the key works', async () => {
      const t0 = Date.now();
      const r = await register(s, { name: 'Response Shape' });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.match(r.headers.get('content-type') ?? '', /application\/json/);
      assert.ok(r.headers.get('x-request-id'));
      assert.deepEqual(Object.keys(r.body).sort(), ['apiKey', 'createdAt', 'id', 'important', 'name', 'slug', 'success']);
      assert.equal(r.body.success, true);
      assert.match(r.body.id, /^agt_[0-9A-Za-z]+$/);
      assert.equal(r.body.name, 'Response Shape');
      assert.equal(r.body.slug, 'response-shape');
      assert.match(r.body.createdAt, ISO_MS);
      const created = Date.parse(r.body.createdAt);
      assert.ok(created >= t0 - 5 && created <= Date.now() + 5, 'createdAt is now');
      assert.match(r.body.apiKey, /^mk_[0-9A-Za-z]{43}$/);
      assert.equal(r.body.important, 'Save apiKey now: it is shown only once.');

      const info = await s.ok(r.body.apiKey, 'get_key_info');
      assert.deepEqual(info.agent, { id: r.body.id, slug: 'response-shape', name: 'Response Shape' });
      assert.equal(info.fullAccess, true);
      assert.equal(info.readOnly, false);
      assert.equal(info.folder, null);
      assert.equal(info.expiresAt, null);
    });

    it('each registration gets a distinct agent and key', async () => {
      const a = await s.register('Distinct One');
      const b = await s.register('Distinct Two');
      assert.notEqual(a.id, b.id);
      assert.notEqual(a.apiKey, b.apiKey);
      assert.notEqual(a.slug, b.slug);
    });

    it('slugs: lowercase [a-z0-9-], derived from the name, collisions get -2, -3', async () => {
      const a = await s.register('Slug Collision');
      const b = await s.register('Slug Collision');
      const c = await s.register('slug collision');
      const d = await s.register('SLUG   collision!!');
      assert.deepEqual([a.slug, b.slug, c.slug, d.slug], ['slug-collision', 'slug-collision-2', 'slug-collision-3', 'slug-collision-4']);
      for (const x of [a, b, c, d]) assertSlug(x.slug, x.name);
      assert.equal((await s.register('Crème Brûlée_Bot 9')).slug, 'creme-brulee-bot-9');
    });

    it('reserved words are never used as-is', async () => {
      const seen = new Set<string>();
      for (const name of ['www', 'api', 'admin', 'shared', 'WWW', 'Admin', 'register', 'me']) {
        const r = await s.register(name);
        assertSlug(r.slug, name);
        assert.ok(!['www', 'api', 'admin', 'shared', 'register', 'me'].includes(r.slug), `${name} → ${r.slug}`);
        assert.ok(!seen.has(r.slug), 'unique');
        seen.add(r.slug);
      }
    });

    it('names that pass for a placeholder or a handle are refused; a name already taken is not (the slug tells them apart)', async () => {
      const refused: Array<[string, RegExp]> = [
        ['[removed]', /placeholder/],
        ['[deleted]', /placeholder/],
        ['[removed by a moderator]', /placeholder/],
        ['[REDACTED]', /placeholder/],
        ['  [deleted]  ', /placeholder/],
        ['\uFF3Bremoved\uFF3D', /placeholder/],
        ['(deleted)', /placeholder/],
        ['\u3010removed\u3011', /placeholder/],
        ['<deleted>', /placeholder/],
        ['[anything at all]', /placeholder/],
        ['Removed', /placeholder/],
        ['deleted.', /placeholder/],
        ['@alice', /"@"/],
        ['bob @alice', /"@"/],
        ['\uFF20alice', /"@"/],
      ];
      for (const [name, message] of refused) {
        const r = await register(s, { name });
        assertBadRequest(r, name);
        assert.match(r.inner.error.message, /^'name' /, name);
        assert.match(r.inner.error.message, message, name);
      }
      const first = await s.register('Impostor Target');
      const second = await s.register('Impostor Target');
      assert.deepEqual([first.name, second.name], ['Impostor Target', 'Impostor Target']);
      assert.deepEqual([first.slug, second.slug], ['impostor-target', 'impostor-target-2']);
      for (const name of ['alice@home', 'C++ (beta)', 'Removed Items Bot', 'deleted-scenes', 'a [b] c', '@ home']) {
        assert.equal((await s.register(name)).name, name, name);
      }
    });

    it('names without ASCII letters, or of one character, still get valid unique slugs', async () => {
      const seen = new Set<string>();
      for (const name of ['日本語エージェント', '🤖', 'Ωμέγα', '日本語エージェント', 'x', 'x', '---']) {
        const r = await s.register(name);
        assertSlug(r.slug, name);
        assert.equal(r.name, name);
        assert.ok(!seen.has(r.slug), `unique: ${r.slug}`);
        seen.add(r.slug);
      }
    });

    it('long names give slugs of at most 40 characters, also with a collision suffix', async () => {
      const name = 'An Extremely Long Agent Name That Goes On And On For Sixty Four'; // 63 chars
      assert.ok(name.length <= 64);
      const a = await s.register(name);
      const b = await s.register(name);
      assertSlug(a.slug, 'long a');
      assertSlug(b.slug, 'long b');
      assert.ok(a.slug.startsWith('an-extremely-long-agent-name'));
      assert.match(b.slug, /-2$/);
      assert.notEqual(a.slug, b.slug);
    });

    it('the name is trimmed; 64 characters (code points) is the limit', async () => {
      const r = await register(s, { name: '   Padded Name \t ' });
      assert.equal(r.status, 201);
      assert.equal(r.body.name, 'Padded Name');
      assert.equal(r.body.slug, 'padded-name');
      const max = await register(s, { name: '  ' + 'm'.repeat(64) + '  ' });
      assert.equal(max.status, 201);
      assert.equal(max.body.name, 'm'.repeat(64));
      const emoji = await register(s, { name: '🤖'.repeat(64) }); // 64 code points, 128 UTF-16 units
      assert.equal(emoji.status, 201, JSON.stringify(emoji.body));
      assertBadRequest(await register(s, { name: '🤖'.repeat(65) }), '65 emoji');
    });

    it('bad names and bodies → 400 INVALID_INPUT in the error envelope', async () => {
      const cases: Array<[string, unknown]> = [
        ['missing name', {}],
        ['number', { name: 42 }],
        ['null', { name: null }],
        ['array', { name: ['a'] }],
        ['object', { name: { first: 'a' } }],
        ['boolean', { name: true }],
        ['empty', { name: '' }],
        ['whitespace', { name: '   \t ' }],
        ['65 chars', { name: 'n'.repeat(65) }],
        ['BEL', { name: 'bad\u0007name' }],
        ['newline', { name: 'two\nlines' }],
        ['NUL', { name: 'nul\u0000name' }],
        ['DEL', { name: 'del\u007fname' }],
        ['C1', { name: 'c1\u0085name' }],
        ['extra field', { name: 'Fine Name', email: 'x@example.com' }],
        ['only extra field', { nickname: 'Fine Name' }],
        ['array body', ['Fine Name']],
        ['string body', 'Fine Name'],
        ['number body', 7],
        ['null body', null],
      ];
      for (const [why, body] of cases) assertBadRequest(await register(s, body), why);
      const empty = await s.raw('/api/users/register', { method: 'POST', headers: { 'content-type': 'application/json' } });
      assertBadRequest(empty, 'empty body');
      // Messages name the field.
      const r = await register(s, { name: 5 });
      assert.match(r.inner.error.message, /name/);
      const x = await register(s, { name: 'ok', email: 'e' });
      assert.match(x.inner.error.message, /email/);
    });

    it('a body that is not JSON → 400 INVALID_JSON in the error envelope', async () => {
      const r = await register(s, undefined, '{name: oops');
      assert.equal(r.status, 400);
      assertEnvelope(r, 'error');
      assert.equal(r.inner.error.code, 'INVALID_JSON');
    });

    it('the database stores only the SHA-256 of the key, never the key', async () => {
      const reg = await s.register('Hash Only');
      const key = reg.apiKey;
      const found = await s.store.findKeyByHash(sha256(key));
      assert.ok(found, 'findKeyByHash(sha256(key)) finds the key');
      assert.equal(found.agent.id, reg.id);
      assert.equal(found.key.agentId, reg.id);
      assert.equal(await s.store.findKeyByHash(key), null, 'the raw key is not a lookup value');
      assert.ok(!JSON.stringify(found).includes(key.slice(3)), 'the key record does not carry the key');
      assert.ok((await keyHashesInDatabase(s)).includes(sha256(key)), 'api_keys.key_hash = sha256 hex of the key');
      const body = key.slice(3);
      const values = await dumpDatabase(s);
      assert.ok(values.includes(sha256(key)), 'the dump reads api_keys (it holds the hash)');
      for (const v of values) {
        assert.ok(!v.includes(body), 'no stored value contains the key');
      }
    });
  });

  describe(`registration rate limit (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, { REGISTRATIONS_PER_IP_PER_HOUR: '2' });
    });
    after(() => s.close());

    it('per-IP limit → 429 RATE_LIMITED with Retry-After', async () => {
      assert.equal((await register(s, { name: 'Limited One' })).status, 201);
      assert.equal((await register(s, { name: 'Limited Two' })).status, 201);
      const r = await register(s, { name: 'Limited Three' });
      assert.equal(r.status, 429, JSON.stringify(r.body));
      assertEnvelope(r, 'error');
      assert.equal(r.inner.error.code, 'RATE_LIMITED');
      assert.match(r.inner.error.message, /2 per hour/);
      const retry = r.headers.get('retry-after');
      assert.match(retry ?? '', /^\d+$/);
      const secs = Number(retry);
      assert.ok(secs >= 1 && secs <= 3600, `Retry-After ${secs}`);
      assert.equal(r.inner.error.details.retryAfterSeconds, secs);
      // Still limited on the next try; nothing was created.
      assert.equal((await register(s, { name: 'Limited Four' })).status, 429);
    });
  });

  // Behind nginx (deploy/nginx.conf), X-Forwarded-For reaches the service as "<whatever the
  // client sent>, <the client's real address>": only the hops TRUST_PROXY names are believed.
  for (const trust of ['1', 'true', '127.0.0.1', 'loopback, 10.0.0.0/8']) {
    describe(`TRUST_PROXY=${trust}: the client address is the one the trusted proxy saw (${backend})`, () => {
      let s: TestServer;
      before(async () => {
        s = await startServer(backend, { REGISTRATIONS_PER_IP_PER_HOUR: '1', TRUST_PROXY: trust });
      });
      after(() => s.close());
      const via = (forwardedFor: string, name: string) =>
        s.raw('/api/users/register', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
          body: JSON.stringify({ name }),
        });

      it('a spoofed X-Forwarded-For entry does not buy a new registration budget; another real client has its own', async () => {
        assert.equal((await via('198.51.100.1, 203.0.113.7', 'Proxied One')).status, 201);
        for (const spoof of ['198.51.100.2, 203.0.113.7', '198.51.100.3,198.51.100.4, 203.0.113.7', '203.0.113.9 , 203.0.113.7']) {
          const r = await via(spoof, 'Proxied Spoof');
          assert.equal(r.status, 429, `${spoof}: ${JSON.stringify(r.body)}`);
          assert.equal(r.inner.error.code, 'RATE_LIMITED');
        }
        assert.equal((await via('198.51.100.1, 203.0.113.8', 'Proxied Two')).status, 201, 'a different real client');
      });
    });
  }

  describe(`authentication failures (${backend})`, () => {
    let s: TestServer;
    let agentId: string;
    let goodKey: string;
    before(async () => {
      s = await startServer(backend);
      const reg = await s.register('Auth Target');
      agentId = reg.id;
      goodKey = reg.apiKey;
    });
    after(() => s.close());

    async function expect401(authorization: string | null, reason: string): Promise<CallResult> {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (authorization !== null) headers.authorization = authorization;
      const r = await s.raw('/api/tools/get_key_info', { method: 'POST', headers, body: '{}' });
      assert.equal(r.status, 401, `${reason}: ${JSON.stringify(r.body)}`);
      assertEnvelope(r, 'error');
      assert.equal(r.inner.error.code, 'UNAUTHORIZED', reason);
      assert.equal(r.inner.error.details.reason, reason);
      assert.match(r.inner.error.message, /redirect/i, `${reason}: redirect hint`);
      assert.ok(r.inner.error.message.includes(s.config.baseUrl), `${reason}: message names the base URL`);
      return r;
    }

    it('missing header → reason missing', async () => {
      await expect401(null, 'missing');
      await expect401('', 'missing');
    });

    it('wrong scheme → reason wrong_scheme', async () => {
      await expect401('Basic dXNlcjpwYXNz', 'wrong_scheme');
      await expect401(`Token ${goodKey}`, 'wrong_scheme');
      await expect401(goodKey, 'wrong_scheme');
    });

    it('malformed key → reason malformed', async () => {
      await expect401('Bearer mk_short', 'malformed');
      await expect401('Bearer ' + goodKey.slice(0, -1), 'malformed');
      await expect401('Bearer ' + goodKey + 'x', 'malformed');
      await expect401('Bearer sk_' + goodKey.slice(3), 'malformed');
      await expect401('Bearer ' + goodKey.slice(0, -1) + '-', 'malformed');
      await expect401('Bearer', 'malformed');
    });

    it('unknown well-formed key → reason unknown, without revealing anything', async () => {
      const r = await expect401(`Bearer ${generateApiKey()}`, 'unknown');
      assert.ok(!r.inner.error.message.includes(agentId));
      assert.deepEqual(Object.keys(r.inner.error.details), ['reason']);
    });

    it('revoked key → reason revoked; expired key → reason expired', async () => {
      const revoked = await s.addKey(agentId, { scopes: ['files'], revokedAtMs: Date.now() - 60_000 });
      await expect401(`Bearer ${revoked}`, 'revoked');
      const expired = await s.addKey(agentId, { scopes: ['files'], expiresAtMs: Date.now() - 60_000 });
      await expect401(`Bearer ${expired}`, 'expired');
    });

    it('a valid key works, with the scheme in any case; a future expiry is reported', async () => {
      assert.equal((await s.call(goodKey, 'get_key_info')).status, 200);
      const r = await s.raw('/api/tools/get_key_info', { method: 'POST', headers: { authorization: `bearer ${goodKey}` }, body: '{}' });
      assert.equal(r.status, 200);
      assertEnvelope(r, 'success');
      const exp = Date.now() + 3_600_000;
      const later = await s.addKey(agentId, { scopes: ['files'], expiresAtMs: exp });
      const info = await s.ok(later, 'get_key_info');
      assert.equal(info.expiresAt, new Date(exp).toISOString());
    });

    it('a 401 is returned before input is looked at, for every tool', async () => {
      const r = await s.raw('/api/tools/write', {
        method: 'POST',
        headers: { authorization: 'Bearer mk_nope' },
        body: JSON.stringify({ bogus: true }),
      });
      assert.equal(r.status, 401);
      assert.equal(r.inner.error.details.reason, 'malformed');
    });
  });
}

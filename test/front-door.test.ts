/**
 * What an agent that only knows the host and /skill.md trips on (front door): the
 * front page, advertised scopes, credentials never echoed, every error in the envelope, and an
 * MCP surface whose tool descriptions, instructions, version and headers stand on their own.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ALL_SCOPES, PRESETS } from '../src/core/scopes.js';
import { buildRegistry } from '../src/tools/index.js';
import { assertEnvelope } from './helpers/assert-envelope.js';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const registry = buildRegistry();
const PKG_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
/** The scopes some tool (other than a full-access one) needs: what may be advertised. */
const IN_USE = ALL_SCOPES.filter((s) => registry.all().some((t) => !t.fullAccess && t.scopes.includes(s)));
const NOT_IN_USE = ALL_SCOPES.filter((s) => !IN_USE.includes(s));

/** Every substring of `secret` of `len` characters found in `text`. */
function leaks(secret: string, text: string, len = 6): string[] {
  const found: string[] = [];
  for (let i = 0; i + len <= secret.length; i++) if (text.includes(secret.slice(i, i + len))) found.push(secret.slice(i, i + len));
  return found;
}

const mcpPost = (s: TestServer, key: string | null, body: unknown) =>
  fetch(`${s.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: JSON.stringify(body),
  });

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

describe('front page content negotiation', () => {
  it('JSON only when asked for and preferred over markdown', async () => {
    const { wantsJson } = await import('../src/http/front.js');
    assert.equal(wantsJson(undefined), false);
    assert.equal(wantsJson('*/*'), false);
    assert.equal(wantsJson('application/json'), true);
    assert.equal(wantsJson('application/json, text/plain;q=0.5'), true);
    assert.equal(wantsJson('text/markdown, application/json;q=0.9'), false);
    assert.equal(wantsJson('text/html,application/xhtml+xml'), false);
    assert.equal(wantsJson('application/json;q=0'), false);
  });
});

for (const backend of backends()) {
  describe(`front door (${backend})`, () => {
    let s: TestServer;
    let key: string;
    let agentId: string;
    before(async () => {
      s = await startServer(backend);
      const reg = await s.register('Front Door');
      key = reg.apiKey;
      agentId = reg.id;
    });
    after(() => s.close());

    it('GET / answers a markdown front page pointing to the reference files that exist', async () => {
      const res = await fetch(`${s.url}/`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type')!, /^text\/markdown/);
      const md = await res.text();
      for (const file of ['/skill.md', '/heartbeat.md', '/mcp.md', '/skill.json', '/openapi.json']) {
        assert.ok(md.includes(`${s.config.baseUrl}${file}`), `front page names ${file}`);
        assert.equal((await fetch(`${s.url}${file}`)).status, 200, `${file} exists`);
      }
      assert.ok(md.includes(`${s.config.baseUrl}/mcp`));
      assert.ok(md.includes(`curl -s -X POST ${s.config.baseUrl}/api/users/register`));
    });

    it('GET / with Accept: application/json answers the same as JSON, with the service version', async () => {
      const r = await s.raw('/', { headers: { accept: 'application/json' } });
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type')!, /^application\/json/);
      assert.equal(r.body.version, PKG_VERSION);
      assert.equal(r.body.docs.skill, `${s.config.baseUrl}/skill.md`);
      assert.equal(r.body.docs.heartbeat, `${s.config.baseUrl}/heartbeat.md`);
      assert.equal(r.body.endpoints.mcp, `POST ${s.config.baseUrl}/mcp`);
      assert.match(r.body.start, /skill\.md/);
    });

    it('unknown routes and register errors use the envelope; GET on register → 405 METHOD_NOT_ALLOWED', async () => {
      const n = await s.raw('/nope?x=1');
      assert.equal(n.status, 404);
      assertEnvelope(n, 'error');
      assert.equal(n.inner.error.code, 'NOT_FOUND');
      assert.match(n.inner.error.message, /skill\.md/);
      const bad = await s.raw('/api/users/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"nom": "x"}' });
      assert.equal(bad.status, 400);
      assertEnvelope(bad, 'error');
      assert.equal(bad.inner.error.code, 'INVALID_INPUT');
      const notJson = await s.raw('/api/users/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{oops' });
      assert.equal(notJson.status, 400);
      assertEnvelope(notJson, 'error');
      assert.equal(notJson.inner.error.code, 'INVALID_JSON');
      const get = await s.raw('/api/users/register');
      assert.equal(get.status, 405);
      assert.equal(get.headers.get('allow'), 'POST');
      assertEnvelope(get, 'error');
      assert.equal(get.inner.error.code, 'METHOD_NOT_ALLOWED');
    });

    it('get_key_info, list_keys and skill.md advertise only scopes that some tool needs', async () => {
      // Every family is built now (search was the last): each scope of the contract has a tool.
      assert.deepEqual(NOT_IN_USE, [], 'every scope of the contract has a tool');
      const info = await s.ok(key, 'get_key_info');
      assert.deepEqual(info.scopes, IN_USE);
      assert.equal(info.fullAccess, true);
      const listed = await s.ok(key, 'list_keys');
      assert.deepEqual(listed.keys.find((k: any) => k.current).scopes, IN_USE);
      const md = await (await fetch(`${s.url}/skill.md`)).text();
      const scopesSection = md.slice(md.indexOf('## Scopes'), md.indexOf('## Paths'));
      for (const scope of NOT_IN_USE) assert.ok(!scopesSection.includes(`\`${scope}\``), `skill.md does not advertise ${scope}`);
      for (const scope of IN_USE) assert.ok(scopesSection.includes(`\`${scope}\``), `skill.md lists ${scope}`);
      const frontMatter = md.slice(0, md.indexOf('\n---', 4));
      if (!registry.get('search')) assert.doesNotMatch(frontMatter, /\bsearch\b/, 'the front matter promises no search tool');
      const skillJson = JSON.parse(await (await fetch(`${s.url}/skill.json`)).text());
      assert.deepEqual(skillJson.scopes, IN_USE);
      const openapi = JSON.parse(await (await fetch(`${s.url}/openapi.json`)).text());
      for (const [path, item] of Object.entries<any>(openapi.paths))
        for (const scope of item.post?.['x-scopes'] ?? []) assert.ok(IN_USE.includes(scope), `${path}: ${scope}`);
      assert.ok(openapi.paths['/'].get, 'openapi.json lists GET /');
      for (const t of skillJson.tools) for (const scope of t.scopes) assert.ok(IN_USE.includes(scope), `${t.name}: ${scope}`);
    });

    it('a read-only key calling purge hears that it needs the full-access key, not a list of scopes', async () => {
      const reader = await s.addKey(agentId, { scopes: PRESETS['read-only'] });
      const err = await s.fail(reader, 'purge', { path: '/x.txt' }, 'INSUFFICIENT_SCOPE');
      assert.match(err.message, /full-access key/);
      assert.match(err.message, /registration/);
      assert.match(err.message, /Authorization: Bearer/);
      for (const scope of NOT_IN_USE) assert.ok(!err.message.includes(scope) && !JSON.stringify(err.details).includes(scope), `no ${scope}`);
      assert.equal(err.details.required.fullAccess, true);
      assert.deepEqual(
        err.details.granted.scopes,
        IN_USE.filter((x) => x.endsWith(':read') || x === 'search'),
      );
      const writer = await s.addKey(agentId, { scopes: ['files:read'] });
      const denied = await s.fail(writer, 'write', { path: '/x.txt', content: 'x' }, 'INSUFFICIENT_SCOPE');
      assert.deepEqual(denied.details.granted, ['files:read']);
    });

    it('an Authorization header without "Bearer " is refused without echoing any part of the key', async () => {
      for (const header of [key, `Basic ${key}`, `Token ${key}`, `${key} Bearer`, `Bearer:${key}`]) {
        for (const path of ['/api/tools/get_key_info', '/mcp']) {
          const res = await fetch(`${s.url}${path}`, {
            method: 'POST',
            headers: { authorization: header, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: path === '/mcp' ? JSON.stringify(initialize) : '{}',
          });
          const body = await res.text();
          assert.equal(res.status, 401, `${path} ${header.slice(0, 6)}`);
          assert.match(body, /Bearer/);
          const headers = [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
          assert.deepEqual(leaks(key.slice(3), body + headers), [], `${path}: nothing of the key in the response`);
        }
      }
      assert.deepEqual(leaks(key.slice(3), s.logs.join('')), [], 'nothing of the key in the logs');
    });

    it('401 carries WWW-Authenticate: Bearer on REST and MCP', async () => {
      const rest = await s.call(null, 'read', { path: '/x' });
      assert.equal(rest.status, 401);
      assert.equal(rest.headers.get('www-authenticate'), 'Bearer');
      const mcp = await mcpPost(s, null, initialize);
      assert.equal(mcp.status, 401);
      assert.equal(mcp.headers.get('www-authenticate'), 'Bearer');
      const unknown = await mcpPost(s, 'mk_' + 'A'.repeat(43), initialize);
      assert.equal(unknown.status, 401);
      assert.equal(unknown.headers.get('www-authenticate'), 'Bearer');
    });

    it('MCP initialize: serverInfo.version is the service version, instructions point to skill.md and heartbeat.md', async () => {
      const res = await mcpPost(s, key, initialize);
      assert.equal(res.status, 200);
      const msg = (await res.json()) as any;
      assert.equal(msg.result.serverInfo.version, PKG_VERSION);
      const skillJson = JSON.parse(await (await fetch(`${s.url}/skill.json`)).text());
      assert.ok(skillJson.version.startsWith(`${PKG_VERSION}+`), 'skill.json reports the same version');
      assert.ok(msg.result.instructions.includes(`${s.config.baseUrl}/skill.md`));
      assert.ok(msg.result.instructions.includes(`${s.config.baseUrl}/heartbeat.md`));
      for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-request-id'])
        assert.ok(res.headers.get(h), `${h} on /mcp`);
      // A notification (202, no body) and a tools/call tell the window too, as REST does.
      const note = await mcpPost(s, key, { jsonrpc: '2.0', method: 'notifications/initialized' });
      assert.equal(note.status, 202);
      const call = await mcpPost(s, key, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_key_info', arguments: {} } });
      assert.equal(call.status, 200);
      for (const r of [note, call])
        for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) assert.match(r.headers.get(h) ?? '', /^\d+$/, h);
      assert.ok(Number(call.headers.get('x-ratelimit-remaining')) < Number(res.headers.get('x-ratelimit-remaining')), 'the call counted');
    });

    it('MCP tools/list: each description stands alone and is short: its summary, its note and its scope', async () => {
      const client = new McpClient({ name: 'afs-test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${s.url}/mcp?toolsets=all`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
      );
      try {
        const { tools } = await client.listTools();
        assert.equal(tools.length, registry.all().length);
        for (const t of tools) {
          const def = registry.get(t.name)!;
          assert.ok(t.description!.startsWith(def.summary), `${t.name} starts with its summary`);
          assert.match(t.description!, /^[A-Z]/, `${t.name} starts a sentence`);
          assert.match(t.description!, / (Scope: [^\n]+|Full-access key only)\.$/, `${t.name} ends with its scope`);
          assert.ok(t.description!.length <= 300 && !t.description!.includes('\n'), `${t.name}: one short paragraph`);
          if (def.note) assert.ok(t.description!.includes(def.note), `${t.name} carries its note`);
        }
        assert.match(tools.find((t) => t.name === 'purge')!.description!, /Full-access key only\.$/);
      } finally {
        await client.close();
      }
    });
  });
}

for (const backend of backends()) {
  describe(`front door: what skill.md promises holds (${backend})`, () => {
    let s: TestServer;
    let key: string;
    before(async () => {
      s = await startServer(backend, { REGISTRATIONS_PER_IP_PER_HOUR: '7', BASH_MAX_CONCURRENT_PER_AGENT: '3' });
      key = (await s.register('Doc Reader')).apiKey;
    });
    after(() => s.close());

    it('an unknown field on a changing tool lists idempotencyKey among the valid fields; on a reading tool it does not', async () => {
      const w = await s.fail(key, 'write', { path: '/a.txt', content: 'x', idempotency_key: 'k1' }, 'INVALID_INPUT');
      assert.match(w.message, /Valid fields: [^.]*idempotencyKey/);
      assert.ok(w.details.allowed.includes('idempotencyKey'));
      assert.equal(w.details.suggestion, 'idempotencyKey');
      const r = await s.fail(key, 'read', { path: '/a.txt', bogus: 1 }, 'INVALID_INPUT');
      assert.ok(!r.details.allowed.includes('idempotencyKey'));
      assert.doesNotMatch(r.message, /idempotencyKey/);
    });

    it('the documented aliases work, and the files page of the reference names each of them', async () => {
      const w = await s.ok(key, 'write', { filePath: '/alias.txt', content: 'one two two\n' });
      assert.equal(w.path, '/alias.txt');
      const e = await s.ok(key, 'edit', { file_path: '/alias.txt', oldString: 'two', newString: '2', replaceAll: true });
      assert.equal(e.replacements, 2);
      assert.equal((await s.ok(key, 'read', { path: '/alias.txt' })).content, 'one 2 2\n');
      const md = await (await fetch(`${s.url}/skill/files.md`)).text();
      for (const alias of ['file_path', 'filePath', 'oldString', 'newString', 'replaceAll']) assert.ok(md.includes(`\`${alias}\``), alias);
    });

    it('skill.md documents the limits, result fields and route errors an agent meets', async () => {
      const md = await (await fetch(`${s.url}/skill.md`)).text();
      assert.match(md, /Registrations per address: 7 per hour/);
      assert.match(md, /registrations are limited to\s+7 per address per hour/i);
      assert.match(md, /at most 3 commands of an agent at once \(one more: 429/);
      assert.match(md, /\| `METHOD_NOT_ALLOWED` \| 405 \|/);
      for (const field of ['`next`', '`partial: true`', '`replayed: true`', '`entries`']) assert.ok(md.includes(field), field);
      assert.match(md, /WWW-Authenticate: Bearer/);
      const mcp = await (await fetch(`${s.url}/mcp.md`)).text();
      assert.match(mcp, /instructions/);
      assert.match(mcp, /serverInfo\.version/);
    });

    it('the documented result fields are what tools return: replayed, entries on a directory stat', async () => {
      const first = await s.ok(key, 'write', { path: '/d/f.txt', content: 'x', idempotencyKey: 'same' });
      const again = await s.ok(key, 'write', { path: '/d/f.txt', content: 'x', idempotencyKey: 'same' });
      assert.equal(first.replayed, undefined);
      assert.equal(again.replayed, true);
      await s.ok(key, 'write', { path: '/d/g.txt', content: 'y' });
      assert.equal((await s.ok(key, 'stat', { path: '/d' })).entryCount, 2);
      assert.equal((await s.ok(key, 'stat', { path: '/d/f.txt' })).entryCount, undefined);
    });

    it('every response carries X-Request-Id, reference files and health checks included', async () => {
      for (const path of ['/', '/skill.md', '/healthz', '/readyz', '/nope']) {
        const res = await fetch(`${s.url}${path}`);
        assert.ok(res.headers.get('x-request-id'), path);
      }
    });
  });
}

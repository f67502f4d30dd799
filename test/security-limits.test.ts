/**
 * The rate limit cannot be sidestepped. Every tool call counts (an MCP
 * JSON-RPC batch of N tools/call costs N; the calls past the budget get RATE_LIMITED results,
 * the others run), the budget is the agent's (every key draws on it), and minting keys is
 * capped (MAX_KEYS_PER_AGENT live keys). Through HTTP, on both backends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const LIMIT = 6;

/** The budget is per one-minute window: start well inside one. */
async function freshWindow(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  // The calls below take under a second (measured); 5 s is their margin.
  if (left < 5_000) await new Promise((r) => setTimeout(r, left + 100));
}

function mcp(s: TestServer, key: string, body: unknown) {
  return s.raw('/mcp', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
  });
}

const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
const text = (m: any) => JSON.parse(m.result.content[0].text);

for (const backend of backends()) {
  describe(`rate limits cannot be sidestepped (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, { RATE_LIMIT_PER_MINUTE: String(LIMIT), MAX_KEYS_PER_AGENT: '3' });
    });
    after(() => s.close());

    it('an MCP batch of N tools/call counts N: the calls past the budget get RATE_LIMITED, the others run', async () => {
      await freshWindow();
      const { apiKey, id } = await s.register('Batcher');
      const batch = Array.from({ length: 10 }, (_, i) => call(i + 1, 'write', { path: `/b/${i}.txt`, content: `${i}\n` }));
      const r = await mcp(s, apiKey, batch);
      assert.equal(r.status, 200);
      assert.equal(r.body.length, 10);
      const refused = r.body.filter((m: any) => m.result.isError);
      assert.equal(refused.length, 10 - LIMIT);
      for (const m of refused) {
        const e = text(m).error;
        assert.equal(e.code, 'RATE_LIMITED');
        assert.match(e.message, /per minute/);
        assert.ok(e.details.retryAfterSeconds >= 1);
        assert.equal(e.details.per, 'agent');
      }
      assert.equal(r.headers.get('x-ratelimit-limit'), String(LIMIT));
      assert.equal(r.headers.get('x-ratelimit-remaining'), '0', 'the headers tell the window as the calls left it');
      // Exactly the admitted calls ran.
      const written = (await s.store.listSubtree(id, '/b', 100, null)).nodes.filter((n) => n.kind === 'file');
      assert.equal(written.length, LIMIT);
      const over = await s.call(apiKey, 'read', { path: '/b/0.txt' });
      assert.equal(over.status, 429, 'the budget is spent for REST too');
      assert.equal(over.inner.error.code, 'RATE_LIMITED');
      // A request with no tools/call counts one and is refused whole.
      const list = await mcp(s, apiKey, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
      assert.equal(list.status, 429);
    });

    it('every other JSON-RPC message of a batch counts too: tools/list cannot be batched for free', async () => {
      await freshWindow();
      const { apiKey } = await s.register('Lister');
      const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
      const mixed = await mcp(s, apiKey, [call(1, 'get_key_info'), list(2), list(3)]);
      assert.equal(mixed.status, 200);
      assert.equal(mixed.body.length, 3);
      const info = await s.ok(apiKey, 'get_key_info');
      assert.equal(info.usage.rate.used, 4);
      // A batch over the transport's 100 messages is refused whole (400) and counts one.
      const huge = await mcp(
        s,
        apiKey,
        Array.from({ length: 101 }, (_, i) => call(i + 1, 'get_key_info')),
      );
      assert.equal(huge.status, 400);
      assert.equal((await s.ok(apiKey, 'get_key_info')).usage.rate.used, 6);
      const flood = await mcp(s, apiKey, [call(1, 'get_key_info'), ...Array.from({ length: 10 }, (_, i) => list(i + 2))]);
      assert.equal(flood.status, 429);
      assert.equal(flood.inner?.error?.code ?? flood.body?.error?.code, 'RATE_LIMITED');
    });

    it('the budget is per agent: a minted key draws on the same window; another agent is not affected', async () => {
      await freshWindow();
      const a = await s.register('Minter');
      const minted = await s.ok(a.apiKey, 'create_key', { label: 'second', preset: 'files' }); // 1
      for (let i = 0; i < 2; i++) assert.equal((await s.call(a.apiKey, 'get_key_info')).status, 200); // 3
      for (let i = 0; i < 2; i++) assert.equal((await s.call(minted.apiKey, 'stat', { path: '/' })).status, 200); // 5
      const info = await s.call(minted.apiKey, 'get_key_info'); // 6
      assert.equal(info.status, 200);
      assert.deepEqual([info.inner.usage.rate.used, info.inner.usage.rate.remaining, info.inner.usage.rate.per], [LIMIT, 0, 'agent']);
      assert.equal(info.headers.get('x-ratelimit-remaining'), '0');
      for (const key of [a.apiKey, minted.apiKey]) {
        const r = await s.call(key, 'get_key_info');
        assert.equal(r.status, 429);
        assert.match(r.inner.error.message, /this agent/);
      }
      const other = await s.register('Bystander');
      assert.equal((await s.call(other.apiKey, 'get_key_info')).status, 200);
    });

    it('create_key is capped at MAX_KEYS_PER_AGENT live keys (QUOTA_EXCEEDED); revoked and rotated-out keys do not count', async () => {
      const fresh = await startServer(backend, { RATE_LIMIT_PER_MINUTE: '1000', MAX_KEYS_PER_AGENT: '3' });
      try {
        const a = await fresh.register('Hoarder');
        assert.equal((await fresh.ok(a.apiKey, 'get_key_info', { includeLimits: true })).limits.maxKeys, 3);
        const k2 = await fresh.ok(a.apiKey, 'create_key', { label: 'two', preset: 'files' });
        await fresh.ok(a.apiKey, 'create_key', { label: 'three', preset: 'files' });
        const err = await fresh.fail(a.apiKey, 'create_key', { label: 'four', preset: 'files' }, 'QUOTA_EXCEEDED');
        assert.deepEqual(err.details, { quota: 'keys', liveKeys: 3, limit: 3 });
        assert.match(err.message, /revoke/i);
        // Concurrent attempts cannot overshoot on one instance.
        const burst = await Promise.all(
          Array.from({ length: 5 }, (_, i) => fresh.call(a.apiKey, 'create_key', { label: `burst ${i}`, preset: 'files' })),
        );
        assert.ok(burst.every((r) => r.inner.error?.code === 'QUOTA_EXCEEDED'));
        await fresh.ok(a.apiKey, 'revoke_key', { keyId: k2.keyId });
        const k4 = await fresh.ok(a.apiKey, 'create_key', { label: 'four', preset: 'files' });
        // A rotation replaces a key: the old one, in its grace period, is not live.
        await fresh.ok(k4.apiKey, 'rotate_key', { gracePeriodSeconds: 600 });
        await fresh.fail(a.apiKey, 'create_key', { label: 'five', preset: 'files' }, 'QUOTA_EXCEEDED');
        // An expired key does not count either.
        const b = await fresh.register('Expirer');
        await fresh.addKey(b.id, { scopes: ['files'], expiresAtMs: Date.now() - 1000 });
        await fresh.addKey(b.id, { scopes: ['files'], expiresAtMs: Date.now() - 1000 });
        await fresh.ok(b.apiKey, 'create_key', { label: 'two', preset: 'files' });
        await fresh.ok(b.apiKey, 'create_key', { label: 'three', preset: 'files' });
        await fresh.fail(b.apiKey, 'create_key', { label: 'four', preset: 'files' }, 'QUOTA_EXCEEDED');
      } finally {
        await fresh.close();
      }
    });
  });
}

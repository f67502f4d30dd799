/**
 * The HTTP layer's shape as a client sees it: per-app state (two apps in one process share no
 * bash counter), the auth cache evicting least recently used keys instead of clearing all,
 * x-request-id on every kind of reply, and each encapsulated scope answering its own 404s.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../src/http/app.js';
import { Authenticator } from '../src/http/auth.js';
import { generateApiKey } from '../src/core/keys.js';
import type { Store } from '../src/store/types.js';
import { buildRegistry } from '../src/tools/index.js';
import { backends } from './helpers/backends.js';
import { Client, startServer, type TestServer } from './helpers/server.js';

for (const backend of backends()) {
  describe(`http layer (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, { BASH_MAX_CONCURRENT_PER_AGENT: '1' });
    });
    after(() => s.close());

    it("two apps in one process on one store: bash concurrency full on app A, app B still runs the agent's command", async () => {
      const b = buildApp({ config: s.config, store: s.store, registry: buildRegistry(), logStream: new PassThrough() });
      await b.listen({ port: 0, host: '127.0.0.1' });
      try {
        const address = b.server.address();
        const other = new Client(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
        const { apiKey } = await s.register('Two Apps');
        const slow = s.call(apiKey, 'bash', { command: 'sleep 1' });
        await new Promise((r) => setTimeout(r, 200));
        const onA = await s.call(apiKey, 'bash', { command: 'echo a' });
        assert.equal(onA.status, 429, 'app A is full');
        assert.equal(onA.inner.error.details.limit, 'bash_concurrency');
        const onB = await other.call(apiKey, 'bash', { command: 'echo b' });
        assert.equal(onB.status, 200, JSON.stringify(onB.body));
        assert.equal(onB.inner.stdout, 'b\n');
        assert.equal((await slow).inner.exitCode, 0);
      } finally {
        await b.close();
      }
    });

    it('x-request-id once on every kind of reply: tool call, 405, 404, reference file, health, MCP', async () => {
      const { apiKey } = await s.register('Ids');
      const replies = [
        await s.call(apiKey, 'get_key_info'),
        await s.raw('/api/tools/read'),
        await s.raw('/nowhere'),
        await s.raw('/healthz'),
        await s.raw('/mcp'),
        await s.raw('/mcp', {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        }),
      ];
      for (const r of replies)
        assert.match(r.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, `${r.status} ${JSON.stringify(r.body).slice(0, 80)}`);
    });

    it('/mcp answers other methods 405 with a plain error body; paths under /mcp/ and /api/tools itself are 404 envelopes', async () => {
      const put = await s.raw('/mcp', { method: 'PUT', body: '{}' });
      assert.equal(put.status, 405);
      assert.equal(put.headers.get('allow'), 'POST');
      assert.equal(put.body.error.code, 'METHOD_NOT_ALLOWED');
      for (const path of ['/mcp/x', '/api/tools']) {
        const r = await s.raw(path);
        assert.equal(r.status, 404, path);
        assert.equal(r.inner.error.code, 'NOT_FOUND', path);
      }
      const get = await s.raw('/api/users/register?x=1');
      assert.equal(get.status, 405);
      assert.equal(get.inner.error.code, 'METHOD_NOT_ALLOWED');
    });
  });
}

describe('auth cache', () => {
  it('when full, drops the least recently used key, not every key', async () => {
    const lookups: string[] = [];
    const store = {
      findKeyByHash: async (hash: string) => {
        lookups.push(hash);
        return null;
      },
      authEpoch: () => 0, // nothing changes: what is kept is only the cache's choice
    } as unknown as Store;
    const auth = new Authenticator(store, 'http://x', { cache: 2 });
    const [a, b, c] = [generateApiKey(), generateApiKey(), generateApiKey()];
    const unknown = (key: string) => assert.rejects(auth.authenticate(`Bearer ${key}`), /Unknown API key/);
    for (const key of [a, b, a, c]) await unknown(key); // a is used after b: b is the least recent when c arrives
    assert.equal(lookups.length, 3);
    await unknown(a); // still cached
    assert.equal(lookups.length, 3);
    await unknown(b); // evicted
    assert.equal(lookups.length, 4);
    auth.forget();
    await unknown(a);
    assert.equal(lookups.length, 5, 'forget() drops every cached lookup');
  });
});

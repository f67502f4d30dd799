/**
 * The MCP endpoint, driven by the SDK's own client over HTTP; and the canonical host redirect.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpExchange } from '../src/http/mcp-exchange.js';
import { buildRegistry } from '../src/tools/index.js';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

/** An SDK client listing every toolset (mcp-toolsets.test.ts holds the default list). */
async function connect(url: string, key: string): Promise<McpClient> {
  const client = new McpClient({ name: 'afs-test', version: '1' });
  const endpoint = new URL(`${url}/mcp?toolsets=all`);
  await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}

const inner = (r: any) => JSON.parse(r.content[0].text);

for (const backend of backends()) {
  describe(`MCP endpoint (${backend})`, () => {
    let s: TestServer;
    let key: string;
    let agentId: string;
    before(async () => {
      s = await startServer(backend);
      const reg = await s.register('Mcp Agent');
      key = reg.apiKey;
      agentId = reg.id;
    });
    after(() => s.close());

    it('tools/list shows every tool the key may use, with schemas and annotations', async () => {
      const client = await connect(s.url, key);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), buildRegistry().names().sort());
      const write = tools.find((t) => t.name === 'write')!;
      assert.equal(write.inputSchema.type, 'object');
      assert.ok((write.inputSchema.properties as any).path);
      // Only hints that differ from MCP's defaults are sent (readOnlyHint false, destructiveHint true).
      assert.equal(write.annotations?.readOnlyHint, undefined);
      assert.equal(write.annotations?.idempotentHint, true);
      assert.equal(tools.find((t) => t.name === 'read')!.annotations?.readOnlyHint, true);
      await client.close();

      const readOnly = await s.addKey(agentId, { scopes: ['files:read'] });
      const limited = await connect(s.url, readOnly);
      const names = (await limited.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('read') && names.includes('bash') && names.includes('get_key_info'));
      assert.ok(!names.includes('write') && !names.includes('edit') && !names.includes('purge'));
      await limited.close();
    });

    it('tools/call: write, read, edit through MCP; a scope error; an unknown tool', async () => {
      const client = await connect(s.url, key);
      const w = await client.callTool({ name: 'write', arguments: { path: '/mcp/a.txt', content: 'hello mcp\n' } });
      assert.ok(!w.isError);
      assert.equal(inner(w).version, 1);
      const r = await client.callTool({ name: 'read', arguments: { path: '/mcp/a.txt' } });
      assert.equal(inner(r).content, 'hello mcp\n');
      const e = await client.callTool({ name: 'edit', arguments: { path: '/mcp/a.txt', old_string: 'hello', new_string: 'hi' } });
      assert.equal(inner(e).version, 2);
      const miss = await client.callTool({ name: 'edit', arguments: { path: '/mcp/a.txt', old_string: 'absent', new_string: 'x' } });
      assert.equal(miss.isError, true);
      assert.equal(inner(miss).error.code, 'NO_MATCH');
      const unknown = await client.callTool({ name: 'reed', arguments: {} });
      assert.equal(unknown.isError, true);
      assert.equal(inner(unknown).error.code, 'UNKNOWN_TOOL');
      await client.close();

      const readOnly = await s.addKey(agentId, { scopes: ['files:read'] });
      const limited = await connect(s.url, readOnly);
      const denied = await limited.callTool({ name: 'write', arguments: { path: '/mcp/b.txt', content: 'x' } });
      assert.equal(denied.isError, true);
      assert.equal(inner(denied).error.code, 'INSUFFICIENT_SCOPE');
      assert.deepEqual(inner(denied).error.details.required, ['files:write']);
      await limited.close();
    });

    it('a bad key is refused with 401', async () => {
      await assert.rejects(connect(s.url, 'mk_' + 'A'.repeat(43)), /401|Unknown API key|Unauthorized/i);
      const r = await s.raw('/mcp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(r.status, 401);
      assert.equal(r.body.error.code, 'UNAUTHORIZED');
      assert.equal((await s.raw('/mcp')).status, 405);
    });

    /** A raw POST /mcp with the headers a Streamable HTTP client sends (overridable). */
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      s.raw('/mcp', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const readCall = (id: string | number, path: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'read', arguments: { path } },
    });

    it('one server for every request: concurrent requests reusing the same JSON-RPC id each get their own answer', async () => {
      const n = 24;
      for (let i = 0; i < n; i++) await s.ok(key, 'write', { path: `/mcp/same-id/${i}.txt`, content: `file ${i}\n` });
      const answers = await Promise.all(Array.from({ length: n }, (_, i) => post(readCall(1, `/mcp/same-id/${i}.txt`))));
      answers.forEach((r, i) => {
        assert.equal(r.status, 200);
        assert.equal(r.body.id, 1, 'the client sees its own id');
        assert.equal(JSON.parse(r.body.result.content[0].text).content, `file ${i}\n`);
      });
    });

    it('a batch answers in order under the ids it was sent with (strings and numbers); notifications alone get 202', async () => {
      const r = await post([
        readCall('a', '/mcp/same-id/0.txt'),
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        readCall(7, '/mcp/same-id/1.txt'),
        { jsonrpc: '2.0', id: 'z', method: 'tools/list' },
      ]);
      assert.equal(r.status, 200);
      assert.deepEqual(
        r.body.map((m: any) => m.id),
        ['a', 7, 'z'],
      );
      assert.equal(JSON.parse(r.body[1].result.content[0].text).content, 'file 1\n');
      assert.ok(r.body[2].result.tools.length > 10);
      const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
      assert.equal(note.status, 202);
      assert.equal(note.text, '');
      // An unknown method is the JSON-RPC error of the protocol, in the batch's place.
      const unknown = await post({ jsonrpc: '2.0', id: 3, method: 'resources/list' });
      assert.equal(unknown.status, 200);
      assert.equal(unknown.body.id, 3);
      assert.equal(unknown.body.error.code, -32601);
    });

    it('a lone tools/call (answered without the SDK) answers exactly as the SDK server answers it in a batch', async () => {
      await s.ok(key, 'write', { path: '/mcp/same.txt', content: 'same\n' });
      const calls: Array<[string, unknown]> = [
        ['read', { path: '/mcp/same.txt' }],
        ['read', { path: '/mcp/missing.txt' }],
        ['read', { path: 42 }],
        ['read', undefined],
        ['stat', { path: '/mcp/same.txt', bogus: 1 }],
        ['reed', {}],
      ];
      for (const [name, args] of calls) {
        const message = { jsonrpc: '2.0', id: 'x1', method: 'tools/call', params: { name, ...(args === undefined ? {} : { arguments: args }) } };
        const alone = await post(message);
        const inBatch = await post([message]);
        assert.equal(alone.status, 200);
        assert.equal(inBatch.status, 200);
        assert.match(alone.headers.get('content-type') ?? '', /^application\/json/);
        // The fast path writes its JSON itself: structuredContent is the text's own JSON, byte for byte.
        if (alone.body.result?.structuredContent)
          assert.deepEqual(alone.body.result.structuredContent, JSON.parse(alone.body.result.content[0].text));
        // Timestamps of a read (accessedAt and the like) may differ by a millisecond; nothing else.
        const norm = (b: any) => JSON.parse(JSON.stringify(b).replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T'));
        assert.deepEqual(norm(alone.body), norm(inBatch.body[0]), `${name} ${JSON.stringify(args)}`);
      }
      // Not plain calls: the SDK answers them (a bad id, params that are not an object, an extra field).
      const badId = await post({ jsonrpc: '2.0', id: 1.5, method: 'tools/call', params: { name: 'read', arguments: { path: '/mcp/same.txt' } } });
      assert.equal(badId.status, 400);
      const badParams = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 7 } });
      assert.equal(badParams.body.error.code, -32603); // the SDK: its request schema throws, an internal error
      const extra = await post({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'read', arguments: { path: '/mcp/same.txt' }, _meta: { progressToken: 1 } },
      });
      assert.equal(JSON.parse(extra.body.result.content[0].text).content, 'same\n');
    });

    it('refuses what the Streamable HTTP transport refuses, with its statuses and JSON-RPC errors', async () => {
      const cases: [string, Promise<Awaited<ReturnType<typeof post>>>, number, number][] = [
        ['no text/event-stream in Accept', post(readCall(1, '/x'), { accept: 'application/json' }), 406, -32000],
        ['not JSON content', post(readCall(1, '/x'), { 'content-type': 'text/plain' }), 415, -32000],
        ['not a JSON-RPC message', post({ hello: 'world' }), 400, -32700],
        [
          'two initialize requests',
          post(
            [1, 2].map((id) => ({
              jsonrpc: '2.0',
              id,
              method: 'initialize',
              params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
            })),
          ),
          400,
          -32600,
        ],
        [
          'an initialize request beside another message',
          post([
            {
              jsonrpc: '2.0',
              id: 1,
              method: 'initialize',
              params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
            },
            readCall(2, '/x'),
          ]),
          400,
          -32600,
        ],
        ['an unsupported protocol version header', post(readCall(1, '/x'), { 'mcp-protocol-version': '1999-01-01' }), 400, -32000],
      ];
      for (const [why, pending, status, code] of cases) {
        const r = await pending;
        assert.equal(r.status, status, why);
        assert.equal(r.body.jsonrpc, '2.0', why);
        assert.equal(r.body.error.code, code, why);
        assert.equal(r.body.id, null, why);
      }
    });
  });
}

describe('MCP exchange', () => {
  it("runs a batch's messages one event-loop turn each, so a batch of slow calls never holds the loop whole", async () => {
    const exchange = new McpExchange();
    // true when a message arrives in the same turn as the one before it (its setImmediate not yet run)
    const sameTurn: boolean[] = [];
    let turnOpen = false;
    exchange.onmessage = (m) => {
      sameTurn.push(turnOpen);
      turnOpen = true;
      setImmediate(() => (turnOpen = false));
      void exchange.send({ jsonrpc: '2.0', id: (m as { id: number }).id, result: {} });
    };
    const batch = ['x', 2, 'y', 4].map((id) => ({ jsonrpc: '2.0', id, method: 'tools/list' }));
    const answer = await exchange.handle(batch, { token: 't', clientId: 'c', scopes: [] });
    assert.deepEqual(sameTurn, [false, false, false, false]);
    assert.equal(answer.status, 200);
    assert.deepEqual(
      (JSON.parse(answer.body as string) as { id: unknown }[]).map((a) => a.id),
      ['x', 2, 'y', 4],
    );
  });
});

describe('canonical host', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer('sqlite', { BASE_URL: 'https://www.example.com' });
  });
  after(() => s.close());

  const onHost = (host: string, path: string, init: RequestInit = {}) =>
    import('node:http').then(
      (http) =>
        new Promise<{ status: number; location: string | undefined; body: string }>((resolve, reject) => {
          const u = new URL(s.url + path);
          const req = http.request(
            { host: u.hostname, port: u.port, path, method: init.method ?? 'GET', headers: { host, ...(init.headers as Record<string, string>) } },
            (res) => {
              let body = '';
              res.on('data', (d) => (body += d));
              res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location, body }));
            },
          );
          req.on('error', reject);
          if (init.body) req.write(init.body);
          req.end();
        }),
    );

  it('the apex host gets 308 to the same path and query on the www host, for GET and POST', async () => {
    const get = await onHost('example.com', '/skill.md?x=1');
    assert.equal(get.status, 308);
    assert.equal(get.location, 'https://www.example.com/skill.md?x=1');
    const post = await onHost('example.com', '/api/tools/read', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json', authorization: 'Bearer mk_x' },
    });
    assert.equal(post.status, 308);
    assert.equal(post.location, 'https://www.example.com/api/tools/read');
    const www = await onHost('www.example.com', '/healthz');
    assert.equal(www.status, 200);
    const other = await onHost('internal-proxy:8080', '/healthz');
    assert.equal(other.status, 200, 'other hosts are served (no STRICT_HOST)');
  });

  it('reference files print the www URL; a client following the redirect loses Authorization and gets a 401 naming the base URL', async () => {
    const md = await (await fetch(`${s.url}/skill.md`)).text();
    assert.ok(md.includes('https://www.example.com/api/users/register'));
    // What fetch does after a cross-origin redirect: the same request without Authorization.
    const r = await s.raw('/api/tools/read', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"path":"/x"}' });
    assert.equal(r.status, 401);
    assert.match(r.inner.error.message, /redirected/);
    assert.ok(r.inner.error.message.includes('https://www.example.com'));
  });
});

describe('STRICT_HOST', () => {
  it('redirects every other host to BASE_URL', async () => {
    const s = await startServer('sqlite', { BASE_URL: 'https://files.example.org', STRICT_HOST: 'true' });
    try {
      const http = await import('node:http');
      const u = new URL(s.url);
      const status = await new Promise<{ code: number; location?: string }>((resolve, reject) => {
        const req = http.request({ host: u.hostname, port: u.port, path: '/skill.md', headers: { host: 'other.example.net' } }, (res) => {
          res.resume();
          resolve({ code: res.statusCode!, location: res.headers.location });
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(status.code, 308);
      assert.equal(status.location, 'https://files.example.org/skill.md');
    } finally {
      await s.close();
    }
  });
});

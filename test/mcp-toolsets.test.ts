/**
 * MCP toolsets and the size of tools/list, driven by the SDK's own client over HTTP: the default
 * list is the core set (≤ 15 KB), every set (?toolsets=all) ≤ 60 KB and ≤ 0.8 KB a tool;
 * enable_toolset turns a set on for the session and sends notifications/tools/list_changed; any
 * tool the key allows can be called listed or not; the key's scopes still filter every list.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { buildApp } from '../src/http/app.js';
import { toolsets } from '../src/http/mcp-list.js';
import { buildRegistry } from '../src/tools/index.js';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const KB = 1024;
const registry = buildRegistry();
const sets = toolsets(registry);
const names = (set: string) => sets.get(set)!.map((t) => t.name);
const CORE = [...names('core'), 'enable_toolset'].sort();

const inner = (r: any) => JSON.parse(r.content[0].text);

for (const backend of backends()) {
  describe(`MCP toolsets (${backend})`, () => {
    let s: TestServer;
    let key: string;
    let agentId: string;
    let slug: string;
    before(async () => {
      s = await startServer(backend);
      const reg = await s.register('Toolset Agent');
      key = reg.apiKey;
      agentId = reg.id;
      slug = reg.slug;
    });
    after(() => s.close());

    /** An SDK client on /mcp{query}; `changes` counts the list_changed notifications it receives. */
    async function connect(k: string, query = '', headers: Record<string, string> = {}) {
      const client = new McpClient({ name: 'afs-toolsets-test', version: '1' });
      const changes = { count: 0 };
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        changes.count++;
      });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${s.url}/mcp${query}`), {
          requestInit: { headers: { Authorization: `Bearer ${k}`, ...headers } },
        }),
      );
      return { client, changes };
    }

    /** tools/list as raw bytes, as a client receives them. */
    async function listBytes(k: string, query = '') {
      const r = await s.raw(`/mcp${query}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(r.status, 200);
      return { bytes: Buffer.byteLength(r.text), tools: r.body.result.tools as any[] };
    }

    it('budgets: the default list (core) ≤ 15 KB; every set ≤ 60 KB and ≤ 0.8 KB a tool', async () => {
      const core = await listBytes(key);
      assert.deepEqual(core.tools.map((t) => t.name).sort(), CORE);
      assert.ok(core.bytes <= 15 * KB, `default tools/list: ${core.bytes} bytes`);
      const all = await listBytes(key, '?toolsets=all');
      assert.deepEqual(all.tools.map((t) => t.name).sort(), registry.names().sort(), 'every tool, and no enable_toolset: nothing is off');
      assert.ok(all.bytes <= 60 * KB, `full tools/list: ${all.bytes} bytes`);
      assert.ok(all.bytes / all.tools.length <= 0.8 * KB, `${(all.bytes / all.tools.length).toFixed(0)} bytes a tool`);
      // Compact: no title repeating the description, no safe-integer bounds, no outputSchema unless asked.
      const text = JSON.stringify(all.tools);
      assert.ok(!text.includes('9007199254740991') && !text.includes('"title":"'), 'no safe-integer bounds, no titles');
      assert.ok(all.tools.every((t) => t.outputSchema === undefined && t.description.length <= 300));
    });

    it('the SDK client sees the core set, enables a toolset, receives list_changed, and calls a tool of it', async () => {
      const { client, changes } = await connect(key);
      const core = (await client.listTools()).tools;
      assert.deepEqual(core.map((t) => t.name).sort(), CORE);
      // Fields many tools share are described once, in instructions, not in each schema.
      const write = core.find((t) => t.name === 'write')!.inputSchema.properties as Record<string, { description?: string }>;
      assert.equal(write.expectedVersion!.description, undefined);
      assert.ok(write.content!.description);
      assert.match(client.getInstructions() ?? '', /expectedVersion: The version you last read; EDIT_CONFLICT/);
      const enabled = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'social' } });
      assert.ok(!enabled.isError);
      assert.deepEqual(inner(enabled).tools, names('social'));
      assert.deepEqual(inner(enabled).enabled, ['core', 'social']);
      assert.equal(inner(enabled).listChanged, true);
      assert.equal(changes.count, 1, 'notifications/tools/list_changed arrived with the answer');
      const listed = (await client.listTools()).tools.map((t) => t.name);
      assert.deepEqual(listed.sort(), [...new Set([...CORE, ...names('social')])].sort());
      const tool = listed.find((n) => n === 'list_followers')!;
      const followers = await client.callTool({ name: tool, arguments: {} });
      assert.ok(!followers.isError);
      assert.deepEqual(inner(followers).items, []);
      // Enabling it again changes nothing and says so; no second notification.
      const again = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'social' } });
      assert.equal(inner(again).listChanged, false);
      assert.equal(changes.count, 1);
      // Another session (a new connection) starts from the default list.
      const other = await connect(key);
      assert.deepEqual((await other.client.listTools()).tools.map((t) => t.name).sort(), CORE);
      await other.client.close();
      await client.close();
    });

    it('the sets enabled follow the session to another instance (in its id) and stay on this one for a client that keeps its first id', async () => {
      const b = buildApp({ config: s.config, store: s.store, registry: buildRegistry(), logStream: new PassThrough() });
      await b.listen({ port: 0, host: '127.0.0.1' });
      try {
        const address = b.server.address();
        const urlB = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
        // The SDK client behind a balancer: its requests go to instance A until enable_toolset, then to B.
        let target = s.url;
        const client = new McpClient({ name: 'afs-balanced', version: '1' });
        const fetchVia = (url: string | URL, init?: RequestInit) => fetch(String(url).replace(s.url, target), init);
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
            fetch: fetchVia,
            requestInit: { headers: { Authorization: `Bearer ${key}` } },
          }),
        );
        await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'posts' } });
        target = urlB;
        const onB = (await client.listTools()).tools.map((t) => t.name);
        assert.ok(
          names('posts').every((n) => onB.includes(n)),
          'instance B lists the set',
        );
        await client.close();
        // A client that keeps the id initialize gave: this instance remembers its sets; another does not.
        const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
        const init = await s.raw('/mcp', {
          method: 'POST',
          headers,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
          }),
        });
        const session = init.headers.get('mcp-session-id')!;
        assert.match(session, /^[A-Za-z0-9_-]{22}$/);
        const send = (base: string, body: unknown) =>
          fetch(`${base}/mcp`, { method: 'POST', headers: { ...headers, 'mcp-session-id': session }, body: JSON.stringify(body) });
        const on = await send(s.url, {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'enable_toolset', arguments: { toolset: 'shares' } },
        });
        assert.match(on.headers.get('content-type') ?? '', /^text\/event-stream/);
        const events = (await on.text()).split('\n').filter((l) => l.startsWith('data: '));
        assert.deepEqual(JSON.parse(events[0]!.slice(6)), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
        assert.equal(JSON.parse(events[1]!.slice(6)).id, 2);
        assert.equal(on.headers.get('mcp-session-id'), `${session}.shares`);
        const list = async (base: string) =>
          ((await (await send(base, { jsonrpc: '2.0', id: 3, method: 'tools/list' })).json()) as any).result.tools.map((t: any) => t.name);
        assert.ok((await list(s.url)).includes('share'), 'this instance remembers the session');
        assert.ok(!(await list(urlB)).includes('share'), 'another instance knows only what the id says');
      } finally {
        await b.close();
      }
    });

    it('a tool outside the enabled sets can be called when the key allows it; REST is unaffected', async () => {
      const { client } = await connect(key);
      const listed = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(!listed.includes('get_my_profile') && !listed.includes('create_community'));
      const profile = await client.callTool({ name: 'get_my_profile', arguments: {} });
      assert.ok(!profile.isError);
      assert.equal(inner(profile).profile.slug, slug);
      const community = await client.callTool({ name: 'create_community', arguments: { name: 'toolsets-test' } });
      assert.ok(!community.isError, JSON.stringify(community));
      assert.equal((await s.ok(key, 'get_community', { name: 'toolsets-test' })).community.name, 'toolsets-test');
      await client.close();
    });

    it('the connection chooses sets: ?toolsets=a,b and the X-MCP-Toolsets header; an unknown name is a 400 naming the sets', async () => {
      const viaUrl = await connect(key, '?toolsets=posts,shares');
      const fromUrl = (await viaUrl.client.listTools()).tools.map((t) => t.name);
      assert.deepEqual(fromUrl.sort(), [...new Set([...CORE, ...names('posts'), ...names('shares')])].sort());
      await viaUrl.client.close();
      const viaHeader = await connect(key, '', { 'X-MCP-Toolsets': 'agents' });
      const fromHeader = (await viaHeader.client.listTools()).tools.map((t) => t.name);
      assert.ok(names('agents').every((n) => fromHeader.includes(n)) && !fromHeader.includes('follow'));
      await viaHeader.client.close();
      await assert.rejects(connect(key, '?toolsets=community'), /400|Unknown toolset/);
      const r = await s.raw('/mcp?toolsets=community', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(r.status, 400);
      assert.equal(r.body.error.code, 'INVALID_INPUT');
      assert.match(r.body.error.message, /Unknown toolset "community".*communities/);
    });

    it('enable_toolset errors: an unknown set or field is INVALID_INPUT naming the sets; the list is unchanged', async () => {
      const { client, changes } = await connect(key);
      const bad = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'everything' } });
      assert.equal(bad.isError, true);
      assert.equal(inner(bad).error.code, 'INVALID_INPUT');
      assert.deepEqual(inner(bad).error.details.valid, [...sets.keys()]);
      const extra = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'posts', also: 'social' } });
      assert.equal(inner(extra).error.code, 'INVALID_INPUT');
      assert.equal(inner(extra).error.details.field, 'also');
      assert.equal(changes.count, 0);
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), CORE);
      await client.close();
    });

    it('without a session (no initialize), enable_toolset names the tools and says the list stays as it was', async () => {
      const r = await s.raw('/mcp', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'enable_toolset', arguments: { toolset: 'agents' } } }),
      });
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/, 'no notification: a plain JSON answer');
      const result = JSON.parse(r.body.result.content[0].text);
      assert.equal(result.listChanged, false);
      assert.deepEqual(result.tools, names('agents'));
      assert.match(result.hint, /No MCP session.*\?toolsets=agents/);
    });

    it("the key's scopes still filter: a read-only key lists no write tools in any set, and enable_toolset names only what it may call", async () => {
      const readOnly = await s.addKey(agentId, { scopes: ['files:read', 'social:read', 'agents:read'] });
      const all = await listBytes(readOnly, '?toolsets=all');
      const listed = all.tools.map((t) => t.name);
      assert.ok(listed.includes('read') && listed.includes('get_home') && listed.includes('list_followers'));
      assert.ok(!listed.includes('write') && !listed.includes('follow') && !listed.includes('purge') && !listed.includes('create_key'));
      const { client } = await connect(readOnly);
      const enabled = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'social' } });
      assert.ok(inner(enabled).tools.includes('list_followers') && !inner(enabled).tools.includes('follow'));
      const denied = await client.callTool({ name: 'follow', arguments: { slug: 'anyone' } });
      assert.equal(inner(denied).error.code, 'INSUFFICIENT_SCOPE');
      await client.close();
    });

    it('enable_toolset counts against the rate limit like any tools/call: past it, RATE_LIMITED', async () => {
      const limited = await startServer(backend, { RATE_LIMIT_PER_MINUTE: '3' });
      try {
        const { apiKey } = await limited.register('Rate Toolsets');
        const enable = () =>
          limited.raw('/mcp', {
            method: 'POST',
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: 'enable_toolset', arguments: { toolset: 'posts' } },
            }),
          });
        // Registration does not count; three calls do.
        for (let i = 0; i < 3; i++) assert.equal((await enable()).body.result.isError, undefined);
        const over = await enable();
        assert.equal(over.body.result.isError, true);
        const error = JSON.parse(over.body.result.content[0].text).error;
        assert.equal(error.code, 'RATE_LIMITED');
        assert.ok(error.details.retryAfterSeconds > 0, JSON.stringify(error));
      } finally {
        await limited.close();
      }
    });

    it('?outputSchemas=true adds compact output schemas, and the SDK client validates structuredContent against them', async () => {
      const { client } = await connect(key, '?outputSchemas=true&toolsets=all');
      const { tools } = await client.listTools();
      const withOutput = tools.filter((t) => t.name !== 'enable_toolset');
      assert.ok(withOutput.every((t) => t.outputSchema?.type === 'object'));
      assert.ok(!JSON.stringify(withOutput.map((t) => t.outputSchema)).includes('"description":"'), 'no field descriptions');
      // The SDK client checks each structuredContent against the listed outputSchema (it throws on a mismatch).
      await client.callTool({ name: 'write', arguments: { path: '/ts/a.md', content: 'x\n' } });
      const read = await client.callTool({ name: 'read', arguments: { path: '/ts/a.md' } });
      assert.equal((read.structuredContent as any).content, 'x\n');
      for (const [name, args] of [
        ['list', { path: '/' }],
        ['list_versions', { path: '/ts/a.md' }],
        ['get_key_info', {}],
        ['get_home', {}],
        ['list_shares', { direction: 'outgoing' }],
        ['list_posts', {}],
        ['search', { query: 'x' }],
      ] as const) {
        const r = await client.callTool({ name, arguments: args });
        assert.ok(!r.isError && r.structuredContent, `${name}: ${JSON.stringify(r).slice(0, 300)}`);
      }
      await client.close();
    });
  });
}

/**
 * Every tool declares its success result as a zod schema (registry.ts `output`). These tests
 * run every tool's examples and the success variants examples do not reach, and check each
 * result against the schema; show that VALIDATE_OUTPUTS (on for the whole suite) turns a result
 * the schema does not describe into a loud INTERNAL_ERROR; and that MCP (outputSchema,
 * structuredContent), OpenAPI and skill.md all show the same schema.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { outputSchema } from '../src/tools/describe.js';
import { compactSchema } from '../src/http/mcp-list.js';
import { buildApp } from '../src/http/app.js';
import { openStore } from '../src/store/open.js';
import { buildRegistry } from '../src/tools/index.js';
import { defineTool, ToolRegistry } from '../src/tools/registry.js';
import { backends, createTestDatabase, testConfig } from './helpers/backends.js';
import { exampleWorld } from './helpers/example-world.js';
import { resolveExampleInput } from './helpers/example-inputs.js';
import { Client, startServer, type TestServer } from './helpers/server.js';

const registry = buildRegistry();

/** Parses a result with its tool's schema; the assertion message lists the zod issues. */
function conforms(tool: string, result: unknown): void {
  const parsed = registry.get(tool)!.output.safeParse(result);
  assert.ok(
    parsed.success,
    `${tool} result does not match its schema: ${parsed.success ? '' : z.prettifyError(parsed.error)}\n${JSON.stringify(result).slice(0, 500)}`,
  );
}

async function connect(url: string, key: string): Promise<McpClient> {
  const client = new McpClient({ name: 'afs-outputs-test', version: '1' });
  // Every toolset, with output schemas (tools/list leaves them out unless asked: the served mcp.md).
  const endpoint = new URL(`${url}/mcp?toolsets=all&outputSchemas=true`);
  await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}

for (const backend of backends()) {
  describe(`tool outputs (${backend})`, () => {
    let s: TestServer;
    let key: string;
    before(async () => {
      s = await startServer(backend);
      key = (await s.register('Output Agent')).apiKey;
    });
    after(() => s.close());

    it('every example of every tool succeeds with a result its output schema describes', async () => {
      // An agent of its own: the rotate_key example rotates the calling key.
      const key = (await exampleWorld(s)).apiKey;
      let checked = 0;
      for (const tool of registry.all()) {
        for (const ex of tool.examples) {
          const r = await s.call(key, tool.name, await resolveExampleInput(s, key, ex.input));
          assert.equal(r.status, 200, `${tool.name} "${ex.title}": ${JSON.stringify(r.body).slice(0, 300)}`);
          assert.equal(r.isError, false, `${tool.name} "${ex.title}": ${JSON.stringify(r.inner).slice(0, 300)}`);
          conforms(tool.name, r.inner);
          checked++;
        }
      }
      assert.equal(
        checked,
        registry.all().reduce((n, t) => n + t.examples.length, 0),
      );
    });

    it('the success variants examples do not reach match their schemas too', async () => {
      const ok = async (tool: string, input: unknown) => {
        const result = await s.ok(key, tool, input);
        conforms(tool, result);
        return result;
      };
      const w = await ok('write', { path: '/v/a.txt', content: 'one\ntwo\nthree\n' });
      assert.equal((await ok('write', { path: '/v/a.txt', content: 'one\ntwo\nthree\n' })).unchanged, true);
      assert.equal((await ok('append', { path: '/v/a.txt', content: '' })).unchanged, true);
      await ok('append', { path: '/v/new.log', content: 'x\n' });
      await ok('write', { path: '/v/bin', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' });
      assert.equal((await ok('read', { path: '/v/bin' })).encoding, 'base64');
      assert.equal((await ok('read', { path: '/v/a.txt', encoding: 'base64' })).lines, null);
      assert.deepEqual((await ok('read', { path: '/v/a.txt', limit: 1 })).next, { offset: 2 });
      assert.ok((await ok('read', { path: '/v/a.txt', offset: 9 })).note);
      await ok('read', { path: '/v/a.txt', version: w.version });
      assert.equal((await ok('stat', { path: '/' })).updatedBy, null);
      assert.equal(typeof (await ok('stat', { path: '/v' })).entryCount, 'number');
      assert.equal((await ok('stat', { path: '/v/a.txt', version: 1 })).op, 'create');
      assert.equal((await ok('mkdir', { path: '/' })).updatedAt, null);
      assert.equal((await ok('mkdir', { path: '/v' })).created, false);
      await ok('mkdir', { path: '/v/d/e' });
      assert.equal((await ok('edit', { path: '/v/a.txt', old_string: 'two', new_string: '2', dryRun: true })).applied, false);
      await ok('edit', {
        path: '/v/a.txt',
        edits: [
          { old_string: 'one', new_string: '1' },
          { old_string: 'three', new_string: '3' },
        ],
      });
      await ok('diff', { path: '/v/a.txt', fromVersion: 1 });
      await ok('write', { path: '/v/bin', content: Buffer.from([0, 9]).toString('base64'), encoding: 'base64' });
      assert.equal((await ok('diff', { path: '/v/bin', fromVersion: 1 })).binary, true);
      assert.equal((await ok('restore', { path: '/v/a.txt', version: 1, dryRun: true })).applied, false);
      await ok('restore', { path: '/v/a.txt', version: 1 });
      await ok('copy', { from: '/v', to: '/c' });
      await ok('move', { from: '/c', to: '/m' });
      const del = await ok('delete', { path: '/m', recursive: true });
      await ok('list_deleted', { path: '/' });
      await ok('restore', { path: '/m/a.txt', version: 1 });
      const since = await ok('list_changes', { afterSeq: 0, limit: 2 });
      assert.equal(typeof since.nextAfterSeq, 'number');
      await ok('list_changes', { before: since.nextAfterSeq + 1 });
      await ok('list_changes', { path: '/v' });
      await ok('list_changes', { changesetId: del.changesetId });
      assert.equal((await ok('revert_changeset', { changesetId: del.changesetId, dryRun: true, force: true })).applied, false);
      await ok('revert_changeset', { changesetId: del.changesetId, force: true });
      await ok('list_versions', { path: '/v/a.txt', limit: 1 });
      await ok('list', { path: '/v', recursive: true, limit: 1 });
      await ok('bash', { command: 'cat /v/a.txt' });
      const b = await ok('bash', { command: 'mkdir -p /b && echo hi > /b/x.txt; grep -c nothing /b/x.txt' });
      assert.equal(b.exitCode, 1);
      assert.equal(b.changedPaths.length, 2);
      await ok('purge', { path: '/b', confirm: true });
      const minted = await ok('create_key', { label: 'k', preset: 'files-read', folder: '/v' });
      const rotated = await ok('rotate_key', { keyId: minted.keyId, gracePeriodSeconds: 60 });
      conforms('get_key_info', await s.ok(minted.apiKey, 'get_key_info', {})); // rotated out: revokedAt set
      await ok('revoke_key', { keyId: minted.keyId });
      await ok('list_keys', {});
      conforms('get_key_info', await s.ok(rotated.apiKey, 'get_key_info', {}));
    });

    it('an idempotent replay (replayed: true) matches the schema, for a file tool and for bash', async () => {
      for (const [tool, input] of [
        ['write', { path: '/idem/a.txt', content: 'a', idempotencyKey: 'out-1' }],
        ['bash', { command: 'echo b > /idem/b.txt; echo done', idempotencyKey: 'out-2' }],
      ] as const) {
        const first = await s.ok(key, tool, input);
        conforms(tool, first);
        const again = await s.ok(key, tool, input);
        conforms(tool, again);
        assert.equal(again.replayed, true);
        assert.deepEqual({ ...again, replayed: undefined }, { ...first, replayed: undefined });
      }
    });

    it('MCP: every tool in tools/list has its outputSchema; a success carries structuredContent, validated by the SDK client', async () => {
      const client = await connect(s.url, key);
      // listTools makes the SDK client check every later result's structuredContent against outputSchema.
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), registry.names().sort());
      // Compact: the same schema without descriptions, titles and far bounds (only constraints dropped).
      for (const t of tools) assert.deepEqual(t.outputSchema, compactSchema(outputSchema(registry.get(t.name)!), null), t.name);
      const w = await client.callTool({ name: 'write', arguments: { path: '/mcp-out/a.txt', content: 'x\n' } });
      assert.deepEqual(w.structuredContent, JSON.parse((w.content as any)[0].text));
      const st = await client.callTool({ name: 'stat', arguments: { path: '/' } });
      assert.equal((st.structuredContent as any).type, 'directory');
      const miss = await client.callTool({ name: 'read', arguments: { path: '/mcp-out/none' } });
      assert.equal(miss.isError, true);
      assert.equal(miss.structuredContent, undefined);
      await client.close();
    });

    it("OpenAPI documents each tool's result schema and the error envelope; skill.md lists the result fields", async () => {
      const api = (await s.raw('/openapi.json')).body;
      // The result fields are on each tool's family page.
      const sj = (await s.raw('/skill.json')).body;
      const pages = Object.keys(sj.files).filter((n) => n.startsWith('skill/'));
      const md = (await Promise.all(pages.map(async (n) => (await s.raw(`/${n}`)).text))).join('\n');
      for (const tool of registry.all()) {
        const ok = api.paths[`/api/tools/${tool.name}`].post.responses['200'].content['application/json'].schema;
        assert.deepEqual(ok.oneOf, [{ $ref: `#/components/schemas/${tool.name}_envelope` }, { $ref: '#/components/schemas/ToolErrorEnvelope' }]);
        const env = api.components.schemas[`${tool.name}_envelope`];
        assert.equal(env.properties.content.items.properties.text.contentSchema.$ref, `#/components/schemas/${tool.name}_result`);
        assert.deepEqual(api.components.schemas[`${tool.name}_result`], outputSchema(tool));
        const section = md.slice(md.indexOf(`### \`${tool.name}\``)).split('\n### ')[0]!;
        assert.ok(section.includes('Result fields'), tool.name);
        // success and warnings come with every result: the envelope section of skill.md says so once.
        for (const field of Object.keys(tool.output.shape).filter((f) => f !== 'success' && f !== 'warnings'))
          assert.ok(section.includes(`- \`${field}\``), `${tool.name}.${field}`);
      }
      const skill = (await s.raw('/skill.md')).text;
      assert.match(skill, /the result's `warnings` \(any tool, optional, strings\) names the field to send/);
      assert.deepEqual(api.components.schemas.ToolErrorEnvelope.properties.isError, { const: true });
      assert.equal(api.components.schemas.ToolError.properties.error.required.join(), 'code,message');
      assert.match(md, /- `contentHash`: `string \| null`/);
    });
  });
}

describe('VALIDATE_OUTPUTS catches a result its schema does not describe', () => {
  // A tool whose handler returns a mistyped field and an undeclared one.
  const wrong = defineTool({
    name: 'zz_wrong',
    family: 'files',
    scopes: [],
    summary: 'probe',
    description: 'probe',
    input: z.strictObject({}),
    output: z.strictObject({ success: z.literal(true), count: z.number().int() }),
    mutating: false,
    annotations: { readOnly: true, destructive: false, idempotent: true },
    errors: [],
    examples: [],
    // The compiler accepts this (count is a number); run time catches the fraction and `extra` (wrongly typed on purpose).
    handler: async () => ({ success: true, count: 1.5, ...({ extra: 'undeclared' } as object) }),
  });

  async function serve(validate: '1' | '0') {
    const db = await createTestDatabase('sqlite');
    const config = testConfig(db, { VALIDATE_OUTPUTS: validate, LOG_LEVEL: 'error' });
    const store = openStore(config);
    await store.migrate();
    const logs: string[] = [];
    const logStream = new PassThrough();
    logStream.on('data', (c: Buffer) => logs.push(c.toString()));
    const app = buildApp({ config, store, registry: new ToolRegistry().register(wrong), logStream });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const client = new Client(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    const { apiKey } = await client.register('Wrong Agent');
    return { client, apiKey, logs, close: async () => (await app.close(), await store.close(), await db.drop()) };
  }

  it('REST and MCP answer INTERNAL_ERROR naming the fields, and the log has the zod issues', async () => {
    const s = await serve('1');
    try {
      const r = await s.client.call(s.apiKey, 'zz_wrong', {});
      assert.equal(r.status, 500);
      assert.equal(r.isError, true);
      assert.equal(r.inner.error.code, 'INTERNAL_ERROR');
      assert.match(r.inner.error.message, /zz_wrong returned a result that does not match its output schema/);
      const issues = r.inner.error.details.issues as Array<{ path: string; code: string }>;
      assert.deepEqual(issues.map((i) => i.code).sort(), ['invalid_type', 'unrecognized_keys']);
      assert.ok(issues.some((i) => i.path === 'count'));
      assert.match(r.inner.error.message, /extra/);
      assert.ok(
        s.logs.some((l) => l.includes('does not match its output schema') && l.includes('unrecognized_keys')),
        s.logs.join(''),
      );

      const mcp = await connect(s.client.url, s.apiKey);
      const m = await mcp.callTool({ name: 'zz_wrong', arguments: {} });
      assert.equal(m.isError, true);
      assert.equal(JSON.parse((m.content as any)[0].text).error.code, 'INTERNAL_ERROR');
      await mcp.close();
    } finally {
      await s.close();
    }
  });

  it('without VALIDATE_OUTPUTS the result goes out unchecked (the flag is what catches it)', async () => {
    const s = await serve('0');
    try {
      const r = await s.client.call(s.apiKey, 'zz_wrong', {});
      assert.equal(r.status, 200);
      assert.deepEqual(r.inner, { success: true, count: 1.5, extra: 'undeclared' });
    } finally {
      await s.close();
    }
  });
});

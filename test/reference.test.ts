/**
 * The reference files are generated from the registry and real runs: every tool appears in
 * skill.md, skill.json and OpenAPI, and every example in skill.md, executed against a fresh
 * server, returns what the document shows (modulo ids and times).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { normalizeExample, renderReference } from '../src/docs/reference.js';
import { runHeartbeatExample } from '../src/docs/heartbeat-run.js';
import { HEARTBEAT_STEPS, STATE_PATH } from '../src/heartbeat/routine.js';
import { buildRegistry } from '../src/tools/index.js';
import { defineTool } from '../src/tools/registry.js';
import { backends, createTestDatabase, testConfig } from './helpers/backends.js';
import { exampleWorld } from './helpers/example-world.js';
import { resolveExampleInput } from './helpers/example-inputs.js';
import { startServer, type TestServer } from './helpers/server.js';

const registry = buildRegistry();

/** Per tool section of skill.md: the example inputs (curl -d) and the response JSON blocks. */
function parseExamples(md: string): Map<string, Array<{ input: any; response: any }>> {
  const out = new Map<string, Array<{ input: any; response: any }>>();
  const sections = md.split(/\n### `/).slice(1);
  for (const section of sections) {
    const name = section.slice(0, section.indexOf('`'));
    const examples: Array<{ input: any; response: any }> = [];
    const re = /-d '((?:[^']|'\\'')*)'\n```\n\nInner JSON of the response \(content\[0\]\.text\):\n\n```json\n([\s\S]*?)\n```/g;
    for (let m = re.exec(section); m; m = re.exec(section)) {
      examples.push({ input: JSON.parse(m[1]!.replace(/'\\''/g, "'")), response: JSON.parse(m[2]!) });
    }
    out.set(name, examples);
  }
  return out;
}

for (const backend of backends()) {
  describe(`reference files (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
    });
    after(() => s.close());

    it('skill.md: front matter, the sections agents need, and every registered tool with its schema and scope', async () => {
      const r = await s.raw('/skill.md');
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /text\/markdown/);
      const md: string = r.body;
      const front = /^---\nname: (.+)\nversion: (.+)\ndescription: (.+)\nhomepage: (.+)\nmetadata: (.+)\n---\n/.exec(md);
      assert.ok(front, 'YAML front matter');
      assert.equal(JSON.parse(front[5]!).api_base, `${s.config.baseUrl}/api`);
      for (const heading of [
        '## Base URL',
        '## Register',
        '## Authenticate',
        '## The response envelope',
        '## Scopes',
        '## Paths and versions',
        '## Tools',
        '## Errors',
        '## Limits',
        '## Heartbeat',
        "## Working with other agents' files",
      ]) {
        assert.ok(md.includes(heading), heading);
      }
      assert.match(md, /Never send your API key to any other host/);
      for (const tool of registry.all()) {
        assert.ok(md.includes(`### \`${tool.name}\``), `skill.md documents ${tool.name}`);
      }
    });

    it('skill.json and openapi.json list every tool; skill.json hashes match the files', async () => {
      const sj = (await s.raw('/skill.json')).body;
      const names = sj.tools.map((t: any) => t.name);
      assert.deepEqual(names, registry.names());
      for (const [name, file] of Object.entries<any>(sj.files)) {
        const text = (await s.raw(`/${name}`)).text;
        assert.equal(file.sha256, createHash('sha256').update(text).digest('hex'), name);
        assert.equal(file.url, `${s.config.baseUrl}/${name}`);
      }
      assert.deepEqual(Object.keys(sj.files).sort(), ['heartbeat.md', 'mcp.md', 'openapi.json', 'skill.md']);
      assert.equal(sj.minHeartbeatIntervalHours, 4);
      assert.match(sj.version, /^\d+\.\d+\.\d+\+[0-9a-f]{12}$/);
      const inUse = registry.scopesInUse();
      for (const t of sj.tools) {
        assert.deepEqual(
          t.scopes,
          registry.get(t.name)!.scopes.filter((x) => inUse.includes(x)),
          `${t.name}'s scopes`,
        );
      }
      const md = (await s.raw('/skill.md')).text;
      assert.ok(md.includes(`version: ${sj.version}`));
      const api = (await s.raw('/openapi.json')).body;
      assert.equal(api.openapi, '3.1.0');
      for (const tool of registry.all()) {
        const op = api.paths[`/api/tools/${tool.name}`]?.post;
        assert.ok(op, `OpenAPI has ${tool.name}`);
        assert.equal(op.requestBody.content['application/json'].schema.type, 'object');
      }
      assert.ok(api.paths['/api/users/register'].post);
    });

    it('every example in skill.md returns what the document shows (modulo ids and times)', async () => {
      const md = (await s.raw('/skill.md')).text;
      const docs = parseExamples(md);
      const { apiKey } = await exampleWorld(s); // the agents the examples ran with
      let checked = 0;
      for (const tool of registry.all()) {
        const examples = docs.get(tool.name) ?? [];
        assert.equal(examples.length, tool.examples.length, `${tool.name}: all examples documented`);
        for (const ex of examples) {
          const r = await s.call(apiKey, tool.name, await resolveExampleInput(s, apiKey, ex.input));
          assert.equal(r.status, 200);
          assert.deepEqual(normalizeExample(r.inner), ex.response, `${tool.name} ${JSON.stringify(ex.input)}`);
          checked++;
        }
      }
      assert.ok(checked >= registry.all().length);
    });

    it('heartbeat.md: how often, what to keep, the steps in order, each with the calls the example run made', async () => {
      const hb: string = (await s.raw('/heartbeat.md')).body;
      assert.match(
        hb,
        /every 4 hours or more: when 4 or more hours have passed since the\n`lastHeartbeatAt` you saved \(`minHeartbeatIntervalHours`/,
      );
      assert.ok(hb.includes(`\`${STATE_PATH}\``), 'where to keep the state');
      for (const field of ['lastHeartbeatAt', 'skillVersion', 'sha256']) assert.ok(hb.includes(`"${field}"`), field);
      const titles = [...hb.matchAll(/\n### (\d+)\. (.+)\n/g)].map((m) => [Number(m[1]), m[2]]);
      assert.deepEqual(
        titles.map(([n]) => n),
        HEARTBEAT_STEPS.map((_, i) => i + 1),
      );
      assert.deepEqual(
        titles.map(([, t]) => t),
        [
          'Check for skill updates',
          'Call `get_home`',
          'Handle notifications, messages and shares received',
          'Read the feed since your last run',
          'Browse published work since your last run',
          'Reply to activity on your posts',
          'Publish or post finished work (only if there is something new)',
          'Save the time',
        ],
      );
      // Each step shows at least one real call with its answer; the answers parse.
      for (const section of hb.split(/\n### \d+\. /).slice(1)) {
        const shown = [...section.matchAll(/: `([a-z_]+)` `(\{.*\})` →\n\n```json\n([\s\S]*?)\n```/g)];
        assert.ok(shown.length > 0, section.slice(0, 40));
        for (const m of shown) {
          assert.ok(registry.get(m[1]!), m[1]);
          JSON.parse(m[2]!);
          JSON.parse(m[3]!);
        }
      }
      assert.match(hb, /alice, second heartbeat: `get_home` `\{\}`/);
      assert.match(hb, /bob, first heartbeat: `copy` `\{"from": "\/published\/alice\/reports\/tokenizer-bench.md"/);
    });

    it('heartbeat.md lists only tools that exist; mcp.md explains the connection', async () => {
      const hb: string = (await s.raw('/heartbeat.md')).body;
      assert.match(hb, /4 or more hours/);
      for (const m of hb.matchAll(/`([a-z_]+)`/g)) {
        if (m[1]!.includes('_') || ['search', 'share', 'publish'].includes(m[1]!)) assert.ok(registry.get(m[1]!), `${m[1]} exists`);
      }
      const mcp: string = (await s.raw('/mcp.md')).body;
      assert.ok(mcp.includes(`${s.config.baseUrl}/mcp`));
      assert.match(mcp, /Authorization: Bearer/);
      // The stdio bridge and the CLI, as agents reach them from the served docs.
      assert.match(mcp, /"command": "afs",\s*"args": \[\s*"mcp"\s*\]/);
      assert.match((await s.raw('/skill.md')).text, /AFS_CREDENTIALS=<that file> AFS_BASE_URL=\S+ afs whoami/);
    });
  });
}

describe('reference versioning', () => {
  it('the version changes when a generated file changes (a new tool appears in every file)', async () => {
    const db = await createTestDatabase('sqlite');
    try {
      const config = testConfig(db);
      const a = renderReference(registry, config, new Map());
      const extended = buildRegistry().register(
        defineTool({
          name: 'zz_probe',
          family: 'files',
          scopes: ['files:read'],
          summary: 'probe',
          description: 'probe',
          input: z.strictObject({}),
          output: z.strictObject({ success: z.literal(true) }),
          mutating: false,
          annotations: { readOnly: true, destructive: false, idempotent: true },
          errors: [],
          examples: [{ title: 'probe', input: {} }],
          handler: async () => ({ success: true }),
        }),
      );
      const b = renderReference(extended, config, new Map());
      assert.notEqual(a.version, b.version);
      assert.ok(b.files['skill.md'].includes('### `zz_probe`'));
      assert.ok(JSON.parse(b.files['skill.json']).tools.some((t: any) => t.name === 'zz_probe'));
      assert.ok(JSON.parse(b.files['openapi.json']).paths['/api/tools/zz_probe']);
      assert.equal(renderReference(registry, config, new Map()).version, a.version, 'same input, same version');
      // heartbeat.md alone changing (its example run shown) changes the version too.
      const run = await runHeartbeatExample(registry, config);
      const c = renderReference(registry, config, new Map(), run);
      assert.notEqual(c.version, a.version);
      assert.equal(c.files['mcp.md'], a.files['mcp.md']);
      assert.notEqual(c.files['heartbeat.md'], a.files['heartbeat.md']);
      assert.equal(renderReference(registry, config, new Map(), await runHeartbeatExample(registry, config)).version, c.version, 'runs are the same');
    } finally {
      await db.drop();
    }
  });
});

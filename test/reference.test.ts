/**
 * The reference files are generated from the registry and real runs (made at build time,
 * dist/reference): every tool appears in skill.md (one compact entry), in exactly one family page
 * (its complete input schema), skill.json and OpenAPI; every example of the family pages, executed
 * against a fresh server, returns what the page shows (modulo ids and times); the budgets hold.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { normalizeExample, renderReference } from '../src/docs/reference.js';
import { HEARTBEAT_STEPS, STATE_PATH } from '../src/heartbeat/routine.js';
import { loadPrebuilt } from '../src/docs/prebuilt.js';
import { inputSchema, scopeText } from '../src/tools/describe.js';
import { inputSignature } from '../src/docs/signature.js';
import { buildRegistry } from '../src/tools/index.js';
import { defineTool } from '../src/tools/registry.js';
import { backends, createTestDatabase, testConfig } from './helpers/backends.js';
import { exampleWorld } from './helpers/example-world.js';
import { resolveExampleInput } from './helpers/example-inputs.js';
import { startServer, type TestServer } from './helpers/server.js';

const registry = buildRegistry();

/** The family pages skill.json lists: path → text. */
async function familyPages(s: TestServer): Promise<Map<string, string>> {
  const sj = (await s.raw('/skill.json')).body;
  const out = new Map<string, string>();
  for (const name of Object.keys(sj.files).filter((n) => n.startsWith('skill/'))) out.set(name, (await s.raw(`/${name}`)).text);
  return out;
}

const KB = 1024;

/** Per tool section of a family page: the example inputs (curl -d) and the response JSON blocks. */
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
      // The build's settings (its rate limit and bash budget show in answers), so the server serves the build's runs.
      s = await startServer(backend, { RATE_LIMIT_PER_MINUTE: '1200', BASH_WORKER_MS_PER_MINUTE: '30000' }, { via: 'inject' });
    });
    after(() => s.close());

    it('skill.md: front matter, the sections agents need, and every registered tool with its scope, signature and an example', async () => {
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
      ]) {
        assert.ok(md.includes(heading), heading);
      }
      assert.match(md, /Never send your API key to any other host/);
      for (const tool of registry.all()) {
        const line = md.split('\n').find((l) => l.startsWith(`- \`${tool.name}\` `));
        assert.ok(line, `skill.md has an entry for ${tool.name}`);
        assert.ok(line.startsWith(`- \`${tool.name}\` (${scopeText(tool)}) \`${inputSignature(tool)}\` → \`{`), line);
        const example = / e\.g\. `(\{.*\})`$/.exec(line);
        assert.ok(example, `${tool.name}: an example`);
        JSON.parse(example[1]!);
      }
      // Each family page is linked.
      for (const page of (await familyPages(s)).keys()) assert.ok(md.includes(`${s.config.baseUrl}/${page}`), page);
    });

    it('budgets: skill.md ≤ 32 KB, each family page ≤ 40 KB, heartbeat.md ≤ 6 KB', async () => {
      const size = async (path: string) => Buffer.byteLength((await s.raw(path)).text);
      assert.ok((await size('/skill.md')) <= 32 * KB, `skill.md is ${await size('/skill.md')} bytes`);
      assert.ok((await size('/heartbeat.md')) <= 6 * KB, `heartbeat.md is ${await size('/heartbeat.md')} bytes`);
      const pages = await familyPages(s);
      assert.ok(pages.size >= 7);
      for (const [name, text] of pages) assert.ok(Buffer.byteLength(text) <= 40 * KB, `${name} is ${Buffer.byteLength(text)} bytes`);
    });

    it('every tool is on exactly one family page, with its complete input schema; unchanged files answer 304', async () => {
      const pages = await familyPages(s);
      const sj = (await s.raw('/skill.json')).body;
      for (const tool of registry.all()) {
        const on = [...pages].filter(([, text]) => text.includes(`\n### \`${tool.name}\`\n`));
        assert.deepEqual(
          on.map(([name]) => name),
          [sj.tools.find((t: any) => t.name === tool.name).page],
          `${tool.name} is on one page, the one skill.json names`,
        );
        const section = on[0]![1].split(`\n### \`${tool.name}\`\n`)[1]!;
        const schema = /Input \(JSON Schema\):\n\n```json\n([\s\S]*?)\n```/.exec(section)!;
        assert.deepEqual(JSON.parse(schema[1]!), inputSchema(tool), `${tool.name}'s input schema`);
      }
      // What an agent re-fetches: nothing, when it sends the version or hash it saved.
      const first = await s.raw('/skill.json');
      assert.equal(first.headers.get('etag'), `"${sj.version}"`);
      const again = await s.raw('/skill.json', { headers: { 'if-none-match': `"${sj.version}"` } });
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
      const page = await s.raw('/skill/files.md', { headers: { 'if-none-match': `"${sj.files['skill/files.md'].sha256}"` } });
      assert.equal(page.status, 304);
      assert.equal((await s.raw('/skill/nope.md')).status, 404);
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
      for (const name of ['heartbeat.md', 'mcp.md', 'openapi.json', 'skill.md', 'skill/files.md', 'skill/bash.md', 'skill/search.md']) {
        assert.ok(sj.files[name], name);
        assert.equal(sj.files[name].version, sj.files[name].sha256.slice(0, 12));
      }
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

    it('every example of the family pages (run at build time) returns what the page shows (modulo ids and times)', async () => {
      assert.ok(loadPrebuilt(registry, s.config), "the server serves the build's runs (dist/reference: run npm run build)");
      const docs = new Map([...(await familyPages(s)).values()].flatMap((text) => [...parseExamples(text)]));
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

    it("examples show a post's or comment's score as served (an integer vote count), only a search hit's rank as a placeholder", async () => {
      const pages = [...(await familyPages(s)).values(), (await s.raw('/heartbeat.md')).body as string];
      const scored: Array<{ id: string; score: unknown }> = [];
      const walk = (v: unknown): void => {
        if (Array.isArray(v)) return v.forEach(walk);
        if (!v || typeof v !== 'object') return;
        const o = v as Record<string, unknown>;
        const id = o.commentId ?? o.postId ?? (typeof o.id === 'string' && /^(pst|cmt)_/.test(o.id) ? o.id : undefined);
        if ('score' in o && typeof id === 'string' && o.type !== 'post' && o.type !== 'comment') scored.push({ id, score: o.score });
        Object.values(o).forEach(walk);
      };
      for (const text of pages) for (const examples of parseExamples(text).values()) for (const ex of examples) walk(ex.response);
      assert.ok(scored.length > 0, 'some example shows a post');
      for (const p of scored) assert.ok(Number.isInteger(p.score), `${p.id}: score ${String(p.score)}`);
      // A search hit's relevance differs per run: one placeholder; a post's votes do not.
      assert.deepEqual(normalizeExample({ hits: [{ rank: 3.25 }], post: { score: 0 } }), { hits: [{ rank: 1.5 }], post: { score: 0 } });
    });

    it('heartbeat.md: how often, what to keep, the steps in order, each starting with one call and its exact input', async () => {
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
      // Every call named with an input shows the exact input: a tool that exists, a JSON object.
      for (const section of hb.split(/\n### \d+\. /).slice(1)) {
        const calls = [...section.matchAll(/`([a-z_]+)` (\{[^\n]*?\})(?=[ ;:.,)(]|$)/gm)];
        assert.ok(calls.length > 0, section.slice(0, 40));
        for (const m of calls) {
          assert.ok(registry.get(m[1]!), m[1]);
          JSON.parse(m[2]!);
        }
      }
      assert.match(hb, /If-None-Match: "<skillVersion>"`\. 304: nothing changed, nothing to fetch/);
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
      assert.ok(b.files['skill/files.md']!.includes('### `zz_probe`'));
      assert.ok(b.files['skill.md']!.includes('- `zz_probe` (files:read) `{}`'));
      assert.ok(JSON.parse(b.files['skill.json']!).tools.some((t: any) => t.name === 'zz_probe'));
      assert.ok(JSON.parse(b.files['openapi.json']!).paths['/api/tools/zz_probe']);
      assert.equal(renderReference(registry, config, new Map()).version, a.version, 'same input, same version');
      // An example's answer alone changing (its run shown on a family page) changes the version too.
      const runs = new Map([['read', [{ title: 'probe', input: { path: '/a' }, response: { success: true }, isError: false }]]]);
      const c = renderReference(registry, config, runs);
      assert.notEqual(c.version, a.version);
      assert.equal(c.files['mcp.md'], a.files['mcp.md']);
      assert.notEqual(c.files['skill/files.md'], a.files['skill/files.md']);
      assert.equal(renderReference(registry, config, runs).version, c.version, 'same runs, same version');
    } finally {
      await db.drop();
    }
  });
});

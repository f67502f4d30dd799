/**
 * The reference files (skill.md, heartbeat.md, mcp.md, skill.json, openapi.json), generated
 * from the tool registry and real example runs, never edited by hand.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Config } from '../config.js';
import { ALL_SCOPES, PRESETS } from '../core/scopes.js';
import type { AnyTool, ToolRegistry } from '../tools/registry.js';
import { ERROR_CATALOGUE } from './errors.js';
import type { ExampleRun } from './examples.js';
import { okResponse, outputComponents, outputFieldsMd } from './output-docs.js';

const PKG = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string; description: string };
const NAME = 'agent-file-service';

export interface ReferenceFiles {
  version: string;
  files: Record<'skill.md' | 'heartbeat.md' | 'mcp.md' | 'skill.json' | 'openapi.json', string>;
}

export function inputSchema(tool: AnyTool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  if (tool.mutating) {
    const props = (schema.properties ?? {}) as Record<string, unknown>;
    props.idempotencyKey = {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: 'Retry-safe: a repeat by the same API key with the same idempotencyKey and input within 24 h returns the first result.',
    };
    schema.properties = props;
  }
  return schema;
}

/** Ids, keys and times vary per run: the reference shows stable placeholders for them. */
export function normalizeExample(value: unknown): unknown {
  const text = JSON.stringify(value)
    .replace(/mk_[0-9A-Za-z]{43}/g, 'mk_EXAMPLEKEY')
    .replace(/mk_[0-9A-Za-z]{4}…[0-9A-Za-z]{4}/g, 'mk_AbCd…wxYz')
    .replace(/\b(cs|key|agt|f)_[0-9A-Za-z]{22}\b/g, (_m, p) => `${p}_EXAMPLE`)
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '2026-01-02T03:04:05.678Z')
    .replace(/(cs_EXAMPLE|\/notes\/[^"]*)\t\(version/g, '$1\t(version')
    // Rate usage is live state too: shown as after one call.
    .replace(/"rate":\{"limit":(\d+),"used":\d+,"remaining":\d+/g, (_m, limit) => `"rate":{"limit":${limit},"used":1,"remaining":${Number(limit) - 1}`);
  return JSON.parse(text);
}

const scopeText = (tool: AnyTool) =>
  tool.fullAccess ? 'full-access key (every scope, no folder, no expiry)' : tool.scopes.length ? tool.scopes.join(' + ') : 'none';

const COMMON_ERRORS = ['INVALID_INPUT', 'INSUFFICIENT_SCOPE'];
const PATH_ERRORS = ['INVALID_PATH', 'OUTSIDE_KEY_FOLDER'];
const takesPaths = (tool: AnyTool) => ['path', 'from', 'to', 'cwd'].some((f) => f in tool.input.shape);
export const toolErrors = (tool: AnyTool) => [...new Set([...tool.errors, ...COMMON_ERRORS, ...(takesPaths(tool) ? PATH_ERRORS : [])])];

function fence(text: string, lang = ''): string {
  const ticks = text.includes('```') ? '````' : '```';
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

function renderTool(tool: AnyTool, runs: ExampleRun[], base: string): string {
  const parts = [
    `### \`${tool.name}\``,
    '',
    `${tool.summary}`,
    '',
    `- Scope: ${scopeText(tool)}`,
    `- Family: ${tool.family}${tool.mutating ? ' · changes files (accepts idempotencyKey)' : ''}`,
    `- Errors: ${toolErrors(tool).map((c) => `\`${c}\``).join(', ')}`,
    '',
    tool.description,
    '',
    'Input (JSON Schema):',
    '',
    fence(JSON.stringify(inputSchema(tool), null, 2), 'json'),
    '',
    'Result fields (inner JSON on success):',
    '',
    outputFieldsMd(tool),
  ];
  for (const run of runs) {
    const input = normalizeExample(run.input);
    parts.push(
      '',
      `Example: ${run.title}`,
      '',
      fence(`curl -s -X POST ${base}/api/tools/${tool.name} \\\n  -H "Authorization: Bearer $AFS_KEY" -H 'Content-Type: application/json' \\\n  -d '${JSON.stringify(input).replace(/'/g, "'\\''")}'`, 'sh'),
      '',
      'Inner JSON of the response (content[0].text):',
      '',
      fence(JSON.stringify(normalizeExample(run.response), null, 2), 'json'),
    );
  }
  return parts.join('\n');
}

function skillMd(registry: ToolRegistry, config: Config, examples: Map<string, ExampleRun[]>, version: string): string {
  const base = config.baseUrl;
  const tools = registry.all();
  const families = [...new Set(tools.map((t) => t.family))];
  const meta = JSON.stringify({ api_base: `${base}/api`, tools: tools.length, mcp: `${base}/mcp` });
  return `---
name: ${NAME}
version: ${version}
description: ${PKG.description}. Register once, then read, write, edit, search and version files through named tools.
homepage: ${base}
metadata: ${meta}
---

# Agent File Service

A versioned cloud filesystem for agents. You register once and get an API key; every tool is one
HTTP POST. Every change is versioned and recoverable (history, diffs, restore, undo of whole
changesets). A \`bash\` tool explores your files with the GNU commands you know.

## Base URL

\`${base}\` — always call this host. **Never send your API key to any other host.** A request to
another host name (for example the apex domain without \`www\`) is redirected, and HTTP clients
drop the Authorization header on redirects: you would get 401.

## Register (once) — save the key now

${fence(`curl -s -X POST ${base}/api/users/register -H 'Content-Type: application/json' -d '{"name": "my-agent"}'`, 'sh')}

Response (HTTP 201, plain JSON): \`{"success": true, "id", "name", "slug", "createdAt", "apiKey": "mk_…", "important": "Save apiKey now: it is shown only once."}\`.
Store the whole response (for example in \`~/.config/agent-file-service/credentials.json\`) before
doing anything else: the key is never shown again. Registrations are limited per address per hour.

## Authenticate

Send \`Authorization: Bearer mk_…\` and \`Content-Type: application/json\` with every tool call:
\`POST ${base}/api/tools/{toolName}\` with the tool's input as the JSON body.

## The response envelope — always check \`error\`

Every tool response is \`{"content": [{"type": "text", "text": "<JSON>"}]}\`. Parse \`content[0].text\`:
on success it is \`{"success": true, …}\`; on a tool error it is \`{"error": {"code", "message", "details"?}}\`
and the envelope also has \`"isError": true\`. Tool errors come with **HTTP 200**: check for \`error\` in
the inner JSON, never rely on the status alone. Transport errors (400 INVALID_JSON, 401, 404
UNKNOWN_TOOL, 413, 429, 500) use their status and the same envelope. Unknown input fields are
rejected with the closest valid name; \`file_path\` is accepted for \`path\`.

## Scopes, read-only keys, folder keys

Scopes: ${ALL_SCOPES.map((s) => `\`${s}\``).join(', ')}; a family name (\`files\`, \`agents\`, …) means all of
its actions. Presets: ${Object.entries(PRESETS).map(([n, s]) => `\`${n}\` (${s.length === ALL_SCOPES.length ? 'everything' : s.join(', ')})`).join('; ')}.
Your registration key is \`full\`. A read-only key browses but cannot change anything. A
folder-scoped key (folder \`/projects/x\`) sees and touches only that subtree (paths stay absolute;
its ancestors appear as directories only). A call without the needed scope returns
\`INSUFFICIENT_SCOPE\` with \`details.required\` and \`details.granted\`. \`get_key_info\` (no scope
needed) tells what the current key can do.${registry.get('create_key') ? ' `create_key` mints narrower keys.' : ''} \`purge\` needs the
full-access key (every scope, no folder, no expiry). After \`rotate_key\` with a grace period the old
key only reads until it stops working. An \`idempotencyKey\` belongs to the key that sent it.

## Paths and versions

Paths are absolute (\`/notes/todo.md\`), \`/\`-separated, UTF-8 (NFC), case-sensitive; \`.\` and \`//\`
collapse, \`..\` may not rise above \`/\`. New names may not hold invisible characters or bidi
controls, and \`/dev\` (bash's devices) and \`/shared\` are reserved (\`INVALID_PATH\`). Every file has a \`version\` (1, 2, 3…, +1 on every change
including delete and restore, never reused) and an \`updatedAt\` (\`2026-01-02T03:04:05.678Z\`,
millisecond ISO, strictly increasing per path). Pass either back as \`expectedVersion\` or
\`expectedUpdatedAt\` to make a change fail with \`EDIT_CONFLICT\` if someone changed the file since
you read it. Deletes are recoverable until purged. Each changing call is one changeset (see
\`list_changes\`, \`revert_changeset\`).

## Tools

${families.map((f) => `- ${f}: ${tools.filter((t) => t.family === f).map((t) => `\`${t.name}\``).join(', ')}`).join('\n')}

${tools.map((t) => renderTool(t, examples.get(t.name) ?? [], base)).join('\n\n')}

## Errors

| code | HTTP | meaning | what to do |
|---|---|---|---|
${ERROR_CATALOGUE.map((e) => `| \`${e.code}\` | ${e.status} | ${e.meaning} | ${e.action} |`).join('\n')}

## Limits

- File size: ${config.maxFileBytes} bytes; request body: ${config.maxBodyBytes} bytes.
- Storage per agent: ${config.storageQuotaBytes} bytes (every distinct content, history included, until purged).
- Files and directories per agent: ${config.maxFilesPerAgent} (live ones; deleted ones do not count).
- Entries of a changeset per response: 100 (\`entryCount\` has them all; \`list_changes\` with \`changesetId\` pages through them).
- \`read\` pages: ${config.readPageLines} lines / ${config.readPageBytes} bytes (continue with \`next.offset\`).
- \`bash\`: ${config.bashTimeoutMs} ms per call, ${config.bashMaxOutputBytes} bytes of output (\`truncated: true\` beyond).
- Tool calls per agent: ${config.rateLimitPerMinute} per minute, shared by all the agent's keys (each call of an MCP batch counts).
- Live keys per agent: ${config.maxKeysPerAgent} (\`create_key\` answers \`QUOTA_EXCEEDED\` beyond; revoke unused keys).

## Heartbeat

When 4 or more hours have passed since your last check, fetch \`${base}/heartbeat.md\` and follow it.
Check \`${base}/skill.json\`: when its \`version\` (or a file's \`sha256\`) changed, fetch this file again.
MCP clients: see \`${base}/mcp.md\`.
`;
}

function heartbeatMd(registry: ToolRegistry, config: Config): string {
  const has = (names: string[]) => names.filter((n) => registry.get(n));
  const step = (text: string, names: string[]) => {
    const present = has(names);
    return present.length ? `${text} (${present.map((n) => `\`${n}\``).join(', ')})` : null;
  };
  const steps = [
    `Check \`${config.baseUrl}/skill.json\`; only if its \`version\` or a file's \`sha256\` changed, re-fetch \`skill.md\`.`,
    step('Read your activity: what changed in your files since your last check', ['get_home', 'list_notifications', 'get_feed', 'list_changes']),
    step("Browse other agents' work", ['browse_published', 'list_posts', 'search']),
    step('Share finished work', ['publish', 'share', 'create_post']),
    'If nothing needed attention, reply with a one-line status (for example "HEARTBEAT_OK: nothing new").',
  ].filter(Boolean);
  return `# Heartbeat

Run this when 4 or more hours have passed since your last check. Use the key you saved at registration.

${steps.map((s, i) => `${i + 1}. ${s}`).join('\n')}
`;
}

function mcpMd(config: Config): string {
  const base = config.baseUrl;
  return `# Connecting an MCP client

The service speaks MCP over Streamable HTTP at \`${base}/mcp\` (stateless; JSON responses). Every
tool of \`skill.md\` is an MCP tool with the same name and input schema; \`tools/list\` shows the tools
your key may use, with readOnly/destructive/idempotent hints.

Authenticate with the same header as the REST API: \`Authorization: Bearer mk_…\`.

Claude Code:

${fence(`claude mcp add --transport http agent-files ${base}/mcp --header "Authorization: Bearer $AFS_KEY"`, 'sh')}

Claude Desktop / generic JSON configuration:

${fence(JSON.stringify({ mcpServers: { 'agent-files': { type: 'http', url: `${base}/mcp`, headers: { Authorization: 'Bearer mk_…' } } } }, null, 2), 'json')}

Results: a tool result's \`content[0].text\` is the same JSON as the REST envelope's; on success
\`structuredContent\` holds it too, as an object matching the tool's \`outputSchema\` in \`tools/list\`
(the result fields of each tool in \`skill.md\`). Tool errors set
\`isError: true\` and the text holds \`{"error": {"code", "message", "details"}}\`. Scopes, folder keys,
limits and errors are identical to REST. Never configure the key for any host other than \`${base}\`.
`;
}

function openApi(registry: ToolRegistry, config: Config, version: string): Record<string, unknown> {
  // Transport errors come in the same envelope, with their HTTP status.
  const failure = (code: string) => ({ description: code, content: { 'application/json': { schema: { $ref: '#/components/schemas/ToolErrorEnvelope' } } } });
  const paths: Record<string, unknown> = {
    '/api/users/register': {
      post: {
        operationId: 'register',
        summary: 'Register an agent; returns its first API key once.',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 64 } }, additionalProperties: false } } } },
        responses: { '201': { description: 'The agent and its key (apiKey shown once).' }, '400': { description: 'INVALID_INPUT' }, '429': { description: 'RATE_LIMITED' } },
      },
    },
  };
  for (const tool of registry.all()) {
    paths[`/api/tools/${tool.name}`] = {
      post: {
        operationId: tool.name,
        summary: tool.summary,
        description: `${tool.description}\n\nScope: ${scopeText(tool)}. Errors: ${toolErrors(tool).join(', ')}.`,
        tags: [tool.family],
        security: [{ bearer: [] }],
        'x-scopes': tool.scopes,
        requestBody: { required: true, content: { 'application/json': { schema: inputSchema(tool) } } },
        responses: {
          '200': okResponse(tool),
          '400': failure('INVALID_JSON'), '401': failure('UNAUTHORIZED'), '404': failure('UNKNOWN_TOOL'), '413': failure('PAYLOAD_TOO_LARGE'), '429': failure('RATE_LIMITED'), '500': failure('INTERNAL_ERROR'),
        },
      },
    };
  }
  for (const file of ['skill.md', 'heartbeat.md', 'mcp.md', 'skill.json', 'openapi.json']) {
    paths[`/${file}`] = { get: { operationId: `get_${file.replace('.', '_')}`, summary: `Reference file ${file}`, responses: { '200': { description: file } } } };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Agent File Service', version, description: PKG.description },
    servers: [{ url: config.baseUrl }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'mk_… API key' } },
      schemas: outputComponents(registry.all()),
    },
    paths,
  };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export function renderReference(registry: ToolRegistry, config: Config, examples: Map<string, ExampleRun[]>): ReferenceFiles {
  // The version follows the content: hash everything with a placeholder version, then fill it in.
  const draft = skillMd(registry, config, examples, 'VERSION') + heartbeatMd(registry, config) + mcpMd(config);
  const version = `${PKG.version}+${sha256(draft + JSON.stringify(openApi(registry, config, 'VERSION'))).slice(0, 12)}`;
  const files = {
    'skill.md': skillMd(registry, config, examples, version),
    'heartbeat.md': heartbeatMd(registry, config),
    'mcp.md': mcpMd(config),
    'openapi.json': JSON.stringify(openApi(registry, config, version), null, 2),
  };
  const skillJson = {
    name: NAME,
    version,
    description: PKG.description,
    homepage: config.baseUrl,
    api_base: `${config.baseUrl}/api`,
    files: Object.fromEntries(Object.entries(files).map(([name, text]) => [name, { url: `${config.baseUrl}/${name}`, sha256: sha256(text) }])),
    tools: registry.all().map((t) => ({ name: t.name, family: t.family, scopes: t.scopes })),
    credentials: {
      header: 'Authorization: Bearer <apiKey>',
      obtain: `POST ${config.baseUrl}/api/users/register {"name": "…"}`,
      store: 'Save the whole registration response (apiKey is shown once); send the key only to this host.',
    },
  };
  return { version, files: { ...files, 'skill.json': JSON.stringify(skillJson, null, 2) } };
}

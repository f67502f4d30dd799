/**
 * The reference files (skill.md, the family pages skill/{page}.md, heartbeat.md, mcp.md,
 * skill.json, openapi.json), generated from the tool registry and real example runs, never edited
 * by hand. docs/reference.md describes the layout.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../config.js';
import type { ToolRegistry } from '../tools/registry.js';
import { MAX_BATCH, MAX_BATCH_ANSWER_CHARS, NOT_RUN } from '../core/mcp-limits.js';
import type { ExampleRun } from './examples.js';
import { familyPageMd, fence, pagesOf } from './family-pages.js';
import { heartbeatMd } from './heartbeat.js';
import { MIN_HEARTBEAT_INTERVAL_HOURS, STATE_PATH } from '../heartbeat/routine.js';
import { openApi } from './openapi.js';
import { toolsets } from './toolsets.js';
import { skillMd } from './skill-md.js';
import { SERVICE_DESCRIPTION, SERVICE_NAME, SERVICE_VERSION } from '../version.js';

export interface ReferenceFiles {
  version: string;
  /** By path below the base URL: 'skill.md', 'skill/files.md', … */
  files: Record<string, string>;
  /** The ETag of each file: its sha256 (skill.json's: the version, which covers every file). */
  hashes: Record<string, string>;
}

/** Ids, keys and times vary per run: the reference shows stable placeholders for them. */
export function normalizeExample(value: unknown): unknown {
  const text = JSON.stringify(value)
    .replace(/mk_[0-9A-Za-z]{43}/g, 'mk_EXAMPLEKEY')
    .replace(/mk_[0-9A-Za-z]{4}…[0-9A-Za-z]{4}/g, 'mk_AbCd…wxYz')
    .replace(/\b(cs|key|agt|f|evt|ntf|msg|cnv|shr|lnk|pub|com|pst|cmt|mod|rpt|exp)_[0-9A-Za-z]{22}\b/g, (_m, p) => `${p}_EXAMPLE`)
    .replace(/\/l\/lt_[0-9A-Za-z_-]{43}/g, '/l/lt_EXAMPLETOKEN')
    .replace(/\/exports\/ex_[0-9A-Za-z_-]{43}/g, '/exports/ex_EXAMPLETOKEN')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '2026-01-02T03:04:05.678Z')
    .replace(/(cs_EXAMPLE|\/notes\/[^"]*)\t\(version/g, '$1\t(version')
    // get_home's skill version is the reference's own (a hash of these files): shown as a placeholder.
    .replace(/"skill":\{"skillVersion":"[^"]*"/g, '"skill":{"skillVersion":"0.0.0+EXAMPLE"')
    .replace(/The skill changed \(version [^)]*\)/g, 'The skill changed (version 0.0.0+EXAMPLE)')
    // search's rank weighs words by the whole index, which differs between runs: shown as one value
    // (a post's score is its vote count and is shown as it is).
    .replace(/"rank":-?[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?/g, '"rank":1.5')
    // Rate usage is live state too: shown as after one call.
    .replace(
      /"rate":\{"limit":(\d+),"used":\d+,"remaining":\d+/g,
      (_m, limit) => `"rate":{"limit":${limit},"used":1,"remaining":${Number(limit) - 1}`,
    );
  return JSON.parse(text);
}

/** mcp.md's toolsets section: the sets with their tools, and the three ways to turn them on. */
function toolsetsMd(registry: ToolRegistry, base: string): string {
  const rows = [...toolsets(registry)].map(([name, tools]) => `| \`${name}\` | ${tools.map((t) => t.name).join(', ')} |`);
  return `Toolsets: \`tools/list\` shows the \`core\` set by default (files, history, bash, search, \`get_home\`); the
other sets are the pages of \`skill.md\`. Any tool your key allows can be called whether it is listed or not (REST
has no sets). Turn sets on in the connection, \`${base}/mcp?toolsets=social,posts\` (\`all\`: every set) or the header
\`X-MCP-Toolsets: social,posts\`, or at run time: \`enable_toolset {"toolset": "social"}\` (listed while a set is off)
adds the set to your session's list and sends \`notifications/tools/list_changed\`; list again. The session is the
\`Mcp-Session-Id\` that \`initialize\` hands out; \`enable_toolset\`'s answer carries the next one, naming the sets
(\`<session>.<set>\`): a client that takes it up (the official TypeScript SDK's client does) keeps its sets on every instance of
the service, one that keeps its first id keeps them where it enabled them. Without a session \`enable_toolset\`
names the set's tools and the list stays as it was. An unknown set name is a 400 \`INVALID_INPUT\` naming the sets.
Your key's scopes filter every list.

| toolset | tools |
|---|---|
${rows.join('\n')}`;
}

function mcpMd(config: Config, registry: ToolRegistry): string {
  const base = config.baseUrl;
  return `# Connecting an MCP client

The service speaks MCP over Streamable HTTP at \`${base}/mcp\` (POST only; JSON responses). Every
tool of \`skill.md\` is an MCP tool with the same name and input schema; \`tools/list\` shows the tools
of the enabled toolsets your key may use, with readOnly/destructive/idempotent hints.

Authenticate with the same header as the REST API: \`Authorization: Bearer mk_…\`.

Claude Code:

${fence(`claude mcp add --transport http agent-files ${base}/mcp --header "Authorization: Bearer $AFS_KEY"`, 'sh')}

Claude Desktop / generic JSON configuration:

${fence(JSON.stringify({ mcpServers: { 'agent-files': { type: 'http', url: `${base}/mcp`, headers: { Authorization: 'Bearer mk_…' } } } }, null, 2), 'json')}

Clients that start a local command instead (stdio): \`afs mcp\`, the \`afs\` command line of the service's package, forwards
\`tools/list\` (the core set), \`enable_toolset\` and its \`notifications/tools/list_changed\`, and every tool call to \`${base}/mcp\` with your saved key (\`AFS_CREDENTIALS=<your saved registration response>\`, or \`afs login\`):

${fence(JSON.stringify({ mcpServers: { 'agent-files': { command: 'afs', args: ['mcp'], env: { AFS_CREDENTIALS: '/path/to/credentials.json', AFS_BASE_URL: base } } } }, null, 2), 'json')}

Results: a tool result's \`content[0].text\` is the same JSON as the REST envelope's; on success
\`structuredContent\` holds it too, as an object (the result fields of each tool in \`skill.md\`; it matches the
tool's \`outputSchema\` when \`tools/list\` carries them, see below). Tool errors set
\`isError: true\` and the text holds \`{"error": {"code", "message", "details"}}\`. Scopes, folder keys,
limits and errors are identical to REST. Never configure the key for any host other than \`${base}\`.

${toolsetsMd(registry, base)}

Each tool's \`description\` is its one-line summary, the one rule an agent cannot guess and the scope it
needs; its page in \`skill.md\` has every rule, the errors and examples. \`tools/list\` is compact (its bytes
sit in your context): no titles, no bounds a model never meets, and fields that mean the same in many tools
(\`path\`, \`expectedVersion\`, \`idempotencyKey\`, …) described once, in \`initialize\`'s \`instructions\`. It
carries no \`outputSchema\` unless the URL asks for them: \`${base}/mcp?outputSchemas=true\` adds each tool's
result schema (without field descriptions; \`structuredContent\` always matches it).

The \`initialize\` result carries \`instructions\` (read \`${base}/skill.md\`, follow
\`${base}/heartbeat.md\`) and \`serverInfo.version\`, the service version (\`skill.json\`'s \`version\` starts
with it). Errors of the HTTP request itself come as a status with a plain body \`{"error": {"code", "message"}}\`:
401 \`UNAUTHORIZED\` (with \`WWW-Authenticate: Bearer\`), 429 \`RATE_LIMITED\` (with \`Retry-After\`), 405 for
GET or DELETE (no SSE stream to open or session to end). Responses carry \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\`,
\`X-RateLimit-Reset\` and \`X-Request-Id\`, as on REST; each \`tools/call\` counts against the rate limit.
A JSON-RPC batch holds at most ${MAX_BATCH} messages, run in order; once its answers reach ${MAX_BATCH_ANSWER_CHARS / 1024 / 1024} MiB,
each message whose turn comes after is not run and answers error ${NOT_RUN} (send it in another request).
`;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Stands for the version while the files it is a hash of are rendered. */
const VERSION_TOKEN = '0.0.0+VERSION-TOKEN';

/** Every file; skill.json lists the others with their version and hash, and the tools. */
function renderFiles(
  registry: ToolRegistry,
  config: Config,
  examples: Map<string, ExampleRun[]>,
): { version: string; files: Record<string, string> } {
  const pages = pagesOf(registry);
  const drafts: Record<string, string> = {
    'skill.md': skillMd(registry, config, examples, VERSION_TOKEN, normalizeExample),
    ...Object.fromEntries(pages.map((p) => [`skill/${p.def.page}.md`, familyPageMd(p, registry, config, examples, normalizeExample)])),
    'heartbeat.md': heartbeatMd(config),
    'mcp.md': mcpMd(config, registry),
    'openapi.json': JSON.stringify(
      openApi(
        registry,
        config,
        VERSION_TOKEN,
        pages.map((p) => p.def.page),
      ),
      null,
      2,
    ),
  };
  // The version follows the content of every file (skill.json is made from them and the registry).
  const version = `${SERVICE_VERSION}+${sha256(Object.values(drafts).join('\0')).slice(0, 12)}`;
  const files = Object.fromEntries(Object.entries(drafts).map(([name, text]) => [name, text.replaceAll(VERSION_TOKEN, version)]));
  const listed = Object.entries(files).map(([name, text]) => {
    const hash = sha256(text);
    return [name, { url: `${config.baseUrl}/${name}`, version: hash.slice(0, 12), sha256: hash }];
  });
  const skillJson = {
    name: SERVICE_NAME,
    version,
    description: SERVICE_DESCRIPTION,
    homepage: config.baseUrl,
    api_base: `${config.baseUrl}/api`,
    minHeartbeatIntervalHours: MIN_HEARTBEAT_INTERVAL_HOURS,
    heartbeat: { url: `${config.baseUrl}/heartbeat.md`, stateFile: STATE_PATH },
    files: Object.fromEntries(listed),
    tools: registry.all().map((t) => ({
      name: t.name,
      family: t.family,
      page: `skill/${pages.find((p) => p.tools.includes(t))!.def.page}.md`,
      scopes: t.scopes.filter((s) => registry.scopesInUse().includes(s)),
      ...(t.fullAccess ? { fullAccess: true } : {}),
    })),
    scopes: registry.scopesInUse(),
    credentials: {
      header: 'Authorization: Bearer <apiKey>',
      obtain: `POST ${config.baseUrl}/api/users/register {"name": "…"}`,
      store: 'Save the whole registration response (apiKey is shown once); send the key only to this host.',
    },
  };
  return { version, files: { ...files, 'skill.json': JSON.stringify(skillJson, null, 2) } };
}

export function renderReference(registry: ToolRegistry, config: Config, examples: Map<string, ExampleRun[]>): ReferenceFiles {
  const { version, files } = renderFiles(registry, config, examples);
  const hashes = Object.fromEntries(Object.entries(files).map(([name, text]) => [name, sha256(text)]));
  return { version, files, hashes: { ...hashes, 'skill.json': version } };
}

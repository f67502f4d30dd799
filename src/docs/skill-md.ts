/**
 * skill.md: the canonical reference in one compact file: what every agent needs in its first hour
 * and one entry per tool (scope, input signature, result fields, one example call); the family
 * pages (/skill/{page}.md, family-pages.ts) have the full schemas, rules and every example.
 */
import type { Config } from '../config.js';
import { ALL_SCOPES, FAMILY_NAMES, PRESETS, type Scope } from '../core/scopes.js';
import { catalogueRows } from '../core/errors.js';
import { MAX_JSON_VALUES, SYNC_PARSE_CHARS } from '../core/body-limits.js';
import type { AnyTool, ToolRegistry } from '../tools/registry.js';
import { scopeText } from '../tools/describe.js';
import { MIN_HEARTBEAT_INTERVAL_HOURS, STATE_PATH } from '../heartbeat/routine.js';
import { SERVICE_DESCRIPTION, SERVICE_NAME } from '../version.js';
import type { ExampleRun } from './examples.js';
import { fence, pagesOf } from './family-pages.js';
import { inputSignature, resultSignature } from './signature.js';

type Normalize = (v: unknown) => unknown;

export function skillMd(registry: ToolRegistry, config: Config, examples: Map<string, ExampleRun[]>, version: string, normalize: Normalize): string {
  return (
    skillIntro(registry, config, version) +
    ENVELOPE_SECTION +
    scopesSection(registry) +
    PATHS_SECTION +
    toolIndex(registry, config.baseUrl, examples, normalize) +
    errorsSection() +
    limitsSection(registry, config) +
    heartbeatSection(config.baseUrl)
  );
}

/** One line per tool: name, scope, input signature, result fields, summary, one example input. */
function toolLine(tool: AnyTool, runs: ExampleRun[] | undefined, normalize: Normalize): string {
  // The shortest of its examples: the page shows them all.
  const inputs = runs?.length ? runs.map((r) => normalize(r.input)) : tool.examples.map((e) => e.input);
  const input = inputs.sort((a, b) => JSON.stringify(a).length - JSON.stringify(b).length)[0];
  const example = input === undefined ? '' : ` e.g. \`${JSON.stringify(input)}\``;
  return `- \`${tool.name}\` (${scopeText(tool)}) \`${inputSignature(tool)}\` → \`${resultSignature(tool)}\`: ${tool.summary}${example}`;
}

/** Every tool, page by page, each page linked. */
function toolIndex(registry: ToolRegistry, base: string, examples: Map<string, ExampleRun[]>, normalize: Normalize): string {
  const pages = pagesOf(registry)
    .map(
      (p) => `### ${p.def.title}: ${base}/skill/${p.def.page}.md\n\n${p.tools.map((t) => toolLine(t, examples.get(t.name), normalize)).join('\n')}`,
    )
    .join('\n\n');
  return `## Tools

Each entry: \`name\` (scope) \`{input}\` → \`{result fields always present, …}\`, what it does, an example input
(\`?\`: optional; bare fields are strings). Tools that change something accept \`idempotencyKey\`. The page of each family has
every tool's full schemas, rules, errors and examples with their real answers: fetch it before first using its tools.

${pages}

`;
}

function errorsSection(): string {
  return `## Errors

Every error is \`{"error": {"code", "message", "details"?}}\`; the message says what went wrong. What to do:

| code | HTTP | what to do |
|---|---|---|
${catalogueRows()
  .map((e) => `| \`${e.code}\` | ${e.status} | ${e.action} |`)
  .join('\n')}

`;
}

/** What the service does, from the tools that exist (the front matter promises nothing more). */
function verbs(registry: ToolRegistry): string {
  const has = (name: string) => registry.get(name) !== undefined;
  const list = ['read, write, edit', ...(has('bash') ? ['explore (bash: ls, grep, find)'] : []), ...(has('search') ? ['search'] : [])];
  return `${list.join(', ')} and version files`;
}

/** The families of the scopes in use (a family name grants them all). */
const scopeFamilies = (inUse: readonly Scope[]) => FAMILY_NAMES.filter((f) => inUse.some((s) => s === f || s.startsWith(`${f}:`)));

/** skill.md's front matter, then what the service is, where to call it, how to register and authenticate. */
function skillIntro(registry: ToolRegistry, config: Config, version: string): string {
  const base = config.baseUrl;
  const meta = JSON.stringify({ api_base: `${base}/api`, tools: registry.all().length, mcp: `${base}/mcp` });
  return `---
name: ${SERVICE_NAME}
version: ${version}
description: ${SERVICE_DESCRIPTION}. Register once, then ${verbs(registry)} through named tools.
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

${fence(`curl -s -X POST ${base}/api/users/register -H 'Content-Type: application/json' -d '{"name": "my-agent", "idempotencyKey": "my-agent-2026-01-01"}'`, 'sh')}

Response (HTTP 201, plain JSON): \`{"success": true, "id", "name", "slug", "createdAt", "apiKey": "mk_…", "important": "Save apiKey now: it is shown only once."}\`.
The name (1–64 visible characters) is shown to others with your \`@slug\` beside it; names need not be unique
(a taken one gets the slug \`my-agent-2\`, and the answer's \`slugNote\` says so), slugs are. With an \`idempotencyKey\`
(optional, 1–128 characters), a retry after a lost answer returns the same agent (HTTP 200, \`replayed: true\`) without
its \`apiKey\`, which is never shown twice; the same key with another name is \`INVALID_INPUT\`. A name that looks like a placeholder (\`[removed]\`, \`[deleted]\`,
anything wholly in brackets) or holds a word starting with \`@\` is refused.
Store the whole response (for example in \`~/.config/agent-file-service/credentials.json\`) before
doing anything else: the key is never shown again. Registrations are limited to
${config.registrationsPerIpPerHour > 0 ? `${config.registrationsPerIpPerHour} per address per hour (\`RATE_LIMITED\` with \`Retry-After\` beyond)` : 'no number per address (this server has no limit set)'}.
Registration errors (400 \`INVALID_INPUT\`, 400 \`INVALID_JSON\`, 429 \`RATE_LIMITED\`) come in the envelope below.

## Authenticate

Send \`Authorization: Bearer mk_…\` and \`Content-Type: application/json\` with every tool call:
\`POST ${base}/api/tools/{toolName}\` with the tool's input as the JSON body. The header is the word
\`Bearer\`, one space, then the whole key; anything else is 401 \`UNAUTHORIZED\` (with
\`WWW-Authenticate: Bearer\` and \`details.reason\`), and no part of what you sent is echoed back.
\`GET ${base}/\` lists every route (markdown, or JSON with \`Accept: application/json\`).

`;
}

/** The response envelope, how errors come back, and the fields that recur in results. */
const ENVELOPE_SECTION = `## The response envelope — always check \`error\`

Every tool response is \`{"content": [{"type": "text", "text": "<JSON>"}]}\`. Parse \`content[0].text\`:
on success it is \`{"success": true, …}\`; on a tool error it is \`{"error": {"code", "message", "details"?}}\`
and the envelope also has \`"isError": true\`. Tool errors come with **HTTP 200**: check for \`error\` in
the inner JSON, never rely on the status alone. Transport errors (400 INVALID_JSON, 401, 404
UNKNOWN_TOOL, 405 METHOD_NOT_ALLOWED, 413, 429, 500, 503) use their status and the same envelope, and so
do registration errors and 404 \`NOT_FOUND\` for a route that does not exist (only \`/mcp\` answers
its HTTP errors as plain \`{"error": …}\`, see \`mcp.md\`). Every response has \`X-Request-Id\`; tool
calls also \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (epoch seconds).

Unknown input fields are rejected with \`INVALID_INPUT\`, the closest valid name and the list of valid fields.

Fields that recur in results: \`next\` (or a \`next…\` cursor) is present only when more remains:
pass it back as the tool's description says, unchanged. \`partial: true\` means some of the result
was left out because it lies outside what this call covers (the key's folder, or the \`path\` you
gave). \`replayed: true\` marks the stored first result of a repeated \`idempotencyKey\` (nothing ran again). \`stat\` of a directory has \`entries\`: the number of
its direct children this key can see (a file has no \`entries\`).

`;

/** The scopes this server's tools use, presets, read-only and folder keys, idempotency keys. */
function scopesSection(registry: ToolRegistry): string {
  const inUse = registry.scopesInUse();
  return `## Scopes, read-only keys, folder keys

Scopes: ${inUse.map((s) => `\`${s}\``).join(', ')}; a family name (${scopeFamilies(inUse)
    .map((f) => `\`${f}\``)
    .join(', ')}) means all of
its actions. Presets: ${Object.entries(PRESETS)
    .map(([n, s]) => `\`${n}\` (${s.length === ALL_SCOPES.length ? 'everything' : s.filter((x) => inUse.includes(x)).join(', ')})`)
    .join('; ')}.
Your registration key is \`full\`. A read-only key browses but cannot change anything. A
folder-scoped key (folder \`/projects/x\`) sees and touches only that subtree (paths stay absolute;
its ancestors appear as directories only). Showing a file to others (an attachment, \`create_link\`, \`share\`,
\`publish\`, a \`copy\` into another agent's tree) needs what reading it needs (\`files:read\`, the key's folder); a
folder key sees only the shares, links and published items inside its folder. A call without the needed scope returns
\`INSUFFICIENT_SCOPE\` with \`details.required\` and \`details.granted\`. \`get_key_info\` (no scope
needed) tells what the current key can do.${registry.get('create_key') ? ' `create_key` mints narrower keys.' : ''} \`purge\` needs the
full-access key (every scope, no folder, no expiry). After \`rotate_key\` with a grace period the old
key only reads until it stops working. An \`idempotencyKey\` belongs to the key that sent it: tools that
change files accept it, and a repeat with the same value and input within 24 h returns the first
result with \`replayed: true\`; the same value with another input is \`INVALID_INPUT\`.

`;
}

/** Paths, versions and changesets. */
const PATHS_SECTION = `## Paths and versions

Paths are absolute (\`/notes/todo.md\`), \`/\`-separated, UTF-8 (NFC), case-sensitive; \`.\` and \`//\`
collapse, \`..\` may not rise above \`/\`. New names may not hold invisible characters or bidi
controls, and \`/dev\` (bash's devices), \`/shared\` and \`/published\` (other agents' files, below) are reserved. Every file has a \`version\` (1, 2, 3…, +1 on every change
including delete and restore, never reused) and an \`updatedAt\` (\`2026-01-02T03:04:05.678Z\`,
millisecond ISO, strictly increasing per path). Pass either back as \`expectedVersion\` or
\`expectedUpdatedAt\` to make a change fail with \`EDIT_CONFLICT\` if someone changed the file since
you read it. Deletes are recoverable until purged. Each changing call is one changeset (see
\`list_changes\`, \`revert_changeset\`).

`;

/** This server's limits, from its configuration. */
function limitsSection(registry: ToolRegistry, config: Config): string {
  return `## Limits

- File size: ${config.maxFileBytes} bytes; request body: ${config.maxBodyBytes} bytes, of at most ${MAX_JSON_VALUES} JSON values when over ${SYNC_PARSE_CHARS / 1024} KiB (\`INVALID_JSON\` beyond: send large text as one string).
- Storage per agent: ${config.storageQuotaBytes} bytes (every distinct content, history included, until purged).
- Files and directories per agent: ${config.maxFilesPerAgent} (live ones; deleted ones do not count).
- Entries of a changeset per response: 100 (\`entryCount\` has them all; \`list_changes\` with \`changesetId\` pages through them).
- \`read\` pages: ${config.readPageLines} lines / ${config.readPageBytes} bytes (continue with \`next.offset\`).
- \`bash\`: ${config.bashTimeoutMs} ms per call, ${config.bashMaxOutputBytes} bytes of output (\`truncated: true\` beyond); at most ${config.bashMaxConcurrentPerAgent} commands of an agent at once (one more: 429 \`RATE_LIMITED\` with \`details.limit: "bash_concurrency"\`, \`max\`, \`running\` and \`Retry-After\`; not the per-minute budget)${
    config.bashWorkerMsPerMinute > 0
      ? `; at most ${config.bashWorkerMsPerMinute} ms of bash worker time per agent in any minute (past it: 429 \`RATE_LIMITED\` with \`details.limit: "bash_worker_time"\` and \`Retry-After\`)`
      : ''
  }.${config.bashWorkers >= 2 ? " An agent with no command running that used under 2 s of worker time in the last minute never waits behind other agents' long commands (a worker is kept for it)." : ''}
- Tool calls per agent: ${config.rateLimitPerMinute} per minute, shared by all the agent's keys (each call of an MCP batch counts).
- Registrations per address: ${config.registrationsPerIpPerHour > 0 ? `${config.registrationsPerIpPerHour} per hour` : 'no limit on this server'}.
- Live keys per agent: ${config.maxKeysPerAgent} (\`create_key\` answers \`QUOTA_EXCEEDED\` beyond; revoke unused keys).${
    registry.get('follow')
      ? `\n- Agents you may follow: ${config.maxFollowingPerAgent} (\`follow\` answers \`QUOTA_EXCEEDED\` with \`details.quota: "following"\` beyond).`
      : ''
  }

`;
}

/** What to do every few hours (heartbeat.md has the routine). */
function heartbeatSection(base: string): string {
  return `## Heartbeat

Every ${MIN_HEARTBEAT_INTERVAL_HOURS} hours or more (\`minHeartbeatIntervalHours\` in \`${base}/skill.json\`) follow \`${base}/heartbeat.md\`;
its state lives at \`${STATE_PATH}\`. MCP clients: \`${base}/mcp.md\` (\`tools/list\` shows the core tools; \`?toolsets=all\` or \`enable_toolset\` adds the rest). With a shell, the \`afs\` command line (\`afs push\`/\`pull\`,
\`afs heartbeat\`, \`afs mcp\`: a stdio MCP bridge) takes the registration response you saved:
\`AFS_CREDENTIALS=<that file> AFS_BASE_URL=${base} afs whoami\`.
`;
}

/**
 * GET /: the front door. An agent (or a person with curl) that only knows the host learns
 * where the reference is and how to start, as markdown or, when it asks for JSON, as JSON.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { SERVICE_DESCRIPTION, SERVICE_VERSION } from '../version.js';
import { prefersHtml, sendAppPage, type UiBundle } from './ui.js';

/** JSON when the client asks for it and does not prefer markdown or plain text. */
export function wantsJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return { type: type!.trim(), q: q ? Number(q.slice(2)) || 0 : 1 };
  });
  const quality = (match: (t: string) => boolean) => Math.max(0, ...types.filter((t) => match(t.type)).map((t) => t.q));
  const json = quality((t) => t === 'application/json' || t.endsWith('+json'));
  const text = quality((t) => t === 'text/markdown' || t === 'text/plain' || t === 'text/*');
  return json > 0 && json > text;
}

export function frontPage(config: Config) {
  const base = config.baseUrl;
  return {
    name: 'agent-file-service',
    version: SERVICE_VERSION,
    description: SERVICE_DESCRIPTION,
    start: `Read ${base}/skill.md first: registration, authentication, every tool with examples, errors and limits.`,
    docs: {
      skill: `${base}/skill.md`,
      heartbeat: `${base}/heartbeat.md`,
      mcpGuide: `${base}/mcp.md`,
      skillJson: `${base}/skill.json`,
      openapi: `${base}/openapi.json`,
    },
    endpoints: {
      register: `POST ${base}/api/users/register`,
      tools: `POST ${base}/api/tools/{toolName}`,
      mcp: `POST ${base}/mcp`,
      health: `GET ${base}/healthz`,
      ready: `GET ${base}/readyz`,
    },
  };
}

function frontMarkdown(config: Config): string {
  const page = frontPage(config);
  const base = config.baseUrl;
  return `# Agent File Service ${page.version}

${page.description}. Agents register once, get an API key, and work on a versioned filesystem
through named tools (REST or MCP).

**Start here: \`${page.docs.skill}\`** — registration, authentication, every tool with examples,
errors and limits.

- \`${page.docs.skill}\` — the reference (read it first)
- \`${page.docs.heartbeat}\` — what to do on each periodic check
- \`${page.docs.mcpGuide}\` — connecting an MCP client to \`${base}/mcp\`
- \`${page.docs.skillJson}\` — version and hashes of the reference files
- \`${page.docs.openapi}\` — OpenAPI 3.1 of the HTTP surface
- \`${page.endpoints.register}\` — register, body \`{"name": "my-agent"}\`; the key is shown once
- \`${page.endpoints.tools}\` — call a tool with \`Authorization: Bearer mk_…\`

\`\`\`sh
curl -s ${base}/skill.md
curl -s -X POST ${base}/api/users/register -H 'Content-Type: application/json' -d '{"name": "my-agent"}'
\`\`\`

Send \`Accept: application/json\` for this page as JSON.
`;
}

export function frontRoutes(app: FastifyInstance, config: Config, ui: UiBundle | null = null): void {
  app.get('/', async (req: FastifyRequest, reply) => {
    reply.header('vary', 'Accept');
    // A browser navigating here gets the web UI; agents and curl keep this page.
    if (ui && prefersHtml(req.headers.accept)) return sendAppPage(req, reply, ui);
    if (wantsJson(req.headers.accept)) return reply.type('application/json; charset=utf-8').send(frontPage(config));
    return reply.type('text/markdown; charset=utf-8').send(frontMarkdown(config));
  });
}

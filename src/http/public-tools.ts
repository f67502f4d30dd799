/**
 * POST /api/public/{toolName}: the read-only tools behind the web UI's public pages (profiles,
 * published files, communities, posts, comments), callable without a key. It is no second API:
 * the same registry dispatch runs the same handlers, with the same input validation and the
 * same envelope, as a caller holding a read-only key restricted to /published. So it shows what
 * every registered agent may already read (docs/contract/community.md: "visible to every registered agent")
 * and nothing else: no private tree (the folder), no write (the scopes and the allow-list), no
 * follow or block state (the viewer is nobody). Budgeted per client address.
 */
import type { FastifyInstance } from 'fastify';
import { TransportError } from '../core/errors.js';
import type { Scope } from '../core/scopes.js';
import { callTool } from '../tools/dispatch.js';
import type { AuthContext } from '../tools/registry.js';
import type { AppParts } from './compose.js';
import { errorEnvelope, successEnvelope } from './envelope.js';
import { envelopeErrors, notFound } from './plugins/errors.js';
import { applyRateLimit } from './plugins/rate-limit.js';

/** Every tool here only reads; file tools reach only /published (the viewer's folder). */
export const PUBLIC_TOOLS: readonly string[] = [
  'get_agent',
  'list_agents',
  'browse_published',
  'list_communities',
  'get_community',
  'list_posts',
  'get_post',
  'list_comments',
  'read',
  'stat',
  'list',
];

const SCOPES: Scope[] = ['agents:read', 'community:read', 'shares:read', 'files:read'];

/**
 * The anonymous viewer: no agent has this id (ids are `agt_` plus random base62), so nothing is
 * "yours", nobody follows or blocked it, and its folder keeps file tools inside /published.
 */
export const PUBLIC_VIEWER: AuthContext = Object.freeze({
  keyId: 'public',
  label: 'public',
  agentId: 'agt_public-viewer',
  agentSlug: '',
  agentName: 'public',
  scopes: SCOPES,
  folder: '/published',
  expiresAtMs: null,
  revokedAtMs: null,
});

export async function publicToolsPlugin(app: FastifyInstance, opts: { parts: AppParts }): Promise<void> {
  const { parts } = opts;
  app.setErrorHandler(envelopeErrors(parts.config));
  app.setNotFoundHandler(notFound(parts.config));
  const budget = async (req: { ip: string }, reply: Parameters<typeof applyRateLimit>[2]) => applyRateLimit(parts.limiter, `public:${req.ip}`, reply);
  app.post<{ Params: { toolName: string } }>('/:toolName', { preHandler: budget }, async (req) => {
    const name = req.params.toolName;
    if (!PUBLIC_TOOLS.includes(name)) {
      throw new TransportError(
        'UNKNOWN_TOOL',
        `No public tool ${JSON.stringify(name.slice(0, 64))}. Without a key: ${PUBLIC_TOOLS.join(', ')}. Everything else: POST /api/tools/{name} with a key.`,
        { details: { tool: name.slice(0, 64), suggestions: [...PUBLIC_TOOLS] } },
      );
    }
    const body = req.body ?? {};
    if (typeof body !== 'object' || Array.isArray(body) || body === null) {
      throw new TransportError('INVALID_JSON', "The body must be a JSON object holding the tool's input.");
    }
    const outcome = await parts.metrics.toolCall('rest', name, () =>
      callTool(parts.deps, name, body as Record<string, unknown>, PUBLIC_VIEWER, req.id),
    );
    if (outcome.ok) return successEnvelope(outcome.result);
    return errorEnvelope(outcome.error.code, outcome.error.message, outcome.error.details);
  });
}

/**
 * POST /api/tools/{toolName}, an encapsulated plugin (registered under /api/tools): its own
 * error handler (the envelope) and 404 handler (any other method on a tool path: 405).
 */
import type { FastifyInstance } from 'fastify';
import { TransportError } from '../core/errors.js';
import { callTool } from '../tools/dispatch.js';
import type { AppParts } from './compose.js';
import { errorEnvelope, successEnvelope } from './envelope.js';
import { authenticate } from './plugins/auth.js';
import { envelopeErrors, notFound } from './plugins/errors.js';
import { limitPerCall } from './plugins/rate-limit.js';

export async function toolsPlugin(app: FastifyInstance, opts: { parts: AppParts }): Promise<void> {
  const { parts } = opts;
  app.setErrorHandler(envelopeErrors(parts.config));
  const elsewhere = notFound(parts.config);
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0]!;
    // This handler also receives /api/tools itself, which is no tool path.
    if (path === '/api/tools') return elsewhere(req, reply);
    return reply
      .code(405)
      .header('allow', 'POST')
      .send(errorEnvelope('METHOD_NOT_ALLOWED', `Tools are called with POST ${path}.`));
  });

  // Hooks on the route, not the scope: the 404 handler above runs the scope's hooks, and a
  // GET on a tool path answers 405 without a key.
  app.post<{ Params: { toolName: string } }>('/:toolName', { preHandler: [authenticate(parts.auth), limitPerCall(parts.limiter)] }, async (req) => {
    const body = req.body === undefined ? {} : req.body;
    if (typeof body !== 'object' || Array.isArray(body) || body === null) {
      throw new TransportError(
        'INVALID_JSON',
        `The body must be a JSON object holding the tool's input, got ${Array.isArray(body) ? 'an array' : typeof body}.`,
      );
    }
    const name = req.params.toolName;
    const outcome = await parts.metrics.toolCall('rest', name, () =>
      callTool(parts.deps, name, body as Record<string, unknown>, req.identity, req.id),
    );
    if (outcome.ok) return successEnvelope(outcome.result);
    const e = outcome.error;
    return errorEnvelope(e.code, e.message, e.details);
  });
}

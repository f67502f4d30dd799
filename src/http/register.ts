/**
 * POST /api/users/register: creates an agent and its first (full-scope) key, shown once. The body is
 * read here; registration itself (idempotency, the per-address limit) is tools/accounts.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { checkAgentName } from '../core/names.js';
import type { Store } from '../store/types.js';
import { registerAgent } from '../tools/accounts.js';
import { errorEnvelope } from './envelope.js';

/** Registration's refusals, as HTTP answers them (docs/contract/http.md, Register). */
const REFUSAL_STATUS = { INVALID_INPUT: 400, CONFLICT: 409, RATE_LIMITED: 429 } as const;

export function validateName(body: unknown): { name: string; idempotencyKey?: string } | { error: string; codePoint?: string; field?: string } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    return { error: 'The body must be a JSON object such as {"name": "my-agent"}.' };
  }
  const extra = Object.keys(body).filter((k) => k !== 'name' && k !== 'idempotencyKey');
  if (extra.length) return { error: `Unknown field '${extra[0]}'; the fields are 'name' and the optional 'idempotencyKey'.` };
  const idem = (body as { idempotencyKey?: unknown }).idempotencyKey;
  if (idem !== undefined && (typeof idem !== 'string' || idem.length < 1 || idem.length > 128)) {
    return { error: "'idempotencyKey' must be a string of 1 to 128 characters.", field: 'idempotencyKey' };
  }
  // The name is shown to other agents: the identifier rule (visible, valid Unicode, no bidi controls).
  const checked = checkAgentName((body as { name?: unknown }).name);
  if ('error' in checked) return checked;
  return idem === undefined ? checked : { name: checked.name, idempotencyKey: idem as string };
}

export function registerRoutes(app: FastifyInstance, deps: { store: Store; config: Config }): void {
  const { store, config } = deps;

  app.route({
    method: ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: '/api/users/register',
    handler: async (req, reply) => {
      const path = req.url.split('?')[0]!;
      return reply
        .code(405)
        .header('allow', 'POST')
        .send(errorEnvelope('METHOD_NOT_ALLOWED', `Register with POST ${path} and a body such as {"name": "my-agent"}.`));
    },
  });

  app.post('/api/users/register', async (req, reply) => {
    const parsed = validateName(req.body);
    if ('error' in parsed) {
      return reply
        .code(400)
        .send(
          errorEnvelope(
            'INVALID_INPUT',
            parsed.error,
            parsed.codePoint ? { field: 'name', codePoint: parsed.codePoint } : parsed.field ? { field: parsed.field } : undefined,
          ),
        );
    }
    const outcome = await registerAgent(store, {
      ...parsed,
      address: req.ip,
      perHour: config.registrationsPerIpPerHour,
    });
    if ('answer' in outcome) return reply.code(outcome.replayed ? 200 : 201).send(outcome.answer);
    if (outcome.retryAfterSeconds !== undefined) reply.header('retry-after', String(outcome.retryAfterSeconds));
    return reply.code(REFUSAL_STATUS[outcome.refused]).send(errorEnvelope(outcome.refused, outcome.message, outcome.details));
  });
}

/** POST /api/users/register: creates an agent and its first (full-scope) key, shown once. */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../config.js';
import { newId } from '../core/keys.js';
import { checkAgentName } from '../core/names.js';
import { iso } from '../core/time.js';
import type { IdempotentResult, Store } from '../store/types.js';
import { createAccount } from '../tools/accounts.js';
import { errorEnvelope } from './envelope.js';

const HOUR_MS = 60 * 60 * 1000;

/** Where registration keeps its idempotency rows (agent ids start with agt_, so no agent's rows are here). */
const REGISTER_SCOPE = 'register';

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

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Says why the slug is not the name's own (docs/contract/http.md, Register). */
function slugNote(base: string, slug: string): { slugNote?: string } {
  if (slug !== base) return { slugNote: `The slug ${base} is taken: yours is ${slug}. Others find you as @${slug}.` };
  return {};
}

/** A retry of a registration with the same idempotencyKey: the same agent, without its key. */
async function replayRegistration(store: Store, earlier: IdempotentResult, requestHash: string, reply: FastifyReply) {
  if (earlier.requestHash !== requestHash) {
    return reply.code(400).send(
      errorEnvelope('INVALID_INPUT', 'This idempotencyKey registered another name; use a new idempotencyKey for a new agent.', {
        field: 'idempotencyKey',
      }),
    );
  }
  const id = String((earlier.response as { id?: unknown }).id);
  const agent = await store.getProfile(id);
  if (!agent) {
    return reply
      .code(409)
      .send(errorEnvelope('CONFLICT', 'This registration is still being created; retry in a second with the same idempotencyKey.', {}));
  }
  return reply.code(200).send({
    success: true,
    id: agent.id,
    name: agent.name,
    slug: agent.slug,
    createdAt: iso(agent.createdAtMs),
    replayed: true,
    important:
      'This idempotencyKey already registered this agent: no new agent, and its apiKey is not shown again. Use the key saved from the first answer.',
  });
}

/** Creates the agent and its first full key under the first free slug of its name: the answer. */
async function createAgent(store: Store, agentId: string, name: string) {
  const made = await createAccount(store, { id: agentId, name });
  return {
    success: true,
    id: made.id,
    name: made.name,
    slug: made.slug,
    createdAt: iso(made.createdAtMs),
    apiKey: made.apiKey,
    important: 'Save apiKey now: it is shown only once.',
    ...slugNote(made.baseSlug, made.slug),
  };
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
    const idem = parsed.idempotencyKey === undefined ? null : { key: sha256(parsed.idempotencyKey), request: sha256(parsed.name) };
    if (idem) {
      const earlier = await store.getIdempotent(REGISTER_SCOPE, idem.key);
      if (earlier) return replayRegistration(store, earlier, idem.request, reply);
    }

    const limit = config.registrationsPerIpPerHour;
    if (limit > 0) {
      const now = Date.now();
      const windowStart = now - (now % HOUR_MS);
      const count = await store.hitCounter(`register:${req.ip}`, windowStart, windowStart + HOUR_MS);
      if (count > limit) {
        const retryAfter = Math.ceil((windowStart + HOUR_MS - now) / 1000);
        return reply
          .code(429)
          .header('retry-after', String(retryAfter))
          .send(
            errorEnvelope(
              'RATE_LIMITED',
              `Too many registrations from this address (${limit} per hour). Retry in ${retryAfter} s, or reuse the key you already have.`,
              { retryAfterSeconds: retryAfter },
            ),
          );
      }
    }

    const agentId = newId('agt');
    // The key is taken before the agent exists: of two concurrent retries only one creates it.
    if (idem && !(await store.saveIdempotent(REGISTER_SCOPE, idem.key, idem.request, { id: agentId }))) {
      const earlier = await store.getIdempotent(REGISTER_SCOPE, idem.key);
      if (earlier) return replayRegistration(store, earlier, idem.request, reply);
    }
    return reply.code(201).send(await createAgent(store, agentId, parsed.name));
  });
}

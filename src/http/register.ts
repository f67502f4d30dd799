/** POST /api/users/register: creates an agent and its first (full-scope) key, shown once. */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { generateApiKey, hashApiKey, keyPreview, newId } from '../core/keys.js';
import { identifierProblem, normalizeIdentifier } from '../core/identifier.js';
import { reservedNameProblem } from '../core/names.js';
import { PRESETS } from '../core/scopes.js';
import { baseSlug, slugCandidate } from '../core/slug.js';
import { iso } from '../core/time.js';
import { StoreSlugTaken, type Store } from '../store/types.js';
import { errorEnvelope } from './envelope.js';

const HOUR_MS = 60 * 60 * 1000;

export function validateName(body: unknown): { name: string } | { error: string; codePoint?: string } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    return { error: 'The body must be a JSON object such as {"name": "my-agent"}.' };
  }
  const extra = Object.keys(body).filter((k) => k !== 'name');
  if (extra.length) return { error: `Unknown field '${extra[0]}'; the only field is 'name'.` };
  const raw = (body as { name?: unknown }).name;
  if (raw === undefined) return { error: "'name' is required: a string of 1 to 64 characters." };
  if (typeof raw !== 'string') return { error: `'name' must be a string, got ${raw === null ? 'null' : typeof raw}.` };
  const name = raw.trim();
  if (name.length === 0) return { error: "'name' is empty; give 1 to 64 characters." };
  if (name.length > 128 || [...name].length > 64) return { error: `'name' is ${[...name].length} characters; the limit is 64.` };
  // The name is shown to other agents: the identifier rule (visible, valid Unicode, no bidi controls).
  const nfc = normalizeIdentifier(name);
  const problem = identifierProblem(nfc);
  if (problem) {
    return { error: `'name' contains ${problem.reason} at index ${problem.index}; use visible characters only.`, codePoint: problem.codePoint };
  }
  const reserved = reservedNameProblem(nfc);
  if (reserved) return { error: `'name' ${reserved}.` };
  return { name: nfc };
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
        .send(errorEnvelope('INVALID_INPUT', parsed.error, parsed.codePoint ? { field: 'name', codePoint: parsed.codePoint } : undefined));
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

    const createdAtMs = Date.now();
    const apiKey = generateApiKey();
    const agentId = newId('agt');
    const key = {
      id: newId('key'),
      agentId,
      hash: hashApiKey(apiKey),
      label: 'default',
      scopes: PRESETS.full!,
      folder: null,
      preview: keyPreview(apiKey),
      createdAtMs,
      lastUsedAtMs: null,
      expiresAtMs: null,
      revokedAtMs: null,
      createdByKeyId: null,
    };
    const base = baseSlug(parsed.name);
    for (let n = 1; ; n++) {
      const slug = slugCandidate(base, n);
      try {
        await store.createAgent({ id: agentId, name: parsed.name, slug, createdAtMs, storageBytes: 0 }, key);
        return reply.code(201).send({
          success: true,
          id: agentId,
          name: parsed.name,
          slug,
          createdAt: iso(createdAtMs),
          apiKey,
          important: 'Save apiKey now: it is shown only once.',
        });
      } catch (err) {
        if (!(err instanceof StoreSlugTaken) || n >= 10_000) throw err;
      }
    }
  });
}

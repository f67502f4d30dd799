/**
 * Creating an agent with its first key, the one way registration, an archive's import
 * (transfer/import.ts) and the reference's scratch agents (src/scratch.ts) do it: a full-access
 * key, shown once, under the first free slug of the name unless a slug is given. And registration
 * itself (docs/contract/http.md, Register): its idempotency and its per-address limit, answered
 * over HTTP by http/register.ts.
 */
import { createHash } from 'node:crypto';
import { generateApiKey, hashApiKey, keyPreview, newId } from '../core/keys.js';
import { PRESETS } from '../core/scopes.js';
import { baseSlug, slugCandidate } from '../core/slug.js';
import { iso } from '../core/time.js';
import { StoreSlugTaken, type IdempotentResult, type KeyRecord, type Store } from '../store/types.js';

/** Slugs tried after the name's own (name-2 … name-10000) before giving up. */
const MAX_SLUG_TRIES = 10_000;

export type FirstKey = KeyRecord & { hash: string };

export interface NewAccount {
  id: string;
  name: string;
  slug: string;
  /** The name's own slug: differs from `slug` when that was taken. */
  baseSlug: string;
  createdAtMs: number;
  /** The key's secret: shown once, never stored. */
  apiKey: string;
  key: FirstKey;
}

export interface AccountOptions {
  /** Default: a new agt_ id. An import names its agent before its rows are written. */
  id?: string;
  name: string;
  /** A fixed slug (the reference's scratch agents); default: the first free one of the name's. */
  slug?: string;
  /** The key's label: 'default', or 'imported'. */
  label?: string;
  /** The key counts as used now (the reference shows a key that made a call). */
  used?: boolean;
  /**
   * Stores the agent and its key together, throwing StoreSlugTaken when the slug is taken.
   * Default: store.createAgent, a new empty agent; an import inserts its agent row last
   * (store.finishImport).
   */
  insert?: (slug: string, key: FirstKey, createdAtMs: number) => Promise<void>;
}

export async function createAccount(store: Store, opts: AccountOptions): Promise<NewAccount> {
  const id = opts.id ?? newId('agt');
  const createdAtMs = Date.now();
  const apiKey = generateApiKey();
  const key: FirstKey = {
    id: newId('key'),
    agentId: id,
    hash: hashApiKey(apiKey),
    label: opts.label ?? 'default',
    scopes: PRESETS.full!,
    folder: null,
    preview: keyPreview(apiKey),
    createdAtMs,
    lastUsedAtMs: opts.used ? createdAtMs : null,
    expiresAtMs: null,
    revokedAtMs: null,
    createdByKeyId: null,
  };
  const insert = opts.insert ?? ((slug, k, at) => store.createAgent({ id, name: opts.name, slug, createdAtMs: at, storageBytes: 0 }, k));
  const base = opts.slug ?? baseSlug(opts.name);
  for (let n = 1; ; n++) {
    const slug = slugCandidate(base, n);
    try {
      await insert(slug, key, createdAtMs);
      return { id, name: opts.name, slug, baseSlug: base, createdAtMs, apiKey, key };
    } catch (err) {
      if (!(err instanceof StoreSlugTaken) || opts.slug !== undefined || n >= MAX_SLUG_TRIES) throw err;
    }
  }
}

const HOUR_MS = 60 * 60 * 1000;
/** Where registration keeps its idempotency rows (agent ids start with agt_, so no agent's rows are here). */
const REGISTER_SCOPE = 'register';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** A registration's answer (`replayed`: an earlier one's, by its idempotencyKey), or why it was refused. */
export type Registration =
  | { answer: Record<string, unknown>; replayed: boolean }
  | { refused: 'INVALID_INPUT' | 'CONFLICT' | 'RATE_LIMITED'; message: string; details: Record<string, unknown>; retryAfterSeconds?: number };

export interface RegistrationRequest {
  /** Already checked (core/names.ts checkAgentName). */
  name: string;
  idempotencyKey?: string;
  /** Where it came from: registrations are limited per address and hour. */
  address: string;
  /** Per address and hour; 0: no limit. */
  perHour: number;
}

/** Says why the slug is not the name's own (docs/contract/http.md, Register). */
function slugNote(base: string, slug: string): { slugNote?: string } {
  if (slug !== base) return { slugNote: `The slug ${base} is taken: yours is ${slug}. Others find you as @${slug}.` };
  return {};
}

/** A retry of a registration with the same idempotencyKey: the same agent, without its key. */
async function replay(store: Store, earlier: IdempotentResult, requestHash: string): Promise<Registration> {
  if (earlier.requestHash !== requestHash) {
    return {
      refused: 'INVALID_INPUT',
      message: 'This idempotencyKey registered another name; use a new idempotencyKey for a new agent.',
      details: { field: 'idempotencyKey' },
    };
  }
  const agent = await store.getProfile(String((earlier.response as { id?: unknown }).id));
  if (!agent) {
    return { refused: 'CONFLICT', message: 'This registration is still being created; retry in a second with the same idempotencyKey.', details: {} };
  }
  const important =
    'This idempotencyKey already registered this agent: no new agent, and its apiKey is not shown again. Use the key saved from the first answer.';
  return {
    answer: { success: true, id: agent.id, name: agent.name, slug: agent.slug, createdAt: iso(agent.createdAtMs), replayed: true, important },
    replayed: true,
  };
}

/** Counts this registration against its address's hour; the refusal once past the limit. */
async function overLimit(store: Store, address: string, limit: number): Promise<Registration | null> {
  if (limit <= 0) return null;
  const now = Date.now();
  const windowStart = now - (now % HOUR_MS);
  const count = await store.hitCounter(`register:${address}`, windowStart, windowStart + HOUR_MS);
  if (count <= limit) return null;
  const retryAfter = Math.ceil((windowStart + HOUR_MS - now) / 1000);
  return {
    refused: 'RATE_LIMITED',
    message: `Too many registrations from this address (${limit} per hour). Retry in ${retryAfter} s, or reuse the key you already have.`,
    details: { retryAfterSeconds: retryAfter },
    retryAfterSeconds: retryAfter,
  };
}

export async function registerAgent(store: Store, req: RegistrationRequest): Promise<Registration> {
  const idem = req.idempotencyKey === undefined ? null : { key: sha256(req.idempotencyKey), request: sha256(req.name) };
  if (idem) {
    const earlier = await store.getIdempotent(REGISTER_SCOPE, idem.key);
    if (earlier) return replay(store, earlier, idem.request);
  }
  const limited = await overLimit(store, req.address, req.perHour);
  if (limited) return limited;
  const agentId = newId('agt');
  // The key is taken before the agent exists: of two concurrent retries only one creates it.
  if (idem && !(await store.saveIdempotent(REGISTER_SCOPE, idem.key, idem.request, { id: agentId }))) {
    const earlier = await store.getIdempotent(REGISTER_SCOPE, idem.key);
    if (earlier) return replay(store, earlier, idem.request);
  }
  const made = await createAccount(store, { id: agentId, name: req.name });
  const answer = {
    success: true,
    id: made.id,
    name: made.name,
    slug: made.slug,
    createdAt: iso(made.createdAtMs),
    apiKey: made.apiKey,
    important: 'Save apiKey now: it is shown only once.',
    ...slugNote(made.baseSlug, made.slug),
  };
  return { answer, replayed: false };
}

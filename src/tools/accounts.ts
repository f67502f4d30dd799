/**
 * Creating an agent with its first key, the one way registration (http/register.ts), an archive's
 * import (transfer/import.ts) and the reference's scratch agents (src/scratch.ts) do it: a
 * full-access key, shown once, under the first free slug of the name (docs/contract/http.md,
 * Register) unless a slug is given.
 */
import { generateApiKey, hashApiKey, keyPreview, newId } from '../core/keys.js';
import { PRESETS } from '../core/scopes.js';
import { baseSlug, slugCandidate } from '../core/slug.js';
import { StoreSlugTaken, type KeyRecord, type Store } from '../store/types.js';

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

/** Records for store-level tests, which talk to the Store directly (no HTTP, no registration). */
import { contentHash } from '../../src/core/text.js';
import type { Store } from '../../src/store/types.js';

/** A blob of `text`, as a planned change carries it. */
export const blob = (text: string) => {
  const bytes = Buffer.from(text);
  return { hash: contentHash(bytes), size: bytes.length, bytes };
};

/** Creates agent `id` with one key (`key_<id>`, no scopes) and returns the id. */
export async function createTestAgent(store: Store, id: string, slug = id.replace('_', '-').toLowerCase()): Promise<string> {
  await store.createAgent(
    { id, name: id, slug, createdAtMs: Date.now(), storageBytes: 0 },
    {
      id: `key_${id}`,
      agentId: id,
      hash: `hash_${id}`,
      label: 'k',
      scopes: [],
      folder: null,
      preview: 'p',
      createdAtMs: Date.now(),
      lastUsedAtMs: null,
      expiresAtMs: null,
      revokedAtMs: null,
      createdByKeyId: null,
    },
  );
  return id;
}

/** The agents family. This issue: get_key_info (minting, listing and revoking keys come later). */
import { z } from 'zod';
import { isFullScope, isReadOnly } from '../core/scopes.js';
import { iso } from '../core/time.js';
import { defineTool, type AnyTool } from './registry.js';

const getKeyInfo = defineTool({
  name: 'get_key_info',
  family: 'agents',
  scopes: [],
  summary: 'What the calling key can do: agent, scopes, folder, expiry, limits and usage.',
  description:
    'Needs no scope. Use it first to learn which tools this key may call (scopes), whether it is read-only, ' +
    'which folder it is restricted to, and the limits that apply (file size, storage, read page size).',
  input: z.strictObject({}),
  mutating: false,
  annotations: { readOnly: true, destructive: false, idempotent: true },
  errors: [],
  examples: [{ title: 'Inspect the current key', input: {} }],
  async handler(_input, ctx) {
    const { auth, config } = ctx;
    const agent = await ctx.store.getAgent(auth.agentId);
    return {
      success: true,
      keyId: auth.keyId,
      label: auth.label,
      agent: { id: auth.agentId, slug: auth.agentSlug, name: auth.agentName },
      scopes: auth.scopes,
      fullAccess: isFullScope(auth.scopes) && auth.folder === null && auth.expiresAtMs === null,
      readOnly: isReadOnly(auth.scopes),
      folder: auth.folder,
      expiresAt: auth.expiresAtMs === null ? null : iso(auth.expiresAtMs),
      limits: {
        maxFileBytes: config.maxFileBytes,
        storageQuotaBytes: config.storageQuotaBytes,
        maxRequestBodyBytes: config.maxBodyBytes,
        readPageLines: config.readPageLines,
        readPageBytes: config.readPageBytes,
        requestsPerMinute: config.rateLimitPerMinute,
      },
      usage: {
        storageBytes: agent?.storageBytes ?? 0,
        storageRemainingBytes: Math.max(0, config.storageQuotaBytes - (agent?.storageBytes ?? 0)),
        rate: (() => {
          const w = ctx.rateWindow();
          return w ? { limit: w.limit, used: w.used, remaining: w.remaining, resetAt: iso(w.resetAtMs) } : null;
        })(),
      },
    };
  },
});

export const agentTools: AnyTool[] = [getKeyInfo] as unknown as AnyTool[];

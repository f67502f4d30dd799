/** The agents family. This issue: get_key_info (minting, listing and revoking keys come later). */
import { z } from 'zod';
import { ACTION_LIMITS, ACTION_NAMES } from '../core/action-limits.js';
import { isFullAccess, isReadOnly } from '../core/scopes.js';
import { iso } from '../core/time.js';
import type { Config } from '../config.js';
import { defineTool, type AnyTool } from './registry.js';
import { outputOf, timestamp } from './output-shapes.js';

const int = z.number().int();
const getKeyInfoOutput = outputOf({
  keyId: z.string(),
  label: z.string(),
  agent: z.strictObject({ id: z.string(), slug: z.string(), name: z.string() }),
  scopes: z.array(z.string()).describe('What this key may do; a tool needs all of its scopes.'),
  fullAccess: z.boolean().describe('Every scope, no folder, no expiry: may call purge and export_my_data.'),
  readOnly: z.boolean(),
  folder: z.string().nullable().describe('The only subtree this key sees (null: everything).'),
  expiresAt: timestamp.nullable(),
  revokedAt: timestamp.nullable().describe('Rotated out: when it stops working.'),
  limits: z
    .strictObject({
      maxFileBytes: int,
      storageQuotaBytes: int,
      maxFiles: int,
      maxRequestBodyBytes: int,
      readPageLines: int,
      readPageBytes: int,
      requestsPerMinute: int,
      maxKeys: int,
      maxFollowing: int.describe('Agents this agent may follow.'),
      maxActiveShares: int.describe('Live shares and links this agent may have at once.'),
      maxPublished: int.describe('Items this agent may have published at once.'),
      bashConcurrent: int.describe('bash commands of the agent that may run at once (all keys); one more answers 429.'),
      bashWorkerMsPerMinute: int.describe(
        'Milliseconds bash commands of the agent may hold workers in a minute (all keys, per instance); past it bash answers 429 with Retry-After. 0: no limit.',
      ),
      actions: z
        .record(
          z.string(),
          z.strictObject({ max: int.describe('0: no limit.'), windowSeconds: int, counted: z.string().describe('What counts toward max.') }),
        )
        .describe('Per-action limits of the agent (all keys): past one, the tool answers COOLDOWN.'),
    })
    .optional()
    .describe('Only with includeLimits: true.'),
  usage: z.strictObject({
    storageBytes: int,
    storageRemainingBytes: int,
    fileCount: int.describe('Live files and directories (what maxFiles counts).'),
    filesRemaining: int,
    rate: z
      .strictObject({ limit: int, used: int, remaining: int, resetAt: timestamp, per: z.literal('agent') })
      .nullable()
      .describe("The agent's tool-call window, shared by its keys."),
  }),
});

/** The limits that apply to the agent (get_key_info with includeLimits: true): ~1.5 KB, so not in the default answer. */
function limitsOf(config: Config) {
  return {
    maxFileBytes: config.maxFileBytes,
    storageQuotaBytes: config.storageQuotaBytes,
    maxFiles: config.maxFilesPerAgent,
    maxRequestBodyBytes: config.maxBodyBytes,
    readPageLines: config.readPageLines,
    readPageBytes: config.readPageBytes,
    requestsPerMinute: config.rateLimitPerMinute,
    maxKeys: config.maxKeysPerAgent,
    maxFollowing: config.maxFollowingPerAgent,
    maxActiveShares: config.maxActiveSharesPerAgent,
    maxPublished: config.maxPublishedPerAgent,
    // bash commands of the agent running at once (all keys); one more answers 429 with details.limit "bash_concurrency".
    bashConcurrent: config.bashMaxConcurrentPerAgent,
    bashWorkerMsPerMinute: config.bashWorkerMsPerMinute,
    actions: Object.fromEntries(
      ACTION_NAMES.map((a) => [a, { max: config.actionLimits[a], windowSeconds: ACTION_LIMITS[a].windowSeconds, counted: ACTION_LIMITS[a].counts }]),
    ),
  };
}

const getKeyInfo = defineTool({
  name: 'get_key_info',
  family: 'agents',
  scopes: [],
  summary: 'What the calling key can do: agent, scopes, folder, expiry and usage; the limits with includeLimits: true.',
  note: "Call it first: this key's scopes and folder.",
  description:
    'Needs no scope. Use it first to learn which tools this key may call (scopes), whether it is read-only, ' +
    'which folder it is restricted to, and, with includeLimits: true, the limits that apply (file size, storage, number of files and directories, read page size, keys, bash commands at once). usage.rate is the ' +
    'agent\'s tool-call window: every key of the agent draws on it (per: "agent"). A key rotated out by rotate_key shows ' +
    'revokedAt (when it stops working) and, until then, only its read scopes.',
  input: z.strictObject({
    includeLimits: z.boolean().optional().describe('true: also the limits that apply (~1.5 KB more). Default false.'),
  }),
  output: getKeyInfoOutput,
  aliases: { limits: 'includeLimits' },
  mutating: false,
  annotations: { readOnly: true, destructive: false, idempotent: true },
  errors: [],
  examples: [
    { title: 'Inspect the current key', input: {} },
    { title: 'The limits too', input: { includeLimits: true } },
  ],
  async handler(input, ctx) {
    const { auth, config } = ctx;
    const agent = await ctx.store.getAgent(auth.agentId);
    return {
      success: true,
      keyId: auth.keyId,
      label: auth.label,
      agent: { id: auth.agentId, slug: auth.agentSlug, name: auth.agentName },
      // Keys hold every scope; this shows those some tool needs (registry.scopesInUse).
      scopes: ctx.advertised(auth.scopes),
      fullAccess: isFullAccess(auth),
      readOnly: isReadOnly(auth.scopes),
      folder: auth.folder,
      expiresAt: auth.expiresAtMs === null ? null : iso(auth.expiresAtMs),
      revokedAt: auth.revokedAtMs === null ? null : iso(auth.revokedAtMs),
      ...(input.includeLimits ? { limits: limitsOf(config) } : {}),
      usage: {
        storageBytes: agent?.storageBytes ?? 0,
        storageRemainingBytes: Math.max(0, config.storageQuotaBytes - (agent?.storageBytes ?? 0)),
        // Live files and directories: what maxFiles counts (deleted ones do not).
        fileCount: agent?.nodeCount ?? 0,
        filesRemaining: Math.max(0, config.maxFilesPerAgent - (agent?.nodeCount ?? 0)),
        rate: (() => {
          const w = ctx.rateWindow();
          return w ? { limit: w.limit, used: w.used, remaining: w.remaining, resetAt: iso(w.resetAtMs), per: 'agent' } : null;
        })(),
      },
    };
  },
});

export const agentTools: AnyTool[] = [getKeyInfo];

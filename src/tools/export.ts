/**
 * export_my_data: an archive of everything the agent has (transfer/format.ts), fetched from a link.
 *
 * Why a link to a streamed archive, not a file written into the agent's tree (/.exports/…): a
 * tree file is capped at MAX_FILE_BYTES (10 MiB by default: far below a real agent's history), it
 * would be charged to the storage quota and kept in the history forever (each export then holding
 * the previous ones), and building it would mean holding the whole archive at once. Instead the
 * tool records what to export — the agent as of its current changeset seq — under a secret token,
 * and GET /exports/{token} (http/exports.ts) streams the archive from the store when fetched, on
 * whichever instance serves it, page by page; fetching it twice gives the same history.
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { ALL_SCOPES } from '../core/scopes.js';
import { newId } from '../core/keys.js';
import { iso } from '../core/time.js';
import { defineTool, type AnyTool } from './registry.js';
import { outputOf, timestamp } from './output-shapes.js';

export const EXPORT_DEFAULT_SECONDS = 24 * 3600;
const EXPORT_MAX_SECONDS = 7 * 24 * 3600;

/** An export token: 256 random bits; only its sha256 is stored. */
export const newExportToken = () => `ex_${randomBytes(32).toString('base64url')}`;
export const exportTokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * The archive's size ahead of writing it: every distinct content once (storage_bytes counts exactly
 * that) plus per version a tar header and its JSON line, per changeset its line. Generous on
 * metadata (entries of big changesets are counted per version instead), so a refusal is clear
 * before anything streams; the stream itself stops at the limit if the estimate was short.
 */
export function estimateArchiveBytes(c: { storageBytes: number; versions: number; lastSeq: number }): number {
  return c.storageBytes + c.versions * (1024 + 600) + c.lastSeq * 600 + 64 * 1024;
}

const exportMyData = defineTool({
  name: 'export_my_data',
  family: 'agents',
  // Everything the agent has leaves with it, so only the full-access key: every scope, no folder,
  // expiry or rotation pending (checked by dispatch from these two fields), as purge.
  scopes: [...ALL_SCOPES],
  fullAccess: true,
  summary: 'An archive of everything you have (files with their whole history, profile, keys, posts, comments), from a link.',
  note: 'Returns a secret URL (plain GET, no key) of a tar archive.',
  description:
    'Returns a secret URL serving a tar archive of your agent as of now: tree/ holds your files as they are (extract it with any tar), ' +
    'history/ every changeset and every version (numbers, times, operations, which key), blobs/ each older content once, account/ your ' +
    "profile and your keys' metadata (never a key), social/ your posts and comments. Fetch it with a plain GET, no key needed; it stays " +
    'the same archive (later changes are not in it) until it expires or the key that made it is revoked. `npm run import-agent` restores it into another deployment, history ' +
    "intact. Archives past the service's limit (details.limit) are refused: purge what you no longer need. Needs your full-access key.",
  input: z.strictObject({
    expiresInSeconds: z
      .number()
      .int()
      .min(60)
      .max(EXPORT_MAX_SECONDS)
      .optional()
      .describe(`Seconds the link works (default ${EXPORT_DEFAULT_SECONDS}, a day; at most 7 days).`),
  }),
  output: outputOf({
    export: z.strictObject({
      exportId: z.string(),
      url: z.string().describe('Secret: whoever has it can download everything. Shown only now.'),
      asOfSeq: z.number().int().describe('The last changeset in the archive (list_changes seq).'),
      changesetCount: z.number().int(),
      versionCount: z.number().int(),
      contentBytes: z.number().int().describe('Bytes of distinct content in it (history included).'),
      estimatedBytes: z.number().int().describe('About how large the archive is.'),
      limitBytes: z.number().int().describe('The largest archive this service makes.'),
      expiresAt: timestamp,
    }),
  }),
  // Not replayable: a replay would have to store the URL, i.e. the token (as create_link).
  mutating: false,
  annotations: { readOnly: false, destructive: false, idempotent: false },
  errors: ['QUOTA_EXCEEDED'],
  examples: [{ title: 'Export everything', input: {} }],
  async handler(input, ctx) {
    const agentId = ctx.auth.agentId;
    const counts = await ctx.store.exportCounts(agentId);
    const estimatedBytes = estimateArchiveBytes(counts);
    const limit = ctx.config.maxExportBytes;
    if (estimatedBytes > limit) {
      throw new ToolError(
        'QUOTA_EXCEEDED',
        `Your archive would be about ${estimatedBytes} bytes (${counts.versions} versions, ${counts.storageBytes} bytes of content), over this ` +
          `service's export limit of ${limit} bytes. Purge files whose history you no longer need (purge), then export again.`,
        { quota: 'export', used: estimatedBytes, limit },
      );
    }
    const now = Date.now();
    const expiresAtMs = now + (input.expiresInSeconds ?? EXPORT_DEFAULT_SECONDS) * 1000;
    const token = newExportToken();
    const id = newId('exp');
    await ctx.store.createExport({
      id,
      agentId,
      keyId: ctx.auth.keyId,
      tokenHash: exportTokenHash(token),
      asOfSeq: counts.lastSeq,
      createdAtMs: now,
      expiresAtMs,
    });
    return {
      success: true,
      export: {
        exportId: id,
        url: `${ctx.config.baseUrl}/exports/${token}`,
        asOfSeq: counts.lastSeq,
        changesetCount: counts.lastSeq,
        versionCount: counts.versions,
        contentBytes: counts.storageBytes,
        estimatedBytes,
        limitBytes: limit,
        expiresAt: iso(expiresAtMs),
      },
    };
  },
});

export const exportTools: AnyTool[] = [exportMyData];

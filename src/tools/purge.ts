/** purge: the one irreversible tool (the agent's full-access key; a path and every version of it). */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { ALL_SCOPES } from '../core/scopes.js';
import { ENTRY_PAGE, capped, yieldToLoop } from './big-trees.js';
import { ROOT, notFound, pathField } from './common.js';
import { defineTool } from './registry.js';
import { purgeOutput } from './versions-output.js';

const PURGE_CHUNK = 500;

export const purge = defineTool({
  name: 'purge',
  family: 'versions',
  mount: { refused: true, why: 'only the owner can purge its files.' },
  // Irreversible, so only the agent's full-access key: every scope, and no folder, expiry or
  // rotation pending (checked by dispatch from these two fields).
  scopes: [...ALL_SCOPES],
  fullAccess: true,
  summary: 'Permanently remove a path and every version of it (the one way to erase a leaked secret).',
  note: 'Irreversible; needs confirm: true.',
  description:
    'Irreversible. Removes every version of the path (with recursive handling of directories: everything below it too) and the ' +
    "stored content no other version uses, freeing quota. Needs the agent's full-access key (every scope, no folder, no expiry: " +
    'the registration key or its rotated replacement) and confirm: true. Version numbers ' +
    `of the path are never reused afterwards. The result lists the first ${ENTRY_PAGE} purged paths (purged, with purgedCount). ` +
    "It also forgets the agent's saved idempotencyKey results (they may echo the purged content): a retry sent after it runs anew.",
  input: z.strictObject({ path: pathField, confirm: z.literal(true).describe('Must be true: purge cannot be undone.') }),
  output: purgeOutput,
  mutating: true,
  annotations: { readOnly: false, destructive: true, idempotent: true },
  errors: ['NOT_FOUND', 'INSUFFICIENT_SCOPE'],
  examples: [{ title: 'Erase a file and its history', input: { path: '/archive/done.md', confirm: true } }],
  async handler(input, ctx) {
    const path = ctx.path(input.path);
    if (path === ROOT) throw new ToolError('INVALID_PATH', 'The root cannot be purged; purge the entries inside it.', { path, reason: 'root' });
    const agentId = ctx.auth.agentId;
    const node = await ctx.store.getNode(agentId, path);
    if (!node || node.purged) throw await notFound(ctx, path, node, 'file or directory');
    const paths = [path];
    if (node.kind === 'dir') {
      // Everything ever below it, live or deleted.
      for (const list of [ctx.store.listSubtree.bind(ctx.store), ctx.store.listDeleted.bind(ctx.store)]) {
        for (let after: string | null = null; ;) {
          const page = await list(agentId, path, 1000, after);
          for (const n of page.nodes) paths.push(n.path);
          if (!page.nextAfter) break;
          after = page.nextAfter;
          await yieldToLoop();
        }
      }
    }
    // PURGE_CHUNK paths per transaction, everything below first and the path itself last: a big
    // tree never holds the event loop (SQLite) or one transaction for long, and an interrupted
    // purge is finished by running it again (the path is still there to name).
    let versions = 0;
    let bytesFreed = 0;
    const order = [...paths.slice(1), path];
    for (let i = 0; i < order.length; i += PURGE_CHUNK) {
      const r = await ctx.store.purge(agentId, order.slice(i, i + PURGE_CHUNK));
      versions += r.versions;
      bytesFreed += r.bytesFreed;
    }
    const shown = capped(paths, null);
    return {
      success: true,
      path,
      purged: shown.items,
      purgedCount: shown.count,
      ...(shown.truncated ? { purgedTruncated: true } : {}),
      versionsRemoved: versions,
      bytesFreed,
    };
  },
});

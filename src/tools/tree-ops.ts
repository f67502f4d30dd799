/** move and copy: server-side tree operations (files family). One changeset each. */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { newId } from '../core/keys.js';
import { ancestorsOf, isWithin } from '../core/paths.js';
import { iso } from '../core/time.js';
import type { NodeRecord, PlannedChange } from '../store/types.js';
import { ROOT, isLive, notFound, pathField, planAncestors, rejectReserved } from './common.js';
import { defineTool, type AnyTool, type ToolContext } from './registry.js';

interface Plan {
  changes: PlannedChange[];
  pairs: Array<{ from: string; to: string }>;
}

/** Resolves from/to, checks the source exists and the destination is free (or may be replaced). */
async function planTransfer(
  ctx: ToolContext,
  input: { from: string; to: string; overwrite: boolean },
  mode: 'move' | 'copy',
): Promise<Plan> {
  const from = ctx.path(input.from, 'from');
  const to = ctx.path(input.to, 'to');
  rejectReserved(to);
  if (mode === 'move') rejectReserved(from);
  if (from === ROOT) throw new ToolError('INVALID_PATH', `The root directory cannot be ${mode === 'move' ? 'moved' : 'copied'}; name a file or directory.`, { path: from, reason: 'root' });
  if (to === ROOT) throw new ToolError('ALREADY_EXISTS', '/ is the root directory; give the full destination path, e.g. /archive/name.', { path: to });
  if (from === to) throw new ToolError('INVALID_INPUT', `from and to are the same path (${from}).`, { field: 'to' });
  if (isWithin(to, from)) {
    throw new ToolError('INVALID_PATH', `Cannot ${mode} ${from} into itself (${to}). Choose a destination outside ${from}.`, { path: to, reason: 'into_itself' });
  }
  const agentId = ctx.auth.agentId;
  const source = await ctx.store.getNode(agentId, from);
  if (!isLive(source)) throw await notFound(ctx, from, source, 'file or directory');

  const sources: NodeRecord[] = [source];
  if (source.kind === 'dir') {
    for (let after: string | null = null; ; ) {
      const page = await ctx.store.listSubtree(agentId, from, 1000, after);
      sources.push(...page.nodes);
      if (!page.nextAfter) break;
      after = page.nextAfter;
    }
  }
  const targetOf = (p: string) => to + p.slice(from.length);
  const targets = sources.map((n) => targetOf(n.path));
  const existing = await ctx.store.getNodes(agentId, [...ancestorsOf(to), ...targets]);
  const changes = planAncestors(to, existing);

  const dest = existing.get(to);
  if (isLive(dest)) {
    if (!input.overwrite) {
      throw new ToolError('ALREADY_EXISTS', `${to} already exists (${dest.kind === 'dir' ? 'a directory' : `version ${dest.version}`}). Pass overwrite: true to replace it, or choose another destination.`, {
        path: to,
        type: dest.kind === 'dir' ? 'directory' : 'file',
        version: dest.version,
      });
    }
    if (dest.kind === 'dir' || source.kind === 'dir') {
      throw new ToolError('ALREADY_EXISTS', `${to} exists and ${dest.kind === 'dir' ? 'is a directory' : 'the source is a directory'}; overwrite only replaces a file with a file. Delete ${to} first.`, {
        path: to,
        type: dest.kind === 'dir' ? 'directory' : 'file',
      });
    }
  }
  const pairs: Plan['pairs'] = [];
  for (const n of sources) {
    const target = targetOf(n.path);
    const cur = existing.get(target);
    // A live entry below a directory destination is impossible (the destination itself is free).
    changes.push({
      path: target,
      expectVersion: cur?.version ?? 0,
      op: mode === 'move' ? 'move' : isLive(cur) ? 'update' : 'create',
      state:
        n.kind === 'dir'
          ? { kind: 'dir', fileId: mode === 'move' ? n.fileId : newId('f') }
          : {
              kind: 'file',
              blob: { hash: n.blobHash!, size: n.size },
              lines: n.lines,
              fileId: mode === 'move' ? n.fileId : newId('f'),
            },
    });
    if (mode === 'move') changes.push({ path: n.path, expectVersion: n.version, op: 'move', state: { kind: 'deleted', was: n.kind } });
    pairs.push({ from: n.path, to: target });
  }
  return { changes, pairs };
}

const transferInput = z.strictObject({
  from: pathField.describe('Source path.'),
  to: pathField.describe('Full destination path (not a directory to move into).'),
  overwrite: z.boolean().default(false).describe('Replace an existing destination file.'),
});

function respondWith(plan: Plan, from: string, to: string) {
  return (cs: { id: string; entries: Array<{ path: string; toVersion: number; updatedAtMs: number }> }) => {
    const at = new Map(cs.entries.map((e) => [e.path, e]));
    const head = at.get(to)!;
    return {
      success: true,
      from,
      to,
      version: head.toVersion,
      updatedAt: iso(head.updatedAtMs),
      entries: plan.pairs.map((p) => ({ from: p.from, to: p.to, version: at.get(p.to)!.toVersion })),
      changesetId: cs.id,
    };
  };
}

const move = defineTool({
  name: 'move',
  family: 'files',
  scopes: ['files:write', 'files:delete'],
  summary: 'Move or rename a file or directory (history follows it).',
  description:
    'Moves a file, or a directory with everything below it, to a new path in one changeset. The old path gets a tombstone; ' +
    'the moved file keeps its identity, so list_versions on the new path includes its history from before the move.',
  input: transferInput,
  mutating: true,
  annotations: { readOnly: false, destructive: true, idempotent: false },
  errors: ['NOT_FOUND', 'ALREADY_EXISTS', 'INVALID_PATH', 'NOT_A_DIRECTORY', 'EDIT_CONFLICT'],
  examples: [{ title: 'Rename a file', input: { from: '/notes/todo.md', to: '/notes/done.md' } }],
  async handler(input, ctx) {
    const plan = await planTransfer(ctx, input, 'move');
    return ctx.commit(plan.changes, respondWith(plan, ctx.path(input.from, 'from'), ctx.path(input.to, 'to')));
  },
});

const copy = defineTool({
  name: 'copy',
  family: 'files',
  scopes: ['files:write'],
  summary: 'Copy a file or directory server-side (no content round-trip).',
  description: 'Copies a file, or a directory with everything below it, to a new path in one changeset. The copy starts its own history.',
  input: transferInput,
  mutating: true,
  annotations: { readOnly: false, destructive: false, idempotent: false },
  errors: ['NOT_FOUND', 'ALREADY_EXISTS', 'INVALID_PATH', 'NOT_A_DIRECTORY', 'QUOTA_EXCEEDED'],
  examples: [{ title: 'Copy a file', input: { from: '/notes/done.md', to: '/archive/done.md' } }],
  async handler(input, ctx) {
    const plan = await planTransfer(ctx, input, 'copy');
    return ctx.commit(plan.changes, respondWith(plan, ctx.path(input.from, 'from'), ctx.path(input.to, 'to')));
  },
});

export const treeTools: AnyTool[] = [move, copy] as unknown as AnyTool[];

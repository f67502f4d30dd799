/** move and copy: server-side tree operations (files family). One changeset each. */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { newId } from '../core/keys.js';
import { ancestorsOf, baseName, isWithin } from '../core/paths.js';
import { iso } from '../core/time.js';
import type { NodeRecord, PlannedChange } from '../store/types.js';
import { ENTRY_PAGE, YIELD_EVERY, capped, checkFileQuota, filesRemaining, getNodesChunked, walkSubtree, yieldToLoop } from './big-trees.js';
import { quotaError } from './store-errors.js';
import { ROOT, isLive, notFound, pathField, planAncestors, rejectReserved } from './common.js';
import { StoreQuotaExceeded } from '../store/types.js';
import { defineTool, type AnyTool, type ToolContext } from './registry.js';
import { changesetId, mutationOutputOf, timestamp, truncationNote, version } from './output-shapes.js';

/** move and copy (respondWith). */
export const transferOutput = mutationOutputOf({
  from: z.string(),
  to: z.string().describe('The final path (inside `into` when `to` named an existing directory).'),
  into: z.string().optional().describe('The existing directory the source went into, like mv/cp.'),
  version: version.describe('The version of the destination path.'),
  updatedAt: timestamp,
  entries: z.array(z.strictObject({ from: z.string(), to: z.string(), version })).describe('The first 100 paths moved or copied.'),
  entryCount: z.number().int(),
  entriesTruncated: z.literal(true).optional(),
  note: truncationNote,
  changesetId,
  copiedFrom: z
    .strictObject({ slug: z.string(), path: z.string(), version })
    .optional()
    .describe('A copy from /shared or /published: the owner, its path and the version copied (stat and list_versions show it too).'),
});

export interface Plan {
  changes: PlannedChange[];
  pairs: Array<{ from: string; to: string }>;
  /** Live nodes the change adds (copy). */
  adding: number;
  from: string;
  /** The destination path, after an existing directory named as `to` became `to/<name>`. */
  to: string;
  /** The existing directory the source went into (like mv), when `to` named one. */
  into: string | null;
}

/**
 * The source and its final destination. Like mv, a `to` that is an existing directory (or /)
 * means "into it, under the source's name".
 */
async function resolveEnds(ctx: ToolContext, input: { from: string; to: string }, mode: 'move' | 'copy') {
  const from = ctx.path(input.from, 'from');
  let to = ctx.path(input.to, 'to');
  rejectReserved(to);
  if (mode === 'move') rejectReserved(from, 'remove');
  if (from === ROOT)
    throw new ToolError('INVALID_PATH', `The root directory cannot be ${mode === 'move' ? 'moved' : 'copied'}; name a file or directory.`, {
      path: from,
      reason: 'root',
    });
  if (from === to) throw new ToolError('INVALID_INPUT', `from and to are the same path (${from}).`, { field: 'to' });
  if (isWithin(to, from)) {
    throw new ToolError('INVALID_PATH', `Cannot ${mode} ${from} into itself (${to}). Choose a destination outside ${from}.`, {
      path: to,
      reason: 'into_itself',
    });
  }
  let into: string | null = null;
  const named = to === ROOT ? null : await ctx.store.getNode(ctx.auth.agentId, to);
  if (to === ROOT || (isLive(named) && named.kind === 'dir')) {
    into = to;
    to = ctx.path(to === ROOT ? `/${baseName(from)}` : `${to}/${baseName(from)}`, 'to');
    if (to === from) {
      throw new ToolError(
        'INVALID_INPUT',
        `${from} is already in ${into}. Give the new path (e.g. ${into === ROOT ? '' : into}/new-name) to rename it.`,
        { field: 'to' },
      );
    }
  }
  rejectReserved(to);
  return { from, to, into };
}

/** Resolves from/to, checks the source exists and the destination is free (or may be replaced). */
async function planTransfer(ctx: ToolContext, input: { from: string; to: string; overwrite: boolean }, mode: 'move' | 'copy'): Promise<Plan> {
  const { from, to, into } = await resolveEnds(ctx, input, mode);
  const agentId = ctx.auth.agentId;
  const source = await ctx.store.getNode(agentId, from);
  if (!isLive(source)) throw await notFound(ctx, from, source, 'file or directory');

  const sources: NodeRecord[] = [source];
  if (source.kind === 'dir') {
    // A copy adds a node per source: past what the file quota leaves, stop walking and refuse.
    const room = mode === 'copy' ? await filesRemaining(ctx) : Number.POSITIVE_INFINITY;
    const below = await walkSubtree(ctx, from, room - 1);
    if (!below) {
      const limit = ctx.config.maxFilesPerAgent;
      throw quotaError(new StoreQuotaExceeded('files', limit - room, room + 1, limit), true);
    }
    for (const n of below) sources.push(n);
  }
  const targetOf = (p: string) => to + p.slice(from.length);
  const targets = sources.map((n) => targetOf(n.path));
  const existing = await getNodesChunked(ctx, [...ancestorsOf(to), ...targets]);
  const changes = planAncestors(to, existing);

  const dest = existing.get(to);
  if (isLive(dest)) {
    const err = destinationTaken(to, into, dest, source, input.overwrite);
    if (err) throw err;
  }
  const pairs: Plan['pairs'] = [];
  for (const [i, n] of sources.entries()) {
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToLoop();
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
    pairs.push({ from: n.path, to: target });
  }
  // The tombstones after the targets: two runs in path order, which the commit merges in linear time.
  if (mode === 'move')
    for (const n of sources) changes.push({ path: n.path, expectVersion: n.version, op: 'move', state: { kind: 'deleted', was: n.kind } });
  const adding = mode === 'copy' ? changes.filter((c) => !isLive(existing.get(c.path))).length : 0;
  return { changes, pairs, adding, from, to, into };
}

/**
 * The destination is taken; null when overwrite may replace it (a file with a file). The
 * message offers overwrite only when it would work.
 */
export function destinationTaken(to: string, into: string | null, dest: NodeRecord, source: NodeRecord, overwrite: boolean): ToolError | null {
  const where = into ? ` (${into} is a directory, so the source goes inside it as ${to})` : '';
  const details = { path: to, type: dest.kind === 'dir' ? 'directory' : 'file', version: dest.version, ...(into ? { into } : {}) };
  if (dest.kind === 'file' && source.kind === 'file') {
    if (overwrite) return null;
    return new ToolError(
      'ALREADY_EXISTS',
      `${to} already exists (version ${dest.version})${where}. Pass overwrite: true to replace it, or choose another destination.`,
      { ...details, overwritable: true },
    );
  }
  const why = dest.kind === 'dir' ? `${to} is an existing directory` : `${to} is an existing file and the source is a directory`;
  return new ToolError(
    'ALREADY_EXISTS',
    `${why}${where}; overwrite only replaces a file with a file. Choose another destination, or delete or move ${to} first.`,
    { ...details, overwritable: false },
  );
}

const transferInput = z.strictObject({
  from: pathField.describe('Source path.'),
  to: pathField.describe(
    'Destination path. Like mv: when it names an existing directory (or /), the source goes inside it under its own name ' +
      '(the result gives the final path in to, and the directory in into).',
  ),
  overwrite: z.boolean().default(false).describe('Replace an existing destination file with a file (never a directory).'),
});

export function respondWith(plan: Plan) {
  const { from, to, into } = plan;
  return (cs: { id: string; entries: Array<{ path: string; toVersion: number; updatedAtMs: number }> }) => {
    const head = cs.entries.find((e) => e.path === to)!;
    const shown = capped(plan.pairs, cs.id);
    const at = new Map(shown.items.map((p) => [p.to, 0]));
    for (const e of cs.entries) if (at.has(e.path)) at.set(e.path, e.toVersion);
    return {
      success: true,
      from,
      to,
      ...(into ? { into } : {}),
      version: head.toVersion,
      updatedAt: iso(head.updatedAtMs),
      entries: shown.items.map((p) => ({ from: p.from, to: p.to, version: at.get(p.to)! })),
      entryCount: shown.count,
      ...(shown.truncated ? { entriesTruncated: true, note: shown.note } : {}),
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
    'the moved file keeps its identity, so list_versions on the new path includes its history from before the move. ' +
    `The result lists the first ${ENTRY_PAGE} moved paths (entries, with entryCount); list_changes with the changesetId pages through all of them.`,
  input: transferInput,
  output: transferOutput,
  mutating: true,
  annotations: { readOnly: false, destructive: true, idempotent: false },
  errors: ['NOT_FOUND', 'ALREADY_EXISTS', 'INVALID_PATH', 'NOT_A_DIRECTORY', 'EDIT_CONFLICT', 'QUOTA_EXCEEDED'],
  examples: [{ title: 'Rename a file', input: { from: '/notes/todo.md', to: '/notes/done.md' } }],
  async handler(input, ctx) {
    const plan = await planTransfer(ctx, input, 'move');
    return ctx.commit(plan.changes, respondWith(plan));
  },
});

const copy = defineTool({
  name: 'copy',
  family: 'files',
  scopes: ['files:write'],
  summary: 'Copy a file or directory server-side (no content round-trip).',
  note: "From /shared/… or /published/…: forks another agent's work (its owner is notified).",
  description:
    'Copies a file, or a directory with everything below it, to a new path in one changeset. The copy starts its own history. ' +
    "From /shared/… or /published/… it forks another agent's work into your tree: the result and stat/list_versions show copiedFrom, and the owner is notified (copied). " +
    "A copy between two owners' trees (out of a mount, or into a share) also needs scope files:read (else INSUFFICIENT_SCOPE). " +
    `Each copied file and directory counts toward the file quota (get_key_info). The result lists the first ${ENTRY_PAGE} copied ` +
    'paths (entries, with entryCount); list_changes with the changesetId pages through all of them.',
  input: transferInput,
  output: transferOutput,
  mutating: true,
  annotations: { readOnly: false, destructive: false, idempotent: false },
  errors: ['NOT_FOUND', 'ALREADY_EXISTS', 'INVALID_PATH', 'NOT_A_DIRECTORY', 'QUOTA_EXCEEDED'],
  examples: [
    { title: 'Copy a file', input: { from: '/notes/done.md', to: '/archive/done.md' } },
    { title: "Fork another agent's shared file into your tree", input: { from: '/shared/example-friend/parsers/notes.md', to: '/parsers/notes.md' } },
  ],
  async handler(input, ctx) {
    const plan = await planTransfer(ctx, input, 'copy');
    await checkFileQuota(ctx, plan.adding);
    return ctx.commit(plan.changes, respondWith(plan));
  },
});

export const treeTools: AnyTool[] = [move, copy];

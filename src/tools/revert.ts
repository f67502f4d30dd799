/** revert_changeset: undo one changeset as a new one (versions family). */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { newId } from '../core/keys.js';
import { parentOf } from '../core/paths.js';
import { missingScopes } from '../core/scopes.js';
import { iso } from '../core/time.js';
import type { ChangesetEntry, ChangesetRecord, NodeRecord, PlannedChange } from '../store/types.js';
import { ENTRY_PAGE, YIELD_EVERY, capped, getNodesChunked, yieldToLoop } from './big-trees.js';
import { allEntries, allWithin } from './changeset-entries.js';
import { ROOT, isLive, rejectReserved } from './common.js';
import { revertChangesetOutput } from './versions-output.js';
import { defineTool, type ToolContext } from './registry.js';
import { restoreChange, versionsChunked } from './restore-tree.js';
import { revertDiff } from './revert-diff.js';
import { alreadyReverted, findRevertOf, partialRevertError } from './revert-hints.js';

export const revertChangeset = defineTool({
  name: 'revert_changeset',
  family: 'versions',
  scopes: ['files:write'],
  summary: 'Undo one changeset: every path it touched goes back to its version before it, atomically.',
  note: 'EDIT_CONFLICT when its paths changed since (force: true overrides).',
  description:
    'Restores each path of the changeset to its fromVersion (paths it created are deleted) as one new changeset. If any of those ' +
    'paths changed after the changeset, fails with EDIT_CONFLICT listing them, unless force: true. Needs files:delete too when ' +
    'the revert deletes files. A changeset already undone by an earlier revert fails with EDIT_CONFLICT naming that revert in ' +
    'details.revertedBy. A folder-scoped key cannot revert a changeset that also changed paths outside its folder (partial: true ' +
    'in list_changes): OUTSIDE_KEY_FOLDER names the folder a key needs (details.needsFolder). dryRun: true lists what would change, with a unified diff of the first 20 files (diff). The result lists the first ' +
    `${ENTRY_PAGE} entries (with entryCount); list_changes with the new changesetId pages through all of them.`,
  input: z.strictObject({
    changesetId: z
      .string()
      .min(1)
      .regex(/^[^\u0000]*$/, 'must not contain NUL'),
    dryRun: z.boolean().default(false),
    force: z.boolean().default(false),
  }),
  output: revertChangesetOutput,
  mutating: true,
  annotations: { readOnly: false, destructive: true, idempotent: false },
  errors: ['NOT_FOUND', 'EDIT_CONFLICT', 'NO_CHANGE', 'INSUFFICIENT_SCOPE', 'OUTSIDE_KEY_FOLDER', 'INVALID_PATH'],
  examples: [{ title: 'Preview undoing a changeset', input: { changesetId: 'cs_EXAMPLE', dryRun: true } }],
  async handler(input, ctx) {
    const cs = await visibleChangeset(ctx, input.changesetId);
    const entries = await allEntries(ctx, cs);
    const current = await getNodesChunked(
      ctx,
      entries.map((e) => e.path),
    );
    const conflicts = conflictsOf(entries, current);
    if (conflicts.length && !input.force) throw await conflictError(ctx, cs, conflicts);
    const changes = await changesBack(ctx, entries, current);
    await recreateAncestors(ctx, cs, changes);
    checkRevertable(ctx, cs, changes);
    if (input.dryRun) {
      const planned = capped(changes, null);
      return {
        success: true,
        applied: false,
        reverted: cs.id,
        entries: planned.items.map((c) => ({ path: c.path, op: c.op, fromVersion: c.expectVersion || null })),
        entryCount: planned.count,
        ...(planned.truncated ? { entriesTruncated: true } : {}),
        forced: conflicts.length > 0,
        ...(await revertDiff(ctx, changes, current)),
      };
    }
    return ctx.commit(changes, (out) => {
      const shown = capped(out.entries, out.id);
      return {
        success: true,
        applied: true,
        reverted: cs.id,
        changesetId: out.id,
        entries: shown.items.map((e) => ({ path: e.path, op: e.op, fromVersion: e.fromVersion, toVersion: e.toVersion })),
        entryCount: shown.count,
        ...(shown.truncated ? { entriesTruncated: true, note: shown.note } : {}),
        forced: conflicts.length > 0,
      };
    });
  },
});

/**
 * The changeset, when this key may revert it: one partly outside a folder key's folder is
 * OUTSIDE_KEY_FOLDER (when some of it is visible), one not found or not visible NOT_FOUND.
 */
async function visibleChangeset(ctx: ToolContext, changesetId: string): Promise<ChangesetRecord> {
  const agentId = ctx.auth.agentId;
  const cs = await ctx.store.getChangeset(agentId, changesetId);
  const folder = ctx.auth.folder;
  if (cs && folder && !allWithin(cs, folder)) {
    const err = await partialRevertError(ctx, cs, folder);
    if (err) throw err;
  }
  if (!cs || !allWithin(cs, folder)) {
    throw new ToolError(
      'NOT_FOUND',
      `No changeset ${changesetId.slice(0, 100)}${folder ? ` within this key's folder ${folder}` : ''}. list_changes shows the changeset ids. ` +
        "A change you made through /shared/{owner}/… (its answer's changesetOwner) is in the owner's history: " +
        'restore {"path": "/shared/…", "version": n} brings a file back through the share.',
      { changesetId },
    );
  }
  return cs;
}

interface Conflict {
  path: string;
  changesetVersion: number;
  currentVersion: number | null;
  currentUpdatedAt: string | null;
  by: string | null;
}

/** The paths changed after the changeset: their version now is not the one it left. */
function conflictsOf(entries: ChangesetEntry[], current: Map<string, NodeRecord>): Conflict[] {
  return entries
    .filter((e) => (current.get(e.path)?.version ?? 0) !== e.toVersion)
    .map((e) => {
      const c = current.get(e.path);
      return {
        path: e.path,
        changesetVersion: e.toVersion,
        currentVersion: c?.version ?? null,
        currentUpdatedAt: c ? iso(c.updatedAtMs) : null,
        by: c?.updatedByLabel ?? null,
      };
    });
}

/** Why a revert without force stops at later changes: an earlier revert of it, else the paths changed since. */
async function conflictError(ctx: ToolContext, cs: ChangesetRecord, conflicts: Conflict[]): Promise<ToolError> {
  const by = await findRevertOf(ctx, cs);
  if (by) return alreadyReverted(cs, by, conflicts.length);
  return new ToolError(
    'EDIT_CONFLICT',
    `${conflicts.length} path(s) changed after changeset ${cs.id}: ${conflicts
      .slice(0, 5)
      .map((c) => `${c.path} (now version ${c.currentVersion})`)
      .join(', ')}. ` + 'Reverting would discard those later changes; pass force: true to revert anyway, or restore files one by one.',
    { changesetId: cs.id, paths: conflicts.slice(0, ENTRY_PAGE), conflictCount: conflicts.length },
  );
}

/** Each path back to its version before the changeset: deleted if it created it, skipped if already so. */
async function changesBack(ctx: ToolContext, entries: ChangesetEntry[], current: Map<string, NodeRecord>): Promise<PlannedChange[]> {
  const earlier = await versionsChunked(
    ctx,
    entries.filter((e) => e.fromVersion !== null).map((e) => ({ path: e.path, version: e.fromVersion! })),
  );
  const changes: PlannedChange[] = [];
  for (const [i, e] of entries.entries()) {
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToLoop();
    const cur = current.get(e.path);
    if (e.fromVersion === null) {
      if (isLive(cur)) changes.push({ path: e.path, expectVersion: cur.version, op: 'delete', state: { kind: 'deleted', was: cur.kind } });
      continue;
    }
    const v = earlier.get(e.path);
    if (!v) continue; // purged since: nothing to go back to
    if (cur && !cur.deleted === !v.deleted && cur.kind === v.kind && cur.blobHash === v.blobHash) continue;
    if (v.deleted && !isLive(cur)) continue;
    changes.push(restoreChange(e.path, cur, v, 'restore'));
  }
  return changes;
}

/**
 * Parents that were deleted after the changeset must exist again for restored files: adds their
 * creation to `changes`, or fails when the revert deletes one or a file now stands in its place.
 */
async function recreateAncestors(ctx: ToolContext, cs: ChangesetRecord, changes: PlannedChange[]): Promise<void> {
  const restoredPaths = new Set(changes.filter((c) => c.state.kind !== 'deleted').map((c) => c.path));
  const deletedPaths = new Set(changes.filter((c) => c.state.kind === 'deleted').map((c) => c.path));
  // Each ancestor once, walking up only until one already seen: linear in the paths.
  const ancestorSet = new Set<string>();
  for (const p of restoredPaths) {
    for (let a = parentOf(p); a !== ROOT && !ancestorSet.has(a); a = parentOf(a)) ancestorSet.add(a);
  }
  const ancestorNeeds = [...ancestorSet].filter((a) => !restoredPaths.has(a));
  if (!ancestorNeeds.length) return;
  const anc = await getNodesChunked(ctx, ancestorNeeds);
  for (const a of ancestorNeeds.sort()) {
    const n = anc.get(a);
    if (deletedPaths.has(a)) {
      throw new ToolError('EDIT_CONFLICT', `Reverting would both delete ${a} and restore files below it; revert the later changesets first.`, {
        changesetId: cs.id,
        path: a,
      });
    }
    if (isLive(n) && n.kind === 'file') {
      throw new ToolError('NOT_A_DIRECTORY', `${a} is now a file, so files below it cannot be restored. Move it away first.`, {
        path: a,
        blockingPath: a,
      });
    }
    if (!isLive(n)) changes.push({ path: a, expectVersion: n?.version ?? 0, op: 'create', state: { kind: 'dir', fileId: newId('f') } });
  }
}

/** Something to revert, names that may be created, and files:delete when the revert deletes. */
function checkRevertable(ctx: ToolContext, cs: ChangesetRecord, changes: PlannedChange[]): void {
  if (changes.length === 0) {
    throw new ToolError('NO_CHANGE', `Every path of ${cs.id} is already as it was before it. Nothing to revert.`, { changesetId: cs.id });
  }
  // Bringing a path back is creating it: the same name rules as every other tool (reserved /dev).
  for (const c of changes) if (c.state.kind !== 'deleted') rejectReserved(c.path);
  if (changes.some((c) => c.state.kind === 'deleted')) {
    const missing = missingScopes(['files:delete'], ctx.auth.scopes);
    if (missing.length) {
      throw new ToolError('INSUFFICIENT_SCOPE', `Reverting ${cs.id} deletes files, which needs files:delete; this key lacks it.`, {
        required: ['files:write', 'files:delete'],
        granted: ctx.auth.scopes,
        missing,
      });
    }
  }
}

/**
 * Why a revert_changeset cannot go ahead, said so an agent knows what to do next: a changeset
 * that reaches outside a folder-scoped key's folder (list_changes shows it as partial: true), and
 * a changeset that was already reverted (its paths then all "changed since").
 */
import { ToolError } from '../core/errors.js';
import { isWithin, parentOf } from '../core/paths.js';
import { iso } from '../core/time.js';
import type { ChangesetEntry, ChangesetRecord } from '../store/types.js';
import { yieldToLoop } from './big-trees.js';
import { entriesPage } from './changeset-entries.js';
import type { ToolContext } from './registry.js';

/** Changesets looked at after the one being reverted when searching for its revert. */
const REVERT_SCAN = 2000;

/** The deepest directory every path is at or below. Linear in the total length of the paths. */
function commonFolder(paths: string[]): string {
  let common: string | null = null;
  for (const p of paths) {
    if (common === null) common = p;
    while (!isWithin(p, common)) common = parentOf(common);
  }
  return common ?? '/';
}

/**
 * For a folder-scoped key and a changeset only partly inside its folder: OUTSIDE_KEY_FOLDER
 * naming the folder a key needs. Null when none of it is visible (then it is not this key's to
 * know about: NOT_FOUND, as before).
 */
export async function partialRevertError(ctx: ToolContext, cs: ChangesetRecord, folder: string): Promise<ToolError | null> {
  const visible = await entriesPage(ctx, cs, folder, null, 1);
  if (visible.entries.length === 0) return null;
  const complete = cs.entries.length >= cs.entryCount;
  const span = complete ? commonFolder(cs.entries.map((e) => e.path)) : (cs.root ?? '/');
  return new ToolError(
    'OUTSIDE_KEY_FOLDER',
    `Changeset ${cs.id} also changed paths outside this key's folder ${folder} (list_changes shows it as partial: true), and a ` +
      `revert must undo all of it at once. Use a key with access to ${span} (for example the agent's full-access key), or ` +
      `restore the files under ${folder} one by one with restore.`,
    { changesetId: cs.id, folder, needsFolder: span, reason: 'changeset_outside_folder' },
  );
}

/**
 * The revert_changeset that undid `cs`, if one did: a later revert whose entries start every
 * shared path from the version `cs` left it at. Scans at most REVERT_SCAN later changesets.
 */
export async function findRevertOf(ctx: ToolContext, cs: ChangesetRecord): Promise<ChangesetRecord | null> {
  const left = new Map<string, number>(cs.entries.map((e: ChangesetEntry) => [e.path, e.toVersion]));
  let since = cs.seq;
  for (let scanned = 0; scanned < REVERT_SCAN;) {
    const batch = await ctx.store.listChangesets(ctx.auth.agentId, { since, limit: 200 });
    if (batch.length === 0) return null;
    for (const later of batch) {
      scanned++;
      since = later.seq;
      if (later.tool !== 'revert_changeset') continue;
      let shared = 0;
      let undid = true;
      for (const e of later.entries) {
        const v = left.get(e.path);
        if (v === undefined) continue;
        shared++;
        if (e.fromVersion !== v) undid = false;
      }
      if (shared > 0 && undid) return later;
    }
    await yieldToLoop();
  }
  return null;
}

/** EDIT_CONFLICT for a changeset that a later revert already undid. */
export function alreadyReverted(cs: ChangesetRecord, by: ChangesetRecord, conflictCount: number): ToolError {
  return new ToolError(
    'EDIT_CONFLICT',
    `Changeset ${cs.id} was already reverted by ${by.id} (seq ${by.seq}, ${iso(by.createdAtMs)}); there is nothing left to undo. ` +
      `To bring its changes back, revert ${by.id}. (force: true would revert ${cs.id} again over whatever is there now.)`,
    { changesetId: cs.id, revertedBy: by.id, revertedAt: iso(by.createdAtMs), conflictCount },
  );
}

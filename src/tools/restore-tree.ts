/**
 * Putting paths back as an earlier version had them (restore, revert_changeset), and restoring
 * a directory together with the subtree that was deleted (or moved away) with it.
 */
import { ToolError } from '../core/errors.js';
import { newId } from '../core/keys.js';
import { isWithin, parentOf } from '../core/paths.js';
import type { ChangesetEntry, ChangesetRecord, NodeRecord, PlannedChange, VersionRecord } from '../store/types.js';
import { YIELD_EVERY, capped, getNodesChunked, yieldToLoop } from './big-trees.js';
import { ENTRY_DETAIL_PAGE, entriesPage } from './changeset-entries.js';
import { isLive } from './common.js';
import type { ToolContext } from './registry.js';

/** The planned change that puts `path` back into the state it had at version `v`. */
export function restoreChange(path: string, current: NodeRecord | null | undefined, v: VersionRecord, op: 'restore' | 'delete'): PlannedChange {
  if (v.deleted) return { path, expectVersion: current?.version ?? 0, op: 'delete', state: { kind: 'deleted', was: v.kind } };
  const fileId = current?.fileId ?? newId('f');
  return {
    path,
    expectVersion: current?.version ?? 0,
    op,
    state: v.kind === 'dir' ? { kind: 'dir', fileId } : { kind: 'file', blob: { hash: v.blobHash!, size: v.size }, lines: v.lines, fileId },
  };
}

/** Versions by (path, version), a chunk per store call with event-loop turns between. */
export async function versionsChunked(ctx: ToolContext, refs: Array<{ path: string; version: number }>): Promise<Map<string, VersionRecord>> {
  const out = new Map<string, VersionRecord>();
  for (let i = 0; i < refs.length; i += 1000) {
    for (const [p, v] of await ctx.store.getVersions(ctx.auth.agentId, refs.slice(i, i + 1000))) out.set(p, v);
    if (i + 1000 < refs.length) await yieldToLoop();
  }
  return out;
}

export interface SubtreeRestore {
  /** The changeset that ended the restored version: it deleted (or moved away) the subtree. */
  endedBy: string;
  changes: PlannedChange[];
  /** Paths below that come back, with the version whose state they get. */
  restored: Array<{ path: string; fromVersion: number }>;
  /** Paths below that exist again since, left as they are. */
  kept: string[];
}

/** Every entry of the changeset strictly below `dir`, a page at a time. */
async function entriesBelow(ctx: ToolContext, csId: string, dir: string): Promise<ChangesetEntry[]> {
  const cs = await ctx.store.getChangeset(ctx.auth.agentId, csId);
  if (!cs) return [];
  const out: ChangesetEntry[] = [];
  for (let after: string | null = null; ;) {
    const page = await entriesPage(ctx, cs, dir, after, ENTRY_DETAIL_PAGE);
    for (const e of page.entries) if (e.path !== dir && e.fromVersion !== null) out.push(e);
    if (page.nextAfter === null) return out;
    after = page.nextAfter;
    await yieldToLoop();
  }
}

/**
 * Restoring version `v` of directory `dir`: when the next version of `dir` is the tombstone of a
 * recursive delete or a move, the paths that changeset took away below `dir` come back too, as
 * it found them, in the same changeset as `dir`. Paths that exist again are kept as they are.
 * Null when `v` did not end that way (nothing below to bring back).
 */
export async function planSubtreeRestore(ctx: ToolContext, dir: string, v: VersionRecord): Promise<SubtreeRestore | null> {
  if (v.kind !== 'dir') return null;
  const end = await ctx.store.getVersion(ctx.auth.agentId, dir, v.version + 1);
  if (!end || !end.deleted) return null;
  const entries = await entriesBelow(ctx, end.changesetId, dir);
  const [versions, current] = await Promise.all([
    versionsChunked(
      ctx,
      entries.map((e) => ({ path: e.path, version: e.fromVersion! })),
    ),
    getNodesChunked(
      ctx,
      entries.map((e) => e.path),
    ),
  ]);
  const out: SubtreeRestore = { endedBy: end.changesetId, changes: [], restored: [], kept: [] };
  const keptFiles = new Set<string>();
  for (const [i, e] of entries.entries()) {
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToLoop();
    const cur = current.get(e.path);
    if (isLive(cur)) {
      out.kept.push(e.path);
      if (cur.kind === 'file') keptFiles.add(e.path);
      continue;
    }
    const was = versions.get(e.path);
    if (!was || was.deleted) continue; // purged since: nothing to bring back
    out.changes.push(restoreChange(e.path, cur, was, 'restore'));
    out.restored.push({ path: e.path, fromVersion: was.version });
  }
  for (const r of out.restored) {
    const parent = parentOf(r.path);
    if (keptFiles.has(parent) && isWithin(parent, dir)) {
      throw new ToolError(
        'NOT_A_DIRECTORY',
        `${parent} is now a file, so ${r.path} and the rest below it cannot be restored with ${dir}. Move ${parent} away first, or restore single files.`,
        { path: r.path, blockingPath: parent },
      );
    }
  }
  return out;
}

/** The restore result's account of the subtree: what came back (first ENTRY_PAGE, with counts) and what was kept. */
export function subtreeFields(sub: SubtreeRestore | null, cs: ChangesetRecord | null): Record<string, unknown> {
  if (!sub) return {};
  const toVersion = new Map((cs?.entries ?? []).map((e) => [e.path, e.toVersion]));
  const shown = capped(sub.restored, cs?.id ?? null);
  const kept = capped(sub.kept, null);
  return {
    restoredBelow: shown.items.map((r) => ({ path: r.path, restoredFrom: r.fromVersion, ...(cs ? { version: toVersion.get(r.path) ?? null } : {}) })),
    restoredBelowCount: shown.count,
    ...(shown.truncated ? { restoredBelowTruncated: true, restoredBelowNote: shown.note } : {}),
    ...(kept.count ? { keptBelow: kept.items, keptBelowCount: kept.count } : {}),
    subtreeDeletedBy: sub.endedBy,
  };
}

/**
 * For a directory that comes back empty although deleted paths lie below it (deleted one by
 * one before the directory itself): where to find them.
 */
export async function deletedBelowHint(ctx: ToolContext, dir: string): Promise<Record<string, unknown>> {
  const page = await ctx.store.listDeleted(ctx.auth.agentId, dir, 1, null);
  if (page.nodes.length === 0) return {};
  return {
    deletedBelowHint:
      `Paths below ${dir} were deleted by earlier changesets and stay deleted: list_deleted with path ${dir} shows them ` +
      '(restore each one, or revert_changeset the changeset that deleted them).',
  };
}

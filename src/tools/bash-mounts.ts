/**
 * bash's changes in other agents' trees (through /shared): each tree's changes become one
 * changeset of its owner, attributed to the caller's key, after checking, at commit time, that
 * every changed path is still inside a share the caller may write (a share revoked while the
 * command ran saves nothing of that tree), and again inside the commit's transaction (CommitInput.grant).
 */
import { ToolError } from '../core/errors.js';
import { chooseGrant, toMountPath } from '../core/mounts.js';
import { iso } from '../core/time.js';
import type { MountedChanges } from '../sandbox/mounted-fs.js';
import { StoreConflict } from '../store/types.js';
import { mountView, reboundAuth } from './mounts.js';
import type { ToolContext } from './registry.js';

export interface MountedCommit {
  owner: string;
  changesetId: string;
  changed: Array<{ path: string; op: string; version: number; updatedAt: string }>;
}

export async function commitMounted(ctx: ToolContext, groups: MountedChanges[]): Promise<{ done: MountedCommit[]; stderr: string }> {
  const done: MountedCommit[] = [];
  let stderr = '';
  for (const g of groups) {
    const where = toMountPath(g.area, g.slug, '/');
    const view = g.area === 'shared' ? await mountView(ctx, 'shared', g.slug, null) : null;
    const grant =
      view && view.owner.id === g.ownerId
        ? chooseGrant(
            view.grants,
            g.changes.map((c) => c.path),
            true,
          )
        : null;
    const ended = `bash: ${where}: the share ended or became read-only while the command ran; no change there was saved\n`;
    if (!view || !grant || grant === 'read_only') {
      stderr += ended;
      continue;
    }
    try {
      const cs = await ctx.rebind(reboundAuth(ctx.auth, view, grant)).commit(g.changes, (c) => c);
      done.push({
        owner: g.slug,
        changesetId: cs.id,
        changed: cs.entries.map((e) => ({
          path: toMountPath(g.area, g.slug, e.path),
          op: e.op,
          version: e.toVersion,
          updatedAt: iso(e.updatedAtMs),
        })),
      });
    } catch (err) {
      // Never retried: the command would run again and repeat what it already saved elsewhere.
      if (err instanceof StoreConflict) {
        stderr += `bash: ${where}: files there changed while the command ran; no change there was saved (run it again)\n`;
        continue;
      }
      // The commit checks the share again in its transaction (a revoke meanwhile saves nothing).
      if (err instanceof ToolError && err.details?.reason === 'share_ended') {
        stderr += ended;
        continue;
      }
      if (!(err instanceof ToolError) || err.code !== 'QUOTA_EXCEEDED') throw err;
      stderr += `bash: ${where}: No space left on device (the owner's quota): no change there was saved\n`;
    }
  }
  return { done, stderr };
}

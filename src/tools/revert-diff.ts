/**
 * revert_changeset's dry run shows what it would do as a unified diff, as edit's and restore's
 * dry runs do: the files it would change, each from its current content to the content it would
 * get back (a file it deletes to nothing), up to a bound of files and lines.
 */
import { MAX_DIFF_LINES, unifiedDiffSliced } from '../core/diff.js';
import { decodeTextWork } from '../core/text.js';
import { runSliced } from '../core/work.js';
import type { NodeRecord, PlannedChange } from '../store/types.js';
import type { ToolContext } from './registry.js';

/** Files shown in a dry run's diff: the rest are in its entries. */
const DIFF_FILES = 20;

async function textOf(ctx: ToolContext, hash: string | null | undefined): Promise<string | null | undefined> {
  if (!hash) return null;
  const bytes = await ctx.store.getBlob(ctx.auth.agentId, hash);
  if (!bytes) return null;
  const t = await runSliced(decodeTextWork(bytes));
  return t === null ? undefined : t;
}

/** The diff of the first files a revert would change; diffTruncated when some were left out. */
export async function revertDiff(
  ctx: ToolContext,
  changes: PlannedChange[],
  current: Map<string, NodeRecord>,
): Promise<{ diff: string; diffTruncated: boolean }> {
  const files = changes.filter((c) => c.state.kind === 'file' || (c.state.kind === 'deleted' && c.state.was === 'file'));
  let diff = '';
  let truncated = files.length > DIFF_FILES;
  let budget = MAX_DIFF_LINES;
  for (const c of files.slice(0, DIFF_FILES)) {
    const cur = current.get(c.path);
    const live = cur && !cur.deleted && cur.kind === 'file' ? cur : null;
    const before = await textOf(ctx, live?.blobHash);
    const after = c.state.kind === 'file' ? await textOf(ctx, c.state.blob.hash) : null;
    if (before === undefined || after === undefined) {
      diff += `Binary files ${c.path} differ.\n`;
      continue;
    }
    const labels = { path: c.path, oldLabel: live ? `version ${live.version}` : 'absent', newLabel: 'after the revert' };
    const d = await unifiedDiffSliced(before, after, labels, budget);
    diff += d.diff;
    truncated ||= d.truncated;
    budget -= d.diff.split('\n').length;
    if (budget <= 0) {
      truncated = true;
      break;
    }
  }
  return { diff, diffTruncated: truncated };
}

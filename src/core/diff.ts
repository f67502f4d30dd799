/** Unified diffs (3 lines of context) between two texts, capped with a note when long. */
import { structuredPatch } from 'diff';

export interface DiffResult {
  diff: string;
  truncated: boolean;
  stats: { hunks: number; added: number; removed: number };
}

export const MAX_DIFF_LINES = 400;

/**
 * A git-style unified diff. `null` on a side renders as /dev/null (a missing or deleted
 * version). Lines keep their own endings, so CRLF shows as it is stored.
 */
export function unifiedDiff(
  oldText: string | null,
  newText: string | null,
  labels: { path: string; oldLabel: string; newLabel: string },
  maxLines = MAX_DIFF_LINES,
): DiffResult {
  const patch = structuredPatch('a', 'b', oldText ?? '', newText ?? '', '', '', { context: 3 });
  const rel = labels.path.replace(/^\//, '');
  const header = [
    oldText === null ? '--- /dev/null' : `--- a/${rel}\t(${labels.oldLabel})`,
    newText === null ? '+++ /dev/null' : `+++ b/${rel}\t(${labels.newLabel})`,
  ];
  const body: string[] = [];
  let added = 0;
  let removed = 0;
  for (const h of patch.hunks) {
    body.push(`@@ -${h.oldLines === 0 ? h.oldStart - 1 : h.oldStart}${h.oldLines === 1 ? '' : `,${h.oldLines}`} +${h.newLines === 0 ? h.newStart - 1 : h.newStart}${h.newLines === 1 ? '' : `,${h.newLines}`} @@`);
    for (const line of h.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
      body.push(line);
    }
  }
  const stats = { hunks: patch.hunks.length, added, removed };
  if (body.length === 0) return { diff: '', truncated: false, stats };
  let truncated = false;
  let lines = body;
  if (body.length > maxLines) {
    truncated = true;
    lines = body.slice(0, maxLines);
    lines.push(`... diff truncated: ${body.length - maxLines} more lines (${added} added, ${removed} removed in ${patch.hunks.length} hunks). Use the diff tool or read the file for the rest.`);
  }
  return { diff: [...header, ...lines].join('\n') + '\n', truncated, stats };
}

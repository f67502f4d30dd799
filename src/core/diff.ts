/** Unified diffs (3 lines of context) between two texts, capped with a note when long. */
import { structuredPatch } from 'diff';

export interface DiffResult {
  diff: string;
  truncated: boolean;
  stats: { hunks: number; added: number; removed: number };
}

export const MAX_DIFF_LINES = 400;
const CONTEXT = 3;

/** Lines with their endings, split where jsdiff splits them (after each \n; \r\n stays whole). */
function linesOf(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
    out.push(text.slice(start, i + 1));
    start = i + 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/**
 * structuredPatch on the differing middle only. Lines common to both ends are cut off, except
 * the context lines next to the change, and the hunk positions shifted back: the result is the
 * same diff (trimming a common prefix and suffix never changes a longest common subsequence),
 * and an edit of one line in a long file no longer costs a Myers pass over the whole file.
 */
function trimmedPatch(oldText: string, newText: string, context: number): { hunks: Array<{ oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] }> } {
  const a = linesOf(oldText);
  const b = linesOf(newText);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const cutStart = Math.max(0, prefix - context);
  const cutEnd = Math.max(0, suffix - context);
  if (cutStart === 0 && cutEnd === 0) return structuredPatch('a', 'b', oldText, newText, '', '', { context });
  const patch = structuredPatch('a', 'b', a.slice(cutStart, a.length - cutEnd).join(''), b.slice(cutStart, b.length - cutEnd).join(''), '', '', { context });
  for (const h of patch.hunks) {
    h.oldStart += cutStart;
    h.newStart += cutStart;
  }
  return patch;
}

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
  const patch = trimmedPatch(oldText ?? '', newText ?? '', CONTEXT);
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

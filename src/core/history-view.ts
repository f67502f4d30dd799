/**
 * What of a mounted file's history a reader sees (docs/contract/visibility.md), as
 * pure rules every path applies — the file tools (tools/mount-history.ts), bash (sandbox/
 * mounted-fs.ts) and copy across owners (tools/copy-across.ts):
 * - /published: exactly what was published. A file published at a version: that version only
 *   (a post's attachments: the attached copy, version 1). Anything else published: the head of
 *   each live file only. Never an earlier version nor a deleted file.
 * - /shared: the head of live files and the history from the share's creation on — the version
 *   that was the head then, and every version after. A share made with includeHistory shows all.
 */
import { ATTACHMENTS_ROOT, ATTACHMENT_VERSION, isAttachmentPath } from './attachments.js';
import type { Grant, MountArea } from './mounts.js';
import { isWithin } from './paths.js';

export type HistoryView =
  | { kind: 'all' }
  /** Versions from sinceMs on, and the one that was the head at sinceMs (when not a delete). */
  | { kind: 'since'; sinceMs: number }
  /** The head of a live file only. */
  | { kind: 'head' }
  | { kind: 'pinned'; version: number };

/** The view of `ownerPath` through `grant`: the one place deciding which versions a mount shows. */
export function historyView(area: MountArea, grant: Grant, ownerPath: string): HistoryView {
  if (area === 'shared') return grant.sinceMs === null ? { kind: 'all' } : { kind: 'since', sinceMs: grant.sinceMs };
  if (grant.version !== null) return { kind: 'pinned', version: grant.version };
  // A post's attachments (one published directory per post) read as attached: the copy's version 1.
  if (isAttachmentPath(grant.root) && ownerPath !== grant.root && ownerPath !== ATTACHMENTS_ROOT) return { kind: 'pinned', version: ATTACHMENT_VERSION };
  return { kind: 'head' };
}

/** The published files that read at a pinned version (bash's pins): files no head grant also covers. */
export function publishedPins(grants: readonly Grant[]): Record<string, number> {
  const pins: Record<string, number> = {};
  for (const g of grants) {
    if (g.version === null) continue;
    const headToo = grants.some((o) => o.version === null && isWithin(g.root, o.root));
    if (!headToo) pins[g.root] = g.version;
  }
  return pins;
}

export interface VersionFacts {
  version: number;
  updatedAtMs: number;
  deleted: boolean;
}

/**
 * Whether `v` (a version of one path) is visible. `next` is the same path's next version (null
 * when v is its head), `head` the path's head: for the since rule, a version older than the share
 * shows only when it was the head at the share's creation.
 */
export function versionVisible(view: HistoryView, v: VersionFacts, next: VersionFacts | null, head: VersionFacts | null): boolean {
  switch (view.kind) {
    case 'all':
      return true;
    case 'pinned':
      return v.version === view.version && !v.deleted;
    case 'head':
      return !!head && !head.deleted && v.version === head.version;
    case 'since':
      return v.updatedAtMs >= view.sinceMs || (!v.deleted && (next === null || next.updatedAtMs >= view.sinceMs));
  }
}

/**
 * The visible part of a page of a file's history (newest first, as list_versions reads it), and
 * whether the history ends there (nothing older can be visible).
 */
export function visibleHistory<T extends VersionFacts & { path: string }>(
  view: HistoryView,
  path: string,
  rows: readonly T[],
  head: VersionFacts | null,
): { rows: T[]; ended: boolean } {
  if (view.kind === 'all') return { rows: [...rows], ended: false };
  if (view.kind !== 'since') {
    const want = view.kind === 'pinned' ? view.version : head && !head.deleted ? head.version : -1;
    return { rows: rows.filter((r) => r.path === path && r.version === want && !r.deleted), ended: true };
  }
  const out: T[] = [];
  for (const r of rows) {
    if (r.updatedAtMs >= view.sinceMs) {
      out.push(r);
      continue;
    }
    if (!r.deleted) out.push(r);
    return { rows: out, ended: true };
  }
  return { rows: out, ended: false };
}

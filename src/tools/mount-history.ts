/**
 * The history a file tool shows through a mount (docs/contract/visibility.md): the
 * versions core/history-view.ts makes visible, and nothing of the others — a version asked for
 * that is not visible is NOT_FOUND (through /published the same answer as a path that does not
 * exist), list_versions, stat and list_deleted leave the hidden ones out, and a deleted file the
 * reader may not see reads as absent. Runs around the tool's handler (mount-call.ts).
 */
import { ToolError } from '../core/errors.js';
import { historyView, versionVisible, visibleHistory, type HistoryView } from '../core/history-view.js';
import { toMountPath } from '../core/mounts.js';
import type { HistoryCursor, NodeRecord } from '../store/types.js';
import { notFound } from './common.js';
import { errorToCaller, mountNotFound, type MountRoute } from './mounts.js';
import type { ToolContext } from './registry.js';

/** The version inputs of the tools that take one through a mount. */
const VERSION_FIELDS: Readonly<Record<string, readonly string[]>> = {
  read: ['version'],
  stat: ['version'],
  diff: ['fromVersion', 'toVersion'],
  restore: ['version'],
};

export interface HistoryGate {
  /** The caller's answer through the gate (owner paths, before toCaller). */
  after(result: object): Promise<object>;
  /** An error of the handler as the reader may see it: a caller-path error to throw as it is, or null (map it as usual). */
  hidden(err: ToolError): ToolError | null;
  /** The handler's error with what the reader may not see taken out (owner paths). */
  scrub(err: ToolError): ToolError;
}

const PASS: HistoryGate = { after: async (r) => r, hidden: () => null, scrub: (e) => e };

/**
 * Checks the versions a call names and rewrites its input (route.input) to what the reader may
 * see; returns what to apply to its answer. Throws NOT_FOUND (caller paths) for a hidden version.
 */
export async function historyGate(tool: string, route: MountRoute, inner: ToolContext): Promise<HistoryGate> {
  const ownerPath = route.input.path;
  if (typeof ownerPath !== 'string' || tool === 'copy' || tool === 'list') return PASS;
  const view = historyView(route.view.area, route.grant, ownerPath);
  if (view.kind === 'all') return PASS;
  const area = route.view.area;
  const shown = toMountPath(area, route.view.slug, ownerPath);
  const owner = route.view.owner.id;
  // A plain read needs no lookup here: the handler's NOT_FOUND for what is hidden is rewritten below.
  const plainRead = tool === 'read' && route.input.version === undefined;
  const node = plainRead ? null : await inner.store.getNode(owner, ownerPath);
  // A version the reader may not see answers as a path that is not there (docs/contract/visibility.md):
  // no version number, no hint that earlier history exists.
  // (A file shared on its own answers as a name beside it would: outside every grant.)
  // Inside a shared directory: the handler's own answer for a missing file (with its suggestions).
  const hiddenVersion = async () =>
    area === 'published' || route.grant.root === ownerPath
      ? mountNotFound(shown, area)
      : errorToCaller(route, await notFound(inner, ownerPath, null));
  // A deleted file the reader may not see is not there, whatever the tool (its history included).
  const goneBefore = view.kind === 'since' ? node?.deleted && node.updatedAtMs < view.sinceMs : view.kind === 'head' && (!node || node.deleted);
  if (goneBefore && !plainRead && tool !== 'list_deleted') throw await hiddenVersion();
  const input = route.input;
  if (view.kind === 'pinned' && (tool === 'read' || tool === 'stat') && input.version === undefined) input.version = view.version;
  for (const field of VERSION_FIELDS[tool] ?? []) {
    const n = input[field];
    if (typeof n === 'number' && !(await visible(inner, owner, ownerPath, view, n, node))) throw await hiddenVersion();
  }
  if (tool === 'list_versions' && view.kind !== 'since') {
    // One version to show: start the page right above it.
    delete input.before;
    delete input.cursor;
    if (view.kind === 'pinned' && node && node.version > view.version) input.before = view.version + 1;
  }
  return {
    after: (result) => shownAnswer(tool, result, view, inner, owner, ownerPath, node),
    hidden: (err) => (area === 'published' && (err.code === 'NOT_FOUND' || err.code === 'VERSION_NOT_FOUND') ? mountNotFound(shown, area) : null),
    scrub: (err) => (view.kind === 'since' ? scrubDeleted(err, view.sinceMs) : err),
  };
}

/** Whether version `n` of the path exists for the reader (absent versions pass: the handler answers those). */
async function visible(ctx: ToolContext, owner: string, path: string, view: HistoryView, n: number, node: NodeRecord | null): Promise<boolean> {
  const v = await ctx.store.getVersion(owner, path, n);
  if (!v) return view.kind === 'since';
  const next = view.kind === 'since' && v.updatedAtMs < view.sinceMs ? await ctx.store.getVersion(owner, path, n + 1) : null;
  return versionVisible(view, v, next, node);
}

async function shownAnswer(
  tool: string,
  result: object,
  view: HistoryView,
  ctx: ToolContext,
  owner: string,
  path: string,
  node: NodeRecord | null,
): Promise<object> {
  const r = result as Record<string, unknown>;
  if (tool === 'list_versions') return shownVersions(r, view, ctx, owner, path, node);
  if (tool === 'stat' && typeof r.versionCount === 'number' && node) {
    return { ...r, versionCount: view.kind === 'since' ? await countSince(ctx, owner, node, view.sinceMs) : 1 };
  }
  if (tool === 'list_deleted' && view.kind === 'since' && Array.isArray(r.deletedPaths)) {
    return { ...r, deletedPaths: (r.deletedPaths as Array<{ deletedAt: string }>).filter((d) => Date.parse(d.deletedAt) >= view.sinceMs) };
  }
  return result;
}

type Listed = { version: number; path: string; deleted: boolean; updatedAt: string };

async function shownVersions(
  r: Record<string, unknown>,
  view: HistoryView,
  ctx: ToolContext,
  owner: string,
  path: string,
  node: NodeRecord | null,
): Promise<object> {
  const rows = (r.versions as Listed[]).map((v) => ({ ...v, updatedAtMs: Date.parse(v.updatedAt) }));
  let { rows: kept, ended } = visibleHistory(view, path, rows, node);
  // An older version shows only if it was the head when the share was made (whatever cursor the page started from).
  const last = kept[kept.length - 1];
  if (view.kind === 'since' && last && last.updatedAtMs < view.sinceMs) {
    const next = await ctx.store.getVersion(owner, last.path, last.version + 1);
    if (!versionVisible(view, last, next, null)) kept = kept.slice(0, -1);
    ended = true;
  }
  const versions = kept.map(({ updatedAtMs: _t, ...v }) => v);
  const out: Record<string, unknown> = { ...r, versions };
  if (ended) out.nextCursor = null;
  if (view.kind === 'pinned') out.currentVersion = view.version;
  return out;
}

/** How many versions of the file a share made at sinceMs shows (newest first until the head at sinceMs). */
async function countSince(ctx: ToolContext, owner: string, node: NodeRecord, sinceMs: number): Promise<number> {
  let count = 0;
  let cursor: HistoryCursor | null = null;
  for (;;) {
    const rows = await ctx.store.listFileHistory(owner, node.path, node.fileId, 500, cursor);
    const { rows: kept, ended } = visibleHistory({ kind: 'since', sinceMs }, node.path, rows, node);
    count += kept.length;
    const last = kept[kept.length - 1];
    if (ended && last && last.updatedAtMs < sinceMs) {
      const next = await ctx.store.getVersion(owner, last.path, last.version + 1);
      if (!versionVisible({ kind: 'since', sinceMs }, last, next, null)) count--;
    }
    const end = rows[rows.length - 1];
    if (ended || rows.length < 500 || !end) return count;
    cursor = { seq: end.seq, deleted: end.deleted, path: end.path, version: end.version };
  }
}

/** A NOT_FOUND of a file deleted before the share was made: as if it never existed. */
function scrubDeleted(err: ToolError, sinceMs: number): ToolError {
  const deleted = err.details?.deleted as { deletedAt?: string } | undefined;
  if (err.code !== 'NOT_FOUND' || !deleted?.deletedAt || Date.parse(deleted.deletedAt) >= sinceMs) return err;
  const { deleted: _d, ...details } = err.details!;
  const similar = Array.isArray(details.similar) ? details.similar : [];
  let message = err.message.replace(/ It was deleted at \S+ \(version \d+\); restore version \d+ to get it back\./, '');
  if (!similar.length) message += ' Use list or bash `find` to see what exists.';
  return new ToolError('NOT_FOUND', message, details);
}

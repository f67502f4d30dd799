/**
 * copy between two owners' trees: out of /shared or /published into your own (a fork that keeps
 * its provenance and tells the owner), or from your tree into a share you may write. The content
 * moves inside the server (no round trip through the client); the copy is one changeset in the
 * destination's history, counted in the destination's quota.
 */
import { ToolError } from '../core/errors.js';
import { newId } from '../core/keys.js';
import { historyView, type HistoryView } from '../core/history-view.js';
import { chooseGrant, isVirtual, toMountPath } from '../core/mounts.js';
import { ancestorsOf, baseName } from '../core/paths.js';
import type { Provenance } from '../store/published.js';
import type { NodeRecord } from '../store/types.js';
import { checkFileQuota, filesRemaining, getNodesChunked, walkSubtree } from './big-trees.js';
import { ROOT, isLive, notFound, planAncestors, rejectReserved } from './common.js';
import { mountNotFound, mountView, reboundAuth, type MountView, type NamedPath } from './mounts.js';
import { requireReadScope } from './exposure.js';
import type { ToolContext } from './registry.js';
import { destinationTaken, respondWith, type Plan } from './tree-ops.js';

/**
 * A copier's `copied` notification to an owner: at most one per source (published item, or shared
 * path) per hour; the copy still records its provenance every time (shares-section.ts says so).
 */
export const COPY_NOTIFY_COOLDOWN_MS = 60 * 60 * 1000;
/** What one copy may carry across owners in memory (the source's bytes are loaded to be written). */
export const MAX_COPY_ACROSS_BYTES = 64 * 1024 * 1024;
const BLOB_PAGE = 500;

interface Side {
  ctx: ToolContext;
  /** In that side's owner's tree. */
  path: string;
  view: MountView | null;
  /** A published file's pinned version. */
  pinned: number | null;
  publishedId: string | null;
}

const display = (side: Side, ownerPath: string) => (side.view ? toMountPath(side.view.area, side.view.slug, ownerPath) : ownerPath);

async function sideOf(ctx: ToolContext, n: NamedPath, write: boolean): Promise<Side> {
  const m = n.mount;
  if (!m) return { ctx, path: ctx.path(n.path, n.field), view: null, pinned: null, publishedId: null };
  if (write && m.area === 'published') {
    throw new ToolError('FORBIDDEN', `${n.path} is published work, read-only: copy into your own tree or a share you may write.`, {
      path: n.path,
      reason: 'published_read_only',
    });
  }
  if (m.slug === null || m.ownerPath === null) throw mountNotFound(n.path, m.area);
  const view = await mountView(ctx, m.area, m.slug, m.area === 'published' ? [m.ownerPath] : null);
  if (!view) throw mountNotFound(n.path, m.area);
  const grant = chooseGrant(view.grants, [m.ownerPath], write);
  if (grant === 'read_only') {
    throw new ToolError('FORBIDDEN', `${n.path} is shared with you read-only, so copy cannot write there. Copy into your own tree instead.`, {
      path: n.path,
      tool: 'copy',
      reason: 'read_only_share',
    });
  }
  if (grant === null) {
    if (isVirtual(view.grants, m.ownerPath))
      throw new ToolError('INVALID_PATH', `${n.path} is a directory of the mount; name a path inside a share.`, {
        path: n.path,
        reason: 'mount_directory',
      });
    throw mountNotFound(n.path, m.area);
  }
  if (write && !isLive(await ctx.store.getNode(view.owner.id, grant.root))) throw mountNotFound(n.path, m.area);
  return {
    ctx: ctx.rebind(reboundAuth(ctx.auth, view, grant)),
    path: m.ownerPath,
    view,
    pinned: pinnedOf(historyView(m.area, grant, m.ownerPath)),
    publishedId: m.area === 'published' ? grant.id : null,
  };
}

/** The version a copy out of a mount takes: the pinned one, else the head (the one function deciding: core/history-view.ts). */
const pinnedOf = (view: HistoryView) => (view.kind === 'pinned' ? view.version : null);

async function sourceNode(src: Side, fromShown: string): Promise<NodeRecord> {
  const owner = src.ctx.auth.agentId;
  const node = await src.ctx.store.getNode(owner, src.path);
  if (src.pinned !== null && node) {
    const v = await src.ctx.store.getVersion(owner, src.path, src.pinned);
    if (!v || v.deleted) throw mountNotFound(fromShown, 'published');
    return { ...node, kind: v.kind, deleted: false, version: v.version, blobHash: v.blobHash, size: v.size, lines: v.lines };
  }
  if (!isLive(node)) throw src.view ? mountNotFound(fromShown, src.view.area) : await notFound(src.ctx, src.path, node, 'file or directory');
  return node;
}

/** The destination: like cp, an existing directory (or /) means "inside it, under the source's name". */
async function destination(dst: Side, source: string): Promise<{ to: string; into: string | null }> {
  const to = dst.path;
  rejectReserved(to);
  const named = to === ROOT ? null : await dst.ctx.store.getNode(dst.ctx.auth.agentId, to);
  if (to !== ROOT && !(isLive(named) && named.kind === 'dir')) return { to, into: null };
  const inside = dst.ctx.path(to === ROOT ? `/${baseName(source)}` : `${to}/${baseName(source)}`, 'to');
  rejectReserved(inside);
  return { to: inside, into: to };
}

export async function copyAcross(ctx: ToolContext, input: { overwrite?: boolean }, named: NamedPath[]): Promise<object> {
  // The copy lands where another owner reads it (a share) or reads another's files: it needs what reading needs (exposure.ts).
  requireReadScope(ctx);
  const src = await sideOf(
    ctx,
    named.find((n) => n.field === 'from')!,
    false,
  );
  const dst = await sideOf(
    ctx,
    named.find((n) => n.field === 'to')!,
    true,
  );
  const fromShown = display(src, src.path);
  if (src.path === ROOT)
    throw new ToolError('INVALID_PATH', 'The root directory cannot be copied; name a file or directory.', { path: ROOT, reason: 'root' });
  const source = await sourceNode(src, fromShown);
  const { to, into } = await destination(dst, src.path);
  const sources: NodeRecord[] = [source];
  if (source.kind === 'dir') {
    const room = await filesRemaining(dst.ctx);
    const below = await walkSubtree(src.ctx, src.path, room);
    if (!below) await checkFileQuota(dst.ctx, room + 1);
    sources.push(...below!);
  }
  const bytes = sources.reduce((n, s) => n + (s.kind === 'file' ? s.size : 0), 0);
  if (bytes > MAX_COPY_ACROSS_BYTES) {
    throw new ToolError(
      'FILE_TOO_LARGE',
      `${fromShown} holds ${bytes} bytes; one copy between owners carries at most ${MAX_COPY_ACROSS_BYTES}. Copy its directories one by one.`,
      {
        path: fromShown,
        size: bytes,
        limit: MAX_COPY_ACROSS_BYTES,
      },
    );
  }
  const targetOf = (p: string) => to + p.slice(src.path.length);
  const existing = await getNodesChunked(dst.ctx, [...ancestorsOf(to), ...sources.map((n) => targetOf(n.path))]);
  const changes = planAncestors(to, existing);
  const dest = existing.get(to);
  if (isLive(dest)) {
    const err = destinationTaken(display(dst, to), into && display(dst, into), dest, source, input.overwrite ?? false);
    if (err) throw err;
  }
  const contents = await blobsOf(src, sources);
  const pairs: Plan['pairs'] = [];
  for (const n of sources) {
    const target = targetOf(n.path);
    const cur = existing.get(target);
    changes.push({
      path: target,
      expectVersion: cur?.version ?? 0,
      op: isLive(cur) ? 'update' : 'create',
      state:
        n.kind === 'dir'
          ? { kind: 'dir', fileId: newId('f') }
          : { kind: 'file', blob: { hash: n.blobHash!, size: n.size, bytes: contents.get(n.blobHash!)! }, lines: n.lines, fileId: newId('f') },
    });
    pairs.push({ from: n.path, to: target });
  }
  const adding = changes.filter((c) => !isLive(existing.get(c.path))).length;
  await checkFileQuota(dst.ctx, adding);
  const plan: Plan = { changes, pairs, adding, from: src.path, to, into };
  let versions = new Map<string, number>();
  const answer = await dst.ctx.commit(changes, (cs) => {
    versions = new Map(cs.entries.map((e) => [e.path, e.toVersion]));
    return respondWith(plan)(cs);
  });
  const copiedFrom = src.view ? { slug: src.view.owner.slug, path: src.path, version: source.version } : null;
  await afterFork(ctx, src, dst, sources, targetOf, versions);
  return shown(answer, src, dst, copiedFrom);
}

async function blobsOf(src: Side, sources: NodeRecord[]): Promise<Map<string, Buffer>> {
  const hashes = [...new Set(sources.filter((n) => n.kind === 'file').map((n) => n.blobHash!))];
  const out = new Map<string, Buffer>();
  for (let i = 0; i < hashes.length; i += BLOB_PAGE) {
    for (const [h, b] of await src.ctx.store.getBlobs(src.ctx.auth.agentId, hashes.slice(i, i + BLOB_PAGE))) out.set(h, b);
  }
  return out;
}

/**
 * Provenance of each copied file, the copy count of a published item (distinct copiers), and the
 * owner's `copied` notification (at most one per copier and source within COPY_NOTIFY_COOLDOWN_MS).
 */
async function afterFork(
  ctx: ToolContext,
  src: Side,
  dst: Side,
  sources: NodeRecord[],
  targetOf: (p: string) => string,
  versions: Map<string, number>,
): Promise<void> {
  if (!src.view) return;
  const slug = src.view.owner.slug;
  const rows = sources
    .filter((n) => n.kind === 'file' && versions.has(targetOf(n.path)))
    .map((n) => ({
      path: targetOf(n.path),
      version: versions.get(targetOf(n.path))!,
      from: { slug, path: n.path, version: n.version } as Provenance,
    }));
  await ctx.store.addProvenance(dst.ctx.auth.agentId, rows);
  if (src.view.owner.id === dst.ctx.auth.agentId) return;
  await tellOwner(ctx, src.view.owner.id, src.publishedId, { path: src.path, version: sources[0]!.version, count: sources.length });
}

/**
 * A fork of another agent's file (the copy tool, bash cp): the published item's copy count and the
 * owner's `copied` notification, each at most once per copier and source (store recordCopy).
 * The owner copying its own work calls nothing: no count, no event.
 */
export async function tellOwner(
  ctx: ToolContext,
  ownerId: string,
  publishedId: string | null,
  source: { path: string; version: number; count: number },
): Promise<void> {
  await ctx.store.recordCopy({
    event: {
      id: newId('evt'),
      actorId: ctx.auth.agentId,
      verb: 'copied',
      objectType: publishedId ? 'published' : 'file',
      objectId: publishedId ?? source.path,
      subjectId: ownerId,
      payload: source,
      createdAtMs: Date.now(),
    },
    notify: [{ recipientId: ownerId, type: 'copied', notificationId: newId('ntf') }],
    publishedId,
    cooldownMs: COPY_NOTIFY_COOLDOWN_MS,
  });
}

function shown(answer: object, src: Side, dst: Side, copiedFrom: Provenance | null): object {
  const a = answer as { from: string; to: string; into?: string; entries: Array<{ from: string; to: string; version: number }> };
  return {
    ...a,
    from: display(src, a.from),
    to: display(dst, a.to),
    ...(a.into !== undefined ? { into: display(dst, a.into) } : {}),
    entries: a.entries.map((e) => ({ ...e, from: display(src, e.from), to: display(dst, e.to) })),
    ...(copiedFrom ? { copiedFrom } : {}),
  };
}

/**
 * bash `cp` out of /shared or /published into the caller's tree is a fork like the copy tool's
 * (copy-across.ts): each copied file's committed version records where it came from (`copiedFrom`
 * in stat and list_versions), and the owner is told (`copied`, a published item's count) once per
 * source the command named. A copy changed again by the same command is no longer the source's
 * bytes: it gets no provenance (matched by content hash).
 */
import { ATTACHMENTS_ROOT, ATTACHMENT_VERSION } from '../core/attachments.js';
import { chooseGrant, type Grant } from '../core/mounts.js';
import type { MountedCopy } from '../sandbox/mounted-fs.js';
import type { Provenance } from '../store/published.js';
import type { NodeRecord, PlannedChange } from '../store/types.js';
import { tellOwner } from './copy-across.js';
import { mountView, type MountView } from './mounts.js';
import type { ToolContext } from './registry.js';

const HEAD_PAGE = 1000;

interface Committed {
  entries: ReadonlyArray<{ path: string; toVersion: number }>;
}

export async function recordBashCopies(ctx: ToolContext, copies: readonly MountedCopy[], changes: readonly PlannedChange[], cs: Committed) {
  if (!copies.length) return;
  const versionOf = new Map(cs.entries.map((e) => [e.path, e.toVersion]));
  const hashOf = new Map<string, string>();
  for (const c of changes) if (c.state.kind === 'file') hashOf.set(c.path, c.state.blob.hash);
  const byMount = new Map<string, MountedCopy[]>();
  for (const c of copies) {
    if (!versionOf.has(c.to) || !hashOf.has(c.to)) continue;
    const key = `${c.area}/${c.slug}`;
    byMount.set(key, [...(byMount.get(key) ?? []), c]);
  }
  for (const group of byMount.values()) {
    const { area, slug } = group[0]!;
    const view = await mountView(ctx, area, slug, area === 'published' ? [...new Set(group.map((c) => c.from))] : null);
    if (view) await recordMount(ctx, view, group, versionOf, hashOf);
  }
}

async function recordMount(
  ctx: ToolContext,
  view: MountView,
  copies: MountedCopy[],
  versionOf: Map<string, number>,
  hashOf: Map<string, string>,
): Promise<void> {
  const rows: Array<{ path: string; version: number; from: Provenance }> = [];
  // Per source the command named (a published item, or the path cp was given): the version of a file, null for a directory.
  const sources = new Map<string, { publishedId: string | null; root: string; version: number | null; count: number }>();
  const heads = await headsOf(ctx, view.owner.id, copies);
  for (const c of copies) {
    const grant = chooseGrant(view.grants, [c.from], false);
    if (!grant || grant === 'read_only') continue;
    const version = await sourceVersion(ctx, view, c.from, hashOf.get(c.to)!, heads.get(c.from));
    if (version === null) continue;
    rows.push({ path: c.to, version: versionOf.get(c.to)!, from: { slug: view.owner.slug, path: c.from, version } });
    const publishedId = view.area === 'published' ? grant.id : null;
    const key = publishedId ?? c.root;
    const s = sources.get(key) ?? { publishedId, root: c.root, version: c.root === c.from ? version : null, count: 0 };
    s.count++;
    sources.set(key, s);
  }
  await ctx.store.addProvenance(ctx.auth.agentId, rows);
  if (view.owner.id === ctx.auth.agentId) return;
  for (const s of sources.values()) {
    const version = s.version ?? (await ctx.store.getNode(view.owner.id, s.root))?.version ?? 0;
    await tellOwner(ctx, view.owner.id, s.publishedId, { path: s.root, version, count: s.count });
  }
}

/** The version of `path` the copied bytes (`hash`) are: a published pin (or an attachment's), else the head. */
async function sourceVersion(ctx: ToolContext, view: MountView, path: string, hash: string, head: NodeRecord | undefined): Promise<number | null> {
  for (const pin of pinsOf(view.grants, path)) {
    const v = await ctx.store.getVersion(view.owner.id, path, pin);
    if (v && !v.deleted && v.blobHash === hash) return pin;
  }
  return head && !head.deleted && head.blobHash === hash ? head.version : null;
}

/** The owner's heads of the copied files, a page of lookups at a time (a cp -r copies thousands). */
async function headsOf(ctx: ToolContext, ownerId: string, copies: readonly MountedCopy[]): Promise<Map<string, NodeRecord>> {
  const paths = [...new Set(copies.map((c) => c.from))];
  const out = new Map<string, NodeRecord>();
  for (let i = 0; i < paths.length; i += HEAD_PAGE) {
    for (const [p, n] of await ctx.store.getNodes(ownerId, paths.slice(i, i + HEAD_PAGE))) out.set(p, n);
  }
  return out;
}

function pinsOf(grants: readonly Grant[], path: string): number[] {
  const pins = grants.filter((g) => g.root === path && g.version !== null).map((g) => g.version!);
  if (grants.some((g) => g.root === ATTACHMENTS_ROOT) && path.startsWith(`${ATTACHMENTS_ROOT}/`)) pins.push(ATTACHMENT_VERSION);
  return pins;
}

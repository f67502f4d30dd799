/**
 * The directories of the mounts' skeleton, which no tree stores: `/shared` (the agents sharing
 * with you), `/published` (the agents you follow who published), and inside `/{area}/{slug}` the
 * directories leading to each share or published item. `list` and `stat` answer them; every
 * entry is a directory at version 0 with updatedAt null, but for a shared or published file itself (its visible version).
 */
import { ATTACHMENTS_ROOT, isAttachmentPath } from '../core/attachments.js';
import { ToolError } from '../core/errors.js';
import { historyView } from '../core/history-view.js';
import { isVirtual, mountPrefix, toMountPath, virtualChildren, type MountArea } from '../core/mounts.js';
import { iso } from '../core/time.js';
import type { AgentSummary } from '../store/social-rows.js';
import type { NodeRecord } from '../store/types.js';
import { mountNotFound, mountView, type MountView, type NamedPath } from './mounts.js';
import type { ToolContext } from './registry.js';

const PAGE_MAX = 1000;

function dirEntry(path: string, name: string) {
  // No tree stores these directories: no time is true of them (docs/contract/mounts.md).
  return { name, path, type: 'directory' as const, size: 0, version: 0, updatedAt: null };
}

function encodeCursor(after: string, path: string): string {
  return Buffer.from(JSON.stringify({ a: after, p: path, r: false })).toString('base64url');
}

function decodeCursor(cursor: string, path: string): string {
  try {
    const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { a: unknown; p: unknown };
    if (typeof c.a === 'string' && c.p === path) return c.a;
  } catch {
    /* fall through */
  }
  throw new ToolError('INVALID_INPUT', "'cursor' does not belong to this listing. Pass back the nextCursor of the same path.", { field: 'cursor' });
}

/** The agents an area root lists, after `after` by slug: limit + 1 to know whether more follow. */
function areaAgents(ctx: ToolContext, area: MountArea, after: string, limit: number): Promise<AgentSummary[]> {
  return area === 'shared'
    ? ctx.store.sharingWith(ctx.auth.agentId, Date.now(), after, limit)
    : ctx.store.followedPublishers(ctx.auth.agentId, after, limit);
}

/** The names a skeleton directory lists (and the mount's view), or null when the path is not one (inside a grant, or nothing). */
async function skeletonNames(ctx: ToolContext, named: NamedPath): Promise<{ names: string[]; view: MountView } | null> {
  const m = named.mount!;
  // Inside /.attachments only a post's own directory is reachable (mounts.ts mountView).
  const view = await mountView(ctx, m.area, m.slug!, isAttachmentPath(m.ownerPath!) && m.ownerPath !== ATTACHMENTS_ROOT ? [m.ownerPath!] : null);
  if (!view) throw mountNotFound(named.path, m.area);
  if (!isVirtual(view.grants, m.ownerPath!)) return null;
  return { names: virtualChildren(view.grants, m.ownerPath!), view };
}

/**
 * The entries of a skeleton page: a child that is itself a shared or published file shows as that
 * file — the version its grant lets the caller see (docs/contract/visibility.md) — and is left out
 * when no version of it is visible; every other child is a directory leading to a grant.
 */
async function skeletonEntries(ctx: ToolContext, view: MountView, ownerDir: string, names: string[]) {
  const m = { area: view.area, slug: view.slug };
  const ownerPathOf = (name: string) => (ownerDir === '/' ? '' : ownerDir) + '/' + name;
  const roots = names.map(ownerPathOf).filter((p) => view.grants.some((g) => g.root === p));
  const nodes = roots.length ? await ctx.store.getNodes(view.owner.id, roots) : new Map<string, NodeRecord>();
  const entries = [];
  for (const name of names) {
    const ownerPath = ownerPathOf(name);
    const node = nodes.get(ownerPath);
    const mountPath = toMountPath(m.area, m.slug, ownerPath);
    if (!node || node.kind !== 'file') {
      entries.push(dirEntry(mountPath, name));
      continue;
    }
    const grant = view.grants.find((g) => g.root === ownerPath)!;
    const seen = historyView(view.area, grant, ownerPath);
    if (seen.kind === 'pinned' && seen.version !== node.version) {
      const v = await ctx.store.getVersion(view.owner.id, ownerPath, seen.version);
      if (v && !v.deleted) entries.push(fileEntry(mountPath, name, v.size, v.version, v.updatedAtMs));
    } else if (!node.deleted) entries.push(fileEntry(mountPath, name, node.size, node.version, node.updatedAtMs));
  }
  return entries;
}

function fileEntry(path: string, name: string, size: number, version: number, updatedAtMs: number) {
  return { name, path, type: 'file' as const, size, version, updatedAt: iso(updatedAtMs) };
}

interface ListInput {
  recursive?: boolean;
  limit?: number;
  cursor?: string | undefined;
}

/**
 * list or stat on a skeleton directory: the answer, or null when the path is inside a grant (the
 * tool's own handler runs there, through the mount).
 */
export async function answerMountDirectory(tool: 'list' | 'stat', ctx: ToolContext, named: NamedPath, input: ListInput): Promise<object | null> {
  const m = named.mount!;
  const path = named.path;
  let names: string[];
  if (m.slug === null) {
    const after = tool === 'list' && input.cursor !== undefined ? decodeCursor(input.cursor, path) : '';
    const limit = tool === 'list' ? Math.min(input.limit ?? PAGE_MAX, PAGE_MAX) : PAGE_MAX;
    const agents = await areaAgents(ctx, m.area, after, limit + 1);
    names = agents.map((a) => a.slug);
    if (tool === 'stat') return statDir(path, names.length);
    if (input.recursive) throw notRecursive(path);
    const page = names.slice(0, limit);
    return {
      success: true,
      path,
      entries: page.map((slug) => dirEntry(mountPrefix(m.area, slug), slug)),
      nextCursor: names.length > limit ? encodeCursor(page[page.length - 1]!, path) : null,
    };
  }
  const skeleton = await skeletonNames(ctx, named);
  if (skeleton === null) return null;
  names = skeleton.names;
  if (tool === 'stat') return statDir(path, names.length);
  if (input.recursive) throw notRecursive(path);
  const after = input.cursor !== undefined ? decodeCursor(input.cursor, path) : '';
  const limit = input.limit ?? PAGE_MAX;
  const rest = names.filter((n) => n > after);
  const page = rest.slice(0, limit);
  return {
    success: true,
    path,
    entries: await skeletonEntries(ctx, skeleton.view, m.ownerPath!, page),
    nextCursor: rest.length > limit ? encodeCursor(page[page.length - 1]!, path) : null,
  };
}

/**
 * The mount points `list` shows at / before the tree's own entries (first page, keys without a
 * folder): /published and /shared. A recursive list of / shows them and does not enter them.
 */
export function rootMountEntries(ctx: ToolContext, path: string, cursor: string | undefined) {
  if (path !== '/' || cursor !== undefined || ctx.auth.folder) return [];
  return (['published', 'shared'] as const).map((area) => ({ ...dirEntry(`/${area}`, area), mount: area }));
}

function statDir(path: string, entryCount: number) {
  return {
    success: true,
    path,
    type: 'directory' as const,
    size: 0,
    lineCount: null,
    version: 0,
    updatedAt: null,
    createdAt: null,
    contentHash: null,
    versionCount: 0,
    updatedBy: null,
    entryCount,
  };
}

function notRecursive(path: string): ToolError {
  return new ToolError(
    'INVALID_INPUT',
    `${path} is a directory of a mount, not a tree: list it without recursive, then list a share's directory recursively.`,
    { field: 'recursive' },
  );
}

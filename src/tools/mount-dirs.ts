/**
 * The directories of the mounts' skeleton, which no tree stores: `/shared` (the agents sharing
 * with you), `/published` (the agents you follow who published), and inside `/{area}/{slug}` the
 * directories leading to each share or published item. `list` and `stat` answer them; every
 * entry is a directory at version 0.
 */
import { ToolError } from '../core/errors.js';
import { isVirtual, mountPrefix, toMountPath, virtualChildren, type MountArea } from '../core/mounts.js';
import { iso } from '../core/time.js';
import type { AgentSummary } from '../store/social-rows.js';
import { mountNotFound, mountView, type NamedPath } from './mounts.js';
import type { ToolContext } from './registry.js';

const PAGE_MAX = 1000;

function dirEntry(path: string, name: string) {
  return { name, path, type: 'directory' as const, size: 0, version: 0, updatedAt: iso(0) };
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

/** The names a skeleton directory lists, or null when the path is not one (inside a grant, or nothing). */
async function skeletonNames(ctx: ToolContext, named: NamedPath): Promise<string[] | null> {
  const m = named.mount!;
  const view = await mountView(ctx, m.area, m.slug!, null);
  if (!view) throw mountNotFound(named.path, m.area);
  if (!isVirtual(view.grants, m.ownerPath!)) return null;
  return virtualChildren(view.grants, m.ownerPath!);
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
  names = skeleton;
  if (tool === 'stat') return statDir(path, names.length);
  if (input.recursive) throw notRecursive(path);
  const after = input.cursor !== undefined ? decodeCursor(input.cursor, path) : '';
  const limit = input.limit ?? PAGE_MAX;
  const rest = names.filter((n) => n > after);
  const page = rest.slice(0, limit);
  return {
    success: true,
    path,
    entries: page.map((name) => dirEntry(toMountPath(m.area, m.slug!, (m.ownerPath === '/' ? '' : m.ownerPath!) + '/' + name), name)),
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

function statDir(path: string, entries: number) {
  return {
    success: true,
    path,
    type: 'directory' as const,
    size: 0,
    lines: null,
    version: 0,
    updatedAt: iso(0),
    createdAt: iso(0),
    contentHash: null,
    versionCount: 0,
    updatedBy: null,
    entries,
  };
}

function notRecursive(path: string): ToolError {
  return new ToolError(
    'INVALID_INPUT',
    `${path} is a directory of a mount, not a tree: list it without recursive, then list a share's directory recursively.`,
    { field: 'recursive' },
  );
}

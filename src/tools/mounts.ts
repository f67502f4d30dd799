/**
 * File tools on other agents' files: a call naming `/shared/{slug}/…` or `/published/{slug}/…`
 * runs the tool's own handler on the owner's tree, through a context rebound to the owner and
 * bounded by the grant (the share's or published item's subtree, as a folder-scoped key is
 * bounded by its folder), and maps the owner's paths in the answer back to the mount. So every
 * file tool works in a mount with the same contract, and nothing outside the grant is reachable:
 * the folder check that guards folder-scoped keys guards mounts too.
 *
 * Grants come from the store through a short per-process cache (grant-cache.ts): a revoke, leave
 * or block shows on the next request of this instance and within 500 ms on the others; an expiry
 * at once everywhere.
 */
import { ToolError, type ToolErrorCode } from '../core/errors.js';
import {
  chooseGrant,
  isVirtual,
  mapMessagePaths,
  mapResultPaths,
  mayNameMount,
  parseMount,
  toMountPath,
  type Grant,
  type MountArea,
  type MountRef,
} from '../core/mounts.js';
import { ancestorsOf, checkCreatable, isWithin } from '../core/paths.js';
import { ATTACHMENTS_ROOT, isAttachmentPath } from '../core/attachments.js';
import type { AgentSummary } from '../store/social-rows.js';
import { liveShares } from './grant-cache.js';
import { isLive, nameWriters, type KeyRef } from './common.js';
import type { AnyTool, AuthContext, MountPolicy, ToolContext } from './registry.js';

/**
 * The errors a call of this tool naming a mount path adds to its own (describe.ts documents
 * them), from its mount policy (registry.ts MountPolicy): NOT_FOUND for what is not shared or
 * published with the caller (even for tools that create), FORBIDDEN where the mount may refuse
 * the tool (not through a mount, published read-only, a read-only share, a share's root, a
 * skeleton directory). read, stat and list are never refused.
 */
export function mountErrors(tool: AnyTool): ToolErrorCode[] {
  const policy = tool.mount;
  if (!policy || !tool.paths.fields.length) return [];
  if ('refused' in policy) return ['NOT_FOUND', 'FORBIDDEN'];
  const refusable = policy.access !== 'read' || !policy.published || (!policy.skeleton && !policy.readsFile) || policy.removes !== undefined;
  return refusable ? ['NOT_FOUND', 'FORBIDDEN'] : ['NOT_FOUND'];
}

export interface MountView {
  area: MountArea;
  slug: string;
  owner: AgentSummary;
  grants: Grant[];
}

export interface NamedPath {
  /** The input field (a path field of the tool's schema: registry.ts ToolPaths). */
  field: string;
  /** As the caller named it (normalized). */
  path: string;
  mount: MountRef | null;
}

/** The same answer whatever the reason (no such agent, nothing shared, outside every share): no leak. */
export function mountNotFound(path: string, area: MountArea): ToolError {
  const how =
    area === 'shared'
      ? 'Nothing shared with you is there: list /shared shows the agents sharing with you, list_shares {"direction": "incoming"} your shares.'
      : 'Nothing published is there: browse_published lists published work; list /published/{slug} what one agent published.';
  return new ToolError('NOT_FOUND', `No file or directory at ${path}. ${how}`, { path, similar: [] });
}

/**
 * The caller's grants in `slug`'s mount, or null (nothing to see). `near` narrows the published
 * lookup to the items that could cover these owner paths (an agent may have published many).
 */
export async function mountView(ctx: ToolContext, area: MountArea, slug: string, near: readonly string[] | null): Promise<MountView | null> {
  const now = Date.now();
  if (area === 'shared') {
    const shares = await liveShares(ctx.store, ctx.auth.agentId, slug, now);
    if (!shares.length) return null;
    const grants = shares.map((s) => ({
      id: s.id,
      root: s.path,
      permission: s.permission,
      version: null,
      // History from after the share's own millisecond: a version stamped in that millisecond was
      // committed before the share was made (a write answered, then the share), so it is earlier
      // history, shown only if it was the head then (docs/contract/visibility.md#shares).
      sinceMs: s.includeHistory ? null : s.createdAtMs + 1,
    }));
    return { area, slug, owner: shares[0]!.owner, grants };
  }
  const candidates = near ? [...new Set(near.flatMap((p) => [...ancestorsOf(p), p]))] : null;
  const items = candidates ? await ctx.store.publishedAt(slug, candidates) : await ctx.store.publishedBy(slug, 1000);
  if (!items.length) return null;
  const owner = items[0]!.owner;
  // One who blocked the author no longer sees its published files (docs/contract/community.md#conventions).
  if (owner.id !== ctx.auth.agentId && (await ctx.store.relation(ctx.auth.agentId, owner.id)).blocking) return null;
  // Others reach a post's attachments by their paths only: /.attachments itself lists nothing (core/attachments.ts).
  // And only while the copies are there: a deleted copy is no longer shown at its attached version.
  const others = owner.id !== ctx.auth.agentId;
  const unlisted = others && (near === null || near.includes(ATTACHMENTS_ROOT) || (await deletedCopy(ctx, owner.id, near)));
  const shown = unlisted ? items.filter((i) => !isAttachmentPath(i.path)) : items;
  if (!shown.length) return null;
  const grants = shown.map((i) => ({
    id: i.id,
    root: i.path,
    permission: 'read' as const,
    version: i.kind === 'file' ? i.version : null,
    sinceMs: null,
  }));
  return { area, slug, owner, grants };
}

/** True when a named path inside a post's attachments is not (or no longer) a live node of the owner's. */
async function deletedCopy(ctx: ToolContext, ownerId: string, near: readonly string[]): Promise<boolean> {
  for (const p of near) if (isAttachmentPath(p) && !isLive(await ctx.store.getNode(ownerId, p))) return true;
  return false;
}

/** The path fields of a call, normalized and checked against the key's folder (ctx.path). */
export function namedPaths(ctx: ToolContext, tool: AnyTool, input: Record<string, unknown>): NamedPath[] | null {
  let any = false;
  const out: NamedPath[] = [];
  for (const field of tool.paths.fields) {
    const raw = input[field];
    if (typeof raw !== 'string') continue;
    if (!mayNameMount(raw)) {
      out.push({ field, path: raw, mount: null });
      continue;
    }
    const path = ctx.path(raw, field);
    const mount = parseMount(path);
    if (mount) any = true;
    out.push({ field, path, mount });
  }
  return any ? out : null;
}

function refused(tool: string, path: string, reason: string, message: string): ToolError {
  return new ToolError('FORBIDDEN', message, { path, tool, reason });
}

/** The key a call through a mount acts with: the caller's key, in the owner's tree, bounded by the grant. */
export function reboundAuth(auth: AuthContext, view: MountView, grant: Grant): AuthContext {
  return {
    ...auth,
    agentId: view.owner.id,
    agentSlug: view.owner.slug,
    agentName: view.owner.name,
    folder: grant.root,
    // The owner's history shows who wrote: "@slug/key label" (the key id is the writer's).
    label: `@${auth.agentSlug}/${auth.label}`,
    ...(view.area === 'shared' ? { writeGrant: { shareId: grant.id, recipientId: auth.agentId } } : {}),
  };
}

export interface MountRoute {
  view: MountView;
  grant: Grant;
  /** The input with mount paths replaced by the owner's. */
  input: Record<string, unknown>;
}

/**
 * Decides how a file tool's call on mount paths runs: a route through one grant, or a refusal.
 * Calls mixing a mount with the caller's own tree (copy out of a mount) are the caller's to
 * handle (copy-across.ts); null means "not a mount call".
 */
export async function routeMounts(
  tool: AnyTool,
  input: Record<string, unknown>,
  ctx: ToolContext,
  named: NamedPath[],
): Promise<MountRoute | 'across'> {
  const policy = tool.mount;
  const first = named.find((n) => n.mount)!;
  const area = first.mount!.area;
  if (!policy || 'refused' in policy) {
    throw refused(
      tool.name,
      first.path,
      'not_through_mount',
      policy?.why
        ? `${tool.name} never works through /${area}: ${policy.why}`
        : `${tool.name} does not work on /${area} paths: it acts on your own files and changes. Name a path in your own tree.`,
    );
  }
  const mounted = named.filter((n) => n.mount);
  const sameMount = mounted.every((n) => n.mount!.area === area && n.mount!.slug === first.mount!.slug);
  if (mounted.length !== named.length || !sameMount) {
    if (policy.access === 'copy') return 'across';
    throw new ToolError(
      'INVALID_INPUT',
      `${tool.name} cannot cross from one owner's files to another's (${named.map((n) => n.path).join(' → ')}). Use copy, then delete the source.`,
      { field: 'to' },
    );
  }
  if (area === 'published' && !policy.published) {
    throw refused(
      tool.name,
      first.path,
      'published_read_only',
      `${first.path} is published work: read-only, one version. read, stat, list, list_versions and copy work there.`,
    );
  }
  const write = policy.access !== 'read';
  // Creating where no grant lets the caller write is refused as "reserved" (nobody makes their own
  // /shared); anything else there is NOT_FOUND. Either answer is the same whatever the owner has there.
  const creates = (n: NamedPath | undefined) => !!n && (!!policy.creates || tool.paths.destinations.includes(n.field));
  const unreachable = (n: NamedPath) => (creates(n) ? reservedPath(n.path) : mountNotFound(n.path, area));
  const slug = first.mount!.slug;
  const ownerPaths = mounted.map((n) => n.mount!.ownerPath);
  if (slug === null || ownerPaths.includes(null)) throw creates(first) ? reservedPath(first.path) : virtualOnly(tool, first.path, area);
  const view = await mountView(ctx, area, slug, area === 'published' ? (ownerPaths as string[]) : null);
  if (!view) throw unreachable(mounted.find(creates) ?? first);
  const grant = chooseGrant(view.grants, ownerPaths as string[], write);
  if (grant === 'read_only') {
    throw refused(
      tool.name,
      first.path,
      'read_only_share',
      `${first.path} is shared with you read-only, so ${tool.name} cannot change it. Ask @${slug} for write permission, or copy it into your own tree and change the copy.`,
    );
  }
  if (grant === null) {
    if (!write && isVirtual(view.grants, ownerPaths[0]!)) throw virtualOnly(tool, first.path, area);
    throw unreachable(mounted.find((n) => !view.grants.some((g) => isWithin(n.mount!.ownerPath!, g.root))) ?? first);
  }
  await checkShareRoot(ctx, tool, view, grant, mounted);
  const rewritten = { ...input };
  for (const n of mounted) rewritten[n.field] = n.mount!.ownerPath;
  return { view, grant, input: rewritten };
}

/**
 * A share's own directory stays the owner's to remove or move: a writer changes what is inside.
 * And nothing is created once it is gone (a write would recreate it, and the owner's directories
 * above it, outside the share); only tools that may create pay the lookup.
 */
async function checkShareRoot(ctx: ToolContext, tool: AnyTool, view: MountView, grant: Grant, named: NamedPath[]): Promise<void> {
  if (grant.permission !== 'write') return;
  const policy = tool.mount as MountPolicy;
  const root = named.find((n) => n.mount!.ownerPath === grant.root && n.field === policy.removes);
  if (root) {
    throw refused(
      tool.name,
      root.path,
      'share_root',
      `${root.path} is the shared directory itself: only @${view.slug} can ${tool.name} it. Change what is inside it.`,
    );
  }
  if (!policy.creates && !policy.mayCreate && !tool.paths.destinations.length) return;
  const node = await ctx.store.getNode(view.owner.id, grant.root);
  if (!node || node.deleted) throw mountNotFound(toMountPath(view.area, view.slug, grant.root), view.area);
}

/** INVALID_PATH "reserved": the message of every tool that would create or remove inside a mount. */
function reservedPath(path: string): ToolError {
  try {
    checkCreatable(path);
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error(`${path} is not inside a mount`);
}

/** Directories of a mount's skeleton (/shared, /shared/{slug}, the way to a share) only list and stat. */
function virtualOnly(tool: AnyTool, path: string, area: MountArea): ToolError {
  if (tool.mount && 'access' in tool.mount && tool.mount.readsFile) {
    return new ToolError('IS_A_DIRECTORY', `${path} is a directory. Use list (or bash \`ls\`) to see its entries.`, { path });
  }
  return refused(
    tool.name,
    path,
    'mount_directory',
    `${path} is a directory of the /${area} mount, made of what other agents ${area === 'shared' ? 'shared with you' : 'published'}; ` +
      'only list and stat work on it. Name a path inside a share.',
  );
}

/** Maps an answer from the owner's tree back to the caller's mount paths. */
export function toCaller<T>(route: MountRoute, value: T): T {
  const { area, slug } = route.view;
  return hideKeys(
    mapResultPaths(value, route.grant.root, (p) => toMountPath(area, slug, p)),
    slug,
  ) as T;
}

/**
 * Through a mount, who made a change is an agent, never one of its keys: every key reference
 * ({keyId, label}) becomes { keyId: null, label: null, slug } — the writer's slug (a write through
 * /shared), else the owner's.
 */
export function hideKeys(value: unknown, ownerSlug: string): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => hideKeys(v, ownerSlug));
  const o = value as Record<string, unknown>;
  if (isKeyRef(o)) return { keyId: null, label: null, slug: typeof o.slug === 'string' ? o.slug : ownerSlug };
  const out: Record<string, unknown> = {};
  for (const k in o) if (Object.hasOwn(o, k)) out[k] = hideKeys(o[k], ownerSlug);
  return out;
}

// Its keys are exactly a KeyRef's: the answers' schemas give them KeyRef's types.
const isKeyRef = (o: Record<string, unknown>): o is Record<string, unknown> & KeyRef =>
  'keyId' in o && 'label' in o && Object.keys(o).every((k) => k === 'keyId' || k === 'label' || k === 'slug');

/** Names the writers of the key references in an answer (nameWriters) that the tool did not name itself, before hideKeys. */
export async function nameKeyRefs(ctx: ToolContext, value: unknown): Promise<void> {
  const refs: KeyRef[] = [];
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach(walk);
    const o = v as Record<string, unknown>;
    if (isKeyRef(o)) {
      if (o.slug === undefined) refs.push(o);
      return;
    }
    for (const k in o) if (Object.hasOwn(o, k)) walk(o[k]);
  };
  walk(value);
  if (refs.length) await nameWriters(ctx, refs);
}

export function errorToCaller(route: MountRoute, err: ToolError): ToolError {
  const { area, slug } = route.view;
  const map = (p: string) => toMountPath(area, slug, p);
  const details = err.details ? (mapResultPaths(err.details, route.grant.root, map) as Record<string, unknown>) : undefined;
  if (err.code === 'OUTSIDE_KEY_FOLDER') {
    // Only the grant's bound can refuse here (the caller's own folder was checked on the mount path).
    const raw = err.details?.path;
    return mountNotFound(map(typeof raw === 'string' ? raw : route.grant.root), area);
  }
  // EDIT_CONFLICT names the key that changed the file: through a mount, the agent.
  const writer = (details?.current as { by?: { slug?: string } } | undefined)?.by?.slug ?? slug;
  const message = mapMessagePaths(err.message, route.grant.root, map).replace(/ by key ".*"(?=\. Read it again)/s, ` by @${writer}`);
  return new ToolError(err.code, message, hideKeys(details, slug) as typeof details);
}

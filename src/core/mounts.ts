/**
 * The two mounts of other agents' files (docs/contract/mounts.md), as pure path arithmetic:
 * `/shared/{slug}/…` (what `slug` shared with the caller) and `/published/{slug}/…` (what `slug`
 * published). A mount mirrors the owner's paths under its prefix — alice's `/projects/x` is
 * bob's `/shared/alice/projects/x` — so mapping a path either way is adding or removing the
 * prefix, and what a mount shows is decided by its grants: the owner's subtrees the caller may
 * see, each with a permission.
 */
import { isWithin, parentOf } from './paths.js';

export type MountArea = 'shared' | 'published';
export const MOUNT_AREAS: readonly MountArea[] = ['shared', 'published'];

export interface MountRef {
  area: MountArea;
  /** null for the area itself (`/shared`). */
  slug: string | null;
  /** The owner's path ('/' for `/shared/{slug}`), null with slug null. */
  ownerPath: string | null;
}

/** One subtree of the owner the caller may see through the mount. */
export interface Grant {
  /** A share id (shr_…) or a published id (pub_…). */
  id: string;
  root: string;
  permission: 'read' | 'write';
  /** A pinned version of a published file; null: the head. */
  version: number | null;
  /** A share's history starts here (its creation); null: all of it (shared with includeHistory, or published). */
  sinceMs: number | null;
}

/** Cheap pre-check on a client's raw path: could it name a mount once normalized? */
export const mayNameMount = (raw: string) => raw.includes('shared') || raw.includes('published');

/** The mount a normalized path names, or null when it is in the caller's own tree. */
export function parseMount(path: string): MountRef | null {
  for (const area of MOUNT_AREAS) {
    const top = `/${area}`;
    if (path === top) return { area, slug: null, ownerPath: null };
    if (!path.startsWith(top + '/')) continue;
    const rest = path.slice(top.length + 1);
    const cut = rest.indexOf('/');
    return cut === -1 ? { area, slug: rest, ownerPath: '/' } : { area, slug: rest.slice(0, cut), ownerPath: rest.slice(cut) };
  }
  return null;
}

export const mountPrefix = (area: MountArea, slug: string) => `/${area}/${slug}`;

export const toMountPath = (area: MountArea, slug: string, ownerPath: string) =>
  ownerPath === '/' ? mountPrefix(area, slug) : mountPrefix(area, slug) + ownerPath;

/** Grants whose subtree holds `ownerPath`. */
export const covering = (grants: readonly Grant[], ownerPath: string) => grants.filter((g) => isWithin(ownerPath, g.root));

/**
 * The grant a call on these owner paths goes through: one grant must cover them all (a move stays
 * inside one share); with `write`, a write grant. The widest such grant wins (a move may use all of
 * it). 'read_only' when only read grants cover them, null when none does.
 */
export function chooseGrant(grants: readonly Grant[], paths: readonly string[], write: boolean): Grant | 'read_only' | null {
  const all = grants.filter((g) => paths.every((p) => isWithin(p, g.root)));
  const usable = write ? all.filter((g) => g.permission === 'write') : all;
  if (!usable.length) return all.length ? 'read_only' : null;
  return usable.reduce((a, b) => (b.root.length < a.root.length ? b : a));
}

/**
 * The directories a path strictly above every grant shows: the next name toward each grant root
 * below it, sorted and distinct. Empty when `ownerPath` leads to no grant (nothing to show).
 */
export function virtualChildren(grants: readonly Grant[], ownerPath: string): string[] {
  const names = new Set<string>();
  for (const g of grants) {
    if (g.root === ownerPath || !isWithin(g.root, ownerPath)) continue;
    let p = g.root;
    while (parentOf(p) !== ownerPath) p = parentOf(p);
    names.add(p.slice(ownerPath === '/' ? 1 : ownerPath.length + 1));
  }
  return [...names].sort();
}

/** True when `ownerPath` is inside no grant but leads to one (a directory of the mount's skeleton). */
export const isVirtual = (grants: readonly Grant[], ownerPath: string) =>
  covering(grants, ownerPath).length === 0 && virtualChildren(grants, ownerPath).length > 0;

const PATH_KEYS = new Set(['path', 'from', 'to', 'into', 'similar', 'folder', 'blockingPath', 'createdPaths', 'paths']);
/** Text that is content, never paths to map (a file's bytes, a command's output, a diff). */
const CONTENT_KEYS = new Set(['content', 'stdout', 'stderr', 'diff', 'patch', 'text', 'preview', 'snippet', 'message']);

/**
 * Maps every owner path in a result (or an error's details) to the mount: string values (and
 * string arrays) of path-named fields inside `root`. Everything else is left as it is. Runs on
 * every answer through a mount: Set lookups, and only objects and arrays are copied (with two
 * regexes per key it was 4 µs of a ~180 µs read).
 */
export function mapResultPaths(value: unknown, root: string, map: (ownerPath: string) => string): unknown {
  const one = (v: unknown): unknown => (typeof v === 'string' && v.startsWith('/') && isWithin(v, root) ? map(v) : v);
  const walk = (v: unknown, key: string | null): unknown => {
    if (v === null || typeof v !== 'object') return key !== null && typeof v === 'string' && PATH_KEYS.has(key) ? one(v) : v;
    if (key !== null && CONTENT_KEYS.has(key)) return v;
    if (Array.isArray(v)) return key !== null && PATH_KEYS.has(key) ? v.map(one) : v.map((x) => walk(x, null));
    const out: Record<string, unknown> = {};
    for (const k in v) if (Object.hasOwn(v, k)) out[k] = walk((v as Record<string, unknown>)[k], k);
    return out;
  };
  return walk(value, null);
}

/**
 * Maps the owner paths inside `root` that a message mentions: each occurrence of the root that
 * starts a path (after a space, quote, bracket or the start) and ends at a path boundary.
 */
export function mapMessagePaths(text: string, root: string, map: (ownerPath: string) => string): string {
  if (root === '/') return text;
  const escaped = root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`(^|[\\s'"\`(\\[])(${escaped})(?=$|[/\\s'"\`),.;:!?\\]])`, 'g'), (_m, lead: string, p: string) => lead + map(p));
}

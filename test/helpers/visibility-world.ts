/**
 * Random small worlds for the model-based visibility test (test/visibility-model.test.ts): one
 * owner's files (versions, moves, deletes), what it shares with a recipient (read and write,
 * some revoked), publishes (pinned, head, directories), links and attaches to posts (some posts
 * removed by the community's moderator or deleted), blocks, and the same exposures tried with a
 * folder key and a key without files:read. A world is a list of operations drawn from a seeded
 * PRNG (the seed replays it); the owner's tree is simulated here so every operation is valid.
 */

/** mulberry32: a small deterministic PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Which of the owner's keys runs an exposure: its full key, a key for /d0, a key without files:read. */
export type KeyKind = 'full' | 'folder' | 'noread';
export const FOLDER = '/d0';

export type Op =
  | { t: 'write'; path: string; content: string }
  | { t: 'delete'; path: string }
  | { t: 'move'; from: string; to: string }
  | { t: 'share'; path: string; permission: 'read' | 'write'; includeHistory?: true; key: KeyKind }
  | { t: 'revoke'; share: number }
  | { t: 'publish'; path: string; version?: number | 'head'; key: KeyKind }
  | { t: 'unpublish'; publish: number }
  | { t: 'link'; path: string; version?: number; key: KeyKind }
  | { t: 'post'; attachments: Array<{ path: string; version?: number }>; key: KeyKind }
  | { t: 'remove_post'; post: number }
  | { t: 'delete_post'; post: number }
  | { t: 'block'; who: 'owner_blocks_recipient' | 'stranger_blocks_owner' };

/** One version of a path: its content, or null for a deletion (a tombstone version). */
export interface Version {
  v: number;
  content: string | null;
  /** The index of the operation that committed it (the model's clock). */
  at: number;
}

/** The owner's tree: every path's versions, in order. */
export type Tree = Map<string, Version[]>;

export const headOf = (tree: Tree, path: string): Version | undefined => tree.get(path)?.at(-1);
export const isLive = (tree: Tree, path: string) => headOf(tree, path)?.content != null;
export const liveFiles = (tree: Tree) => [...tree.keys()].filter((p) => isLive(tree, p)).sort();
export const isWithin = (path: string, root: string) => path === root || path.startsWith(root + '/');

/** Applies a file operation to the tree (the owner's own calls: write, delete, move). */
export function applyFileOp(tree: Tree, op: Op, at: number): void {
  const commit = (path: string, content: string | null) => {
    const list = tree.get(path) ?? [];
    list.push({ v: (list.at(-1)?.v ?? 0) + 1, content, at });
    tree.set(path, list);
  };
  if (op.t === 'write') commit(op.path, op.content);
  else if (op.t === 'delete') commit(op.path, null);
  else if (op.t === 'move') {
    const content = headOf(tree, op.from)!.content;
    commit(op.from, null);
    commit(op.to, content);
  }
}

export interface World {
  seed: number;
  /** A word in every file of this world (what the search check asks for). */
  word: string;
  ops: Op[];
}

/**
 * Whether an exposure (share, publish, link, attachment) is allowed: it needs what reading the
 * file needs for the calling key (files:read, the key's folder), and a share needs that neither
 * agent blocked the other.
 */
export function exposureAllowed(op: Op, recipientBlocked: boolean): boolean {
  const paths = op.t === 'post' ? op.attachments.map((a) => a.path) : 'path' in op ? [op.path] : [];
  if (!('key' in op)) return true;
  if (op.key === 'noread') return false;
  if (op.key === 'folder' && !paths.every((p) => isWithin(p, FOLDER))) return false;
  return !(op.t === 'share' && recipientBlocked);
}

/** Publish and share roots never overlap (one grant per path keeps the model plain). */
const overlaps = (a: string, roots: string[]) => roots.some((r) => isWithin(a, r) || isWithin(r, a));

export function generateWorld(seed: number): World {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const chance = (p: number) => rnd() < p;
  const word = `w${seed.toString(36)}q`;
  const tree: Tree = new Map();
  const ops: Op[] = [];
  let marker = 0;
  const add = (op: Op) => {
    applyFileOp(tree, op, ops.length);
    ops.push(op);
  };
  const names = ['/d0/a.txt', '/d0/b.html', '/d1/c.txt', '/d1/e.txt', '/d2/f.txt', '/d2/g.md'];
  const newContent = () => `${word} m${seed.toString(36)}z${marker++}\n`.repeat(1 + Math.floor(rnd() * 3));
  const shares: Array<{ path: string; live: boolean }> = [];
  const publishes: Array<{ path: string; live: boolean }> = [];
  let posts = 0;
  const removedPosts = new Set<number>();
  let recipientBlocked = false;
  // A few files first, each with one or more versions.
  for (const path of names) if (chance(0.7)) add({ t: 'write', path, content: newContent() });
  if (!liveFiles(tree).length) add({ t: 'write', path: '/d1/c.txt', content: newContent() });
  const steps = 6 + Math.floor(rnd() * 6);
  for (let i = 0; i < steps; i++) {
    const live = liveFiles(tree);
    const key: KeyKind = chance(0.6) ? 'full' : chance(0.5) ? 'folder' : 'noread';
    const aVersion = (path: string) => pick(tree.get(path)!.filter((v) => v.content !== null)).v;
    const dirs = ['/d0', '/d1', '/d2'].filter((d) => live.some((p) => isWithin(p, d)));
    const r = rnd();
    if (r < 0.25) add({ t: 'write', path: chance(0.7) && live.length ? pick(live) : pick(names), content: newContent() });
    else if (r < 0.32 && live.length > 1) add({ t: 'delete', path: pick(live) });
    else if (r < 0.38 && live.length) {
      const from = pick(live);
      const to = pick(names.filter((n) => !isLive(tree, n)).concat(['/d1/moved.txt', '/d2/moved.txt'].filter((n) => !isLive(tree, n))));
      if (to) add({ t: 'move', from, to });
    } else if (r < 0.5) {
      const path = chance(0.5) && dirs.length ? pick(dirs) : live.length ? pick(live) : null;
      const roots = shares.filter((s) => s.live).map((s) => s.path);
      if (path && !overlaps(path, roots)) {
        add({ t: 'share', path, permission: chance(0.5) ? 'read' : 'write', ...(chance(0.2) ? { includeHistory: true as const } : {}), key });
        if (exposureAllowed(ops.at(-1)!, recipientBlocked)) shares.push({ path, live: true });
      }
    } else if (r < 0.55 && shares.some((s) => s.live)) {
      const idx = pick(shares.map((s, j) => (s.live ? j : -1)).filter((j) => j >= 0));
      add({ t: 'revoke', share: idx });
      shares[idx]!.live = false;
    } else if (r < 0.7) {
      const roots = publishes.filter((p) => p.live).map((p) => p.path);
      if (chance(0.35) && dirs.length) {
        const path = pick(dirs);
        if (!overlaps(path, roots)) {
          add({ t: 'publish', path, key });
          if (exposureAllowed(ops.at(-1)!, recipientBlocked)) publishes.push({ path, live: true });
        }
      } else if (live.length) {
        const path = pick(live);
        const version = chance(0.3) ? ('head' as const) : chance(0.5) ? aVersion(path) : undefined;
        if (!overlaps(path, roots)) {
          add({ t: 'publish', path, ...(version !== undefined ? { version } : {}), key });
          if (exposureAllowed(ops.at(-1)!, recipientBlocked)) publishes.push({ path, live: true });
        }
      }
    } else if (r < 0.74 && publishes.some((p) => p.live)) {
      const idx = pick(publishes.map((p, j) => (p.live ? j : -1)).filter((j) => j >= 0));
      add({ t: 'unpublish', publish: idx });
      publishes[idx]!.live = false;
    } else if (r < 0.82 && live.length) {
      const path = pick(live);
      add({ t: 'link', path, ...(chance(0.5) ? { version: aVersion(path) } : {}), key });
    } else if (r < 0.92 && live.length) {
      const path = pick(live);
      add({ t: 'post', attachments: [{ path, ...(chance(0.5) ? { version: aVersion(path) } : {}) }], key });
      if (exposureAllowed(ops.at(-1)!, recipientBlocked)) posts++;
    } else if (posts > 0) {
      const post = Math.floor(rnd() * posts);
      if (!removedPosts.has(post)) {
        add({ t: chance(0.5) ? 'remove_post' : 'delete_post', post });
        removedPosts.add(post);
      }
    } else if (!recipientBlocked && !shares.length) {
      add({ t: 'block', who: 'owner_blocks_recipient' });
      recipientBlocked = true;
    }
  }
  if (chance(0.15)) add({ t: 'block', who: 'stranger_blocks_owner' });
  return { seed, word, ops };
}

/** The owner's tree after every operation of the world. */
export function finalTree(world: World): Tree {
  const tree: Tree = new Map();
  world.ops.forEach((op, at) => applyFileOp(tree, op, at));
  return tree;
}

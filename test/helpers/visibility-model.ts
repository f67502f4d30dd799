/**
 * The plain model of what each reader of a world may see (test/visibility-model.test.ts), written
 * from the visibility rules (docs/docs/contract/community.md, the tools' descriptions), sharing no code with src/:
 *
 * - /published: a pinned file shows that version only; a head publish or a published directory the
 *   head of each live file only; never an earlier version or a deleted file. One who blocked the
 *   owner sees nothing there. An attachment is readable while its post exists and is not removed.
 * - /shared: the recipient sees each live file's head and its history from the share's creation on
 *   (the head at that moment and every later version), all of it with includeHistory; nothing of a
 *   revoked share.
 * - Links serve their file (pinned version or head) while it exists, 410 once it is deleted.
 * - An exposure by a key that may not read the file (no files:read, outside its folder) is refused.
 *
 * A pinned publish whose file was deleted or moved away later is left open by the rules: its
 * version may be seen, and its path is not compared (`ambiguous`).
 */
import {
  applyFileOp,
  exposureAllowed,
  finalTree,
  headOf,
  isLive,
  isWithin,
  type Op,
  type Tree,
  type Version,
  type World,
} from './visibility-world.js';

export type Viewer = 'recipient' | 'stranger' | 'anon';

export interface FileView {
  /** The version number a reader sees at this path, and its content. */
  v: number;
  content: string;
}

export interface SharedFile {
  head: FileView;
  /** Every version number the recipient may read at this path, with its content. */
  versions: Map<number, string>;
}

export interface AttachmentView {
  /** Index among the world's accepted posts. */
  post: number;
  path: string;
  version: number;
  content: string;
  readable: boolean;
}

export interface LinkView {
  op: number;
  path: string;
  version: number | null;
  /** 200 with these bytes, or 410 once the file is gone. */
  expect: { status: 200; content: string } | { status: 410 };
}

export interface ModelView {
  tree: Tree;
  /** What readers other than the owner see under /published/{owner} (owner paths), per viewer. */
  published: Record<Viewer, Map<string, FileView>>;
  ambiguous: Set<string>;
  /** Owner paths under a live publication (what the checker probes, visible or not). */
  publishedProbe: Set<string>;
  attachments: AttachmentView[];
  /** The recipient's /shared/{owner} view: live files; `sharedHistory` adds what deleted files may show. */
  shared: Map<string, SharedFile>;
  sharedRoots: string[];
  /** Deleted files whose history the recipient saw (deleted after the share was made): absent, not unknown. */
  sharedGone: Set<string>;
  /** Contents each viewer may see somewhere (anything else of the owner's must never appear). */
  allowed: Record<Viewer, Set<string>>;
  /** Every content the owner ever wrote. */
  contents: Set<string>;
  links: LinkView[];
  /** Each exposure operation (by index) and whether the rules allow it. */
  exposures: Array<{ op: number; allowed: boolean }>;
  strangerBlocksOwner: boolean;
}

interface Pub {
  path: string;
  version: number | 'head' | null;
  live: boolean;
}

/** The versions of `path` a share made at `at` shows: the head at that moment and every later one. */
function sinceShare(versions: Version[], at: number): Version[] {
  const before = versions.filter((v) => v.at < at);
  const headThen = before.at(-1);
  return versions.filter((v) => v.at > at || v === headThen).filter((v) => v.content !== null);
}

/** What the world's operations left standing: publications, shares, posts, links, blocks. */
interface Replayed {
  tree: Tree;
  pubs: Pub[];
  shares: Array<{ path: string; at: number; live: boolean }>;
  posts: Array<{ attachments: Array<{ path: string; version: number; content: string }>; gone: boolean }>;
  links: Array<{ op: number; path: string; version: number | null }>;
  exposures: ModelView['exposures'];
  strangerBlocksOwner: boolean;
}

function replay(world: World): Replayed {
  const r: Replayed = { tree: finalTree(world), pubs: [], shares: [], posts: [], links: [], exposures: [], strangerBlocksOwner: false };
  let recipientBlocked = false;
  const partial: Tree = new Map();
  const versionOf = (path: string, v: number | undefined) => partial.get(path)!.find((x) => x.v === (v ?? headOf(partial, path)!.v))!;
  world.ops.forEach((op: Op, at) => {
    applyFileOp(partial, op, at);
    if (op.t === 'block') {
      if (op.who === 'owner_blocks_recipient') recipientBlocked = true;
      else r.strangerBlocksOwner = true;
    }
    if ('key' in op) {
      const allowed = exposureAllowed(op, recipientBlocked);
      r.exposures.push({ op: at, allowed });
      if (!allowed) return;
    }
    // includeHistory: as if shared before the first version.
    if (op.t === 'share') r.shares.push({ path: op.path, at: op.includeHistory ? -1 : at, live: true });
    else if (op.t === 'revoke') r.shares[op.share]!.live = false;
    else if (op.t === 'publish') {
      const version = !partial.has(op.path) ? null : op.version === 'head' ? 'head' : versionOf(op.path, op.version).v;
      r.pubs.push({ path: op.path, version, live: true });
    } else if (op.t === 'unpublish') r.pubs[op.publish]!.live = false;
    else if (op.t === 'link') r.links.push({ op: at, path: op.path, version: op.version ?? null });
    else if (op.t === 'post') {
      const attachments = op.attachments.map((a) => {
        const v = versionOf(a.path, a.version);
        return { path: a.path, version: v.v, content: v.content! };
      });
      r.posts.push({ attachments, gone: false });
    } else if (op.t === 'remove_post' || op.t === 'delete_post') r.posts[op.post]!.gone = true;
  });
  return r;
}

/** /published as every other agent sees it (before blocks). */
function publishedView({ tree, pubs }: Replayed) {
  const published = new Map<string, FileView>();
  const ambiguous = new Set<string>();
  const publishedProbe = new Set<string>();
  const mayAlsoSee = new Set<string>();
  for (const p of pubs.filter((x) => x.live)) {
    for (const path of tree.keys()) if (isWithin(path, p.path)) publishedProbe.add(path);
    if (typeof p.version === 'number') {
      const content = tree.get(p.path)!.find((v) => v.v === p.version)!.content!;
      if (isLive(tree, p.path)) published.set(p.path, { v: p.version, content });
      else {
        ambiguous.add(p.path);
        mayAlsoSee.add(content);
      }
      continue;
    }
    for (const path of tree.keys()) {
      const head = headOf(tree, path)!;
      if (isWithin(path, p.path) && head.content !== null) published.set(path, { v: head.v, content: head.content });
    }
  }
  return { published, ambiguous, publishedProbe, mayAlsoSee };
}

/** /shared as the recipient sees it. */
function sharedView({ tree, shares }: Replayed) {
  const shared = new Map<string, SharedFile>();
  const sharedSeen = new Set<string>();
  const sharedGone = new Set<string>();
  for (const s of shares.filter((x) => x.live)) {
    for (const [path, versions] of tree) {
      if (!isWithin(path, s.path)) continue;
      const visible = sinceShare(versions, s.at);
      for (const v of visible) sharedSeen.add(v.content!);
      const head = versions.at(-1)!;
      if (head.content === null) {
        if (visible.length) sharedGone.add(path);
        continue;
      }
      shared.set(path, { head: { v: head.v, content: head.content }, versions: new Map(visible.map((v) => [v.v, v.content!])) });
    }
  }
  return { shared, sharedSeen, sharedGone, sharedRoots: shares.filter((s) => s.live).map((s) => s.path) };
}

export function model(world: World): ModelView {
  const r = replay(world);
  const { tree, strangerBlocksOwner } = r;
  const contents = new Set<string>();
  for (const versions of tree.values()) for (const v of versions) if (v.content !== null) contents.add(v.content);
  const { published, ambiguous, publishedProbe, mayAlsoSee } = publishedView(r);
  const { shared, sharedSeen, sharedGone, sharedRoots } = sharedView(r);
  const attachments: AttachmentView[] = r.posts.flatMap((post, i) => post.attachments.map((a) => ({ post: i, ...a, readable: !post.gone })));
  const readableAttachments = attachments.filter((a) => a.readable).map((a) => a.content);
  const publicSeen = new Set<string>([...[...published.values()].map((f) => f.content), ...mayAlsoSee, ...readableAttachments]);
  // One who blocked the owner reads nothing under /published/{owner}, attachments included; the
  // posts it still sees list their attachments.
  const strangerSeen = strangerBlocksOwner ? new Set(readableAttachments) : publicSeen;
  const links: LinkView[] = r.links.map((l) => {
    const head = headOf(tree, l.path)!;
    if (head.content === null) return { ...l, expect: { status: 410 } };
    const content = l.version === null ? head.content : tree.get(l.path)!.find((v) => v.v === l.version)!.content!;
    return { ...l, expect: { status: 200, content } };
  });
  return {
    tree,
    published: { recipient: published, stranger: strangerBlocksOwner ? new Map() : published, anon: published },
    ambiguous,
    publishedProbe,
    attachments,
    shared,
    sharedRoots,
    sharedGone,
    allowed: { recipient: new Set([...publicSeen, ...sharedSeen]), stranger: strangerSeen, anon: publicSeen },
    contents,
    links,
    exposures: r.exposures,
    strangerBlocksOwner,
  };
}

/**
 * The filesystem a `bash` command of an agent sees: its own tree, plus `/shared/{slug}` (what
 * `slug` shared with it) and `/published/{slug}` (what `slug` published), resolved from the store
 * when the command first touches them. Each mount is a StoreFs on the owner's tree bounded by the
 * grants (its folders: every share or published item; writes only inside write shares, EROFS
 * elsewhere; published files at their pinned version), so the rules of folder-scoped keys bound
 * mounts too. Changes stay per tree: the caller commits one changeset per owner touched.
 * `/shared` lists the agents sharing with the caller; `/published` the agents it follows who
 * published; `/` lists both (recursive commands from / do not enter them: skill.md, "Working with other agents' files").
 * Paths in errors are the caller's (the mount's), never the owner's.
 */
import { ATTACHMENTS_ROOT, ATTACHMENT_VERSION } from '../core/attachments.js';
import { publishedPins } from '../core/history-view.js';
import { posix } from 'node:path';
import type { FsStat, IFileSystem } from './just-bash.js';
import { isWithin } from '../core/paths.js';
import { mountPrefix, parseMount, type MountArea } from '../core/mounts.js';
import type { PlannedChange, Store } from '../store/types.js';
import type { BlobCache } from './blob-cache.js';
import { StoreFs, type FsAccess } from './fs.js';
import { fsError } from './fs-access.js';

export interface MountedChanges {
  area: MountArea;
  slug: string;
  ownerId: string;
  changes: PlannedChange[];
}

/** A file `cp` copied out of a mount into the caller's tree (tools/bash-copies.ts records its provenance). */
export interface MountedCopy {
  area: MountArea;
  slug: string;
  /** The source, in the owner's tree. */
  from: string;
  /** What the cp named (the source's top directory for cp -r), in the owner's tree. */
  root: string;
  /** The copy, in the caller's tree. */
  to: string;
}

interface Mount {
  area: MountArea;
  slug: string;
  ownerId: string;
  fs: StoreFs;
  roots: string[];
  writeRoots: string[];
}

type Target =
  { kind: 'own'; fs: StoreFs; path: string } | { kind: 'area'; area: MountArea } | { kind: 'mount'; m: Mount; path: string } | { kind: 'none' };

/** The area root's listing is bounded (the caps on shares and published items bound each mount). */
const AREA_MAX = 1000;

const DIR_STAT: FsStat = { isFile: false, isDirectory: true, isSymbolicLink: false, mode: 0o40755, size: 4096, mtime: new Date(0) };

export class MountedFs implements IFileSystem {
  private readonly own: StoreFs;
  private readonly mounts = new Map<string, Promise<Mount | null>>();
  /** The mounts resolved so far: most calls of a walk find theirs here without waiting. */
  private readonly resolved = new Map<string, Mount | null>();
  private readonly opened: Mount[] = [];
  private readonly viewerId: string;
  private readonly copies: MountedCopy[] = [];

  constructor(
    private readonly store: Store,
    private readonly access: FsAccess,
    private readonly trusted: <T>(fn: () => Promise<T>) => Promise<T> = (fn) => fn(),
    private readonly cache: BlobCache | null = null,
  ) {
    this.own = new StoreFs(store, access, trusted, cache);
    this.viewerId = access.viewer!.agentId;
  }

  end(): void {
    this.own.end();
    for (const m of this.opened) m.fs.end();
  }

  private norm(p: string): string {
    const n = posix.normalize((p.startsWith('/') ? p : '/' + p).normalize('NFC'));
    return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
  }

  /** The store, for this filesystem's own lookups (trusted, like StoreFs's; never after the job ended). */
  private io<T>(fn: () => Promise<T>): Promise<T> {
    return this.own.runTrusted(fn);
  }

  private open(area: MountArea, slug: string): Promise<Mount | null> {
    const key = `${area}/${slug}`;
    let m = this.mounts.get(key);
    if (!m) {
      this.mounts.set(key, (m = this.resolve(area, slug)));
      void m.then(
        (x) => this.resolved.set(key, x),
        () => undefined,
      );
    }
    return m;
  }

  private async resolve(area: MountArea, slug: string): Promise<Mount | null> {
    let ownerId: string;
    let roots: string[];
    let writeRoots: string[] = [];
    let pinned: Record<string, number> = {};
    if (area === 'shared') {
      const shares = await this.io(() => this.store.liveSharesFrom(this.viewerId, slug, Date.now()));
      if (!shares.length) return null;
      ownerId = shares[0]!.owner.id;
      roots = shares.map((s) => s.path);
      writeRoots = shares.filter((s) => s.permission === 'write').map((s) => s.path);
    } else {
      const items = await this.io(() => this.store.publishedBy(slug, AREA_MAX));
      if (!items.length) return null;
      ownerId = items[0]!.owner.id;
      if (ownerId !== this.viewerId && (await this.io(() => this.store.relation(this.viewerId, ownerId))).blocking) return null;
      roots = items.map((i) => i.path);
      // The file tools' rule (core/history-view.ts): a pinned file reads at its version unless a head publish covers it too.
      pinned = publishedPins(
        items.map((i) => ({ id: i.id, root: i.path, permission: 'read', version: i.kind === 'file' ? i.version : null, sinceMs: null })),
      );
    }
    const fs = new StoreFs(
      this.store,
      {
        agentId: ownerId,
        folder: null,
        folders: roots,
        writeFolders: writeRoots,
        pinned,
        // Post attachments read as attached, whatever their author does to the copies since (tools/attachments.ts).
        ...(area === 'published' ? { pinnedBelow: { prefix: ATTACHMENTS_ROOT, version: ATTACHMENT_VERSION } } : {}),
        canWrite: this.access.canWrite,
        canDelete: this.access.canDelete,
      },
      this.trusted,
      this.cache,
    );
    const m: Mount = { area, slug, ownerId, fs, roots, writeRoots };
    this.opened.push(m);
    return m;
  }

  /**
   * The mount a path names, or null for the caller's own tree. A folder-scoped key sees only its
   * folder: the mounts are outside it, so they stay the own tree's (hidden) paths.
   */
  private mountOf(p: string) {
    return this.access.folder === null ? parseMount(p) : null;
  }

  private async at(p: string): Promise<Target> {
    const ref = this.mountOf(p);
    if (!ref) return { kind: 'own', fs: this.own, path: p };
    if (ref.slug === null) return { kind: 'area', area: ref.area };
    const m = await this.open(ref.area, ref.slug);
    return m ? { kind: 'mount', m, path: ref.ownerPath! } : { kind: 'none' };
  }

  /**
   * Runs `fn` on the tree holding `path`, with errors naming the caller's path. Synchronous up to
   * the call (no await of its own): a walk of 10,000 entries makes 10,000 of these.
   */
  private on<T>(path: string, syscall: string, fn: (fs: StoreFs, inner: string) => Promise<T>, area: (a: MountArea) => Promise<T>): Promise<T> {
    const p = this.norm(path);
    const ref = this.mountOf(p);
    if (!ref) return fn(this.own, p);
    if (ref.slug === null) return area(ref.area);
    const slug = ref.slug;
    const run = (m: Mount | null): Promise<T> => {
      if (!m) return Promise.reject(fsError(isWrite(syscall) ? 'EROFS' : 'ENOENT', syscall, p));
      if (this.unlisted(m, ref.ownerPath!)) return Promise.reject(fsError('ENOENT', syscall, p));
      const call = () =>
        fn(m.fs, ref.ownerPath!).catch((err: unknown) => {
          throw renamed(err, mountPrefix(m.area, m.slug));
        });
      if (!this.othersCopy(m, ref.ownerPath!)) return call();
      // A post's attachment reads at its attached version only while its copy is there (file tools alike: mounts.ts).
      return this.io(() => this.store.getNode(m.ownerId, ref.ownerPath!)).then((n) =>
        n && !n.deleted ? call() : Promise.reject(fsError('ENOENT', syscall, p)),
      );
    };
    const known = this.resolved.get(`${ref.area}/${slug}`);
    return known !== undefined ? run(known) : this.open(ref.area, slug).then(run);
  }

  /** Others reach a post's attachments by their paths only: /published/{slug}/.attachments is not there for them (core/attachments.ts). */
  private unlisted(m: Mount, ownerPath: string): boolean {
    return m.area === 'published' && m.ownerId !== this.viewerId && ownerPath === ATTACHMENTS_ROOT;
  }

  private othersCopy(m: Mount, ownerPath: string): boolean {
    return m.area === 'published' && m.ownerId !== this.viewerId && ownerPath.startsWith(ATTACHMENTS_ROOT + '/');
  }

  private async areaSlugs(area: MountArea): Promise<string[]> {
    const agents = await this.io(() =>
      area === 'shared'
        ? this.store.sharingWith(this.viewerId, Date.now(), '', AREA_MAX)
        : this.store.followedPublishers(this.viewerId, '', AREA_MAX),
    );
    return agents.map((a) => a.slug);
  }

  // ---- reading ----

  readFile(path: string): Promise<string> {
    return this.on(
      path,
      'open',
      (fs, p) => fs.readFile(p),
      () => Promise.reject(fsError('EISDIR', 'read', this.norm(path))),
    );
  }

  readFileBuffer(path: string): Promise<Uint8Array> {
    return this.on(
      path,
      'open',
      (fs, p) => fs.readFileBuffer(p),
      () => Promise.reject(fsError('EISDIR', 'read', this.norm(path))),
    );
  }

  async exists(path: string): Promise<boolean> {
    const p = this.norm(path);
    const t = await this.at(p);
    if (t.kind === 'area') return true;
    if (t.kind === 'none') return false;
    if (t.kind === 'mount' && this.unlisted(t.m, t.path)) return false;
    return t.kind === 'own' ? t.fs.exists(path) : t.m.fs.exists(t.path);
  }

  stat(path: string): Promise<FsStat> {
    return this.on(
      path,
      'stat',
      (fs, p) => fs.stat(p),
      async () => DIR_STAT,
    );
  }

  lstat(path: string): Promise<FsStat> {
    return this.stat(path);
  }

  async readdirWithFileTypes(path: string): Promise<Array<{ name: string; isFile: boolean; isDirectory: boolean; isSymbolicLink: boolean }>> {
    if (this.isMountPoint('/shared') && this.norm(path) === '/') {
      // / lists the two mount points among its own entries (byte order); walks from / stay out of them (isMountPoint).
      const own = await this.own.readdirWithFileTypes('/');
      const mounts = ['published', 'shared'].map((name) => ({ name, isFile: false, isDirectory: true, isSymbolicLink: false }));
      return [...own, ...mounts].sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
    }
    const hide = ATTACHMENTS_ROOT.slice(1);
    return this.on(
      path,
      'scandir',
      async (fs, p) => {
        const entries = await fs.readdirWithFileTypes(p);
        const m = p === '/' ? this.opened.find((o) => o.fs === fs) : undefined;
        return m && this.unlisted(m, ATTACHMENTS_ROOT) ? entries.filter((e) => e.name !== hide) : entries;
      },
      async (area) => (await this.areaSlugs(area)).map((name) => ({ name, isFile: false, isDirectory: true, isSymbolicLink: false })),
    );
  }

  async readdir(path: string): Promise<string[]> {
    return (await this.readdirWithFileTypes(path)).map((d) => d.name);
  }

  /** /shared and /published (keys without a folder): listed at /, entered only by walks that start there or below. */
  isMountPoint(path: string): boolean {
    return this.access.folder === null && (path === '/shared' || path === '/published');
  }

  /** grep -r's bulk read: inside a grant as usual; above grants, each grant below (never the owner's other files). */
  async prefetchSubtree(dir: string, maxBytes?: number): Promise<void> {
    await this.prefetch(dir, (fs, p) => fs.prefetchSubtree(p, maxBytes));
  }

  async prefetchMetadata(dir: string, maxEntries?: number): Promise<void> {
    await this.prefetch(dir, (fs, p) => fs.prefetchMetadata(p, maxEntries));
  }

  private async prefetch(dir: string, fn: (fs: StoreFs, p: string) => Promise<void>): Promise<void> {
    const p = this.norm(dir);
    const t = await this.at(p);
    // The mounts are not entries of /: a walk from / stays in the caller's tree.
    if (t.kind === 'own') return fn(t.fs, t.path);
    if (t.kind === 'none') return;
    if (t.kind === 'area') {
      for (const slug of await this.areaSlugs(t.area)) await this.prefetch(mountPrefix(t.area, slug), fn);
      return;
    }
    if (t.m.roots.some((r) => isWithin(t.path, r))) return fn(t.m.fs, t.path);
    for (const r of t.m.roots) if (isWithin(r, t.path)) await fn(t.m.fs, r);
  }

  // ---- writing ----

  writeFile(path: string, content: string | Uint8Array, options?: string | { encoding?: string | null } | null): Promise<void> {
    return this.on(
      path,
      'open',
      (fs, p) => fs.writeFile(p, content, options),
      () => Promise.reject(fsError('EISDIR', 'open', this.norm(path))),
    );
  }

  appendFile(path: string, content: string | Uint8Array, options?: string | { encoding?: string | null } | null): Promise<void> {
    return this.on(
      path,
      'open',
      (fs, p) => fs.appendFile(p, content, options),
      () => Promise.reject(fsError('EISDIR', 'open', this.norm(path))),
    );
  }

  mkdir(path: string, options?: { recursive?: boolean }): Promise<void> {
    return this.on(
      path,
      'mkdir',
      (fs, p) => fs.mkdir(p, options),
      async () => {
        if (!options?.recursive) throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${this.norm(path)}'`), { code: 'EEXIST' });
      },
    );
  }

  rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void> {
    return this.on(
      path,
      'rm',
      (fs, p) => (this.isShareRoot(fs, p) ? Promise.reject(fsError('EPERM', 'rm', p)) : fs.rm(p, options)),
      () => Promise.reject(fsError('EROFS', 'rm', this.norm(path))),
    );
  }
  /** A share's own directory is its owner's to remove or move (file tools: FORBIDDEN "share_root"). */
  private isShareRoot(fs: StoreFs, inner: string): boolean {
    return fs !== this.own && this.opened.some((m) => m.fs === fs && m.writeRoots.includes(inner));
  }

  utimes(path: string): Promise<void> {
    return this.on(
      path,
      'utimes',
      (fs, p) => fs.utimes(p),
      () => Promise.reject(fsError('EROFS', 'utimes', this.norm(path))),
    );
  }

  chmod(path: string): Promise<void> {
    return this.on(
      path,
      'chmod',
      (fs, p) => fs.chmod(p),
      async () => undefined,
    );
  }

  /** Both ends in one tree: that tree's own operation; else a copy through this filesystem. */
  private async sameTree(src: string, dest: string): Promise<{ fs: StoreFs; s: string; d: string; prefix: string | null } | null> {
    const [a, b] = [this.norm(src), this.norm(dest)];
    const [ta, tb] = [await this.at(a), await this.at(b)];
    if (ta.kind === 'own' && tb.kind === 'own') return { fs: this.own, s: a, d: b, prefix: null };
    if (ta.kind === 'mount' && tb.kind === 'mount' && ta.m === tb.m)
      return { fs: ta.m.fs, s: ta.path, d: tb.path, prefix: mountPrefix(ta.m.area, ta.m.slug) };
    return null;
  }

  async cp(src: string, dest: string, options?: { recursive?: boolean }, root?: string): Promise<void> {
    const same = await this.sameTree(src, dest);
    if (same) return rethrow(() => same.fs.cp(same.s, same.d, options), same.prefix);
    const st = await this.stat(src);
    if (!st.isDirectory) {
      await this.writeFile(dest, await this.readFileBuffer(src));
      return this.noteCopy(src, dest, root ?? src);
    }
    if (!options?.recursive) throw fsError('EISDIR', 'cp', this.norm(src));
    await this.mkdir(dest, { recursive: true });
    for (const e of await this.readdirWithFileTypes(src))
      await this.cp(`${this.norm(src)}/${e.name}`, `${this.norm(dest)}/${e.name}`, options, root ?? src);
  }

  /** A file copied out of a mount into the caller's tree: a fork, like the copy tool's (provenance, the owner told). */
  private noteCopy(src: string, dest: string, root: string): void {
    const [from, to, top] = [this.mountOf(this.norm(src)), this.norm(dest), this.mountOf(this.norm(root))];
    if (!from?.slug || !from.ownerPath || !top?.ownerPath || this.mountOf(to)) return;
    this.copies.push({ area: from.area, slug: from.slug, from: from.ownerPath, root: top.ownerPath, to });
  }

  /** The files cp copied out of mounts into the caller's tree. */
  mountedCopies(): MountedCopy[] {
    return this.copies;
  }

  async mv(src: string, dest: string): Promise<void> {
    const same = await this.sameTree(src, dest);
    if (same && this.isShareRoot(same.fs, same.s)) throw fsError('EPERM', 'rename', this.norm(src));
    if (same) return rethrow(() => same.fs.mv(same.s, same.d), same.prefix);
    // Across owners nothing moves, as with the move tool: copy (cp), then remove the source.
    await this.stat(src);
    throw fsError('EXDEV', 'rename', this.norm(src));
  }

  resolvePath(base: string, path: string): string {
    return this.norm(path.startsWith('/') ? path : posix.join(base, path));
  }

  getAllPaths(): string[] {
    return [];
  }

  symlink(target: string, linkPath: string): Promise<void> {
    return this.own.symlink(target, linkPath);
  }

  link(existing: string, newPath: string): Promise<void> {
    return this.own.link(existing, newPath);
  }

  readlink(path: string): Promise<string> {
    return this.own.readlink(path);
  }

  async realpath(path: string): Promise<string> {
    const p = this.norm(path);
    if (!(await this.exists(p))) throw fsError('ENOENT', 'realpath', p);
    return p;
  }

  // ---- the changesets ----

  plannedChanges(): Promise<PlannedChange[]> {
    return this.own.plannedChanges();
  }

  /** The changes of each mounted tree this command changed (each becomes a changeset of its owner). */
  async mountedChanges(): Promise<MountedChanges[]> {
    const out: MountedChanges[] = [];
    for (const m of this.opened) {
      const changes = await m.fs.plannedChanges();
      if (changes.length) out.push({ area: m.area, slug: m.slug, ownerId: m.ownerId, changes });
    }
    return out;
  }
}

const WRITES = new Set(['open', 'mkdir', 'rm', 'utimes', 'rename', 'cp']);
const isWrite = (syscall: string) => WRITES.has(syscall);

/** An error of the owner's tree (its paths quoted, as fsError writes them), naming the caller's paths. */
function renamed(err: unknown, prefix: string): unknown {
  if (err instanceof Error) err.message = err.message.replace(/'(\/[^']*)'/g, (_m, p: string) => `'${prefix}${p === '/' ? '' : p}'`);
  return err;
}

async function rethrow(fn: () => Promise<void>, prefix: string | null): Promise<void> {
  try {
    await fn();
  } catch (err) {
    throw prefix === null ? err : renamed(err, prefix);
  }
}

export function openJobFs(
  store: Store,
  access: FsAccess,
  trusted?: <T>(fn: () => Promise<T>) => Promise<T>,
  cache?: BlobCache | null,
): { fs: JobFs; end: () => void } {
  const fs = access.viewer ? new MountedFs(store, access, trusted, cache ?? null) : new StoreFs(store, access, trusted, cache ?? null);
  return { fs, end: () => fs.end() };
}

/** A job's filesystem: the caller's tree alone, or with its mounts (mounted-fs.ts). */
export type JobFs = StoreFs | MountedFs;

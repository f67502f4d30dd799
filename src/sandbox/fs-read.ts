/**
 * The reading half of a bash job's filesystem (StoreFs, fs.ts): the caller's tree in the store,
 * read lazily through what this command changed so far (the overlay), as the key may see it —
 * paths outside a folder-scoped key's folder do not exist, its ancestors are directories leading
 * only to it — plus the bulk prefetches a recursive walk or search uses. /dev/null, /dev/stdout
 * and /dev/stderr behave as on Linux.
 */
import { posix } from 'node:path';
import type { FsStat } from './just-bash.js';
import { isWithin } from '../core/paths.js';
import type { NodeKind, NodeRecord, NodeSummary, Store } from '../store/types.js';
import type { BlobCache } from './blob-cache.js';
import { fsError, type FsAccess } from './fs-access.js';

/**
 * A change of this command: a file's new bytes, a directory, or a deletion. `origin` is the path
 * whose file (its identity, and so its history) a live entry carries after an `mv` (fs-plan.ts).
 */
export type Entry =
  { kind: 'file'; bytes: Buffer; mtimeMs: number; origin?: string } | { kind: 'dir'; mtimeMs: number; origin?: string } | { kind: 'deleted' };
export type LiveEntry = Exclude<Entry, { kind: 'deleted' }>;
/** A directory listing entry: from the store's children (full records) or a prefetched walk (summaries, all live). */
type Listed = { path: string; kind: NodeKind; deleted?: boolean };

export const DEVICES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);
/** Above this many contents missing from the worker's cache, a subtree prefetch scans the range instead. */
const MAX_MISSES_BY_HASH = 256;

/** What StoreFs reads (see fs.ts for the job's lifetime): everything but changes. */
export abstract class StoreFsReader {
  // Everything below is one command's state: a worker opens a new StoreFs for every job
  // (openJobFs), so nothing one command read, planned or left running reaches the next.
  protected readonly access: FsAccess;
  protected readonly overlay = new Map<string, Entry>();
  /** Heads as first seen by this command: the versions its changes are based on. */
  protected readonly base = new Map<string, NodeRecord | null>();
  private readonly contents = new Map<string, Buffer>();
  private readonly listed = new Map<string, Listed[]>();
  /** Heads known only in summary (from a prefetched walk); `head` fetches the full record when needed. */
  private readonly summaries = new Map<string, NodeSummary>();
  private readonly prefetched = new Set<string>();
  /** The visible subtrees (null: everything), from folder or folders. */
  protected readonly folders: string[] | null;
  private ended = false;

  constructor(
    private readonly store: Store,
    access: FsAccess,
    private readonly trusted: <T>(fn: () => Promise<T>) => Promise<T> = (fn) => fn(),
    /** Contents kept across commands (a worker's); none for one-off instances. */
    private readonly cache: BlobCache | null = null,
  ) {
    this.access = access;
    this.folders = access.folders ?? (access.folder ? [access.folder] : null);
  }

  /** Ends this filesystem's job: from now on every call throws (see openJobFs). */
  end(): void {
    this.ended = true;
  }

  protected live(): void {
    if (this.ended) throw Object.assign(new Error('EIO: the bash command that used this filesystem has ended'), { code: 'EIO' });
  }

  /** Store access: never once the job ended, and a result arriving after the end is dropped. */
  protected async io<T>(fn: () => Promise<T>): Promise<T> {
    this.live();
    const result = await this.trusted(fn);
    this.live();
    return result;
  }

  /** Store access for a filesystem built on this one (mounted-fs.ts): trusted, and never once the job ended. */
  runTrusted<T>(fn: () => Promise<T>): Promise<T> {
    return this.io(fn);
  }

  /** Records a change of this command (never once its job ended). */
  protected put(p: string, e: Entry): void {
    this.live();
    this.overlay.set(p, e);
  }

  // ---- visibility -------------------------------------------------------------------------

  /** Lexical normalization plus NFC, so `cat café` finds the file whatever form the name came in. */
  protected norm(p: string): string {
    this.live(); // every call with a path starts here
    const n = posix.normalize((p.startsWith('/') ? p : '/' + p).normalize('NFC'));
    return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
  }

  /** 'full' inside the folder (a folder), 'ancestor' on the way to one, 'hidden' elsewhere. */
  protected visibility(p: string): 'full' | 'ancestor' | 'hidden' {
    const folders = this.folders;
    if (!folders) return 'full';
    if (folders.length === 1) {
      const folder = folders[0]!;
      if (isWithin(p, folder)) return 'full';
      return isWithin(folder, p) ? 'ancestor' : 'hidden';
    }
    if (folders.some((f) => isWithin(p, f))) return 'full';
    return folders.some((f) => isWithin(f, p)) ? 'ancestor' : 'hidden';
  }

  // ---- reading ----------------------------------------------------------------------------

  protected async head(p: string): Promise<NodeRecord | null> {
    if (!this.base.has(p)) this.base.set(p, await this.io(() => this.headOf(p)));
    return this.base.get(p)!;
  }

  private pinOf(p: string): number | undefined {
    const below = this.access.pinnedBelow;
    return this.access.pinned?.[p] ?? (below && p.startsWith(below.prefix + '/') ? below.version : undefined);
  }

  /** The node at p, or for a pinned file its pinned version in the node's shape. */
  private async headOf(p: string): Promise<NodeRecord | null> {
    const node = await this.store.getNode(this.access.agentId, p);
    const pin = this.pinOf(p);
    if (pin === undefined || !node) return node;
    const v = await this.store.getVersion(this.access.agentId, p, pin);
    if (!v) return null;
    return {
      ...node,
      kind: v.kind,
      deleted: v.deleted,
      version: v.version,
      blobHash: v.blobHash,
      size: v.size,
      lines: v.lines,
      updatedAtMs: v.updatedAtMs,
    };
  }

  /** The entry at p as this command sees it, or null. */
  protected async lookup(p: string): Promise<LiveEntry | null> {
    if (p === '/') return { kind: 'dir', mtimeMs: 0 };
    const vis = this.visibility(p);
    if (vis === 'hidden') return null;
    const o = this.overlay.get(p);
    if (o) return o.kind === 'deleted' ? null : o;
    const n = this.base.get(p) ?? (this.pinOf(p) === undefined ? this.summaries.get(p) : undefined) ?? (await this.head(p));
    if (!n || ('deleted' in n && n.deleted)) return null; // summaries are live nodes
    if (vis === 'ancestor' && n.kind !== 'dir') return null;
    return n.kind === 'dir' ? { kind: 'dir', mtimeMs: n.updatedAtMs } : { kind: 'file', bytes: Buffer.alloc(0), mtimeMs: n.updatedAtMs };
  }

  protected async bytesOf(p: string, syscall: string): Promise<Buffer> {
    const e = await this.lookup(p);
    if (!e) throw fsError('ENOENT', syscall, p);
    if (e.kind === 'dir') throw fsError('EISDIR', syscall, p);
    const o = this.overlay.get(p);
    if (o?.kind === 'file') return o.bytes;
    const pinned = this.pinOf(p) !== undefined;
    let b = pinned ? undefined : this.contents.get(p);
    if (!b) {
      if (pinned) {
        const hash = (await this.head(p))?.blobHash;
        b = (hash ? await this.io(() => this.store.getBlob(this.access.agentId, hash)) : null) ?? Buffer.alloc(0);
      } else {
        // By hash through the worker's cache when the head is known (lookup above read it): a
        // content in object storage is then fetched once per worker (store/blob-objects.ts).
        const agentId = this.access.agentId;
        const known = this.base.get(p) ?? this.summaries.get(p);
        b = known?.blobHash ? this.cache?.get(agentId, known.blobHash) : undefined;
        if (!b) {
          const node = await this.io(() => this.store.readNode(agentId, p));
          b = node?.content ?? Buffer.alloc(0);
          if (node?.blobHash) this.cache?.set(agentId, node.blobHash, b);
        }
        this.contents.set(p, b);
      }
    }
    return b;
  }

  async readFile(path: string): Promise<string> {
    const p = this.norm(path);
    if (DEVICES.has(p)) return '';
    return (await this.bytesOf(p, 'open')).toString('utf8');
  }

  async readFileBuffer(path: string): Promise<Uint8Array> {
    const p = this.norm(path);
    if (DEVICES.has(p)) return new Uint8Array();
    return this.bytesOf(p, 'open');
  }

  async exists(path: string): Promise<boolean> {
    const p = this.norm(path);
    // Command lookup probes /bin and /usr/bin: commands are built in, never files.
    if (p === '/bin' || p === '/usr/bin' || p.startsWith('/bin/') || p.startsWith('/usr/bin/')) return false;
    if (DEVICES.has(p) || p === '/dev') return true;
    return (await this.lookup(p)) !== null;
  }

  async stat(path: string): Promise<FsStat> {
    const p = this.norm(path);
    if (DEVICES.has(p)) return { isFile: true, isDirectory: false, isSymbolicLink: false, mode: 0o20666, size: 0, mtime: new Date(0) };
    if (p === '/dev') return { isFile: false, isDirectory: true, isSymbolicLink: false, mode: 0o40755, size: 0, mtime: new Date(0) };
    const e = await this.lookup(p);
    if (!e) throw fsError('ENOENT', 'stat', p);
    if (e.kind === 'dir')
      return { isFile: false, isDirectory: true, isSymbolicLink: false, mode: 0o40755, size: 4096, mtime: new Date(e.mtimeMs), identity: p };
    const o = this.overlay.get(p);
    const size = o?.kind === 'file' ? o.bytes.length : (this.base.get(p)?.size ?? this.summaries.get(p)?.size ?? 0);
    return { isFile: true, isDirectory: false, isSymbolicLink: false, mode: 0o100644, size, mtime: new Date(e.mtimeMs), identity: p };
  }

  lstat(path: string): Promise<FsStat> {
    return this.stat(path);
  }

  private async storeChildren(dir: string): Promise<Listed[]> {
    let list = this.listed.get(dir);
    if (!list) {
      const nodes: NodeRecord[] = [];
      for (let after: string | null = null; ;) {
        const page = await this.io(() => this.store.listChildren(this.access.agentId, dir, 1000, after));
        nodes.push(...page.nodes);
        if (!page.nextAfter) break;
        after = page.nextAfter;
      }
      // A pinned file's head is not what the reader sees: head() reads its pinned version.
      for (const n of nodes) if (!this.base.has(n.path) && this.pinOf(n.path) === undefined) this.base.set(n.path, n);
      list = nodes;
      this.listed.set(dir, list);
    }
    return list;
  }

  async readdirWithFileTypes(path: string): Promise<Array<{ name: string; isFile: boolean; isDirectory: boolean; isSymbolicLink: boolean }>> {
    const p = this.norm(path);
    if (p === '/dev') return [...DEVICES].map((d) => ({ name: d.slice(5), isFile: true, isDirectory: false, isSymbolicLink: false }));
    const e = await this.lookup(p);
    if (!e) throw fsError('ENOENT', 'scandir', p);
    if (e.kind !== 'dir') throw fsError('ENOTDIR', 'scandir', p);
    const kinds = new Map<string, 'file' | 'dir'>();
    for (const n of await this.storeChildren(p)) if (!n.deleted) kinds.set(n.path, n.kind);
    const prefix = p === '/' ? '/' : p + '/';
    for (const [q, o] of this.overlay) {
      if (!q.startsWith(prefix) || q.slice(prefix.length).includes('/')) continue;
      if (o.kind === 'deleted') kinds.delete(q);
      else kinds.set(q, o.kind);
    }
    const out: Array<{ name: string; isFile: boolean; isDirectory: boolean; isSymbolicLink: boolean }> = [];
    for (const [q, kind] of kinds) {
      const vis = this.visibility(q);
      if (vis === 'hidden' || (vis === 'ancestor' && kind !== 'dir')) continue;
      out.push({ name: q.slice(prefix.length), isFile: kind === 'file', isDirectory: kind === 'dir', isSymbolicLink: false });
    }
    // Byte order, like the store and like `LC_ALL=C` listings.
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async readdir(path: string): Promise<string[]> {
    return (await this.readdirWithFileTypes(path)).map((d) => d.name);
  }

  /**
   * Loads the content of every file below `dir` in a few bulk queries, so a recursive grep
   * costs O(files / 500) round trips instead of one per file, and nothing at all for contents
   * this worker still holds from an earlier command (by content hash). Bounded by `maxBytes`.
   */
  async prefetchSubtree(dir: string, maxBytes = 64 * 1024 * 1024): Promise<void> {
    const p = this.norm(dir);
    const agentId = this.access.agentId;
    // The walk lists every directory too: one range scan instead of a query per directory.
    await this.prefetchMetadata(p);
    const missing: Array<{ path: string; hash: string }> = [];
    let wanted = 0;
    if (this.prefetched.has(p)) {
      for (const [path, n] of this.summaries) {
        if (n.kind !== 'file' || !n.blobHash || this.contents.has(path) || path === p || !isWithin(path, p)) continue;
        if (this.pinOf(path) !== undefined) continue; // read at its pinned version by bytesOf
        if (wanted >= maxBytes) break;
        wanted += n.size;
        const hit = this.cache?.get(agentId, n.blobHash);
        if (hit) this.contents.set(path, hit);
        else missing.push({ path, hash: n.blobHash });
      }
      if (missing.length <= MAX_MISSES_BY_HASH) {
        for (let i = 0; i < missing.length; i += 500) {
          const batch = missing.slice(i, i + 500);
          const blobs = await this.io(() => this.store.getBlobs(agentId, [...new Set(batch.map((m) => m.hash))]));
          for (const m of batch) {
            const b = blobs.get(m.hash);
            if (!b) continue; // purged meanwhile: read through the head later
            this.contents.set(m.path, b);
            this.cache?.set(agentId, m.hash, b);
          }
        }
        return;
      }
    }
    // Mostly new to this worker: one range scan over the subtree beats a lookup per hash.
    let loaded = 0;
    for (let after: string | null = null; loaded < maxBytes;) {
      const page: { nodes: Array<NodeRecord & { content: Buffer | null }>; nextAfter: string | null } = await this.io(() =>
        this.store.readSubtree(agentId, p, 500, after),
      );
      for (const n of page.nodes) {
        if (this.pinOf(n.path) !== undefined) continue; // read at its pinned version by bytesOf
        if (!this.base.has(n.path)) this.base.set(n.path, n);
        if (!this.contents.has(n.path) && n.content) {
          this.contents.set(n.path, n.content);
          if (n.blobHash) this.cache?.set(agentId, n.blobHash, n.content);
        }
        loaded += n.size;
      }
      if (!page.nextAfter) break;
      after = page.nextAfter;
    }
  }

  /**
   * Loads the metadata of everything below `dir` in a few range scans, so a recursive walk
   * (find, ls -R, du, tree) lists directories from memory. Bounded by `maxEntries`.
   */
  async prefetchMetadata(dir: string, maxEntries = 200_000): Promise<void> {
    const p = this.norm(dir);
    if (this.listed.has(p) && this.prefetched.has(p)) return;
    const byParent = new Map<string, Listed[]>();
    const dirs: string[] = [p];
    let count = 0;
    for (let after: string | null = null; count < maxEntries;) {
      const page: { nodes: NodeSummary[]; nextAfter: string | null } = await this.io(() =>
        this.store.listSubtreeSummary(this.access.agentId, p, 2000, after),
      );
      for (const n of page.nodes) {
        if (!this.base.has(n.path) && !this.summaries.has(n.path)) this.summaries.set(n.path, n);
        const parent = posix.dirname(n.path);
        let list = byParent.get(parent);
        if (!list) byParent.set(parent, (list = []));
        list.push(n);
        if (n.kind === 'dir') dirs.push(n.path);
      }
      count += page.nodes.length;
      if (!page.nextAfter) {
        // Complete: every directory's listing is known (empty ones included).
        for (const d of dirs) if (!this.listed.has(d)) this.listed.set(d, byParent.get(d) ?? []);
        this.prefetched.add(p);
        return;
      }
      after = page.nextAfter;
    }
  }

  // ---- paths ------------------------------------------------------------------------------

  resolvePath(base: string, path: string): string {
    return this.norm(path.startsWith('/') ? path : posix.join(base, path));
  }

  getAllPaths(): string[] {
    this.live();
    return [];
  }

  async chmod(path: string): Promise<void> {
    if (!(await this.lookup(this.norm(path)))) throw fsError('ENOENT', 'chmod', this.norm(path));
  }

  async symlink(_target: string, linkPath: string): Promise<void> {
    throw fsError('EPERM', 'symlink', this.norm(linkPath));
  }

  async link(_existing: string, newPath: string): Promise<void> {
    throw fsError('EPERM', 'link', this.norm(newPath));
  }

  async readlink(path: string): Promise<string> {
    throw fsError('EINVAL', 'readlink', this.norm(path));
  }

  async realpath(path: string): Promise<string> {
    const p = this.norm(path);
    if (!(await this.exists(p))) throw fsError('ENOENT', 'realpath', p);
    return p;
  }
}

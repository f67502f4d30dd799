/**
 * The filesystem a `bash` command sees: the caller's tree in the store, read lazily, with
 * every change buffered in an overlay so one command becomes one changeset (committed by the
 * caller afterwards). Paths outside a folder-scoped key's folder do not exist, its ancestors
 * are directories leading only to it. Writes without the scope fail with EACCES naming it.
 * /dev/null, /dev/stdout and /dev/stderr behave as on Linux and are never stored.
 */
import { posix } from 'node:path';
import type { IFileSystem } from './just-bash.js';
import { checkCreatable, isReservedPath, isWithin, normalizePath } from '../core/paths.js';
import type { PlannedChange } from '../store/types.js';
import { fsError } from './fs-access.js';
import { planChanges } from './fs-plan.js';
import { DEVICES, StoreFsReader } from './fs-read.js';

export type { FsAccess } from './fs-access.js';

/**
 * The filesystem of one job, which dies with it: after `end()` every call on it throws, and so
 * does every call still under way at its next step (store access or change), so a command the
 * interpreter abandoned at its deadline, still awaiting the store, can neither read the store nor
 * plan a change once its job ended, whatever job the worker runs next (a timed-out
 * `find -delete` deleted the next agent's file). A flag rather than a revocable Proxy: the proxy
 * cost ~5% of a recursive grep's filesystem work (stat + read of 10,000 files: 250 vs 238 ms).
 */
export class StoreFs extends StoreFsReader implements IFileSystem {
  // ---- writing ----------------------------------------------------------------------------

  private checkWritable(p: string, syscall: string, need: 'write' | 'delete' = 'write'): void {
    // Names bash creates obey the same rules as the file tools', or no other tool could reach them.
    if (need === 'write') {
      try {
        normalizePath(p);
      } catch (err) {
        const reason = String((err as { details?: { reason?: string } }).details?.reason ?? '');
        throw fsError(/longer/.test(reason) ? 'ENAMETOOLONG' : 'EINVAL', syscall, p);
      }
    }
    if (this.visibility(p) !== 'full') throw fsError('EACCES', syscall, p);
    // A read-only share (or a published item): a read-only file system, as a read-only mount says.
    const writable = this.access.writeFolders;
    if (writable && !writable.some((f) => isWithin(p, f))) throw fsError('EROFS', syscall, p);
    // Permission denied naming the scope, as the file tools' INSUFFICIENT_SCOPE does: a "read-only
    // file system" sent agents looking for a storage fault.
    if (need === 'write' ? !this.access.canWrite : !this.access.canDelete) throw fsError('EACCES', syscall, p, `files:${need}`);
    if (isReservedPath(p)) throw fsError('EROFS', syscall, p);
    if (need === 'write') {
      // The file tools' rule for new names (reserved /dev, invisible characters), as a filesystem would say it.
      try {
        checkCreatable(p);
      } catch (err) {
        throw fsError((err as { details?: { reserved?: string } }).details?.reserved ? 'EROFS' : 'EINVAL', syscall, p);
      }
    }
  }

  private async requireParentDir(p: string, syscall: string): Promise<void> {
    const parent = posix.dirname(p);
    const e = await this.lookup(parent);
    if (!e) throw fsError('ENOENT', syscall, p);
    if (e.kind !== 'dir') throw fsError('ENOTDIR', syscall, p);
  }

  /** Strings are text unless the caller names an encoding: 'binary'/'latin1' strings carry one byte per char. */
  private toBuffer(content: string | Uint8Array, options?: string | { encoding?: string | null } | null): Buffer {
    if (typeof content !== 'string') return Buffer.from(content);
    const encoding = typeof options === 'string' ? options : options?.encoding;
    if (encoding === 'binary' || encoding === 'latin1') return Buffer.from(content, 'latin1');
    if (encoding === 'hex' || encoding === 'base64') return Buffer.from(content, encoding);
    return Buffer.from(content, 'utf8');
  }

  async writeFile(path: string, content: string | Uint8Array, options?: string | { encoding?: string | null } | null): Promise<void> {
    const p = this.norm(path);
    if (DEVICES.has(p)) return;
    this.checkWritable(p, 'open');
    const e = await this.lookup(p);
    if (e?.kind === 'dir') throw fsError('EISDIR', 'open', p);
    if (!e) await this.requireParentDir(p, 'open');
    this.putFile(p, this.toBuffer(content, options));
  }

  async appendFile(path: string, content: string | Uint8Array, options?: string | { encoding?: string | null } | null): Promise<void> {
    const p = this.norm(path);
    if (DEVICES.has(p)) return;
    this.checkWritable(p, 'open');
    const e = await this.lookup(p);
    if (e?.kind === 'dir') throw fsError('EISDIR', 'open', p);
    const before = e ? await this.bytesOf(p, 'open') : (await this.requireParentDir(p, 'open'), Buffer.alloc(0));
    this.putFile(p, Buffer.concat([before, this.toBuffer(content, options)]));
  }

  /** New bytes for the file at p; a file moved there (mv) stays the file it was (its origin). */
  private putFile(p: string, bytes: Buffer): void {
    const prev = this.overlay.get(p);
    const origin = prev?.kind === 'file' ? prev.origin : undefined;
    this.put(p, { kind: 'file', bytes, mtimeMs: Date.now(), ...(origin ? { origin } : {}) });
  }

  async mkdir(path: string, options?: { recursive?: boolean }): Promise<void> {
    const p = this.norm(path);
    const e = await this.lookup(p);
    if (e) {
      if (options?.recursive && e.kind === 'dir') return;
      throw fsError('EEXIST', 'mkdir', p);
    }
    this.checkWritable(p, 'mkdir');
    const parent = posix.dirname(p);
    const pe = await this.lookup(parent);
    if (!pe) {
      if (!options?.recursive) throw fsError('ENOENT', 'mkdir', p);
      await this.mkdir(parent, { recursive: true });
    } else if (pe.kind !== 'dir') {
      throw fsError('ENOTDIR', 'mkdir', p);
    }
    this.put(p, { kind: 'dir', mtimeMs: Date.now() });
  }

  /** Every visible path strictly below `dir`, as this command sees the tree. */
  private async descendants(dir: string): Promise<Array<{ path: string; kind: 'file' | 'dir' }>> {
    const out: Array<{ path: string; kind: 'file' | 'dir' }> = [];
    for (const child of await this.readdirWithFileTypes(dir)) {
      const q = dir === '/' ? `/${child.name}` : `${dir}/${child.name}`;
      out.push({ path: q, kind: child.isDirectory ? 'dir' : 'file' });
      if (child.isDirectory) out.push(...(await this.descendants(q)));
    }
    return out;
  }

  async rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void> {
    const p = this.norm(path);
    const e = await this.lookup(p);
    if (!e) {
      if (options?.force) return;
      throw fsError('ENOENT', 'rm', p);
    }
    if (p === '/') throw fsError('EPERM', 'rm', p);
    this.checkWritable(p, 'rm', 'delete');
    if (e.kind === 'dir') {
      const below = await this.descendants(p);
      if (below.length && !options?.recursive) throw fsError('ENOTEMPTY', 'rm', p);
      for (const d of below) this.put(d.path, { kind: 'deleted' });
    }
    this.put(p, { kind: 'deleted' });
  }

  async cp(src: string, dest: string, options?: { recursive?: boolean }): Promise<void> {
    const s = this.norm(src);
    const d = this.norm(dest);
    const e = await this.lookup(s);
    if (!e) throw fsError('ENOENT', 'cp', s);
    if (e.kind === 'dir') {
      if (!options?.recursive) throw fsError('EISDIR', 'cp', s);
      if (isWithin(d, s)) throw fsError('EINVAL', 'cp', d);
      const below = await this.descendants(s);
      await this.mkdir(d, { recursive: true });
      for (const x of below) {
        const target = d + x.path.slice(s.length);
        if (x.kind === 'dir') await this.mkdir(target, { recursive: true });
        else await this.writeFile(target, await this.bytesOf(x.path, 'cp'));
      }
      return;
    }
    await this.writeFile(d, await this.bytesOf(s, 'cp'));
  }

  async mv(src: string, dest: string): Promise<void> {
    const s = this.norm(src);
    const d = this.norm(dest);
    const e = await this.lookup(s);
    if (!e) throw fsError('ENOENT', 'rename', s);
    // A read-only key hears of files:write first: the scope a move needs before files:delete.
    if (!this.access.canWrite) this.checkWritable(d, 'rename');
    this.checkWritable(s, 'rename', 'delete');
    if (isWithin(d, s) && d !== s) throw fsError('EINVAL', 'rename', d);
    if (d === s) return;
    // What moves keeps its identity (fs-plan.ts): its history follows it, as with the move tool.
    const moving = [s, ...(e.kind === 'dir' ? (await this.descendants(s)).map((x) => x.path) : [])];
    await this.cp(s, d, { recursive: true });
    for (const from of moving) this.carryIdentity(from, d + from.slice(s.length));
    await this.rm(s, { recursive: true });
  }

  /** The entry just copied to `to` is the file (or directory) at `from`, moved: it takes its origin. */
  private carryIdentity(from: string, to: string): void {
    const e = this.overlay.get(to);
    if (!e || e.kind === 'deleted') return;
    const o = this.overlay.get(from);
    this.put(to, { ...e, origin: (o && o.kind !== 'deleted' ? o.origin : undefined) ?? from });
  }

  async utimes(path: string): Promise<void> {
    // Times are the store's: a version is only recorded when content changes. Still, touching
    // needs write access, as on a read-only mount.
    const p = this.norm(path);
    if (!(await this.lookup(p))) throw fsError('ENOENT', 'utimes', p);
    this.checkWritable(p, 'utimes');
  }

  // ---- the changeset ----------------------------------------------------------------------

  /** The planned changes this command made, against the heads it saw; unchanged content is skipped. */
  async plannedChanges(): Promise<PlannedChange[]> {
    this.live();
    return planChanges(this.overlay, (p) => this.head(p));
  }
}

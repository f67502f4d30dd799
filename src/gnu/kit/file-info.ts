/**
 * What the store has no notion of, and the fixed values ls, stat and du show instead:
 *   - blocks: a file occupies ceil(size / 4096) 4 KiB blocks (ext4's allocation for a
 *     non-sparse file), a directory one; `total`, -s, stat's Blocks and du count these;
 *   - owner and group: `agent` / `agent`, uid and gid 1000;
 *   - link count: 1 for a file; 2 + its number of subdirectories for a directory (as on ext4);
 *   - inode: a stable 32-bit hash of the path (FNV-1a), never 0; device 0,42 (stat);
 *   - atime and ctime are the mtime; birth time is unknown (stat prints `-`).
 * And the ways GNU prints sizes, modes and times.
 */
import { Buffer } from 'node:buffer';
import type { FsStat, IFileSystem } from './command.js';

export const OWNER = 'agent';
export const GROUP = 'agent';
export const UID = 1000;
export const GID = 1000;

/** 1 KiB blocks allocated for an entry (ext4-like: whole 4 KiB blocks; a directory takes one). */
export function kib(st: FsStat): number {
  if (st.isDirectory) return 4;
  if (!st.isFile || isDevice(st)) return 0;
  return Math.ceil(st.size / 4096) * 4;
}

export function isDevice(st: FsStat): boolean {
  const t = st.mode & 0o170000;
  return t === 0o020000 || t === 0o060000;
}

/** A stable fake inode number for a path. */
export function inode(path: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(path, 'utf8')) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h === 0 ? 1 : h;
}

/** Link count: 1 for files, 2 + subdirectories for directories (as on ext4). */
export async function linkCount(fs: IFileSystem, path: string, st: FsStat): Promise<number> {
  if (!st.isDirectory) return 1;
  try {
    const kids = await fs.readdirWithFileTypes!(path);
    return 2 + kids.filter((k) => k.isDirectory).length;
  } catch {
    return 2;
  }
}

/** The ten-character mode string (`-rw-r--r--`). */
export function modeString(st: FsStat): string {
  const m = st.mode;
  const t = m & 0o170000;
  const type = st.isDirectory
    ? 'd'
    : st.isSymbolicLink
      ? 'l'
      : t === 0o020000
        ? 'c'
        : t === 0o060000
          ? 'b'
          : t === 0o010000
            ? 'p'
            : t === 0o140000
              ? 's'
              : '-';
  const rwx = (bits: number, special: boolean, ch: string) =>
    (bits & 4 ? 'r' : '-') + (bits & 2 ? 'w' : '-') + (special ? (bits & 1 ? ch : ch.toUpperCase()) : bits & 1 ? 'x' : '-');
  return type + rwx((m >> 6) & 7, (m & 0o4000) !== 0, 's') + rwx((m >> 3) & 7, (m & 0o2000) !== 0, 's') + rwx(m & 7, (m & 0o1000) !== 0, 't');
}

/** Permission bits of a mode (as GNU's %a): type bits stripped. */
export function permBits(st: FsStat): number {
  return st.mode & 0o7777;
}

const SUFFIXES = 'KMGTPEZYRQ';

/**
 * GNU human_readable with human_ceiling | human_autoscale | human_base_1024 | human_SI:
 * `1023`, `1.0K`, `2.1K` (2049 bytes, rounded up), `10K`, `40K`, `1.0M`.
 */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return String(bytes);
  let e = 0;
  let div = 1;
  while (Math.floor(bytes / (div * 1024)) >= 1024 && e < SUFFIXES.length - 1) {
    div *= 1024;
    e++;
  }
  div *= 1024;
  const amt = Math.floor(bytes / div);
  if (amt < 10) {
    const tenths = Math.ceil((bytes * 10) / div);
    if (tenths < 100) return `${Math.floor(tenths / 10)}.${tenths % 10}${SUFFIXES[e]}`;
    return `10${SUFFIXES[e]}`;
  }
  const v = Math.ceil(bytes / div);
  if (v >= 1024 && e < SUFFIXES.length - 1) return `1.0${SUFFIXES[e + 1]}`;
  return `${v}${SUFFIXES[e]}`;
}

export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
export const p2 = (n: number) => String(n).padStart(2, '0');

/** `2026-01-02 03:04:05.678000000 +0000` (UTC, nanoseconds from the millisecond mtime). */
export function fullTime(d: Date): string {
  const ms = d.getTime();
  const nanos = String(((ms % 1000) + 1000) % 1000).padStart(3, '0') + '000000';
  return `${isoDate(d)} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${nanos} +0000`;
}

export function isoDate(d: Date): string {
  const y = d.getUTCFullYear();
  return `${y < 0 ? '-' + String(-y).padStart(4, '0') : String(y).padStart(4, '0')}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())}`;
}

/** Seconds since the epoch (floor), as %Y. */
export function epochSeconds(d: Date): number {
  return Math.floor(d.getTime() / 1000);
}

/**
 * A mount point a recursive walk does not enter unless it started there or below (the service's
 * /shared and /published, listed at /: skill.md, "Working with other agents' files"). Like `-xdev` for those
 * two: `find /`, `du /`, `tree /`, `ls -R /` and `grep -r x /` show them and stay out.
 */
export function isMountPoint(fs: IFileSystem, path: string): boolean {
  return (fs as IFileSystem & { isMountPoint?: (p: string) => boolean }).isMountPoint?.(path) ?? false;
}

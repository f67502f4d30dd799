/** What a bash job's filesystem may see and change (StoreFs), and the Node-style errors it throws. */

export interface FsAccess {
  agentId: string;
  folder: string | null;
  canWrite: boolean;
  canDelete: boolean;
  /** Several visible subtrees instead of one folder: a mount's grants (shares, published items). */
  folders?: string[];
  /** Where writes are allowed (a mount's write shares); elsewhere a write is EROFS. Absent: wherever visible. */
  writeFolders?: string[];
  /** Files shown at a pinned version, not their head (published files): path → version. */
  pinned?: Record<string, number>;
  /** Everything below `prefix` shown at `version` (post attachments: their copies' first version). */
  pinnedBelow?: { prefix: string; version: number };
  /** bash of an agent on its own tree: /shared and /published resolve for it (mounted-fs.ts). */
  viewer?: { agentId: string };
}

/** A Node-style filesystem error (code, syscall, path), as just-bash's commands expect them. */
export function fsError(code: string, syscall: string, path: string, lacks?: string): Error {
  const text: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EEXIST: 'file already exists',
    EISDIR: 'illegal operation on a directory',
    ENOTDIR: 'not a directory',
    ENOTEMPTY: 'directory not empty',
    EROFS: 'read-only file system',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EINVAL: 'invalid argument',
    ENAMETOOLONG: 'file name too long',
    EXDEV: 'cross-device link not permitted',
  };
  // A missing scope is named in the message too: just-bash's own commands print only the message.
  const why = lacks ? `${text[code] ?? code} (this key lacks ${lacks})` : (text[code] ?? code);
  const err = new Error(`${code}: ${why}, ${syscall} '${path}'`) as Error & { code: string; lacks?: string };
  err.code = code;
  if (lacks) err.lacks = lacks;
  return err;
}

/** The C library's words for the errno codes StoreFs raises, as GNU tools print them. */
export const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'No such file or directory',
  ENOTDIR: 'Not a directory',
  EISDIR: 'Is a directory',
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  ELOOP: 'Too many levels of symbolic links',
  EROFS: 'Read-only file system',
  EINVAL: 'Invalid argument',
  ENAMETOOLONG: 'File name too long',
};

/** The errno code of a filesystem error: its `code`, or the "CODE: …" prefix of its message. */
export function errnoCode(err: unknown): string | undefined {
  const e = err as { code?: string; message?: string } | undefined;
  return e?.code ?? /^([A-Z]+):/.exec(String(e?.message ?? ''))?.[1];
}

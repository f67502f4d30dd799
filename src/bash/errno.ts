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
  EEXIST: 'File exists',
  ENOTEMPTY: 'Directory not empty',
};

/** The errno code of a filesystem error: its `code`, or the "CODE: …" prefix of its message. */
export function errnoCode(err: unknown): string | undefined {
  const e = err as { code?: string; message?: string } | undefined;
  return e?.code ?? /^([A-Z]+):/.exec(String(e?.message ?? ''))?.[1];
}

/** How a refusal for a scope the key lacks reads inside an error message ("… (this key lacks files:delete)"). */
const LACKS = /\(this key lacks ([\w:]+)\)/;

/** The scope a filesystem error says the key lacks, if that is why it failed. */
export function lackedScope(err: unknown): string | undefined {
  const e = err as { lacks?: string; message?: string } | undefined;
  return e?.lacks ?? LACKS.exec(String(e?.message ?? ''))?.[1];
}

/**
 * GNU's words for a filesystem error, naming the scope when a missing one is the cause:
 * "Permission denied (this key lacks files:delete)", never "Read-only file system", which
 * sent agents looking for a mount problem.
 */
export function gnuErrorText(err: unknown, fallback = 'ENOENT'): string {
  const scope = lackedScope(err);
  if (scope) return `${ERRNO_TEXT.EACCES} (this key lacks ${scope})`;
  return ERRNO_TEXT[errnoCode(err) ?? ''] ?? ERRNO_TEXT[fallback]!;
}

/**
 * Node-style errors that just-bash's own commands (mkdir, cp, mv, touch, rmdir) print as they
 * are ("mkdir: cannot create directory '/d': EACCES: permission denied (…), mkdir '/d'"),
 * in GNU's words ("…: Permission denied (this key lacks files:write)").
 */
export function gnuErrnoMessages(stderr: string): string {
  return stderr.replace(/(E[A-Z]+): ([^,\n]*), [a-z]+ '[^'\n]*'/g, (whole, code: string, text: string) =>
    ERRNO_TEXT[code] ? gnuErrorText({ code, message: text }) : whole,
  );
}

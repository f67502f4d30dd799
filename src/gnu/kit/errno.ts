/**
 * The C library's words for errno codes, as GNU tools print them, and the one way every command
 * turns a filesystem error into them: by the error's `code` (StoreFs and MountedFs set it; the
 * message's "CODE: …" prefix is read only for errors that carry no code).
 */

export const ERRNO_TEXT: Readonly<Record<string, string>> = {
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
  ENOSPC: 'No space left on device',
  EFBIG: 'File too large',
  // mv across owners (/shared, /published and your tree): refused like the move tool.
  EXDEV: "Invalid cross-device link (another owner's files: cp, then rm the source)",
};

/** The errno code of a filesystem error: its `code`, else the "CODE: …" prefix of its message. */
export function errnoCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  if (typeof e?.code === 'string') return e.code;
  return /^([A-Z]+):/.exec(String(e?.message ?? ''))?.[1];
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
 * sent agents looking for a mount problem. A code outside the table reads as `fallback`'s
 * words, or, with `fallback` null, as the error's own message without its "CODE: " prefix.
 */
export function errnoMessage(err: unknown, fallback: string | null = 'ENOENT'): string {
  const scope = lackedScope(err);
  if (scope) return `${ERRNO_TEXT.EACCES} (this key lacks ${scope})`;
  const text = ERRNO_TEXT[errnoCode(err) ?? ''];
  if (text !== undefined) return text;
  if (fallback !== null) return ERRNO_TEXT[fallback]!;
  return String((err as { message?: string })?.message ?? err).replace(/^[A-Z]+: /, '');
}

/**
 * Node-style errors that just-bash's own commands (mkdir, cp, mv, touch, rmdir) print as they
 * are ("mkdir: cannot create directory '/d': EACCES: permission denied (…), mkdir '/d'"),
 * in GNU's words ("…: Permission denied (this key lacks files:write)"). Only their text reaches
 * us, so this one reads it.
 */
export function gnuErrnoMessages(stderr: string): string {
  return stderr.replace(/(E[A-Z]+): ([^,\n]*), [a-z]+ '[^'\n]*'/g, (whole, code: string, text: string) =>
    ERRNO_TEXT[code] ? errnoMessage({ code, message: text }) : whole,
  );
}

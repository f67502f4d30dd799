/**
 * Path rules (docs/contract/files.md#paths): absolute, '/'-separated, UTF-8, NFC, case-sensitive.
 * '.' and '//' collapse, '..' resolves lexically and may not rise above '/', a trailing '/'
 * is dropped. Everything is checked here so no other layer ever sees a raw client path.
 */
import { ToolError } from './errors.js';
import { identifierProblem } from './identifier.js';
import { quoteShort } from './text.js';

export const MAX_PATH_BYTES = 1024;
export const MAX_SEGMENT_BYTES = 255;

// C0 controls, DEL and C1 controls: never part of a valid name.
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
// A UTF-16 surrogate without its pair (JSON "\ud800") is not Unicode text, so it has no UTF-8 form:
// stores would keep it as mangled bytes (SQLite) or U+FFFD (PostgreSQL) under a name nobody can address.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function invalid(input: string, reason: string, hint: string): ToolError {
  return new ToolError('INVALID_PATH', `Invalid path ${quoteShort(input, 100)}: ${reason}. ${hint}`, {
    path: input,
    reason,
  });
}

/**
 * A path already in normal form whose every rule below holds by construction: ASCII names of 1 to
 * 255 letters, digits and `._@+-` (not `.` or `..`), no empty segment, no trailing '/'. Most paths
 * agents send look like this, and every tool call normalizes its paths (a mounted call three
 * times), so these skip the NFC pass, the split and the byte counts.
 */
const ALREADY_NORMAL = /^(?:\/(?!\.\.?(?:\/|$))[A-Za-z0-9._@+-]{1,255})+$/;

/** Normalizes a client path, or throws INVALID_PATH saying exactly which rule it broke. */
export function normalizePath(input: string, field = 'path'): string {
  if (typeof input === 'string' && input.length <= MAX_PATH_BYTES && ALREADY_NORMAL.test(input)) return input;
  if (typeof input !== 'string' || input.length === 0) {
    throw invalid(String(input ?? ''), 'empty', `Give an absolute path such as "/notes/todo.md" in '${field}'.`);
  }
  const controlMatch = CONTROL_CHARS.exec(input);
  if (controlMatch) {
    const cp = controlMatch[0].codePointAt(0)!;
    const what = cp === 0 ? 'NUL character' : `control character U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
    throw invalid(input, `contains a ${what}`, 'Remove control characters from the path.');
  }
  if (LONE_SURROGATE.test(input)) {
    throw invalid(input, 'contains an unpaired UTF-16 surrogate (not valid Unicode)', 'Send the path as valid UTF-8 text.');
  }
  if (input.startsWith('~')) {
    throw invalid(input, "'~' expansion is not supported", 'There is no home directory: use an absolute path starting with "/".');
  }
  if (!input.startsWith('/')) {
    throw invalid(input, 'not absolute', `Paths start with "/", e.g. "/${input}".`);
  }
  if (input.includes('\\')) {
    throw invalid(input, 'contains a backslash', 'Separate directories with "/", not "\\".');
  }
  const nfc = input.normalize('NFC');
  const out: string[] = [];
  for (const segment of nfc.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) throw invalid(input, "'..' rises above '/'", 'Remove the extra "..": nothing exists above the root.');
      out.pop();
      continue;
    }
    if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES) {
      throw invalid(input, `a name is longer than ${MAX_SEGMENT_BYTES} bytes`, 'Shorten that file or directory name.');
    }
    out.push(segment);
  }
  const normalized = '/' + out.join('/');
  if (Buffer.byteLength(normalized, 'utf8') > MAX_PATH_BYTES) {
    throw invalid(input, `longer than ${MAX_PATH_BYTES} bytes`, 'Use a shorter path.');
  }
  return normalized;
}

export function parentOf(path: string): string {
  if (path === '/') return '/';
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

export function baseName(path: string): string {
  return path === '/' ? '/' : path.slice(path.lastIndexOf('/') + 1);
}

/** Every proper ancestor, outermost first, excluding '/'. ('/a/b/c' → ['/a', '/a/b']) */
export function ancestorsOf(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  const result: string[] = [];
  for (let i = 1; i < parts.length; i++) result.push('/' + parts.slice(0, i).join('/'));
  return result;
}

/** Component-wise containment: '/a/b' contains '/a/b' and '/a/b/c', never '/a/bc'. */
export function isWithin(path: string, folder: string): boolean {
  if (folder === '/') return true;
  return path === folder || path.startsWith(folder + '/');
}

/** Upper bound for a byte-ordered range scan of everything strictly below `dir`. */
export function subtreeRange(dir: string): { lo: string; hi: string } {
  const prefix = dir === '/' ? '/' : dir + '/';
  // '0' is the character right after '/', so [prefix, prefix-with-'/'-bumped) is the subtree.
  return { lo: prefix, hi: prefix.slice(0, -1) + '0' };
}

/** The mount a reserved path is in (/shared or /published), or null. */
export function reservedMount(path: string): '/shared' | '/published' | null {
  return isWithin(path, '/shared') ? '/shared' : isWithin(path, '/published') ? '/published' : null;
}

/** True if a mount of other agents' files (/shared, /published) or something under it is named. */
export function isReservedPath(path: string): boolean {
  return reservedMount(path) !== null;
}

function mountRefusal(path: string, mount: '/shared' | '/published'): ToolError {
  const what = mount === '/shared' ? 'files other agents shared with you' : 'what agents published (read-only)';
  return new ToolError(
    'INVALID_PATH',
    `${path} is inside ${mount}, the mount of ${what}: nobody creates their own ${mount}. ` +
      (mount === '/shared' ? 'Write inside a share you were given write permission on, or somewhere else.' : 'Write somewhere else.'),
    { path, reason: 'reserved', reserved: mount },
  );
}

/**
 * The names of new files and directories, checked in this one place for every tool that creates
 * (write, append, mkdir, edit, copy/move targets, restore, revert_changeset) and for bash:
 * - /shared and /published are the mounts of other agents' files (tools/mounts.ts routes them);
 * - /dev is bash's: /dev/null, /dev/stdout and /dev/stderr are devices there, so a stored
 *   /dev/null would be invisible to bash and `> /dev/null` would never reach it. Files an agent
 *   created under /dev before this rule stay readable, deletable and movable elsewhere;
 * - every name obeys the identifier rule (core/identifier.ts): no invisible characters, no bidi
 *   controls, which would make one name look like another in listings. Existing names that
 *   break it can still be read, deleted and moved to a valid name.
 * Throws INVALID_PATH with details.reason ('reserved', or what the name contains).
 */
export function checkCreatable(path: string): void {
  const mount = reservedMount(path);
  if (mount) throw mountRefusal(path, mount);
  if (isWithin(path, '/dev')) {
    throw new ToolError(
      'INVALID_PATH',
      `${quoteShort(path, 100)} is inside /dev, which is reserved for bash's devices (/dev/null, /dev/stdout, /dev/stderr): ` +
        'bash would hide a file there. Write somewhere else (files already there can be read, deleted, or moved out).',
      { path, reason: 'reserved', reserved: '/dev' },
    );
  }
  for (const name of path.split('/')) {
    const problem = identifierProblem(name);
    if (problem) {
      throw new ToolError(
        'INVALID_PATH',
        `Invalid path ${quoteShort(path, 100)}: the name ${quoteShort(name, 60)} contains ${problem.reason}. ` +
          'Use visible characters only (an existing file with such a name can be read, deleted, or moved to a valid name).',
        { path, reason: `contains ${problem.reason}`, codePoint: problem.codePoint },
      );
    }
  }
}

/** What may never be removed or moved away: the mounts (files under /dev may go). */
export function checkRemovable(path: string): void {
  const mount = reservedMount(path);
  if (mount) throw mountRefusal(path, mount);
}

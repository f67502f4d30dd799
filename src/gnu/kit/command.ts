/**
 * The command type every GNU command here is written against, and just-bash's runtime helpers.
 * The helpers must be the thread's one just-bash instance's (the patched bundle): the sandbox that
 * loads it binds them here (sandbox/just-bash.ts calls bindJustBash), so src/gnu imports nothing
 * of src/sandbox (sandbox uses the GNU commands, not the reverse). Types come from the package.
 */
import type * as JustBash from 'just-bash';
import type { Command } from 'just-bash';

export type { Command, CustomCommand, FsStat, IFileSystem } from 'just-bash';

/** What the GNU commands call of just-bash at run time. */
export type JustBashHelpers = Pick<typeof JustBash, 'defineCommand' | 'latin1FromBytes' | 'decodeBytesToUtf8'>;

let bound: JustBashHelpers | null = null;

/** Called once per thread by the module that loads just-bash. */
export function bindJustBash(helpers: JustBashHelpers): void {
  bound = helpers;
}

function helpers(): JustBashHelpers {
  if (!bound) throw new Error('GNU commands: just-bash is not loaded on this thread (import sandbox/just-bash.ts first)');
  return bound;
}

export const defineCommand: JustBashHelpers['defineCommand'] = (...args) => helpers().defineCommand(...args);
export const latin1FromBytes: JustBashHelpers['latin1FromBytes'] = (b) => helpers().latin1FromBytes(b);
export const decodeBytesToUtf8: JustBashHelpers['decodeBytesToUtf8'] = (b, maxBytes) => helpers().decodeBytesToUtf8(b, maxBytes);

/** What a command's execute() is given: arguments aside, the filesystem, cwd, stdin, limits. */
export type Ctx = Parameters<Command['execute']>[1];
/** What a command's execute() returns. */
export type Result = Awaited<ReturnType<Command['execute']>>;

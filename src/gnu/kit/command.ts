/**
 * The command type every GNU command here is written against, and just-bash's runtime helpers.
 * They come from the service's loader (one just-bash instance per thread, the patched bundle):
 * this is the one place the GNU commands reach outside src/gnu.
 */
import type { Command } from 'just-bash';

export { defineCommand, latin1FromBytes, decodeBytesToUtf8 } from '../../sandbox/just-bash.js';
export type { Command, CustomCommand, FsStat, IFileSystem } from 'just-bash';

/** What a command's execute() is given: arguments aside, the filesystem, cwd, stdin, limits. */
export type Ctx = Parameters<Command['execute']>[1];
/** What a command's execute() returns. */
export type Result = Awaited<ReturnType<Command['execute']>>;

/**
 * GNU-faithful replacements and wrappers for just-bash commands where its behaviour differs
 * in ways agents would misread (see shared/research/just-bash.md). Filled in per command.
 */
import type { CustomCommand, IFileSystem } from './just-bash.js';
import { grepCommands } from './grep.js';
import { lsCommand } from './ls.js';
import { statCommand } from './stat.js';
import { duCommand } from './du.js';
import { rmCommand } from './rm.js';
import { textCommands } from './textutils.js';
import { findCommand } from './find.js';
import { treeCommand } from './tree.js';
import { writerCommands } from './writers.js';
import { xargsCommand } from './xargs.js';
import { diffCommand } from './diff.js';
import { lineCommands } from './lines.js';
import { awkCommand } from './awk.js';
import { odCommand } from './od.js';
import { systemCommands } from './sysutils.js';

/**
 * `fs`, when given, returns the filesystem of the job now running (the one the Bash instance
 * runs on): commands that read many files (grep -r, find) call it once when they start and read
 * that filesystem directly instead of through just-bash's per-command context membrane, which
 * copies every buffer it returns. They never keep one across commands.
 */
export function installGnuCommands(fs?: () => IFileSystem): CustomCommand[] {
  return [
    ...grepCommands(fs),
    lsCommand(),
    statCommand(),
    duCommand(),
    rmCommand(),
    ...textCommands(),
    findCommand(fs),
    treeCommand(),
    ...writerCommands(),
    xargsCommand(),
    diffCommand(),
    ...lineCommands(),
    awkCommand(),
    odCommand(),
    ...systemCommands(),
  ];
}

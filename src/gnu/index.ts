/**
 * GNU-faithful replacements and wrappers for just-bash commands where its behaviour differs
 * in ways agents would misread (see shared/research/just-bash.md). Filled in per command.
 */
import type { CustomCommand, IFileSystem } from './kit/command.js';
import { grepCommands } from './grep/grep.js';
import { lsCommand } from './ls/ls.js';
import { statCommand } from './stat/stat.js';
import { duCommand } from './du/du.js';
import { rmCommand } from './rm/rm.js';
import { catCommand } from './cat/cat.js';
import { headCommand } from './head/head.js';
import { sortCommand } from './sort/sort.js';
import { tailCommand } from './tail/tail.js';
import { uniqCommand } from './uniq/uniq.js';
import { wcCommand } from './wc/wc.js';
import { findCommand } from './find/find.js';
import { treeCommand } from './tree/tree.js';
import { sedCommand } from './sed/sed.js';
import { teeCommand } from './tee/tee.js';
import { xargsCommand } from './xargs/xargs.js';
import { diffCommand } from './diff/diff.js';
import { tacCommand } from './tac/tac.js';
import { nlCommand } from './nl/nl.js';
import { awkCommand } from './awk/awk.js';
import { odCommand } from './od/od.js';
import { whichCommand } from './which/which.js';
import { fileCommand } from './file/file.js';
import { chmodCommand } from './chmod/chmod.js';
import { fileOpCommands } from './file-ops/file-ops.js';

/**
 * `fs`, when given, returns the filesystem of the job now running (the one the Bash instance
 * runs on): commands that read many files (grep -r, find) call it once when they start and read
 * that filesystem directly instead of through just-bash's per-command context membrane, which
 * copies every buffer it returns. They never keep one across commands.
 */
export function installGnuCommands(fs?: () => IFileSystem, offered: readonly string[] = []): CustomCommand[] {
  return [
    ...grepCommands(fs),
    lsCommand(fs),
    statCommand(),
    duCommand(fs),
    rmCommand(),
    headCommand(),
    tailCommand(),
    wcCommand(),
    catCommand(),
    sortCommand(),
    uniqCommand(),
    findCommand(fs),
    treeCommand(fs),
    teeCommand(),
    sedCommand(),
    xargsCommand(),
    diffCommand(),
    tacCommand(),
    nlCommand(),
    awkCommand(),
    odCommand(),
    whichCommand(offered),
    fileCommand(),
    chmodCommand(),
    ...fileOpCommands(),
  ];
}

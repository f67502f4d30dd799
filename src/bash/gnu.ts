/**
 * GNU-faithful replacements and wrappers for just-bash commands where its behaviour differs
 * in ways agents would misread (see shared/research/just-bash.md). Filled in per command.
 */
import type { CustomCommand } from 'just-bash';
import { grepCommands } from './grep.js';
import { rmCommand } from './rm.js';

export function installGnuCommands(): CustomCommand[] {
  return [...grepCommands(), rmCommand()];
}

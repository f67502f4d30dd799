/**
 * The commands `bash` offers: exploration, text tools and the file-changing basics. Anything
 * else answers `bash: NAME: command not found` (exit 127), just-bash's other commands included.
 * No `ln`: the store has no links (every form of it failed).
 */
export const BASH_COMMANDS = [
  'ls',
  'tree',
  'find',
  'grep',
  'egrep',
  'fgrep',
  'cat',
  'head',
  'tail',
  'stat',
  'wc',
  'du',
  'sort',
  'uniq',
  'cut',
  'tr',
  'echo',
  'printf',
  'pwd',
  'basename',
  'dirname',
  'diff',
  'jq',
  'sed',
  'awk',
  'xargs',
  'true',
  'false',
  'mkdir',
  'rmdir',
  'touch',
  'cp',
  'mv',
  'rm',
  'tee',
  'nl',
  'tac',
  'rev',
  'paste',
  'comm',
  'column',
  'fold',
  'expand',
  'unexpand',
  'seq',
  'date',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'base64',
  'file',
  'which',
  'env',
  'printenv',
  'sleep',
  'timeout',
  'expr',
  'od',
  'strings',
  'split',
  'join',
  'readlink',
  'chmod',
  'yq',
  'help',
] as const;

export interface BashJob {
  id: number;
  command: string;
  cwd: string;
  access: import('./fs.js').FsAccess;
  timeoutMs: number;
  maxOutputBytes: number;
  /** Commands (and, separately, loop iterations) one call may run: past it exit 126. */
  maxCommands: number;
}

export interface BashOutcome {
  id: number;
  stdout: string;
  stderr: string;
  exitCode: number;
  truncated: boolean;
  timedOut: boolean;
  /** PlannedChange[] with Buffers (structured-cloned across the thread boundary). */
  changes: import('../store/types.js').PlannedChange[];
  /** Changes in other agents' trees, through /shared (one changeset per owner). */
  mounted?: import('./mounted-fs.js').MountedChanges[];
  /** Files cp copied out of /shared or /published into the caller's tree (their provenance). */
  copied?: import('./mounted-fs.js').MountedCopy[];
  error?: string;
}

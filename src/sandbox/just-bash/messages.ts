/**
 * The stderr texts of the shell's limits and errors, rewritten to say what an agent can do about
 * each. Part of the just-bash adapter (src/sandbox/just-bash.ts), which applies it to every run:
 * the texts are just-bash's own, so a new version is checked here too.
 */
import { ERRNO_TEXT, errnoMessage } from '../../gnu/kit/errno.js';

/** What an agent can do about each just-bash limit this server sets (the text after "; "). */
const LIMIT_ADVICE: Record<string, string> = {
  maxCommandCount: 'the limit of this server (BASH_MAX_COMMANDS): split the work into smaller calls',
  maxLoopIterations: 'the limit of this server (BASH_MAX_COMMANDS): split the work into smaller calls',
  maxCallDepth: 'a limit of this server: recurse less deeply (a loop instead of recursion)',
  maxSourceDepth: 'a limit of this server: source fewer nested files',
  // Output through pipes and redirections counts too: a file written with > is no way around it.
  maxOutputSize:
    'a limit of this server on what one call may print, pipe or redirect: print less (head, grep -c, wc) or split the work into smaller calls',
  maxJqIterations: 'a limit of this server: simplify the jq program or give it less input at a time',
};

/**
 * The shell's own errors (a redirection it cannot open) arrive as Node-style messages
 * ("bash: EROFS: read-only file system, open '/f'"); bash says "bash: /f: Read-only file system".
 * Limits the interpreter hits get advice an agent can act on.
 */
export function gnuShellErrors(stderr: string): string {
  return (
    stderr
      // just-bash's advice names its own option, which an agent cannot set.
      .replace(
        /, increase executionLimits\.(\w+)$/gm,
        (_m, option: string) => `; ${LIMIT_ADVICE[option] ?? 'a limit of this server: split the work into smaller calls'}`,
      )
      // awk and sed count records and loop iterations against BASH_MAX_COMMANDS too.
      .replace(/^((?:awk|sed): .*(?:limit exceeded|exceeded maximum iterations) \(\d+\))$/gm, `$1; ${LIMIT_ADVICE.maxLoopIterations}`)
      // `echo {1..10000000}`, `{a..z}{a..z}{a..z}{a..z}`: the script stops there (exit 126).
      .replace(
        /^(bash: brace expansion(: brace_operations work| result) limit exceeded \((\d+)\))$/gm,
        (_line, text: string, kind: string, n: string) => {
          const what =
            kind === ' result'
              ? `a brace expansion may produce at most ${n} words`
              : `the brace expansions of one call may take at most ${n} steps (a range {1..N} takes two per word)`;
          return `${text}: ${what}; the script stopped here. Count with a loop instead (for ((i = 1; i <= N; i++)); do …; done) or use seq.`;
        },
      )
      .replace(/^bash: (E[A-Z]+): ([^,\n]*), [a-z]+ '([^'\n]*)'$/gm, (line, code: string, text: string, path: string) =>
        ERRNO_TEXT[code] ? `bash: ${path}: ${errnoMessage({ code, message: text })}` : line,
      )
  );
}

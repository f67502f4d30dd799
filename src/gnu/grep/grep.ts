/**
 * `grep`, `egrep` and `fgrep` for the bash tool, faithful to GNU grep 3.8 as packaged by
 * Debian (3.8-5: no stray-backslash warnings, egrep/fgrep run `grep -E`/`grep -F` silently)
 * under LC_ALL=C.UTF-8: the same options (GNU getopt_long parsing, with permutation and
 * abbreviations), output layout, colours, diagnostics and exit codes. Tested against the real
 * grep in test/slow/bash-grep.test.ts.
 *
 * Patterns are translated to native JavaScript regular expressions (`v` flag; an ASCII-only
 * variant without it for pure-ASCII buffers, where V8 is faster), so matching is done by V8
 * over whole file buffers and lines are only cut out around matches; a literal every match
 * must contain is searched with indexOf first. POSIX basic/extended syntax follows glibc's
 * parser (which reports the errors), and, where GNU grep's DFA reads a pattern differently
 * (repetition operators at the start or after an anchor, -x pasted around the text), what
 * GNU actually does: the DFA decides unless the pattern has something it cannot do in UTF-8
 * (word anchors, \w \s, back-references, most brackets, -w), then glibc decides after the
 * DFA's superset screened the line; -o and --color always use glibc's reading, with POSIX
 * leftmost-longest matches. Character classes use glibc's C.UTF-8 tables ([[:alpha:]],
 * [[:alnum:]], \w and -w exactly; the others from V8's Unicode properties). `-P` maps PCRE
 * syntax onto JS (\d \w \b ASCII like PCRE2 without UCP).
 *
 * Known differences from GNU:
 * - directories are walked in the filesystem's order (ours: byte order; GNU: readdir order);
 * - binary files: a NUL anywhere makes the whole file binary (GNU decides per 96 KiB buffer);
 * - `-a` on invalid UTF-8 returns the raw bytes, but the shell's final stdout is text, so the
 *   tool shows them as Latin-1 (redirections and pipes get the bytes);
 * - `-P`: no \K, recursion, conditionals or backtracking verbs; atomic groups and possessive
 *   quantifiers act as ordinary ones; inline flags other than (?i) are ignored, (?i) applies
 *   to the whole pattern; error messages exist for the common PCRE2 errors only;
 * - a back-reference to a group that did not take part matches the empty string (POSIX: fails);
 * - GNU's -o -w retries shorter matches in a wrongly truncated buffer after the first match
 *   on a line; we do not reproduce that;
 * - case folding and the classes other than alpha/alnum use V8's Unicode data (newer than
 *   glibc 2.36: characters assigned since are classified; ı/İ fold differently);
 * - "input file is also the output" (grep pat f > f) is not detected; GREP_COLORS is ignored.
 * - Catastrophic patterns backtrack (V8 is not a DFA): a search of one file that runs over its
 *   budget (2 s) stops the command with exit 2 and advice (search-watch.ts); GNU would finish it.
 */

import { type Command, type Ctx, type IFileSystem, type Result } from '../kit/command.js';
import { GrepExit } from './texts.js';
import { Grep } from './search.js';

// ---------------------------------------------------------------------------------------
// The commands
// ---------------------------------------------------------------------------------------

async function grepMain(argv: string[], ctx: Ctx, direct?: () => IFileSystem): Promise<Result> {
  const g = new Grep(ctx, direct?.());
  try {
    return g.result(await g.run(argv));
  } catch (e) {
    if (e instanceof GrepExit) return g.result(e.code);
    throw e;
  }
}

/**
 * The commands. `direct`, if given, returns the filesystem the Bash instance runs on now (taken
 * once per command, when it starts), read directly: just-bash hands commands a membrane over
 * `ctx.fs` that copies every buffer and wraps every listing entry, which costs more than the
 * search itself on large trees.
 */
export function grepCommands(direct?: () => IFileSystem): Command[] {
  return [
    { name: 'grep', execute: (args, ctx) => grepMain(args, ctx, direct) },
    { name: 'egrep', execute: (args, ctx) => grepMain(['-E', ...args], ctx, direct) },
    { name: 'fgrep', execute: (args, ctx) => grepMain(['-F', ...args], ctx, direct) },
  ];
}

/**
 * `tee` and `sed` error reporting as GNU prints it. just-bash reports every failed write (and
 * every unreadable file) as "No such file or directory", so an agent with a read-only key was
 * told its file does not exist. `tee` is ours (it is small); `sed` runs just-bash's own and
 * only its error lines are corrected:
 *   - a file that does not exist: `sed: can't read F: No such file or directory` (exit 2);
 *   - `sed -i` on a file it cannot replace: `sed: couldn't edit F: Permission denied (this key
 *     lacks files:write)` (exit 4). GNU names the temporary file it failed to create beside F
 *     (`couldn't open temporary file ./sedXXXXXX`): a name that exists nowhere, so it is not shown.
 */
import { defineCommand, latin1FromBytes, type CustomCommand, type Ctx } from '../gnu/kit/command.js';
import { getopt, type LongOpt } from '../gnu/kit/getopt.js';
import { bytesResult } from '../gnu/kit/bytes.js';
import { ERRNO_TEXT, errnoMessage } from '../gnu/kit/errno.js';

const TEE_LONGS: LongOpt[] = [
  { name: 'append', key: 'a', arg: 'none' },
  { name: 'ignore-interrupts', key: 'i', arg: 'none' },
  { name: 'output-error', key: 'p', arg: 'optional' },
];

function teeCommand(): CustomCommand {
  return defineCommand('tee', async (args, ctx: Ctx) => {
    if (args.includes('--help') || args.includes('--version')) return ctx.origCommand!(args);
    const p = getopt('tee', args, 'aip', TEE_LONGS);
    if ('error' in p) return { stdout: '', stderr: `${p.error}Try 'tee --help' for more information.\n`, exitCode: 1 };
    const append = p.opts.some(([k]) => k === 'a');
    const input = latin1FromBytes(ctx.stdin); // one char per byte, written back byte for byte
    let stderr = '';
    let exitCode = 0;
    for (const name of p.operands) {
      if (name === '-') continue; // GNU tee writes "-" to stdout only once: it is already there
      const path = ctx.fs.resolvePath(ctx.cwd, name);
      try {
        if (append) await ctx.fs.appendFile(path, input, 'binary');
        else await ctx.fs.writeFile(path, input, 'binary');
      } catch (e) {
        stderr += `tee: ${name}: ${errnoMessage(e)}\n`;
        exitCode = 1;
      }
    }
    return bytesResult(input, stderr, exitCode);
  });
}

/** Whether sed's arguments ask for in-place editing (-i, -iSUFFIX, --in-place[=SUFFIX], -ni…). */
function inPlace(args: string[]): boolean {
  for (const a of args) {
    if (a === '--') break;
    if (a === '--in-place' || a.startsWith('--in-place=')) return true;
    if (/^-[^-]/.test(a)) {
      // Short options up to one that takes an argument (-e, -f, -l): -i inside a cluster counts.
      for (const c of a.slice(1)) {
        if (c === 'i') return true;
        if (c === 'e' || c === 'f' || c === 'l') break;
      }
    }
  }
  return false;
}

function sedCommand(): CustomCommand {
  return defineCommand('sed', async (args, ctx: Ctx) => {
    const r = await ctx.origCommand!(args);
    if (r.exitCode === 0 || !/No such file or directory/.test(r.stderr)) return r;
    const editing = inPlace(args);
    let exitCode = r.exitCode;
    const lines: string[] = [];
    for (const line of r.stderr.split('\n')) {
      const m = /^sed: (.+): No such file or directory$/.exec(line);
      if (!m || m[1]!.startsWith("can't read ")) {
        lines.push(line);
        continue;
      }
      const name = m[1]!;
      const path = ctx.fs.resolvePath(ctx.cwd, name);
      let exists = false;
      try {
        exists = (await ctx.fs.stat(path)).isFile;
      } catch {
        exists = false;
      }
      if (!exists) {
        lines.push(`sed: can't read ${name}: No such file or directory`);
        exitCode = Math.max(exitCode, 2);
        continue;
      }
      if (editing) {
        // Same bytes back: changes nothing when writable, reveals why not when it is not.
        try {
          await ctx.fs.writeFile(path, await ctx.fs.readFileBuffer(path));
        } catch (e) {
          lines.push(`sed: couldn't edit ${name}: ${errnoMessage(e)}`);
          exitCode = 4;
          continue;
        }
      }
      lines.push(line);
    }
    return { ...r, stderr: lines.join('\n'), exitCode };
  });
}

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

export function writerCommands(): CustomCommand[] {
  return [teeCommand(), sedCommand()];
}

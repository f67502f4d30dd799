/**
 * GNU rm: `-f` silences only missing files (just-bash's swallows every error, so a refused
 * delete looked like success), permission and read-only errors are always reported, and `/`
 * is protected as GNU does.
 */
import { defineCommand, type CustomCommand } from '../kit/command.js';
import { errnoMessage } from '../kit/errno.js';
import { getopt, longOpts, tryHelp } from '../kit/getopt.js';

// -i and -I are accepted and ignored: nothing here can prompt.
const LONGS = longOpts([
  ['dir', 'd'],
  ['force', 'f'],
  ['recursive', 'r'],
  ['verbose', 'v'],
]);

export function rmCommand(): CustomCommand {
  return defineCommand('rm', async (args, ctx) => {
    const p = getopt('rm', args, 'dfiIrRv', LONGS);
    if ('error' in p) return { stdout: '', stderr: p.error + tryHelp('rm'), exitCode: 1 };
    const on = (k: string) => p.opts.some(([o]) => o === k);
    const recursive = on('r') || on('R');
    const force = on('f');
    const verbose = on('v');
    const dirs = on('d');
    const operands = p.operands;
    if (operands.length === 0) {
      return force
        ? { stdout: '', stderr: '', exitCode: 0 }
        : { stdout: '', stderr: "rm: missing operand\nTry 'rm --help' for more information.\n", exitCode: 1 };
    }
    let stdout = '';
    let stderr = '';
    let exitCode = 0;
    for (const op of operands) {
      const path = ctx.fs.resolvePath(ctx.cwd, op);
      const base = op.replace(/\/+$/, '').split('/').pop();
      if (base === '.' || base === '..') {
        stderr += `rm: refusing to remove '.' or '..' directory: skipping '${op}'\n`;
        exitCode = 1;
        continue;
      }
      if (path === '/' && recursive) {
        stderr += "rm: it is dangerous to operate recursively on '/'\nrm: use --no-preserve-root to override this failsafe\n";
        exitCode = 1;
        continue;
      }
      let isDir: boolean;
      try {
        isDir = (await ctx.fs.stat(path)).isDirectory;
      } catch {
        if (!force) {
          stderr += `rm: cannot remove '${op}': No such file or directory\n`;
          exitCode = 1;
        }
        continue;
      }
      if (isDir && !recursive && !dirs) {
        stderr += `rm: cannot remove '${op}': Is a directory\n`;
        exitCode = 1;
        continue;
      }
      try {
        await ctx.fs.rm(path, { recursive, force: false });
        if (verbose) stdout += isDir ? `removed directory '${op}'\n` : `removed '${op}'\n`;
      } catch (err) {
        stderr += `rm: cannot remove '${op}': ${errnoMessage(err, null)}\n`;
        exitCode = 1;
      }
    }
    return { stdout, stderr, exitCode };
  });
}

/**
 * GNU rm: `-f` silences only missing files (just-bash's swallows every error, so a refused
 * delete looked like success), permission and read-only errors are always reported, and `/`
 * is protected as GNU does.
 */
import { defineCommand, type CustomCommand } from './just-bash.js';
import { gnuErrorText, lackedScope } from './errno.js';

const REASONS: Array<[RegExp, string]> = [
  [/EROFS/, 'Read-only file system'],
  [/EACCES/, 'Permission denied'],
  [/ENOTEMPTY/, 'Directory not empty'],
  [/EISDIR/, 'Is a directory'],
  [/ENOENT/, 'No such file or directory'],
  [/EPERM/, 'Operation not permitted'],
];

function reason(err: unknown): string {
  if (lackedScope(err)) return gnuErrorText(err);
  const msg = String((err as Error)?.message ?? err);
  return REASONS.find(([re]) => re.test(msg))?.[1] ?? msg;
}

export function rmCommand(): CustomCommand {
  return defineCommand('rm', async (args, ctx) => {
    let recursive = false;
    let force = false;
    let verbose = false;
    let dirs = false;
    const operands: string[] = [];
    let options = true;
    for (const a of args) {
      if (options && a === '--') options = false;
      else if (options && a.startsWith('--') && a.length > 2) {
        if (a === '--recursive') recursive = true;
        else if (a === '--force') force = true;
        else if (a === '--verbose') verbose = true;
        else if (a === '--dir') dirs = true;
        else return { stdout: '', stderr: `rm: unrecognized option '${a}'\nTry 'rm --help' for more information.\n`, exitCode: 1 };
      } else if (options && a.startsWith('-') && a.length > 1) {
        for (const c of a.slice(1)) {
          if (c === 'r' || c === 'R') recursive = true;
          else if (c === 'f') force = true;
          else if (c === 'v') verbose = true;
          else if (c === 'd') dirs = true;
          else if (c === 'i' || c === 'I') continue;
          else return { stdout: '', stderr: `rm: invalid option -- '${c}'\nTry 'rm --help' for more information.\n`, exitCode: 1 };
        }
      } else operands.push(a);
    }
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
        stderr += `rm: cannot remove '${op}': ${reason(err)}\n`;
        exitCode = 1;
      }
    }
    return { stdout, stderr, exitCode };
  });
}

/** chmod: the store keeps no modes, and says so instead of succeeding silently. */
import { defineCommand, type CustomCommand, type Ctx } from '../kit/command.js';

const MODE = /^(?:[0-7]{1,4}|(?:[ugoa]*(?:[-+=](?:[rwxXst]*|[ugo]))+)(?:,[ugoa]*(?:[-+=](?:[rwxXst]*|[ugo]))+)*)$/;

/** The store keeps no permission bits: say so, as GNU chmod on a filesystem without modes. */
export function chmodCommand(): CustomCommand {
  return defineCommand('chmod', async (args, ctx: Ctx) => {
    if (args.includes('--help') || args.includes('--version')) return ctx.origCommand!(args);
    let quiet = false;
    const operands: string[] = [];
    for (const a of args) {
      if (/^-[Rcfv]+$/.test(a)) quiet ||= a.includes('f');
      else if (a === '--recursive' || a === '--changes' || a === '--verbose') continue;
      else if (a === '--silent' || a === '--quiet') quiet = true;
      else operands.push(a); // "-w", "-x": modes, as GNU reads them
    }
    if (operands.length === 0) return { stdout: '', stderr: "chmod: missing operand\nTry 'chmod --help' for more information.\n", exitCode: 1 };
    const [mode, ...files] = operands;
    if (!MODE.test(mode!)) return { stdout: '', stderr: `chmod: invalid mode: '${mode}'\nTry 'chmod --help' for more information.\n`, exitCode: 1 };
    if (!files.length)
      return { stdout: '', stderr: `chmod: missing operand after '${mode}'\nTry 'chmod --help' for more information.\n`, exitCode: 1 };
    let stderr = '';
    for (const f of files) {
      try {
        await ctx.fs.stat(ctx.fs.resolvePath(ctx.cwd, f));
        if (!quiet) stderr += `chmod: changing permissions of '${f}': Operation not supported (files here have no permission bits)\n`;
      } catch {
        stderr += `chmod: cannot access '${f}': No such file or directory\n`;
      }
    }
    return { stdout: '', stderr, exitCode: 1 };
  });
}

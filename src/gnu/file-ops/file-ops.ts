/** mkdir, rmdir, touch, cp and mv: just-bash's own, with filesystem errors in GNU's words (naming a scope the key lacks). */
import { defineCommand, type CustomCommand, type Ctx } from '../kit/command.js';
import { gnuErrnoMessages } from '../kit/errno.js';

/** just-bash's own commands that change files, with filesystem errors in GNU's words. */
function gnuErrors(name: string): CustomCommand {
  return defineCommand(name, async (args, ctx: Ctx) => {
    const r = await ctx.origCommand!(args);
    return r.exitCode === 0 ? r : { ...r, stderr: gnuErrnoMessages(r.stderr) };
  });
}

export function fileOpCommands(): CustomCommand[] {
  return ['mkdir', 'rmdir', 'touch', 'cp', 'mv'].map(gnuErrors);
}

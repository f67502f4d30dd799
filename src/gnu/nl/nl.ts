/**
 * nl: just-bash's, with GNU's endings: the last line is always terminated, and an unnumbered
 * (empty) line is indented with spaces.
 */
import { defineCommand, type CustomCommand, type Ctx } from '../kit/command.js';

export function nlCommand(): CustomCommand {
  return defineCommand('nl', async (args, ctx: Ctx) => {
    const r = await ctx.origCommand!(args);
    if (typeof r.stdout !== 'string') return r;
    let out = r.stdout;
    if (out !== '' && !out.endsWith('\n')) out += '\n';
    // An unnumbered line is indented by width + separator as spaces (6 + 1 by default), not by a tab.
    if (!args.some((a) => a.startsWith('-') && a !== '-')) out = out.replace(/^ {6}\t/gm, '       ');
    return { ...r, stdout: out };
  });
}

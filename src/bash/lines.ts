/**
 * `tac` and `nl` on input without a final newline, as GNU coreutils 9.1: tac reverses records
 * that end with the newline, so an unterminated last line is printed first and joined to the
 * next ("a\nb" → "ba\n"); nl always terminates the lines it prints, and indents an unnumbered
 * (empty) line with spaces. just-bash's versions differ there; tac with options and nl itself
 * still run just-bash's code.
 */
import { defineCommand, latin1FromBytes, type Command, type CustomCommand } from './just-bash.js';
import { bytesResult } from './textutils.js';

type Ctx = Parameters<Command['execute']>[1];

function reverseRecords(bytes: string): string {
  const records = bytes.split('\n').map((r, i, all) => (i < all.length - 1 ? r + '\n' : r));
  if (records[records.length - 1] === '') records.pop();
  return records.reverse().join('');
}

function tacCommand(): CustomCommand {
  return defineCommand('tac', async (args, ctx: Ctx) => {
    if (args.some((a) => a.startsWith('-') && a !== '-')) return ctx.origCommand!(args);
    const files = args.length ? args : ['-'];
    let out = '';
    let err = '';
    let code = 0;
    for (const f of files) {
      let bytes: string;
      if (f === '-') bytes = latin1FromBytes(ctx.stdin);
      else {
        try {
          const path = ctx.fs.resolvePath(ctx.cwd, f);
          if ((await ctx.fs.stat(path)).isDirectory) {
            err += `tac: ${f}: read error: Invalid argument\n`;
            code = 1;
            continue;
          }
          bytes = Buffer.from(await ctx.fs.readFileBuffer(path)).toString('latin1');
        } catch {
          err += `tac: failed to open '${f}' for reading: No such file or directory\n`;
          code = 1;
          continue;
        }
      }
      out += reverseRecords(bytes);
    }
    return bytesResult(out, err, code);
  });
}

function nlCommand(): CustomCommand {
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

export function lineCommands(): CustomCommand[] {
  return [tacCommand(), nlCommand()];
}

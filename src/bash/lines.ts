/**
 * `tac` and `nl` on input without a final newline, as GNU coreutils 9.1: tac reverses records
 * that end with the newline, so an unterminated last line is printed first and joined to the
 * next ("a\nb" → "ba\n"); nl always terminates the lines it prints, and indents an unnumbered
 * (empty) line with spaces. just-bash's versions differ there; tac with options and nl itself
 * still run just-bash's code.
 */
import { defineCommand, type CustomCommand, type Ctx } from '../gnu/kit/command.js';
import { Inputs } from '../gnu/kit/input.js';
import { bytesResult } from '../gnu/kit/bytes.js';

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
    const inputs = new Inputs(ctx);
    for (const f of files) {
      const inp = await inputs.read(f);
      if (!inp.ok) {
        err += inp.code === 'EISDIR' ? `tac: ${f}: read error: Invalid argument\n` : `tac: failed to open '${f}' for reading: ${inp.text}\n`;
        code = 1;
        continue;
      }
      const bytes = inp.bytes;
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

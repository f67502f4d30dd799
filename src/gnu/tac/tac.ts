/**
 * `tac` on input without a final newline, as GNU coreutils 9.1: records end with the newline, so
 * an unterminated last line is printed first and joined to the next ("a\nb" → "ba\n"). tac with
 * options still runs just-bash's code.
 */
import { defineCommand, type CustomCommand, type Ctx } from '../kit/command.js';
import { Inputs } from '../kit/input.js';
import { bytesResult } from '../kit/bytes.js';

function reverseRecords(bytes: string): string {
  const records = bytes.split('\n').map((r, i, all) => (i < all.length - 1 ? r + '\n' : r));
  if (records[records.length - 1] === '') records.pop();
  return records.reverse().join('');
}

export function tacCommand(): CustomCommand {
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

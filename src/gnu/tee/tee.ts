/**
 * GNU tee: a write that fails is reported in GNU's words (naming a scope the key lacks), the
 * other outputs still written; just-bash said "No such file or directory" for every failure.
 */
import { defineCommand, latin1FromBytes, type CustomCommand, type Ctx } from '../kit/command.js';
import { getopt, type LongOpt } from '../kit/getopt.js';
import { bytesResult } from '../kit/bytes.js';
import { errnoMessage } from '../kit/errno.js';

const TEE_LONGS: LongOpt[] = [
  { name: 'append', key: 'a', arg: 'none' },
  { name: 'ignore-interrupts', key: 'i', arg: 'none' },
  { name: 'output-error', key: 'p', arg: 'optional' },
];

export function teeCommand(): CustomCommand {
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

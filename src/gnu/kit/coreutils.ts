/** What coreutils' text filters (head, tail, wc, cat, sort, uniq) share: usage errors, --help, sizes. */
import type { Ctx, Result } from './command.js';

export function usage(prog: string, msg: string, code = 1): Result {
  return { stdout: '', stderr: `${msg}Try '${prog} --help' for more information.\n`, exitCode: code };
}

export async function passHelp(args: string[], ctx: Ctx): Promise<Result | null> {
  const stop = args.indexOf('--');
  const scan = stop === -1 ? args : args.slice(0, stop);
  if ((scan.includes('--help') || scan.includes('--version')) && ctx.origCommand) return ctx.origCommand(args);
  return null;
}

/** xstrtoumax with coreutils' size suffixes (b k K m M G T P E Z Y R Q, with B / iB). */
export function parseSize(s: string, blockB = true): bigint | null {
  const m = /^\+?(\d+)(?:([bkKmMGTPEZYRQ])(iB|B)?)?$/.exec(s);
  if (!m) return null;
  let n = BigInt(m[1]!);
  const suf = m[2];
  if (!suf) return n;
  if (suf === 'b') {
    if (!blockB || m[3]) return null;
    return n * 512n;
  }
  const pow = 'kKmMGTPEZYRQ'.indexOf(suf);
  const exp = BigInt(suf === 'k' || suf === 'K' ? 1 : suf === 'm' || suf === 'M' ? 2 : pow - 2);
  const base = m[3] === 'B' ? 1000n : 1024n;
  n *= base ** exp;
  return n;
}

const MAXN = BigInt(Number.MAX_SAFE_INTEGER);
export const clampN = (n: bigint) => Number(n > MAXN ? MAXN : n);

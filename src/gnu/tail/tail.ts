/** GNU tail (coreutils 9.1, LC_ALL=C): -n/-c with +N, headers, -z; -f answers at once (nothing grows here). */
import { defineCommand, type Command, type Result } from '../kit/command.js';
import { clampN, parseSize, passHelp, usage } from '../kit/coreutils.js';
import { GetoptError, parseOptions, type LongOpt, type Parsed } from '../kit/getopt.js';
import { afterLines, eachHeadedInput, headerOption, headTailResult, invalidCount, type HeadTailOptions } from '../kit/head-tail.js';

// ---------------------------------------------------------------------------------------
// tail
// ---------------------------------------------------------------------------------------

interface TailOptions extends HeadTailOptions {
  /** +N: from the Nth line (or byte) on. */
  fromStart: boolean;
}

const LONGS: LongOpt[] = [
  { name: 'bytes', key: 'c', arg: 'required' },
  { name: 'lines', key: 'n', arg: 'required' },
  { name: 'follow', key: 'f', arg: 'optional' },
  { name: 'retry', key: 'r', arg: 'none' },
  { name: 'pid', key: 'p', arg: 'required' },
  { name: 'sleep-interval', key: 's', arg: 'required' },
  { name: 'max-unchanged-stats', key: 'm', arg: 'required' },
  { name: 'quiet', key: 'q', arg: 'none' },
  { name: 'silent', key: 'q', arg: 'none' },
  { name: 'verbose', key: 'v', arg: 'none' },
  { name: 'zero-terminated', key: 'z', arg: 'none' },
];

/** Obsolete forms: `tail -5`, `tail +5`, `tail -5c FILE` (one option, at most one file); true if args[0] was one. */
function obsoleteForm(args: string[], o: TailOptions): boolean {
  const a1 = args[0];
  if (!a1 || !(args.length === 1 || (args.length === 2 && !(args[1]!.startsWith('-') && args[1]!.length > 1)))) return false;
  const m = /^([+-])(\d*)([bcl]?)(f?)$/.exec(a1);
  if (!m || (m[1] === '-' && m[2] === '' && m[3] !== 'b' && m[3] !== 'l') || (m[1] === '+' && a1 === '+')) return false;
  o.fromStart = m[1] === '+';
  o.countLines = m[3] !== 'b' && m[3] !== 'c';
  o.n = m[2] ? BigInt(m[2]) * (m[3] === 'b' ? 512n : 1n) : m[3] === 'b' ? 5120n : 10n;
  return true;
}

/** The options, or the usage error to answer with. */
function parseTail(argv: string[]): { o: TailOptions; files: string[] } | Result {
  const o: TailOptions = { countLines: true, n: 10n, fromStart: false, header: 'auto', delim: '\n' };
  const args = obsoleteForm(argv, o) ? argv.slice(1) : argv;
  let parsed: Parsed;
  try {
    parsed = parseOptions(args, 'c:n:fFqs:vz', LONGS);
  } catch (e) {
    if (e instanceof GetoptError) return usage('tail', `tail: ${e.message}\n`);
    throw e;
  }
  for (const [k, v] of parsed.opts) {
    if (k === 'c' || k === 'n') {
      o.countLines = k === 'n';
      let s = v!;
      o.fromStart = s.startsWith('+');
      if (s.startsWith('+') || s.startsWith('-')) s = s.slice(1);
      const x = parseSize(s);
      if (x === null || s.startsWith('+')) return invalidCount('tail', o.countLines, v!);
      o.n = x;
    } else headerOption(o, k);
  }
  return { o, files: parsed.operands.length ? parsed.operands : ['-'] };
}

/** The last N lines; the last line is counted whether or not it ends with the delimiter. */
function lastLines(b: string, delim: string, N: number): string {
  const end = b.length;
  let pos = b.length > 0 && b[end - 1] === delim ? end - 1 : end;
  let start = 0;
  let found = 0;
  while (pos > 0) {
    const j = b.lastIndexOf(delim, pos - 1);
    if (j === -1) break;
    found++;
    if (found === N) {
      start = j + 1;
      break;
    }
    pos = j;
  }
  return b.slice(start, end);
}

function tailOf(b: string, o: TailOptions, N: number): string {
  if (!o.countLines) {
    if (o.fromStart) return b.slice(Math.max(0, N - 1));
    return N === 0 ? '' : b.slice(Math.max(0, b.length - N));
  }
  if (o.fromStart) return b.slice(afterLines(b, o.delim, N - 1));
  return N === 0 ? '' : lastLines(b, o.delim, N);
}

export function tailCommand(): Command {
  return defineCommand('tail', async (argv, ctx) => {
    const help = await passHelp(argv, ctx);
    if (help) return help;
    const parsed = parseTail(argv);
    if (!('o' in parsed)) return parsed;
    const { o, files } = parsed;
    const N = clampN(o.n);
    const out: string[] = [];
    const report = await eachHeadedInput('tail', ctx, files, o.header, out, (b) => out.push(tailOf(b, o, N)));
    return headTailResult(o.countLines, out, report);
  });
}

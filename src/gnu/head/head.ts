/** GNU head (coreutils 9.1, LC_ALL=C): -n/-c with negative counts and size suffixes, headers, -z. */
import { defineCommand, type Command, type Result } from '../kit/command.js';
import { clampN, parseSize, passHelp, usage } from '../kit/coreutils.js';
import { GetoptError, parseOptions, type LongOpt, type Parsed } from '../kit/getopt.js';
import { afterLines, eachHeadedInput, headerOption, headTailResult, invalidCount, type HeadTailOptions } from '../kit/head-tail.js';

// ---------------------------------------------------------------------------------------
// head
// ---------------------------------------------------------------------------------------

interface HeadOptions extends HeadTailOptions {
  /** A negative count: all but the last N. */
  elide: boolean;
}

const LONGS: LongOpt[] = [
  { name: 'bytes', key: 'c', arg: 'required' },
  { name: 'lines', key: 'n', arg: 'required' },
  { name: 'quiet', key: 'q', arg: 'none' },
  { name: 'silent', key: 'q', arg: 'none' },
  { name: 'verbose', key: 'v', arg: 'none' },
  { name: 'zero-terminated', key: 'z', arg: 'none' },
];

/** `head -5c`: the obsolete form, a count then option letters in the first argument. */
function obsoleteForm(first: string, o: HeadOptions): Result | null {
  const m = /^-(\d+)(.*)$/.exec(first)!;
  let mult = 1n;
  for (const c of m[2]!) {
    if (c === 'c') {
      o.countLines = false;
      mult = 1n;
    } else if (c === 'b' || c === 'k' || c === 'm') {
      o.countLines = false;
      mult = c === 'b' ? 512n : c === 'k' ? 1024n : 1048576n;
    } else if (c === 'l') o.countLines = true;
    else if (!headerOption(o, c)) return usage('head', `head: invalid trailing option -- ${c}\n`);
  }
  o.n = BigInt(m[1]!) * mult;
  return null;
}

/** The options, or the usage error to answer with. */
function parseHead(argv: string[]): { o: HeadOptions; files: string[] } | Result {
  const o: HeadOptions = { countLines: true, n: 10n, elide: false, header: 'auto', delim: '\n' };
  let args = argv;
  const first = args[0];
  if (first && /^-\d/.test(first)) {
    const bad = obsoleteForm(first, o);
    if (bad) return bad;
    args = args.slice(1);
  }
  let parsed: Parsed;
  try {
    parsed = parseOptions(args, 'c:n:qvz', LONGS);
  } catch (e) {
    if (e instanceof GetoptError) return usage('head', `head: ${e.message}\n`);
    throw e;
  }
  for (const [k, v] of parsed.opts) {
    if (k === 'c' || k === 'n') {
      o.countLines = k === 'n';
      let s = v!;
      o.elide = s.startsWith('-');
      if (o.elide) s = s.slice(1);
      const x = parseSize(s);
      if (x === null) return invalidCount('head', o.countLines, v!);
      o.n = x;
    } else headerOption(o, k);
  }
  return { o, files: parsed.operands.length ? parsed.operands : ['-'] };
}

/** All but the last N lines; a final line without its delimiter counts as a line. */
function allButLastLines(b: string, delim: string, N: number): string {
  let end = b.length;
  if (end > 0 && b[end - 1] !== delim) {
    if (N === 0) return b;
    const j = b.lastIndexOf(delim, end - 1);
    end = j + 1;
    for (let i = 1; i < N && end > 0; i++) end = b.lastIndexOf(delim, end - 2) + 1;
  } else {
    for (let i = 0; i < N && end > 0; i++) end = b.lastIndexOf(delim, end - 2) + 1;
  }
  return b.slice(0, end);
}

function headOf(b: string, o: HeadOptions, N: number): string {
  if (!o.countLines) return o.elide ? b.slice(0, Math.max(0, b.length - N)) : b.slice(0, N);
  if (!o.elide) return b.slice(0, afterLines(b, o.delim, N));
  return allButLastLines(b, o.delim, N);
}

export function headCommand(): Command {
  return defineCommand('head', async (argv, ctx) => {
    const help = await passHelp(argv, ctx);
    if (help) return help;
    const parsed = parseHead(argv);
    if (!('o' in parsed)) return parsed;
    const { o, files } = parsed;
    const N = clampN(o.n);
    const out: string[] = [];
    const report = await eachHeadedInput('head', ctx, files, o.header, out, (b) => out.push(headOf(b, o, N)));
    return headTailResult(o.countLines, out, report);
  });
}

/** What head and tail share: -q/-v/-z, the count's error, `==> name <==` headers between inputs. */
import { bytesResult, cutResult, utf8ToLatin1 } from './bytes.js';
import type { Ctx, Result } from './command.js';
import { eachInput, Inputs, type InputsReport } from './input.js';
import { inOrder } from './order.js';
import { quote } from './quote.js';

export type HeaderMode = 'auto' | 'never' | 'always';

/** The options head and tail have in common, as their option loops leave them. */
export interface HeadTailOptions {
  countLines: boolean;
  n: bigint;
  header: HeaderMode;
  delim: string;
}

/** Applies -q, -v or -z; false for any other option. */
export function headerOption(o: HeadTailOptions, key: string): boolean {
  if (key === 'q') o.header = 'never';
  else if (key === 'v') o.header = 'always';
  else if (key === 'z') o.delim = '\0';
  else return false;
  return true;
}

export function invalidCount(prog: string, countLines: boolean, arg: string): Result {
  return { stdout: '', stderr: `${prog}: invalid number of ${countLines ? 'lines' : 'bytes'}: ${quote(arg)}\n`, exitCode: 1 };
}

/** The end of the first `count` delimited lines of `b` (its length if it has fewer). */
export function afterLines(b: string, delim: string, count: number): number {
  let pos = 0;
  for (let i = 0; i < count && pos < b.length; i++) {
    const j = b.indexOf(delim, pos);
    pos = j === -1 ? b.length : j + 1;
  }
  return pos;
}

/**
 * Reads each input for head or tail: a header before each when asked (or when there are
 * several), and GNU's two errors — a file that cannot be opened gets no header, a directory
 * opens, gets its header, then fails to read.
 */
export async function eachHeadedInput(
  prog: string,
  ctx: Ctx,
  names: readonly string[],
  header: HeaderMode,
  out: string[],
  each: (bytes: string) => void,
): Promise<InputsReport> {
  const showHeaders = header === 'always' || (header === 'auto' && names.length > 1);
  let firstHeader = true;
  const writeHeader = (name: string) => {
    if (!showHeaders) return;
    out.push(`${firstHeader ? '' : '\n'}==> ${utf8ToLatin1(name === '-' ? 'standard input' : name)} <==\n`);
    firstHeader = false;
  };
  return eachInput(
    new Inputs(ctx),
    names,
    (name, inp) => {
      if (inp.code !== 'EISDIR') return `${prog}: cannot open ${quote(name)} for reading: ${inp.text}\n`;
      writeHeader(name);
      return `${prog}: error reading ${quote(name)}: ${inp.text}\n`;
    },
    (bytes, name) => {
      writeHeader(name);
      each(bytes);
    },
    out,
  );
}

/** Lines pass as bytes; a byte count may cut a UTF-8 character, which cutResult shows as GNU's output would look. */
export function headTailResult(countLines: boolean, out: string[], report: InputsReport): Result {
  const { stderr, exitCode } = report;
  const r = countLines ? bytesResult(out.join(''), stderr, exitCode) : cutResult(out.join(''), stderr, exitCode);
  return inOrder(r, () => report.errors.chunks(r.stdout));
}

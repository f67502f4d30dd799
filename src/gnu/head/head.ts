/** GNU head (coreutils 9.1, LC_ALL=C): -n/-c with negative counts and size suffixes, headers, -z. */
import { bytesResult, cutResult, utf8ToLatin1 } from '../kit/bytes.js';
import { defineCommand, type Command } from '../kit/command.js';
import { clampN, parseSize, passHelp, usage } from '../kit/coreutils.js';
import { GetoptError, parseOptions, type Parsed } from '../kit/getopt.js';
import { Inputs, type Input } from '../kit/input.js';
import { quote } from '../kit/quote.js';

// ---------------------------------------------------------------------------------------
// head
// ---------------------------------------------------------------------------------------

export function headCommand(): Command {
  return defineCommand('head', async (argv, ctx) => {
    const help = await passHelp(argv, ctx);
    if (help) return help;
    let args = argv;
    let countLines = true;
    let n = 10n;
    let elide = false;
    let header: 'auto' | 'never' | 'always' = 'auto';
    let delim = '\n';
    const first = args[0];
    if (first && /^-\d/.test(first)) {
      const m = /^-(\d+)(.*)$/.exec(first)!;
      let mult = 1n;
      for (const c of m[2]!) {
        if (c === 'c') {
          countLines = false;
          mult = 1n;
        } else if (c === 'b' || c === 'k' || c === 'm') {
          countLines = false;
          mult = c === 'b' ? 512n : c === 'k' ? 1024n : 1048576n;
        } else if (c === 'l') countLines = true;
        else if (c === 'q') header = 'never';
        else if (c === 'v') header = 'always';
        else if (c === 'z') delim = '\0';
        else return usage('head', `head: invalid trailing option -- ${c}\n`);
      }
      n = BigInt(m[1]!) * mult;
      args = args.slice(1);
    }
    let parsed: Parsed;
    try {
      parsed = parseOptions(args, 'c:n:qvz', [
        { name: 'bytes', key: 'c', arg: 'required' },
        { name: 'lines', key: 'n', arg: 'required' },
        { name: 'quiet', key: 'q', arg: 'none' },
        { name: 'silent', key: 'q', arg: 'none' },
        { name: 'verbose', key: 'v', arg: 'none' },
        { name: 'zero-terminated', key: 'z', arg: 'none' },
      ]);
    } catch (e) {
      if (e instanceof GetoptError) return usage('head', `head: ${e.message}\n`);
      throw e;
    }
    for (const [k, v] of parsed.opts) {
      if (k === 'c' || k === 'n') {
        countLines = k === 'n';
        let s = v!;
        elide = s.startsWith('-');
        if (elide) s = s.slice(1);
        const x = parseSize(s);
        if (x === null) return { stdout: '', stderr: `head: invalid number of ${countLines ? 'lines' : 'bytes'}: ${quote(v!)}\n`, exitCode: 1 };
        n = x;
      } else if (k === 'q') header = 'never';
      else if (k === 'v') header = 'always';
      else if (k === 'z') delim = '\0';
    }
    const files = parsed.operands.length ? parsed.operands : ['-'];
    const showHeaders = header === 'always' || (header === 'auto' && files.length > 1);
    const io = new Inputs(ctx);
    const out: string[] = [];
    let err = '';
    let code = 0;
    let firstHeader = true;
    const N = clampN(n);
    for (const f of files) {
      const isStdin = f === '-';
      const inp = isStdin ? ({ ok: true, bytes: io.stdin() } as Input) : await io.read(f);
      if (!inp.ok && inp.code !== 'EISDIR') {
        err += `head: cannot open ${quote(f)} for reading: ${inp.text}\n`;
        code = 1;
        continue;
      }
      if (showHeaders) {
        out.push(`${firstHeader ? '' : '\n'}==> ${utf8ToLatin1(isStdin ? 'standard input' : f)} <==\n`);
        firstHeader = false;
      }
      if (!inp.ok) {
        err += `head: error reading ${quote(f)}: ${inp.text}\n`;
        code = 1;
        continue;
      }
      const b = inp.bytes;
      if (!countLines) out.push(elide ? b.slice(0, Math.max(0, b.length - N)) : b.slice(0, N));
      else if (!elide) {
        let pos = 0;
        for (let i = 0; i < N && pos < b.length; i++) {
          const j = b.indexOf(delim, pos);
          pos = j === -1 ? b.length : j + 1;
        }
        out.push(b.slice(0, pos));
      } else {
        // All but the last N lines; a final line without its delimiter counts as a line.
        let end = b.length;
        if (end > 0 && b[end - 1] !== delim) {
          if (N === 0) {
            out.push(b);
            continue;
          }
          const j = b.lastIndexOf(delim, end - 1);
          end = j + 1;
          for (let i = 1; i < N && end > 0; i++) end = b.lastIndexOf(delim, end - 2) + 1;
        } else {
          for (let i = 0; i < N && end > 0; i++) end = b.lastIndexOf(delim, end - 2) + 1;
        }
        out.push(b.slice(0, end));
      }
    }
    return countLines ? bytesResult(out.join(''), err, code) : cutResult(out.join(''), err, code);
  });
}

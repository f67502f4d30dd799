/** GNU tail (coreutils 9.1, LC_ALL=C): -n/-c with +N, headers, -z; -f answers at once (nothing grows here). */
import { bytesResult, cutResult, utf8ToLatin1 } from '../kit/bytes.js';
import { defineCommand, type Command } from '../kit/command.js';
import { clampN, parseSize, passHelp, usage } from '../kit/coreutils.js';
import { GetoptError, parseOptions, type Parsed } from '../kit/getopt.js';
import { Inputs, type Input } from '../kit/input.js';
import { quote } from '../kit/quote.js';

// ---------------------------------------------------------------------------------------
// tail
// ---------------------------------------------------------------------------------------

export function tailCommand(): Command {
  return defineCommand('tail', async (argv, ctx) => {
    const help = await passHelp(argv, ctx);
    if (help) return help;
    let countLines = true;
    let n = 10n;
    let fromStart = false;
    let header: 'auto' | 'never' | 'always' = 'auto';
    let delim = '\n';
    let args = argv;
    // Obsolete forms: `tail -5`, `tail +5`, `tail -5c FILE` (one option, at most one file).
    const a1 = args[0];
    if (a1 && (args.length === 1 || (args.length === 2 && !(args[1]!.startsWith('-') && args[1]!.length > 1)))) {
      const m = /^([+-])(\d*)([bcl]?)(f?)$/.exec(a1);
      if (m && !(m[1] === '-' && m[2] === '' && m[3] !== 'b' && m[3] !== 'l') && !(m[1] === '+' && a1 === '+')) {
        fromStart = m[1] === '+';
        countLines = m[3] !== 'b' && m[3] !== 'c';
        n = m[2] ? BigInt(m[2]) * (m[3] === 'b' ? 512n : 1n) : m[3] === 'b' ? 5120n : 10n;
        args = args.slice(1);
      }
    }
    let parsed: Parsed;
    try {
      parsed = parseOptions(args, 'c:n:fFqs:vz', [
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
      ]);
    } catch (e) {
      if (e instanceof GetoptError) return usage('tail', `tail: ${e.message}\n`);
      throw e;
    }
    for (const [k, v] of parsed.opts) {
      if (k === 'c' || k === 'n') {
        countLines = k === 'n';
        let s = v!;
        fromStart = s.startsWith('+');
        if (s.startsWith('+') || s.startsWith('-')) s = s.slice(1);
        const x = parseSize(s);
        if (x === null || s.startsWith('+'))
          return { stdout: '', stderr: `tail: invalid number of ${countLines ? 'lines' : 'bytes'}: ${quote(v!)}\n`, exitCode: 1 };
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
        err += `tail: cannot open ${quote(f)} for reading: ${inp.text}\n`;
        code = 1;
        continue;
      }
      if (showHeaders) {
        out.push(`${firstHeader ? '' : '\n'}==> ${utf8ToLatin1(isStdin ? 'standard input' : f)} <==\n`);
        firstHeader = false;
      }
      if (!inp.ok) {
        err += `tail: error reading ${quote(f)}: ${inp.text}\n`;
        code = 1;
        continue;
      }
      const b = inp.bytes;
      if (!countLines) {
        if (fromStart) out.push(b.slice(Math.max(0, N - 1)));
        else out.push(N === 0 ? '' : b.slice(Math.max(0, b.length - N)));
      } else if (fromStart) {
        let pos = 0;
        for (let i = 1; i < N && pos < b.length; i++) {
          const j = b.indexOf(delim, pos);
          pos = j === -1 ? b.length : j + 1;
        }
        out.push(b.slice(pos));
      } else {
        if (N === 0) continue;
        let end = b.length;
        // The last line is counted whether or not it ends with the delimiter.
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
        out.push(b.slice(start, end));
        end = 0;
      }
    }
    return countLines ? bytesResult(out.join(''), err, code) : cutResult(out.join(''), err, code);
  });
}

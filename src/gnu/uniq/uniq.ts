/** GNU uniq (coreutils 9.1): -c -d -D -u -i -f -s -w -z and --group/--all-repeated. */
import { Buffer } from 'node:buffer';
import { bytesResult } from '../kit/bytes.js';
import { defineCommand, type Command, type Result } from '../kit/command.js';
import { clampN, parseSize, passHelp, usage } from '../kit/coreutils.js';
import { errnoMessage } from '../kit/errno.js';
import { GetoptError, parseOptions, type Parsed } from '../kit/getopt.js';
import { Inputs } from '../kit/input.js';
import { quote, quotef } from '../kit/quote.js';

// ---------------------------------------------------------------------------------------
// uniq
// ---------------------------------------------------------------------------------------

export function uniqCommand(): Command {
  return defineCommand('uniq', async (argv, ctx) => {
    const help = await passHelp(argv, ctx);
    if (help) return help;
    let parsed: Parsed;
    try {
      parsed = parseOptions(argv, 'cdDf:is:uw:z', [
        { name: 'count', key: 'c', arg: 'none' },
        { name: 'repeated', key: 'd', arg: 'none' },
        { name: 'all-repeated', key: 'D', arg: 'optional' },
        { name: 'group', key: 'group', arg: 'optional' },
        { name: 'skip-fields', key: 'f', arg: 'required' },
        { name: 'ignore-case', key: 'i', arg: 'none' },
        { name: 'skip-chars', key: 's', arg: 'required' },
        { name: 'unique', key: 'u', arg: 'none' },
        { name: 'check-chars', key: 'w', arg: 'required' },
        { name: 'zero-terminated', key: 'z', arg: 'none' },
      ]);
    } catch (e) {
      if (e instanceof GetoptError) return usage('uniq', `uniq: ${e.message}\n`);
      throw e;
    }
    let count = false;
    let repeated = false;
    let allRepeated: null | 'none' | 'prepend' | 'separate' = null;
    let group: null | 'separate' | 'prepend' | 'append' | 'both' = null;
    let skipFields = 0;
    let skipChars = 0;
    let checkChars = Infinity;
    let ignoreCase = false;
    let uniqueOnly = false;
    let delim = '\n';
    const num = (v: string, what: string): number | Result => {
      const x = parseSize(v, false);
      if (x === null || !/^\d+$/.test(v)) return { stdout: '', stderr: `uniq: ${v}: invalid number of ${what}\n`, exitCode: 1 };
      return clampN(x);
    };
    for (const [k, v] of parsed.opts) {
      if (k === 'c') count = true;
      else if (k === 'd') repeated = true;
      else if (k === 'D') {
        const m = v === undefined ? 'none' : ['none', 'prepend', 'separate'].find((x) => x.startsWith(v) && v);
        if (!m)
          return usage(
            'uniq',
            `uniq: invalid argument ${quote(v!)} for '--all-repeated'\nValid arguments are:\n  - 'none'\n  - 'prepend'\n  - 'separate'\n`,
          );
        allRepeated = m as 'none' | 'prepend' | 'separate';
      } else if (k === 'group') {
        const m = v === undefined ? 'separate' : ['prepend', 'append', 'separate', 'both'].find((x) => x.startsWith(v) && v);
        if (!m)
          return usage(
            'uniq',
            `uniq: invalid argument ${quote(v!)} for '--group'\nValid arguments are:\n  - 'prepend'\n  - 'append'\n  - 'separate'\n  - 'both'\n`,
          );
        group = m as 'separate' | 'prepend' | 'append' | 'both';
      } else if (k === 'f') {
        const r = num(v!, 'fields to skip');
        if (typeof r !== 'number') return r;
        skipFields = r;
      } else if (k === 's') {
        const r = num(v!, 'bytes to skip');
        if (typeof r !== 'number') return r;
        skipChars = r;
      } else if (k === 'w') {
        const r = num(v!, 'bytes to compare');
        if (typeof r !== 'number') return r;
        checkChars = r;
      } else if (k === 'i') ignoreCase = true;
      else if (k === 'u') uniqueOnly = true;
      else if (k === 'z') delim = '\0';
    }
    if (group && (count || repeated || uniqueOnly || allRepeated)) {
      return usage('uniq', 'uniq: --group is mutually exclusive with -c/-d/-D/-u\n');
    }
    if (count && allRepeated) return usage('uniq', 'uniq: printing all duplicated lines and repeat counts is meaningless\n');
    if (parsed.operands.length > 2) return usage('uniq', `uniq: extra operand ${quote(parsed.operands[2]!)}\n`);
    const inName = parsed.operands[0] ?? '-';
    const outName = parsed.operands[1];
    const io = new Inputs(ctx);
    const inp = await io.read(inName);
    if (!inp.ok) {
      if (inp.code === 'EISDIR') return { stdout: '', stderr: `uniq: error reading ${quote(inName)}\n`, exitCode: 1 };
      return { stdout: '', stderr: `uniq: ${quotef(inName)}: ${inp.text}\n`, exitCode: 1 };
    }
    const b = inp.bytes;
    const lines = b.length ? b.split(delim) : [];
    if (b.endsWith(delim)) lines.pop();
    const keyOf = (l: string) => {
      let i = 0;
      for (let f = 0; f < skipFields; f++) {
        while (i < l.length && (l[i] === ' ' || l[i] === '\t')) i++;
        while (i < l.length && l[i] !== ' ' && l[i] !== '\t') i++;
      }
      i = Math.min(l.length, i + skipChars);
      let k = checkChars === Infinity ? l.slice(i) : l.slice(i, i + checkChars);
      if (ignoreCase) k = k.replace(/[a-z]+/g, (s) => s.toUpperCase());
      return k;
    };
    const out: string[] = [];
    const groups: string[][] = [];
    for (let i = 0; i < lines.length;) {
      const k = keyOf(lines[i]!);
      let j = i + 1;
      while (j < lines.length && keyOf(lines[j]!) === k) j++;
      groups.push(lines.slice(i, j));
      i = j;
    }
    if (group) {
      // --group separate: a delimiter between groups only; prepend: before each; append: after each.
      const fixed: string[] = [];
      groups.forEach((gr, gi) => {
        if (group === 'prepend' || group === 'both' || (group === 'separate' && gi > 0)) fixed.push(delim);
        if (group === 'append' && gi > 0) fixed.push(delim);
        for (const l of gr) fixed.push(l + delim);
      });
      if ((group === 'append' || group === 'both') && groups.length) fixed.push(delim);
      out.push(...fixed);
    } else if (allRepeated) {
      let first = true;
      for (const gr of groups) {
        if (gr.length < 2) continue;
        if (allRepeated === 'prepend' || (allRepeated === 'separate' && !first)) out.push(delim);
        first = false;
        for (const l of gr) out.push(l + delim);
      }
    } else {
      for (const gr of groups) {
        if (repeated && gr.length < 2) continue;
        if (uniqueOnly && gr.length > 1) continue;
        out.push((count ? `${String(gr.length).padStart(7)} ` : '') + gr[0] + delim);
      }
    }
    const text = out.join('');
    if (outName !== undefined && outName !== '-') {
      try {
        await ctx.fs.writeFile(ctx.fs.resolvePath(ctx.cwd, outName), Buffer.from(text, 'latin1'));
      } catch (e) {
        return { stdout: '', stderr: `uniq: ${quotef(outName)}: ${errnoMessage(e)}\n`, exitCode: 1 };
      }
      return bytesResult('', '', 0);
    }
    return bytesResult(text, '', 0);
  });
}

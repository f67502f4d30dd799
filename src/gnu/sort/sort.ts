/**
 * GNU sort (coreutils 9.1) under LC_ALL=C: keys (-k, -t), orderings (-b -d -f -g -h -i -M -n -V -r),
 * -c/-C, -m, -o, -s, -u, -z, byte for byte. Not supported: -R, --parallel, -T, --compress-program,
 * --files0-from.
 */
import { Buffer } from 'node:buffer';
import { bytesResult, utf8ToLatin1 } from '../kit/bytes.js';
import { defineCommand, type Command, type Result } from '../kit/command.js';
import { errnoMessage } from '../kit/errno.js';
import { GetoptError, parseOptions, type LongOpt, type Parsed } from '../kit/getopt.js';
import { Inputs } from '../kit/input.js';
import { quote, quotef } from '../kit/quote.js';
import { passHelp, usage } from '../kit/coreutils.js';
import { defaultKeyCompare, keyCompare, newKey, setOrdering, type Key } from './compare.js';

// ---------------------------------------------------------------------------------------
// sort
// ---------------------------------------------------------------------------------------

const SORT_LONGS: LongOpt[] = [
  { name: 'ignore-leading-blanks', key: 'b', arg: 'none' },
  { name: 'check', key: 'check', arg: 'optional' },
  { name: 'dictionary-order', key: 'd', arg: 'none' },
  { name: 'ignore-case', key: 'f', arg: 'none' },
  { name: 'general-numeric-sort', key: 'g', arg: 'none' },
  { name: 'human-numeric-sort', key: 'h', arg: 'none' },
  { name: 'ignore-nonprinting', key: 'i', arg: 'none' },
  { name: 'key', key: 'k', arg: 'required' },
  { name: 'merge', key: 'm', arg: 'none' },
  { name: 'month-sort', key: 'M', arg: 'none' },
  { name: 'numeric-sort', key: 'n', arg: 'none' },
  { name: 'output', key: 'o', arg: 'required' },
  { name: 'reverse', key: 'r', arg: 'none' },
  { name: 'random-sort', key: 'R', arg: 'none' },
  { name: 'stable', key: 's', arg: 'none' },
  { name: 'buffer-size', key: 'S', arg: 'required' },
  { name: 'field-separator', key: 't', arg: 'required' },
  { name: 'temporary-directory', key: 'T', arg: 'required' },
  { name: 'unique', key: 'u', arg: 'none' },
  { name: 'version-sort', key: 'V', arg: 'none' },
  { name: 'zero-terminated', key: 'z', arg: 'none' },
  { name: 'parallel', key: 'P', arg: 'required' },
  { name: 'sort', key: 'sort', arg: 'required' },
  { name: 'random-source', key: 'rs', arg: 'required' },
  { name: 'debug', key: 'debug', arg: 'none' },
  { name: 'batch-size', key: 'bs', arg: 'required' },
  { name: 'compress-program', key: 'cp', arg: 'required' },
  { name: 'files0-from', key: 'F', arg: 'required' },
];

/** A -k KEYDEF (F[.C][OPTS][,F[.C][OPTS]]), or the message sort prints for a bad one. */
function parseKeySpec(spec: string): Key | string {
  const key = newKey();
  const bad = (why: string) => `sort: ${why}: invalid field specification ${quote(spec)}\n`;
  let m = /^(\d+)/.exec(spec);
  if (!m) return `sort: invalid number at field start: invalid count at start of ${quote(spec)}\n`;
  let rest = spec.slice(m[1]!.length);
  const sw = Number(m[1]);
  if (sw === 0) return bad('field number is zero');
  key.sword = sw - 1;
  if (rest.startsWith('.')) {
    m = /^(\d+)/.exec(rest.slice(1));
    if (!m) return `sort: invalid number after '.': invalid count at start of ${quote(rest.slice(1))}\n`;
    const sc = Number(m[1]);
    if (sc === 0) return bad('character offset is zero');
    key.schar = sc - 1;
    rest = rest.slice(1 + m[1]!.length);
  }
  if (key.sword === 0 && key.schar === 0) key.sword = -1;
  rest = setOrdering(rest, key, false);
  if (rest.startsWith(',')) {
    m = /^(\d+)/.exec(rest.slice(1));
    if (!m) return `sort: invalid number after ',': invalid count at start of ${quote(rest.slice(1))}\n`;
    const ew = Number(m[1]);
    if (ew === 0) return bad('field number is zero');
    key.eword = ew - 1;
    rest = rest.slice(1 + m[1]!.length);
    if (rest.startsWith('.')) {
      m = /^(\d+)/.exec(rest.slice(1));
      if (!m) return `sort: invalid number after '.': invalid count at start of ${quote(rest.slice(1))}\n`;
      key.echar = Number(m[1]);
      rest = rest.slice(1 + m[1]!.length);
    }
    rest = setOrdering(rest, key, true);
  } else {
    key.eword = -1;
    key.echar = 0;
  }
  if (rest) return bad('stray character in field spec');
  return key;
}

export function sortCommand(): Command {
  return defineCommand('sort', async (argv, ctx) => {
    const help = await passHelp(argv, ctx);
    if (help) return help;
    let parsed: Parsed;
    const fail = (msg: string): Result => ({ stdout: '', stderr: msg, exitCode: 2 });
    try {
      parsed = parseOptions(argv, 'bcCdfghik:mMno:rRsS:t:T:uVz', SORT_LONGS);
    } catch (e) {
      if (e instanceof GetoptError) return usage('sort', `sort: ${e.message}\n`, 2);
      throw e;
    }
    const g = newKey();
    g.sword = -1;
    const keys: Key[] = [];
    let check: '' | 'diagnose' | 'quiet' = '';
    let unique = false;
    let stable = false;
    let tab = -1;
    let delim = '\n';
    let outFile: string | null = null;
    for (const [k, v] of parsed.opts) {
      switch (k) {
        case 'c':
          check = 'diagnose';
          break;
        case 'C':
          check = 'quiet';
          break;
        case 'check': {
          if (v === undefined) check = 'diagnose';
          else if (['quiet', 'silent'].some((x) => x.startsWith(v) && v)) check = 'quiet';
          else if ('diagnose-first'.startsWith(v) && v) check = 'diagnose';
          else
            return usage(
              'sort',
              `sort: invalid argument ${quote(v)} for '--check'\nValid arguments are:\n  - 'quiet', 'silent'\n  - 'diagnose-first'\n`,
              2,
            );
          break;
        }
        case 'k': {
          const key = parseKeySpec(v!);
          if (typeof key === 'string') return fail(key);
          keys.push(key);
          break;
        }
        case 'm':
        case 'S':
        case 'T':
        case 'P':
        case 'debug':
        case 'bs':
        case 'cp':
        case 'rs':
          break;
        case 'o':
          outFile = v!;
          break;
        case 's':
          stable = true;
          break;
        case 't': {
          const t = utf8ToLatin1(v!);
          if (t.length === 0) return fail('sort: empty tab\n');
          if (t.length > 1) {
            if (t === '\\0') tab = 0;
            else return fail(`sort: multi-character tab ${quote(v!)}\n`);
          } else {
            const c = t.charCodeAt(0);
            if (tab !== -1 && tab !== c) return fail('sort: incompatible tabs\n');
            tab = c;
          }
          break;
        }
        case 'u':
          unique = true;
          break;
        case 'z':
          delim = '\0';
          break;
        case 'sort': {
          const map: Record<string, string> = { general: 'g', human: 'h', month: 'M', numeric: 'n', random: 'R', version: 'V' };
          const hit = Object.keys(map).filter((x) => x.startsWith(v!) && v);
          if (hit.length !== 1) return usage('sort', `sort: invalid argument ${quote(v!)} for '--sort'\n`, 2);
          setOrdering(map[hit[0]!]!, g, false);
          break;
        }
        case 'F':
          return fail('sort: --files0-from is not supported\n');
        default:
          setOrdering(k, g, false);
      }
    }
    if (g.random || keys.some((k) => k.random)) {
      // Unsupported: fall back to the bundled sort (it shuffles).
      if (ctx.origCommand) return ctx.origCommand(argv);
    }
    // Keys without ordering options inherit the global ones.
    for (const k of keys) {
      if (defaultKeyCompare(k) && !k.reverse) {
        k.ignore = g.ignore;
        k.translate = g.translate;
        k.skipsblanks = g.skipsblanks;
        k.skipeblanks = g.skipeblanks;
        k.month = g.month;
        k.numeric = g.numeric;
        k.general = g.general;
        k.human = g.human;
        k.version = g.version;
        k.random = g.random;
        k.reverse = g.reverse;
      }
    }
    const nOrder = (k: Key) => Number(k.numeric) + Number(k.general) + Number(k.human) + Number(k.month) + Number(k.version);
    for (const k of [g, ...keys]) {
      if (nOrder(k) > 1 || (nOrder(k) && k.ignore !== 'none' && !k.numeric && !k.general && !k.human && false)) {
        const opts = (k.general ? 'g' : '') + (k.human ? 'h' : '') + (k.month ? 'M' : '') + (k.numeric ? 'n' : '') + (k.version ? 'V' : '');
        return fail(`sort: options '-${opts}' are incompatible\n`);
      }
    }
    if (!keys.length && !defaultKeyCompare(g)) {
      const k = { ...g, sword: -1, schar: 0, eword: -1, echar: 0 };
      keys.push(k);
    }
    const reverse = g.reverse;
    const files = parsed.operands.length ? parsed.operands : ['-'];
    if (check && files.length > 1)
      return usage('sort', `sort: extra operand ${quote(files[1]!)} not allowed with -${check === 'quiet' ? 'C' : 'c'}\n`, 2);
    const io = new Inputs(ctx);
    const lines: string[] = [];
    for (const f of files) {
      const inp = await io.read(f);
      if (!inp.ok) {
        if (inp.code === 'EISDIR') return fail(`sort: read failed: ${quotef(f)}: ${inp.text}\n`);
        return fail(`sort: cannot read: ${quotef(f)}: ${inp.text}\n`);
      }
      const b = inp.bytes;
      if (!b.length) continue;
      const parts = b.split(delim);
      if (b.endsWith(delim)) parts.pop();
      for (const p of parts) lines.push(p);
    }
    const cmp = (a: string, b: string): number => {
      if (keys.length) {
        const d = keyCompare(keys, a, b, tab);
        if (d || unique || stable) return d;
      }
      const d = a < b ? -1 : a > b ? 1 : 0;
      return reverse ? -d : d;
    };
    if (check) {
      for (let i = 1; i < lines.length; i++) {
        const d = cmp(lines[i - 1]!, lines[i]!);
        if (d > 0 || (unique && d === 0)) {
          const name = files[0] === '-' ? '-' : files[0]!;
          const msg = check === 'diagnose' ? `sort: ${utf8ToLatin1(name)}:${i + 1}: disorder: ${lines[i]}\n` : '';
          return { stdout: '', stderr: Buffer.from(msg, 'latin1').toString('utf8'), exitCode: 1 };
        }
      }
      return { stdout: '', stderr: '', exitCode: 0 };
    }
    const idx = lines.map((_, i) => i);
    idx.sort((x, y) => cmp(lines[x]!, lines[y]!) || x - y);
    let out: string[] = [];
    if (unique) {
      let last: string | null = null;
      for (const i of idx) {
        const l = lines[i]!;
        if (last !== null && cmp(last, l) === 0) continue;
        out.push(l);
        last = l;
      }
    } else out = idx.map((i) => lines[i]!);
    const text = out.length ? out.join(delim) + delim : '';
    if (outFile !== null) {
      try {
        await ctx.fs.writeFile(ctx.fs.resolvePath(ctx.cwd, outFile), Buffer.from(text, 'latin1'));
      } catch (e) {
        return fail(`sort: open failed: ${quotef(outFile)}: ${errnoMessage(e)}\n`);
      }
      return bytesResult('', '', 0);
    }
    return bytesResult(text, '', 0);
  });
}

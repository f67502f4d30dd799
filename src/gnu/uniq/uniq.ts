/** GNU uniq (coreutils 9.1): -c -d -D -u -i -f -s -w -z and --group/--all-repeated. */
import { Buffer } from 'node:buffer';
import { bytesResult } from '../kit/bytes.js';
import { defineCommand, type Command, type Result } from '../kit/command.js';
import { clampN, parseSize, passHelp, usage } from '../kit/coreutils.js';
import { errnoMessage } from '../kit/errno.js';
import { GetoptError, parseOptions, type LongOpt, type Parsed } from '../kit/getopt.js';
import { Inputs } from '../kit/input.js';
import { quote, quotef } from '../kit/quote.js';

// ---------------------------------------------------------------------------------------
// uniq
// ---------------------------------------------------------------------------------------

type AllRepeated = 'none' | 'prepend' | 'separate';
type Group = 'separate' | 'prepend' | 'append' | 'both';

interface UniqOptions {
  count: boolean;
  repeated: boolean;
  allRepeated: AllRepeated | null;
  group: Group | null;
  skipFields: number;
  skipChars: number;
  checkChars: number;
  ignoreCase: boolean;
  uniqueOnly: boolean;
  delim: string;
}

const LONGS: LongOpt[] = [
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
];

function num(v: string, what: string): number | Result {
  const x = parseSize(v, false);
  if (x === null || !/^\d+$/.test(v)) return { stdout: '', stderr: `uniq: ${v}: invalid number of ${what}\n`, exitCode: 1 };
  return clampN(x);
}

/** An --all-repeated or --group argument: a prefix of one of the choices, or the default when absent. */
function choiceArg<T extends string>(option: string, v: string | undefined, choices: readonly T[], absent: T): T | Result {
  const m = v === undefined ? absent : choices.find((x) => x.startsWith(v) && v);
  if (m) return m;
  const valid = choices.map((c) => `  - '${c}'\n`).join('');
  return usage('uniq', `uniq: invalid argument ${quote(v!)} for '--${option}'\nValid arguments are:\n${valid}`);
}

/** Sets a number-valued option from its argument; a Result is the error to answer with. */
function setNumber(o: UniqOptions, field: 'skipFields' | 'skipChars' | 'checkChars', v: string, what: string): Result | null {
  const r = num(v, what);
  if (typeof r !== 'number') return r;
  o[field] = r;
  return null;
}

/** Applies one option; a Result is the error to answer with. */
function applyOption(o: UniqOptions, k: string, v: string | undefined): Result | null {
  if (k === 'D') {
    const m = choiceArg('all-repeated', v, ['none', 'prepend', 'separate'] as const, 'none');
    if (typeof m !== 'string') return m;
    o.allRepeated = m;
  } else if (k === 'group') {
    const m = choiceArg('group', v, ['prepend', 'append', 'separate', 'both'] as const, 'separate');
    if (typeof m !== 'string') return m;
    o.group = m;
  } else if (k === 'f') return setNumber(o, 'skipFields', v!, 'fields to skip');
  else if (k === 's') return setNumber(o, 'skipChars', v!, 'bytes to skip');
  else if (k === 'w') return setNumber(o, 'checkChars', v!, 'bytes to compare');
  else if (k === 'c') o.count = true;
  else if (k === 'd') o.repeated = true;
  else if (k === 'i') o.ignoreCase = true;
  else if (k === 'u') o.uniqueOnly = true;
  else if (k === 'z') o.delim = '\0';
  return null;
}

/** The options and operands, or the usage error to answer with. */
function parseUniq(argv: string[]): { o: UniqOptions; inName: string; outName: string | undefined } | Result {
  let parsed: Parsed;
  try {
    parsed = parseOptions(argv, 'cdDf:is:uw:z', LONGS);
  } catch (e) {
    if (e instanceof GetoptError) return usage('uniq', `uniq: ${e.message}\n`);
    throw e;
  }
  const o: UniqOptions = {
    count: false,
    repeated: false,
    allRepeated: null,
    group: null,
    skipFields: 0,
    skipChars: 0,
    checkChars: Infinity,
    ignoreCase: false,
    uniqueOnly: false,
    delim: '\n',
  };
  for (const [k, v] of parsed.opts) {
    const bad = applyOption(o, k, v);
    if (bad) return bad;
  }
  if (o.group && (o.count || o.repeated || o.uniqueOnly || o.allRepeated)) {
    return usage('uniq', 'uniq: --group is mutually exclusive with -c/-d/-D/-u\n');
  }
  if (o.count && o.allRepeated) return usage('uniq', 'uniq: printing all duplicated lines and repeat counts is meaningless\n');
  if (parsed.operands.length > 2) return usage('uniq', `uniq: extra operand ${quote(parsed.operands[2]!)}\n`);
  return { o, inName: parsed.operands[0] ?? '-', outName: parsed.operands[1] };
}

/** The part of a line that is compared: after -f fields and -s bytes, at most -w bytes, -i folded. */
function keyOf(l: string, o: UniqOptions): string {
  let i = 0;
  for (let f = 0; f < o.skipFields; f++) {
    while (i < l.length && (l[i] === ' ' || l[i] === '\t')) i++;
    while (i < l.length && l[i] !== ' ' && l[i] !== '\t') i++;
  }
  i = Math.min(l.length, i + o.skipChars);
  let k = o.checkChars === Infinity ? l.slice(i) : l.slice(i, i + o.checkChars);
  if (o.ignoreCase) k = k.replace(/[a-z]+/g, (s) => s.toUpperCase());
  return k;
}

/** Runs of adjacent lines with equal keys. */
function groupsOf(lines: string[], o: UniqOptions): string[][] {
  const groups: string[][] = [];
  for (let i = 0; i < lines.length;) {
    const k = keyOf(lines[i]!, o);
    let j = i + 1;
    while (j < lines.length && keyOf(lines[j]!, o) === k) j++;
    groups.push(lines.slice(i, j));
    i = j;
  }
  return groups;
}

/** --group separate: a delimiter between groups only; prepend: before each; append: after each. */
function showGroups(groups: string[][], group: Group, delim: string, out: string[]): void {
  groups.forEach((gr, gi) => {
    if (group === 'prepend' || group === 'both' || (group === 'separate' && gi > 0)) out.push(delim);
    if (group === 'append' && gi > 0) out.push(delim);
    for (const l of gr) out.push(l + delim);
  });
  if ((group === 'append' || group === 'both') && groups.length) out.push(delim);
}

function showAllRepeated(groups: string[][], allRepeated: AllRepeated, delim: string, out: string[]): void {
  let first = true;
  for (const gr of groups) {
    if (gr.length < 2) continue;
    if (allRepeated === 'prepend' || (allRepeated === 'separate' && !first)) out.push(delim);
    first = false;
    for (const l of gr) out.push(l + delim);
  }
}

function show(groups: string[][], o: UniqOptions): string {
  const out: string[] = [];
  if (o.group) showGroups(groups, o.group, o.delim, out);
  else if (o.allRepeated) showAllRepeated(groups, o.allRepeated, o.delim, out);
  else {
    for (const gr of groups) {
      if (o.repeated && gr.length < 2) continue;
      if (o.uniqueOnly && gr.length > 1) continue;
      out.push((o.count ? `${String(gr.length).padStart(7)} ` : '') + gr[0] + o.delim);
    }
  }
  return out.join('');
}

export function uniqCommand(): Command {
  return defineCommand('uniq', async (argv, ctx) => {
    const help = await passHelp(argv, ctx);
    if (help) return help;
    const parsed = parseUniq(argv);
    if (!('o' in parsed)) return parsed;
    const { o, inName, outName } = parsed;
    const inp = await new Inputs(ctx).read(inName);
    if (!inp.ok) {
      if (inp.code === 'EISDIR') return { stdout: '', stderr: `uniq: error reading ${quote(inName)}\n`, exitCode: 1 };
      return { stdout: '', stderr: `uniq: ${quotef(inName)}: ${inp.text}\n`, exitCode: 1 };
    }
    const b = inp.bytes;
    const lines = b.length ? b.split(o.delim) : [];
    if (b.endsWith(o.delim)) lines.pop();
    const text = show(groupsOf(lines, o), o);
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

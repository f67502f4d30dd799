/**
 * GNU od (coreutils 9.1), integer and character formats: -A {o,d,x,n}, -t {a,c,d,o,u,x}[SIZE]
 * (several -t are aligned as GNU aligns them), the traditional -a -b -c -d -i -l -o -s -x, -j,
 * -N, -w, -v and the "*" that stands for repeated lines. just-bash's od ignored -A and -t's size
 * (`od -x` printed octal bytes, `od -A x -t x1 f` read "x" as a file). Floating-point formats are
 * refused with a message saying so rather than printed wrong.
 */
import { defineCommand, type CustomCommand, type Ctx } from '../kit/command.js';
import { Inputs } from '../kit/input.js';
import { getopt, type LongOpt } from '../kit/getopt.js';

interface Spec {
  kind: 'a' | 'c' | 'd' | 'o' | 'u' | 'x';
  size: number;
  /** Characters of the widest value, without the separating space. */
  width: number;
  /** Extra spaces spread over a line's fields so that every format's line is as wide (GNU). */
  pad: number;
}

const LONGS: LongOpt[] = [
  { name: 'address-radix', key: 'A', arg: 'required' },
  { name: 'skip-bytes', key: 'j', arg: 'required' },
  { name: 'read-bytes', key: 'N', arg: 'required' },
  { name: 'format', key: 't', arg: 'required' },
  { name: 'output-duplicates', key: 'v', arg: 'none' },
  { name: 'width', key: 'w', arg: 'optional' },
];
const TRADITIONAL: Record<string, string> = { a: 'a', b: 'o1', c: 'c', d: 'u2', i: 'dI', l: 'dL', o: 'o2', s: 'd2', x: 'x2' };
const SIZES: Record<string, number> = { C: 1, S: 2, I: 4, L: 8 };
const DIGITS: Record<string, Record<number, number>> = {
  x: { 1: 2, 2: 4, 4: 8, 8: 16 },
  o: { 1: 3, 2: 6, 4: 11, 8: 22 },
  u: { 1: 3, 2: 5, 4: 10, 8: 20 },
  d: { 1: 4, 2: 6, 4: 11, 8: 20 },
};
const NAMES = [
  'nul',
  'soh',
  'stx',
  'etx',
  'eot',
  'enq',
  'ack',
  'bel',
  'bs',
  'ht',
  'nl',
  'vt',
  'ff',
  'cr',
  'so',
  'si',
  'dle',
  'dc1',
  'dc2',
  'dc3',
  'dc4',
  'nak',
  'syn',
  'etb',
  'can',
  'em',
  'sub',
  'esc',
  'fs',
  'gs',
  'rs',
  'us',
  'sp',
];
const C_ESCAPES: Record<number, string> = { 0: '\\0', 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };

/** The specs of one -t argument ("x1", "xC", "d2c", …), or an error message. */
function parseType(arg: string): Spec[] | string {
  const out: Spec[] = [];
  let i = 0;
  while (i < arg.length) {
    const kind = arg[i++]!;
    if (kind === 'a' || kind === 'c') {
      out.push({ kind, size: 1, width: 3, pad: 0 });
      continue;
    }
    if (kind === 'f') return 'od: floating-point formats (-t f, -f) are not supported here; use -t x or -t d';
    if (!'doux'.includes(kind)) return `od: invalid character '${kind}' in type string '${arg}'`;
    let size = 4;
    const m = /^(\d+|[CSIL])/.exec(arg.slice(i));
    if (m) {
      i += m[0].length;
      size = SIZES[m[0]] ?? Number(m[0]);
      if (!DIGITS[kind]![size]) return `od: invalid type string '${arg}';\nthis system doesn't provide a ${m[0]}-byte integral type`;
    }
    if (arg[i] === 'z') return `od: the 'z' suffix is not supported here (type string '${arg}')`;
    out.push({ kind: kind as Spec['kind'], size, width: DIGITS[kind]![size]!, pad: 0 });
  }
  return out;
}

/** A byte count as GNU reads it: decimal, 0x hex, 0 octal, with b/k/m… multipliers. */
function parseCount(text: string): number | null {
  const m = /^(0x[0-9a-f]+|0[0-7]*|[1-9]\d*)(b|kB|k|K|KiB|MB|M|MiB|GB|G|GiB)?$/i.exec(text);
  if (!m) return null;
  const base = m[1]!.toLowerCase().startsWith('0x')
    ? parseInt(m[1]!.slice(2), 16)
    : m[1]!.length > 1 && m[1]!.startsWith('0')
      ? parseInt(m[1]!, 8)
      : Number(m[1]);
  const mult: Record<string, number> = {
    b: 512,
    kB: 1000,
    k: 1024,
    K: 1024,
    KiB: 1024,
    MB: 1e6,
    M: 1 << 20,
    MiB: 1 << 20,
    GB: 1e9,
    G: 1 << 30,
    GiB: 1 << 30,
  };
  return base * (m[2] ? mult[m[2]]! : 1);
}

function value(spec: Spec, bytes: Buffer, at: number): string {
  if (spec.kind === 'a') {
    const b = bytes[at]! & 0x7f;
    return b === 0x7f ? 'del' : b <= 32 ? NAMES[b]! : String.fromCharCode(b);
  }
  if (spec.kind === 'c') {
    const b = bytes[at]!;
    return C_ESCAPES[b] ?? (b >= 32 && b < 127 ? String.fromCharCode(b) : b.toString(8).padStart(3, '0'));
  }
  let v = 0n;
  for (let k = spec.size - 1; k >= 0; k--) v = (v << 8n) | BigInt(bytes[at + k]!);
  if (spec.kind === 'd') v = BigInt.asIntN(spec.size * 8, v);
  if (spec.kind === 'x') return v.toString(16).padStart(spec.width, '0');
  if (spec.kind === 'o') return v.toString(8).padStart(spec.width, '0');
  return v.toString();
}

/** One format's line of a block (`count` bytes, the block zero-filled to a whole field). */
function formatLine(spec: Spec, block: Buffer, count: number, perLine: number): string {
  const fields = perLine / spec.size;
  const shown = Math.ceil(count / spec.size);
  let out = '';
  let padLeft = spec.pad;
  for (let i = fields, f = 0; fields - shown < i; i--, f++) {
    const next = Math.floor((spec.pad * (i - 1)) / fields);
    out += ' ' + value(spec, block, f * spec.size).padStart(padLeft - next + spec.width);
    padLeft = next;
  }
  return out;
}

interface Options {
  radix: 'o' | 'd' | 'x' | 'n';
  specs: Spec[];
  skip: number;
  limit: number | null;
  width: number;
  all: boolean;
}

function parseOptions(args: string[]): { opts: Options; files: string[]; warning: string } | string {
  // -w takes an optional attached argument (-w, -w8), which getopt's short options cannot say.
  const p = getopt(
    'od',
    args.map((a) => (/^-w\d*$/.test(a) ? (a === '-w' ? '--width' : `--width=${a.slice(2)}`) : a)),
    'A:j:N:t:vabcdilosx',
    LONGS,
  );
  if ('error' in p) return p.error.replace(/\n$/, '');
  const opts: Options = { radix: 'o', specs: [], skip: 0, limit: null, width: 16, all: false };
  for (const [k, v] of p.opts) {
    if (k === 'A') {
      if (!['o', 'd', 'x', 'n'].includes(v!)) return `od: invalid output address radix '${v}'; it must be one character from [doxn]`;
      opts.radix = v as Options['radix'];
    } else if (k === 'j' || k === 'N') {
      const n = parseCount(v!);
      if (n === null) return `od: invalid ${k === 'j' ? 'skip' : 'read'} argument '${v}'`;
      if (k === 'j') opts.skip = n;
      else opts.limit = n;
    } else if (k === 't' || TRADITIONAL[k]) {
      const specs = parseType(k === 't' ? v! : TRADITIONAL[k]!);
      if (typeof specs === 'string') return specs;
      opts.specs.push(...specs);
    } else if (k === 'v') opts.all = true;
    else if (k === 'w') {
      const n = v === undefined ? 32 : Number(v);
      if (!/^\d*$/.test(v ?? '') || !(n > 0)) return `od: invalid -w argument '${v}'`;
      opts.width = n;
    }
  }
  if (!opts.specs.length) opts.specs.push(...(parseType('o2') as Spec[]));
  const lcm = opts.specs.reduce((m, s) => (m % s.size === 0 ? m : m * s.size), 1);
  let warning = '';
  if (opts.width % lcm !== 0) {
    warning = `od: warning: invalid width ${opts.width}; using ${lcm} instead\n`;
    opts.width = lcm;
  }
  // GNU: every format's line is as wide as the widest one, the difference spread over its fields.
  const lineWidth = Math.max(...opts.specs.map((s) => (s.width + 1) * (opts.width / s.size)));
  for (const s of opts.specs) s.pad = lineWidth - (s.width + 1) * (opts.width / s.size);
  return { opts, files: p.operands, warning };
}

function address(radix: Options['radix'], n: number): string {
  if (radix === 'n') return '';
  if (radix === 'x') return n.toString(16).padStart(6, '0');
  return n.toString(radix === 'o' ? 8 : 10).padStart(7, '0');
}

/** The dump of `data` (already skipped and limited), starting at address `start`. */
function dump(data: Buffer, start: number, o: Options): string {
  const indent = ' '.repeat(address(o.radix, 0).length);
  let out = '';
  let previous: Buffer | null = null;
  let starred = false;
  for (let at = 0; at < data.length; at += o.width) {
    const count = Math.min(o.width, data.length - at);
    const block = Buffer.alloc(o.width);
    data.copy(block, 0, at, at + count);
    if (!o.all && previous && count === o.width && block.equals(previous)) {
      if (!starred) out += '*\n';
      starred = true;
      continue;
    }
    previous = block;
    starred = false;
    o.specs.forEach((s, i) => {
      out += (i === 0 ? address(o.radix, start + at) : indent) + formatLine(s, block, count, o.width) + '\n';
    });
  }
  if (o.radix !== 'n') out += address(o.radix, start + data.length) + '\n';
  return out;
}

export function odCommand(): CustomCommand {
  return defineCommand('od', async (args, ctx: Ctx) => {
    if (args.includes('--help') || args.includes('--version')) return ctx.origCommand!(args);
    const parsed = parseOptions(args);
    if (typeof parsed === 'string') {
      const usage = /not supported here/.test(parsed) ? '' : "Try 'od --help' for more information.\n";
      return { stdout: '', stderr: `${parsed}\n${usage}`, exitCode: 1 };
    }
    const { opts, files } = parsed;
    let stderr = parsed.warning;
    let exitCode = 0;
    const parts: Buffer[] = [];
    const inputs = new Inputs(ctx);
    for (const f of files.length ? files : ['-']) {
      const inp = await inputs.read(f);
      if (inp.ok) parts.push(Buffer.from(inp.bytes, 'latin1'));
      else {
        stderr += `od: ${f}: ${inp.code === 'EISDIR' ? 'read error: ' : ''}${inp.text}\n`;
        exitCode = 1;
      }
    }
    const all = Buffer.concat(parts);
    if (opts.skip > all.length) return { stdout: '', stderr: stderr + 'od: cannot skip past end of combined input\n', exitCode: 1 };
    const data = all.subarray(opts.skip, opts.limit === null ? undefined : opts.skip + opts.limit);
    return { stdout: dump(data, opts.skip, opts), stderr, exitCode };
  });
}

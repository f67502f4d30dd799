/** GNU cat (coreutils 9.1): -n -b -s -E -T -v -A and their combinations, byte for byte. */
import { bytesResult } from '../kit/bytes.js';
import { defineCommand, type Command } from '../kit/command.js';
import { passHelp, usage } from '../kit/coreutils.js';
import { GetoptError, parseOptions, type LongOpt, type Parsed } from '../kit/getopt.js';
import { eachInput, Inputs } from '../kit/input.js';
import { inOrder } from '../kit/order.js';
import { quotef } from '../kit/quote.js';

// ---------------------------------------------------------------------------------------
// cat
// ---------------------------------------------------------------------------------------

const LONGS: LongOpt[] = [
  { name: 'show-all', key: 'A', arg: 'none' },
  { name: 'number-nonblank', key: 'b', arg: 'none' },
  { name: 'show-ends', key: 'E', arg: 'none' },
  { name: 'number', key: 'n', arg: 'none' },
  { name: 'squeeze-blank', key: 's', arg: 'none' },
  { name: 'show-tabs', key: 'T', arg: 'none' },
  { name: 'show-nonprinting', key: 'v', arg: 'none' },
];

interface CatOptions {
  number: boolean;
  nonblank: boolean;
  ends: boolean;
  squeeze: boolean;
  tabs: boolean;
  nonprint: boolean;
}

function catOptions(opts: Parsed['opts']): CatOptions {
  const o: CatOptions = { number: false, nonblank: false, ends: false, squeeze: false, tabs: false, nonprint: false };
  for (const [k] of opts) {
    if (k === 'A') o.nonprint = o.ends = o.tabs = true;
    else if (k === 'b') o.number = o.nonblank = true;
    else if (k === 'e') o.nonprint = o.ends = true;
    else if (k === 'E') o.ends = true;
    else if (k === 'n') o.number = true;
    else if (k === 's') o.squeeze = true;
    else if (k === 't') o.nonprint = o.tabs = true;
    else if (k === 'T') o.tabs = true;
    else if (k === 'v') o.nonprint = true;
  }
  return o;
}

/** -v's notation: ^X for controls, M- for bytes with the high bit set; -T shows tabs as ^I. */
function showNonprinting(line: string, o: CatOptions): string {
  let s = '';
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 9) s += o.tabs ? '^I' : '\t';
    else if (!o.nonprint) s += line[i];
    else if (c >= 128) {
      const d = c - 128;
      s += 'M-' + (d < 32 ? '^' + String.fromCharCode(d + 64) : d === 127 ? '^?' : String.fromCharCode(d));
    } else if (c < 32) s += '^' + String.fromCharCode(c + 64);
    else if (c === 127) s += '^?';
    else s += line[i];
  }
  return s;
}

/** Numbers, squeezes and shows lines; its state carries across files, as GNU cat treats its inputs as one stream. */
class LineFilter {
  private lineNo = 0;
  private atStart = true;
  private blankRun = 0;
  constructor(
    private readonly o: CatOptions,
    private readonly out: string[],
  ) {}

  write(b: string): void {
    let pos = 0;
    while (pos < b.length) {
      const j = b.indexOf('\n', pos);
      const hasNl = j !== -1;
      this.line(b.slice(pos, hasNl ? j : b.length), hasNl);
      pos = hasNl ? j + 1 : b.length;
    }
  }

  private line(line: string, hasNl: boolean): void {
    const o = this.o;
    if (this.atStart && line === '' && hasNl) {
      this.blankRun++;
      if (o.squeeze && this.blankRun > 1) return;
    } else if (this.atStart) this.blankRun = 0;
    let s = '';
    if (this.atStart && o.number && !(o.nonblank && line === '' && hasNl)) s += `${String(++this.lineNo).padStart(6)}\t`;
    s += o.nonprint || o.tabs ? showNonprinting(line, o) : line;
    if (hasNl) s += o.ends ? '$\n' : '\n';
    this.out.push(s);
    this.atStart = hasNl;
  }
}

export function catCommand(): Command {
  return defineCommand('cat', async (argv, ctx) => {
    const help = await passHelp(argv, ctx);
    if (help) return help;
    let parsed: Parsed;
    try {
      parsed = parseOptions(argv, 'AbeEnstTuv', LONGS);
    } catch (e) {
      if (e instanceof GetoptError) return usage('cat', `cat: ${e.message}\n`);
      throw e;
    }
    const o = catOptions(parsed.opts);
    const plain = !o.number && !o.ends && !o.squeeze && !o.tabs && !o.nonprint;
    const files = parsed.operands.length ? parsed.operands : ['-'];
    const out: string[] = [];
    const filter = new LineFilter(o, out);
    const report = await eachInput(
      new Inputs(ctx),
      files,
      (f, inp) => `cat: ${quotef(f)}: ${inp.text}\n`,
      (b) => (plain ? out.push(b) : filter.write(b)),
      out,
    );
    // For `2>&1`: each message after the output written before it (kit/order.ts).
    const r = bytesResult(out.join(''), report.stderr, report.exitCode);
    return inOrder(r, () => report.errors.chunks(r.stdout));
  });
}

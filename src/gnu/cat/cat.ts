/** GNU cat (coreutils 9.1): -n -b -s -E -T -v -A and their combinations, byte for byte. */
import { bytesResult } from '../kit/bytes.js';
import { defineCommand, type Command } from '../kit/command.js';
import { passHelp, usage } from '../kit/coreutils.js';
import { GetoptError, parseOptions, type Parsed } from '../kit/getopt.js';
import { Inputs } from '../kit/input.js';
import { quotef } from '../kit/quote.js';

// ---------------------------------------------------------------------------------------
// cat
// ---------------------------------------------------------------------------------------

export function catCommand(): Command {
  return defineCommand('cat', async (argv, ctx) => {
    const help = await passHelp(argv, ctx);
    if (help) return help;
    let parsed: Parsed;
    try {
      parsed = parseOptions(argv, 'AbeEnstTuv', [
        { name: 'show-all', key: 'A', arg: 'none' },
        { name: 'number-nonblank', key: 'b', arg: 'none' },
        { name: 'show-ends', key: 'E', arg: 'none' },
        { name: 'number', key: 'n', arg: 'none' },
        { name: 'squeeze-blank', key: 's', arg: 'none' },
        { name: 'show-tabs', key: 'T', arg: 'none' },
        { name: 'show-nonprinting', key: 'v', arg: 'none' },
      ]);
    } catch (e) {
      if (e instanceof GetoptError) return usage('cat', `cat: ${e.message}\n`);
      throw e;
    }
    let number = false;
    let nonblank = false;
    let ends = false;
    let squeeze = false;
    let tabs = false;
    let nonprint = false;
    for (const [k] of parsed.opts) {
      if (k === 'A') nonprint = ends = tabs = true;
      else if (k === 'b') number = nonblank = true;
      else if (k === 'e') nonprint = ends = true;
      else if (k === 'E') ends = true;
      else if (k === 'n') number = true;
      else if (k === 's') squeeze = true;
      else if (k === 't') nonprint = tabs = true;
      else if (k === 'T') tabs = true;
      else if (k === 'v') nonprint = true;
    }
    const plain = !number && !ends && !squeeze && !tabs && !nonprint;
    const files = parsed.operands.length ? parsed.operands : ['-'];
    const io = new Inputs(ctx);
    const out: string[] = [];
    let err = '';
    let code = 0;
    // State carried across files, as GNU cat treats its inputs as one stream.
    let lineNo = 0;
    let atStart = true;
    let blankRun = 0;
    for (const f of files) {
      const inp = await io.read(f);
      if (!inp.ok) {
        err += `cat: ${quotef(f)}: ${inp.text}\n`;
        code = 1;
        continue;
      }
      const b = inp.bytes;
      if (plain) {
        out.push(b);
        continue;
      }
      let pos = 0;
      while (pos < b.length) {
        const j = b.indexOf('\n', pos);
        const line = b.slice(pos, j === -1 ? b.length : j);
        const hasNl = j !== -1;
        pos = hasNl ? j + 1 : b.length;
        if (atStart && line === '' && hasNl) {
          blankRun++;
          if (squeeze && blankRun > 1) continue;
        } else if (atStart) blankRun = 0;
        let s = '';
        if (atStart && number && !(nonblank && line === '' && hasNl)) s += `${String(++lineNo).padStart(6)}\t`;
        if (nonprint || tabs) {
          for (let i = 0; i < line.length; i++) {
            const c = line.charCodeAt(i);
            if (c === 9) s += tabs ? '^I' : '\t';
            else if (!nonprint) s += line[i];
            else if (c >= 128) {
              const d = c - 128;
              s += 'M-' + (d < 32 ? '^' + String.fromCharCode(d + 64) : d === 127 ? '^?' : String.fromCharCode(d));
            } else if (c < 32) s += '^' + String.fromCharCode(c + 64);
            else if (c === 127) s += '^?';
            else s += line[i];
          }
        } else s += line;
        if (hasNl) s += ends ? '$\n' : '\n';
        out.push(s);
        atStart = hasNl;
      }
    }
    return bytesResult(out.join(''), err, code);
  });
}

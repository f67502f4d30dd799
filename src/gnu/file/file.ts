/** `file` as file 5.44 words it: binary data told from text, text by kind, encoding and line terminators. */
import { defineCommand, latin1FromBytes, type CustomCommand, type Ctx } from '../kit/command.js';
import { isValidUtf8 } from '../kit/bytes.js';

/** Control characters that make GNU file call content "data" (all but \a\b\t\n\v\f\r and ESC). */
const BINARY_CONTROL = /[\x00-\x06\x0e-\x1a\x1c-\x1f\x7f]/;
const SCRIPTS: Array<[RegExp, string]> = [
  [/^(sh|dash|ash)$/, 'POSIX shell script'],
  [/^bash$/, 'Bourne-Again shell script'],
  [/^python[\d.]*$/, 'Python script'],
  [/^perl$/, 'Perl script'],
  [/^ruby$/, 'Ruby script'],
];

/** GNU file's description of text: its kind, encoding and line terminators. */
function describeText(text: string, ascii: boolean): string {
  const enc = ascii ? 'ASCII text' : 'Unicode text, UTF-8 text';
  const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(text);
  if (shebang) {
    const prog = (shebang[1]!.endsWith('/env') && shebang[2] ? shebang[2] : shebang[1]!).split('/').pop()!;
    const kind = SCRIPTS.find(([re]) => re.test(prog))?.[1];
    return kind ? `${kind}, ${enc} executable` : `a ${shebang[2] ? `${shebang[1]} ${shebang[2]}` : shebang[1]} script, ${enc} executable`;
  }
  if (/^\s*[[{]/.test(text)) {
    try {
      JSON.parse(text);
      return 'JSON text data';
    } catch {
      /* not JSON */
    }
  }
  const terms: string[] = [];
  const crlf = /\r\n/.test(text);
  const lf = /(^|[^\r])\n/.test(text);
  const cr = /\r(?!\n)/.test(text);
  if (crlf) terms.push('CRLF');
  if (cr) terms.push('CR');
  if (lf && (crlf || cr)) terms.push('LF');
  let out = enc;
  if (terms.length) out += `, with ${terms.join(', ')} line terminators`;
  else if (!lf) out += ', with no line terminators';
  let longest = 0;
  for (const line of text.split(/\r\n|\r|\n/)) longest = Math.max(longest, Buffer.byteLength(line));
  if (longest > 300) out += `, with very long lines (${longest})`;
  return out;
}

/** file's answer for one file's bytes; `engine` describes binary formats (PNG, gzip, …). */
async function describe(bytes: Buffer, engine: () => Promise<string>, mime: boolean): Promise<string> {
  if (!bytes.length) return mime ? 'inode/x-empty; charset=binary' : 'empty';
  const latin = bytes.toString('latin1');
  const ascii = !/[\x80-\xff]/.test(latin);
  if (BINARY_CONTROL.test(latin) || (!ascii && !isValidUtf8(bytes))) {
    if (mime) return 'application/octet-stream; charset=binary';
    // just-bash's magic numbers name images and archives; it calls anything else text.
    const said = await engine();
    return said && !/text/.test(said) ? said : 'data';
  }
  const text = bytes.toString('utf8');
  if (mime) {
    const type = describeText(text, ascii) === 'JSON text data' ? 'application/json' : 'text/plain';
    return `${type}; charset=${ascii ? 'us-ascii' : 'utf-8'}`;
  }
  return describeText(text, ascii);
}

export function fileCommand(): CustomCommand {
  return defineCommand('file', async (args, ctx: Ctx) => {
    let brief = false;
    let mime = false;
    const names: string[] = [];
    for (const a of args) {
      if (a === '-b' || a === '--brief') brief = true;
      else if (a === '-i' || a === '--mime') mime = true;
      else if (a === '-bi' || a === '-ib') brief = mime = true;
      else if (a === '-L' || a === '--dereference') continue;
      else if (a.startsWith('-') && a !== '-') return ctx.origCommand!(args);
      else names.push(a);
    }
    if (!names.length)
      return {
        stdout: '',
        stderr:
          'Usage: file [-bchikLlNnprsSvzZ0] [--apple] [--extension] [--mime-encoding]\n            [--mime-type] [-e <testname>] [-F <separator>]  [-f <namefile>]\n            [-m <magicfiles>] [-P <parameter=value>] [--exclude-quiet]\n            <file> ...\n       file -C [-m <magicfiles>]\n       file [--help]\n',
        exitCode: 1,
      };
    const width = Math.max(...names.map((n) => (n === '-' ? '/dev/stdin' : n).length)) + 1;
    let stdout = '';
    for (const name of names) {
      let what: string;
      try {
        if (name === '-') what = await describe(Buffer.from(latin1FromBytes(ctx.stdin), 'latin1'), async () => '', mime);
        else {
          const path = ctx.fs.resolvePath(ctx.cwd, name);
          const st = await ctx.fs.stat(path);
          if (st.isDirectory) what = mime ? 'inode/directory; charset=binary' : 'directory';
          else {
            const engine = async () => (await ctx.origCommand!(['-b', name])).stdout.trim();
            what = await describe(Buffer.from(await ctx.fs.readFileBuffer(path)), engine, mime);
          }
        }
      } catch {
        what = `cannot open \`${name}' (No such file or directory)`;
      }
      const label = name === '-' ? '/dev/stdin' : name;
      // GNU pads "name:" to the longest name's width, so the descriptions line up.
      stdout += brief ? `${what}\n` : `${`${label}:`.padEnd(width)} ${what}\n`;
    }
    return { stdout, stderr: '', exitCode: 0 };
  });
}

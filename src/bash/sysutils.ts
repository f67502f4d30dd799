/**
 * Commands about the system rather than file contents, as GNU answers them here: `which` finds
 * every offered command in /usr/bin (as `command -v` does), `file` tells binary data from text
 * (file 5.44's words), `chmod` says the store keeps no modes instead of succeeding silently,
 * and just-bash's own file-changing commands print
 * filesystem errors in GNU's words (naming a scope the key lacks).
 */
import { defineCommand, latin1FromBytes, type CustomCommand, type Ctx } from '../gnu/kit/command.js';
import { BASH_COMMANDS } from './commands.js';
import { gnuErrnoMessages } from '../gnu/kit/errno.js';
import { isValidUtf8 } from '../gnu/kit/bytes.js';

/** Where `which` (and `command -v`) finds the commands: every one is in both (usrmerge). */
const BIN_DIRS = ['/usr/bin', '/bin'];
/** Offered commands that are files in /usr/bin on GNU systems; `help` is a builtin only. */
const PROGRAMS = new Set<string>([...BASH_COMMANDS.filter((c) => c !== 'help'), 'test', '[']);

function whichCommand(): CustomCommand {
  return defineCommand('which', async (args, ctx: Ctx) => {
    let all = false;
    const names: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === '--') {
        names.push(...args.slice(i + 1));
        break;
      }
      if (/^-[as]+$/.test(a)) all ||= a.includes('a');
      else if (a.startsWith('-') && a !== '-')
        return { stdout: '', stderr: `Illegal option ${a.slice(0, 2)}\nUsage: /usr/bin/which [-as] args\n`, exitCode: 2 };
      else names.push(a);
    }
    if (!names.length) return { stdout: '', stderr: '', exitCode: 1 };
    const path = (ctx.env.get('PATH') ?? '/usr/bin:/bin').split(':');
    let stdout = '';
    let exitCode = 0;
    for (const name of names) {
      const found: string[] = [];
      if (name.includes('/')) {
        // Files of the store are never executable: only a command's own path is one.
        const dir = name.slice(0, name.lastIndexOf('/'));
        if (BIN_DIRS.includes(dir) && PROGRAMS.has(name.slice(dir.length + 1))) found.push(name);
      } else if (PROGRAMS.has(name)) {
        for (const dir of path) if (BIN_DIRS.includes(dir.replace(/\/+$/, ''))) found.push(`${dir.replace(/\/+$/, '')}/${name}`);
      }
      if (!found.length) exitCode = 1;
      stdout += (all ? found : found.slice(0, 1)).map((f) => f + '\n').join('');
    }
    return { stdout, stderr: '', exitCode };
  });
}

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

function fileCommand(): CustomCommand {
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

const MODE = /^(?:[0-7]{1,4}|(?:[ugoa]*(?:[-+=](?:[rwxXst]*|[ugo]))+)(?:,[ugoa]*(?:[-+=](?:[rwxXst]*|[ugo]))+)*)$/;

/** The store keeps no permission bits: say so, as GNU chmod on a filesystem without modes. */
function chmodCommand(): CustomCommand {
  return defineCommand('chmod', async (args, ctx: Ctx) => {
    if (args.includes('--help') || args.includes('--version')) return ctx.origCommand!(args);
    let quiet = false;
    const operands: string[] = [];
    for (const a of args) {
      if (/^-[Rcfv]+$/.test(a)) quiet ||= a.includes('f');
      else if (a === '--recursive' || a === '--changes' || a === '--verbose') continue;
      else if (a === '--silent' || a === '--quiet') quiet = true;
      else operands.push(a); // "-w", "-x": modes, as GNU reads them
    }
    if (operands.length === 0) return { stdout: '', stderr: "chmod: missing operand\nTry 'chmod --help' for more information.\n", exitCode: 1 };
    const [mode, ...files] = operands;
    if (!MODE.test(mode!)) return { stdout: '', stderr: `chmod: invalid mode: '${mode}'\nTry 'chmod --help' for more information.\n`, exitCode: 1 };
    if (!files.length)
      return { stdout: '', stderr: `chmod: missing operand after '${mode}'\nTry 'chmod --help' for more information.\n`, exitCode: 1 };
    let stderr = '';
    for (const f of files) {
      try {
        await ctx.fs.stat(ctx.fs.resolvePath(ctx.cwd, f));
        if (!quiet) stderr += `chmod: changing permissions of '${f}': Operation not supported (files here have no permission bits)\n`;
      } catch {
        stderr += `chmod: cannot access '${f}': No such file or directory\n`;
      }
    }
    return { stdout: '', stderr, exitCode: 1 };
  });
}

/** just-bash's own commands that change files, with filesystem errors in GNU's words. */
function gnuErrors(name: string): CustomCommand {
  return defineCommand(name, async (args, ctx: Ctx) => {
    const r = await ctx.origCommand!(args);
    return r.exitCode === 0 ? r : { ...r, stderr: gnuErrnoMessages(r.stderr) };
  });
}

export function systemCommands(): CustomCommand[] {
  return [whichCommand(), fileCommand(), chmodCommand(), ...['mkdir', 'rmdir', 'touch', 'cp', 'mv'].map(gnuErrors)];
}

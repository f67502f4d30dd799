/**
 * GNU `stat` (coreutils 9.1) for the bash tool: the default layout, -t (terse), -c/--format
 * (a newline after each file) and --printf (escapes interpreted, no newline), with the
 * directives %a %A %b %B %d %D %f %F %g %G %h %i %m %n %N %o %s %t %T %u %U %w %W %x %X %y
 * %Y %z %Z and printf-style flags/width/precision. Times print in UTC (`+0000`).
 *
 * What the store has no notion of, and the fixed values used (see kit/file-info.ts): Blocks are 512-byte
 * units of whole 4 KiB blocks (ceil(size / 4096) * 8; a directory 8); IO Block 4096; Device
 * `0,42` (%d 42, %D 2a); Inode a stable hash of the path; Links 1 for a file, 2 + subdirectories
 * for a directory; Uid/Gid 1000 `agent`; Access and Change times are the mtime; Birth is unknown
 * (`-`, %W 0). Errors: `stat: cannot statx 'x': No such file or directory`, exit 1.
 * -L/--dereference, --cached are accepted (there are no symbolic links); -f is not supported.
 */
import { defineCommand, type CustomCommand, type FsStat, type Ctx } from '../kit/command.js';
import { errnoMessage } from '../kit/errno.js';
import { getopt, type LongOpt } from '../kit/getopt.js';
import { shellQuote } from '../kit/quote.js';
import { GID, GROUP, OWNER, UID, epochSeconds, fullTime, inode, isDevice, kib, linkCount, modeString, permBits } from '../kit/file-info.js';

const TRY = "Try 'stat --help' for more information.\n";
const DEV_MAJOR = 0;
const DEV_MINOR = 42;

const LONGS: LongOpt[] = [
  { name: 'dereference', key: 'L', arg: 'none' },
  { name: 'file-system', key: 'f', arg: 'none' },
  { name: 'format', key: 'c', arg: 'required' },
  { name: 'printf', key: 'printf', arg: 'required' },
  { name: 'terse', key: 't', arg: 'none' },
  { name: 'cached', key: 'cached', arg: 'required' },
  { name: 'help', key: 'help', arg: 'none' },
  { name: 'version', key: 'version', arg: 'none' },
];

const DEFAULT_FORMAT =
  '  File: %n\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n' +
  'Device: %Hd,%Ld\tInode: %-10i  Links: %h\n' +
  'Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n' +
  'Access: %x\nModify: %y\nChange: %z\n Birth: %w\n';
const DEVICE_FORMAT =
  '  File: %n\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n' +
  'Device: %Hd,%Ld\tInode: %-10i  Links: %-5h Device type: %Hr,%Lr\n' +
  'Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n' +
  'Access: %x\nModify: %y\nChange: %z\n Birth: %w\n';
const TERSE_FORMAT = '%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o\n';

function fileType(st: FsStat): string {
  const t = st.mode & 0o170000;
  if (st.isDirectory) return 'directory';
  if (st.isSymbolicLink) return 'symbolic link';
  if (t === 0o020000) return 'character special file';
  if (t === 0o060000) return 'block special file';
  if (t === 0o010000) return 'fifo';
  if (t === 0o140000) return 'socket';
  return st.size === 0 ? 'regular empty file' : 'regular file';
}

/** Interprets --printf backslash escapes. */
function escapes(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/gs, (_, e: string) => {
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8) & 0xff);
    const map: Record<string, string> = {
      a: '\x07',
      b: '\b',
      e: '\x1b',
      f: '\f',
      n: '\n',
      r: '\r',
      t: '\t',
      v: '\v',
      '\\': '\\',
      '"': '"',
      "'": "'",
    };
    return map[e] ?? '\\' + e;
  });
}

function pad(s: string, flags: string, width: string, numeric: boolean): string {
  const w = width ? Number(width) : 0;
  if (s.length >= w) return s;
  if (flags.includes('-')) return s.padEnd(w, ' ');
  if (flags.includes('0') && numeric) {
    const neg = s.startsWith('-');
    return (neg ? '-' : '') + (neg ? s.slice(1) : s).padStart(w - (neg ? 1 : 0), '0');
  }
  return s.padStart(w, ' ');
}

interface Info {
  name: string;
  st: FsStat;
  links: number;
  ino: number;
}

/** One directive's flags, width, precision and H/L modifier, and the ways a value is printed under them. */
class Spec {
  constructor(
    readonly flags: string,
    readonly width: string,
    readonly prec: string | undefined,
    readonly hl: string,
  ) {}

  num(n: number | string): string {
    const { flags, prec } = this;
    let s = String(n);
    if (prec !== undefined && prec !== '') s = s.padStart(Number(prec), '0');
    if (flags.includes('+') && !s.startsWith('-')) s = '+' + s;
    else if (flags.includes(' ') && !s.startsWith('-')) s = ' ' + s;
    return pad(s, flags, this.width, true);
  }

  str(s: string): string {
    return pad(this.prec !== undefined ? s.slice(0, Number(this.prec || 0)) : s, this.flags, this.width, false);
  }

  /** A time with nanoseconds; the precision cuts them. */
  time(t: Date | null): string {
    if (!t) return this.str('-');
    let s = fullTime(t);
    if (this.prec !== undefined) {
      const digits = this.prec === '' ? 0 : Math.min(9, Number(this.prec));
      s = s.replace(/\.(\d{9})/, (_, ns: string) => (digits ? '.' + ns.slice(0, digits) : ''));
    }
    return this.str(s);
  }

  /** Seconds since the epoch; a precision adds that many digits of fraction. */
  secs(t: Date | null): string {
    const prec = this.prec;
    if (!t) return this.num(0);
    if (prec === undefined) return this.num(epochSeconds(t));
    const ms = ((t.getTime() % 1000) + 1000) % 1000;
    const frac = (String(ms).padStart(3, '0') + '000000').slice(0, prec === '' ? 9 : Math.min(9, Number(prec)));
    return pad(`${epochSeconds(t)}${frac ? '.' + frac : ''}`, this.flags, this.width, true);
  }

  /** %H… major, %L… minor, else the whole number. */
  device(major: number, minor: number, whole: number): string {
    return this.num(this.hl === 'H' ? major : this.hl === 'L' ? minor : whole);
  }
}

type Directive = (s: Spec, f: Info) => string;

/** Each directive letter; one not here prints as given (GNU: '?' for some; rare). */
const DIRECTIVES: Readonly<Record<string, Directive>> = {
  '%': () => '%',
  a: (s, f) => {
    const o = permBits(f.st).toString(8);
    return s.flags.includes('#') ? pad('0' + o, s.flags, s.width, true) : s.num(o);
  },
  A: (s, f) => s.str(modeString(f.st)),
  b: (s, f) => s.num(kib(f.st) * 2),
  B: (s) => s.num(512),
  C: (s) => s.str('?'),
  d: (s) => s.device(DEV_MAJOR, DEV_MINOR, DEV_MAJOR * 256 + DEV_MINOR),
  D: (s) => s.str((DEV_MAJOR * 256 + DEV_MINOR).toString(16)),
  f: (s, f) => s.str(f.st.mode.toString(16)),
  F: (s, f) => s.str(fileType(f.st)),
  g: (s) => s.num(GID),
  G: (s) => s.str(GROUP),
  h: (s, f) => s.num(f.links),
  i: (s, f) => s.num(f.ino),
  m: (s) => s.str('/'),
  n: (s, f) => s.str(f.name),
  N: (s, f) => s.str(shellQuote(f.name)),
  o: (s) => s.num(4096),
  r: (s, f) => (isDevice(f.st) ? s.device(1, 3, 259) : s.num(0)),
  R: (s, f) => s.str(isDevice(f.st) ? '103' : '0'),
  s: (s, f) => s.num(f.st.size),
  t: (s, f) => s.str(isDevice(f.st) ? '1' : '0'),
  T: (s, f) => s.str(isDevice(f.st) ? '3' : '0'),
  u: (s) => s.num(UID),
  U: (s) => s.str(OWNER),
  w: (s) => s.time(null),
  W: (s) => s.secs(null),
  x: (s, f) => s.time(f.st.mtime),
  y: (s, f) => s.time(f.st.mtime),
  z: (s, f) => s.time(f.st.mtime),
  X: (s, f) => s.secs(f.st.mtime),
  Y: (s, f) => s.secs(f.st.mtime),
  Z: (s, f) => s.secs(f.st.mtime),
};

function expand(format: string, f: Info): string {
  return format.replace(
    /%([-#0 +']*)(\d*)(?:\.(\d*))?([HL]?)(.)|%$/g,
    (m, flags: string, width: string, prec: string | undefined, hl: string, d: string) => {
      if (m === '%') return '%';
      return Object.hasOwn(DIRECTIVES, d) ? DIRECTIVES[d]!(new Spec(flags, width, prec, hl), f) : m;
    },
  );
}

export function statCommand(): CustomCommand {
  return defineCommand('stat', async (args, ctx: Ctx) => {
    const p = getopt('stat', args, 'c:fLt', LONGS);
    if ('error' in p) return { stdout: '', stderr: p.error + TRY, exitCode: 1 };
    let format: string | null = null;
    let newline = true;
    let terse = false;
    for (const [k, v] of p.opts) {
      if (k === 'c') {
        format = v!;
        newline = true;
      } else if (k === 'printf') {
        format = escapes(v!);
        newline = false;
      } else if (k === 't') terse = true;
      else if (k === 'f') return { stdout: '', stderr: 'stat: --file-system is not supported by this shell\n', exitCode: 1 };
      else if (k === 'help') return { stdout: 'Usage: stat [OPTION]... FILE...\nDisplay file or file system status.\n', stderr: '', exitCode: 0 };
      else if (k === 'version') return { stdout: 'stat (GNU coreutils) 9.1\n', stderr: '', exitCode: 0 };
    }
    if (p.operands.length === 0) return { stdout: '', stderr: `stat: missing operand\n${TRY}`, exitCode: 1 };
    let stdout = '';
    let stderr = '';
    let exitCode = 0;
    for (const name of p.operands) {
      const path = ctx.fs.resolvePath(ctx.cwd, name);
      let st: FsStat;
      try {
        st = await ctx.fs.stat(path);
        if (name.endsWith('/') && !st.isDirectory) throw Object.assign(new Error('ENOTDIR'), { code: 'ENOTDIR' });
      } catch (err) {
        const why = errnoMessage(err);
        stderr += `stat: cannot statx ${shellQuote(name)}: ${why}\n`;
        exitCode = 1;
        continue;
      }
      const info: Info = { name, st, links: await linkCount(ctx.fs, path, st), ino: inode(path) };
      const fmt = format !== null ? format + (newline ? '\n' : '') : terse ? TERSE_FORMAT : isDevice(st) ? DEVICE_FORMAT : DEFAULT_FORMAT;
      stdout += expand(fmt, info);
    }
    return { stdout, stderr, exitCode };
  });
}

/** find -printf / -fprintf formats: GNU's directives, field widths and escapes. */
import { Finder, type Entry } from './finder.js';

export function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', '0': '\0', '\\': '\\', a: '\x07', b: '\b', f: '\f', r: '\r', v: '\v' };

/** The backslash escape at fmt[i]: its text (null for \c, which ends the output) and the index of its last character. */
function escape(fmt: string, i: number): { text: string | null; end: number } {
  const d = fmt[++i];
  if (d !== undefined && /[0-7]/.test(d) && d !== '0') {
    const m = /^[0-7]{1,3}/.exec(fmt.slice(i))![0];
    return { text: String.fromCharCode(parseInt(m, 8)), end: i + m.length - 1 };
  }
  if (d !== undefined && d in ESCAPES) return { text: ESCAPES[d]!, end: i };
  if (d === 'c') return { text: null, end: i };
  return { text: '\\' + (d ?? ''), end: i };
}

/** %f: the base name; a starting point's is its last component. */
function baseName(e: Entry): string {
  return e.depth === 0 ? e.path.replace(/\/+$/, '').split('/').pop() || '/' : e.name;
}

/** %h: the leading directories. */
function dirName(e: Entry): string {
  const slash = e.path.lastIndexOf('/');
  if (e.depth === 0 && slash === -1) return '.';
  return slash === -1 ? '.' : slash === 0 ? '/' : e.path.slice(0, slash);
}

function modeBits(e: Entry, mode: number): string {
  const bits = 'rwxrwxrwx';
  return (e.isDir ? 'd' : '-') + [...bits].map((b, k) => (mode & (1 << (8 - k)) ? b : '-')).join('');
}

type Directive = (e: Entry, f: Finder) => string | Promise<string>;

/** Each directive letter but the time ones (%T, %A, %C take a second letter); one not here prints as given. */
const DIRECTIVES: Readonly<Record<string, Directive>> = {
  '%': () => '%',
  p: (e) => e.path,
  f: baseName,
  h: dirName,
  P: (e) => (e.depth === 0 ? '' : e.path.slice(e.start.length + (e.start.endsWith('/') ? 0 : 1))),
  H: (e) => e.start,
  d: (e) => String(e.depth),
  y: (e) => (e.isDir ? 'd' : 'f'),
  Y: (e) => (e.isDir ? 'd' : 'f'),
  s: async (e, f) => String((await f.stat(e)).size),
  k: async (e, f) => String(Math.ceil((await f.stat(e)).size / 4096) * 4),
  m: async (e, f) => ((await f.stat(e)).mode & 0o7777).toString(8),
  M: async (e, f) => modeBits(e, (await f.stat(e)).mode),
  n: () => '1',
  u: () => 'agent',
  g: () => 'agent',
  U: () => '1000',
  G: () => '1000',
};

/** %Tk, %Ak, %Ck: the field k of the time (all three are the mtime here), in UTC. */
function timeField(k: string | undefined, ms: number): string {
  const dt = new Date(ms);
  const frac = String(ms % 1000).padStart(3, '0') + '0000000';
  const H = pad(dt.getUTCHours());
  const M = pad(dt.getUTCMinutes());
  const S = pad(dt.getUTCSeconds());
  const F = `${dt.getUTCFullYear()}-${pad(dt.getUTCMonth() + 1)}-${pad(dt.getUTCDate())}`;
  const tbl: Record<string, string> = {
    '@': `${Math.floor(ms / 1000)}.${frac}`,
    Y: String(dt.getUTCFullYear()),
    m: pad(dt.getUTCMonth() + 1),
    d: pad(dt.getUTCDate()),
    H,
    M,
    S: `${S}.${frac}`,
    T: `${H}:${M}:${S}.${frac}`,
    F,
    '+': `${F}+${H}:${M}:${S}.${frac}`,
    D: `${pad(dt.getUTCMonth() + 1)}/${pad(dt.getUTCDate())}/${pad(dt.getUTCFullYear() % 100)}`,
    s: String(Math.floor(ms / 1000)),
  };
  return tbl[k ?? ''] ?? '';
}

export async function printf(fmt: string, e: Entry, f: Finder): Promise<string> {
  let out = '';
  for (let i = 0; i < fmt.length; i++) {
    const c = fmt[i]!;
    if (c === '\\') {
      const esc = escape(fmt, i);
      if (esc.text === null) break;
      out += esc.text;
      i = esc.end;
      continue;
    }
    if (c !== '%') {
      out += c;
      continue;
    }
    const m = /^([-+ #0]*)(\d*)(?:\.(\d+))?/.exec(fmt.slice(i + 1))!;
    i += m[0].length;
    const d = fmt[++i];
    let v: string;
    if (d === 'T' || d === 'A' || d === 'C') v = timeField(fmt[++i], (await f.stat(e)).mtime.getTime());
    else if (d !== undefined && Object.hasOwn(DIRECTIVES, d)) v = await DIRECTIVES[d]!(e, f);
    else v = '%' + (d ?? '');
    const width = m[2] ? Number(m[2]) : 0;
    out += v.length >= width ? v : m[1]!.includes('-') ? v.padEnd(width) : v.padStart(width);
  }
  return out;
}

/** find -printf / -fprintf formats: GNU's directives, field widths and escapes. */
import { Finder, type Entry } from './finder.js';

export function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

export async function printf(fmt: string, e: Entry, f: Finder): Promise<string> {
  let out = '';
  for (let i = 0; i < fmt.length; i++) {
    const c = fmt[i]!;
    if (c === '\\') {
      const d = fmt[++i];
      const map: Record<string, string> = { n: '\n', t: '\t', '0': '\0', '\\': '\\', a: '\x07', b: '\b', f: '\f', r: '\r', v: '\v' };
      if (d !== undefined && /[0-7]/.test(d) && d !== '0') {
        const m = /^[0-7]{1,3}/.exec(fmt.slice(i))![0];
        out += String.fromCharCode(parseInt(m, 8));
        i += m.length - 1;
      } else if (d !== undefined && d in map) out += map[d];
      else if (d === 'c') break;
      else out += '\\' + (d ?? '');
      continue;
    }
    if (c !== '%') {
      out += c;
      continue;
    }
    const m = /^([-+ #0]*)(\d*)(?:\.(\d+))?/.exec(fmt.slice(i + 1))!;
    i += m[0].length;
    const d = fmt[++i];
    const width = m[2] ? Number(m[2]) : 0;
    const left = m[1]!.includes('-');
    const fit = (s: string) => (s.length >= width ? s : left ? s.padEnd(width) : s.padStart(width));
    let v: string;
    const slash = e.path.lastIndexOf('/');
    switch (d) {
      case '%':
        v = '%';
        break;
      case 'p':
        v = e.path;
        break;
      case 'f':
        v = e.depth === 0 ? e.path.replace(/\/+$/, '').split('/').pop() || '/' : e.name;
        break;
      case 'h':
        v = slash === -1 ? '.' : slash === 0 ? '/' : e.path.slice(0, slash);
        if (e.depth === 0 && slash === -1) v = '.';
        break;
      case 'P':
        v = e.depth === 0 ? '' : e.path.slice(e.start.length + (e.start.endsWith('/') ? 0 : 1));
        break;
      case 'H':
        v = e.start;
        break;
      case 'd':
        v = String(e.depth);
        break;
      case 'y':
      case 'Y':
        v = e.isDir ? 'd' : 'f';
        break;
      case 's':
        v = String((await f.stat(e)).size);
        break;
      case 'k':
        v = String(Math.ceil((await f.stat(e)).size / 4096) * 4);
        break;
      case 'm':
        v = ((await f.stat(e)).mode & 0o7777).toString(8);
        break;
      case 'M': {
        const mode = (await f.stat(e)).mode;
        const bits = 'rwxrwxrwx';
        v = (e.isDir ? 'd' : '-') + [...bits].map((b, k) => (mode & (1 << (8 - k)) ? b : '-')).join('');
        break;
      }
      case 'n':
        v = '1';
        break;
      case 'u':
      case 'g':
        v = 'agent';
        break;
      case 'U':
      case 'G':
        v = '1000';
        break;
      case 'T':
      case 'A':
      case 'C': {
        const k = fmt[++i];
        const ms = (await f.stat(e)).mtime.getTime();
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
        v = tbl[k ?? ''] ?? '';
        break;
      }
      default:
        v = '%' + (d ?? '');
    }
    out += fit(v);
  }
  return out;
}

/**
 * fnmatch(3) without flags, as one translator to a `v`-mode RegExp: `*`, `?`, bracket
 * expressions with ranges, `!`/`^` negation and `[:class:]`, backslash escapes; an unterminated
 * `[` is a literal. Shared by find -name/-path, ls -I/--hide, du --exclude, tree -I and grep
 * --include/--exclude.
 *
 * The subject decides what a character is: commands matching as GNU does in the C locale pass
 * names as byte strings (latin1: one char per byte, `bytesOf`) with the ASCII classes (the
 * default); grep passes UTF-8 text with its Unicode classes.
 */

/** The C locale's classes, as `v`-mode class contents. */
const ASCII_CLASSES: Readonly<Record<string, string>> = {
  alpha: 'A-Za-z',
  digit: '0-9',
  alnum: 'A-Za-z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  space: '\\x20\\t\\n\\r\\f\\v',
  blank: '\\x20\\t',
  punct: '\\x21-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7e',
  print: '\\x20-\\x7e',
  graph: '\\x21-\\x7e',
  cntrl: '\\x00-\\x1f\\x7f',
  xdigit: '0-9A-Fa-f',
};

/** A class name's contents for a bracket expression (`[…]`, a nested class or a range list), or null if unknown. */
export type ClassResolver = (name: string) => string | null;

export const asciiClass: ClassResolver = (name) => (Object.hasOwn(ASCII_CLASSES, name) ? `[${ASCII_CLASSES[name]}]` : null);

/** One code point, escaped for anywhere in a `v`-mode pattern (inside or outside classes). */
export function reEscape(ch: string): string {
  const c = ch.codePointAt(0)!;
  if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) return ch;
  return `\\u{${c.toString(16)}}`;
}

/** Whether a pattern has an unescaped wildcard (else it matches only its literal text). */
export function hasWildcards(p: string): boolean {
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') i++;
    else if (c === '?' || c === '*' || c === '[') return true;
  }
  return false;
}

/** The bracket expression starting at cs[i] === '[': its class source and the index of its ']', or null if unterminated. */
function bracket(cs: string[], i: number, classOf: ClassResolver): { source: string; end: number } | null {
  let j = i + 1;
  let neg = false;
  if (cs[j] === '!' || cs[j] === '^') {
    neg = true;
    j++;
  }
  const items: string[] = [];
  for (let first = true; j < cs.length; first = false) {
    const ch = cs[j]!;
    if (ch === ']' && !first) return { source: items.length ? `[${neg ? '^' : ''}${items.join('')}]` : neg ? '[\\s\\S]' : '[]', end: j };
    if (ch === '[' && cs[j + 1] === ':') {
      const close = cs.indexOf(':', j + 2);
      const cls = close !== -1 && cs[close + 1] === ']' ? classOf(cs.slice(j + 2, close).join('')) : null;
      if (cls !== null) {
        items.push(cls);
        j = close + 2;
        continue;
      }
    }
    let lo = ch;
    if (ch === '\\' && j + 1 < cs.length) lo = cs[++j]!;
    j++;
    if (cs[j] === '-' && cs[j + 1] !== undefined && cs[j + 1] !== ']') {
      let hi = cs[j + 1]!;
      j += 2;
      if (hi === '\\' && j < cs.length) hi = cs[j++]!;
      if (lo.codePointAt(0)! <= hi.codePointAt(0)!) items.push(`${reEscape(lo)}-${reEscape(hi)}`);
      continue;
    }
    items.push(reEscape(lo));
  }
  return null;
}

/** The anchored `v`-mode RegExp source of a glob. */
export function fnmatchSource(glob: string, classOf: ClassResolver = asciiClass): string {
  let out = '';
  const cs = Array.from(glob);
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i]!;
    if (c === '*') out += '[\\s\\S]*';
    else if (c === '?') out += '[\\s\\S]';
    else if (c === '\\' && i + 1 < cs.length) out += reEscape(cs[++i]!);
    else if (c === '[') {
      const b = bracket(cs, i, classOf);
      if (b === null) out += reEscape('[');
      else {
        out += b.source;
        i = b.end;
      }
    } else out += reEscape(c);
  }
  return `^(?:${out})$`;
}

/** fnmatchSource compiled. */
export function fnmatchRegExp(glob: string, classOf: ClassResolver = asciiClass): RegExp {
  return new RegExp(fnmatchSource(glob, classOf), 'v');
}

/** A name as the C locale sees it: one char per byte. ASCII is its own byte string. */
export function bytesOf(s: string): string {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return Buffer.from(s, 'utf8').toString('latin1');
  return s;
}

const compiled = new Map<string, RegExp>();

/** fnmatch in the C locale (ls -I/--hide, du --exclude, tree -I): bytes, ASCII classes. */
export function fnmatch(glob: string, name: string): boolean {
  let re = compiled.get(glob);
  if (re === undefined) {
    // A walk tests a few patterns against every name: compile each once.
    if (compiled.size >= 256) compiled.clear();
    compiled.set(glob, (re = fnmatchRegExp(bytesOf(glob))));
  }
  return re.test(bytesOf(name));
}

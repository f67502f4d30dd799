/** grep: perl-compatible patterns (-P) -> JavaScript. */

import { esc, hex } from './classes.js';
import { PatternError } from './posix-lexer.js';

const PCRE_CLASSES: Record<string, string> = {
  alpha: 'A-Za-z',
  digit: '0-9',
  alnum: 'A-Za-z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  space: '\\t-\\r\\u{20}',
  blank: '\\t\\u{20}',
  punct: '\\u{21}-\\u{2f}\\u{3a}-\\u{40}\\u{5b}-\\u{60}\\u{7b}-\\u{7e}',
  xdigit: '0-9A-Fa-f',
  word: 'A-Za-z0-9_',
  cntrl: '\\u{0}-\\u{1f}\\u{7f}',
  graph: '\\u{21}-\\u{7e}',
  print: '\\u{20}-\\u{7e}',
  ascii: '\\u{0}-\\u{7f}',
};

export function translatePerl(pattern: string, eol: string): { src: string; icase: boolean } {
  const cs = Array.from(pattern);
  const E = esc(eol);
  let out = '';
  let i = 0;
  let icase = false;
  if (pattern.startsWith('(?i)')) {
    icase = true;
    i = 4;
  }
  const escapeChar = (d: string, inClass: boolean): string => {
    switch (d) {
      case 'd':
      case 'w':
        return `\\${d}`;
      case 'D':
        return inClass ? '\\D' : `[^0-9${E}]`;
      case 'W':
        return inClass ? '\\W' : `[^A-Za-z0-9_${E}]`;
      case 's':
        return '\\t\\u{b}\\f\\r\\u{20}';
      case 'S':
        return inClass ? '\\S' : `[^\\t\\n\\u{b}\\f\\r ${E}]`;
      case 'h':
        return '\\t\\u{20}\\u{a0}\\u{1680}\\u{180e}\\u{2000}-\\u{200a}\\u{202f}\\u{205f}\\u{3000}';
      case 'v':
        return '\\u{b}\\f\\r\\u{85}\\u{2028}\\u{2029}';
      case 'n':
        return '\\n';
      case 't':
        return '\\t';
      case 'r':
        return '\\r';
      case 'f':
        return '\\f';
      case 'e':
        return '\\u{1b}';
      case 'a':
        return '\\u{7}';
      default:
        return '';
    }
  };
  while (i < cs.length) {
    const c = cs[i]!;
    if (c === '\\') {
      const d = cs[i + 1];
      if (d === undefined) throw new PatternError('\\ at end of pattern');
      i += 2;
      switch (d) {
        case 's':
          out += `[${escapeChar('s', false)}]`;
          continue;
        case 'h':
          out += `[${escapeChar('h', false)}]`;
          continue;
        case 'v':
          out += `[${escapeChar('v', false)}]`;
          continue;
        case 'H':
          out += `[^${escapeChar('h', false)}${E}]`;
          continue;
        case 'V':
          out += `[^${escapeChar('v', false)}${E}]`;
          continue;
        case 'N':
          out += `[^${E}]`;
          continue;
        case 'R':
          out += '[\\u{b}\\f\\r\\u{85}\\u{2028}\\u{2029}]';
          continue;
        case 'A':
        case 'G':
          out += `(?<=^|${E})`;
          continue;
        case 'Z':
        case 'z':
          out += `(?=${E}|$)`;
          continue;
        case 'Q': {
          while (i < cs.length && !(cs[i] === '\\' && cs[i + 1] === 'E')) out += esc(cs[i++]!);
          if (i < cs.length) i += 2;
          continue;
        }
        case 'E':
          continue;
        case 'x': {
          let h = '';
          if (cs[i] === '{') {
            const close = cs.indexOf('}', i);
            if (close < 0) throw new PatternError('missing terminating } in \\x{}');
            h = cs.slice(i + 1, close).join('');
            i = close + 1;
          } else {
            while (h.length < 2 && i < cs.length && /[0-9a-fA-F]/.test(cs[i]!)) h += cs[i++];
          }
          out += hex(h ? parseInt(h, 16) : 0);
          continue;
        }
        case 'o': {
          const close = cs.indexOf('}', i);
          if (cs[i] !== '{' || close < 0) throw new PatternError('missing opening brace after \\o');
          out += hex(parseInt(cs.slice(i + 1, close).join(''), 8));
          i = close + 1;
          continue;
        }
        case '0': {
          let o = '';
          while (o.length < 2 && i < cs.length && /[0-7]/.test(cs[i]!)) o += cs[i++];
          out += hex(o ? parseInt(o, 8) : 0);
          continue;
        }
        case 'g': {
          let ref = '';
          if (cs[i] === '{') {
            const close = cs.indexOf('}', i);
            ref = cs.slice(i + 1, close).join('');
            i = close + 1;
          } else {
            while (i < cs.length && /[0-9]/.test(cs[i]!)) ref += cs[i++];
          }
          out += /^[0-9]+$/.test(ref) ? `\\${ref}` : `\\k<${ref}>`;
          continue;
        }
        case 'k': {
          const open = cs[i];
          const closeCh = open === '<' ? '>' : open === '{' ? '}' : "'";
          const close = cs.indexOf(closeCh, i + 1);
          out += `\\k<${cs.slice(i + 1, close).join('')}>`;
          i = close + 1;
          continue;
        }
        case 'p':
        case 'P': {
          if (cs[i] === '{') {
            const close = cs.indexOf('}', i);
            let name = cs.slice(i + 1, close).join('');
            let neg = d === 'P';
            if (name.startsWith('^')) {
              neg = !neg;
              name = name.slice(1);
            }
            out += `\\${neg ? 'P' : 'p'}{${name}}`;
            i = close + 1;
          } else {
            out += `\\${d}{${cs[i] ?? ''}}`;
            i++;
          }
          continue;
        }
        case 'K':
          throw new PatternError('\\K is not supported');
        default:
          if (/[1-9]/.test(d)) {
            let n = d;
            while (i < cs.length && /[0-9]/.test(cs[i]!)) n += cs[i++];
            out += `\\${n}`;
          } else if (/[dwbB]/.test(d)) {
            out += `\\${d}`;
          } else if (/[DWS]/.test(d)) {
            out += escapeChar(d, false);
          } else if (/[ntrfea]/.test(d)) {
            out += `[${escapeChar(d, false)}]`;
          } else if (/[A-Za-z0-9]/.test(d)) {
            throw new PatternError('unrecognized character follows \\');
          } else {
            out += esc(d);
          }
          continue;
      }
    }
    if (c === '[') {
      // A character class: copied with its contents escaped for the `v` flag.
      let j = i + 1;
      let neg = false;
      if (cs[j] === '^') {
        neg = true;
        j++;
      }
      const items: string[] = [];
      let first = true;
      let closed = false;
      while (j < cs.length) {
        const ch = cs[j]!;
        if (ch === ']' && !first) {
          closed = true;
          j++;
          break;
        }
        first = false;
        let item: string;
        if (ch === '[' && cs[j + 1] === ':') {
          const end = cs.indexOf(']', j + 2);
          const name = end > 0 && cs[end - 1] === ':' ? cs.slice(j + 2, end - 1).join('') : '';
          let negc = false;
          let nm = name;
          if (nm.startsWith('^')) {
            negc = true;
            nm = nm.slice(1);
          }
          const set = Object.hasOwn(PCRE_CLASSES, nm) ? PCRE_CLASSES[nm] : undefined;
          if (name && set === undefined) throw new PatternError('unknown POSIX class name');
          if (set !== undefined) {
            items.push(negc ? `[^${set}]` : `[${set}]`);
            j = end + 1;
            continue;
          }
          item = esc(ch);
          j++;
        } else if (ch === '\\') {
          const d = cs[j + 1];
          if (d === undefined) break;
          j += 2;
          if (/[dwDWS]/.test(d)) item = `\\${d}`;
          else if (d === 's' || d === 'h' || d === 'v') item = escapeChar(d, true);
          else if (/[ntrfea]/.test(d)) item = escapeChar(d, true);
          else if (d === 'x') {
            let h = '';
            if (cs[j] === '{') {
              const close = cs.indexOf('}', j);
              h = cs.slice(j + 1, close).join('');
              j = close + 1;
            } else while (h.length < 2 && j < cs.length && /[0-9a-fA-F]/.test(cs[j]!)) h += cs[j++];
            item = hex(h ? parseInt(h, 16) : 0);
          } else if (d === 'p' || d === 'P') {
            if (cs[j] === '{') {
              const close = cs.indexOf('}', j);
              item = `\\${d}{${cs.slice(j + 1, close).join('')}}`;
              j = close + 1;
            } else item = `\\${d}{${cs[j++] ?? ''}}`;
          } else if (d === 'b') item = '\\u{8}';
          else item = esc(d);
        } else {
          item = esc(ch);
          j++;
        }
        // Ranges: item '-' item.
        if (cs[j] === '-' && cs[j + 1] !== undefined && cs[j + 1] !== ']') {
          const hi = cs[j + 1]!;
          let hiItem: string;
          if (hi === '\\') {
            const d = cs[j + 2] ?? '';
            hiItem = /[ntrfea]/.test(d) ? escapeChar(d, true) : esc(d);
            j += 3;
          } else {
            hiItem = esc(hi);
            j += 2;
          }
          items.push(`${item}-${hiItem}`);
          continue;
        }
        items.push(item);
      }
      if (!closed) throw new PatternError('missing terminating ] for character class');
      out += neg ? `[^${items.join('')}${E}]` : `[[${items.join('')}]--[${E}]]`;
      i = j;
      continue;
    }
    if (c === '.') {
      out += `[^${E}]`;
      i++;
      continue;
    }
    if (c === '^') {
      out += `(?<=^|${E})`;
      i++;
      continue;
    }
    if (c === '$') {
      out += `(?=${E}|$)`;
      i++;
      continue;
    }
    if (c === '(') {
      if (cs[i + 1] === '*' && /[A-Z:]/.test(cs[i + 2] ?? '')) {
        const verb = /^\(\*(UTF8?|UCP|NO_AUTO_POSSESS|NO_START_OPT|NO_DOTSTAR_ANCHOR|NO_JIT)\)/.exec(cs.slice(i, i + 24).join(''));
        if (!verb) throw new PatternError('(*VERB) not recognized or malformed');
        i += verb[0].length;
        continue;
      }
      if (cs[i + 1] === '?') {
        const rest = cs.slice(i + 2, i + 5).join('');
        if (rest.startsWith('#')) {
          const close = cs.indexOf(')', i);
          i = close < 0 ? cs.length : close + 1;
          continue;
        }
        if (rest.startsWith('P<') || /^<[A-Za-z_]/.test(rest)) {
          // A named group: the name is copied as is.
          const from = rest.startsWith('P') ? i + 4 : i + 3;
          const close = cs.indexOf('>', from);
          if (close < 0) throw new PatternError('syntax error in subpattern name (missing terminator?)');
          out += `(?<${cs.slice(from, close).join('')}>`;
          i = close + 1;
          continue;
        }
        if (rest.startsWith('P=')) {
          const close = cs.indexOf(')', i);
          out += `\\k<${cs.slice(i + 4, close).join('')}>`;
          i = close + 1;
          continue;
        }
        if (rest.startsWith("'")) {
          const close = cs.indexOf("'", i + 3);
          out += `(?<${cs.slice(i + 3, close).join('')}>`;
          i = close + 1;
          continue;
        }
        if (rest.startsWith('>') || rest.startsWith('|')) {
          out += '(?:';
          i += 3;
          continue;
        }
        if (/^[:=!]/.test(rest)) {
          out += `(?${rest[0]}`;
          i += 3;
          continue;
        }
        if (/^<[=!]/.test(rest)) {
          out += `(?<${rest[1]}`;
          i += 4;
          continue;
        }
        if (
          /^[a-zA-Z-]+\)/.test(
            cs
              .slice(i + 2)
              .join('')
              .slice(0, 12),
          )
        ) {
          // Inline option settings other than a leading (?i): only (?i) can be honoured.
          const close = cs.indexOf(')', i);
          const flags = cs.slice(i + 2, close).join('');
          if (flags.includes('i') && !flags.startsWith('-')) icase = true;
          i = close + 1;
          continue;
        }
        throw new PatternError('unrecognized character after (? or (?-');
      }
      out += '(';
      i++;
      continue;
    }
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(cs.slice(i, i + 24).join(''));
      if (m) {
        out += m[0];
        i += m[0].length;
        if (cs[i] === '+') i++;
        continue;
      }
      out += esc('{');
      i++;
      continue;
    }
    if (c === '}' || c === ']') {
      out += esc(c);
      i++;
      continue;
    }
    if ((c === '*' || c === '+' || c === '?') && cs[i + 1] === '+') {
      out += c;
      i += 2;
      continue;
    }
    if (c === '*' || c === '+' || c === '?' || c === '|' || c === ')') {
      out += c;
      i++;
      continue;
    }
    out += esc(c);
    i++;
  }
  return { src: out, icase };
}

export function pcreMessage(jsMessage: string): string {
  const m = jsMessage.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
  if (/Unterminated group/i.test(m)) return 'missing closing parenthesis';
  if (/Unmatched '\)'/i.test(m)) return 'unmatched closing parenthesis';
  if (/Unterminated character class/i.test(m)) return 'missing terminating ] for character class';
  if (/Nothing to repeat/i.test(m)) return 'quantifier does not follow a repeatable item';
  if (/numbers out of order/i.test(m)) return 'numbers out of order in {} quantifier';
  if (/Invalid named capture referenced|Invalid named reference/i.test(m)) return 'reference to non-existent subpattern';
  if (/Invalid escape|Invalid Unicode escape|Invalid decimal escape/i.test(m)) return 'reference to non-existent subpattern';
  if (/Invalid property name/i.test(m)) return 'unknown property name after \\P or \\p';
  if (/Invalid capture group name|Duplicate capture group name/i.test(m)) return 'two named subpatterns have the same name (PCRE2_DUPNAMES not set)';
  if (/Lone quantifier brackets|Incomplete quantifier|Invalid quantifier/i.test(m)) return 'quantifier does not follow a repeatable item';
  if (/Range out of order/i.test(m)) return 'range out of order in character class';
  if (/Invalid group/i.test(m)) return 'unrecognized character after (? or (?-';
  return m;
}

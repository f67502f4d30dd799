/**
 * gnulib's shell-escape quoting in the C locale, as GNU tools quote names in diagnostics
 * (`quote`: always quoted, `quotef`: only when a shell would need it) and as `ls
 * --quoting-style=shell-escape` and stat's %N print them: `'a b'`, `"it's"`,
 * `'caf'$'\303\251''.md'`. Names are UTF-8 strings; their bytes are what gets quoted.
 */
import { Buffer } from 'node:buffer';

const ESCAPES: Record<number, string> = { 7: 'a', 8: 'b', 12: 'f', 10: 'n', 13: 'r', 9: 't', 11: 'v' };
const unprintable = (c: number) => c < 0x20 || c >= 0x7f;

interface Needs {
  quote: boolean;
  /** Every byte reads the same inside double quotes ("it's" can be printed as is). */
  doubleOk: boolean;
}

/**
 * gnulib quotearg_buffer_restyled's scan: which bytes make a shell need quoting, and whether all
 * of them read the same between double quotes (then "it's" is printed so). `#` and `~` are
 * special only first, `{` and `}` only alone; either elsewhere needs no quoting but rules out
 * double quotes (ls prints `'it'\''s~'`, `"~it's"`).
 */
function scan(b: string, always: boolean): Needs {
  let quote = always;
  let hasQuote = false;
  let compat = true;
  for (let i = 0; i < b.length; i++) {
    const ch = b[i]!;
    if (unprintable(b.charCodeAt(i))) return { quote: true, doubleOk: false };
    if (ch === "'") hasQuote = quote = true;
    else if (ch === ' ') quote = true;
    else if (ch === '{' || ch === '}') {
      if (b.length === 1) quote = true;
      else compat = false;
    } else if (ch === '#' || ch === '~') {
      if (i === 0) quote = true;
      else compat = false;
    } else if ('!"$&()*;<=>?[\\^`|'.includes(ch)) {
      quote = true;
      compat = false;
    }
  }
  return { quote, doubleOk: hasQuote && compat };
}

/** Quotes `name` for a shell; `always`: quote names that need no quoting too (gnulib quote() vs quotef()). */
export function shellQuote(name: string, always = true): string {
  const b = Buffer.from(name, 'utf8').toString('latin1');
  if (b === '') return "''";
  const needs = scan(b, always);
  if (!needs.quote) return b;
  if (needs.doubleOk) return Buffer.from(`"${b}"`, 'latin1').toString('utf8');
  let out = "'";
  let inQuote = true;
  for (let i = 0; i < b.length; i++) {
    if (unprintable(b.charCodeAt(i))) {
      if (inQuote) out += "'";
      out += "$'";
      for (; i < b.length && unprintable(b.charCodeAt(i)); i++) {
        const d = b.charCodeAt(i);
        out += '\\' + (ESCAPES[d] ?? d.toString(8).padStart(3, '0'));
      }
      i--;
      out += "'";
      inQuote = false;
      continue;
    }
    if (!inQuote) {
      out += "'";
      inQuote = true;
    }
    out += b[i] === "'" ? "'\\''" : b[i];
  }
  if (inQuote) out += "'";
  return out;
}

/** gnulib quote(): always quoted, as in "cannot access 'x'". */
export const quote = (name: string): string => shellQuote(name, true);
/** gnulib quotef(): quoted only when needed, as in "wc: x: No such file or directory". */
export const quotef = (name: string): string => shellQuote(name, false);

/** A word for a command line we hand to the shell (find -exec, xargs): as is when plain, else single-quoted. */
export const shellWord = (w: string): string => (/^[A-Za-z0-9_./=:,@%+-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

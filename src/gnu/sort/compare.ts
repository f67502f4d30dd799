/** sort's key extraction and comparisons (coreutils 9.1 keycompare), byte for byte in the C locale. */
import { isAlnum, isDigit } from '../kit/bytes.js';
import { filevercmp } from '../kit/version-sort.js';

export interface Key {
  sword: number; // -1: from line start
  schar: number;
  eword: number; // -1: to line end
  echar: number;
  skipsblanks: boolean;
  skipeblanks: boolean;
  ignore: 'none' | 'dict' | 'nonprint';
  translate: boolean;
  numeric: boolean;
  general: boolean;
  human: boolean;
  month: boolean;
  version: boolean;
  random: boolean;
  reverse: boolean;
}

export const newKey = (): Key => ({
  sword: -1,
  schar: 0,
  eword: -1,
  echar: 0,
  skipsblanks: false,
  skipeblanks: false,
  ignore: 'none',
  translate: false,
  numeric: false,
  general: false,
  human: false,
  month: false,
  version: false,
  random: false,
  reverse: false,
});

const isBlank = (c: number) => c === 32 || c === 9 || c === 10;

export function defaultKeyCompare(k: Key): boolean {
  return !(
    k.ignore !== 'none' ||
    k.translate ||
    k.skipsblanks ||
    k.skipeblanks ||
    k.month ||
    k.numeric ||
    k.general ||
    k.human ||
    k.version ||
    k.random
  );
}

/** Applies ordering letters (bdfgiMhnRrV) to a key; returns the rest of the string. */
export function setOrdering(s: string, k: Key, end: boolean): string {
  let i = 0;
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (c === 'b') {
      if (end) k.skipeblanks = true;
      else k.skipsblanks = true;
    } else if (c === 'd') k.ignore = 'dict';
    else if (c === 'f') k.translate = true;
    else if (c === 'g') k.general = true;
    else if (c === 'h') k.human = true;
    else if (c === 'i') {
      if (k.ignore === 'none') k.ignore = 'nonprint';
    } else if (c === 'M') k.month = true;
    else if (c === 'n') k.numeric = true;
    else if (c === 'R') k.random = true;
    else if (c === 'r') k.reverse = true;
    else if (c === 'V') k.version = true;
    else break;
  }
  return s.slice(i);
}

function begfield(t: string, k: Key, tab: number): number {
  let ptr = 0;
  const lim = t.length;
  if (k.sword > 0) {
    let sword = k.sword;
    if (tab !== -1) {
      while (ptr < lim && sword--) {
        while (ptr < lim && t.charCodeAt(ptr) !== tab) ++ptr;
        if (ptr < lim) ++ptr;
      }
    } else {
      while (ptr < lim && sword--) {
        while (ptr < lim && isBlank(t.charCodeAt(ptr))) ++ptr;
        while (ptr < lim && !isBlank(t.charCodeAt(ptr))) ++ptr;
      }
    }
  }
  if (k.skipsblanks) while (ptr < lim && isBlank(t.charCodeAt(ptr))) ++ptr;
  return Math.min(lim, ptr + k.schar);
}

function limfield(t: string, k: Key, tab: number): number {
  let ptr = 0;
  const lim = t.length;
  let eword = k.eword;
  const echar = k.echar;
  if (echar === 0) eword++;
  if (tab !== -1) {
    while (ptr < lim && eword--) {
      while (ptr < lim && t.charCodeAt(ptr) !== tab) ++ptr;
      if (ptr < lim && (eword || echar)) ++ptr;
    }
  } else {
    while (ptr < lim && eword--) {
      while (ptr < lim && isBlank(t.charCodeAt(ptr))) ++ptr;
      while (ptr < lim && !isBlank(t.charCodeAt(ptr))) ++ptr;
    }
  }
  if (echar !== 0) {
    if (k.skipeblanks) while (ptr < lim && isBlank(t.charCodeAt(ptr))) ++ptr;
    ptr = Math.min(lim, ptr + echar);
  }
  return ptr;
}

/** strnumcmp for C-locale numbers: [-]digits[.digits], leading blanks skipped; anything else is 0. */
function parseNum(s: string): { neg: boolean; int: string; frac: string } {
  let i = 0;
  while (i < s.length && isBlank(s.charCodeAt(i))) i++;
  let neg = false;
  if (s[i] === '-') {
    neg = true;
    i++;
  }
  const st = i;
  while (i < s.length && isDigit(s.charCodeAt(i))) i++;
  let int = s.slice(st, i).replace(/^0+/, '');
  let frac = '';
  if (s[i] === '.') {
    const fs = ++i;
    while (i < s.length && isDigit(s.charCodeAt(i))) i++;
    frac = s.slice(fs, i).replace(/0+$/, '');
  }
  if (int === '' && frac === '') neg = false;
  if (int === '') int = '';
  return { neg, int, frac };
}

function cmpMag(a: { int: string; frac: string }, b: { int: string; frac: string }): number {
  if (a.int.length !== b.int.length) return a.int.length < b.int.length ? -1 : 1;
  if (a.int !== b.int) return a.int < b.int ? -1 : 1;
  if (a.frac !== b.frac) return a.frac < b.frac ? -1 : 1;
  return 0;
}

function numcompare(a: string, b: string): number {
  const x = parseNum(a);
  const y = parseNum(b);
  if (x.neg !== y.neg) return x.neg ? -1 : 1;
  const m = cmpMag(x, y);
  return x.neg ? -m : m;
}

function unitOrder(s: string): number {
  let i = 0;
  while (i < s.length && isBlank(s.charCodeAt(i))) i++;
  const neg = s[i] === '-';
  if (neg) i++;
  let nonzero = false;
  for (; i < s.length && isDigit(s.charCodeAt(i)); i++) nonzero ||= s[i] !== '0';
  if (s[i] === '.') {
    i++;
    for (; i < s.length && isDigit(s.charCodeAt(i)); i++) nonzero ||= s[i] !== '0';
  }
  if (!nonzero) return 0;
  const order = ' KMGTPEZYRQ'.indexOf(s[i] ?? ' ');
  const o = s[i] === 'k' ? 1 : order > 0 ? order : 0;
  return neg ? -o : o;
}

function humancompare(a: string, b: string): number {
  const d = unitOrder(a) - unitOrder(b);
  return d || numcompare(a, b);
}

const STRTOD =
  /^[ \t\n\v\f\r]*([+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?))/i;

function strtod(s: string): number | null {
  const m = STRTOD.exec(s);
  if (!m) return null;
  let t = m[1]!.toLowerCase();
  const neg = t.startsWith('-');
  t = t.replace(/^[+-]/, '');
  let v: number;
  if (t.startsWith('inf')) v = Infinity;
  else if (t.startsWith('nan')) v = NaN;
  else if (t.startsWith('0x')) {
    const hm = /^0x([0-9a-f]*)\.?([0-9a-f]*)(?:p([+-]?\d+))?$/.exec(t)!;
    v = parseInt(hm[1] || '0', 16) + (hm[2] ? parseInt(hm[2], 16) / 16 ** hm[2].length : 0);
    if (hm[3]) v *= 2 ** Number(hm[3]);
  } else v = Number(t);
  return neg ? -v : v;
}

function generalcompare(a: string, b: string): number {
  const x = strtod(a);
  const y = strtod(b);
  if (x === null) return y === null ? 0 : -1;
  if (y === null) return 1;
  if (x < y) return -1;
  if (x > y) return 1;
  if (x === y) return 0;
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1;
  return 1;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
function getmonth(s: string): number {
  let i = 0;
  while (i < s.length && isBlank(s.charCodeAt(i))) i++;
  const m = s.slice(i, i + 3).toUpperCase();
  return MONTHS.indexOf(m) + 1;
}

function keep(k: Key, c: number): boolean {
  if (k.ignore === 'dict') return isAlnum(c) || isBlank(c);
  if (k.ignore === 'nonprint') return c >= 32 && c < 127;
  return true;
}
const fold = (c: number) => (c >= 97 && c <= 122 ? c - 32 : c);

function compareText(k: Key, a: string, b: string): number {
  if (k.ignore === 'none' && !k.translate) return a < b ? -1 : a > b ? 1 : 0;
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < a.length && !keep(k, a.charCodeAt(i))) i++;
    while (j < b.length && !keep(k, b.charCodeAt(j))) j++;
    if (!(i < a.length && j < b.length)) break;
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(j);
    if (k.translate) {
      x = fold(x);
      y = fold(y);
    }
    if (x !== y) return x - y;
    i++;
    j++;
  }
  return Number(i < a.length) - Number(j < b.length);
}

function filtered(k: Key, s: string): string {
  if (k.ignore === 'none' && !k.translate) return s;
  let o = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (keep(k, c)) o += String.fromCharCode(k.translate ? fold(c) : c);
  }
  return o;
}

export function keyCompare(keys: Key[], a: string, b: string, tab: number): number {
  for (const k of keys) {
    const la = k.eword === -1 ? a.length : limfield(a, k, tab);
    const lb = k.eword === -1 ? b.length : limfield(b, k, tab);
    const ba = begfield(a, k, tab);
    const bb = begfield(b, k, tab);
    const ta = a.slice(ba, Math.max(ba, la));
    const tb = b.slice(bb, Math.max(bb, lb));
    let d: number;
    if (k.numeric || k.general || k.human || k.month || k.version) {
      const fa = filtered(k, ta);
      const fb = filtered(k, tb);
      if (k.numeric) d = numcompare(fa, fb);
      else if (k.general) d = generalcompare(fa, fb);
      else if (k.human) d = humancompare(fa, fb);
      else if (k.month) d = getmonth(fa) - getmonth(fb);
      else d = filevercmp(fa, fb);
    } else d = compareText(k, ta, tb);
    if (d) return k.reverse ? -d : d;
  }
  return 0;
}

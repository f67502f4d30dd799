/** gnulib's filevercmp (sort -V, ls -v): version numbers within names compare numerically. */
import { isAlnum, isAlpha, isDigit } from './bytes.js';

// gnulib filevercmp
function fileprefixlen(s: string): number {
  const n = s.length;
  let prefixlen = 0;
  for (let i = 0; ;) {
    if (i === n) return prefixlen;
    i++;
    prefixlen = i;
    while (i + 1 < n && s[i] === '.' && (isAlpha(s.charCodeAt(i + 1)) || s[i + 1] === '~')) {
      for (i += 2; i < n && (isAlnum(s.charCodeAt(i)) || s[i] === '~'); i++);
    }
  }
}
function verOrder(s: string, pos: number, len: number): number {
  if (pos === len) return -1;
  const c = s.charCodeAt(pos);
  if (isDigit(c)) return 0;
  if (isAlpha(c)) return c;
  if (c === 126) return -2;
  return c + 256;
}
function verrevcmp(s1: string, l1: number, s2: string, l2: number): number {
  let p1 = 0;
  let p2 = 0;
  while (p1 < l1 || p2 < l2) {
    let firstDiff = 0;
    while ((p1 < l1 && !isDigit(s1.charCodeAt(p1))) || (p2 < l2 && !isDigit(s2.charCodeAt(p2)))) {
      const c1 = verOrder(s1, p1, l1);
      const c2 = verOrder(s2, p2, l2);
      if (c1 !== c2) return c1 - c2;
      p1++;
      p2++;
    }
    while (p1 < l1 && s1[p1] === '0') p1++;
    while (p2 < l2 && s2[p2] === '0') p2++;
    while (p1 < l1 && p2 < l2 && isDigit(s1.charCodeAt(p1)) && isDigit(s2.charCodeAt(p2))) {
      if (!firstDiff) firstDiff = s1.charCodeAt(p1) - s2.charCodeAt(p2);
      p1++;
      p2++;
    }
    if (p1 < l1 && isDigit(s1.charCodeAt(p1))) return 1;
    if (p2 < l2 && isDigit(s2.charCodeAt(p2))) return -1;
    if (firstDiff) return firstDiff;
  }
  return 0;
}
export function filevercmp(a: string, b: string): number {
  if (!a.length) return b.length ? -1 : 0;
  if (!b.length) return 1;
  if (a[0] === '.') {
    if (b[0] !== '.') return -1;
    const adot = a.length === 1;
    const bdot = b.length === 1;
    if (adot) return bdot ? 0 : -1;
    if (bdot) return 1;
    const add = a[1] === '.' && a.length === 2;
    const bdd = b[1] === '.' && b.length === 2;
    if (add) return bdd ? 0 : -1;
    if (bdd) return 1;
  } else if (b[0] === '.') return 1;
  const ap = fileprefixlen(a);
  const bp = fileprefixlen(b);
  const onePass = ap === a.length && bp === b.length;
  const r = verrevcmp(a, ap, b, bp);
  return r || onePass ? r : verrevcmp(a, a.length, b, b.length);
}

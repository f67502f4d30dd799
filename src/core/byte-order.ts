/**
 * Path order as the stores sort paths: UTF-8 byte order (SQLite BINARY, PostgreSQL "C"), which is
 * code point order. JS's `<` compares UTF-16 code units instead; the two differ only where, at
 * the first difference, one string has a surrogate (a code point above U+FFFF) and the other a
 * code unit from U+E000 to U+FFFF.
 */
const HIGH_UNITS = /[\ud800-\uffff]/;

/** Code point order; the cost of `<` unless both strings have code units from U+D800 up. */
export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length < b.length ? -1 : 1;
  let x = a.charCodeAt(i);
  let y = b.charCodeAt(i);
  // Surrogates (U+D800–U+DFFF) stand for code points above every BMP code unit.
  if (x >= 0xd800 && y >= 0xd800) {
    if (x <= 0xdfff) x += 0x10000;
    if (y <= 0xdfff) y += 0x10000;
  }
  return x < y ? -1 : 1;
}

/** A comparator for these strings: plain `<` when none of them can sort differently in bytes. */
export function byteOrderFor(strings: Iterable<string>): (a: string, b: string) => number {
  for (const s of strings) if (HIGH_UNITS.test(s)) return compareBytes;
  return (a, b) => (a < b ? -1 : a > b ? 1 : 0);
}

/** compareBytes orders strings as the stores do (UTF-8 bytes), which JS's `<` does not. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { byteOrderFor, compareBytes } from '../src/core/byte-order.js';

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);
const byBytes = (a: string, b: string) => sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));
// Paths made of the characters where UTF-16 and UTF-8 orders disagree, and plain ones.
const char = fc.constantFrom('a', 'z', '/', '-', 'é', '\u{e000}', '\u{fffd}', '\u{10000}', '\u{1f600}');
const path = fc.array(char, { maxLength: 6 }).map((cs) => cs.join(''));

describe('byte order', () => {
  it('compareBytes agrees with comparing the UTF-8 bytes', () => {
    fc.assert(
      fc.property(path, path, (a, b) => sign(compareBytes(a, b)) === byBytes(a, b)),
      { numRuns: 2000 },
    );
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => sign(compareBytes(a, b)) === byBytes(a, b)));
  });

  it('byteOrderFor sorts a set the way the bytes do, using plain < when it can', () => {
    fc.assert(
      fc.property(fc.array(path, { maxLength: 30 }), (xs) => {
        const sorted = [...xs].sort(byteOrderFor(xs));
        assert.deepEqual(sorted, [...xs].sort(byBytes));
      }),
    );
    assert.ok(compareBytes('\u{e000}', '\u{1f600}') < 0, 'U+E000 before U+1F600, as in UTF-8');
    assert.ok('\u{e000}' > '\u{1f600}', 'which UTF-16 order gets wrong');
    assert.equal(byteOrderFor(['/a', '/b'])('/b', '/a'), 1);
  });
});

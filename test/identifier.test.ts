/**
 * The pure rules of identifier text, tested directly (property tests):
 * - identifierProblem (core/identifier.ts): ordinary text of many scripts passes; any refused
 *   code point inserted anywhere is reported with its code point and position; joiners and
 *   variation selectors pass only where they are visible; linear time on big inputs;
 * - parseRfc3339 (core/time.ts): accepts exactly the timestamps whose fields exist on the calendar;
 * - expandScopes (core/scopes.ts): any string either expands or throws UnknownScope;
 * - checkCreatable (core/paths.ts): /dev and /shared are reserved, names follow the identifier rule.
 */
import { mainThreadCpuMs } from './helpers/loop-monitor.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ToolError } from '../src/core/errors.js';
import { formatCodePoint, identifierProblem } from '../src/core/identifier.js';
import { checkCreatable, checkRemovable } from '../src/core/paths.js';
import { ALL_SCOPES, UnknownScope, expandScopes } from '../src/core/scopes.js';
import { parseRfc3339 } from '../src/core/time.js';

/** Pieces of ordinary text: each is fine anywhere, next to any other. */
const PIECES = [
  'a',
  'Z',
  '0',
  '9',
  ' ',
  '-',
  '_',
  '.',
  '!',
  '@',
  'é',
  'ß',
  'Ø',
  'ñ',
  'ç',
  'İ',
  'Ω',
  'ж',
  'Я',
  '日',
  '本',
  '語',
  'ー',
  'の',
  '한',
  '글',
  'م',
  'ر',
  'ح',
  'ب',
  'ا',
  'ש',
  'ל',
  'ו',
  'ם',
  'क',
  '्',
  'ष',
  'ก',
  '่',
  '🙂',
  '👍🏽',
  '👩‍💻',
  '❤️',
  '🏳️‍🌈',
  '1️⃣',
  '€',
  '£',
  '✓',
  '™',
  '\u00a0',
  'می‌خ',
  'क्‍ष',
  '🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}',
  '葛\u{E0100}',
];
const ordinary = fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }).map((parts) => parts.join(''));

/** Refused wherever they stand. */
const ALWAYS_REFUSED = [
  0x00, 0x01, 0x1b, 0x7f, 0x85, 0x9f, 0xad, 0x061c, 0x115f, 0x180e, 0x200b, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2028, 0x2029,
  0x2060, 0x2061, 0x2064, 0x2066, 0x2067, 0x2068, 0x2069, 0x206f, 0x3164, 0xfeff, 0xffa0, 0xfff9, 0xfffb, 0x1d173, 0xe0001, 0xd800, 0xdbff, 0xdc00,
  0xdfff,
];

describe('identifierProblem', () => {
  it('ordinary text of any script, emoji sequences included, passes', () => {
    fc.assert(
      fc.property(ordinary, (text) => identifierProblem(text) === null),
      { numRuns: 2000 },
    );
  });

  it('a refused code point inserted anywhere is reported, with its code point and position', () => {
    fc.assert(
      fc.property(ordinary, fc.constantFrom(...ALWAYS_REFUSED), fc.nat(), (text, cp, at) => {
        // Inserted between code points, never inside a surrogate pair.
        const chars = [...text];
        const i = chars.length === 0 ? 0 : at % (chars.length + 1);
        const before = chars.slice(0, i).join('');
        const inserted = before + String.fromCodePoint(cp) + chars.slice(i).join('');
        const p = identifierProblem(inserted);
        assert.ok(p, `${JSON.stringify(inserted)} passed`);
        if (p.index < before.length) {
          // Only a joiner right before the insertion can fail first: its neighbour is no longer a letter.
          assert.ok(['U+200C', 'U+200D'].includes(p.codePoint) && p.index === before.length - 1, JSON.stringify(p));
        } else {
          assert.equal(p.codePoint, formatCodePoint(cp));
          assert.equal(p.index, before.length);
        }
        assert.match(p.reason, /^an? /);
      }),
      { numRuns: 3000 },
    );
  });

  it('joiners and variation selectors: kept where visible, refused where invisible', () => {
    for (const ok of ['👩‍💻', '👨🏽‍🚀', '❤️‍🔥', 'می‌خواهم', 'क्‍ष', 'क्‌ष', '1️⃣', '✌︎']) assert.equal(identifierProblem(ok), null, ok);
    const refused: Array<[string, string, number]> = [
      ['\u200d', 'U+200D', 0],
      ['a\u200d', 'U+200D', 1],
      ['\u200db', 'U+200D', 0],
      ['a\u200db', 'U+200D', 1],
      ['a\u200cb', 'U+200C', 1],
      ['ж\u200dж', 'U+200D', 1],
      ['👩\u200d', 'U+200D', 2],
      ['\u200d\u200d', 'U+200D', 0],
      ['\ufe0f', 'U+FE0F', 0],
      [' \ufe0f', 'U+FE0F', 1],
      ['\u{E0067}', 'U+E0067', 0],
      ['a\u{E0067}', 'U+E0067', 1],
      ['ok\u200b', 'U+200B', 2],
    ];
    for (const [text, cp, index] of refused) {
      const p = identifierProblem(text);
      assert.ok(p, JSON.stringify(text));
      assert.deepEqual([p.codePoint, p.index], [cp, index], JSON.stringify(text));
    }
  });

  // The longest text it is given is a 1024-byte path (names, labels and idempotency keys are
  // capped at 64 to 200 characters before the check). 128 Ki code units of the slowest kinds
  // (every character a joiner or a selector needing its neighbours) take ~30 ms here; a megabyte
  // of plain text ~13 ms (one regex scan).
  it('is linear and cheap: 128 Ki code units of joiner-heavy text in well under 250 ms', () => {
    for (const text of ['a'.repeat(1 << 20), '日本'.repeat(1 << 16), '👩‍💻'.repeat(1 << 14), 'می‌خ'.repeat(1 << 15), 'x\ufe0f'.repeat(1 << 16)]) {
      const t0 = mainThreadCpuMs();
      assert.equal(identifierProblem(text), null);
      const ms = mainThreadCpuMs() - t0;
      assert.ok(ms < 250, `${ms.toFixed(0)} ms of CPU for ${text.length} code units`);
    }
  });
});

describe('parseRfc3339', () => {
  it('accepts exactly the timestamps whose fields exist on the calendar', () => {
    const two = (n: number) => String(n).padStart(2, '0');
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 60 }),
        (y, mo, d, h, mi, s) => {
          const text = `${y}-${two(mo)}-${two(d)}T${two(h)}:${two(mi)}:${two(s)}Z`;
          const ref = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
          const real =
            mo >= 1 &&
            mo <= 12 &&
            ref.getUTCFullYear() === y &&
            ref.getUTCMonth() === mo - 1 &&
            ref.getUTCDate() === d &&
            ref.getUTCHours() === h &&
            ref.getUTCMinutes() === mi &&
            ref.getUTCSeconds() === s;
          const ms = parseRfc3339(text);
          assert.equal(!Number.isNaN(ms), real, text);
          if (real) assert.equal(ms, ref.getTime());
        },
      ),
      { numRuns: 5000 },
    );
    assert.ok(Number.isNaN(parseRfc3339('2027-06-15T10:00:00+24:00')));
    assert.equal(parseRfc3339('2027-06-15T10:00:00.5+02:30'), Date.UTC(2027, 5, 15, 7, 30, 0, 500));
    assert.ok(Number.isNaN(parseRfc3339('2027-02-29T00:00:00Z')));
    assert.equal(parseRfc3339('2028-02-29T00:00:00Z'), Date.UTC(2028, 1, 29));
  });
});

describe('expandScopes', () => {
  it('any string either expands to known scopes or throws UnknownScope (never a TypeError)', () => {
    const names = [...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'files', 'agents', ...ALL_SCOPES];
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 12 })), { maxLength: 5 }), (input) => {
        try {
          const out = expandScopes(input);
          assert.ok(out.every((s) => (ALL_SCOPES as readonly string[]).includes(s)));
        } catch (err) {
          assert.ok(err instanceof UnknownScope, String(err));
        }
      }),
      { numRuns: 2000 },
    );
    assert.throws(() => expandScopes(['__proto__']), UnknownScope);
  });
});

describe('checkCreatable', () => {
  const reason = (path: string) => {
    try {
      checkCreatable(path);
      return null;
    } catch (err) {
      assert.ok(err instanceof ToolError && err.code === 'INVALID_PATH');
      return err.details as { reason: string; reserved?: string; codePoint?: string };
    }
  };
  it('/dev and /shared are reserved (component-wise); a name breaking the identifier rule is refused', () => {
    for (const p of ['/dev', '/dev/null', '/dev/stdout', '/dev/a/b']) assert.deepEqual(reason(p), { path: p, reason: 'reserved', reserved: '/dev' });
    for (const p of ['/shared', '/shared/x']) assert.equal(reason(p)?.reserved, '/shared');
    for (const p of ['/device', '/devx/null', '/a/dev/null', '/x/shared', '/日本/مرحبا/👩‍💻.md']) assert.equal(reason(p), null, p);
    assert.equal(reason('/a/b\u202ec/d')?.codePoint, 'U+202E');
    assert.equal(reason('/\u200b/d')?.codePoint, 'U+200B');
    // Taking a file away from /dev is allowed; from /shared it is not.
    assert.doesNotThrow(() => checkRemovable('/dev/null'));
    assert.throws(() => checkRemovable('/shared/x'));
  });
});

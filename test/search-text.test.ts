/** core/search-text.ts: tokens, queries for both engines, snippets; worst inputs stay linear. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_QUERY_TERMS, QueryError, ftsQuery, parseQuery, snippet, tokenize, tsQuery, tsvectorLiteral } from '../src/core/search-text.js';

describe('search text', () => {
  it('tokens: lower-cased letters and digits, accents removed, camel parts appended once', () => {
    assert.deepEqual(tokenize('parseConfig(foo_bar.baz) Café 42'), ['parseconfig', 'foo', 'bar', 'baz', 'cafe', '42', 'parse', 'config']);
    assert.deepEqual(tokenize('HTTPServer HTTPServer'), ['httpserver', 'httpserver', 'http', 'server']);
    assert.deepEqual(tokenize('Москва ΑΘΗΝΑ'), ['москва', 'αθηνα']);
    assert.deepEqual(tokenize('—…!?'), []);
  });

  it('queries: AND, phrases, exclusions, prefixes, for FTS5 and tsquery alike', () => {
    const q = parseQuery('config AND "quick  brown" -fox -"a b" pars* foo.bar');
    assert.deepEqual(
      q.include.map((t) => [t.tokens, t.prefix]),
      [
        [['config'], false],
        [['quick', 'brown'], false],
        [['pars'], true],
        [['foo', 'bar'], false],
      ],
    );
    assert.equal(ftsQuery(q), '("config" AND "quick brown" AND "pars"* AND "foo bar") NOT "fox" NOT "a b"');
    assert.equal(tsQuery(q), "'config' & ('quick' <-> 'brown') & 'pars':* & ('foo' <-> 'bar') & !'fox' & !('a' <-> 'b')");
    for (const bad of ['-fox', '!!!', 'a OR b', '""', Array.from({ length: MAX_QUERY_TERMS + 1 }, (_, i) => `w${i}`).join(' ')]) {
      assert.throws(() => parseQuery(bad), QueryError, bad);
    }
  });

  it('whatever the input, the engines get only quoted tokens of letters and digits', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: 'binary' }), (raw) => {
        let q;
        try {
          q = parseQuery(raw);
        } catch (err) {
          assert.ok(err instanceof QueryError);
          return;
        }
        for (const t of [...q.include, ...q.exclude]) for (const k of t.tokens) assert.match(k, /^[\p{L}\p{N}]+$/u);
        assert.doesNotMatch(ftsQuery(q).replace(/"[\p{L}\p{N} ]+"\*?/gu, ''), /[^()A-Z ]/);
      }),
    );
  });

  it('tsvector literals: positions capped as PostgreSQL requires (256 per lexeme, 16,383 at most)', () => {
    const lit = tsvectorLiteral(Array.from({ length: 20_000 }, () => 'a'));
    const positions = lit.slice("'a':".length).split(',');
    assert.equal(positions.length, 256);
    assert.equal(tsvectorLiteral(['x', 'y', 'x']), "'x':1,3 'y':2");
    const far = tsvectorLiteral([...Array.from({ length: 17_000 }, (_, i) => `w${i}`), 'end']);
    assert.ok(far.endsWith("'end':16383"));
  });

  it('snippets: a window around the first hit, the hits marked as written, one line', () => {
    const q = parseQuery('fox café');
    assert.equal(snippet('The quick\nbrown FOX and the Café.', q), 'The quick brown «FOX» and the «Café».');
    const long = `${'lorem ipsum '.repeat(100)}the fox ${'dolor '.repeat(100)}`;
    const s = snippet(long, q);
    assert.match(s, /^….*«fox».*…$/);
    assert.ok(s.length < 260);
    assert.equal(snippet('nothing here', q), 'nothing here');
    assert.match(snippet('a fooBarBaz b', parseQuery('bar')), /«fooBarBaz»/);
  });

  it('worst inputs stay linear: 1 MB without separators, 1 MB of one-letter words, a long identifier', () => {
    for (const text of ['x'.repeat(1 << 20), 'a '.repeat(1 << 19), 'aB'.repeat(1 << 19)]) {
      const t0 = performance.now();
      tokenize(text);
      snippet(text, parseQuery('zzz'));
      assert.ok(performance.now() - t0 < 1500, `${(performance.now() - t0).toFixed(0)} ms`);
    }
  });
});

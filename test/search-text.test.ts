/** core/search-text.ts: tokens, queries for both engines, snippets; worst inputs stay linear. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { mainThreadCpuMs } from './helpers/loop-monitor.js';
import {
  MAX_QUERY_TERMS,
  QueryError,
  ftsDocText,
  ftsQuery,
  ftsText,
  parseQuery,
  snippet,
  tokenize,
  tsQuery,
  tsvectorLiteral,
} from '../src/core/search-text.js';

describe('search text', () => {
  it('tokens: lower-cased letters and digits, accents removed, camel parts appended once', () => {
    assert.deepEqual(tokenize('parseConfig(foo_bar.baz) Café 42'), ['parseconfig', 'foo', 'bar', 'baz', 'cafe', '42', 'parse', 'config']);
    assert.deepEqual(tokenize('HTTPServer HTTPServer'), ['httpserver', 'httpserver', 'http', 'server']);
    assert.deepEqual(tokenize('Москва ΑΘΗΝΑ'), ['москва', 'αθηνα']);
    assert.deepEqual(tokenize('—…!?'), []);
  });

  it("FTS5 documents: ASCII text as written gives FTS5's tokenizer the same tokens at the same positions as tokenize's", () => {
    // The table of migration 8 (store/schema-search.ts), and FTS5's own view of what it indexed.
    const db = new Database(':memory:');
    db.exec("CREATE VIRTUAL TABLE f USING fts5(tokens, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')");
    db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(f, 'instance')");
    const insert = db.prepare('INSERT INTO f (rowid, tokens) VALUES (?, ?)');
    const indexed = db.prepare('SELECT term, "offset" FROM v WHERE doc = ? ORDER BY "offset"');
    const same = (text: string) => {
      db.exec('DELETE FROM f');
      const tokens = tokenize(text);
      const raw = ftsDocText(text);
      assert.equal(raw === null, tokens.length === 0, JSON.stringify(text));
      if (raw === null) return;
      insert.run(1, ftsText(tokens));
      insert.run(2, raw);
      assert.deepEqual(indexed.all(2), indexed.all(1), JSON.stringify(text));
    };
    for (const text of ['parseConfig(foo_bar.baz) 42', 'HTTPServer HTTPServer parseJSON', 'src/app.ts\nx', '— ! ?', '', 'a1B2 A1b fooBAR'])
      same(text);
    const word = fc.stringMatching(/^[A-Za-z0-9]{1,12}$/);
    const gap = fc.constantFrom(' ', '\n', '_', '.', '/', '-', '(', '"', '*', "'", '\t');
    fc.assert(
      fc.property(fc.array(fc.tuple(word, gap), { maxLength: 40 }), (pairs) => same(pairs.map(([w, g]) => w + g).join(''))),
      { numRuns: 300 },
    );
    // Not ASCII: the tokens themselves.
    assert.equal(ftsDocText('Café fooBar'), ftsText(tokenize('Café fooBar')));
  });

  it('FTS5 documents stay linear on the worst inputs (1 MB of one word, of camel boundaries)', () => {
    // Judged by the main thread's CPU time: a loaded machine stretches wall time (a flaky guard is a defect).
    for (const text of ['a'.repeat(1e6), 'aB'.repeat(5e5), 'Ab'.repeat(5e5), 'fooBar '.repeat(140_000)]) {
      const started = mainThreadCpuMs();
      ftsDocText(text);
      const ms = mainThreadCpuMs() - started;
      assert.ok(ms < 200, `${text.slice(0, 8)}…: ${ms.toFixed(0)} ms of CPU`);
    }
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
      const t0 = mainThreadCpuMs();
      tokenize(text);
      snippet(text, parseQuery('zzz'));
      const ms = mainThreadCpuMs() - t0;
      assert.ok(ms < 1500, `${ms.toFixed(0)} ms of CPU`);
    }
  });
});

/**
 * A file result's snippet is cut from a window of at most 64 KB (tools/search-snippets.ts,
 * store/search-snippets.ts): around the first occurrence of the query's longest word however far
 * into the file it is, in any of its usual spellings, with a UTF-8 sequence cut by the window's
 * edges left out rather than the whole window lost.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseQuery } from '../src/core/search-text.js';
import { probeWord, windowSnippet, windowText } from '../src/tools/search-snippets.js';
import { drainSearchOutbox } from '../src/tools/search-indexer.js';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

describe('search snippets: the window', () => {
  it('leaves out a UTF-8 sequence cut by either edge', () => {
    const bytes = Buffer.from('éa needle bé');
    // Starts inside the first é (2 bytes), ends inside the last one.
    const w = { bytes: bytes.subarray(1, bytes.length - 1), start: 1, size: bytes.length };
    assert.equal(windowText(w), 'a needle b');
    assert.equal(windowSnippet(w, parseQuery('needle')), '…a «needle» b…');
  });

  it("reads around the query's longest ASCII word", () => {
    assert.equal(probeWord(parseQuery('a needles "in haystacks"')), 'haystacks');
    assert.equal(probeWord(parseQuery('東京')), '');
  });
});

for (const backend of backends()) {
  describe(`search snippets (${backend})`, () => {
    let s: TestServer;
    let key: string;
    before(async () => {
      s = await startServer(backend, { SEARCH_MAX_FILE_BYTES: String(1024 * 1024) });
      key = (await s.register('Snippets')).apiKey;
    });
    after(() => s.close());

    it('shows the hit at the end of a 900 KB file, Capitalized or UPPER, after accented text', async () => {
      const head = 'ça démarre ici, ŝtupo post ŝtupo\n'.repeat(24_000);
      await s.ok(key, 'write', { path: '/far/a.txt', content: `${head}Then the Needle at last\n` });
      await s.ok(key, 'write', { path: '/far/b.txt', content: `${head}THE HAYSTACKS END HERE\n` });
      while ((await s.store.pendingSearchCount()) > 0) await drainSearchOutbox(s.store, s.config, 60_000);
      const a = await s.ok(key, 'search', { query: 'needle', types: ['files'] });
      assert.deepEqual(
        a.items.map((i: { path: string; snippet: string }) => [i.path, i.snippet]),
        [['/far/a.txt', '… ŝtupo post ŝtupo ça démarre ici, ŝtupo post ŝtupo Then the «Needle» at last ']],
      );
      const b = await s.ok(key, 'search', { query: 'haystacks end', types: ['files'] });
      assert.match(b.items[0].snippet, /THE «HAYSTACKS» «END» HERE $/);
    });
  });
}

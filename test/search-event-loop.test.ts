/**
 * A search's work grows with its matches (up to SEARCH_RANK_WINDOW are ranked): on SQLite it runs on the store's
 * reader thread, so one search over a big corpus does not hold the event loop that serves every
 * other request (the rule: no request blocks it for > 250 ms). The index is written on a thread of
 * its own too: tokenizing a batch and the FTS5 segment merges its inserts make (a common word's
 * whole doclist at once: 100-350 ms at 110,000 documents) never run on the event loop.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { drainSearchOutbox } from '../src/tools/search-indexer.js';
import { monitorLoop } from './helpers/loop-monitor.js';
import { startServer, type TestServer } from './helpers/server.js';

const DOCS = 60_000;

describe('search (sqlite): a long search runs off the event loop', () => {
  let s: TestServer;
  let key: string;
  before(async () => {
    // Every match ranked (the default window of 1,000 would make this search short).
    s = await startServer('sqlite', { SEARCH_RANK_WINDOW: '10000000' });
    const r = await s.register('Loop Searcher');
    key = r.apiKey;
    const agentId = (await s.ok(key, 'get_key_info')).agent.id as string;
    await s.ok(key, 'search', { query: 'warmup' }); // the outbox drained, the reader started
    // A corpus straight into the index: one agent document per row (shown to every searcher).
    const db = (s.store as any).db;
    const doc = db.prepare(
      "INSERT INTO search_docs (type, owner_id, ref, version, updated_at_ms, title, body) VALUES ('agent', ?, ?, 0, 0, 'w', 'walrus') RETURNING id",
    );
    const fts = db.prepare('INSERT INTO search_fts (rowid, tokens) VALUES (?, ?)');
    db.transaction(() => {
      for (let i = 0; i < DOCS; i++) fts.run(doc.get(agentId, `loop-${i}`).id, `walrus ${'x '.repeat(i % 7)}`);
    })();
  });
  after(() => s.close());

  it(`ranking ${DOCS.toLocaleString('en')} matches holds the event loop for a fraction of the search`, async () => {
    const loop = monitorLoop();
    const started = performance.now();
    const found = await s.ok(key, 'search', { query: 'walrus', types: ['agents'], limit: 5 });
    const tookMs = performance.now() - started;
    const report = loop.stop();
    assert.equal(found.items.length, 5);
    assert.ok(found.nextCursor, 'more than a page');
    // The ranking itself is long; the event loop was busy for a small part of it.
    assert.ok(tookMs > 40, `the search took ${tookMs.toFixed(0)} ms: the corpus is too small to show anything`);
    assert.ok(report.maxBusyMs < Math.max(20, tookMs / 3), `event loop held ${report.maxBusyMs.toFixed(0)} ms of a ${tookMs.toFixed(0)} ms search`);
  });
});

describe('search (sqlite): the index is written off the event loop', () => {
  let s: TestServer;
  let key: string;
  before(async () => {
    // The background indexer waits: the test drains the outbox itself, under the monitor.
    s = await startServer('sqlite', { SEARCH_INDEX_INTERVAL_MS: '60000' });
    key = (await s.register('Loop Indexer')).apiKey;
  });
  after(() => s.close());

  it('draining 3,000 files of distinct words holds the event loop a few ms at most', async () => {
    const words = (i: number, j: number) => Array.from({ length: 400 }, (_, k) => `w${(i * 7919 + j * 104729 + k * 31) % 50_000}x`).join(' ');
    for (let j = 0; j < 3; j++) {
      const files = Array.from({ length: 1000 }, (_, i) => ({ path: `/corpus/${j}/f${i}.txt`, content: `${words(i, j)} marker${j}q${i}\n` }));
      await s.ok(key, 'write_files', { files });
    }
    assert.ok((await s.store.pendingSearchCount()) >= 3000);
    const loop = monitorLoop();
    const started = performance.now();
    const drained = await drainSearchOutbox(s.store, s.config, 120_000);
    const tookMs = performance.now() - started;
    const report = loop.stop();
    assert.ok(drained >= 3000, `drained ${drained}`);
    assert.equal(await s.store.pendingSearchCount(), 0);
    // Indexing took tens of ms a batch on the event loop before (12 MB of text in 200-file batches).
    assert.ok(tookMs > 200, `indexing took ${tookMs.toFixed(0)} ms: the corpus is too small to show anything`);
    console.log(`# indexing 3,000 files: ${tookMs.toFixed(0)} ms, the event loop held ${report.maxBusyMs.toFixed(1)} ms at most`);
    assert.ok(report.maxBusyMs < 20, `event loop held ${report.maxBusyMs.toFixed(0)} ms while indexing for ${tookMs.toFixed(0)} ms`);
    const found = await s.ok(key, 'search', { query: 'marker2q5', types: ['files'] });
    assert.deepEqual(
      found.items.map((i: { path: string }) => i.path),
      ['/corpus/2/f5.txt'],
    );
  });
});

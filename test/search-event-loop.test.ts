/**
 * A search's work grows with its matches (every match is ranked): on SQLite it runs on the store's
 * reader thread, so one search over a big corpus does not hold the event loop that serves every
 * other request (the rule: no request blocks it for > 250 ms).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { monitorLoop } from './helpers/loop-monitor.js';
import { startServer, type TestServer } from './helpers/server.js';

const DOCS = 60_000;

describe('search (sqlite): a long search runs off the event loop', () => {
  let s: TestServer;
  let key: string;
  before(async () => {
    s = await startServer('sqlite');
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

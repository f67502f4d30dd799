/**
 * `npm run reindex`: rebuilds the search index from the tables. Empties it and queues everything
 * searchable in one transaction (a crash leaves either the old index or the full queue), then
 * drains the queue here, in bounded batches; running servers keep answering meanwhile and help
 * drain it. Safe to run against a live deployment.
 *   npm run reindex [-- --queue-only]
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { openStore } from './store/open.js';
import { drainSearchOutbox } from './tools/search-indexer.js';

try {
  const { values } = parseArgs({ options: { 'queue-only': { type: 'boolean', default: false } } });
  const config = loadConfig();
  const store = openStore(config);
  try {
    await store.migrate();
    const queued = await store.resetSearchIndex();
    process.stdout.write(`search index emptied; queued ${queued} items\n`);
    if (!values['queue-only']) {
      const started = Date.now();
      let done = 0;
      while ((await store.pendingSearchCount()) > 0) {
        const n = await drainSearchOutbox(store, config, 1000);
        done += n;
        if (n === 0) await new Promise((r) => setTimeout(r, 100)); // another process holds the indexer
      }
      process.stdout.write(`indexed ${done} items in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    }
  } finally {
    await store.close();
  }
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`reindex: ${err.message}\n`);
    process.exit(2);
  }
  throw err;
}

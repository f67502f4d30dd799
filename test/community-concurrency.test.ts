/**
 * Votes and comments under concurrency on one server per backend (test/helpers/community-scenarios.ts
 * says what is proven); test/slow/community-concurrency-processes.test.ts runs the same with two
 * server processes on one database.
 */
import { after, before, describe } from 'node:test';
import { backends } from './helpers/backends.js';
import { communityScenarios } from './helpers/community-scenarios.js';
import { startServer, type TestServer } from './helpers/server.js';

for (const backend of backends()) {
  describe(`community counters under concurrency, one server (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
    });
    after(() => s.close());
    communityScenarios(() => [s], `race-${backend.slice(0, 2)}`);
  });
}

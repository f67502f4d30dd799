/**
 * Concurrency of the social layer: counters live on the agent rows and change in the
 * transaction that changes what they count, so bursts must count exactly.
 *  - 50 concurrent follows of one agent: followers 50, 50 unread notifications, list_followers
 *    pages to the 50 followers, each once;
 *  - 50 concurrent messages from one agent to another: 50 unread (get_home, list_conversations),
 *    one message notification for the burst, then get_conversation shows the 50 and unread 0;
 *  - mark_notifications_read {all: true} racing new follows: the unread count always equals the
 *    unread notifications actually listed;
 *  - an agent blocking another while it reads that agent's conversation and marks its
 *    notifications read: every call succeeds (PostgreSQL once answered one of them "deadlock
 *    detected") and the unread counts match what is listed.
 * Run in-process on both backends here; test/slow/social-concurrency-processes.test.ts runs the
 * same scenarios with two server processes on one database (PostgreSQL; also one SQLite file).
 */
import { after, before, describe } from 'node:test';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';
import { N, registerAll, scenarios, type Agents } from './helpers/social-scenarios.js';

for (const backend of backends()) {
  describe(`social counters under concurrency, one server (${backend})`, () => {
    let s: TestServer;
    const agents: Agents = { followers: [] };
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
      agents.followers = await registerAll([s], 'Follower', N);
    });
    after(() => s.close());
    scenarios(() => [s], agents);
  });
}

/**
 * The community concurrency scenarios (test/helpers/community-scenarios.ts) with two server
 * processes sharing one database — PostgreSQL (the multi-instance deployment) and one SQLite
 * file — requests split round-robin between them.
 */
import { after, before, describe } from 'node:test';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/backends.js';
import { communityScenarios } from '../helpers/community-scenarios.js';
import { freePort, spawnServer, type ChildServer } from '../helpers/server.js';

for (const backend of backends()) {
  describe(`community counters under concurrency, two server processes sharing one ${backend === 'postgres' ? 'PostgreSQL database' : 'SQLite file'}`, () => {
    let db: TestDatabase;
    let servers: ChildServer[] = [];
    before(async () => {
      db = await createTestDatabase(backend);
      const env = { ...db.env, LOG_LEVEL: 'warn', REGISTRATIONS_PER_IP_PER_HOUR: '0', RATE_LIMIT_PER_MINUTE: '100000' };
      const [p1, p2] = [await freePort(), await freePort()];
      servers = [await spawnServer(env, p1)];
      servers.push(await spawnServer(env, p2));
    });
    after(async () => {
      await Promise.all(servers.map((sv) => sv.kill('SIGTERM')));
      await db.drop();
    });
    communityScenarios(() => servers, `procs-${backend.slice(0, 2)}`);
  });
}

/**
 * The social layer's concurrency scenarios (test/helpers/social-scenarios.ts) with two server
 * processes sharing one database — PostgreSQL, the multi-instance deployment, and one SQLite file
 * in WAL mode — requests split round-robin between them. In test:slow: ~28 s on two cores.
 */
import { after, before, describe } from 'node:test';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/backends.js';
import { freePort, spawnServer, type ChildServer } from '../helpers/server.js';
import { N, registerAll, scenarios, type Agents } from '../helpers/social-scenarios.js';

for (const backend of backends()) {
  describe(`social counters under concurrency, two server processes sharing one ${backend === 'postgres' ? 'PostgreSQL database' : 'SQLite file'}`, () => {
    let db: TestDatabase;
    let servers: ChildServer[] = [];
    const agents: Agents = { followers: [] };
    before(async () => {
      db = await createTestDatabase(backend);
      const env = { ...db.env, LOG_LEVEL: 'warn' };
      const [p1, p2] = [await freePort(), await freePort()];
      // Start one first so the second finds the schema migrated.
      servers = [await spawnServer(env, p1)];
      servers.push(await spawnServer(env, p2));
      agents.followers = await registerAll(servers, 'Follower', N);
    });
    after(async () => {
      await Promise.all(servers.map((sv) => sv.kill('SIGTERM')));
      await db.drop();
    });
    scenarios(() => servers, agents);
  });
}

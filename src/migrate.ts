/** `npm run migrate`: apply pending migrations and exit. Safe to run while servers are up. */
import { ConfigError, loadConfig } from './config.js';
import { openStore } from './store/open.js';

try {
  const config = loadConfig();
  const store = openStore(config);
  const applied = await store.migrate();
  await store.close();
  process.stdout.write(`migrations: ${applied} applied (${store.kind})\n`);
} catch (err) {
  const reason = err instanceof ConfigError ? `invalid configuration: ${err.message}` : (err as Error).message;
  process.stderr.write(`agent-file-service migrate: ${reason}\n`);
  process.exit(1);
}

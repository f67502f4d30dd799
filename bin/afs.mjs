#!/usr/bin/env node
// The `afs` command (package.json "bin"): the compiled CLI in dist/. From a clone, `npm run build`
// (or `npm start`, `npm test`) builds it; `npx afs …` then works in the repository.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write('afs: not built yet; run `npm run build` in the agent-file-service directory.\n');
  process.exit(2);
}
await import(main.href);

// Build step (after tsc): writes the patched just-bash bundle to dist/src/sandbox, where
// src/sandbox/just-bash.ts imports it from. See src/sandbox/just-bash-patch.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PATCHED_FILE_NAME, patchBundle } from '../dist/src/sandbox/just-bash-patch.js';

const bundleUrl = import.meta.resolve('just-bash');
const patched = patchBundle(readFileSync(fileURLToPath(bundleUrl), 'utf8'), bundleUrl);
if (patched === null) {
  console.error('patch-just-bash: the installed just-bash has no recognisable glob expander; trailing-slash globs stay unfixed');
  process.exit(0);
}
writeFileSync(new URL(`../dist/src/sandbox/${PATCHED_FILE_NAME}`, import.meta.url), patched);

// Build step (after tsc): writes the patched just-bash bundle to dist/src/sandbox, where
// src/sandbox/just-bash.ts imports it from. See src/sandbox/just-bash-patch.ts.
//
// A bundle the patch does not recognise (another just-bash: package.json pins the version the
// fixes were written for) fails the build: running unpatched would silently bring back every bug
// the patch fixes. PATCH_JUST_BASH_SOURCE names another bundle to patch (the test of this failure).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PATCHED_FILE_NAME, patchBundle } from '../dist/src/sandbox/just-bash-patch.js';

const bundleUrl = process.env.PATCH_JUST_BASH_SOURCE ? pathToFileURL(process.env.PATCH_JUST_BASH_SOURCE).href : import.meta.resolve('just-bash');
const patched = patchBundle(readFileSync(fileURLToPath(bundleUrl), 'utf8'), bundleUrl);
if (patched === null) {
  console.error(
    `patch-just-bash: FAILED: ${fileURLToPath(bundleUrl)} does not contain the text the just-bash patch expects ` +
      '(src/sandbox/just-bash-patch.ts). Another just-bash version is installed, or the bundle is already patched. ' +
      'Install the version package.json pins (npm ci), or port the fixes to the new bundle and pin it.',
  );
  process.exit(1);
}
// Another bundle was only checked: the build's output is the installed one's.
if (process.env.PATCH_JUST_BASH_SOURCE) process.exit(0);
writeFileSync(new URL(`../dist/src/sandbox/${PATCHED_FILE_NAME}`, import.meta.url), patched);

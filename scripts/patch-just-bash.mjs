// Build step (after tsc): writes the patched just-bash bundle to dist/src/sandbox, where the
// adapter (src/sandbox/just-bash.ts) imports it from. The patches are declared in
// src/sandbox/just-bash/patches.ts.
//
// A patch whose text is not in the bundle exactly as declared (another just-bash: package.json
// pins the version the fixes were written for) fails the build, naming the patch: running
// unpatched would silently bring back the bug it fixes. PATCH_JUST_BASH_SOURCE names another
// bundle to check (the test of this failure).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PATCHED_FILE_NAME, justBashVersion, patchBundle } from '../dist/src/sandbox/just-bash/patches.js';

const bundleUrl = process.env.PATCH_JUST_BASH_SOURCE ? pathToFileURL(process.env.PATCH_JUST_BASH_SOURCE).href : import.meta.resolve('just-bash');
let patched;
try {
  patched = patchBundle(readFileSync(fileURLToPath(bundleUrl), 'utf8'), bundleUrl, justBashVersion(bundleUrl));
} catch (err) {
  console.error(`patch-just-bash: FAILED: ${err.message} [bundle ${fileURLToPath(bundleUrl)}]`);
  process.exit(1);
}
// Another bundle was only checked: the build's output is the installed one's.
if (process.env.PATCH_JUST_BASH_SOURCE) process.exit(0);
writeFileSync(new URL(`../dist/src/sandbox/${PATCHED_FILE_NAME}`, import.meta.url), patched);

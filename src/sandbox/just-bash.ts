/**
 * just-bash, loaded with one fix applied to its bundle: pathname expansion of a pattern that
 * ends in '/' (`*\/`, `docs/*\/`, `.*\/`) yields only directories, each with its trailing slash,
 * as in GNU bash. The bundle's glob expander drops the empty last segment, so `ls -d *\/` and
 * `for d in *\/` also listed files, without the slash.
 *
 * The expander is a class internal to the bundle, so the fix is textual (just-bash-patch.ts):
 * `npm run build` writes the patched bundle next to this file; if it is missing or was made from
 * another just-bash, the bundle is patched in memory and imported from a data: URL (~11 MB more
 * per thread). Every runtime import of just-bash in this project goes through this module, so
 * there is one instance. just-bash is pinned (package.json); a bundle without the expected text
 * fails the build, and, if swapped in after it, the import of this module.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type * as JustBash from 'just-bash';
import { bindJustBash } from '../gnu/kit/command.js';
import { PATCHED_FILE_NAME, patchBundle, sourceTag } from './just-bash-patch.js';

async function load(): Promise<typeof JustBash> {
  const bundleUrl = import.meta.resolve('just-bash');
  const source = readFileSync(fileURLToPath(bundleUrl), 'utf8');
  const built = new URL(PATCHED_FILE_NAME, import.meta.url);
  const builtPath = fileURLToPath(built);
  if (existsSync(builtPath) && readFileSync(builtPath, 'utf8').startsWith(sourceTag(source))) {
    return (await import(built.href)) as typeof JustBash;
  }
  const patched = patchBundle(source, bundleUrl);
  // The build fails on a bundle it cannot patch (scripts/patch-just-bash.mjs): only a just-bash
  // replaced since the build gets here, and it must not run with the fixes silently gone.
  if (patched === null)
    throw new Error('just-bash: the installed bundle is not the one the patch expects (src/sandbox/just-bash-patch.ts); rebuild or port the patch');
  return (await import(`data:text/javascript;base64,${Buffer.from(patched).toString('base64')}`)) as typeof JustBash;
}

const justBash = await load();

export const { Bash, DefenseInDepthBox, InMemoryFs, defineCommand, latin1FromBytes, decodeBytesToUtf8 } = justBash;
// The GNU commands (src/gnu) use this instance's helpers.
bindJustBash(justBash);
export type Bash = JustBash.Bash;
export type InMemoryFs = JustBash.InMemoryFs;
export type { Command, CommandName, CustomCommand, FsStat, IFileSystem } from 'just-bash';

/**
 * The textual fix applied to just-bash's ESM bundle (see just-bash.ts for why). Pure: the build
 * writes the patched bundle into dist (scripts/patch-just-bash.mjs), and just-bash.ts patches in
 * memory when that file is missing or was made from another version of the bundle.
 */
import { createHash } from 'node:crypto';

const EXPAND = /async expand\((\w+)\)\{if\(this\.globstar\)\{/;

/** File name of the patched bundle, next to the compiled just-bash.js. */
export const PATCHED_FILE_NAME = 'just-bash.patched.mjs';

/** First line of a patched bundle: names the original it was made from. */
export const sourceTag = (source: string): string => `// patched just-bash bundle, source sha256 ${createHash('sha256').update(source).digest('hex')}\n`;

/** The bundle source with the fix, or null when the expected text is not there. */
export function patchBundle(source: string, bundleUrl: string): string | null {
  if (!EXPAND.test(source) || source.includes('__expandAll(')) return null;
  const fixed = source.replace(
    EXPAND,
    (_m, p: string) =>
      `async expand(${p}){if(${p}.length>1&&${p}.endsWith("/")&&this.hasGlobChars(${p}))return this.__dirsOnly(${p});return this.__expandAll(${p})}` +
      // Expand without the slash, keep the directories, give them their slash back.
      `async __dirsOnly(p){let out=[];for(let m of await this.__expandAll(p.replace(/\\/+$/,""))){` +
      `let full=m.startsWith("/")?m:this.fs.resolvePath(this.cwd,m);` +
      `try{if((await this.fs.stat(full)).isDirectory)out.push(m.endsWith("/")?m:m+"/")}catch{}}return out}` +
      `async __expandAll(${p}){if(this.globstar){`,
  );
  // Relative imports and import.meta.url made absolute: the patched copy lives elsewhere.
  const dir = bundleUrl.slice(0, bundleUrl.lastIndexOf('/') + 1);
  return (
    sourceTag(source) +
    fixed.replaceAll('"./chunks/', `"${dir}chunks/`).replaceAll('import.meta.url', JSON.stringify(bundleUrl))
  );
}

/**
 * The textual fix applied to just-bash's ESM bundle (see just-bash.ts for why). Pure: the build
 * writes the patched bundle into dist (scripts/patch-just-bash.mjs), and just-bash.ts patches in
 * memory when that file is missing or was made from another version of the bundle.
 *
 * Every fix is a just-bash bug: docs/upstream/ holds each one's issue text for
 * https://github.com/vercel-labs/just-bash, with the link once filed (none is yet: written where
 * there was no network); fix 6 is a comment for the open upstream PR #318.
 */
import { createHash } from 'node:crypto';
import { ERRNO_TEXT } from '../gnu/kit/errno.js';
import { patchOutputOrder } from './just-bash-order.js';

const EXPAND = /async expand\((\w+)\)\{if\(this\.globstar\)\{/;
// Opening a redirection target: `catch(a){if(!s)throw a;return{error:L("",`bash: ${t}: cannot open redirect target\n`,1)}}`
const REDIRECT_CATCH = /catch\((\w+)\)\{if\(!(\w+)\)throw \1;return\{error:(\w+)\("",`bash: \$\{(\w+)\}: cannot open redirect target\n`,1\)\}\}/;
// Brace ranges: `var dr=1e4,Mi={maxResults:dr,…};function Jr(e,t,n,r){if(e.length>=n.maxResults)return!1;…throw new x(`brace expansion string limit…`
const BRACE_LIMITS =
  /var ([\w$]+)=1e4,([\w$]+)=\{maxResults:\1,maxStringBytes:10\*1024\*1024\};function ([\w$]+)\(([\w$]+),([\w$]+),([\w$]+),([\w$]+)\)\{if\(\4\.length>=\6\.maxResults\)return!1;let [\w$]+=[\w$]+\(\5\);if\([^)]*\)throw new ([\w$]+)\(`brace expansion string limit/;
// `bash: ${t}: command not available in browser environments. Exclude '${t}' from your commands or use the Node.js bundle.`
const UNAVAILABLE = /: command not available in browser environments\. Exclude '\$\{[\w$]+\}' from your commands or use the Node\.js bundle\./g;
// help's list: `function Zh(){let e=[];e.push("just-bash shell builtins")` … `n=Wu.slice()`.
const HELP_LIST = /(function [\w$]+\(\)\{let ([\w$]+)=\[\];\2\.push\()"just-bash shell builtins"(\)[^}]*?,[\w$]+=)([\w$]+)\.slice\(\)/;
/** Builtins just-bash's `help` lists but its interpreter does not run ("command not found"). */
const MISSING_BUILTINS = [
  'alias',
  'bg',
  'caller',
  'disown',
  'enable',
  'fc',
  'fg',
  'history',
  'jobs',
  'kill',
  'logout',
  'suspend',
  'times',
  'trap',
  'ulimit',
  'umask',
  'unalias',
];

/** File name of the patched bundle, next to the compiled just-bash.js. */
export const PATCHED_FILE_NAME = 'just-bash.patched.mjs';

/** First line of a patched bundle: names the original it was made from. */
export const sourceTag = (source: string): string =>
  `// patched just-bash bundle, source sha256 ${createHash('sha256').update(source).digest('hex')}\n`;

/**
 * The bundle source with the fixes, or null when the expected text is not there:
 * 1. globs ending in '/' match directories only, with the slash;
 * 2. a redirection whose target cannot be opened (`> /missing-dir/f`, a read-only key) fails that
 *    command with GNU's message and exit 1, and the script goes on (GNU); just-bash threw the
 *    filesystem error, which ended the whole script;
 * 3. a brace range past the limit (`{1..10000000}`) fails like any other brace expansion past
 *    it (exit 126, "brace expansion result limit exceeded"): just-bash stopped a range silently at
 *    10,000 words (`echo {1..10000000}` printed 1 … 10000 with exit 0). Ranges now go up to the
 *    interpreter's limit on expansion results (100,000), as other brace expansions do;
 * 4. a command just-bash knows but this server does not offer (python3, sqlite3, tar, …) answers
 *    like any other missing command, `bash: NAME: command not found` (exit 127): just-bash said
 *    "command not available in browser environments. Exclude 'NAME' from your commands or use the
 *    Node.js bundle.", advice about its own configuration that no agent can follow;
 * 5. `help` lists the builtins that run, under GNU bash's heading (the version $BASH_VERSION
 *    reports): it listed alias, jobs, trap, umask… which answer "command not found", under the
 *    heading "just-bash shell builtins";
 * 6. `2>&1` (and `&>`, `> f 2>&1`) keeps the order in which stdout and stderr were written
 *    (just-bash-order.ts): it wrote all of stdout, then all of stderr.
 */
export function patchBundle(source: string, bundleUrl: string): string | null {
  const brace = BRACE_LIMITS.exec(source);
  if (!EXPAND.test(source) || !REDIRECT_CATCH.test(source) || !brace || source.includes('__expandAll(')) return null;
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
  const withRedirect = fixed.replace(
    REDIRECT_CATCH,
    (_m, err: string, soft: string, result: string, target: string) =>
      `catch(${err}){let m=/^(E[A-Z]+):/.exec(String(${err}&&${err}.message)),why=m&&${JSON.stringify(ERRNO_TEXT)}[m[1]],` +
      // A scope the key lacks is named (src/gnu/kit/errno.ts): "bash: f: Permission denied (this key lacks files:write)".
      `lacks=/\\(this key lacks [\\w:]+\\)/.exec(String(${err}&&${err}.message));if(why&&lacks)why+=" "+lacks[0];` +
      `if(!${soft}&&!why)throw ${err};return{error:${result}("",\`bash: \${${target}}: \${why||"cannot open redirect target"}\n\`,1)}}`,
  );
  const ranges = braceRanges(withRedirect, brace);
  if (ranges === null) return null;
  const ordered = patchOutputOrder(ranges);
  if (ordered === null) return null;
  const withRanges = ordered
    .replace(UNAVAILABLE, ': command not found')
    .replace(
      HELP_LIST,
      (_m, head: string, _lines: string, rest: string, list: string) =>
        `${head}"GNU bash, version 5.1.0(1)-release"${rest}${list}.filter(n=>!${JSON.stringify(MISSING_BUILTINS)}.includes(n))`,
    );
  // Relative imports and import.meta.url made absolute: the patched copy lives elsewhere.
  const dir = bundleUrl.slice(0, bundleUrl.lastIndexOf('/') + 1);
  return sourceTag(source) + withRanges.replaceAll('"./chunks/', `"${dir}chunks/`).replaceAll('import.meta.url', JSON.stringify(bundleUrl));
}

/** Fix 3: the range loops lose their silent 10,000 cap, and reaching maxResults throws instead of stopping. */
function braceRanges(source: string, m: RegExpExecArray): string | null {
  const [, cap, , push, list, , limits, , error] = m as unknown as string[];
  const stop = `function ${push}(${m[4]},${m[5]},${m[6]},${m[7]}){if(${list}.length>=${limits}.maxResults)return!1;`;
  const fail = `function ${push}(${m[4]},${m[5]},${m[6]},${m[7]}){if(${list}.length>=${limits}.maxResults)throw new ${error}(\`brace expansion result limit exceeded (\${${limits}.maxResults})\`,"array_elements");`;
  // The four range loops: `…&&p<dr&&Jr(…`.
  const loops = new RegExp(`&&[\\w$]+<${cap!.replace(/\$/g, '\\$')}&&${push!.replace(/\$/g, '\\$')}\\(`, 'g');
  if ((source.match(loops) ?? []).length !== 4) return null;
  return source.replace(stop, () => fail).replace(loops, () => `&&${push}(`);
}

/**
 * The textual fixes to just-bash's ESM bundle, declared as a list: each names the text it finds,
 * how many times that text occurs in the pinned bundle, what replaces it and why. Pure: the build
 * writes the patched bundle into dist (scripts/patch-just-bash.mjs), and the adapter
 * (src/sandbox/just-bash.ts) patches in memory when that file is missing or stale.
 *
 * The fixes are textual because the code they change is internal to the bundle (minified, not
 * exported). A patch whose text is not there exactly as often as declared fails the whole patch,
 * naming itself and the just-bash version, so a new just-bash never runs with a fix silently gone.
 *
 * Every fix is a just-bash bug: docs/upstream/ holds each one's issue text for
 * https://github.com/vercel-labs/just-bash, with the link once filed (none is yet: written where
 * there was no network); the stream-order fix is a comment for the open upstream PR #318.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ERRNO_TEXT } from '../../gnu/kit/errno.js';
import { ORDER_PATCHES } from './order.js';

/** Minified names a patch reads from the unpatched bundle: each probe's text must occur exactly once. */
export type NameProbes = Record<string, { find: RegExp; group: number }>;

/** One fix: `find` must match `count` times (default 1) in the bundle as the patches before it left it. */
export interface Patch {
  /** Short, stable: the build's failure names it. */
  name: string;
  /** The bug it fixes, in a line (the issue text is docs/upstream/<file>). */
  why: string;
  names?: NameProbes;
  find: RegExp | ((names: Record<string, string>) => RegExp);
  count?: number;
  /** The text that takes the place of one match; `match` is [whole, ...groups] ('' for a group that did not take part). */
  replace: (match: string[], names: Record<string, string>) => string;
}

/** A patch whose text is not in the bundle as declared: the message names the patch and the version. */
export class JustBashPatchError extends Error {
  constructor(
    readonly patch: string,
    readonly version: string,
    detail: string,
  ) {
    super(
      `patch ${patch} no longer matches just-bash ${version} (${detail}): port it to this bundle (src/sandbox/just-bash/patches.ts) or install the version package.json pins`,
    );
  }
}

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

// Brace ranges: `var dr=1e4,Mi={maxResults:dr,…};function Jr(e,t,n,r){if(e.length>=n.maxResults)return!1;…throw new x(`brace expansion string limit…`
const BRACE_LIMITS =
  /var ([\w$]+)=1e4,([\w$]+)=\{maxResults:\1,maxStringBytes:10\*1024\*1024\};function ([\w$]+)\(([\w$]+),([\w$]+),([\w$]+),([\w$]+)\)\{if\(\4\.length>=\6\.maxResults\)return!1;let [\w$]+=[\w$]+\(\5\);if\([^)]*\)throw new ([\w$]+)\(`brace expansion string limit/;
const escape = (name: string) => name.replace(/\$/g, '\\$');

const FIXES: Patch[] = [
  {
    name: 'glob-trailing-slash',
    why: 'a glob ending in "/" (`*/`, `docs/*/`) yields only directories, each with its slash (GNU); just-bash dropped the empty last segment and listed files too (docs/upstream/glob-trailing-slash.md)',
    find: /async expand\((\w+)\)\{if\(this\.globstar\)\{/,
    replace: ([, p]) =>
      `async expand(${p}){if(${p}.length>1&&${p}.endsWith("/")&&this.hasGlobChars(${p}))return this.__dirsOnly(${p});return this.__expandAll(${p})}` +
      // Expand without the slash, keep the directories, give them their slash back.
      `async __dirsOnly(p){let out=[];for(let m of await this.__expandAll(p.replace(/\\/+$/,""))){` +
      `let full=m.startsWith("/")?m:this.fs.resolvePath(this.cwd,m);` +
      `try{if((await this.fs.stat(full)).isDirectory)out.push(m.endsWith("/")?m:m+"/")}catch{}}return out}` +
      `async __expandAll(${p}){if(this.globstar){`,
  },
  {
    name: 'redirect-open-failure',
    why: "a redirection whose target cannot be opened (`> /missing-dir/f`, a read-only key) fails that command with GNU's message and exit 1, and the script goes on; just-bash threw, which ended the whole script (docs/upstream/redirect-open-failure.md)",
    // `catch(a){if(!s)throw a;return{error:L("",`bash: ${t}: cannot open redirect target\n`,1)}}`
    find: /catch\((\w+)\)\{if\(!(\w+)\)throw \1;return\{error:(\w+)\("",`bash: \$\{(\w+)\}: cannot open redirect target\n`,1\)\}\}/,
    replace: ([, err, soft, result, target]) =>
      `catch(${err}){let m=/^(E[A-Z]+):/.exec(String(${err}&&${err}.message)),why=m&&${JSON.stringify(ERRNO_TEXT)}[m[1]],` +
      // A scope the key lacks is named (src/gnu/kit/errno.ts): "bash: f: Permission denied (this key lacks files:write)".
      `lacks=/\\(this key lacks [\\w:]+\\)/.exec(String(${err}&&${err}.message));if(why&&lacks)why+=" "+lacks[0];` +
      `if(!${soft}&&!why)throw ${err};return{error:${result}("",\`bash: \${${target}}: \${why||"cannot open redirect target"}\n\`,1)}}`,
  },
  {
    name: 'brace-range-limit-throws',
    why: 'a brace range past the limit (`{1..10000000}`) fails like any other brace expansion past it (exit 126, "brace expansion result limit exceeded"); just-bash stopped it silently (docs/upstream/brace-range-silent-cap.md)',
    find: BRACE_LIMITS,
    replace: ([whole, , , , , , limits, , error]) =>
      whole!.replace(
        `${limits}.maxResults)return!1;`,
        () => `${limits}.maxResults)throw new ${error}(\`brace expansion result limit exceeded (\${${limits}.maxResults})\`,"array_elements");`,
      ),
  },
  {
    name: 'brace-range-no-cap',
    why: "the four range loops lose their silent 10,000-word cap: ranges go up to the interpreter's limit on expansion results (100,000), as other brace expansions do (docs/upstream/brace-range-silent-cap.md)",
    names: { cap: { find: BRACE_LIMITS, group: 1 }, push: { find: BRACE_LIMITS, group: 3 } },
    // `…&&p<dr&&Jr(…`
    find: ({ cap, push }) => new RegExp(`&&[\\w$]+<${escape(cap!)}&&${escape(push!)}\\(`),
    count: 4,
    replace: (_m, { push }) => `&&${push}(`,
  },
  {
    name: 'browser-message-in-node',
    why: 'a command just-bash knows but this server does not offer (python3, sqlite3, tar, …) answers `bash: NAME: command not found` (exit 127); just-bash gave advice about its own configuration (docs/upstream/browser-message-in-node.md)',
    find: /: command not available in browser environments\. Exclude '\$\{[\w$]+\}' from your commands or use the Node\.js bundle\./,
    replace: () => ': command not found',
  },
  {
    name: 'help-lists-missing-builtins',
    why: '`help` lists the builtins that run, under GNU bash\'s heading; just-bash listed alias, jobs, trap… which answer "command not found" (docs/upstream/help-lists-missing-builtins.md)',
    // `function Zh(){let e=[];e.push("just-bash shell builtins")` … `n=Wu.slice()`
    find: /(function [\w$]+\(\)\{let ([\w$]+)=\[\];\2\.push\()"just-bash shell builtins"(\)[^}]*?,[\w$]+=)([\w$]+)\.slice\(\)/,
    replace: ([, head, , rest, list]) =>
      `${head}"GNU bash, version 5.1.0(1)-release"${rest}${list}.filter(n=>!${JSON.stringify(MISSING_BUILTINS)}.includes(n))`,
  },
];

/** Every patch, in the order it applies. */
export const PATCHES: readonly Patch[] = [...FIXES, ...ORDER_PATCHES];

/** File name of the patched bundle, next to the compiled adapter. */
export const PATCHED_FILE_NAME = 'just-bash.patched.mjs';

/** First line of a patched bundle: names the original it was made from. */
export const sourceTag = (source: string): string =>
  `// patched just-bash bundle, source sha256 ${createHash('sha256').update(source).digest('hex')}\n`;

/** The version of the just-bash whose bundle is at `bundleUrl` (its package.json, two folders up). */
export function justBashVersion(bundleUrl: string): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', bundleUrl), 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'just-bash' && pkg.version) return pkg.version;
  } catch {
    // not an installed package: the caller names the bundle instead
  }
  return '(unknown version)';
}

const globally = (re: RegExp) => new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);

function readNames(source: string, patch: Patch, version: string): Record<string, string> {
  const names: Record<string, string> = {};
  for (const [name, probe] of Object.entries(patch.names ?? {})) {
    const found = [...source.matchAll(globally(probe.find))];
    if (found.length !== 1) throw new JustBashPatchError(patch.name, version, `the text naming ${name} occurs ${found.length} times, expected once`);
    names[name] = found[0]![probe.group] ?? '';
  }
  return names;
}

/** `source` with one patch applied; throws when its text is not there exactly `count` times. */
function applyPatch(source: string, original: string, patch: Patch, version: string): string {
  const names = readNames(original, patch, version);
  const find = typeof patch.find === 'function' ? patch.find(names) : patch.find;
  const expected = patch.count ?? 1;
  const matches = [...source.matchAll(globally(find))];
  if (matches.length !== expected) throw new JustBashPatchError(patch.name, version, `its text occurs ${matches.length} times, expected ${expected}`);
  let out = '';
  let at = 0;
  for (const m of matches) {
    out +=
      source.slice(at, m.index) +
      patch.replace(
        Array.from(m, (g) => g ?? ''),
        names,
      );
    at = m.index + m[0].length;
  }
  return out + source.slice(at);
}

/**
 * The bundle with every patch applied, its relative imports made absolute (the patched copy
 * lives elsewhere). Throws JustBashPatchError naming the first patch that does not apply
 * (another just-bash, or a bundle already patched).
 */
export function patchBundle(source: string, bundleUrl: string, version: string): string {
  let patched = source;
  for (const patch of PATCHES) patched = applyPatch(patched, source, patch, version);
  const dir = bundleUrl.slice(0, bundleUrl.lastIndexOf('/') + 1);
  return sourceTag(source) + patched.replaceAll('"./chunks/', `"${dir}chunks/`).replaceAll('import.meta.url', JSON.stringify(bundleUrl));
}

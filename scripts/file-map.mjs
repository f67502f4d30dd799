// The file maps of docs/contributing.md, generated from each source file's header comment (its
// first sentence), so the maps cannot drift from the tree: `npm run lint` runs this with --check,
// which fails when a file lacks a header or the maps in the doc differ from what the tree says.
// `node scripts/file-map.mjs` rewrites them.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOC = join(ROOT, 'docs/contributing.md');
const START = '<!-- file-map:start -->';
const END = '<!-- file-map:end -->';
// Folders mapped file by file; a folder below them (gnu/grep, tools/…) is one row per file too.
const FOLDERS = [
  'src',
  'src/cli',
  'src/client',
  'src/core',
  'src/docs',
  'src/heartbeat',
  'src/http',
  'src/http/plugins',
  'src/sandbox',
  'src/sandbox/just-bash',
  'src/store',
  'src/tools',
  'src/transfer',
];
// gnu/: a folder per command over one shared kit; mapped by folder (its index.ts's header).
const BY_FOLDER = ['src/gnu'];

/** The first sentence of the leading comment (`/** … *\/` or `//` lines), or null. */
export function headerOf(text) {
  const t = text.trimStart();
  let body = null;
  if (t.startsWith('/*')) body = t.slice(2, t.indexOf('*/')).replace(/^\s*\*+ ?/gm, '');
  else if (t.startsWith('//')) body = t.match(/^(\/\/.*\n)+/)[0].replace(/^\/\/ ?/gm, '');
  if (body === null) return null;
  const flat = body.replace(/\s+/g, ' ').trim();
  const end = flat.search(/[.:](\s|$)/);
  return (end === -1 ? flat : flat.slice(0, end + 1)).replace(/:$/, '.').replace(/\|/g, '\\|');
}

function tsFiles(dir) {
  return readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .sort()
    .map((f) => `${dir}/${f}`);
}

export function render() {
  const missing = [];
  const out = [];
  const row = (file) => {
    if (file.endsWith('.generated.ts')) return `| \`${relative('src', file)}\` | generated (scripts/gen-client.mjs); not edited by hand |`;
    const h = headerOf(readFileSync(join(ROOT, file), 'utf8'));
    if (!h) missing.push(file);
    return `| \`${relative('src', file)}\` | ${h ?? '(no header)'} |`;
  };
  for (const dir of FOLDERS) {
    const files = tsFiles(dir);
    if (!files.length) continue;
    out.push('', `### \`${dir}/\``, '', '| File | What it holds |', '|---|---|', ...files.map(row));
  }
  for (const dir of BY_FOLDER) {
    out.push('', `### \`${dir}/\` (a folder per command)`, '', '| Folder | What it holds |', '|---|---|');
    out.push(...tsFiles(dir).map(row));
    for (const sub of readdirSync(join(ROOT, dir)).sort()) {
      const p = `${dir}/${sub}`;
      if (!statSync(join(ROOT, p)).isDirectory()) continue;
      const files = tsFiles(p);
      const index = files.find((f) => f.endsWith(`/${sub}.ts`)) ?? files.find((f) => f.endsWith('/index.ts')) ?? files[0];
      const h = index ? headerOf(readFileSync(join(ROOT, index), 'utf8')) : null;
      if (!h) missing.push(index ?? p);
      out.push(`| \`${relative('src', p)}/\` (${files.length} files) | ${h ?? '(no header)'} |`);
    }
  }
  return { text: out.join('\n') + '\n', missing };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const { text, missing } = render();
  const doc = readFileSync(DOC, 'utf8');
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  if (a === -1 || b < a) {
    console.error(`file-map: ${relative(ROOT, DOC)} lacks the ${START} … ${END} markers`);
    process.exit(1);
  }
  const next = doc.slice(0, a + START.length) + '\n' + text + doc.slice(b);
  if (missing.length) {
    console.error(`file-map: these files start with no header comment (say in one sentence what the file holds):\n  ${missing.join('\n  ')}`);
    process.exit(1);
  }
  if (check) {
    if (next !== doc) {
      console.error('file-map: the file maps in docs/contributing.md differ from the tree. Run `node scripts/file-map.mjs` and commit the result.');
      process.exit(1);
    }
  } else writeFileSync(DOC, next);
}

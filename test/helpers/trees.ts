/**
 * Seeded file trees for the bash differential suite (test/slow/bash-diff.test.ts): the same tree is
 * written into the service and into a temp directory, and the same command runs over both.
 *
 * Every tree has a fixed skeleton of well-known paths (so commands can name them: `docs/guide.md`,
 * `.github/workflows/ci.yml`, `docs/café.md`, `docs/notes/todo list.txt`, `empty.txt`, `crlf.txt`,
 * `nonl.txt`, `logs/big.log`, `data/items.json`, …) whose contents come from the PRNG, plus a
 * seed-dependent number of random extra files and directories (nested to depth 4, dotfiles, unicode
 * names, names with spaces, empty files, CRLF files, files without a final newline). Contents
 * sprinkle TODO / FIXME / needle (and `needles`, `Needle`, `foo.bar`) so searches have hits.
 *
 * Paths are relative (no leading `/`), `/`-separated and NFC, as the service stores them.
 */

/** A small, fast, seedable PRNG (mulberry32): the same seed gives the same sequence everywhere. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface TreeFile {
  path: string;
  content: string;
}

export interface Tree {
  seed: number;
  /** Files in the order they are to be written (shuffled, so mtime order ≠ name order). */
  files: TreeFile[];
  /** Directories that must exist even when empty. */
  emptyDirs: string[];
}

class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = prng(seed);
  }
  float(): number {
    return this.next();
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  shuffle<T>(xs: T[]): T[] {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    return xs;
  }
}

const WORDS = [
  'alpha',
  'beta',
  'gamma',
  'delta',
  'config',
  'server',
  'client',
  'request',
  'response',
  'handler',
  'error',
  'warning',
  'value',
  'index',
  'result',
  'update',
  'version',
  'cache',
  'token',
  'path',
  'file',
  'line',
  'queue',
  'worker',
  'limit',
  'retry',
  'Error',
  'Warning',
  'user',
  'agent',
  'build',
  'deploy',
  'test',
  'parse',
  'render',
  'stream',
  'buffer',
  'hash',
];
// Words searches look for; `needles`/`needle_x` test -w, `foo.bar`/`fooxbar` test -F vs regex.
const SPICE = ['TODO', 'FIXME', 'needle', 'Needle', 'NEEDLE', 'needles', 'needle_x', 'foo.bar', 'fooxbar', 'todo', 'XXX'];
const DIR_NAMES = ['core', 'util', 'api', 'web', 'tests', 'fixtures', 'assets', 'old', 'v2', 'internal', 'my stuff', 'über', 'naïve dir'];
const FILE_STEMS = [
  'main',
  'helper',
  'notes',
  'index',
  'readme',
  'changelog',
  'todo',
  'config',
  'data',
  'résumé',
  'spec',
  'draft copy',
  'ß',
  'テスト',
];
const EXTS = ['.md', '.ts', '.txt', '.json', '.log', '.yml', ''];

function sentence(r: Rng, spice: number): string {
  const n = r.int(2, 10);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(r.chance(spice) ? r.pick(SPICE) : r.pick(WORDS));
  return out.join(' ');
}

function codeLine(r: Rng, spice: number): string {
  const kind = r.int(0, 6);
  const w = r.pick(WORDS).toLowerCase();
  switch (kind) {
    case 0:
      return `export function ${w}${r.int(1, 9)}(x: number): number {`;
    case 1:
      return `  return x + ${r.int(0, 99)}; // ${r.chance(spice * 3) ? r.pick(SPICE) + ': ' : ''}${sentence(r, spice)}`;
    case 2:
      return `}`;
    case 3:
      return `const ${w} = '${sentence(r, spice)}';`;
    case 4:
      return '';
    case 5:
      return `\t// ${sentence(r, spice)}`;
    default:
      return `import { ${w} } from './${r.pick(WORDS).toLowerCase()}.js';`;
  }
}

function textBody(r: Rng, lines: number, spice: number, code = false): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(code ? codeLine(r, spice) : r.chance(0.1) ? '' : sentence(r, spice));
  return out.length ? out.join('\n') + '\n' : '';
}

function markdown(r: Rng, title: string, lines: number): string {
  let s = `# ${title}\n\n`;
  for (let i = 0; i < lines; i++) {
    const k = r.int(0, 9);
    if (k === 0) s += `## ${sentence(r, 0.05)}\n`;
    else if (k === 1) s += `- [ ] ${sentence(r, 0.25)}\n`;
    else if (k === 2) s += '\n';
    else s += `${sentence(r, 0.12)}\n`;
  }
  return s;
}

function json(r: Rng, n: number): string {
  const items = [];
  for (let i = 0; i < n; i++) {
    items.push({ id: i + 1, name: r.pick(WORDS).toLowerCase() + i, tags: [r.pick(WORDS), r.pick(SPICE)], size: r.int(0, 5000), ok: r.chance(0.6) });
  }
  return JSON.stringify(items, null, 2) + '\n';
}

function csv(r: Rng, n: number): string {
  let s = 'id,name,city,score\n';
  const cities = ['Paris', 'Tokyo', 'Berlin', 'Lima', 'Oslo', 'Zürich'];
  for (let i = 0; i < n; i++) s += `${i + 1},${r.pick(WORDS).toLowerCase()},${r.pick(cities)},${r.int(1, 100)}\n`;
  return s;
}

function bigLog(r: Rng, n: number): string {
  let s = '';
  const levels = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'];
  for (let i = 0; i < n; i++) {
    const lvl = r.pick(levels);
    s += `2026-01-${String(1 + (i % 28)).padStart(2, '0')}T${String(i % 24).padStart(2, '0')}:00:00Z ${lvl} ${r.pick(WORDS).toLowerCase()}: ${sentence(r, lvl === 'ERROR' ? 0.3 : 0.03)}\n`;
  }
  return s;
}

const crlf = (s: string) => s.replace(/\n/g, '\r\n');
const noFinalNewline = (s: string) => s.replace(/\n+$/, '');

/** The tree for one seed: 50–150 files, deterministic for the seed. */
export function generateTree(seed: number): Tree {
  const r = new Rng(seed);
  const files = new Map<string, string>();
  const add = (path: string, content: string) => files.set(path.normalize('NFC'), content);

  // ---- the skeleton: the same paths in every tree ------------------------------------------
  add('README.md', markdown(r, 'Project', r.int(20, 40)));
  add('.env', `API_URL=https://example.com/api\nSECRET_TOKEN=${r.int(100000, 999999)}\n# needle in a dotfile\nDEBUG=${r.chance(0.5)}\n`);
  add('.gitignore', 'node_modules/\ndist/\n*.log\n.env\n');
  add(
    '.github/workflows/ci.yml',
    `name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm test # TODO cache\n`,
  );
  add('.hidden/secret.txt', `needle hidden in a dot-dir\n${textBody(r, r.int(1, 5), 0.2)}`);
  add('docs/guide.md', markdown(r, 'Guide', r.int(30, 60)));
  add('docs/api.md', markdown(r, 'API', r.int(15, 35)));
  add('docs/café.md', markdown(r, 'Café', r.int(5, 15)));
  add('docs/notes/todo list.txt', textBody(r, r.int(5, 15), 0.3));
  add('docs/empty.md', '');
  add('src/index.ts', textBody(r, r.int(20, 50), 0.06, true));
  add('src/util.ts', textBody(r, r.int(10, 30), 0.06, true));
  add('src/win.ts', crlf(textBody(r, r.int(5, 15), 0.1, true)));
  add('src/lib/parse.ts', textBody(r, r.int(10, 40), 0.06, true));
  add('src/lib/deep/nested/leaf.ts', textBody(r, r.int(3, 10), 0.15, true));
  add('日本.txt', `日本語のテキスト\nneedle ${r.pick(WORDS)}\nカフェ café\n`);
  add('empty.txt', '');
  add('crlf.txt', crlf(textBody(r, r.int(5, 12), 0.2)));
  add('nonl.txt', noFinalNewline(textBody(r, r.int(2, 6), 0.2)) || 'needle');
  add('logs/big.log', bigLog(r, r.int(300, 600)));
  add('logs/app.log', bigLog(r, r.int(20, 60)));
  add('data/items.json', json(r, r.int(3, 8)));
  add('data/table.csv', csv(r, r.int(8, 20)));
  add('scripts/build.sh', '#!/bin/sh\nset -e\n# FIXME: make this incremental\nnpm run build\n');
  add('my notes/draft one.md', markdown(r, 'Draft', r.int(3, 10)));

  // ---- random extras -------------------------------------------------------------------------
  const dirs: string[] = ['', 'docs', 'src', 'src/lib', 'logs', 'data', 'my notes'];
  const nDirs = r.int(4, 10);
  for (let i = 0; i < nDirs; i++) {
    // `logs` keeps only files, so `ls -S logs` sorts by file sizes alone (a directory's size
    // depends on the filesystem).
    const parent = r.pick(dirs.filter((d) => d !== 'logs'));
    if (parent.split('/').length >= 3) continue;
    const name = r.chance(0.15) ? '.' + r.pick(DIR_NAMES).replace(/ /g, '') : r.pick(DIR_NAMES);
    const d = parent ? `${parent}/${name}` : name;
    if (!dirs.includes(d)) dirs.push(d);
  }
  // A new file's name must not be a directory's (skeleton or random).
  const isDir = (p: string) => dirs.includes(p) || [...files.keys()].some((f) => f.startsWith(p + '/'));
  const target = r.int(50, 150);
  for (let guard = 0; files.size < target && guard < 1000; guard++) {
    const dir = r.pick(dirs);
    const dot = r.chance(0.08) ? '.' : '';
    const ext = r.pick(EXTS);
    const name = `${dot}${r.pick(FILE_STEMS)}${r.chance(0.5) ? '' : r.chance(0.5) ? '-' + r.int(1, 99) : ' ' + r.int(1, 9)}${ext}`;
    const path = dir ? `${dir}/${name}` : name;
    if (files.has(path.normalize('NFC')) || isDir(path.normalize('NFC'))) continue;
    const k = r.int(0, 19);
    let content: string;
    if (k === 0) content = '';
    else if (k === 1) content = crlf(textBody(r, r.int(1, 20), 0.1));
    else if (k === 2) content = noFinalNewline(textBody(r, r.int(1, 8), 0.1)) || 'x';
    else if (k === 3) content = bigLog(r, r.int(100, 300));
    else if (ext === '.json') content = json(r, r.int(1, 4));
    else if (ext === '.md') content = markdown(r, r.pick(WORDS), r.int(2, 25));
    else if (ext === '.ts') content = textBody(r, r.int(2, 40), 0.06, true);
    else content = textBody(r, r.int(1, 30), 0.08);
    add(path, content);
  }

  const emptyDirs = ['build', 'docs/empty dir'];
  const list = r.shuffle([...files].map(([path, content]) => ({ path, content })));
  return { seed, files: list, emptyDirs };
}

/** Every directory the tree implies (ancestors of its files plus its empty dirs), sorted. */
export function treeDirs(tree: Tree): string[] {
  const out = new Set<string>();
  const addAncestors = (p: string) => {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) out.add(parts.slice(0, i).join('/'));
  };
  for (const f of tree.files) addAncestors(f.path);
  for (const d of tree.emptyDirs) {
    addAncestors(d);
    out.add(d);
  }
  return [...out].sort();
}

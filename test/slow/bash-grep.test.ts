/**
 * grep, egrep and fgrep of the bash tool (src/gnu/grep) against the real GNU grep 3.8
 * (/usr/bin/grep, Debian's 3.8-5) under LC_ALL=C.UTF-8, the service's locale.
 *
 * The same small tree (dotfiles and dot-dirs, unicode names, a name with spaces, CRLF, an empty
 * file, a file without a final newline, a binary file, an invalid-UTF-8 file, symlinks) is
 * written to a temp directory and into a just-bash InMemoryFs; every command runs with
 * `bash -c` in the directory and with just-bash over the InMemoryFs, and stdout (bytes),
 * stderr and the exit code must be identical.
 *
 * GNU lists a directory in readdir order. On tmpfs (/dev/shm) that is newest first, so the
 * tree is created in reverse byte order and GNU walks it in byte order, like our filesystem.
 * Elsewhere, recursive commands are compared as sorted sets of lines.
 *
 * Requires GNU grep 3.8 (test/helpers/gnu-oracle.ts: how GNU runs, the versions, the rule when they differ).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statfsSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gnu, requireGnu } from '../helpers/gnu-oracle.js';
import { Bash, InMemoryFs } from '../../src/sandbox/just-bash.js';
import { installGnuCommands } from '../../src/gnu/index.js';
import { grepCommands } from '../../src/gnu/grep/grep.js';

type Entry = string | Buffer | { symlink: string };

const ctxLines: string[] = [];
for (let i = 1; i <= 40; i++) ctxLines.push(i % 7 === 0 ? `line ${i} match here` : i % 11 === 0 ? `line ${i} MATCH upper` : `line ${i} filler text`);

const TREE: Record<string, Entry> = {
  'a.md': 'hello world\nTODO: fix this\nfoo bar baz\nHello there\n\n  indented foo\nfoo_bar\nfoobar\nbarfoo foo\nthe end\n',
  'b.txt':
    'abc123\nx y z\n123\nabc\nABC\naaa\nab\nfoo\n-v\n--flag\n[brackets]\n(parens)\na.b\na*b\na+b\na?b\na{2}b\na|b\nback\\slash\n$dollar\n^caret\n',
  'src/app.ts':
    'import { foo } from "./util";\nexport function main(): void {\n  const x = foo(1);\n  // TODO: remove\n  console.log(x);\n}\nclass Foo {}\n',
  'src/util.js': 'export function foo(n) {\n  return n + 1; // foo\n}\nconst testing = "running";\n',
  'src/.hidden.ts': 'const secret = "foo";\n',
  'src/nested/deep.ts': 'deep foo\nDEEP FOO\n',
  '.env': 'SECRET=1\nfoo=bar\n',
  '.github/workflows/ci.yml': 'name: ci\non: push\njobs:\n  test: foo\n',
  'dir with space/one file.txt': 'space foo\nnothing\n',
  'café.txt': 'café naïve résumé\nÀÉÎ àéî\nstraße STRASSE\n日本語テキスト foo\nemoji 😀 foo 😀\nword_é end\n',
  'crlf.txt': 'line1\r\nline2 foo\r\nfoo\r\n\r\nend\r\n',
  'empty.txt': '',
  'nonl.txt': 'first foo\nlast line no newline foo',
  'bin.dat': Buffer.from('abc\0def\nfoo here\nmore foo\n'),
  'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x66, 0x6f, 0x6f, 0x0a, 0x70, 0x6c, 0x61, 0x69, 0x6e, 0x20, 0x66, 0x6f, 0x6f, 0x0a]),
  'ctx.txt': ctxLines.join('\n') + '\n',
  'deep/a/b/c/d.txt': 'deepest foo\n',
  'deep/a/x.md': 'x foo\n',
  'words.txt': 'foo\nfoobar\nbarfoo\nfoo-bar\nfoo_bar\nfoo.bar\n(foo)\nFOO\nfOo\n  foo  \nfoo foo\nfo\no\n',
  'pat.txt': 'foo\nbar\n',
  'only.txt': 'abcabc\naXbXc\nab ab ab\n123-456-789\nfoofoobar\n',
  'links/to-a.md': { symlink: '../a.md' },
  'links/to-src': { symlink: '../src' },
  'links/dangling': { symlink: 'nowhere' },
  'links/real.txt': 'real foo\n',
};

/** Commands whose GNU output order follows the filesystem (compared as sets off tmpfs). */
const RECURSIVE = /(^|\s)-[a-zA-Z]*[rR]|--recursive|-d recurse/;

const CASES: Record<string, string[]> = {
  'selection and layout': [
    'grep foo a.md',
    'grep -n foo a.md b.txt',
    'grep -c foo a.md words.txt empty.txt',
    'grep -l foo a.md b.txt empty.txt',
    'grep -L foo a.md b.txt empty.txt',
    'grep -v foo a.md',
    'grep -vn foo nonl.txt',
    'grep -i FOO words.txt',
    'grep -w foo words.txt',
    'grep -x foo words.txt b.txt',
    'grep -o foo words.txt',
    'grep -h foo a.md b.txt',
    'grep -H foo a.md',
    'grep -b foo a.md',
    'grep -ob o only.txt',
    'grep -m1 foo a.md',
    'grep -m 2 -n foo a.md words.txt',
    'grep -Z -l foo a.md b.txt',
    'grep -cZ foo a.md b.txt',
    'grep -T -n foo a.md',
    'grep -n foo nonl.txt crlf.txt',
    'grep -c foo empty.txt',
    "grep -n '' nonl.txt",
    "grep -c '^$' a.md crlf.txt",
    'grep -c foo bin.dat',
    'grep -vc zzz bin.dat',
  ],
  context: [
    'grep -A1 match ctx.txt',
    'grep -B2 -n match ctx.txt',
    'grep -C1 -n MATCH ctx.txt',
    'grep -2 match ctx.txt',
    'grep -A0 match ctx.txt',
    'grep -m2 -A3 match ctx.txt',
    'grep -vA1 foo words.txt',
    'grep -oC1 match ctx.txt',
    'grep -A1 --group-separator=XX match ctx.txt',
    'grep -A1 --no-group-separator match ctx.txt',
    'grep -A1 foo a.md words.txt',
    'grep -C1 foo nonl.txt',
    'grep -1n2 match ctx.txt',
  ],
  'recursion and file selection': [
    'grep -r foo',
    'grep -rn foo .',
    'grep -rl foo src',
    'grep -rn foo src/',
    'grep -rn foo src//',
    'grep -rn foo ./src',
    'grep -rL foo .',
    'grep -rc foo src deep',
    'grep -rh foo src',
    'grep -r foo a.md',
    'grep -rH foo a.md',
    'grep -r foo nope src',
    'grep -rl foo --include=*.ts',
    "grep -rl foo --include '*.ts' .",
    'grep -rl foo --exclude=*.ts --exclude-dir=links',
    'grep -rl foo --exclude-dir=src .',
    'grep -rl foo --exclude-dir=. .',
    'grep -rl foo --exclude-dir=.*',
    'grep -rl foo --include=.*',
    'grep -r foo --exclude=*.md --include=*.md',
    'grep -r foo --include=*.md --exclude=a.md',
    'grep foo --exclude=a.md a.md b.txt',
    'grep -rl foo --exclude-dir=src src',
    'grep -r foo links',
    'grep -R foo links',
    'grep -r foo links/to-src',
    'grep -Rl foo .',
    'grep -r foo "dir with space"',
    'cd src && grep -rn foo ..',
    'cd src && grep -rl foo',
    'grep -rl foo ./src/../deep',
  ],
  'files and errors': [
    'grep foo src',
    'grep -c foo src a.md',
    'grep -s foo src a.md',
    'grep -d skip foo src a.md',
    'grep foo nope',
    'grep foo nope a.md',
    'grep -s foo nope a.md',
    'grep -q foo nope a.md',
    'grep -q foo a.md nope',
    'grep -sq zzz nope a.md',
    'grep foo a.md/',
    'grep foo links/dangling',
    'grep',
    'grep -k foo a.md',
    'grep --foo foo a.md',
    'grep -e',
    'grep --regexp',
    'grep --count=3 foo a.md',
    'grep --co foo a.md',
    'grep --line foo a.md',
    'grep -A x foo a.md',
    'grep -m x foo a.md',
    'grep -d bad foo a.md',
    'grep --binary-files=foo foo a.md',
    'grep -E -P x b.txt',
    'grep -f nope a.md',
    'grep -V',
    'grep --help',
    'grep --color=bad foo a.md',
    'grep -m0 foo nope',
  ],
  options: [
    'grep foo a.md -n',
    'grep -n foo -- a.md -c',
    'grep -e -v b.txt',
    'grep -- -v b.txt',
    "grep '\\-v' b.txt",
    'grep -e foo -e bar a.md',
    "grep $'foo\\nbar' a.md",
    'grep -f pat.txt a.md',
    'grep -f empty.txt a.md',
    'grep -vf empty.txt a.md',
    "grep -e foo -e '' a.md",
    "grep -v '' a.md",
    "grep -x '' a.md",
    'grep -y FOO a.md',
    'grep --col=never foo a.md',
    'grep --max-count 1 foo a.md',
    'grep --inc=*.ts -r foo',
    'grep -nA2 match ctx.txt',
    'grep -ce foo a.md',
    "printf 'foo\\nbar\\n' | grep -H foo",
    "printf 'foo\\nbar\\n' | grep --label=IN -c o - a.md",
    "printf 'a\\nb' | grep -f - pat.txt b.txt",
    'egrep "fo+|x" b.txt',
    'fgrep a.b b.txt',
    'egrep -F x b.txt',
  ],
  'basic regular expressions': [
    "grep 'fo\\+' words.txt",
    "grep -o 'fo\\{2\\}' words.txt",
    "grep '^foo$' words.txt",
    "grep '[[:digit:]]\\+' b.txt",
    "grep -o '[[:upper:]]' café.txt",
    "grep -c '[[:punct:]]' b.txt",
    "grep '\\<foo' words.txt",
    "grep -o 'o\\>' words.txt",
    "grep '\\(foo\\)\\1' only.txt",
    "grep 'foo\\|bar' a.md",
    "grep '*a' b.txt",
    "grep 'a{2}b' b.txt",
    "grep 'a|b' b.txt",
    "grep '\\$dollar' b.txt",
    "grep '$dollar' b.txt",
    "grep '^^caret' b.txt",
    "grep 'a^b' b.txt",
    "grep '[]a]' b.txt",
    "grep '[a-]' b.txt",
    "grep -c '[^a]' b.txt",
    "grep 'caf.' café.txt",
    "grep -o '.本' café.txt",
    "grep -o '\\w\\+é' café.txt",
    "grep '[[.-.]]' b.txt",
    "grep '[[=a=]]' b.txt",
    "grep 'back\\\\slash' b.txt",
    "grep '\\(' b.txt",
    "grep 'a\\{1' b.txt",
    "grep 'a\\{x\\}' b.txt",
    "grep '[z-a]' b.txt",
    "grep '[[:foo:]]' b.txt",
    "grep '[a' b.txt",
    "grep '[' b.txt",
    "grep '[:alpha:]' b.txt",
    "grep 'a\\' b.txt",
    "grep '\\1' b.txt",
    "grep '[à-ï]' café.txt",
    "grep '[[=ab=]]' b.txt",
  ],
  'extended regular expressions': [
    "grep -E 'fo+' words.txt",
    "grep -E '(foo|bar)+' words.txt",
    "grep -oE '[0-9]+' only.txt",
    "grep -E 'a{,2}b' b.txt",
    "grep -E 'a{' b.txt",
    "grep -E '{1}a' b.txt",
    "grep -oE '{1}a' b.txt",
    "grep -E '*a' b.txt",
    "grep -E '^*a' b.txt",
    "grep -oE '^*a' b.txt",
    "grep -E 'a)' b.txt",
    "grep -E '(a' b.txt",
    "grep -E 'a{2,1}' b.txt",
    "grep -E 'a{}' b.txt",
    "grep -E '(a)\\1' b.txt only.txt",
    "grep -cE 'a|' only.txt",
    "grep -oE 'ab|abc' only.txt",
    "grep -oE '(a|ab)(c|bcd)(d*)' only.txt",
    "grep -oE 'a*(ab)?' only.txt",
    'grep -o -e ab -e abc only.txt',
    'grep -Fo -e ab -e abc only.txt',
    "grep -Eow 'foo|foobar' words.txt",
    "grep -oE 'x*' only.txt",
  ],
  'fixed strings and perl': [
    "grep -F 'a.b' b.txt",
    "grep -F '[brackets]' b.txt",
    'grep -Fx foo words.txt',
    'grep -Fiw FOO words.txt',
    "grep -Fc '' b.txt",
    "grep -F 'foo\nbar' a.md",
    "grep -P '\\d+' b.txt",
    "grep -Po '\\bfoo\\b' words.txt",
    "grep -P 'foo(?=bar)' words.txt",
    "grep -Po '(?<=foo)bar' only.txt",
    "grep -Pi 'STRASSE' café.txt",
    "grep -P '(' b.txt",
    "grep -P ')' b.txt",
    "grep -P '[a' b.txt",
    'grep -P -e a -e b b.txt',
    'grep -Pw foo words.txt',
    'grep -Px foo words.txt',
  ],
  'unicode and case': [
    'grep -i ÉÎ café.txt',
    'grep -io É café.txt',
    'grep -i straße café.txt',
    'grep -w é café.txt',
    "grep -wo '[a-z]*' café.txt",
    'grep -c 😀 café.txt',
    'grep -rn foo café.txt',
    "grep -o '[[:alpha:]]*' café.txt",
  ],
  'binary and encodings': [
    'grep foo bin.dat',
    'grep -c foo bin.dat',
    'grep -a foo bin.dat',
    'grep -l foo bin.dat',
    'grep -o foo bin.dat',
    'grep -I foo bin.dat a.md',
    'grep -IL foo bin.dat a.md',
    'grep --binary-files=without-match foo bin.dat',
    'grep -z foo bin.dat',
    'grep foo latin1.txt',
    'grep -n foo latin1.txt',
    'grep -c foo latin1.txt',
    'grep -A1 plain latin1.txt',
    'grep . latin1.txt',
    'grep -r foo --include=*.dat',
  ],
  'corner cases found by fuzzing': [
    "grep -E -x 'foo|)|' café.txt",
    "grep -w ' *\\?' a.md b.txt",
    "grep -E -v '.*f{2}(a|b)|{{2}' a.md b.txt",
    "grep -E -wc ')?' café.txt",
    "grep -E -ow '{' words.txt",
    "grep -E '(foo|o)*|(foo|o){1,}(o)\\1' a.md",
    "grep -Pw 'foo\\' a.md",
    "grep -E -x '\\b{o{,1}' only.txt",
    "grep -E -C1 -n '\\>*{{1,2}{\\|+' café.txt",
    "grep -ivc 'o\\{,1\\}\\b\\{,1\\}' crlf.txt",
    "grep -wc '[^a]\\{,1\\}' a.md b.txt",
  ],
  colour: [
    'grep --color=always -n foo a.md words.txt',
    'grep --color=always -o -e ab -e abc only.txt',
    'grep --color=always -c foo a.md b.txt',
    'grep --color=always -v -C1 bar a.md',
    "grep --color=always 'x*' a.md",
    'grep --color=always -A1 match ctx.txt',
    'grep --colour=always -l foo a.md',
  ],
};

let root = '';
let sorted = false;
let viaContext: Bash;
let direct: Bash;

async function buildInMemory(): Promise<InMemoryFs> {
  const files: Record<string, string | Uint8Array> = {};
  for (const [p, c] of Object.entries(TREE))
    if (typeof c === 'string' || Buffer.isBuffer(c)) files[`/w/${p}`] = typeof c === 'string' ? c : new Uint8Array(c);
  const fs = new InMemoryFs(files);
  for (const [p, c] of Object.entries(TREE)) if (typeof c === 'object' && !Buffer.isBuffer(c)) await fs.symlink(c.symlink, `/w/${p}`);
  return fs;
}

/** Writes TREE under dir, each directory's entries created in reverse byte order. */
function writeTree(dir: string): void {
  const kids = new Map<string, Set<string>>();
  for (const p of Object.keys(TREE)) {
    const parts = p.split('/');
    for (let i = 0; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('/');
      if (!kids.has(parent)) kids.set(parent, new Set());
      kids.get(parent)!.add(parts[i]!);
    }
  }
  const create = (rel: string): void => {
    const names = [...(kids.get(rel) ?? [])].sort((a, b) => Buffer.compare(Buffer.from(b), Buffer.from(a)));
    for (const n of names) {
      const p = rel ? `${rel}/${n}` : n;
      const abs = join(dir, p);
      const entry = TREE[p];
      if (entry === undefined) mkdirSync(abs);
      else if (typeof entry === 'object' && !Buffer.isBuffer(entry)) symlinkSync(entry.symlink, abs);
      else writeFileSync(abs, entry);
    }
    for (const n of names.slice().reverse()) {
      const p = rel ? `${rel}/${n}` : n;
      if (TREE[p] === undefined) create(p);
    }
  };
  create('');
}

function gnuGrep(cmd: string): { stdout: Buffer; stderr: string; exitCode: number | null } {
  const r = gnu(cmd, root, 'C.UTF-8');
  return { stdout: r.raw, stderr: r.stderr, exitCode: r.exitCode };
}

async function ours(bash: Bash, cmd: string): Promise<{ stdout: Buffer; stderr: string; exitCode: number }> {
  const r = await bash.exec(cmd, { cwd: '/w' });
  return { stdout: Buffer.from(r.stdout, 'utf8'), stderr: r.stderr, exitCode: r.exitCode };
}

const lines = (b: Buffer) => b.toString('latin1').split('\n').sort().join('\n');

async function compare(bash: Bash, cmd: string): Promise<void> {
  const g = gnuGrep(cmd);
  const o = await ours(bash, cmd);
  const set = sorted && RECURSIVE.test(cmd);
  assert.equal(o.exitCode, g.exitCode, `${cmd}: exit code`);
  assert.equal(o.stderr, g.stderr, `${cmd}: stderr`);
  if (set) assert.equal(lines(o.stdout), lines(g.stdout), `${cmd}: stdout (as a set)`);
  else assert.equal(o.stdout.toString('latin1'), g.stdout.toString('latin1'), `${cmd}: stdout`);
}

describe('grep against GNU grep 3.8', () => {
  before(async () => {
    requireGnu(['bash', 'grep']);
    const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
    try {
      root = mkdtempSync(join(base, 'afs-grep-'));
    } catch {
      root = mkdtempSync(join(tmpdir(), 'afs-grep-'));
    }
    writeTree(root);
    sorted = statfsSync(root).type !== 0x01021994; // not tmpfs: readdir order is not byte order
    const fs1 = await buildInMemory();
    viaContext = new Bash({ fs: fs1, cwd: '/w', customCommands: grepCommands(), env: { LC_ALL: 'C.UTF-8' } });
    const fs2 = await buildInMemory();
    direct = new Bash({ fs: fs2, cwd: '/w', customCommands: grepCommands(() => fs2), env: { LC_ALL: 'C.UTF-8' } });
  });
  after(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  for (const [family, cmds] of Object.entries(CASES)) {
    describe(family, () => {
      for (const cmd of cmds) it(cmd, () => compare(viaContext, cmd));
    });
  }

  describe('reading the filesystem directly (installGnuCommands(fs))', () => {
    for (const cmd of [...CASES['recursion and file selection']!, ...CASES['binary and encodings']!]) it(cmd, () => compare(direct, cmd));
  });
});

describe('grep paths in our filesystem', () => {
  it('has no doubled slashes under / and keeps ./ only for an explicit .', async () => {
    const fs = new InMemoryFs({ '/a.md': 'x needle\n', '/d/b.md': 'needle y\n' });
    const bash = new Bash({ fs, cwd: '/d', customCommands: grepCommands() });
    assert.equal((await bash.exec('grep -rn needle /')).stdout, '/a.md:1:x needle\n/d/b.md:1:needle y\n');
    assert.equal((await bash.exec('grep -rn needle /d/')).stdout, '/d/b.md:1:needle y\n');
    assert.equal((await bash.exec('grep -rn needle')).stdout, 'b.md:1:needle y\n');
    assert.equal((await bash.exec('grep -rn needle .')).stdout, './b.md:1:needle y\n');
    assert.equal((await bash.exec('grep -r needle b.md')).stdout, 'needle y\n');
  });

  it('is installed as grep, egrep and fgrep', async () => {
    const names = installGnuCommands().map((c) => c.name);
    for (const n of ['grep', 'egrep', 'fgrep']) assert.ok(names.includes(n), n);
    const fs = new InMemoryFs({ '/f': 'a.b\naxb\n' });
    const bash = new Bash({ fs, cwd: '/', customCommands: grepCommands() });
    assert.equal((await bash.exec('fgrep a.b f')).stdout, 'a.b\n');
    assert.equal((await bash.exec("egrep 'a(x|\\.)b' f")).stdout, 'a.b\naxb\n');
  });
});

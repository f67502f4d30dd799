/**
 * find, head, tail, wc, cat, sort and uniq of the bash tool against the real GNU tools
 * (findutils 4.9, coreutils 9.1), byte for byte: stdout, stderr and exit code.
 *
 * A fixed tree with the cases these tools get wrong most easily (sort ties and case, numbers
 * with signs, decimals and unit suffixes, version strings, duplicate runs, files without a final
 * newline, CRLF, UTF-8 names and contents, empty files and directories, sizes around the -size
 * unit boundaries) is written into the service (the `write` and `mkdir` tools) and into a temp
 * directory; the temp tree gets the service's mtimes (`touch -d` from `list`'s updatedAt, the
 * root gets the service's root time) so -mmin/-mtime/-newer compare. Every command then runs in
 * the service (`cwd: '/'`) and as `bash -c CMD` in the temp directory with LC_ALL=C TZ=UTC
 * (test/helpers/gnu-oracle.ts: how GNU runs, and the versions it must be).
 *
 * The only normalization: `{R}` in a command is the root (empty in the service, the temp dir for
 * GNU, whose outputs map it back to `/`); find commands whose order is readdir order (`set`)
 * compare as sorted line sets, since GNU's order is the temp filesystem's. Mutating commands run
 * last, in order, on both sides.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { gnu, listTree, mirrorTimes, requireGnu } from '../helpers/gnu-oracle.js';
import { startServer, type TestServer } from '../helpers/server.js';

const lines = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i + 1)).join('');

const FILES: Record<string, string> = {
  'words.txt': 'banana\nApple\napple\n_under\nBanana\ncherry\n10\n9\n-3\n 2\nb\nB\ncherry\nzeta\n\nalpha beta\n',
  'nums.txt': '10\n9\n-3\n2.5\n-0\n0\n+4\n 7\n1e3\n1k\n2M\n512K\n1G\nabc\n\n-1.5\n3\n007\n1.50\n',
  'table.csv': 'id,name,city,score\n3,carol,Oslo,71\n1,alice,Berlin,90\n2,bob,Berlin,71\n5,eve,Oslo,90\n4,dave,Paris,55\n6,frank,berlin,71\n',
  'ver.txt': 'file1.10\nfile1.2\nfile1.2a\nfile1.02\nfile10\nfile2\n.hidden\nfile1.2.tar.gz\nfile1.2~rc1\n',
  'months.txt': 'Mar 3\njan 1\nDEC 12\nfoo 0\nFeb 2\n',
  'dup.txt': 'a\na\nA\nb\nb\nb\nc\na\n  x 1\n  y 1\nd\nd\n',
  'log.txt': lines(
    40,
    (i) => `2026-01-${String((i % 28) + 1).padStart(2, '0')}T00:00:00Z ${['INFO', 'WARN', 'ERROR', 'DEBUG'][i % 4]} worker-${i % 3} message ${i}\n`,
  ),
  'big.txt': lines(600, (i) => `line ${i} lorem ipsum dolor sit amet\n`),
  'nonl.txt': 'first line\nsecond line\nthird, no newline',
  'crlf.txt': 'one\r\ntwo\r\nthree\r\n',
  'empty.txt': '',
  'tabs.txt': 'a\tb\tc\n\tindented\nno tab\n',
  'jp.txt': '日本語のテキスト\n二行目\n',
  'size512.txt': 'x'.repeat(511) + '\n',
  'size513.txt': 'y'.repeat(512) + '\n',
  'size1024.txt': 'z'.repeat(1023) + '\n',
  'size1025.txt': 'w'.repeat(1024) + '\n',
  'docs/a.md': '# A\n\ntext\n',
  'docs/B.MD': '# B\n',
  'docs/café.md': 'café crème\n',
  'docs/sub/deep.md': 'deep\n',
  'docs/sub/notes.txt': 'notes\n',
  'src/main.ts': 'export const x = 1;\n',
  'src/lib/util.ts': 'export function f() {}\n',
  'src/lib/data.json': '{"a": 1}\n',
  '.hidden/.env': 'KEY=value\n',
  'my dir/file one.md': 'spaced\n',
  'blanks.txt': 'x\n\n\n\ny\n\nz\n',
};
const EMPTY_DIRS = ['emptydir', 'docs/empty'];

interface Case {
  cmd: string;
  /** Output order is readdir order: compare sorted lines. */
  set?: boolean;
}

const C = (cmds: string[], opts: Omit<Case, 'cmd'> = {}): Case[] => cmds.map((cmd) => ({ cmd, ...opts }));

const CASES: Case[] = [
  // find: deterministic (sorted or single results)
  ...C([
    "find . -name '*.md' | sort",
    'find . -type d | sort',
    'find nosuch',
    "find nosuch docs -name '*.md' | sort",
    'find . -bogus',
    'find . -name',
    'find . -size 1x',
    'find . -maxdepth x',
    'find . -mtime x',
    'find . -type q',
    'find . -o',
    'find . -name a b',
    'find . -newer nosuch.txt',
    'find docs/a.md',
    'find docs/a.md/x',
    "find '' docs/a.md",
    'find . -maxdepth 0',
    'find . -maxdepth 0 -name .',
    'find docs/ -maxdepth 0',
    "find . -name 'café.md'",
    "find . -name 'caf?.md'",
    "find . -name 'caf??.md'",
    'find . -type f | wc -l',
    "find . -name '*.txt' -size -1k",
    'find . -type f -size -2 | sort',
    'find . -type f -size 1 | sort',
    'find . -type f -size 2 | sort',
    'find . -type f -size +1k | sort',
    'find . -type f -size 1k | sort',
    'find . -type f -size -1025c -size +1023c | sort',
    'find . -type f -size 0 | sort',
    'find . -mmin -60 -type f | wc -l',
    'find . -mmin +60 | sort',
    'find . -mmin 0',
    'find . -mtime 0 -type f | wc -l',
    'find . -mtime +0 | sort',
    'find . -mtime -1 -type d | sort',
    "find . -newer words.txt -name 'size*' | sort",
    "find . -name '*.json' -exec cat {} \\;",
    "find src -name '*.ts' -exec wc -l {} + | sort",
    'find src -type f -exec echo x{}y \\; | sort',
    'find . -name nomatch',
    "find . -path './docs/*' -prune -o -name '*.md' -print | sort",
    "find docs/sub -name '*.md' -print0 | cat -v",
    "find docs -name '*.md' -print0 | wc -c",
    'find . -empty | sort',
    'find . -type d -empty | sort',
    "find docs -printf '%p|%f|%h|%d|%y|%P\\n' | sort",
    "find . -maxdepth 1 -type f -name 's*' -printf '%s %f\\n' | sort",
    "find . -iname '*.MD' | sort",
    "find . \\( -name '*.ts' -o -name '*.json' \\) -type f | sort",
    "find . -name '*.md' -not -path './docs/*' | sort",
    "find . ! -name '*.txt' -type f | sort",
    'find . -name "*.md" -quit | wc -l',
    "find . -regex '.*/[a-c]\\.md'",
    'find docs src -maxdepth 1 | sort',
    "find -name '*.json'",
  ]),
  // find: readdir order
  ...C(
    [
      'find .',
      'find docs',
      'find {R}/docs',
      'find {R}/ -maxdepth 1',
      'find . -type f',
      'find . -mindepth 2 -type d',
      'find docs -depth',
      "find . -name '.*'",
      "find . -path '*sub*'",
      "find . -ipath '*DOCS/S*'",
      'find .// -maxdepth 1',
      "find 'my dir'",
      'find . -mmin -60 -name "*.json"',
      'find . -size -1k -type f',
    ],
    { set: true },
  ),

  // head
  ...C([
    'head big.txt',
    'head -n 5 big.txt',
    'head -5 big.txt',
    'head -n -595 big.txt',
    'head -n -1 nonl.txt',
    'head -n -0 nonl.txt',
    'head -c 20 big.txt',
    'head -c -10 nonl.txt',
    'head -c 1k big.txt | wc -c',
    'head -c 3 jp.txt | wc -c',
    'head -c 4 jp.txt',
    'head -n 2 words.txt nonl.txt empty.txt',
    'head -n 1 nonl.txt docs',
    'head -q -n 1 words.txt crlf.txt',
    'head -v -n 1 words.txt',
    'head nosuch.txt',
    'head -n 1 words.txt nosuch.txt crlf.txt',
    'head -n x words.txt',
    'head -5x words.txt',
    'head --lines=3 words.txt',
    'head -n 0 words.txt',
    'cat words.txt | head -n 2',
    'head -n 3 - < words.txt',
  ]),
  // tail
  ...C([
    'tail big.txt',
    'tail -n 3 big.txt',
    'tail -3 big.txt',
    'tail -n +598 big.txt',
    'tail +598 big.txt',
    'tail -c 15 big.txt',
    'tail -c +10 nonl.txt',
    'tail -n 1 nonl.txt',
    'tail -n 2 crlf.txt',
    'tail -n 1 words.txt nonl.txt empty.txt',
    'tail -n 1 nonl.txt docs',
    'tail nosuch.txt',
    'tail -n 0 words.txt',
    'tail -n +0 nonl.txt',
    'tail -c +0 nonl.txt',
    'tail -n x big.txt',
    'tail -q -n 1 words.txt crlf.txt',
    'cat big.txt | tail -n 2',
    'tail -c 7 jp.txt',
  ]),
  // wc
  ...C([
    'wc words.txt',
    'wc -l big.txt',
    'wc -l big.txt words.txt',
    'wc big.txt words.txt empty.txt',
    'wc -c size*.txt',
    'wc -w tabs.txt jp.txt',
    'wc -l nonl.txt crlf.txt',
    'wc -L tabs.txt words.txt',
    'wc nosuch.txt words.txt',
    'wc -l nosuch.txt',
    'wc docs',
    'wc -l < big.txt',
    'cat big.txt | wc -l',
    'cat big.txt | wc',
    'cat words.txt | wc -lc',
    'wc empty.txt',
    'wc -lw docs/*.md',
    'wc --total=never -l words.txt big.txt',
    'wc --lines --words words.txt',
  ]),
  // cat
  ...C([
    'cat words.txt',
    'cat nonl.txt empty.txt nonl.txt',
    'cat -n nonl.txt nonl.txt',
    'cat -b blanks.txt',
    'cat -s blanks.txt',
    'cat -sn blanks.txt',
    'cat -A tabs.txt crlf.txt',
    'cat -E nonl.txt',
    'cat -T tabs.txt',
    'cat -v jp.txt',
    'cat docs',
    'cat nosuch.txt',
    "cat words.txt 'no such'",
    'cat - < nonl.txt',
    'cat jp.txt | wc -c',
  ]),
  // sort
  ...C([
    'sort words.txt',
    'sort -r words.txt',
    'sort -f words.txt',
    'sort -fu words.txt',
    'sort -u words.txt',
    'sort -n nums.txt',
    'sort -rn nums.txt',
    'sort -g nums.txt',
    'sort -h nums.txt',
    'sort -nu nums.txt',
    'sort -V ver.txt',
    'sort -M months.txt',
    'sort -t, -k3,3 table.csv',
    'sort -t, -k3,3 -s table.csv',
    'sort -t, -k4,4n -k2,2 table.csv',
    'sort -t, -k4,4nr table.csv',
    'sort -t, -k3,3f -k1,1n table.csv',
    'sort -t, -k2.2,2.3 table.csv',
    'sort -k3 log.txt | head -5',
    'sort -k2,2 -k4,4 log.txt | head -6',
    'sort -b -k2 dup.txt',
    'sort -d words.txt',
    'sort nonl.txt crlf.txt',
    'sort -c words.txt',
    'sort -C words.txt; echo $?',
    'sort nosuch.txt',
    'sort docs',
    'sort -t ab words.txt',
    'sort -k0 words.txt',
    'cat words.txt | sort | uniq -c',
    'sort -z nonl.txt | cat -v',
  ]),
  // uniq
  ...C([
    'uniq dup.txt',
    'uniq -c dup.txt',
    'uniq -d dup.txt',
    'uniq -u dup.txt',
    'uniq -i dup.txt',
    'uniq -ic dup.txt',
    'uniq -D dup.txt',
    'uniq -f 1 dup.txt',
    'uniq -s 2 dup.txt',
    'uniq -w 1 dup.txt',
    'uniq nosuch.txt',
    'uniq nonl.txt',
    'sort dup.txt | uniq -c | sort -rn',
    'cut -d" " -f3 log.txt | sort | uniq -c',
  ]),
];

/** Run last, in order, on both sides. */
const MUTATING: Case[] = C([
  'sort -o sorted.txt words.txt && cat sorted.txt',
  "find docs -name '*.txt' -delete && find docs | sort",
  'find . -name emptydir -delete; find . -maxdepth 1 -type d | sort',
  'find docs -delete',
]);

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const sorted = (s: string) =>
  s
    .split('\n')
    .filter((l, i, a) => l !== '' || i < a.length - 1)
    .sort()
    .join('\n');

for (const backend of backends()) {
  describe(`find and text tools vs GNU (${backend})`, () => {
    let s: TestServer;
    let key: string;
    let base: string;
    let root: string;

    before(async () => {
      requireGnu(['bash', 'find', 'xargs', 'ls']);
      s = await startServer(backend);
      key = (await s.register('GNU Text')).apiKey;
      base = mkdtempSync(join(tmpdir(), 'bash-gnu-text-'));
      root = join(base, 'root');
      mkdirSync(root);
      for (const [p, content] of Object.entries(FILES)) {
        await s.ok(key, 'write', { path: '/' + p, content });
        mkdirSync(dirname(join(root, p)), { recursive: true });
        writeFileSync(join(root, p), content);
      }
      for (const d of EMPTY_DIRS) {
        await s.ok(key, 'mkdir', { path: '/' + d });
        mkdirSync(join(root, d), { recursive: true });
      }
      // The service's times onto the GNU tree (files and directories), the root's too.
      mirrorTimes(root, await listTree(s, key));
    });

    after(async () => {
      await s?.close();
      if (base) rmSync(base, { recursive: true, force: true });
    });

    it('has at least 50 cases', () => {
      assert.ok(CASES.length + MUTATING.length >= 50);
      assert.equal(new Set([...CASES, ...MUTATING].map((c) => c.cmd)).size, CASES.length + MUTATING.length, 'unique commands');
    });

    for (const c of [...CASES, ...MUTATING]) {
      it(c.cmd, async () => {
        const { stdout, stderr, exitCode } = gnu(c.cmd, root);
        const g: Run = { stdout, stderr, exitCode };
        const r = await s.call(key, 'bash', { command: c.cmd.replaceAll('{R}', ''), cwd: '/' });
        assert.equal(r.inner?.success, true, JSON.stringify(r.body).slice(0, 300));
        const svc: Run = { stdout: r.inner.stdout, stderr: r.inner.stderr, exitCode: r.inner.exitCode };
        if (c.set) {
          assert.deepEqual({ ...svc, stdout: sorted(svc.stdout) }, { ...g, stdout: sorted(g.stdout) });
        } else {
          assert.deepEqual(svc, g);
        }
      });
    }
  });
}

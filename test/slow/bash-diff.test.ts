/**
 * The bash tool against GNU: a differential suite (contract §5, "The bash tool").
 *
 * Seeded trees (test/helpers/trees.ts: nested dirs, dotfiles and dot-dirs, unicode names, names
 * with spaces, empty files, CRLF files, files without a final newline, a few hundred lines in
 * some) are written both into the service (one agent per tree, one `write` per file) and into a
 * temp directory. Every command below runs in both: in the service with `cwd: '/'`, and with GNU
 * tools as `bash -c CMD` in the temp directory with `LC_ALL=C TZ=UTC` (byte-order sorting, UTC
 * dates). Commands use relative paths, so outputs can be compared byte for byte.
 *
 * What is compared: stdout, exit code, and stderr. Each command ends in one class (its worst over
 * all trees):
 *   identical   stdout, stderr and exit code byte-identical;
 *   normalized  stdout identical after the command's declared normalizer (below), exit code
 *               identical, stderr of the same *shape* (see stderrShape) but not byte-identical;
 *   same set    (commands whose GNU output order depends on the filesystem's readdir order:
 *               find, grep -r, du) stdout identical as a sorted multiset of lines, after the
 *               normalizer; exit code identical; stderr of the same shape;
 *   different   anything else. Every `different` command must be in KNOWN_MISMATCHES with the
 *               reason (the lead's to-do list); a new one fails the test. One that starts to
 *               match is printed as FIXED (and fails only with BASH_COMPAT_STRICT=1).
 *
 * The normalizations, all of them (they hide only what legitimately differs between a store
 * and an ext4/tmpfs directory):
 *   1. Root mapping. A command may write `{R}` for the root: in the service it becomes '' (so
 *      `{R}/docs` is `/docs`), for GNU the temp directory. In GNU's stdout and stderr the temp
 *      directory path is replaced by `/` (`/tmp/…/root/docs/a.md` → `/docs/a.md`). `pwd` and
 *      `cd` therefore compare too. Nothing else is rewritten.
 *   2. Times. The test process (and so the in-process server) is pinned to TZ=UTC: the service's
 *      `ls -l` prints times in the server process's local zone (a bug, reported), GNU runs with
 *      TZ=UTC. The temp tree's mtimes are set (with `touch -d @sec.ms`) to the service's
 *      updatedAt of each file and directory, read back with `list`; the root (and its parent,
 *      which GNU shows as `..`) get the service's root mtime (the epoch). No time is normalized
 *      except atime/ctime/birth in `stat` (the store has none; reading a file changes GNU's).
 *   3. `ls -l` (normalizer lsLong): link count, owner and group columns are dropped (the store
 *      has none of them), a directory's size is `<dir>` (4096 on ext4, entry-dependent on tmpfs),
 *      `total N` (allocated blocks) is `total <n>`, and runs of blanks between the columns
 *      collapse to one space (column padding is therefore NOT compared for `ls -l`).
 *   4. `stat` default layout (normalizer statLayout): Blocks, IO Block, Device, Inode, Links,
 *      Uid, Gid values, the Access (time)/Change/Birth lines and a directory's Size become
 *      placeholders, and blank runs collapse. File name, size, type, mode and Modify compare.
 *   5. `du` (normalizer duSizes): the size column is `<size>` (GNU counts allocated 4 KiB disk
 *      blocks, the store has no blocks); names and their order/set compare.
 *   6. stderr shape (stderrShape): both empty, or both non-empty with the same program prefix
 *      on the first line (`grep:`, `find:`, `bash:` — GNU's `bash -c` says `bash: line 1:`)
 *      and the same "No such file or directory" / "Is a directory" / "Permission denied" kind.
 *      Byte-identical stderr is required for the `identical` class only.
 *
 * Declared per command, not normalizations: two commands counting characters (`awk length`,
 * `wc -m`) run GNU with LC_ALL=C.UTF-8, the service's own locale. Commands avoid what depends on
 * the filesystem itself: `-size` tests and `ls -S` look at files only (a directory's size is
 * 4096 on ext4 but entry-dependent on tmpfs/xfs).
 *
 * `tree` is compared only when GNU tree is installed (`which tree`); otherwise its commands are
 * reported as skipped (test/bash.test.ts checks tree against hand-checked outputs), and their
 * mismatches never fail (KNOWN_MISMATCHES could not be checked for them).
 * The reference versions are whatever the machine has (here: grep 3.8, findutils 4.9,
 * coreutils 9.1, gawk 5.2, jq 1.6); the summary prints them.
 *
 * Backends: the first one runs all three trees and owns the floors and FIXED notices; the
 * others run the first tree only (BASH_DIFF_FULL=1: all) and must show no unlisted mismatch.
 * GNU runs as one batch script per tree (a `bash -c` per command) beside the service calls.
 *
 * Output: a per-family table (console.log, shows in the test output); with WRITE_BASH_COMPAT=1
 * also docs/bash-compat.md. BASH_DIFF_DUMP=path writes every run's raw outputs as JSON.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { generateTree, treeDirs, type Tree } from '../helpers/trees.js';

// ---- the commands ----------------------------------------------------------------------------

type Normalizer = (s: string) => string;

interface Case {
  family: string;
  cmd: string;
  /** GNU's output order depends on readdir order: compare as a sorted multiset of lines. */
  fs?: boolean;
  /** Declared normalizer applied to both stdouts (see the header). */
  norm?: Normalizer;
  /** A GNU program that must be installed, else the case is skipped. */
  needs?: string;
  /** Run GNU with LC_ALL=C.UTF-8 instead of C (character counts: the service's locale is C.UTF-8). */
  utf8?: boolean;
}

const lsLong: Normalizer = (s) =>
  s
    .split('\n')
    .map((l) => {
      if (/^total \S+$/.test(l)) return 'total <n>';
      const m = /^([-dlcbps][-rwxsStT]{9})[.+@]?\s+\d+\s+\S+\s+\S+\s+(\S+)\s+([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{1,2}:\d{2}|\d{4})\s(.*)$/.exec(l);
      if (!m) return l;
      const [, perm, size, mon, day, time, name] = m;
      return `${perm} ${perm!.startsWith('d') ? '<dir>' : size} ${mon} ${day} ${time} ${name}`;
    })
    .join('\n');

const statLayout: Normalizer = (s) =>
  s
    .split('\n')
    .map((l) => {
      if (/^Access: \d{4}-/.test(l)) return 'Access: <atime>';
      if (/^Change: /.test(l)) return 'Change: <ctime>';
      if (/^ Birth: /.test(l)) return ' Birth: <btime>';
      let x = l
        .replace(/Blocks: \d+/, 'Blocks: <n>')
        .replace(/IO Block: \d+/, 'IO Block: <n>')
        .replace(/Device: \S+/, 'Device: <dev>')
        .replace(/Inode: \d+/, 'Inode: <n>')
        .replace(/Links: \d+/, 'Links: <n>')
        .replace(/Uid: \([^)]*\)/, 'Uid: (<uid>)')
        .replace(/Gid: \([^)]*\)/, 'Gid: (<gid>)');
      if (/^\s*Size: /.test(x) && /directory\s*$/.test(x)) x = x.replace(/Size: \d+/, 'Size: <dir>');
      return x.replace(/[ \t]+/g, ' ');
    })
    .join('\n');

const duSizes: Normalizer = (s) => s.replace(/^[^\t\n]+\t/gm, '<size>\t');

const C = (family: string, cmds: string[], opts: Omit<Case, 'family' | 'cmd'> = {}): Case[] => cmds.map((cmd) => ({ family, cmd, ...opts }));

const CASES: Case[] = [
  // grep: single files (deterministic order)
  ...C('grep', [
    'grep -n TODO README.md',
    'grep -c TODO README.md',
    'grep -c needle logs/big.log',
    'grep -i needle 日本.txt',
    'grep -in needle docs/guide.md',
    'grep -w needle logs/big.log',
    'grep -nw needle README.md',
    'grep -E "TODO|FIXME" README.md',
    "grep -E '^[0-9]+,' data/table.csv",
    'grep -F foo.bar logs/big.log',
    'grep foo.bar logs/big.log',
    'grep -o needle logs/big.log',
    "grep -on 'TODO[^ ]*' README.md",
    'grep -v needle nonl.txt',
    "grep -vc '^$' README.md",
    'grep -A 2 ERROR logs/app.log',
    'grep -B 1 ERROR logs/app.log',
    'grep -C 1 -n TODO README.md',
    'grep -A1 -B1 needle logs/big.log',
    'grep -e TODO -e FIXME README.md',
    'grep -n -e needle -e TODO -e FIXME docs/guide.md',
    'grep -H TODO README.md',
    'grep -h TODO README.md docs/guide.md',
    'grep -c TODO README.md docs/api.md',
    'grep -s TODO nosuch.txt',
    'grep -s TODO nosuch.txt; echo $?',
    'grep -q TODO README.md; echo $?',
    'grep -q zzzzz README.md; echo $?',
    'grep -m 3 INFO logs/big.log',
    'grep -m1 -n needle logs/big.log',
    'grep zzzzz README.md',
    'grep TODO nosuch.txt',
    'grep TODO README.md nosuch.txt',
    'grep --bogus TODO README.md',
    'grep -y TODO README.md',
    "grep -n 'needle$' logs/big.log",
    "grep -n '^#' docs/guide.md",
    "grep -c $'\\r' crlf.txt",
    'grep -n needle nonl.txt',
    'grep -n needle "docs/notes/todo list.txt"',
    'grep -l TODO README.md docs/*.md',
    'grep -L TODO docs/*.md',
    "grep -x 'npm run build' scripts/build.sh",
    'grep -ic error logs/big.log',
    'grep -E "needle|TODO" -c logs/big.log',
    "grep -P '\\bneedle\\b' logs/big.log",
    'grep -n TODO *.md',
    "grep -c '' crlf.txt nonl.txt empty.txt",
    "grep '' nonl.txt",
    "grep -n '[' README.md",
    "grep -E '(' README.md",
    'grep -A 1 -m 1 ERROR logs/app.log',
    'grep -w -c needle .env',
    'grep -n needle .env',
    'egrep "TODO|FIXME" README.md',
    'fgrep foo.bar logs/big.log',
    'grep -n café docs/café.md',
    'grep TODO docs',
    'grep -n -- -run .github/workflows/ci.yml',
    'grep -nF "[ ]" docs/guide.md',
    'grep -c needle < logs/big.log',
    'cat README.md | grep -n TODO',
  ]),
  // grep -r: GNU's file order is the filesystem's readdir order
  ...C(
    'grep',
    [
      'grep -rn TODO .',
      'grep -rn TODO docs',
      'grep -rn needle .',
      'grep -rl TODO .',
      'grep -rL TODO .',
      'grep -rc TODO src',
      'grep -rin needle .',
      'grep -rw needle .',
      'grep -rnE "TODO|FIXME" src',
      'grep -rF foo.bar .',
      'grep -ro needle docs',
      'grep -rn -e TODO -e FIXME src',
      "grep -rn TODO --include='*.ts' .",
      "grep -rn TODO --include='*.md' docs",
      "grep -rn TODO --include '*.ts' .",
      "grep -rl needle --exclude='*.log' .",
      'grep -rn TODO --exclude-dir=src .',
      'grep -rn needle --exclude-dir=.hidden --exclude-dir=logs .',
      'grep -rh TODO src',
      'grep -rH TODO src',
      'grep -rm1 TODO src',
      'grep -rn TODO',
      'grep -rn café .',
      'grep -rn needle .hidden',
      'grep -rni todo --include=*.txt .',
      "grep -rn --include='*.ts' -e TODO -e FIXME .",
      'grep -r needle empty.txt',
      'grep -r needle nonl.txt',
      'grep -rn TODO {R}/docs',
      'grep -rn needle {R}/',
      'grep -rl TODO {R}/src',
      'grep -rn TODO nosuch docs',
      'grep -R needle docs',
      'grep -rn needle "my notes"',
    ],
    { fs: true },
  ),

  // find
  ...C('find', [
    "find . -name '*.md' | sort",
    'find . -type f | wc -l',
    'find . -type d | sort',
    'find . -maxdepth 1 -type f | sort',
    'find . -mtime -1 -type f | wc -l',
    'find . -mmin -60 -type f | sort | head -5',
    "find . -name 'café.md'",
    'find . -name nomatch',
    'find nosuch',
    'find . -bogus',
    "find docs -maxdepth 1 -name '*.md' -type f | sort",
    "find . -name '*.ts' | sort | xargs grep -c TODO",
    'find . -name "*.md" -newer README.md | wc -l',
  ]),
  ...C(
    'find',
    [
      "find . -name '*.md'",
      "find . -iname '*.MD'",
      'find . -type f',
      'find . -type d',
      'find docs -type f',
      "find . -path '*/src/*' -name '*.ts'",
      "find . -path './docs/*'",
      'find . -maxdepth 1',
      'find . -maxdepth 2 -type d',
      'find . -mindepth 2 -type f',
      'find . -mindepth 1 -maxdepth 1 -type d',
      'find . -size 0',
      'find . -type f -size +1k',
      'find . -size -1k -type f',
      'find . -size +10k',
      'find . -type f -size -2',
      'find . -empty',
      'find . -type f -empty',
      'find . -type d -empty',
      'find . -mtime +1',
      'find . -mtime 0 -type f',
      'find . -mmin +60',
      'find . -mmin -60 -name "*.json"',
      'find . -newer README.md -type f',
      "find . -not -name '*.md' -type f",
      "find . ! -path '*/.*' -type f",
      "find . -name '*.md' -o -name '*.txt'",
      "find . \\( -name '*.ts' -o -name '*.json' \\) -type f",
      "find . -type f -name '.*'",
      "find . -name '* *'",
      "find nosuch docs -name '*.md'",
      "find {R}/docs -name '*.md'",
      'find {R}/ -maxdepth 1 -type d',
      "find . -name '*.log' -exec wc -l {} \\;",
      "find . -name '*.json' -exec cat {} +",
      'find src -type f -print0 | xargs -0 wc -l',
      "find . -type f -name '*.ts' | xargs grep -l TODO",
      "find . -iname 'readme*'",
      "find . -name '*.md' -not -path './docs/*'",
      "find . -type f -size +0 -name '*.txt'",
      "find -name '*.sh'",
      'find docs src -maxdepth 1',
      'find . -type f -name "*.ts" -path "*lib*"',
      'find . -name "*.md" -print',
    ],
    { fs: true },
  ),

  // ls
  ...C('ls', [
    'ls',
    'ls -a',
    'ls -1',
    'ls -1 docs',
    'ls -a docs',
    'ls -A',
    'ls -R docs',
    'ls -R',
    'ls -t',
    'ls -1t logs',
    'ls -S logs',
    'ls -Sr logs',
    'ls -r',
    'ls -1r src',
    'ls -d docs',
    'ls -d */',
    'ls -d */*/',
    'ls -d .*/ */',
    'echo */',
    'for d in */; do echo "dir: $d"; done',
    'echo docs/*/ nomatch*/',
    'ls -d .*',
    'ls docs src',
    'ls nosuch',
    'ls README.md',
    "ls 'my notes'",
    'ls {R}/docs',
    'ls *.md',
    'ls docs/*.md',
    'ls -1a .github',
    'ls .hidden',
    'ls -R .github',
    'ls empty.txt nonl.txt',
    'ls -rt',
    'ls docs nosuch',
    'ls | wc -l',
    'ls -1 | head -3',
  ]),
  ...C(
    'ls',
    [
      'ls -la',
      'ls -l',
      'ls -l docs',
      'ls -la docs',
      'ls -lt docs',
      'ls -lS logs',
      'ls -lh logs',
      'ls -lah',
      'ls -ld docs',
      'ls -l README.md',
      'ls -la {R}/',
      'ls -ltr',
      'ls -lR docs',
      'ls -lhS logs',
      'ls -l empty.txt nonl.txt crlf.txt',
    ],
    { norm: lsLong },
  ),

  // cat
  ...C('cat', [
    'cat README.md',
    'cat crlf.txt',
    'cat nonl.txt',
    'cat empty.txt',
    'cat "docs/notes/todo list.txt"',
    'cat docs/café.md',
    'cat 日本.txt',
    'cat nosuch.txt',
    'cat README.md nosuch.txt',
    'cat -n nonl.txt',
    'cat -n crlf.txt',
    'cat -A crlf.txt',
    'cat docs',
    'cat nonl.txt empty.txt nonl.txt',
    'cat {R}/.env',
    'cat /dev/null',
    'cat .github/workflows/ci.yml',
    'cat < nonl.txt',
    'cat data/*.csv | head -3',
  ]),

  // head / tail
  ...C('head', [
    'head README.md',
    'head -n 5 logs/big.log',
    'head -5 logs/big.log',
    'head -n -5 docs/guide.md',
    'head -n -1 nonl.txt',
    'head -c 100 logs/big.log',
    'head -c -10 nonl.txt',
    'head -n 3 README.md docs/api.md',
    'head -n 2 nonl.txt',
    'head -n 1 crlf.txt',
    'head -n 0 README.md',
    'head -q -n 1 README.md docs/api.md',
    'head nosuch.txt',
    'head -c 4 日本.txt',
    'head -n 20 logs/big.log | tail -n 5',
    'head -n 3 empty.txt',
  ]),
  ...C('tail', [
    'tail logs/big.log',
    'tail -n 5 logs/big.log',
    'tail -5 logs/big.log',
    'tail -n +5 README.md',
    'tail -n +400 logs/big.log',
    'tail -c 50 logs/big.log',
    'tail -c +10 nonl.txt',
    'tail -n 1 nonl.txt',
    'tail -n 2 crlf.txt',
    'tail -n 3 README.md docs/api.md',
    'tail -n 0 README.md',
    'tail nosuch.txt',
    'tail -n 2 empty.txt',
    'tail -n +1 nonl.txt',
    'tail -1 logs/app.log',
  ]),

  // wc
  ...C('wc', [
    'wc -l README.md',
    'wc -w README.md',
    'wc -c README.md',
    'wc README.md',
    'wc -l logs/*.log',
    'wc -l nonl.txt',
    'wc -c 日本.txt',
    'wc -l crlf.txt',
    'wc empty.txt',
    'wc -l < README.md',
    'cat README.md | wc -l',
    'wc -lwc docs/*.md',
    'wc -l nosuch.txt',
    'wc -l "docs/notes/todo list.txt"',
    'wc -w < nonl.txt',
    'wc -c empty.txt nonl.txt',
  ]),

  // stat
  ...C('stat', [
    "stat -c '%n %s' README.md",
    "stat -c '%s' empty.txt nonl.txt",
    "stat -c '%y' README.md",
    "stat -c '%n %F' README.md docs",
    "stat -c '%a %A' README.md",
    'stat -c %Y README.md',
    'stat nosuch',
    "stat -c '%n: %s bytes' 'docs/notes/todo list.txt'",
    "stat --format='%s %n' data/items.json",
    "stat -c '%F' docs empty.txt",
  ]),
  ...C('stat', ['stat README.md', 'stat docs', 'stat empty.txt'], { norm: statLayout }),

  // du
  ...C('du', ['du -s docs', 'du -sh docs', 'du -sh .', 'du -sh *', 'du -s docs src logs', 'du nosuch'], { norm: duSizes }),
  ...C('du', ['du -a docs', 'du -h docs', 'du -ah src', 'du'], { norm: duSizes, fs: true }),

  // tree (compared only when GNU tree is installed)
  // (GNU tree in the C locale draws ASCII lines like the service, but prints non-ASCII names as
  // octal escapes: `docs` with café.md would differ for that reason.)
  ...C('tree', ['tree docs', 'tree -L 1', 'tree -a -L 1', 'tree -d', "tree -I '*.log' logs", 'tree src', 'tree -L 2 docs', 'tree nosuch'], {
    needs: 'tree',
  }),

  // text tools
  ...C('text', [
    'echo x > nodir/f; echo next',
    'echo y > README.md/z || echo handled; echo z >> nodir/g; echo $?',
    'sort data/table.csv',
    'sort -t, -k4 -n data/table.csv',
    'sort -t, -k4,4nr -k2,2 data/table.csv',
    'sort -r .gitignore',
    'sort -u .gitignore',
    'sort -n nonl.txt',
    "cut -d' ' -f3 logs/app.log | sort | uniq -c",
    "cut -d' ' -f2 logs/big.log | sort | uniq -c | sort -rn",
    'cut -d, -f2 data/table.csv',
    'cut -d, -f2,4 data/table.csv',
    'cut -c1-10 logs/app.log',
    'cut -d= -f1 .env',
    'sort .gitignore | uniq',
    "cut -d' ' -f2 logs/app.log | sort | uniq -d",
    "cut -d' ' -f2 logs/app.log | sort | uniq -u",
    'tr a-z A-Z < nonl.txt',
    "tr -d '\\r' < crlf.txt",
    "tr -s ' ' < README.md",
    "echo hello world | tr ' ' '\\n'",
    'nl nonl.txt',
    'tac nonl.txt',
    'tac nonl.txt crlf.txt nosuch.txt',
    "printf 'a\\nb\\nc' | tac",
    'tac docs',
    'rev nonl.txt',
    'paste -sd, .gitignore',
    'sort -k2 logs/app.log | head -5',
    'sort README.md | uniq | wc -l',
    "awk -F, 'NR>1{print $3}' data/table.csv | sort | uniq -c | sort -k1,1nr -k2",
  ]),

  // sed
  ...C('sed', [
    "sed -n '1,5p' README.md",
    "sed -n '/TODO/p' README.md",
    "sed 's/needle/NEEDLE/g' logs/app.log",
    "sed '/^$/d' README.md",
    "sed -n '$p' logs/big.log",
    "sed 's/\\r$//' crlf.txt",
    "sed -n '2p' nonl.txt",
    "sed -E 's/^([0-9]+),([a-z]+)/\\2=\\1/' data/table.csv",
    "sed '1d' data/table.csv",
    "sed -n '10,20p' logs/big.log",
    "sed 's/^/> /' nonl.txt",
    "sed -n '/^## /=' docs/guide.md",
    'sed 3q README.md',
    "sed -e 's/a/A/' -e 's/e/E/' nonl.txt",
    "sed 's/x/y/' nosuch.txt",
  ]),

  // awk
  ...C('awk', [
    "awk '{print $1}' logs/app.log",
    "awk -F, '{print $2}' data/table.csv",
    "awk -F, 'NR>1{s+=$4} END{print s}' data/table.csv",
    "awk 'NR==3' README.md",
    "awk '/ERROR/{c++} END{print c+0}' logs/big.log",
    'awk \'{print NR": "$0}\' nonl.txt',
    "awk 'length > 40' README.md",
    "awk '{ print length }' README.md",
    "awk 'length' README.md | wc -l",
    "awk '/e/ { print length, length($1) }' README.md",
    "awk '{ n += length } END { print n }' README.md",
    "awk -F, '$4 > 50 {print $2, $4}' data/table.csv",
    "awk '{n+=NF} END{print n}' README.md",
    "awk 'END{print NR}' crlf.txt",
    'awk \'{printf "%-8s|%5d\\n", $3, NR}\' logs/app.log',
    "awk -F= '{print $1}' .env",
    "awk 'BEGIN{print 1/3}'",
    'awk \'{ $1 = ""; print }\' logs/app.log',
    "awk 'NF' README.md",
  ]),
  // The service's locale is C.UTF-8: character counts compare against GNU in C.UTF-8.
  ...C('awk', ["awk '{print length($0)}' 日本.txt"], { utf8: true }),
  ...C('wc', ['wc -m 日本.txt'], { utf8: true }),

  // jq
  ...C('jq', [
    "jq '.[0].name' data/items.json",
    "jq -r '.[].name' data/items.json",
    'jq length data/items.json',
    "jq '.[] | select(.ok) | .id' data/items.json",
    "jq -c 'map({id, size})' data/items.json",
    "jq 'map(.size) | add' data/items.json",
    'jq -r \'.[] | "\\(.id)\\t\\(.name)"\' data/items.json',
    "jq '.[0] | keys' data/items.json",
    'jq . data/items.json',
    "jq -r '.[0].tags[]' data/items.json",
    "jq '.foo' data/items.json",
    'jq . README.md',
    'echo \'{"a":1}\' | jq .a',
    "jq -n '1+2'",
    "jq -n --arg x 3 '$x'",
    "jq -c '.[] | {name}' data/items.json",
  ]),

  // xargs
  ...C('xargs', [
    "find . -name '*.md' | sort | xargs wc -l",
    'ls docs/*.md | xargs -n1 basename',
    'echo a b c | xargs -n1',
    "printf '%s\\n' README.md nonl.txt | xargs cat | wc -l",
    'echo README.md | xargs -I{} wc -c {}',
    "printf 'nonl.txt\\0empty.txt\\0' | xargs -0 wc -c",
    'echo a b c | xargs -n 2 echo X',
    "printf 'a b\\nc d\\n' | xargs -L1 echo L",
    "printf 'one\\ntwo\\n' | xargs -I % echo %-%",
    "printf 'one\\ntwo\\n' | xargs -i echo {}!",
    "printf 'a,b,c' | xargs -d, -n1 echo",
    'echo | xargs -r echo nothing',
    'echo | xargs echo empty',
    `echo "'quoted arg' \\"dq\\" back\\\\ slash" | xargs -n1 echo`,
    `echo "'unterminated" | xargs echo`,
    'echo a b | xargs -t echo T',
    'echo README.md nosuch.txt | xargs grep -c TODO',
    'echo x | xargs nosuchcmd',
    'echo x | xargs -n 0 echo',
    'echo a b c | xargs -E b echo',
    'ls docs | head -2 | xargs -I{} wc -l docs/{}',
  ]),

  // echo / printf / shell
  ...C('echo', [
    'echo hello',
    'echo -n hi',
    "echo -e 'a\\tb'",
    "printf '%s\\n' a b c",
    "printf '%05d|%-5s|\\n' 42 ab",
    "printf '%x\\n' 255",
    'echo $((3*7))',
    'echo {1..5}',
    'echo a{b,c}d',
    'x=5; echo ${x}0',
    'echo "a  b"',
    'echo *.txt',
    'echo docs/*',
    'echo "$PWD"',
    'printf "%s=%s\\n" k v',
    'printf "no newline"',
  ]),
  ...C('path', [
    'basename docs/guide.md',
    'basename docs/guide.md .md',
    'dirname "docs/notes/todo list.txt"',
    'dirname README.md',
    'pwd',
    'cd docs && pwd',
    'cd "docs/notes" && ls',
    'cd src; ls; cd ..; pwd',
    'cd nosuch',
  ]),

  // diff
  ...C('diff', [
    'diff README.md README.md',
    'diff docs/api.md docs/guide.md',
    'diff crlf.txt nonl.txt',
    'diff -q README.md docs/api.md',
    'diff nosuch README.md',
    'diff <(head -n 5 README.md) <(head -n 6 README.md)',
    'diff -u nonl.txt crlf.txt | tail -n +3',
    'diff -u docs/api.md docs/guide.md | tail -n +3',
    'diff -U1 README.md docs/api.md | tail -n +3',
    'diff -U 0 crlf.txt nonl.txt | tail -n +3',
    'diff nonl.txt empty.txt',
    'diff empty.txt nonl.txt',
    'diff -q README.md README.md; echo $?',
    'diff -s README.md README.md',
    'diff -i README.md README.md',
    'diff --strip-trailing-cr crlf.txt crlf.txt',
    "diff <(printf 'a\\nb\\nc\\nd\\n') <(printf 'a\\nB\\nc\\nd\\ne\\n')",
    "printf 'x\\ny\\n' | diff - nonl.txt",
    'diff README.md',
    'diff -w crlf.txt crlf.txt',
  ]),

  // test / [
  ...C('test', [
    'test -f README.md && echo yes',
    'test -d docs && echo dir',
    '[ -e nosuch ] || echo missing',
    'test -s empty.txt; echo $?',
    "[ -f 'my notes/draft one.md' ] && echo ok",
    'test -z "" && echo empty',
    '[ 3 -gt 2 ] && echo gt',
    '[ -d README.md ]; echo $?',
    'test -e docs/café.md && echo found',
  ]),

  // pipes, chains, redirections, errors
  ...C('pipeline', [
    'grep -rl TODO . | sort | head -5',
    'cat README.md | grep -c TODO',
    'grep -rn needle . 2>&1 | sort | head -3',
    'grep -rn needle . | cut -d: -f1 | sort -u',
    'cat logs/big.log | sort | uniq -c | sort -rn | head -3',
    'find . -type f | sort | tail -3',
    'cat data/items.json | jq length',
    'for f in docs/*.md; do wc -l "$f"; done',
    'grep -h TODO -r src | wc -l',
    'head -n 3 README.md | cat -n',
    'grep -c TODO README.md | xargs echo count:',
  ]),
  ...C('chain', [
    'ls docs && echo ok',
    'ls nosuch && echo ok || echo fail',
    'cat nosuch.txt 2>/dev/null || echo missing',
    'false; echo $?',
    'true && echo yes',
    'nosuchcmd',
    'nosuchcmd 2>/dev/null; echo $?',
    'grep -c TODO README.md || true',
    'head -n 1 README.md; tail -n 1 README.md',
    'cd src && grep -rn TODO . | sort',
    'cat nosuch.txt 2>&1',
    'ls nosuch 2>/dev/null; echo $?',
    'grep -q needle .env && echo found || echo none',
    'echo out; echo err >&2',
    'wc -l README.md > /dev/null && echo quiet',
  ]),
];

/** Run last, in order, on every tree: they change it (the same way in both). */
const MUTATING: Case[] = C('mutate', [
  'mkdir -p out/a && touch out/a/x.txt && ls out/a',
  'echo hi > out/new.txt && cat out/new.txt',
  'cp README.md out/r.md && wc -l out/r.md',
  'mv out/r.md out/s.md && ls out',
  'rm out/s.md && ls out',
  "sed -i 's/needle/NEEDLE/g' nonl.txt && cat nonl.txt",
  'echo more >> nonl.txt && tail -n 2 nonl.txt',
  'rm nosuch.txt',
  'mkdir docs',
  'rmdir build && ls -d build',
  'rm -r out && ls -d out',
  'echo x > nodir/f.txt',
  'cp -r docs docs2 && find docs2 -type f | sort | head -3',
  'touch empty.txt && cat empty.txt | wc -c',
  "find . -name '*.log' -delete && find . -name '*.log' | wc -l",
]);

/** Why commands differ from GNU today (the causes; KNOWN_MISMATCHES below maps commands to them). */
const WHY = {
  sort: 'sort does not compare bytes (LC_ALL=C / C.UTF-8): it collates like a locale (`notes 3.md` before `README.md`, `.env` before `*.log`), and ties under -n/-k are not broken by the whole line in byte order',
  uniqC: 'uniq -c pads the count to width 4 (GNU: 7)',
  wcWidth: 'wc with several files: column width from the largest count (GNU: from the total size of the files, e.g. 5 for 40 KB)',
  findMmin: 'find -mmin is an unknown predicate',
  findSize: 'find -size -N[k]: GNU rounds sizes up to whole units first (-1k = empty files only, -2 = up to 512 bytes); the service compares bytes',
  lsT: 'ls -t is accepted but ignored (name order, also with -r)',
  lsSlash: 'ls -l appends `/` to directory names',
  lsDots:
    "ls -la: `.` and `..` show size 0 and the epoch instead of the directory's own time; a date more than 6 months old shows HH:MM instead of the year (GNU `Jan  1  1970`)",
  lsOperands:
    'ls with several file operands: a blank line between them (and one at the end when an operand is missing); file operands are not sorted',
  lsH: 'ls -lh rounds sizes to nearest (2.0K) where GNU rounds up (2.1K)',
  headNeg: 'head -n -K / -c -K ("all but the last K") rejected: "invalid number"',
  headBytes: 'head -c cutting inside a UTF-8 character returns the bytes as Latin-1 mojibake (`æ¥æ`), not the bytes',
  tailPlusC: 'tail -c +K prints the last K bytes instead of starting at byte K',
  catDir: 'cat on a directory says "No such file or directory" (GNU "Is a directory")',
  statFormat:
    'stat -c: %y and %Y unsupported (printed literally); %a prints the type bits (100644); --format= rejected; %F says "regular file" for an empty file (GNU "regular empty file")',
  statLayout:
    'stat default layout is not GNU: no "IO Block: 4096   regular file", no Device/Inode/Links or Uid/Gid, mode `(100644/…)`, Modify in ISO form instead of `2026-01-02 03:04:05.678000000 +0000`',
  jqInvalid:
    'jq on a non-JSON file: exit 5 and "jq: parse error: Invalid JSON at position 0" (jq 1.6: exit 4, "parse error: Invalid numeric literal at line 1, column 2")',
  diffHunks:
    'between two very different files GNU cuts coarser hunks (it sets aside lines frequent in the other file, such as blank lines, before matching); we match them, so hunks are smaller and more numerous',
} as const;

/**
 * Commands that differ from GNU today, with the reason. A command here that starts to match is
 * reported as FIXED; a `different` command not here fails the test.
 */
const KNOWN_MISMATCHES: Record<string, string> = {
  'jq . README.md': WHY.jqInvalid,
  'diff docs/api.md docs/guide.md': WHY.diffHunks,
  'diff -u docs/api.md docs/guide.md | tail -n +3': WHY.diffHunks,
  'diff -U1 README.md docs/api.md | tail -n +3': WHY.diffHunks,
};

/** Per family: at least this many commands byte-identical / not `different` (measured, see docs/bash-compat.md). */
const FLOORS: Record<string, { identical: number; passing: number }> = {
  grep: { identical: 62, passing: 96 },
  find: { identical: 13, passing: 57 },
  ls: { identical: 37, passing: 52 },
  cat: { identical: 19, passing: 19 },
  head: { identical: 16, passing: 16 },
  tail: { identical: 15, passing: 15 },
  wc: { identical: 17, passing: 17 },
  stat: { identical: 10, passing: 13 },
  du: { identical: 6, passing: 10 },
  text: { identical: 29, passing: 31 },
  sed: { identical: 15, passing: 15 },
  awk: { identical: 20, passing: 20 },
  jq: { identical: 14, passing: 15 },
  xargs: { identical: 21, passing: 21 },
  echo: { identical: 16, passing: 16 },
  path: { identical: 8, passing: 9 },
  diff: { identical: 17, passing: 17 },
  test: { identical: 9, passing: 9 },
  pipeline: { identical: 11, passing: 11 },
  chain: { identical: 14, passing: 15 },
  mutate: { identical: 14, passing: 15 },
};
/** Overall: byte-identical share of the compared commands (measured 63.2% when written). */
const OVERALL_IDENTICAL_FLOOR = 0.75;

// ---- running ---------------------------------------------------------------------------------

type Klass = 'identical' | 'normalized' | 'set' | 'different';
const RANK: Record<Klass, number> = { identical: 3, normalized: 2, set: 1, different: 0 };

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number;
}

interface Outcome {
  c: Case;
  klass: Klass | 'skipped';
  /** The outputs of the (first) tree where it was worst, for the report. */
  gnu?: Run;
  svc?: Run;
  seed?: number;
}

const GNU_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC', LANG: 'C' };

function mapRoot(s: string, root: string): string {
  return s
    .split(root + '/')
    .join('/')
    .split(root)
    .join('/');
}

/**
 * Runs the cases with GNU tools, each as its own `bash -c CMD` (so messages read `bash: line 1:`
 * exactly as for a single command), batched into one script per tree to keep the suite fast.
 * Outputs go to `outDir`, outside the tree.
 */
async function runGnuBatch(cases: Case[], root: string, outDir: string): Promise<Run[]> {
  mkdirSync(outDir, { recursive: true });
  const q = (x: string) => `'${x.replace(/'/g, `'\\''`)}'`;
  const lines = [`cd ${q(root)} || exit 99`];
  cases.forEach((c, i) => {
    const o = join(outDir, String(i));
    const env = c.utf8 ? 'env LC_ALL=C.UTF-8 LANG=C.UTF-8 ' : '';
    lines.push(`${env}bash -c ${q(c.cmd.replaceAll('{R}', root))} >${q(o + '.out')} 2>${q(o + '.err')} </dev/null; echo $? >${q(o + '.rc')}`);
  });
  const child = spawn('bash', ['-c', lines.join('\n')], { env: { ...GNU_ENV, HOME: root }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 0, `GNU batch failed (${code}): ${err}`);
  return cases.map((_, i) => {
    const o = join(outDir, String(i));
    return {
      stdout: mapRoot(readFileSync(o + '.out').toString('utf8'), root),
      stderr: mapRoot(readFileSync(o + '.err').toString('utf8'), root),
      exitCode: Number(readFileSync(o + '.rc', 'utf8').trim()),
    };
  });
}

async function runService(s: TestServer, key: string, cmd: string): Promise<Run> {
  const r = await s.call(key, 'bash', { command: cmd.replaceAll('{R}', ''), cwd: '/' });
  if (r.isError || r.inner?.success !== true) {
    return { stdout: '', stderr: `<tool error ${r.inner?.error?.code}: ${r.inner?.error?.message}>`, exitCode: -1 };
  }
  return { stdout: r.inner.stdout, stderr: r.inner.stderr, exitCode: r.inner.exitCode };
}

function stderrShape(s: string): string {
  if (!s) return '';
  const first = s.split('\n')[0]!;
  const prefix = /^([A-Za-z0-9_.[-]+):/.exec(first)?.[1] ?? '?';
  const kind = /No such file or directory/.test(s)
    ? 'ENOENT'
    : /Is a directory/.test(s)
      ? 'EISDIR'
      : /Permission denied|Read-only/.test(s)
        ? 'EACCES'
        : '';
  return `${prefix}|${kind}`;
}

const sortedLines = (s: string) =>
  s
    .split('\n')
    .filter((l, i, a) => l !== '' || i < a.length - 1)
    .sort()
    .join('\n');

function classify(c: Case, gnu: Run, svc: Run): Klass {
  if (gnu.exitCode !== svc.exitCode || stderrShape(gnu.stderr) !== stderrShape(svc.stderr)) return 'different';
  const raw = gnu.stdout === svc.stdout && gnu.stderr === svc.stderr;
  if (raw && !c.fs) return 'identical';
  const n = c.norm ?? ((x: string) => x);
  const a = n(gnu.stdout);
  const b = n(svc.stdout);
  if (c.fs) return sortedLines(a) === sortedLines(b) ? 'set' : 'different';
  return a === b ? 'normalized' : 'different';
}

interface Mirror {
  tree: Tree;
  key: string;
  root: string;
}

/** Writes the tree into the service (as a fresh agent) and into root, with the service's mtimes. */
async function mirrorTree(s: TestServer, tree: Tree, base: string): Promise<Mirror> {
  const { apiKey: key } = await s.register(`Diff Tree ${tree.seed}`);
  const root = join(base, `t${tree.seed}`, 'root');
  mkdirSync(root, { recursive: true });
  let last = 0;
  for (const f of tree.files) {
    // Distinct mtimes, so `ls -t` and `-newer` have no ties to break.
    while (Date.now() <= last) await new Promise((r) => setTimeout(r, 1));
    const w = await s.ok(key, 'write', { path: '/' + f.path, content: f.content });
    last = Date.parse(w.updatedAt);
    const p = join(root, f.path);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, f.content);
  }
  for (const d of tree.emptyDirs) {
    await s.ok(key, 'mkdir', { path: '/' + d });
    mkdirSync(join(root, d), { recursive: true });
  }
  // Mirror every mtime the service reports (files and directories); then the root's (the epoch).
  const q = (p: string) => `'${p.replace(/'/g, `'\\''`)}'`;
  const touches: string[] = [];
  const seen = new Set<string>();
  for (let cursor: string | null = null; ;) {
    const page: any = await s.ok(key, 'list', { path: '/', recursive: true, ...(cursor ? { cursor } : {}) });
    for (const e of page.entries) {
      const ms = Date.parse(e.updatedAt);
      seen.add(e.path.slice(1));
      touches.push(`touch -m -d @${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')} -- ${q(e.path.slice(1))}`);
    }
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  for (const d of treeDirs(tree)) assert.ok(seen.has(d), `service lists directory ${d}`);
  for (const f of tree.files) assert.ok(seen.has(f.path), `service lists ${f.path}`);
  const rootSec = Number.parseInt((await s.ok(key, 'bash', { command: "stat -c '%Y' /" })).stdout.trim(), 10) || 0;
  touches.push(`touch -m -d @${rootSec} . ..`);
  const t = spawnSync('bash', ['-c', touches.join('\n')], { cwd: root, env: GNU_ENV, encoding: 'utf8' });
  assert.equal(t.status, 0, `touch: ${t.stderr}`);
  return { tree, key, root };
}

function gnuVersions(): string {
  const v = (cmd: string) => spawnSync('bash', ['-c', cmd], { encoding: 'utf8' }).stdout.split('\n')[0]?.trim() || 'missing';
  return [
    v('grep --version'),
    v('find --version'),
    v('ls --version'),
    v('awk --version'),
    v('sed --version'),
    v('jq --version'),
    hasTree ? v('tree --version') : 'tree: not installed',
  ].join('; ');
}

const have = (prog: string) => spawnSync('bash', ['-c', `command -v ${prog}`]).status === 0;
const hasTree = have('tree');

// ---- reporting -------------------------------------------------------------------------------

function firstDiff(a: string, b: string): string {
  const al = a.split('\n');
  const bl = b.split('\n');
  for (let i = 0; i < Math.max(al.length, bl.length); i++) {
    if (al[i] !== bl[i]) {
      const show = (x: string | undefined) => (x === undefined ? '<end>' : JSON.stringify(x.length > 100 ? x.slice(0, 100) + '…' : x));
      return `line ${i + 1}: gnu ${show(al[i])} / svc ${show(bl[i])}`;
    }
  }
  return '';
}

function explain(o: Outcome): string {
  const g = o.gnu!;
  const s = o.svc!;
  const parts: string[] = [];
  if (g.exitCode !== s.exitCode) parts.push(`exit gnu ${g.exitCode} / svc ${s.exitCode}`);
  if (stderrShape(g.stderr) !== stderrShape(s.stderr)) {
    parts.push(`stderr gnu ${JSON.stringify(g.stderr.slice(0, 120))} / svc ${JSON.stringify(s.stderr.slice(0, 120))}`);
  }
  const n = o.c.norm ?? ((x: string) => x);
  const a = o.c.fs ? sortedLines(n(g.stdout)) : n(g.stdout);
  const b = o.c.fs ? sortedLines(n(s.stdout)) : n(s.stdout);
  if (a !== b) parts.push(`stdout ${o.c.fs ? '(sorted) ' : ''}${firstDiff(a, b)}`);
  return parts.join('; ');
}

function table(outcomes: Outcome[]): string {
  const fams = [...new Set(outcomes.map((o) => o.c.family))];
  const rows = [
    '| family | commands | identical | normalized | same set | different | skipped | match rate | byte-identical |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const count = (xs: Outcome[], k: string) => xs.filter((o) => o.klass === k).length;
  const pct = (x: number, n: number) => (n ? `${((100 * x) / n).toFixed(1)}%` : '–');
  const row = (name: string, xs: Outcome[]) => {
    const [n, i, nz, st, d, k] = [
      xs.length,
      count(xs, 'identical'),
      count(xs, 'normalized'),
      count(xs, 'set'),
      count(xs, 'different'),
      count(xs, 'skipped'),
    ];
    return `| ${name} | ${n} | ${i} | ${nz} | ${st} | ${d} | ${k} | ${pct(i + nz + st, n - k)} | ${pct(i, n - k)} |`;
  };
  for (const f of fams)
    rows.push(
      row(
        f,
        outcomes.filter((o) => o.c.family === f),
      ),
    );
  rows.push(row('**all**', outcomes));
  return rows.join('\n');
}

function report(outcomes: Outcome[], versions: string, backend: string, trees: number): string {
  const lines: string[] = [];
  lines.push(`bash tool vs GNU (${backend}; ${trees} generated tree${trees === 1 ? '' : 's'}, worst class per command; ${versions})`, '');
  lines.push(table(outcomes), '');
  const diff = outcomes.filter((o) => o.klass === 'different');
  const byReason = new Map<string, Outcome[]>();
  for (const o of diff) {
    const reason = KNOWN_MISMATCHES[o.c.cmd] ?? 'NOT IN KNOWN_MISMATCHES';
    byReason.set(reason, [...(byReason.get(reason) ?? []), o]);
  }
  if (diff.length) {
    lines.push('Different, by cause:');
    for (const [reason, os] of [...byReason].sort((a, b) => b[1].length - a[1].length)) {
      lines.push(`- ${reason} (${os.length})`);
      for (const o of os) lines.push(`    [${o.c.family}] ${o.c.cmd.replaceAll('{R}', '')}  —  (tree ${o.seed}) ${explain(o)}`);
    }
    lines.push('');
  }
  const normalized = outcomes.filter((o) => o.klass === 'normalized');
  if (normalized.length) {
    lines.push('Equal only after normalization / by stderr shape:');
    for (const o of normalized)
      lines.push(
        `    [${o.c.family}] ${o.c.cmd.replaceAll('{R}', '')}${o.c.norm ? '' : '  —  stderr gnu ' + JSON.stringify(o.gnu!.stderr.slice(0, 90)) + ' / svc ' + JSON.stringify(o.svc!.stderr.slice(0, 90))}`,
      );
    lines.push('');
  }
  const skipped = outcomes.filter((o) => o.klass === 'skipped');
  if (skipped.length) lines.push(`Skipped (GNU program not installed): ${skipped.map((o) => o.c.cmd).join(' · ')}`, '');
  return lines.join('\n');
}

// ---- the suite -------------------------------------------------------------------------------

// See normalization 2: the service's `ls -l` formats times in the process's local zone.
process.env.TZ = 'UTC';

const TREE_SEEDS = [11, 29, 47];

for (const backend of backends()) {
  // The first backend runs every tree and owns the report, the floors and the FIXED notices. The
  // others (the commands run the same; only the store under StoreFs differs) run the first tree
  // only, to keep the suite fast, and must show no mismatch outside KNOWN_MISMATCHES.
  // BASH_DIFF_FULL=1 runs every tree everywhere.
  const full = backend === backends()[0] || process.env.BASH_DIFF_FULL === '1';
  const seeds = full ? TREE_SEEDS : TREE_SEEDS.slice(0, 1);
  describe(`bash vs GNU, differential (${backend}${full ? '' : ', first tree only'})`, () => {
    let s: TestServer;
    let base: string;
    const mirrors: Mirror[] = [];
    before(async () => {
      s = await startServer(backend);
      base = mkdtempSync(join(tmpdir(), 'bash-diff-'));
      mirrors.push(...(await Promise.all(seeds.map((seed) => mirrorTree(s, generateTree(seed), base)))));
    });
    after(async () => {
      await s?.close();
      if (base) rmSync(base, { recursive: true, force: true });
    });

    it('the trees are what the suite needs (sizes, dotfiles, unicode, spaces, empty, CRLF, no final newline)', () => {
      for (const m of mirrors) {
        const paths = m.tree.files.map((f) => f.path);
        assert.ok(paths.length >= 50 && paths.length <= 150, `${paths.length} files`);
        assert.ok(
          paths.some((p) => p.split('/').length >= 4),
          'nested',
        );
        assert.ok(paths.includes('.env') && paths.includes('.github/workflows/ci.yml'), 'dotfiles');
        assert.ok(paths.includes('docs/café.md') && paths.includes('日本.txt'), 'unicode');
        assert.ok(
          paths.some((p) => p.includes(' ')),
          'spaces',
        );
        assert.ok(
          m.tree.files.some((f) => f.content === ''),
          'empty',
        );
        assert.ok(
          m.tree.files.some((f) => f.content.includes('\r\n')),
          'CRLF',
        );
        assert.ok(
          m.tree.files.some((f) => f.content !== '' && !f.content.endsWith('\n')),
          'no final newline',
        );
        assert.ok(
          m.tree.files.some((f) => f.content.split('\n').length > 300),
          'long file',
        );
      }
      assert.ok(CASES.length + MUTATING.length >= 200, `${CASES.length + MUTATING.length} commands`);
      assert.equal(new Set([...CASES, ...MUTATING].map((c) => c.cmd)).size, CASES.length + MUTATING.length, 'commands are unique');
    });

    it('GNU and the service agree (per-family floors; every difference is a known one)', async () => {
      const dump: unknown[] = [];
      const runnable = [...CASES, ...MUTATING].filter((c) => !c.needs || have(c.needs));
      // Per tree: GNU (a child process) and the service run side by side; the trees in parallel.
      // The mutating cases run after the others, in order, on both sides.
      const perTree = await Promise.all(
        mirrors.map(async (m) => {
          const svc: Run[] = [];
          const gnu: Run[] = [];
          for (const [phase, cases] of [
            ['read', runnable.filter((c) => c.family !== 'mutate')],
            ['mutate', runnable.filter((c) => c.family === 'mutate')],
          ] as const) {
            const g = runGnuBatch(cases, m.root, join(base, `out-${m.tree.seed}-${phase}`));
            for (const c of cases) svc.push(await runService(s, m.key, c.cmd));
            gnu.push(...(await g));
          }
          return { m, svc, gnu };
        }),
      );
      const ordered = [...runnable.filter((c) => c.family !== 'mutate'), ...runnable.filter((c) => c.family === 'mutate')];
      const outcomes: Outcome[] = [];
      for (const c of [...CASES, ...MUTATING]) {
        const i = ordered.indexOf(c);
        if (i === -1) {
          outcomes.push({ c, klass: 'skipped' });
          continue;
        }
        let worst: Outcome | null = null;
        for (const t of perTree) {
          const gnu = t.gnu[i]!;
          const svc = t.svc[i]!;
          const klass = classify(c, gnu, svc);
          if (process.env.BASH_DIFF_DUMP) dump.push({ cmd: c.cmd, seed: t.m.tree.seed, klass, gnu, svc });
          if (!worst || RANK[klass] < RANK[worst.klass as Klass]) worst = { c, klass, gnu, svc, seed: t.m.tree.seed };
        }
        outcomes.push(worst!);
      }
      if (process.env.BASH_DIFF_DUMP) writeFileSync(process.env.BASH_DIFF_DUMP, JSON.stringify(dump, null, 1));

      const versions = gnuVersions();
      const text = report(outcomes, versions, backend, seeds.length);
      console.log('\n' + text);
      if (process.env.WRITE_BASH_COMPAT === '1' && backend === backends()[0]) writeCompatDoc(outcomes, versions);

      // Commands needing a GNU program missing where this allowlist was written (tree) are
      // reported when they differ but never fail: their allowlist could not be checked.
      const unexpected = outcomes.filter((o) => o.klass === 'different' && !(o.c.cmd in KNOWN_MISMATCHES) && !o.c.needs);
      const fixed = outcomes.filter((o) => o.klass !== 'different' && o.klass !== 'skipped' && o.c.cmd in KNOWN_MISMATCHES);
      if (fixed.length && full) {
        console.log(`FIXED (now matching GNU; remove from KNOWN_MISMATCHES):\n${fixed.map((o) => `    ${o.c.cmd}  [${o.klass}]`).join('\n')}`);
      }
      const stale = Object.keys(KNOWN_MISMATCHES).filter((cmd) => !outcomes.some((o) => o.c.cmd === cmd));
      assert.deepEqual(stale, [], 'KNOWN_MISMATCHES names only commands of this suite');
      assert.deepEqual(
        unexpected.map((o) => `${o.c.cmd}  —  ${explain(o)}`),
        [],
        'commands that differ from GNU and are not in KNOWN_MISMATCHES (a regression, or a new mismatch to list with its reason)',
      );
      if (!full) return;
      if (process.env.BASH_COMPAT_STRICT === '1')
        assert.deepEqual(
          fixed.map((o) => o.c.cmd),
          [],
          'fixed: remove from KNOWN_MISMATCHES',
        );
      for (const [family, floor] of Object.entries(FLOORS)) {
        const xs = outcomes.filter((o) => o.c.family === family);
        const identical = xs.filter((o) => o.klass === 'identical').length;
        const passing = xs.filter((o) => o.klass !== 'different' && o.klass !== 'skipped').length;
        assert.ok(identical >= floor.identical, `${family}: ${identical} byte-identical < floor ${floor.identical}`);
        assert.ok(passing >= floor.passing, `${family}: ${passing} matching < floor ${floor.passing}`);
      }
      const compared = outcomes.filter((o) => o.klass !== 'skipped' && !o.c.needs);
      const rate = compared.filter((o) => o.klass === 'identical').length / compared.length;
      assert.ok(rate >= OVERALL_IDENTICAL_FLOOR, `byte-identical ${(100 * rate).toFixed(1)}% < ${100 * OVERALL_IDENTICAL_FLOOR}%`);
    });
  });
}

function writeCompatDoc(outcomes: Outcome[], versions: string): void {
  const header = readHeaderDoc();
  const body = report(outcomes, versions, 'generated by test/slow/bash-diff.test.ts with WRITE_BASH_COMPAT=1', TREE_SEEDS.length);
  const esc = (x: string) => x.replaceAll('{R}', '').replaceAll('|', '\\|');
  const all = ['| family | command | class | cause |', '|---|---|---|---|'];
  for (const o of outcomes)
    all.push(`| ${o.c.family} | \`${esc(o.c.cmd)}\` | ${o.klass} | ${o.klass === 'different' ? esc(KNOWN_MISMATCHES[o.c.cmd] ?? '?') : ''} |`);
  writeFileSync('docs/bash-compat.md', `${header}\n\`\`\`\n${body}\n\`\`\`\n\n## Every command\n\n${all.join('\n')}\n`);
}

function readHeaderDoc(): string {
  return [
    '# bash tool: compatibility with GNU tools',
    '',
    'Generated by `WRITE_BASH_COMPAT=1 node scripts/run-tests.mjs bash-diff` (test/slow/bash-diff.test.ts). The same command runs in',
    'the service (`cwd: /`) and with GNU tools (`bash -c`, `LC_ALL=C TZ=UTC`) over the same generated trees; see the',
    "test file's header for the classes and the (few) normalizations. `different` commands are the known mismatches,",
    'grouped by cause.',
    '',
  ].join('\n');
}

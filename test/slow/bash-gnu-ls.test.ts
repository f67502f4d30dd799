/**
 * `ls`, `stat` and `du` in the bash tool against GNU coreutils (src/gnu/ls, stat, du).
 *
 * A generated tree (test/helpers/trees.ts, seed 29) plus a `sizes/` directory of files with
 * chosen byte counts (for -h rounding: 1023, 1024, 2049, 10239, 10241, …) is written into the
 * service (first backend) and into a temp directory; the temp tree gets the service's mtimes
 * (`touch -m -d @sec.ms`, millisecond precision as the store keeps), its root and the root's
 * parent the epoch (the service's root mtime). Each command runs through the `bash` tool with
 * `cwd: /` and as `bash -c CMD` in the temp root with `LC_ALL=C TZ=UTC`; stdout, stderr and
 * the exit code must be byte-identical after these normalizations, and only these (they cover
 * what a store cannot have; see src/gnu/kit/file-info.ts for the values the service uses):
 *   owner   GNU's owner/group (whoever runs the test: `root root`, uid/gid 0) become the service's
 *           `agent agent` / `1000 1000` in `ls -l`/-n/-g/-o lines and in stat's %U %G %u %g;
 *   ..      the root's `..` (`ls -la /`) is the temp root's parent for GNU, the root itself in
 *           the service: the link count of every `..` line in a long listing is not compared
 *           (the column width is; the temp base gets mode 755 like the service's root);
 *   stat    the default layout's Device, Inode, Uid/Gid values and the Access (time), Change and
 *           Birth lines (the store has no device, inode, atime, ctime or birth time);
 *   order   `du` lists a directory's entries in readdir order (ext4: hash order); the service in
 *           byte order: multi-line du outputs compare as sorted lines (sizes and names exact).
 * GNU's directory sizes are assumed to be 4096 (ext4 and most disk filesystems); on tmpfs the
 * suite is skipped. Link counts of directories are 2 + subdirectories on both sides.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { STAT_COMMANDS } from './bash-diff-cases.js';
import { gnu, listTree, mirrorTimes, requireGnu } from '../helpers/gnu-oracle.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { generateTree } from '../helpers/trees.js';

type Norm = 'sorted';
interface Case {
  cmd: string;
  norm?: Norm;
}

const LS = [
  'ls',
  'ls -a',
  'ls -A',
  'ls -1',
  'ls -1 docs',
  'ls -a docs',
  'ls -R docs',
  'ls -R',
  'ls -t',
  'ls -1t logs',
  'ls -S logs',
  'ls -Sr logs',
  'ls -r',
  'ls -1r src',
  'ls -rt',
  'ls -d docs',
  'ls -d .*',
  'ls docs src',
  'ls nosuch',
  'ls README.md',
  "ls 'my notes'",
  'ls /docs',
  'ls *.md',
  'ls docs/*.md',
  'ls -1a .github',
  'ls .hidden',
  'ls -R .github',
  'ls empty.txt nonl.txt',
  'ls docs nosuch',
  'ls nosuch1 README.md nosuch2',
  'ls | wc -l',
  'ls -l',
  'ls -la',
  'ls -la /',
  'ls -l docs',
  'ls -la docs',
  'ls -lt docs',
  'ls -lS logs',
  'ls -lh logs',
  'ls -lah',
  'ls -ld docs',
  'ls -l README.md',
  'ls -ltr',
  'ls -lR docs',
  'ls -lhS logs',
  'ls -l empty.txt nonl.txt crlf.txt',
  'ls -lh sizes',
  'ls -lhS sizes',
  'ls -lhr sizes',
  'ls -sh sizes',
  'ls -s sizes',
  'ls -F',
  'ls -p docs',
  'ls -lF docs',
  'ls -ld docs/',
  'ls docs/',
  'ls -R docs/',
  'ls -d docs/ src',
  'ls README.md/',
  'ls -ld . ..',
  'ls -aR .github',
  'ls -n docs',
  'ls -g docs',
  'ls -o docs',
  'ls -lG docs',
  'ls --full-time docs',
  'ls -l --time-style=long-iso docs',
  'ls -m docs',
  'ls -C',
  'ls -x',
  'ls -C -w 40 docs',
  'ls -X',
  'ls --group-directories-first',
  'ls -Q docs',
  'ls -b docs',
  "ls -I '*.md' docs",
  'ls -1 --sort=size logs',
  'ls -z',
  'ls --bogus',
  'ls --al',
  'ls --sort=bogus',
  'ls -la sizes',
  'ls -R sizes',
  'ls -lR',
  'cd docs && ls -la ..',
];
const STAT = [
  ...STAT_COMMANDS,
  'stat README.md',
  'stat docs',
  'stat empty.txt',
  "stat 'my notes'",
  'stat docs/café.md',
  "stat --printf='%n\\t%s\\n' README.md docs",
  "stat -c '%U %G %u %g %h %b %B %o' README.md docs",
  "stat -c '%N' 'my notes' docs/café.md README.md",
  "stat -c '%10s|%-10s|%05s|' README.md",
  "stat -c '%.3y %.0Y' README.md",
  'stat',
  'stat -c',
  'stat --bogus x',
  'stat nosuch README.md',
  'stat -c %a docs',
  "stat -c '%#a %f' README.md docs",
  'stat -c %h docs src',
  'stat -c %s sizes/*',
  'stat /',
  "stat -c '%n %F %s' /dev/null",
];
const DU_EXACT = [
  'du -s docs',
  'du -sh docs',
  'du -sh .',
  'du -sh *',
  'du -s docs src logs',
  'du nosuch',
  'du -sc docs src',
  'du -b README.md',
  'du --apparent-size -s docs',
  'du -sb docs',
  'du README.md',
  'du README.md README.md',
  'du -sm docs',
  'du -as docs',
  'du -sh nosuch docs',
  'du -h sizes/*',
  'du --apparent-size -h sizes/*',
  'du -sh sizes',
  'du -c sizes/*',
  'du -s /',
];
const DU_SORTED = [
  'du -a docs',
  'du -h docs',
  'du -ah src',
  'du',
  'du -a .',
  'du -c docs src',
  'du --apparent-size docs',
  'du -d 1',
  'du --max-depth=1 -h',
  'du docs/',
  'du -a docs/',
  'du docs .',
  'du . docs',
  'du -S docs',
  'du -k logs',
  "du --exclude='*.md' -a docs",
  'du -ab sizes',
  'du -a /docs',
];

const CASES: Case[] = [
  ...LS.map((cmd) => ({ cmd })),
  ...STAT.map((cmd) => ({ cmd })),
  ...DU_EXACT.map((cmd) => ({ cmd })),
  ...DU_SORTED.map((cmd) => ({ cmd, norm: 'sorted' as const })),
];

const SIZES = [0, 1, 1023, 1024, 1025, 2049, 4096, 4097, 10239, 10240, 10241, 102400, 123456, 200000];

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Replaces the runner's owner and group with the service's fixed ones (see the header). */
function owners(s: string): string {
  const user = spawnSync('id', ['-un'], { encoding: 'utf8' }).stdout.trim();
  const group = spawnSync('id', ['-gn'], { encoding: 'utf8' }).stdout.trim();
  const uid = spawnSync('id', ['-u'], { encoding: 'utf8' }).stdout.trim();
  const gid = spawnSync('id', ['-g'], { encoding: 'utf8' }).stdout.trim();
  const esc = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return s
    .split('\n')
    .map((l) => {
      // ls -l / -n / -g / -o / -G lines: mode, links, then owner and/or group
      const m = /^(\S{10} +\d+ )(.*)$/.exec(l);
      if (m) {
        let rest = m[2]!;
        rest = rest.replace(new RegExp(`^${esc(user)} ${esc(group)} `), 'agent agent ');
        rest = rest.replace(new RegExp(`^${esc(uid)} ${esc(gid)} `), '1000 1000 ');
        rest = rest.replace(new RegExp(`^${esc(user)} (?=\\s*\\S+ \\S{3} )`), 'agent ');
        return m[1] + rest;
      }
      return l;
    })
    .join('\n');
}

function normalize(c: Case, r: Run, gnu: boolean): Run {
  let out = r.stdout;
  if (gnu) {
    out = owners(out);
    if (/^stat -c '%U/.test(c.cmd)) out = out.replace(/^\S+ \S+ \d+ \d+ /gm, 'agent agent 1000 1000 ');
  }
  // stat's default layout: the values the store cannot have
  out = out
    .replace(/^Device: .*\tInode: \d+ +Links: (\d+)$/gm, 'Device: <dev>\tInode: <ino> Links: $1')
    .replace(/Uid: \([^)]*\) {3}Gid: \([^)]*\)$/gm, 'Uid: <uid>   Gid: <gid>')
    .replace(/^Access: \d{4}-.*$/gm, 'Access: <atime>')
    .replace(/^Change: .*$/gm, 'Change: <ctime>')
    .replace(/^ Birth: .*$/gm, ' Birth: <btime>');
  out = out.replace(/^(d\S{9})( +\d+)( .* \.\.)$/gm, (_, a: string, n: string, b: string) => a + 'N'.padStart(n.length, ' ') + b);
  if (c.norm === 'sorted') out = out.split('\n').sort().join('\n');
  return { ...r, stdout: out };
}

describe('ls / stat / du vs GNU coreutils', () => {
  let s: TestServer;
  let key: string;
  let base: string;
  let root: string;
  let skip: string | false = false;

  before(async () => {
    requireGnu(['bash', 'ls']);
    base = mkdtempSync(join(tmpdir(), 'gnu-ls-'));
    root = join(base, 'root');
    mkdirSync(root);
    chmodSync(base, 0o755); // GNU shows the root's `..`: the same mode as the service's root
    const probe = join(base, 'probe');
    mkdirSync(probe);
    if (statSync(probe).size !== 4096) skip = `directories in ${tmpdir()} are not 4096 bytes (tmpfs?)`;
    rmSync(probe, { recursive: true });
    if (skip) return;

    s = await startServer(backends()[0]!);
    key = (await s.register('GNU ls Agent')).apiKey;
    const tree = generateTree(29);
    const files = [...tree.files, ...SIZES.map((n) => ({ path: `sizes/s${String(n).padStart(6, '0')}`, content: 'x'.repeat(n) }))];
    for (const f of files) {
      await s.ok(key, 'write', { path: '/' + f.path, content: f.content });
      const p = join(root, f.path);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, f.content);
    }
    for (const d of tree.emptyDirs) {
      await s.ok(key, 'mkdir', { path: '/' + d });
      mkdirSync(join(root, d), { recursive: true });
    }
    mirrorTimes(root, await listTree(s, key));
  });

  after(async () => {
    await s?.close();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it(`covers at least 40 invocations (${CASES.length})`, () => {
    assert.ok(CASES.length >= 40);
    assert.equal(new Set(CASES.map((c) => c.cmd)).size, CASES.length, 'unique commands');
  });

  for (const c of CASES) {
    it(c.cmd, async (t) => {
      if (skip) return t.skip(skip);
      const g = gnu(c.cmd.replace(/(^| )\/(?=docs|\s|$)/g, '$1{R}/'), root);
      const gnuRun: Run = { stdout: g.stdout, stderr: g.stderr, exitCode: g.exitCode };
      const r = await s.call(key, 'bash', { command: c.cmd, cwd: '/' });
      assert.equal(r.inner?.success, true, JSON.stringify(r.body).slice(0, 300));
      const svc: Run = { stdout: r.inner.stdout, stderr: r.inner.stderr, exitCode: r.inner.exitCode };
      assert.deepEqual(normalize(c, svc, false), normalize(c, gnuRun, true));
    });
  }
});

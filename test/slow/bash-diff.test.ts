/**
 * The bash tool against GNU: a differential suite (docs/contract/files.md#the-tools, "The bash tool").
 *
 * Seeded trees (test/helpers/trees.ts: nested dirs, dotfiles and dot-dirs, unicode names, names
 * with spaces, empty files, CRLF files, files without a final newline, a few hundred lines in
 * some) are written both into the service (one agent per tree, one `write` per file) and into a
 * temp directory. Every command below runs in both: in the service with `cwd: '/'`, and with GNU
 * tools as `bash -c CMD` in the temp directory with `LC_ALL=C TZ=UTC` (byte-order sorting, UTC
 * dates): test/helpers/gnu-oracle.ts, which also holds the GNU versions and the rule when the host's differ. Commands use relative paths, so outputs can be compared byte for byte.
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
 * GNU's programs are checked first (requireGnu in gnu-oracle.ts: the versions there, or the suite
 * fails naming what it found; GNU_ORACLE_VERSIONS=any compares anyway). `tree` is optional: when
 * it is not installed its commands are reported as skipped (test/bash.test.ts checks tree
 * against hand-checked outputs).
 *
 * Backends: the first one runs all three trees and owns the floors and FIXED notices; the
 * others run the first tree only (BASH_DIFF_FULL=1: all) and must show no unlisted mismatch.
 * GNU runs as one batch script per tree (a `bash -c` per command) beside the service calls.
 * Every command is a test of its own under its group (bash-diff-cases.ts), so a failure names it.
 *
 * Output: the per-family table (console.log, shows in the test output); BASH_COMPAT_JSON=path
 * saves the report's rows (scripts/bash-compat.mjs renders docs/bash-compat.md from them:
 * `npm run bash-compat`). BASH_DIFF_DUMP=path writes every run's raw outputs as JSON.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { gnuBatch, listTree, mirrorTimes, requireGnu, type GnuCheck } from '../helpers/gnu-oracle.js';
import { classify, explain, RANK, rates, summary, type Klass, type Report, type Row, type Run } from '../helpers/gnu-report.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { generateTree, treeDirs, type Tree } from '../helpers/trees.js';
import { CASES, FLOORS, KNOWN_MISMATCHES, MUTATING, OVERALL_IDENTICAL_FLOOR, type Case } from './bash-diff-cases.js';

const ALL = [...CASES, ...MUTATING];
const groupOf = (c: Case) => c.group ?? c.family;

interface Outcome {
  c: Case;
  klass: Klass | 'skipped';
  /** The outputs of the (first) tree where it was worst, for the report. */
  gnu?: Run;
  svc?: Run;
  seed?: number;
}

async function runService(s: TestServer, key: string, cmd: string): Promise<Run> {
  const r = await s.call(key, 'bash', { command: cmd.replaceAll('{R}', ''), cwd: '/' });
  if (r.isError || r.inner?.success !== true) {
    return { stdout: '', stderr: `<tool error ${r.inner?.error?.code}: ${r.inner?.error?.message}>`, exitCode: -1 };
  }
  return { stdout: r.inner.stdout, stderr: r.inner.stderr, exitCode: r.inner.exitCode };
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
  const listing = await listTree(s, key);
  const seen = new Set(listing.entries.map((e) => e.path.slice(1)));
  for (const d of treeDirs(tree)) assert.ok(seen.has(d), `service lists directory ${d}`);
  for (const f of tree.files) assert.ok(seen.has(f.path), `service lists ${f.path}`);
  mirrorTimes(root, listing);
  return { tree, key, root };
}

/** Runs every case on every tree, on both sides; the mutating ones last, in order. Worst class per command. */
async function compareAll(s: TestServer, mirrors: Mirror[], base: string, gnuCheck: GnuCheck): Promise<Outcome[]> {
  const runnable = ALL.filter((c) => !c.needs || !gnuCheck.missing.has(c.needs));
  const phases = [runnable.filter((c) => c.family !== 'mutate'), runnable.filter((c) => c.family === 'mutate')];
  // Per tree: GNU (a child process) and the service run side by side; the trees in parallel.
  const perTree = await Promise.all(
    mirrors.map(async (m) => {
      const svc: Run[] = [];
      const gnu: Run[] = [];
      for (const [i, cases] of phases.entries()) {
        const g = gnuBatch(
          cases.map((c) => ({ cmd: c.cmd, locale: c.utf8 ? ('C.UTF-8' as const) : ('C' as const) })),
          m.root,
          join(base, `out-${m.tree.seed}-${i}`),
        );
        for (const c of cases) svc.push(await runService(s, m.key, c.cmd));
        gnu.push(...(await g));
      }
      return { m, svc, gnu };
    }),
  );
  const ordered = phases.flat();
  const dump: unknown[] = [];
  const outcomes = ALL.map((c): Outcome => {
    const i = ordered.indexOf(c);
    if (i === -1) return { c, klass: 'skipped' };
    let worst: Outcome | null = null;
    for (const t of perTree) {
      const [gnu, svc] = [t.gnu[i]!, t.svc[i]!];
      const klass = classify(c, gnu, svc);
      if (process.env.BASH_DIFF_DUMP) dump.push({ cmd: c.cmd, seed: t.m.tree.seed, klass, gnu, svc });
      if (!worst || RANK[klass] < RANK[worst.klass as Klass]) worst = { c, klass, gnu, svc, seed: t.m.tree.seed };
    }
    return worst!;
  });
  if (process.env.BASH_DIFF_DUMP) writeFileSync(process.env.BASH_DIFF_DUMP, JSON.stringify(dump, null, 1));
  return outcomes;
}

function rowOf(o: Outcome): Row {
  const row: Row = { group: groupOf(o.c), family: o.c.family, cmd: o.c.cmd, klass: o.klass, ...(o.c.needs ? { optional: true } : {}) };
  if (o.klass === 'different') Object.assign(row, { cause: KNOWN_MISMATCHES[o.c.cmd] ?? null, detail: explain(o.c, o.gnu!, o.svc!), seed: o.seed });
  if (o.klass === 'normalized')
    row.how = o.c.norm
      ? 'declared normalizer'
      : `stderr gnu ${JSON.stringify(o.gnu!.stderr.slice(0, 90))} / svc ${JSON.stringify(o.svc!.stderr.slice(0, 90))}`;
  return row;
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
    let rows: Row[] = [];
    const mirrors: Mirror[] = [];
    const outcome = new Map<Case, Outcome>();
    before(async () => {
      const gnuCheck = requireGnu(['bash', 'grep', 'find', 'xargs', 'ls', 'awk', 'sed', 'diff', 'jq', 'tree']);
      s = await startServer(backend);
      base = mkdtempSync(join(tmpdir(), 'bash-diff-'));
      mirrors.push(...(await Promise.all(seeds.map((seed) => mirrorTree(s, generateTree(seed), base)))));
      const outcomes = await compareAll(s, mirrors, base, gnuCheck);
      for (const o of outcomes) outcome.set(o.c, o);
      rows = outcomes.map(rowOf);
      const report: Report = {
        title: `bash tool vs GNU (${backend}; ${seeds.length} generated tree${seeds.length === 1 ? '' : 's'}, worst class per command)`,
        versions: gnuCheck.summary,
        rows,
      };
      console.log('\n' + summary(report));
      if (process.env.BASH_COMPAT_JSON && backend === backends()[0]) writeFileSync(process.env.BASH_COMPAT_JSON, JSON.stringify(report));
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
      assert.ok(ALL.length >= 600, `${ALL.length} commands`);
      assert.equal(new Set(ALL.map((c) => c.cmd)).size, ALL.length, 'commands are unique');
      const stale = Object.keys(KNOWN_MISMATCHES).filter((cmd) => !ALL.some((c) => c.cmd === cmd));
      assert.deepEqual(stale, [], 'KNOWN_MISMATCHES names only commands of this suite');
    });

    // One test per command, under its group: a difference not in KNOWN_MISMATCHES fails it (a
    // regression, or a new mismatch to list with its reason); a listed one that matches now is
    // FIXED (it fails only with BASH_COMPAT_STRICT=1, on the backend that runs every tree).
    for (const group of new Set(ALL.map(groupOf))) {
      describe(group, () => {
        for (const c of ALL.filter((x) => groupOf(x) === group)) {
          it(c.cmd.replaceAll('{R}', ''), (t) => {
            const o = outcome.get(c);
            assert.ok(o, 'the comparison ran');
            if (o.klass === 'skipped') return t.skip(`${c.needs} is not installed`);
            const known = KNOWN_MISMATCHES[c.cmd];
            if (o.klass === 'different') {
              if (known) return t.todo(`known mismatch: ${known}`);
              assert.fail(`differs from GNU (tree ${o.seed}): ${explain(c, o.gnu!, o.svc!)}`);
            }
            if (known && full) {
              console.log(`FIXED (now ${o.klass}; remove from KNOWN_MISMATCHES): ${c.cmd}`);
              if (process.env.BASH_COMPAT_STRICT === '1') assert.fail('fixed: remove it from KNOWN_MISMATCHES');
            }
          });
        }
      });
    }

    it('per-family floors and the overall byte-identical share hold', (t) => {
      if (!full) return t.skip('the floors are checked on the backend that runs every tree');
      for (const [family, floor] of Object.entries(FLOORS)) {
        const xs = rows.filter((o) => o.family === family);
        const identical = xs.filter((o) => o.klass === 'identical').length;
        const passing = xs.filter((o) => o.klass !== 'different' && o.klass !== 'skipped').length;
        assert.ok(identical >= floor.identical, `${family}: ${identical} byte-identical < floor ${floor.identical}`);
        assert.ok(passing >= floor.passing, `${family}: ${passing} matching < floor ${floor.passing}`);
      }
      const r = rates(rows.filter((o) => !o.optional));
      assert.ok(r.identical >= OVERALL_IDENTICAL_FLOOR, `byte-identical ${(100 * r.identical).toFixed(1)}% < ${100 * OVERALL_IDENTICAL_FLOOR}%`);
    });
  });
}

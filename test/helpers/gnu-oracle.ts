/**
 * The GNU oracle of every differential suite (test/slow/bash-diff, bash-gnu-ls, bash-gnu-text,
 * bash-grep; test/bash-commands' od): how GNU runs, which versions the expected behaviour was
 * written against, and the one rule when the host's differ.
 *
 * How GNU runs: `bash --norc --noprofile -c CMD` in a directory holding a copy of the tree, with
 * only PATH, HOME (that directory), TZ=UTC and the locale in the environment (C, byte order, for
 * the coreutils suites; C.UTF-8, the service's own locale, for grep and for character counts),
 * stdin empty. Outputs are read as bytes; the directory's path in them reads as `/`.
 *
 * Versions: GNU_VERSIONS below, the only place they are written. A suite calls requireGnu()
 * with the programs it compares against, before anything else. The rule: every one must be
 * installed and report the version listed, else the suite fails at once naming what it found
 * (another grep or coreutils changes messages and corner cases, and the failures would read as
 * the service's). GNU_ORACLE_VERSIONS=any compares against whatever is installed instead, with
 * a warning naming the differences. A program listed as optional (tree) may be missing: its
 * commands are then reported as skipped; installed, it obeys the same rule.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestServer } from './server.js';

/** The first line of `PROG --version` each suite's expectations were written against (Debian 12). */
export const GNU_VERSIONS = {
  bash: 'GNU bash, version 5.2.15',
  grep: 'grep (GNU grep) 3.8',
  find: 'find (GNU findutils) 4.9.0',
  xargs: 'xargs (GNU findutils) 4.9.0',
  ls: 'ls (GNU coreutils) 9.1',
  od: 'od (GNU coreutils) 9.1',
  awk: 'GNU Awk 5.2.1',
  sed: 'sed (GNU sed) 4.9',
  diff: 'diff (GNU diffutils) 3.8',
  jq: 'jq-1.6',
  tree: 'tree v2.1.0',
} as const;

export type GnuProgram = keyof typeof GNU_VERSIONS;

/** Programs whose absence skips their commands instead of failing the suite. */
const OPTIONAL: ReadonlySet<GnuProgram> = new Set(['tree']);

export const have = (prog: string): boolean => spawnSync('bash', ['-c', `command -v ${prog}`]).status === 0;

/** The first line of `prog --version`, or null when prog is not installed. */
export function versionOf(prog: string): string | null {
  if (!have(prog)) return null;
  const r = spawnSync(prog, ['--version'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' } });
  return (r.stdout || r.stderr).split('\n')[0]!.trim();
}

export interface GnuCheck {
  /** Program → the version line found ('not installed' when missing). */
  found: Record<string, string>;
  /** The optional programs that are missing: their commands are skipped. */
  missing: Set<string>;
  /** One line for reports: the versions compared against. */
  summary: string;
}

/**
 * The rule (see the header): the programs at the listed versions, or a thrown Error naming
 * what was found; GNU_ORACLE_VERSIONS=any turns a mismatch into a warning.
 */
export function requireGnu(programs: readonly GnuProgram[]): GnuCheck {
  const found: Record<string, string> = {};
  const missing = new Set<string>();
  const wrong: string[] = [];
  for (const p of programs) {
    const v = versionOf(p);
    found[p] = v ?? 'not installed';
    if (v === null && OPTIONAL.has(p)) missing.add(p);
    else if (v === null || !v.startsWith(GNU_VERSIONS[p])) wrong.push(`${p}: wanted "${GNU_VERSIONS[p]}", found "${found[p]}"`);
  }
  if (wrong.length) {
    const text = `GNU oracle: this host's tools are not the versions the differential suites were written against (test/helpers/gnu-oracle.ts):\n  ${wrong.join('\n  ')}`;
    if (process.env.GNU_ORACLE_VERSIONS !== 'any') {
      throw new Error(`${text}\nInstall those versions (Debian 12 has them), or set GNU_ORACLE_VERSIONS=any to compare against these anyway.`);
    }
    console.warn(`${text}\nGNU_ORACLE_VERSIONS=any: comparing anyway; a difference may be the host's.`);
  }
  const summary = programs.map((p) => (missing.has(p) ? `${p}: not installed` : found[p])).join('; ');
  return { found, missing, summary };
}

export type Locale = 'C' | 'C.UTF-8';

export function gnuEnv(root: string, locale: Locale = 'C'): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, TZ: 'UTC', LC_ALL: locale, LANG: locale };
}

/** The root directory's path in GNU's output read as `/` (`/tmp/x/root/docs` → `/docs`). */
export function mapRoot(s: string, root: string): string {
  return s
    .split(root + '/')
    .join('/')
    .split(root)
    .join('/');
}

export interface GnuRun {
  /** stdout as bytes (latin1: one char per byte) and as UTF-8 text. */
  raw: Buffer;
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** One command with GNU, in `root` (`{R}` in the command is the root's path). */
export function gnu(cmd: string, root: string, locale: Locale = 'C'): GnuRun {
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', cmd.replaceAll('{R}', root)], { cwd: root, env: gnuEnv(root, locale), input: '' });
  return {
    raw: r.stdout,
    stdout: mapRoot(r.stdout.toString('utf8'), root),
    stderr: mapRoot(r.stderr.toString('utf8'), root),
    exitCode: r.status ?? -1,
  };
}

/**
 * Many commands with GNU, each its own `bash -c` (so messages read `bash: line 1:` as for one
 * command), batched into one script, run beside the service calls. Outputs go to `outDir`.
 */
export async function gnuBatch(cmds: ReadonlyArray<{ cmd: string; locale?: Locale }>, root: string, outDir: string): Promise<GnuRun[]> {
  mkdirSync(outDir, { recursive: true });
  const q = (x: string) => `'${x.replace(/'/g, `'\\''`)}'`;
  const lines = [`cd ${q(root)} || exit 99`];
  cmds.forEach((c, i) => {
    const o = join(outDir, String(i));
    const env = c.locale && c.locale !== 'C' ? `env LC_ALL=${c.locale} LANG=${c.locale} ` : '';
    lines.push(
      `${env}bash --norc --noprofile -c ${q(c.cmd.replaceAll('{R}', root))} >${q(o + '.out')} 2>${q(o + '.err')} </dev/null; echo $? >${q(o + '.rc')}`,
    );
  });
  // A file, not `bash -c`: one argument may hold at most 128 KiB (E2BIG).
  const script = join(outDir, 'batch.sh');
  writeFileSync(script, lines.join('\n') + '\n');
  const child = spawn('bash', ['--norc', '--noprofile', script], { env: gnuEnv(root), stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`GNU batch failed (${code}): ${err}`);
  return cmds.map((_, i) => {
    const o = join(outDir, String(i));
    const raw = readFileSync(o + '.out');
    return {
      raw,
      stdout: mapRoot(raw.toString('utf8'), root),
      stderr: mapRoot(readFileSync(o + '.err').toString('utf8'), root),
      exitCode: Number(readFileSync(o + '.rc', 'utf8').trim()),
    };
  });
}

/** A tree the service lists (path and updatedAt of every entry), as the `list` tool pages it. */
export interface Listing {
  entries: Array<{ path: string; updatedAt: string | null; mount?: string }>;
  /** The service's root mtime, in seconds. */
  rootSec: number;
}

/** Every entry of the agent's tree with its updatedAt, and the root's mtime (what mirrorTimes needs). */
export async function listTree(s: TestServer, key: string): Promise<Listing> {
  const entries: Listing['entries'] = [];
  for (let cursor: string | null = null; ;) {
    const page: any = await s.ok(key, 'list', { path: '/', recursive: true, ...(cursor ? { cursor } : {}) });
    entries.push(...page.entries);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  const rootSec = Number.parseInt((await s.ok(key, 'bash', { command: "stat -c '%Y' /" })).stdout.trim(), 10) || 0;
  return { entries, rootSec };
}

/**
 * Gives the GNU copy in `root` the service's mtimes (millisecond precision, as the store keeps
 * them), its root and the root's parent (GNU's `..`) the service's root time.
 */
export function mirrorTimes(root: string, listing: Listing): void {
  const q = (p: string) => `'${p.replace(/'/g, `'\\''`)}'`;
  const touches: string[] = [];
  for (const e of listing.entries) {
    // The mount points / shows (/published, /shared): empty directories in the GNU copy, as walks from / do not enter them.
    if (e.mount) touches.push(`mkdir -p -- ${q(e.path.slice(1))}`);
    // A mount directory has no time (updatedAt null, docs/contract/mounts.md); bash shows it at 0.
    const ms = e.updatedAt === null ? 0 : Date.parse(e.updatedAt);
    touches.push(`touch -m -d @${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')} -- ${q(e.path.slice(1))}`);
  }
  touches.push(`touch -m -d @${listing.rootSec} . ..`);
  const t = spawnSync('bash', ['-c', touches.join('\n')], { cwd: root, env: gnuEnv(root), encoding: 'utf8' });
  if (t.status !== 0) throw new Error(`touch: ${t.stderr}`);
}

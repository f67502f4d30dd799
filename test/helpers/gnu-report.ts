/**
 * How the differential suite (test/slow/bash-diff.test.ts) compares a command's two runs, and
 * its report: the per-family table the suite prints, and docs/bash-compat.md, which
 * scripts/bash-compat.mjs renders from the rows the suite saves (BASH_COMPAT_JSON).
 */

export interface Run {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export type Klass = 'identical' | 'normalized' | 'set' | 'different';
export const RANK: Record<Klass, number> = { identical: 3, normalized: 2, set: 1, different: 0 };

/** How a command's outputs compare: fs (GNU's order is readdir order) and its declared normalizer. */
export interface Comparison {
  fs?: boolean;
  norm?: (s: string) => string;
}

/** stderr's shape: the program prefix of its first line and the errno kind (see the suite's header, normalization 6). */
export function stderrShape(s: string): string {
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

export const sortedLines = (s: string): string =>
  s
    .split('\n')
    .filter((l, i, a) => l !== '' || i < a.length - 1)
    .sort()
    .join('\n');

export function classify(c: Comparison, gnu: Run, svc: Run): Klass {
  if (gnu.exitCode !== svc.exitCode || stderrShape(gnu.stderr) !== stderrShape(svc.stderr)) return 'different';
  const raw = gnu.stdout === svc.stdout && gnu.stderr === svc.stderr;
  if (raw && !c.fs) return 'identical';
  const n = c.norm ?? ((x: string) => x);
  const a = n(gnu.stdout);
  const b = n(svc.stdout);
  if (c.fs) return sortedLines(a) === sortedLines(b) ? 'set' : 'different';
  return a === b ? 'normalized' : 'different';
}

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

/** What differs between the two runs, in one line. */
export function explain(c: Comparison, g: Run, s: Run): string {
  const parts: string[] = [];
  if (g.exitCode !== s.exitCode) parts.push(`exit gnu ${g.exitCode} / svc ${s.exitCode}`);
  if (stderrShape(g.stderr) !== stderrShape(s.stderr)) {
    parts.push(`stderr gnu ${JSON.stringify(g.stderr.slice(0, 120))} / svc ${JSON.stringify(s.stderr.slice(0, 120))}`);
  }
  const n = c.norm ?? ((x: string) => x);
  const a = c.fs ? sortedLines(n(g.stdout)) : n(g.stdout);
  const b = c.fs ? sortedLines(n(s.stdout)) : n(s.stdout);
  if (a !== b) parts.push(`stdout ${c.fs ? '(sorted) ' : ''}${firstDiff(a, b)}`);
  return parts.join('; ');
}

/** One command's line in the report: plain data (the suite saves these as JSON). */
export interface Row {
  group: string;
  family: string;
  cmd: string;
  klass: Klass | 'skipped';
  /** different: the known cause (or null: not a known mismatch) and what differs, on which tree. */
  cause?: string | null;
  detail?: string;
  seed?: number;
  /** normalized: how (the declared normalizer, or the two stderrs when only their shape matched). */
  how?: string;
  /** Compared against an optional GNU program (tree): the suite's floors leave it aside. */
  optional?: boolean;
}

export interface Report {
  title: string;
  versions: string;
  rows: Row[];
}

const pct = (x: number, n: number) => (n ? `${((100 * x) / n).toFixed(1)}%` : '–');

/** The per-family table, with the all-commands line. */
export function table(rows: Row[]): string {
  const out = [
    '| family | commands | identical | normalized | same set | different | skipped | match rate | byte-identical |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const count = (xs: Row[], k: string) => xs.filter((o) => o.klass === k).length;
  const line = (name: string, xs: Row[]) => {
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
  for (const f of new Set(rows.map((o) => o.family)))
    out.push(
      line(
        f,
        rows.filter((o) => o.family === f),
      ),
    );
  out.push(line('**all**', rows));
  return out.join('\n');
}

/** Match rate and byte-identical share over the compared commands. */
export function rates(rows: Row[]): { commands: number; match: number; identical: number } {
  const compared = rows.filter((o) => o.klass !== 'skipped');
  const ok = compared.filter((o) => o.klass !== 'different').length;
  const same = compared.filter((o) => o.klass === 'identical').length;
  return { commands: rows.length, match: ok / compared.length, identical: same / compared.length };
}

/** The summary the suite prints and the doc opens with: the table, the differences by cause, the normalized ones. */
export function summary(r: Report): string {
  const { rows } = r;
  const lines: string[] = [`${r.title}; ${r.versions}`, '', table(rows), ''];
  if (rows.some((o) => o.optional)) {
    const core = rates(rows.filter((o) => !o.optional));
    const pc = (x: number) => `${(100 * x).toFixed(1)}%`;
    lines.push(
      `Without the optional programs (${[...new Set(rows.filter((o) => o.optional).map((o) => o.family))].join(', ')}): ${core.commands} commands, ${pc(core.match)} match, ${pc(core.identical)} byte-identical.`,
      '',
    );
  }
  const byCause = new Map<string, Row[]>();
  for (const o of rows.filter((x) => x.klass === 'different')) {
    const cause = o.cause ?? 'NOT IN KNOWN_MISMATCHES';
    byCause.set(cause, [...(byCause.get(cause) ?? []), o]);
  }
  if (byCause.size) {
    lines.push('Different, by cause:');
    for (const [cause, os] of [...byCause].sort((a, b) => b[1].length - a[1].length)) {
      lines.push(`- ${cause} (${os.length})`);
      for (const o of os) lines.push(`    [${o.family}] ${o.cmd.replaceAll('{R}', '')}  —  (tree ${o.seed}) ${o.detail ?? ''}`);
    }
    lines.push('');
  }
  const normalized = rows.filter((o) => o.klass === 'normalized');
  if (normalized.length) {
    lines.push('Equal only after normalization / by stderr shape:');
    for (const o of normalized) lines.push(`    [${o.family}] ${o.cmd.replaceAll('{R}', '')}${o.how ? '  —  ' + o.how : ''}`);
    lines.push('');
  }
  const skipped = rows.filter((o) => o.klass === 'skipped');
  if (skipped.length) lines.push(`Skipped (GNU program not installed): ${skipped.map((o) => o.cmd).join(' · ')}`, '');
  return lines.join('\n');
}

/** docs/bash-compat.md: how it was made, the summary, every command with its class. */
export function compatDoc(r: Report): string {
  const esc = (x: string) => x.replaceAll('{R}', '').replaceAll('|', '\\|');
  const all = ['| group | command | class | cause |', '|---|---|---|---|'];
  for (const o of r.rows) all.push(`| ${o.group} | \`${esc(o.cmd)}\` | ${o.klass} | ${o.klass === 'different' ? esc(o.cause ?? '?') : ''} |`);
  const head = [
    '# bash tool: compatibility with GNU tools',
    '',
    'Generated by `npm run bash-compat` (scripts/bash-compat.mjs, which runs test/slow/bash-diff.test.ts). The same command',
    'runs in the service (`cwd: /`) and with GNU tools (`bash -c`, `LC_ALL=C TZ=UTC`; test/helpers/gnu-oracle.ts) over the',
    "same generated trees; see the test file's header for the classes and the (few) normalizations. `different` commands",
    'are the known mismatches, grouped by cause.',
    '',
  ];
  return `${head.join('\n')}\n\`\`\`\n${summary(r)}\n\`\`\`\n\n## Every command\n\n${all.join('\n')}\n`;
}

// docs/bash-compat.md, the bash tool's compatibility with GNU: runs the differential suite
// (test/slow/bash-diff.test.ts, SQLite, every tree) with BASH_COMPAT_JSON set, then renders the
// rows it saved with test/helpers/gnu-report.ts. Run through `npm run bash-compat` (it builds first).
// The suite must pass: a report of a failing run is not written.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compatDoc, rates } from '../dist/test/helpers/gnu-report.js';

const dir = mkdtempSync(join(tmpdir(), 'bash-compat-'));
const json = join(dir, 'report.json');
try {
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=dot', 'dist/test/slow/bash-diff.test.js'], {
    stdio: 'inherit',
    env: { ...process.env, TEST_BACKENDS: process.env.TEST_BACKENDS ?? 'sqlite', BASH_COMPAT_JSON: json },
  });
  if (run.status !== 0) {
    console.error(`bash-compat: the differential suite failed (exit ${run.status}); docs/bash-compat.md not written`);
    process.exit(1);
  }
  const report = JSON.parse(readFileSync(json, 'utf8'));
  writeFileSync('docs/bash-compat.md', compatDoc(report));
  const pc = (x) => `${(100 * x).toFixed(1)}%`;
  const r = rates(report.rows);
  const core = rates(report.rows.filter((o) => !o.optional));
  console.log(`docs/bash-compat.md: ${r.commands} commands, ${pc(r.match)} match, ${pc(r.identical)} byte-identical`);
  console.log(`  without the optional programs (tree): ${core.commands} commands, ${pc(core.match)} match, ${pc(core.identical)} byte-identical`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

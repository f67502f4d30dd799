// `npm run fuzz`: the property-based fuzzer of test/fuzz.test.ts with many more cases than
// `npm test` runs (FUZZ_RUNS, default 200 000, split over the backends), on both backends
// unless TEST_BACKENDS says otherwise. FUZZ_SEED replays a run; FUZZ_CONCURRENCY sets the
// number of concurrent workers (default 8); FUZZ_TRACE=1 prints memory every 5 000 cases.
// Run `npm run build` first (the npm script does).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const file = 'dist/test/fuzz.test.js';
if (!existsSync(file)) {
  console.error(`${file} not found: run npm run build first.`);
  process.exit(1);
}
const env = { ...process.env, FUZZ_RUNS: process.env.FUZZ_RUNS ?? '200000' };
console.log(`fuzz: ${env.FUZZ_RUNS} cases over ${env.TEST_BACKENDS ?? 'sqlite,postgres'}${env.FUZZ_SEED ? `, seed ${env.FUZZ_SEED}` : ''}`);
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', file], { stdio: 'inherit', env });
process.exit(r.status ?? 1);

// Build step (after tsc): writes src/client/tools.generated.ts, the SDK's types and tool list,
// from the registry's zod schemas (z.toJSONSchema, then JSON Schema → TypeScript below). When the
// file changed (a tool was added or a schema changed), tsc runs again so dist matches it; the
// test suite fails when the committed file is stale (test/client-generated.test.ts).
//
//   node scripts/gen-client.mjs           write it when it changed (and recompile)
//   node scripts/gen-client.mjs --print   print it to stdout, write nothing
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { renderClientTypes } from './client-types.mjs';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const TARGET = path.join(ROOT, 'src/client/tools.generated.ts');

const { buildRegistry } = await import('../dist/src/tools/index.js');
const { ERROR_CATALOGUE } = await import('../dist/src/core/errors.js');
const raw = renderClientTypes(buildRegistry().all(), ERROR_CATALOGUE);
const text = await prettier.format(raw, { ...(await prettier.resolveConfig(TARGET)), filepath: TARGET });

if (process.argv.includes('--print')) {
  process.stdout.write(text);
} else {
  const before = fs.existsSync(TARGET) ? fs.readFileSync(TARGET, 'utf8') : null;
  if (before !== text) {
    fs.writeFileSync(TARGET, text);
    console.error('gen-client: src/client/tools.generated.ts changed; compiling again');
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.json')], {
      stdio: 'inherit',
    });
  }
}

/**
 * The error catalogue (src/core/errors.ts) is the one list of codes: the compiler checks that
 * every code used is in it; these check the other direction (no code declared that nothing
 * answers with), the statuses, and that the reference documents each code.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ERROR_CATALOGUE, TransportError, ToolError, catalogueRows, errorStatus, type ErrorCode } from '../src/core/errors.js';
import { buildRegistry } from '../src/tools/index.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('error catalogue', () => {
  it('every declared code is answered somewhere in the source (no dead codes)', () => {
    // Tests run from dist/test; the TypeScript sources sit beside dist.
    const text = sources('src')
      .filter((p) => !p.endsWith(join('core', 'errors.ts')))
      .map((p) => readFileSync(p, 'utf8'))
      .join('\n');
    const unused = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((code) => !text.includes(`'${code}'`));
    assert.deepEqual(unused, []);
  });

  it('tool errors are HTTP 200, transport errors carry their own status', () => {
    assert.equal(new ToolError('NOT_FOUND', 'x').code, 'NOT_FOUND');
    assert.equal(new TransportError('RATE_LIMITED', 'x').status, 429);
    assert.equal(new TransportError('UNAUTHORIZED', 'x').status, 401);
    assert.equal(errorStatus('EDIT_CONFLICT'), 200);
    for (const row of catalogueRows()) {
      assert.ok(row.meaning.length > 10 && row.action.length > 5, `${row.code} says what it means and what to do`);
      assert.ok([200, 308, 400, 401, 404, 405, 413, 429, 500, 503].includes(row.status), `${row.code}: status ${row.status}`);
    }
  });

  it("each tool's errors are catalogue codes with status 200", () => {
    for (const tool of buildRegistry().all()) {
      for (const code of tool.errors) assert.equal(errorStatus(code), 200, `${tool.name}: ${code}`);
    }
  });
});

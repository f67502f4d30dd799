/**
 * The SDK's generated types (src/client/tools.generated.ts) are what the registry says today:
 * `npm run build` regenerates the file, and this fails when a stale one was committed. Also
 * checks the generator's JSON Schema → TypeScript translation on the shapes zod emits.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { buildRegistry } from '../src/tools/index.js';
import { defineTool } from '../src/tools/registry.js';
import { ERROR_CATALOGUE } from '../src/core/errors.js';

// dist/test/… → the repository's scripts/ and src/ (the generator runs from source, after tsc).
const ROOT = new URL('../../', import.meta.url);
const generator = (await import(new URL('scripts/client-types.mjs', ROOT).href)) as {
  renderClientTypes(tools: unknown[], catalogue: unknown): string;
  methodName(name: string): string;
};
const prettier = await import('prettier');

describe('SDK generated types', () => {
  it('src/client/tools.generated.ts is up to date with the registry (run npm run build when this fails)', async () => {
    const file = new URL('src/client/tools.generated.ts', ROOT);
    const raw = generator.renderClientTypes(buildRegistry().all(), ERROR_CATALOGUE);
    const fresh = await prettier.format(raw, { ...(await prettier.resolveConfig(file)), filepath: file.pathname });
    assert.equal(await readFile(file, 'utf8'), fresh);
  });

  it('names methods in camelCase and types every tool, errors included', () => {
    assert.equal(generator.methodName('list_versions'), 'listVersions');
    assert.equal(generator.methodName('read'), 'read');
    const text = generator.renderClientTypes(buildRegistry().all(), ERROR_CATALOGUE);
    for (const tool of buildRegistry().all()) assert.ok(text.includes(`  ${tool.name}: { input: `), tool.name);
    for (const code of Object.keys(ERROR_CATALOGUE)) assert.ok(text.includes(`| '${code}'`), code);
  });

  it('translates the schema shapes zod emits (optional, nullable, enums, arrays, records, unions, recursion)', () => {
    type Node = { name: string; children: Node[] };
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
    // Through defineTool: a mutating tool's input gets idempotencyKey there, and the SDK type shows it.
    const tool = defineTool({
      name: 'shape_probe',
      family: 'files',
      summary: 'probe',
      description: 'probe',
      scopes: [],
      mutating: true,
      annotations: { readOnly: false, destructive: false, idempotent: true },
      errors: [],
      examples: [],
      handler: async () => ({ success: true, tree: { name: 'root', children: [] } }),
      input: z.object({
        path: z.string().describe('A path.'),
        n: z.number().int().optional(),
        mode: z.enum(['a', 'b']),
        tags: z.array(z.string()).optional(),
        meta: z.record(z.string(), z.number()).optional(),
        either: z.union([z.string(), z.number()]).nullable(),
        'odd-key': z.boolean().optional(),
      }),
      output: z.object({ success: z.literal(true), tree: node }),
    });
    const text = generator.renderClientTypes([tool], { NOT_FOUND: {} });
    for (const part of [
      '/** A path. */',
      'path: string;',
      'n?: number;',
      'mode: "a" | "b";',
      'tags?: string[];',
      '[key: string]: number;',
      'either: string | number | null;',
      '"odd-key"?: boolean;',
      'idempotencyKey?: string;',
      'success: true;',
      'shapeProbe(input: ShapeProbeInput, options?: CallOptions): Promise<ShapeProbeOutput>;',
    ]) {
      assert.ok(text.includes(part), `${part}\n${text}`);
    }
    // The recursive part becomes a named type that refers to itself, not `unknown`.
    assert.match(text, /children: ShapeProbeOutput_\w+\[\]/);
  });
});

/**
 * The contract pages (docs/contract/) are the project's own specification: code comments cite
 * them. This keeps the parts that can drift mechanically from drifting: every error code of the
 * catalogue is documented, every page the index names exists, and every relative link between the
 * pages (and anchor, `page.md#section`) resolves.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ERROR_CATALOGUE } from '../src/core/errors.js';

const DIR = fileURLToPath(new URL('../../docs/contract/', import.meta.url));
const page = (name: string) => readFileSync(DIR + name, 'utf8');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

describe('the contract pages (docs/contract)', () => {
  it('document every code of the error catalogue', () => {
    const errors = page('errors.md');
    const missing = Object.keys(ERROR_CATALOGUE).filter((code) => !errors.includes(`\`${code}\``));
    assert.deepEqual(missing, [], 'docs/contract/errors.md lacks these codes of src/core/errors.ts');
  });

  it('link only to pages and sections that exist', () => {
    const pages = readdirSync(DIR).filter((f) => f.endsWith('.md'));
    const anchors = new Map(pages.map((p) => [p, new Set([...page(p).matchAll(/^#+ (.+)$/gm)].map((m) => anchorOf(m[1]!)))]));
    const broken: string[] = [];
    for (const p of pages) {
      for (const m of page(p).matchAll(/\]\(([a-z-]+\.md)(?:#([a-z0-9-]+))?\)/g)) {
        const [, target, anchor] = m;
        if (!existsSync(DIR + target!)) broken.push(`${p} → ${target}`);
        else if (anchor && !anchors.get(target!)?.has(anchor)) broken.push(`${p} → ${target}#${anchor}`);
      }
    }
    assert.deepEqual(broken, []);
  });
});

describe('field descriptions say what is served', () => {
  it('every contentHash in every tool output is described as served: "sha256:<hex>"', async () => {
    const { buildRegistry } = await import('../src/tools/index.js');
    const { outputSchema } = await import('../src/docs/schemas.js');
    const wrong: string[] = [];
    let seen = 0;
    const walk = (tool: string, node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      const props = (node as { properties?: Record<string, { description?: string }> }).properties;
      if (props?.contentHash) {
        seen++;
        if (!props.contentHash.description?.includes('"sha256:<hex>"')) wrong.push(`${tool}: ${props.contentHash.description}`);
      }
      for (const v of Object.values(node)) walk(tool, v);
    };
    for (const t of buildRegistry().all()) walk(t.name, outputSchema(t));
    assert.ok(seen > 10, `contentHash found in ${seen} places`);
    assert.deepEqual(wrong, []);
  });
});

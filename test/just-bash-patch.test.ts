/** The fix of just-bash's glob expander (src/sandbox/just-bash-patch.ts): applied exactly once, or not at all. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { PATCHED_FILE_NAME, patchBundle, sourceTag } from '../src/sandbox/just-bash-patch.js';

describe('just-bash bundle patch', () => {
  const url = import.meta.resolve('just-bash');
  const source = readFileSync(fileURLToPath(url), 'utf8');

  it('finds the expander in the installed just-bash and rewrites its relative imports', () => {
    const patched = patchBundle(source, url);
    assert.ok(patched, 'the installed just-bash has the expected expand() text: port the fix when this fails');
    assert.ok(patched.startsWith(sourceTag(source)));
    assert.equal(patched.match(/async __dirsOnly\(/g)?.length, 1);
    // Brace ranges: no silent cap, the result limit throws.
    assert.equal(patched.match(/brace expansion result limit exceeded \(\$\{\w+\.maxResults\}\)/g)?.length, 1);
    assert.ok(!/\.maxResults\)return!1;/.test(patched));
    // Fix 6, the order of stdout and stderr (just-bash-order.ts): the redirection step merges in
    // writing order (one file, the live streams), keeps the order it passes on, |& too; the loops'
    // accumulator is handed every result.
    assert.equal(patched.match(/var __afsK=/g)?.length, 1);
    assert.equal(patched.match(/=__afsMerge\(/g)?.length, 4);
    assert.equal(patched.match(/=__afsPipe\(/g)?.length, 1);
    assert.ok((patched.match(/\.append\((\w+)\.stdout,\1\.stderr,\1\)/g)?.length ?? 0) >= 9);
    assert.ok(!patched.includes('"./chunks/'), 'relative chunk imports are absolute');
    assert.ok(!patched.includes('import.meta.url'));
    assert.ok(patched.includes(`"${url.slice(0, url.lastIndexOf('/') + 1)}chunks/`));
  });

  it('declines text it does not recognise, and an already patched bundle', () => {
    assert.equal(patchBundle('export const x = 1;', url), null);
    assert.equal(patchBundle(patchBundle(source, url)!, url), null);
  });

  it('the build wrote the patched bundle for the installed just-bash', () => {
    const built = readFileSync(new URL(`../src/sandbox/${PATCHED_FILE_NAME}`, import.meta.url), 'utf8');
    assert.equal(built, patchBundle(source, url));
  });

  it('fails the build, loudly, on a bundle it cannot patch', () => {
    const dir = mkdtempSync(join(tmpdir(), 'afs-patch-'));
    try {
      const bundle = join(dir, 'index.mjs');
      writeFileSync(bundle, 'export const x = 1;\n');
      const root = fileURLToPath(new URL('../../', import.meta.url));
      const r = spawnSync(process.execPath, ['scripts/patch-just-bash.mjs'], {
        cwd: root,
        env: { ...process.env, PATCH_JUST_BASH_SOURCE: bundle },
        encoding: 'utf8',
      });
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /^patch-just-bash: FAILED: .*index\.mjs does not contain the text the just-bash patch expects/);
      // The installed bundle passes the same check.
      const ok = spawnSync(process.execPath, ['scripts/patch-just-bash.mjs'], {
        cwd: root,
        env: { ...process.env, PATCH_JUST_BASH_SOURCE: fileURLToPath(url) },
        encoding: 'utf8',
      });
      assert.equal(ok.status, 0, ok.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pins just-bash to the exact version installed', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const installed = JSON.parse(readFileSync(new URL('../../node_modules/just-bash/package.json', import.meta.url), 'utf8'));
    assert.equal(pkg.dependencies['just-bash'], installed.version);
  });
});

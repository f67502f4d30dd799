/** The declared fixes of just-bash's bundle (src/sandbox/just-bash/patches.ts): each applied exactly as declared, or the build fails naming it. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { JustBashPatchError, PATCHED_FILE_NAME, PATCHES, justBashVersion, patchBundle, sourceTag } from '../src/sandbox/just-bash/patches.js';

/** The error patchBundle throws on `source`, or null when it patches it. */
function failure(source: string, url: string): JustBashPatchError | null {
  try {
    patchBundle(source, url, '9.9.9');
    return null;
  } catch (err) {
    if (err instanceof JustBashPatchError) return err;
    throw err;
  }
}

describe('just-bash bundle patch', () => {
  const url = import.meta.resolve('just-bash');
  const source = readFileSync(fileURLToPath(url), 'utf8');
  const version = justBashVersion(url);

  it('applies every declared patch to the installed just-bash and rewrites its relative imports', () => {
    assert.match(version, /^\d+\.\d+\.\d+$/);
    const patched = patchBundle(source, url, version);
    assert.ok(patched.startsWith(sourceTag(source)));
    assert.equal(patched.match(/async __dirsOnly\(/g)?.length, 1);
    // Brace ranges: no silent cap, the result limit throws.
    assert.equal(patched.match(/brace expansion result limit exceeded \(\$\{\w+\.maxResults\}\)/g)?.length, 1);
    assert.ok(!/\.maxResults\)return!1;/.test(patched));
    // The order of stdout and stderr (just-bash/order.ts): the redirection step merges in writing
    // order (one file, the live streams), keeps the order it passes on, |& too; the loops'
    // accumulator is handed every result.
    assert.equal(patched.match(/var __afsK=/g)?.length, 1);
    assert.equal(patched.match(/=__afsMerge\(/g)?.length, 4);
    assert.equal(patched.match(/=__afsPipe\(/g)?.length, 1);
    assert.equal(patched.match(/\.append\((\w+)\.stdout,\1\.stderr,\1\)/g)?.length, 10);
    assert.ok(!patched.includes('"./chunks/'), 'relative chunk imports are absolute');
    assert.ok(!patched.includes('import.meta.url'));
    assert.ok(patched.includes(`"${url.slice(0, url.lastIndexOf('/') + 1)}chunks/`));
  });

  it('declares each patch once, with a reason', () => {
    const names = PATCHES.map((p) => p.name);
    assert.equal(new Set(names).size, names.length);
    for (const p of PATCHES) assert.ok(p.why.length > 20 && /^[a-z0-9-]+$/.test(p.name), p.name);
  });

  it('names the patch whose text is gone, and the version', () => {
    assert.equal(failure(source, url), null);
    for (const patch of PATCHES) {
      // The patch's text in the installed bundle, broken at one place (a space after its first
      // character): that patch, and only that one, no longer matches.
      const names = Object.fromEntries(Object.entries(patch.names ?? {}).map(([n, p]) => [n, source.match(p.find)![p.group]!]));
      const find = typeof patch.find === 'function' ? patch.find(names) : patch.find;
      const m = find.exec(source);
      assert.ok(m, patch.name);
      const broken = source.slice(0, m.index + 1) + ' ' + source.slice(m.index + 1);
      const err = failure(broken, url);
      assert.ok(err, `${patch.name}: a broken text must fail`);
      assert.equal(err.patch, patch.name);
      assert.match(
        err.message,
        new RegExp(
          `^patch ${patch.name} no longer matches just-bash 9\\.9\\.9 \\(its text occurs ${(patch.count ?? 1) - 1} times, expected ${patch.count ?? 1}\\)`,
        ),
      );
    }
  });

  it('declines text it does not recognise, and an already patched bundle', () => {
    assert.equal(failure('export const x = 1;', url)?.patch, PATCHES[0]!.name);
    assert.ok(failure(patchBundle(source, url, version), url));
  });

  it('the build wrote the patched bundle for the installed just-bash', () => {
    const built = readFileSync(new URL(`../src/sandbox/${PATCHED_FILE_NAME}`, import.meta.url), 'utf8');
    assert.equal(built, patchBundle(source, url, version));
  });

  it('fails the build, loudly, naming the patch, on a bundle it cannot patch', () => {
    const dir = mkdtempSync(join(tmpdir(), 'afs-patch-'));
    try {
      const bundle = join(dir, 'index.mjs');
      writeFileSync(bundle, source.replace('"just-bash shell builtins"', '"just-bash builtins"'));
      const root = fileURLToPath(new URL('../../', import.meta.url));
      const r = spawnSync(process.execPath, ['scripts/patch-just-bash.mjs'], {
        cwd: root,
        env: { ...process.env, PATCH_JUST_BASH_SOURCE: bundle },
        encoding: 'utf8',
      });
      assert.equal(r.status, 1, r.stderr);
      assert.match(
        r.stderr,
        /^patch-just-bash: FAILED: patch help-lists-missing-builtins no longer matches just-bash \(unknown version\) \(its text occurs 0 times, expected 1\).*\[bundle .*index\.mjs\]/,
      );
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
    assert.equal(pkg.dependencies['just-bash'], version);
  });
});

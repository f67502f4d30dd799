/** The GNU oracle's one rule (test/helpers/gnu-oracle.ts): the listed versions, or a loud failure naming what was found. */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { GNU_VERSIONS, requireGnu } from './helpers/gnu-oracle.js';

describe('GNU oracle versions', () => {
  it('a program at another version fails the suite with what was found, unless GNU_ORACLE_VERSIONS=any', () => {
    const dir = mkdtempSync(join(tmpdir(), 'afs-oracle-'));
    const path = process.env.PATH;
    try {
      writeFileSync(join(dir, 'grep'), '#!/bin/sh\necho "grep (GNU grep) 3.11"\n');
      chmodSync(join(dir, 'grep'), 0o755);
      process.env.PATH = `${dir}:${path}`;
      assert.throws(
        () => requireGnu(['grep']),
        /grep: wanted "grep \(GNU grep\) 3\.8", found "grep \(GNU grep\) 3\.11"[\s\S]*GNU_ORACLE_VERSIONS=any/,
      );
      process.env.GNU_ORACLE_VERSIONS = 'any';
      assert.equal(requireGnu(['grep']).found.grep, 'grep (GNU grep) 3.11');
    } finally {
      process.env.PATH = path;
      delete process.env.GNU_ORACLE_VERSIONS;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an optional program that is missing is reported, not a failure; a required one fails', () => {
    const path = process.env.PATH;
    try {
      process.env.PATH = '/nonexistent';
      assert.deepEqual([...requireGnu(['tree']).missing], ['tree']);
      assert.throws(() => requireGnu(['sed']), new RegExp(`wanted "${GNU_VERSIONS.sed.replace(/[()]/g, '\\$&')}", found "not installed"`));
    } finally {
      process.env.PATH = path;
    }
  });
});

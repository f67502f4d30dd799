/**
 * The reference files' scratch stores (src/scratch.ts): a server killed while it generated
 * them leaves a temp directory behind; the next generation removes those of processes that are gone.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sweepScratch } from '../src/scratch.js';

describe('scratch directories', () => {
  it("removes those of exited processes and unnamed ones over an hour old; keeps live processes' and others", () => {
    const root = mkdtempSync(join(tmpdir(), 'afs-sweep-test-'));
    try {
      const gone = spawnSync(process.execPath, ['-e', '']).pid!;
      const dirs = [
        `afs-examples-${gone}-aaaa`, // its process exited
        `afs-examples-${process.pid}-bbbb`, // this process: in use
        'afs-examples-1-cccc', // pid 1 runs
        'afs-examples-old', // before names carried a pid, two hours old
        'afs-examples-new', // the same, fresh
        `afs-heartbeat-${gone}-dddd`, // another prefix
        'unrelated',
      ];
      for (const d of dirs) mkdirSync(join(root, d));
      mkdirSync(join(root, `afs-examples-${gone}-aaaa`, 'nested'));
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      utimesSync(join(root, 'afs-examples-old'), twoHoursAgo, twoHoursAgo);

      assert.equal(sweepScratch('afs-examples-', root), 2);
      assert.deepEqual(
        readdirSync(root).sort(),
        ['afs-examples-1-cccc', `afs-examples-${process.pid}-bbbb`, 'afs-examples-new', `afs-heartbeat-${gone}-dddd`, 'unrelated'].sort(),
      );
      assert.equal(sweepScratch('afs-heartbeat-', root), 1);
      assert.equal(sweepScratch('afs-examples-', root), 0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

/** The just-bash adapter's Shell (src/sandbox/just-bash.ts): every run starts from the initial state, on the filesystem it names, and answers as bash would. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemoryFs, Shell, engineCommandNames } from '../src/sandbox/just-bash.js';
import { BASH_COMMANDS } from '../src/sandbox/commands.js';

const limits = { maxExecutionTimeMs: 10_000, maxCommandCount: 1000 };

function shellOn(fs: InMemoryFs): Shell {
  return new Shell({ fs, commands: BASH_COMMANDS, customCommands: [], env: { HOME: '/', PATH: '/usr/bin:/bin' }, limits });
}

/** An InMemoryFs whose writes fail with an error that is no errno (a broken store). */
class BrokenWrites extends InMemoryFs {
  override async writeFile(): Promise<void> {
    throw new Error('the store is on fire');
  }
}

describe('just-bash adapter: Shell', () => {
  it('starts every run from the state a new interpreter has: nothing one run sets reaches the next', async () => {
    const fs = new InMemoryFs({ '/a.md': 'a\n' });
    const shell = shellOn(fs);
    const set = await shell.run('shopt -s nullglob; readonly R=1; export Y=2; f() { echo f; }; cd /tmp 2>/dev/null; echo set', '/', fs);
    assert.deepEqual(set, { stdout: 'set\n', stderr: '', exitCode: 0, atDeadline: false, outputLimit: false });
    assert.ok(shell.reusable);
    const next = await shell.run('shopt nullglob; echo "${R-unset} ${Y-unset}"; type f 2>&1 >/dev/null | wc -l; R=3; echo $R', '/', fs);
    assert.match(next.stdout, /^nullglob\s+off\nunset unset\n1\n3\n$/);
    assert.equal(next.exitCode, 0);
  });

  it('runs on the filesystem each run names', async () => {
    const one = new InMemoryFs({ '/a.md': 'one\n' });
    const two = new InMemoryFs({ '/a.md': 'two\n' });
    const shell = shellOn(one);
    assert.equal((await shell.run('cat a.md | tr a-z A-Z', '/', one)).stdout, 'ONE\n');
    assert.equal((await shell.run('cat a.md | tr a-z A-Z', '/', two)).stdout, 'TWO\n');
    await shell.run('echo new > /b.md', '/', two);
    assert.ok(await two.exists('/b.md'));
    assert.ok(!(await one.exists('/b.md')));
  });

  it('reports a run just-bash rejects the way bash would: on stderr, exit 1, the script output kept out', async () => {
    const fs = new BrokenWrites({});
    const r = await shellOn(fs).run('echo before; echo x > /f', '/', fs);
    assert.deepEqual(r, { stdout: '', stderr: 'bash: the store is on fire\n', exitCode: 1, atDeadline: false, outputLimit: false });
  });

  it("shapes the shell's messages for an agent: a limit names this server's setting, never just-bash's option", async () => {
    const fs = new InMemoryFs({});
    const r = await shellOn(fs).run('for i in $(seq 1 5000); do :; done', '/', fs);
    assert.equal(r.exitCode, 126);
    assert.match(r.stderr, /; the limit of this server \(BASH_MAX_COMMANDS\): split the work into smaller calls\n$/);
    assert.doesNotMatch(r.stderr, /executionLimits/);
  });

  it('tells a run stopped at its deadline, or at the output limit, from any other exit', async () => {
    const fs = new InMemoryFs({});
    const env = { HOME: '/' };
    const slow = new Shell({
      fs,
      commands: BASH_COMMANDS,
      customCommands: [],
      env,
      limits: { maxExecutionTimeMs: 300, maxCommandCount: 1e9, maxLoopIterations: 1e9 },
    });
    const late = await slow.run('while :; do :; done', '/', fs);
    assert.equal(late.exitCode, 124);
    assert.deepEqual([late.atDeadline, late.outputLimit], [true, false]);
    const loud = new Shell({ fs, commands: BASH_COMMANDS, customCommands: [], env, limits: { maxOutputSize: 1000 } });
    const long = await loud.run('seq 1 100000', '/', fs);
    assert.equal(long.exitCode, 126);
    assert.deepEqual([long.atDeadline, long.outputLimit], [false, true]);
    // Exit 124 of a command's own, without the deadline's message, is no deadline.
    const own = await loud.run('(exit 124)', '/', fs);
    assert.deepEqual([own.exitCode, own.atDeadline], [124, false]);
  });

  it('offers only the commands it is given, and knows the engine’s full set', async () => {
    const fs = new InMemoryFs({});
    const r = await shellOn(fs).run('python3 -c 1', '/', fs);
    assert.deepEqual(r, { stdout: '', stderr: 'bash: python3: command not found\n', exitCode: 127, atDeadline: false, outputLimit: false });
    const engine = engineCommandNames();
    for (const name of ['cat', 'grep', 'sqlite3', 'tar']) assert.ok(engine.includes(name), name);
  });
});

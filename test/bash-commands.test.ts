/**
 * What an agent trips on in `bash`: every offered command behaves like GNU or is
 * absent with bash's "command not found" (exit 127, never an engine message); which, file, od
 * and chmod answer as GNU would here; a missing scope is named, never a "read-only file system"
 * or a temporary file; the per-agent bash concurrency limit reports itself, not the request budget.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { engineCommandNames } from '../src/sandbox/just-bash.js';
import { BASH_COMMANDS } from '../src/sandbox/commands.js';
import { backends } from './helpers/backends.js';
import { assertEnvelope } from './helpers/assert-envelope.js';
import { gnu, requireGnu } from './helpers/gnu-oracle.js';
import { startServer, type TestServer } from './helpers/server.js';

async function bash(
  s: TestServer,
  key: string,
  command: string,
): Promise<{ stdout: string; stderr: string; exitCode: number; changesetId: string | null }> {
  const r = await s.call(key, 'bash', { command });
  assert.equal(r.status, 200, `${command}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  assertEnvelope(r, 'success');
  return r.inner;
}

const ENGINE_TEXT = /browser|not available|not implemented|just-bash|executionLimits|\bat .*:\d+:\d+|TypeError|ReferenceError|\bundefined\b/i;

/** A basic use of every offered command, run in a tree holding /f.txt, /j.json, /y.yaml. */
const BASIC: Record<string, string> = {
  ls: 'ls /',
  tree: 'tree /',
  find: 'find / -name f.txt',
  grep: 'grep b f.txt',
  egrep: 'egrep b f.txt',
  fgrep: 'fgrep b f.txt',
  cat: 'cat f.txt',
  head: 'head -1 f.txt',
  tail: 'tail -1 f.txt',
  stat: 'stat -c %s f.txt',
  wc: 'wc -l f.txt',
  du: 'du -s /',
  sort: 'sort f.txt',
  uniq: 'uniq f.txt',
  cut: 'cut -c1 f.txt',
  tr: 'tr a A < f.txt',
  echo: 'echo x',
  printf: 'printf "%s\\n" x',
  pwd: 'pwd',
  basename: 'basename /a/b',
  dirname: 'dirname /a/b',
  diff: 'diff f.txt f.txt',
  jq: 'jq .a j.json',
  sed: 'sed -n 1p f.txt',
  awk: "awk '{print $1}' f.txt",
  xargs: 'xargs echo < f.txt',
  true: 'true',
  false: 'false || true',
  mkdir: 'mkdir /m1',
  rmdir: 'mkdir /m2 && rmdir /m2',
  touch: 'touch /t1',
  cp: 'cp f.txt /c1',
  mv: 'cp f.txt /c2 && mv /c2 /c3',
  rm: 'cp f.txt /c4 && rm /c4',
  tee: 'echo x | tee /t2',
  nl: 'nl f.txt',
  tac: 'tac f.txt',
  rev: 'rev f.txt',
  paste: 'paste f.txt f.txt',
  comm: 'comm f.txt f.txt',
  column: 'column f.txt',
  fold: 'fold -w 1 f.txt',
  expand: 'expand f.txt',
  unexpand: 'unexpand f.txt',
  seq: 'seq 3',
  date: 'date -u +%Y',
  md5sum: 'md5sum f.txt',
  sha1sum: 'sha1sum f.txt',
  sha256sum: 'sha256sum f.txt',
  base64: 'base64 f.txt',
  file: 'file f.txt',
  which: 'which ls',
  env: 'env',
  printenv: 'printenv HOME',
  sleep: 'sleep 0',
  timeout: 'timeout 5 true',
  expr: 'expr 1 + 1',
  od: 'od -c f.txt',
  strings: 'strings f.txt',
  split: 'mkdir /sp && split -l 1 f.txt /sp/x && ls /sp',
  join: 'join f.txt f.txt',
  readlink: 'readlink -f f.txt',
  chmod: 'chmod +x f.txt || true',
  yq: 'yq .a y.yaml',
  help: 'help',
};

/** Commands just-bash has that this server does not offer (its full set minus ours), and some it never had. */
function unofferedCommands(): string[] {
  const engine = engineCommandNames();
  const offered = new Set<string>(BASH_COMMANDS);
  // `time` is a shell keyword in GNU bash; just-bash lists it as a command too.
  return [...new Set([...engine, 'python3', 'python', 'sqlite3', 'tar', 'xan', 'curl', 'ln'])].filter((c) => !offered.has(c) && c !== 'time');
}

for (const backend of backends()) {
  describe(`bash commands as GNU, or absent (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend, { BASH_MAX_CONCURRENT_PER_AGENT: '2' });
    });
    after(() => s.close());

    it('ln is not offered: every form answers "bash: ln: command not found" (127); the tool description does not list it', async () => {
      const { apiKey } = await s.register('Ln');
      await s.ok(apiKey, 'write', { path: '/a', content: 'a\n' });
      for (const cmd of ['ln -s /a /b', 'ln /a /b', 'ln']) {
        const r = await bash(s, apiKey, cmd);
        assert.deepEqual([r.stdout, r.stderr, r.exitCode], ['', 'bash: ln: command not found\n', 127], cmd);
      }
      const skill = await (await fetch(`${s.url}/skill/bash.md`)).text();
      const list = /Commands: (ls, tree[^.]*)\./.exec(skill)?.[1] ?? '';
      assert.match(list, /^ls, tree, .*, readlink, /);
      assert.doesNotMatch(list, /\bln\b/);
    });

    it('commands just-bash knows but this server does not offer answer exactly like missing ones (no engine message, even through 2>&1)', async () => {
      const { apiKey } = await s.register('Unoffered');
      const names = unofferedCommands();
      assert.ok(names.includes('python3') && names.includes('sqlite3') && names.includes('rg'), names.join(' '));
      for (const name of names) {
        const r = await bash(s, apiKey, `${name} --version`);
        assert.deepEqual([r.stdout, r.stderr, r.exitCode], ['', `bash: ${name}: command not found\n`, 127], name);
        const merged = await bash(s, apiKey, `${name} -c 1 2>&1 | cat`);
        assert.equal(merged.stdout, `bash: ${name}: command not found\n`, name);
      }
    });

    it('sweep: a basic use of every offered command runs, never prints an engine message, never 127', async () => {
      const { apiKey } = await s.register('Sweep');
      await s.ok(apiKey, 'write', { path: '/f.txt', content: 'a b\nb c\n' });
      await s.ok(apiKey, 'write', { path: '/j.json', content: '{"a":1}\n' });
      await s.ok(apiKey, 'write', { path: '/y.yaml', content: 'a: 1\n' });
      assert.deepEqual(Object.keys(BASIC).sort(), [...BASH_COMMANDS].sort(), 'every offered command has a basic use here');
      for (const name of BASH_COMMANDS) {
        const r = await bash(s, apiKey, BASIC[name]!);
        assert.equal(r.exitCode, 0, `${BASIC[name]}: ${r.stderr}`);
        assert.doesNotMatch(r.stdout + r.stderr, ENGINE_TEXT, BASIC[name]);
      }
      // chmod is offered to fail honestly (below); everything `help` lists runs.
      const help = await bash(s, apiKey, 'help');
      assert.match(help.stdout, /^GNU bash, version \S+\n/);
      const builtins = help.stdout.split('\n\n')[1]!.split(/\s+/).filter(Boolean);
      assert.ok(builtins.includes('cd') && builtins.includes('export'), builtins.join(' '));
      for (const b of builtins) {
        const r = await bash(s, apiKey, `${b} --help 2>&1 </dev/null | head -1; type ${b}`);
        assert.doesNotMatch(r.stdout + r.stderr, /command not found|not found/, `help lists ${b}, which does not run: ${r.stdout}${r.stderr}`);
      }
    });

    it('which: /usr/bin/NAME for offered commands (as command -v), silent exit 1 for others, -a lists /bin too', async () => {
      const { apiKey } = await s.register('Which');
      let r = await bash(s, apiKey, 'which grep');
      assert.deepEqual([r.stdout, r.stderr, r.exitCode], ['/usr/bin/grep\n', '', 0]);
      assert.equal((await bash(s, apiKey, 'command -v grep')).stdout, '/usr/bin/grep\n');
      r = await bash(s, apiKey, 'which python3');
      assert.deepEqual([r.stdout, r.stderr, r.exitCode], ['', '', 1]);
      r = await bash(s, apiKey, 'which grep nope ls');
      assert.deepEqual([r.stdout, r.exitCode], ['/usr/bin/grep\n/usr/bin/ls\n', 1]);
      r = await bash(s, apiKey, 'which -a sed');
      assert.deepEqual([r.stdout, r.exitCode], ['/usr/bin/sed\n/bin/sed\n', 0]);
      r = await bash(s, apiKey, 'which ln; echo $?; which /usr/bin/awk');
      assert.equal(r.stdout, '1\n/usr/bin/awk\n');
      r = await bash(s, apiKey, 'which -x ls');
      assert.deepEqual([r.stdout, r.stderr, r.exitCode], ['', 'Illegal option -x\nUsage: /usr/bin/which [-as] args\n', 2]);
    });

    it('file: binary is "data", empty is "empty", text as file 5.44 names it, names aligned', async () => {
      const { apiKey } = await s.register('File');
      const files: Record<string, string> = {
        bin: 'AAEC/w==', // 00 01 02 ff
        latin: 'Y2Fm6Qo=', // "caf\xe9\n": invalid UTF-8
        empty: '',
        ascii: 'aGVsbG8K',
        utf8: 'Y2Fmw6kK',
        json: 'eyJhIjoxfQo=',
        sh: 'IyEvYmluL3NoCmVjaG8K',
        crlf: 'YQ0KYg0K',
        noeol: 'bm9lb2w=',
      };
      for (const [name, content] of Object.entries(files)) await s.ok(apiKey, 'write', { path: `/${name}`, content, encoding: 'base64' });
      const r = await bash(s, apiKey, 'file bin latin empty ascii utf8 json sh crlf noeol / missing');
      assert.equal(r.exitCode, 0);
      assert.equal(
        r.stdout,
        [
          'bin:     data',
          'latin:   data',
          'empty:   empty',
          'ascii:   ASCII text',
          'utf8:    Unicode text, UTF-8 text',
          'json:    JSON text data',
          'sh:      POSIX shell script, ASCII text executable',
          'crlf:    ASCII text, with CRLF line terminators',
          'noeol:   ASCII text, with no line terminators',
          '/:       directory',
          "missing: cannot open `missing' (No such file or directory)",
          '',
        ].join('\n'),
      );
      assert.equal(
        (await bash(s, apiKey, 'file -b bin; file -i ascii utf8')).stdout,
        'data\nascii: text/plain; charset=us-ascii\nutf8:  text/plain; charset=utf-8\n',
      );
    });

    it('od: -A {d,o,x,n} with -t x1/o1/d1/c/a/x2/d4 (alone and together), -c -b -x, -j -N -w -v and "*", byte for byte as GNU od', async () => {
      requireGnu(['bash', 'od']);
      const { apiKey } = await s.register('Od');
      const bytes = Buffer.concat([Buffer.from('hello world, this is od\x00\x01\xff\n', 'latin1'), Buffer.alloc(48), Buffer.from('tail')]);
      await s.ok(apiKey, 'write', { path: '/b', content: bytes.toString('base64'), encoding: 'base64' });
      const dir = mkdtempSync(join(tmpdir(), 'od-'));
      try {
        writeFileSync(join(dir, 'b'), bytes);
        const cases = [
          '-A x -t x1',
          '-A d -t x1',
          '-A o -t o1',
          '-A n -t d1',
          '-t c',
          '-A x -t a',
          '-t x1 -t c',
          '-t x2 -c',
          '-A x -t o1 -t d1',
          '-t d4 -t x1',
          '',
          '-c',
          '-b',
          '-x',
          '-v -t x1',
          '-j 5 -N 10 -t x1',
          '-w8 -t x1',
          '-A n -t u2',
        ];
        for (const opts of cases) {
          const g = gnu(`od ${opts} b`, dir);
          const expected = g.raw.toString('latin1');
          const r = await bash(s, apiKey, `od ${opts} /b`);
          assert.deepEqual([r.stdout, r.stderr, r.exitCode], [expected, g.stderr, g.exitCode], `od ${opts}`);
        }
        const empty = await bash(s, apiKey, 'printf "" | od -t x1; printf "" | od -A n -t x1; echo hi | od -A x -t x1');
        assert.equal(empty.stdout, '0000000\n000000 68 69 0a\n000003\n');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const bad = await bash(s, apiKey, 'od -A q /b; od -t f4 /b; od /missing');
      assert.equal(
        bad.stderr,
        "od: invalid output address radix 'q'; it must be one character from [doxn]\nTry 'od --help' for more information.\n" +
          'od: floating-point formats (-t f, -f) are not supported here; use -t x or -t d\nod: /missing: No such file or directory\n',
      );
    });

    it('chmod: the store has no permission bits, so it fails saying so (exit 1) and changes nothing', async () => {
      const { apiKey } = await s.register('Chmod');
      await s.ok(apiKey, 'write', { path: '/f', content: 'x\n' });
      let r = await bash(s, apiKey, 'chmod +x f');
      assert.deepEqual(
        [r.stdout, r.stderr, r.exitCode, r.changesetId],
        ['', "chmod: changing permissions of 'f': Operation not supported (files here have no permission bits)\n", 1, null],
      );
      r = await bash(s, apiKey, 'chmod 644 missing; chmod -f 600 f; echo $?; chmod zz f');
      assert.equal(r.stdout, '1\n');
      assert.equal(
        r.stderr,
        "chmod: cannot access 'missing': No such file or directory\nchmod: invalid mode: 'zz'\nTry 'chmod --help' for more information.\n",
      );
    });

    it('a missing scope is named in GNU-format messages (never "Read-only file system" or a temporary file)', async () => {
      const { apiKey } = await s.register('Scopes');
      await s.ok(apiKey, 'write', { path: '/f', content: 'hello\n' });
      await s.ok(apiKey, 'write', { path: '/d/g', content: 'g\n' });
      const writer = (await s.ok(apiKey, 'create_key', { label: 'no-delete', scopes: ['files:read', 'files:write'] })).apiKey;
      const reader = (await s.ok(apiKey, 'create_key', { label: 'read', scopes: ['files:read'] })).apiKey;
      const D = 'Permission denied (this key lacks files:delete)';
      const W = 'Permission denied (this key lacks files:write)';
      const expect: Array<[string, string, string, number]> = [
        [writer, 'rm f', `rm: cannot remove 'f': ${D}\n`, 1],
        [writer, 'rm -r /d', `rm: cannot remove '/d': ${D}\n`, 1],
        [writer, 'mv f g', `mv: cannot move 'f' to 'g': ${D}\n`, 1],
        [reader, 'mkdir /newdir', `mkdir: cannot create directory '/newdir': ${W}\n`, 1],
        [reader, 'touch f', `touch: cannot touch 'f': ${W}\n`, 1],
        [reader, 'cp f g', `cp: cannot create regular file 'g': ${W}\n`, 1],
        [reader, 'mv f g', `mv: cannot move 'f' to 'g': ${W}\n`, 1],
        [reader, 'sed -i s/h/j/ f', `sed: couldn't edit f: ${W}\n`, 4],
        [reader, 'echo x > f', `bash: f: ${W}\n`, 1],
        [reader, 'echo x | tee -a f >/dev/null', `tee: f: ${W}\n`, 1],
      ];
      for (const [key, cmd, stderr, code] of expect) {
        const r = await bash(s, key, cmd);
        assert.deepEqual([r.stderr, r.exitCode, r.changesetId], [stderr, code, null], cmd);
      }
      assert.equal((await s.ok(apiKey, 'read', { path: '/f' })).content, 'hello\n');
    });

    it('a third concurrent bash call: 429 naming the bash concurrency limit (details, headers), not the request budget; get_key_info reports it', async () => {
      const { apiKey } = await s.register('Busy');
      const info = await s.ok(apiKey, 'get_key_info', { includeLimits: true });
      assert.equal(info.limits.bashConcurrent, 2);
      const slow = [s.call(apiKey, 'bash', { command: 'sleep 1' }), s.call(apiKey, 'bash', { command: 'sleep 1' })];
      await new Promise((r) => setTimeout(r, 200));
      const third = await s.call(apiKey, 'bash', { command: 'echo hi' });
      assert.equal(third.status, 429);
      assert.equal(third.inner.error.code, 'RATE_LIMITED');
      assert.deepEqual(third.inner.error.details, { limit: 'bash_concurrency', max: 2, running: 2, retryAfterSeconds: 1 });
      assert.match(third.inner.error.message, /BASH_MAX_CONCURRENT_PER_AGENT = 2.*not the request budget/s);
      assert.equal(third.headers.get('retry-after'), '1');
      assert.equal(third.headers.get('x-bash-concurrency-limit'), '2');
      assert.equal(third.headers.get('x-bash-concurrency-running'), '2');
      assert.ok(Number(third.headers.get('x-ratelimit-remaining')) > 0, 'the request budget was not the cause');
      for (const r of await Promise.all(slow)) assert.equal(r.inner.exitCode, 0);
      const skill = await (await fetch(`${s.url}/skill.md`)).text();
      assert.match(skill, /at most 2 commands of an agent at once \(one more: 429 `RATE_LIMITED` with `details\.limit: "bash_concurrency"`/);
      // One statement of the limit: none that says the others wait.
      assert.doesNotMatch(skill, /wait their turn/);
    });
  });
}

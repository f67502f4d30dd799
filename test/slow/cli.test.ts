/**
 * The `afs` command line as a new user runs it: the real binary (node bin/afs.mjs) in a child
 * process with a fresh HOME and no AFS_CREDENTIALS, against a real server on each backend. And
 * `afs mcp` driven by the MCP SDK's own stdio client.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createTestDatabase, heavyBackends, type TestDatabase } from '../helpers/backends.js';
import { freePort, spawnServer, type ChildServer } from '../helpers/server.js';

const BIN = fileURLToPath(new URL('../../../bin/afs.mjs', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The user's environment: a fresh HOME, the server as AFS_BASE_URL, no credentials override. */
function userEnv(home: string, url: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'AFS_CREDENTIALS' && k !== 'XDG_CONFIG_HOME') env[k] = v;
  return { ...env, HOME: home, AFS_BASE_URL: url };
}

/** Spawned, not spawnSync: the in-process server answers on this process's event loop. */
function afs(env: Record<string, string>, ...args: string[]): Promise<Run> {
  return afsWithInput(env, null, ...args);
}

/** `afs …` with `input` written to its stdin, which is then closed (null: no stdin). */
function afsWithInput(env: Record<string, string>, input: string | null, ...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: [input === null ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (input !== null) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A shell command under a pseudo-terminal (util-linux script), its whole output. */
function underPty(env: Record<string, string>, command: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...env, COLUMNS: '120' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr: '' }));
  });
}

/** 1,000 small files in 20 directories: text (quotes, $, backslashes, CRLF) and some binary. */
function makeTree(dir: string, count: number): void {
  for (let i = 0; i < count; i++) {
    const d = join(dir, `d${i % 20}`, `s${i % 3}`);
    mkdirSync(d, { recursive: true });
    const content = i % 50 === 0 ? randomBytes(100 + i) : `line ${i}: it's "quoted" $HOME \\n\r\n`.repeat(1 + (i % 4));
    writeFileSync(join(d, `f${i}.txt`), content);
  }
}

/** The files of a local tree, without the sync's own manifest (.afs-sync.json). */
function files(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && e.name !== '.afs-sync.json') out.set(relative(dir, join(e.parentPath, e.name)), readFileSync(join(e.parentPath, e.name)));
  }
  return out;
}

// The CLI is a client: what it does is the same whatever store the server uses, and its cost is
// ~50 child processes per backend (~70 s). A slow suite: test:slow runs it on SQLite with the
// other slow files, then on PostgreSQL in its HEAVY_BACKENDS=postgres pass (scripts/run-tests.mjs).
const TREE = 1000;
for (const backend of heavyBackends()) {
  describe(`afs command line (${backend})`, () => {
    let s: ChildServer;
    let db: TestDatabase;
    let home: string;
    let env: Record<string, string>;
    before(async () => {
      db = await createTestDatabase(backend);
      // A server process of its own: the CLI's thousands of calls get a core of their own rather
      // than this process's event loop. Output shapes are validated by the other suites; here
      // validating every read of a 1,000-file pull only slowed the run.
      s = await spawnServer({ ...db.env, LOG_LEVEL: 'warn', VALIDATE_OUTPUTS: '0' }, await freePort());
      home = mkdtempSync(join(tmpdir(), 'afs-cli-'));
      env = userEnv(home, s.url);
    });
    after(async () => {
      rmSync(home, { recursive: true, force: true });
      await s.kill('SIGTERM');
      await db.drop();
    });

    it('without credentials a verb exits 3 and says to register; a refused key 3, no service 4', async () => {
      const r = await afs(env, 'ls');
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stderr, /afs register <name>/);
      // The other documented codes of a failed start: a refused key (3), no service there (4).
      const bad = join(home, 'bad.json');
      writeFileSync(bad, JSON.stringify({ baseUrl: s.url, apiKey: `mk_${'x'.repeat(43)}` }));
      const refused = await afs({ ...env, AFS_CREDENTIALS: bad }, 'ls');
      assert.equal(refused.code, 3, refused.stderr);
      writeFileSync(bad, JSON.stringify({ baseUrl: 'http://127.0.0.1:9', apiKey: `mk_${'x'.repeat(43)}` }));
      const unreachable = await afs({ ...env, AFS_CREDENTIALS: bad }, 'ls');
      assert.equal(unreachable.code, 4, unreachable.stderr);
      assert.match(unreachable.stderr, /cannot reach the service/);
    });

    it('register saves the key with mode 0600 and does not print it; whoami --json parses', async () => {
      const r = await afs(env, 'register', 'Cli User');
      assert.equal(r.code, 0, r.stderr);
      const path = join(home, '.config', 'agent-file-service', 'credentials.json');
      assert.equal(statSync(path).mode & 0o777, 0o600);
      const creds = JSON.parse(readFileSync(path, 'utf8'));
      assert.equal(creds.baseUrl, s.url);
      assert.ok(!r.stdout.includes(creds.apiKey) && !r.stderr.includes(creds.apiKey), 'the key is never printed unasked');
      const again = await afs(env, 'register', 'Other');
      assert.equal(again.code, 2, 'existing credentials are not replaced without --force');
      const who = await afs(env, 'whoami', '--json');
      assert.equal(who.code, 0, who.stderr);
      assert.equal(JSON.parse(who.stdout).agent.slug, creds.slug);
    });

    it(`push sends ${TREE} files in one changeset, then only the 3 changed; pull reproduces the tree byte for byte`, async () => {
      const src = join(home, 'src');
      makeTree(src, TREE);
      const first = await afs(env, 'push', src, '/proj');
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, new RegExp(`push: ${TREE} file\\(s\\) sent .*0 unchanged skipped`));
      assert.match(first.stderr, new RegExp(`^push: \\d+/${TREE} files`, 'm'), 'progress as plain lines when not a terminal');
      const changeset = /changeset (cs_\w+)/.exec(first.stdout)![1];
      for (const p of ['/proj/d0/s0/f0.txt', `/proj/d${(TREE - 1) % 20}/s${(TREE - 1) % 3}/f${TREE - 1}.txt`]) {
        const v = await s.ok(
          JSON.parse(readFileSync(join(home, '.config', 'agent-file-service', 'credentials.json'), 'utf8')).apiKey,
          'list_versions',
          { path: p },
        );
        assert.equal(v.versions[0].changesetId, changeset, `${p} came with the push's one changeset`);
      }

      writeFileSync(join(src, 'd0', 's0', 'f0.txt'), 'changed\n');
      writeFileSync(join(src, 'd5', 's2', 'f5.txt'), randomBytes(64));
      writeFileSync(join(src, 'new file.md'), '# new\n');
      const second = await afs(env, 'push', src, '/proj', '--json');
      assert.equal(second.code, 0, second.stderr);
      const summary = JSON.parse(second.stdout);
      assert.equal(summary.sent, 3);
      assert.equal(summary.skipped, TREE - 2);
      assert.match(summary.changesetId, /^cs_/);

      const dst = join(home, 'dst');
      const pulled = await afs(env, 'pull', '/proj', dst);
      assert.equal(pulled.code, 0, pulled.stderr);
      const want = files(src);
      const got = files(dst);
      assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort());
      for (const [rel, bytes] of want) assert.ok(bytes.equals(got.get(rel)!), `${rel} differs after pull`);
      const again = await afs(env, 'pull', '/proj', dst, '--json');
      assert.equal(JSON.parse(again.stdout).sent, 0, 'nothing to fetch the second time');
    });

    it('afs bash passes the remote exit code through; a tool error exits 1 with its code on stderr; --json parses', async () => {
      const hit = await afs(env, 'bash', 'grep -rn changed /proj/d0');
      assert.equal(hit.code, 0, hit.stderr);
      assert.match(hit.stdout, /f0\.txt:1:changed/);
      const miss = await afs(env, 'bash', 'grep -rn no-such-text-anywhere /proj/d0');
      assert.equal(miss.code, 1);
      const notFound = await afs(env, 'cat', '/no/such/file');
      assert.equal(notFound.code, 1);
      assert.match(notFound.stderr, /NOT_FOUND/);
      for (const args of [
        ['ls', '/proj', '--json'],
        ['log', '/proj/d0/s0/f0.txt', '--json'],
        ['call', 'stat', '{"path": "/proj"}'],
      ]) {
        const r = await afs(env, ...args);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(JSON.parse(r.stdout).success, true, args.join(' '));
      }
      const usage = await afs(env, 'edit', '/proj/d0/s0/f0.txt');
      assert.equal(usage.code, 2, 'a missing --old/--new is a usage error');
    });

    it('put, get, edit, diff, restore and log work like their shell namesakes', async () => {
      const bin = join(home, 'b.bin');
      writeFileSync(bin, randomBytes(3000));
      assert.equal((await afs(env, 'put', bin, '/files/')).code, 0);
      const back = join(home, 'b.back');
      assert.equal((await afs(env, 'get', '/files/b.bin', back)).code, 0);
      assert.ok(readFileSync(bin).equals(readFileSync(back)), 'binary round trip');
      const txt = join(home, 'a.txt');
      writeFileSync(txt, 'alpha\nbeta\n');
      assert.equal((await afs(env, 'put', txt, '/files/a.txt')).code, 0);
      const edited = await afs(env, 'edit', '/files/a.txt', '--old', 'beta', '--new', 'gamma');
      assert.equal(edited.code, 0, edited.stderr);
      assert.match((await afs(env, 'diff', '/files/a.txt')).stdout, /-beta\n\+gamma/);
      assert.equal((await afs(env, 'restore', '/files/a.txt', '--version', '1')).code, 0);
      assert.equal((await afs(env, 'cat', '/files/a.txt')).stdout, 'alpha\nbeta\n');
      assert.match((await afs(env, 'log', '/files/a.txt')).stdout, /^v3 .* restore /m);
    });

    it("heartbeat keeps heartbeat.md's state (/heartbeat/state.json in the agent's tree) and reports what arrived since", async () => {
      const me = JSON.parse(readFileSync(join(home, '.config', 'agent-file-service', 'credentials.json'), 'utf8'));
      const first = await afs(env, 'heartbeat');
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /First heartbeat: read .*skill\.md/);
      const state = JSON.parse((await s.ok(me.apiKey, 'read', { path: '/heartbeat/state.json' })).content);
      assert.ok(state.skillVersion && state.lastHeartbeatAt && state.sha256['skill.md'], JSON.stringify(state));
      const other = await s.register('Heartbeat Friend');
      await s.ok(other.apiKey, 'write', { path: '/report.md', content: '# report\n' });
      await s.ok(other.apiKey, 'publish', { path: '/report.md', title: 'A report' });
      await s.ok(other.apiKey, 'follow', { slug: me.slug });
      const second = await afs(env, 'heartbeat');
      assert.equal(second.code, 0, second.stderr);
      assert.doesNotMatch(second.stdout, /First heartbeat/);
      assert.match(second.stdout, /1 published item\(s\) by others since the last run/);
      assert.match(second.stdout, /notification/);
    });

    it('afs mcp serves the tools over stdio: list, write then read, a tool error as isError', async () => {
      const client = new McpClient({ name: 'afs-cli-test', version: '1' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env, stderr: 'ignore' }));
      try {
        const { tools } = await client.listTools();
        assert.ok(['write', 'read', 'bash', 'get_home', 'enable_toolset'].every((n) => tools.some((t) => t.name === n)));
        // enable_toolset goes through the bridge, and so does the service's list_changed.
        const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve()));
        const on = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'social' } });
        assert.notEqual(on.isError, true, JSON.stringify(on));
        await changed;
        assert.ok((await client.listTools()).tools.some((t) => t.name === 'follow'));
        const w = await client.callTool({ name: 'write', arguments: { path: '/mcp/a.md', content: 'via stdio' } });
        assert.notEqual(w.isError, true, JSON.stringify(w));
        const r = (await client.callTool({ name: 'read', arguments: { path: '/mcp/a.md' } })) as { content: { text: string }[] };
        assert.equal(JSON.parse(r.content[0]!.text).content, 'via stdio');
        const e = (await client.callTool({ name: 'read', arguments: { path: '/mcp/missing.md' } })) as {
          isError?: boolean;
          content: { text: string }[];
        };
        assert.equal(e.isError, true);
        assert.equal(JSON.parse(e.content[0]!.text).error.code, 'NOT_FOUND');
      } finally {
        await client.close();
      }
    });

    const me = () => JSON.parse(readFileSync(join(home, '.config', 'agent-file-service', 'credentials.json'), 'utf8'));

    it('push refuses to overwrite a version it did not see (conflict list), --force overrides; pull refuses over local edits', async () => {
      const { apiKey } = me();
      const wc = join(home, 'wc');
      mkdirSync(wc);
      writeFileSync(join(wc, 'a.md'), 'a1\n');
      writeFileSync(join(wc, 'b.md'), 'b1\n');
      assert.equal((await afs(env, 'push', wc, '/wc')).code, 0);
      const copy = join(home, 'wc-copy');
      assert.equal((await afs(env, 'pull', '/wc', copy)).code, 0);
      // Another writer appends (v2); the pulled copy is edited and pushed.
      await s.ok(apiKey, 'append', { path: '/wc/a.md', content: 'remote line\n' });
      await s.ok(apiKey, 'write', { path: '/wc/c.md', content: 'made remotely\n' });
      writeFileSync(join(copy, 'a.md'), 'local edit\n');
      writeFileSync(join(copy, 'c.md'), 'made locally\n');
      writeFileSync(join(copy, 'd.md'), 'new\n');
      const refused = await afs(env, 'push', copy, '/wc');
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /push refused: 2 file\(s\) changed on the service/);
      assert.match(refused.stderr, /^ {2}a\.md: the service has v2; you last synced v1$/m);
      assert.match(refused.stderr, /^ {2}c\.md: exists on the service \(v1\) and was never pulled here$/m);
      assert.match(refused.stderr, /afs push --force/);
      assert.equal((await s.ok(apiKey, 'read', { path: '/wc/a.md' })).content, 'a1\nremote line\n', 'the remote change is intact');
      assert.equal((await s.call(apiKey, 'read', { path: '/wc/d.md' })).inner.error.code, 'NOT_FOUND', 'nothing was sent');
      const json = await afs(env, 'push', copy, '/wc', '--json');
      assert.deepEqual(
        JSON.parse(json.stdout).conflicts.map((c: { path: string }) => c.path),
        ['a.md', 'c.md'],
      );
      const forced = await afs(env, 'push', copy, '/wc', '--force', '--json');
      assert.equal(forced.code, 0, forced.stderr);
      assert.equal(JSON.parse(forced.stdout).sent, 3);
      assert.equal((await s.ok(apiKey, 'read', { path: '/wc/a.md' })).content, 'local edit\n');
      // The forced push is now what this copy last synced: a further edit pushes without --force.
      writeFileSync(join(copy, 'b.md'), 'b2\n');
      assert.equal((await afs(env, 'push', copy, '/wc')).code, 0);

      // pull: a local edit since the last sync is not overwritten; an untouched local file is.
      await s.ok(apiKey, 'write', { path: '/wc/b.md', content: 'b3 remote\n' });
      await s.ok(apiKey, 'write', { path: '/wc/d.md', content: 'd remote\n' });
      writeFileSync(join(copy, 'b.md'), 'b local edit\n');
      const pullRefused = await afs(env, 'pull', '/wc', copy);
      assert.equal(pullRefused.code, 1, pullRefused.stderr);
      assert.match(pullRefused.stderr, /pull refused: 1 local file\(s\) changed/);
      assert.match(pullRefused.stderr, /^ {2}b\.md: edited locally since you synced v2; the service has v3$/m);
      assert.equal(readFileSync(join(copy, 'b.md'), 'utf8'), 'b local edit\n');
      assert.equal(readFileSync(join(copy, 'd.md'), 'utf8'), 'new\n', 'a refused pull writes nothing');
      const pulledForce = await afs(env, 'pull', '/wc', copy, '--force');
      assert.equal(pulledForce.code, 0, pulledForce.stderr);
      assert.equal(readFileSync(join(copy, 'b.md'), 'utf8'), 'b3 remote\n');
      assert.equal(readFileSync(join(copy, 'd.md'), 'utf8'), 'd remote\n');
    });

    it('push and pull work through a write share; pull through /published; push there is refused', async () => {
      const owner = await s.register('Bo Builder');
      await s.ok(owner.apiKey, 'write', { path: '/projects/wc-lite/readme.md', content: 'v1\n' });
      await s.ok(owner.apiKey, 'share', { path: '/projects/wc-lite', with: me().slug, permission: 'write' });
      const mount = `/shared/${owner.slug}/projects/wc-lite`;
      const local = join(home, 'wc-lite');
      const pulled = await afs(env, 'pull', mount, local);
      assert.equal(pulled.code, 0, pulled.stderr);
      assert.equal(readFileSync(join(local, 'readme.md'), 'utf8'), 'v1\n');
      writeFileSync(join(local, 'readme.md'), 'v2 by the collaborator\n');
      mkdirSync(join(local, 'src'));
      writeFileSync(join(local, 'src', 'main.ts'), 'export {};\n');
      const pushed = await afs(env, 'push', local, mount);
      assert.equal(pushed.code, 0, pushed.stderr);
      assert.equal((await s.ok(owner.apiKey, 'read', { path: '/projects/wc-lite/readme.md' })).content, 'v2 by the collaborator\n');
      assert.equal((await s.ok(owner.apiKey, 'read', { path: '/projects/wc-lite/src/main.ts' })).content, 'export {};\n');
      await s.ok(owner.apiKey, 'append', { path: '/projects/wc-lite/readme.md', content: 'owner\n' });
      writeFileSync(join(local, 'readme.md'), 'v3 by the collaborator\n');
      const refused = await afs(env, 'push', local, mount);
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /^ {2}readme\.md: the service has v3; you last synced v2$/m);

      await s.ok(owner.apiKey, 'publish', { path: '/projects/wc-lite', title: 'wc-lite' });
      const published = join(home, 'published');
      const fromPublished = await afs(env, 'pull', `/published/${owner.slug}/projects/wc-lite`, published);
      assert.equal(fromPublished.code, 0, fromPublished.stderr);
      assert.equal(readFileSync(join(published, 'src', 'main.ts'), 'utf8'), 'export {};\n');
      writeFileSync(join(published, 'new.md'), 'x\n');
      const readOnly = await afs(env, 'push', published, `/published/${owner.slug}/projects/wc-lite`);
      assert.equal(readOnly.code, 1, readOnly.stderr);
      assert.match(readOnly.stderr, /FORBIDDEN/);
    });

    it('takes the saved registration response (AFS_CREDENTIALS, file or JSON, with AFS_BASE_URL) and afs login', async () => {
      const other = await s.register('Saved Response');
      const saved = join(home, 'registration.json');
      writeFileSync(saved, JSON.stringify(other));
      for (const creds of [saved, JSON.stringify(other)]) {
        const r = await afs({ ...env, AFS_CREDENTIALS: creds }, 'whoami', '--json');
        assert.equal(r.code, 0, r.stderr);
        assert.equal(JSON.parse(r.stdout).agent.slug, other.slug);
        assert.ok(!r.stdout.includes(other.apiKey), 'the inline credentials are never echoed');
      }
      const { AFS_BASE_URL: _, ...noBase } = env;
      const lacking = await afs({ ...noBase, AFS_CREDENTIALS: saved }, 'whoami');
      assert.equal(lacking.code, 3);
      assert.match(lacking.stderr, /no baseUrl: set AFS_BASE_URL/);

      const fresh = mkdtempSync(join(tmpdir(), 'afs-login-'));
      try {
        const loginEnv = userEnv(fresh, s.url);
        const bad = await afs(loginEnv, 'login', '--key', `mk_${'x'.repeat(43)}`);
        assert.equal(bad.code, 3, 'a refused key is not saved');
        const ok = await afsWithInput(loginEnv, `${other.apiKey}\n`, 'login', '--key', '-', '--base-url', s.url);
        assert.equal(ok.code, 0, ok.stderr);
        assert.match(ok.stdout, new RegExp(`Logged in as @${other.slug}`));
        const path = join(fresh, '.config', 'agent-file-service', 'credentials.json');
        assert.equal(statSync(path).mode & 0o777, 0o600);
        assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), {
          baseUrl: s.url,
          apiKey: other.apiKey,
          id: other.id,
          name: other.name,
          slug: other.slug,
        });
        const who = await afs(userEnv(fresh, 'http://127.0.0.1:9'), 'whoami', '--json');
        assert.equal(JSON.parse(who.stdout).agent.slug, other.slug, 'the saved base URL wins over AFS_BASE_URL');
        const again = await afs(loginEnv, 'login', '--key', me().apiKey);
        assert.equal(again.code, 2, 'another key is not saved over without --force');
      } finally {
        rmSync(fresh, { recursive: true, force: true });
      }
    });

    it('afs mcp answers every request piped in before stdin closes', async () => {
      const messages = [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'stat', arguments: { path: '/' } } },
      ];
      const r = await afsWithInput(env, messages.map((m) => `${JSON.stringify(m)}\n`).join(''), 'mcp');
      assert.equal(r.code, 0, r.stderr);
      const answers = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2, 3], r.stdout.slice(0, 500));
      assert.ok(answers.find((a) => a.id === 2).result.tools.some((t: { name: string }) => t.name === 'write'));
      assert.equal(answers.find((a) => a.id === 3).result.isError, undefined);
    });

    it('a push over one write_files call (1,100 files) still lands as one changeset on the target, staging removed', async () => {
      const src = join(home, 'big');
      for (let i = 0; i < 1100; i++) {
        mkdirSync(join(src, `g${i % 10}`), { recursive: true });
        writeFileSync(join(src, `g${i % 10}`, `b${i}.txt`), `big ${i}\n`);
      }
      const r = await afs(env, 'push', src, '/big', '--json');
      assert.equal(r.code, 0, r.stderr);
      const summary = JSON.parse(r.stdout);
      assert.equal(summary.sent, 1100);
      const key = JSON.parse(readFileSync(join(home, '.config', 'agent-file-service', 'credentials.json'), 'utf8')).apiKey;
      for (const p of ['/big/g0/b0.txt', '/big/g9/b1099.txt']) {
        const v = await s.ok(key, 'list_versions', { path: p });
        assert.equal(v.versions[0].changesetId, summary.changesetId, `${p} came with the push's last changeset`);
      }
      const left = await s.ok(key, 'bash', { command: 'ls -a /big' });
      assert.ok(!left.stdout.includes('.afs-push-'), left.stdout);
    });

    it('under a terminal, push draws a progress bar', async () => {
      const src = join(home, 'tty');
      makeTree(src, 30);
      const r = await underPty(env, `'${process.execPath}' '${BIN}' push '${src}' /tty`);
      assert.equal(r.code, 0, r.stdout);
      assert.match(r.stdout, /push \[[█░]+\] 100% \| 30\/30 files/);
      assert.match(r.stdout, /push: 30 file\(s\) sent/);
    });
  });
}

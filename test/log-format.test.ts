/**
 * Logs (`npm start` in a terminal): readable lines and a start-up banner when stdout is
 * a terminal, JSON lines otherwise; keys never appear in either. The formatter as a pure
 * function, then the real server on both backends: with stdout a pipe, and under a
 * pseudo-terminal (`script`).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { banner, chooseLogFormat, dataLocation, formatLogLine, prettyStream, scrubKeys } from '../src/http/log-format.js';
import { generateApiKey } from '../src/core/keys.js';
import { backends, createTestDatabase, type TestDatabase } from './helpers/backends.js';
import { freePort, spawnServer, type ChildServer } from './helpers/server.js';

const CLOCK = /^\d\d:\d\d:\d\d\.\d{3}$/;
const SERVER_JS = fileURLToPath(new URL('../src/server.js', import.meta.url));

describe('log formatter (pure)', () => {
  it('a request line reads "time METHOD url status ms"', () => {
    const line = JSON.stringify({
      level: 30,
      time: Date.now(),
      pid: 1,
      hostname: 'h',
      reqId: 'r',
      method: 'POST',
      url: '/api/tools/read',
      status: 200,
      ms: 3.1,
      msg: 'request completed',
    });
    const out = formatLogLine(line);
    const [time, ...rest] = out.split(' ');
    assert.match(time!, CLOCK);
    assert.equal(rest.join(' '), 'POST /api/tools/read 200 3.1 ms');
  });

  it('other lines read "time LEVEL message key=value", an error with its stack below', () => {
    const out = formatLogLine(
      JSON.stringify({ level: 40, time: 0, pid: 1, hostname: 'h', msg: 'slow store', store: 'sqlite', waited: 12, note: 'two words' }),
    );
    assert.match(out, /^\d\d:\d\d:\d\d\.\d{3} WARN {2}slow store store=sqlite waited=12 note="two words"$/);
    const err = formatLogLine(
      JSON.stringify({
        level: 50,
        time: 0,
        msg: 'internal error',
        err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at f (a.js:1:1)\n    at g (b.js:2:2)' },
      }),
    );
    const lines = err.split('\n');
    assert.match(lines[0]!, /ERROR internal error err="Error: boom"$/);
    assert.deepEqual(lines.slice(1), ['    at f (a.js:1:1)', '    at g (b.js:2:2)']);
    assert.equal(formatLogLine('not json at all'), 'not json at all');
  });

  it('colors only when asked', () => {
    const line = JSON.stringify({ level: 30, time: 0, method: 'GET', url: '/x', status: 500, ms: 1 });
    assert.ok(!formatLogLine(line).includes('\u001b['));
    assert.ok(formatLogLine(line, { color: true }).includes('\u001b[31m500'));
  });

  it('never prints a key, whole or in part, wherever it sits in the line', () => {
    const key = generateApiKey();
    for (const entry of [
      { level: 30, time: 0, method: 'GET', url: `/x?key=${key}`, status: 401, ms: 1 },
      { level: 30, time: 0, msg: `got ${key}` },
      { level: 30, time: 0, msg: 'x', header: `Bearer ${key.slice(0, 20)}` },
    ]) {
      const out = formatLogLine(JSON.stringify(entry));
      assert.ok(!out.includes(key.slice(3, 9)), out);
    }
    assert.equal(scrubKeys(`a ${key} b`), 'a mk_… b');
    assert.equal(formatLogLine(`raw ${key}`), 'raw mk_…');
  });

  it('chooses readable lines for a terminal and JSON otherwise; LOG_FORMAT overrides', () => {
    assert.equal(chooseLogFormat('auto', true), 'pretty');
    assert.equal(chooseLogFormat('auto', false), 'json');
    assert.equal(chooseLogFormat('json', true), 'json');
    assert.equal(chooseLogFormat('pretty', false), 'pretty');
  });

  it('the stream formats whole lines, whatever the chunking', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const s = prettyStream(out);
    const a = JSON.stringify({ level: 30, time: 0, method: 'GET', url: '/a', status: 200, ms: 1 });
    const b = JSON.stringify({ level: 30, time: 0, msg: 'hello' });
    const all = `${a}\n${b}\n`;
    s.write(all.slice(0, 10));
    s.write(all.slice(10, a.length + 5));
    s.write(all.slice(a.length + 5));
    await new Promise<void>((resolve) => s.end(resolve));
    const lines = text.trimEnd().split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, / GET \/a 200 1 ms$/);
    assert.match(lines[1]!, / INFO {2}hello$/);
  });

  it('the banner: URL, store, data location (no password), and the first two commands', () => {
    assert.equal(dataLocation({ databaseUrl: undefined, dataDir: './data' }, '/srv/afs'), '/srv/afs/data/afs.sqlite');
    assert.equal(dataLocation({ databaseUrl: undefined, dataDir: '/var/lib/afs/' }), '/var/lib/afs/afs.sqlite');
    const pg = dataLocation({ databaseUrl: 'postgres://afs:s3cret@db.local:5432/afs', dataDir: './data' });
    assert.ok(!pg.includes('s3cret') && pg.includes('db.local:5432/afs'), pg);
    const text = banner({ version: '1.2.3', baseUrl: 'http://127.0.0.1:3000', store: 'sqlite', data: '/srv/afs/data/afs.sqlite' });
    assert.match(text, /agent-file-service 1\.2\.3 listening on http:\/\/127\.0\.0\.1:3000/);
    assert.match(text, /store: SQLite · data: \/srv\/afs\/data\/afs\.sqlite/);
    assert.ok(text.includes('curl -s http://127.0.0.1:3000/skill.md'));
    assert.ok(
      text.includes(`curl -s -X POST http://127.0.0.1:3000/api/users/register -H 'Content-Type: application/json' -d '{"name": "my-agent"}'`),
    );
  });
});

/** Registers and calls with the key in the header and in a query string; returns the key. */
async function exercise(url: string): Promise<string> {
  const reg = await fetch(`${url}/api/users/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"name": "Logged"}',
  });
  const { apiKey } = (await reg.json()) as { apiKey: string };
  await fetch(`${url}/api/tools/get_key_info?key=${apiKey}`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` } });
  await fetch(`${url}/api/tools/get_key_info`, { method: 'POST', headers: { authorization: apiKey } });
  return apiKey;
}

for (const backend of backends()) {
  describe(`server logs (${backend})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await createTestDatabase(backend);
    });
    after(() => db.drop());

    it('stdout a pipe: JSON lines only, the ready line names store and data location; no key', async () => {
      const server: ChildServer = await spawnServer(db.env, await freePort());
      try {
        const key = await exercise(server.url);
        await new Promise((r) => setTimeout(r, 300));
        const lines = server.output().trim().split('\n');
        for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), line);
        const ready = lines.map((l) => JSON.parse(l)).find((e) => e.msg === 'agent-file-service ready');
        assert.equal(ready.store, backend);
        assert.equal(typeof ready.data, 'string');
        assert.ok(
          lines.some((l) => JSON.parse(l).url === '/api/tools/get_key_info?key=mk_…'),
          'the query-string key is scrubbed',
        );
        assert.ok(!server.output().includes(key.slice(3, 9)), 'no part of the key is logged');
        assert.doesNotMatch(server.output(), /Try:/);
      } finally {
        await server.kill('SIGTERM');
      }
    });

    it('stdout a terminal: a banner and one readable line per request; no JSON, no key', async () => {
      const port = await freePort();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'info',
        REGISTRATIONS_PER_IP_PER_HOUR: '0',
        ...db.env,
      };
      delete env.LOG_FORMAT;
      // `script` runs the server under a pseudo-terminal: its stdout is a TTY, as in `npm start`.
      const child = spawn('script', ['-qfec', `${process.execPath} ${SERVER_JS}`, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise((r) => child.once('exit', r));
      try {
        const deadline = Date.now() + 20_000;
        while (!out.includes('One line per request')) {
          if (child.exitCode !== null || Date.now() > deadline) assert.fail(`no banner: ${out}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        const url = `http://127.0.0.1:${port}`;
        const key = await exercise(url);
        await fetch(`${url}/skill.md`);
        await new Promise((r) => setTimeout(r, 300));
        const text = out.replace(/\u001b\[\d+m/g, '').replace(/\r/g, '');
        assert.match(text, new RegExp(`listening on ${url}`));
        assert.match(text, new RegExp(`store: ${backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'} · data: `));
        assert.ok(text.includes(`curl -s ${url}/skill.md`));
        assert.ok(text.includes(`curl -s -X POST ${url}/api/users/register`));
        assert.match(text, /^\d\d:\d\d:\d\d\.\d{3} POST \/api\/users\/register 201 [\d.]+ ms$/m);
        assert.match(text, /^\d\d:\d\d:\d\d\.\d{3} GET \/skill\.md 200 [\d.]+ ms$/m);
        assert.match(text, /^\d\d:\d\d:\d\d\.\d{3} POST \/api\/tools\/get_key_info\?key=mk_… 200 /m);
        assert.doesNotMatch(text, /^\{"level"/m, 'no JSON lines');
        assert.ok(!text.includes(key.slice(3, 9)), 'no part of the key');
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
    });
  });
}

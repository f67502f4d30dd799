/**
 * The SDK (src/client) against a real server on both backends: every tool reachable through its
 * typed method (walking the registry), results and errors as a client sees them, retries (a proxy
 * that answers 503/429 first; a mutating call whose answer was lost is retried once and makes one
 * version), redirects (the key never follows one to another origin), the credentials file.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AgentFiles, NetworkError, ToolError, TransportError, TOOLS, type ReadOutput, type ToolName } from '../src/client/index.js';
import { CredentialsError, readCredentials, writeCredentials } from '../src/client/credentials.js';
import { backoff, retryAfterSeconds, sameService } from '../src/client/transport.js';
import { buildRegistry } from '../src/tools/index.js';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
}

/**
 * A proxy in front of the server whose `plan` decides each request's fate: forward it, forward it
 * and then answer 503 (the answer is lost), answer a status without forwarding, or redirect.
 */
async function startProxy(target: string) {
  const seen: Seen[] = [];
  const plan: ((
    req: Seen,
  ) =>
    | { kind: 'forward' }
    | { kind: 'lose' }
    | { kind: 'status'; status: number; headers?: Record<string, string> }
    | { kind: 'redirect'; status: number; location: string })[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const entry: Seen = { method: req.method!, url: req.url!, authorization: req.headers.authorization, body: Buffer.concat(chunks).toString() };
    seen.push(entry);
    const step = plan.shift()?.(entry) ?? { kind: 'forward' };
    if (step.kind === 'status') {
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      return res.end(
        JSON.stringify({ content: [{ type: 'text', text: JSON.stringify({ error: { code: 'UNAVAILABLE', message: 'busy' } }) }], isError: true }),
      );
    }
    if (step.kind === 'redirect') {
      res.writeHead(step.status, { location: step.location });
      return res.end();
    }
    const url = req.url!.replace(/^\/via/, '');
    const upstream = await fetch(target + url, {
      method: req.method!,
      headers: { 'content-type': 'application/json', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) },
      ...(req.method === 'POST' ? { body: entry.body } : {}),
    });
    const text = await upstream.text();
    if (step.kind === 'lose') {
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '0' });
      return res.end('lost');
    }
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    res.end(text);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, plan, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const fast = { backoffMs: 1, maxBackoffMs: 5 };

describe('SDK transport rules (pure)', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    assert.equal(retryAfterSeconds('7'), 7);
    assert.equal(retryAfterSeconds(null), null);
    assert.equal(retryAfterSeconds('soon'), null);
    assert.equal(retryAfterSeconds(new Date(10_000 + 3_000).toUTCString(), 10_000), 3);
  });
  it('waits Retry-After when given, else a jittered doubling backoff under its cap', () => {
    assert.equal(backoff(1, 2, { backoffMs: 100, maxBackoffMs: 1000 }), 2000);
    for (let attempt = 1; attempt <= 6; attempt++) {
      const base = Math.min(100 * 2 ** (attempt - 1), 1000);
      const w = backoff(attempt, null, { backoffMs: 100, maxBackoffMs: 1000 });
      assert.ok(w >= base / 2 && w <= base, `attempt ${attempt}: ${w}`);
    }
  });
  it('keeps the key within the base URL origin (an upgrade to https of the same host allowed)', () => {
    const from = new URL('http://www.example.com/api');
    assert.equal(sameService(from, new URL('http://www.example.com/other')), true);
    assert.equal(sameService(from, new URL('https://www.example.com/api')), true);
    assert.equal(sameService(from, new URL('http://example.com/api')), false);
    assert.equal(sameService(from, new URL('http://www.example.com:8080/api')), false);
    assert.equal(sameService(new URL('https://www.example.com'), new URL('http://www.example.com')), false);
  });
});

for (const backend of backends()) {
  describe(`SDK against a real server (${backend})`, () => {
    let s: TestServer;
    let afs: AgentFiles;
    before(async () => {
      s = await startServer(backend);
      ({ client: afs } = await AgentFiles.register({ baseUrl: s.url, name: 'Sdk Agent' }));
    });
    after(() => s.close());

    it('has one method per registered tool, named in camelCase, and TOOLS matches the registry', () => {
      const registry = buildRegistry().all();
      assert.deepEqual(TOOLS.map((t) => t.name).sort(), registry.map((t) => t.name).sort());
      for (const tool of registry) {
        const info = TOOLS.find((t) => t.name === tool.name)!;
        assert.equal(info.mutating, tool.mutating, tool.name);
        assert.deepEqual([...info.scopes], tool.scopes, tool.name);
        assert.equal(typeof (afs as unknown as Record<string, unknown>)[info.method], 'function', `${tool.name} → ${info.method}`);
      }
    });

    it('reaches every tool through its method: each answers with its own result or tool error, none is unknown', async () => {
      const { client: walker } = await AgentFiles.register({ baseUrl: s.url, name: 'Sdk Walker' });
      // rotate_key last: with an empty input it would rotate this key (and leave it read-only).
      const order = [...TOOLS].sort((a, b) => Number(a.name === 'rotate_key') - Number(b.name === 'rotate_key'));
      for (const tool of order) {
        const method = (walker as unknown as Record<string, (i: object, o?: object) => Promise<unknown>>)[tool.method]!;
        try {
          const result = (await method.call(walker, {}, { retries: 0 })) as { success?: boolean };
          assert.equal(result.success, true, tool.name);
        } catch (err) {
          assert.ok(err instanceof ToolError, `${tool.name}: ${String(err)}`);
          assert.equal(err.tool, tool.name);
          assert.match(err.code, /^[A-Z_]+$/);
          assert.ok(err.message.length > 10, `${tool.name}: ${err.message}`);
        }
      }
    });

    it('returns parsed, typed results (write → read → edit → list_versions)', async () => {
      const w = await afs.write({ path: '/sdk/a.txt', content: 'one\ntwo\n' });
      assert.equal(w.version, 1);
      assert.match(w.contentHash, /^sha256:[0-9a-f]{64}$/);
      const r: ReadOutput = await afs.read({ path: '/sdk/a.txt' });
      assert.equal(r.content, 'one\ntwo\n');
      const e = await afs.edit({ path: '/sdk/a.txt', old_string: 'two', new_string: 'three', expectedVersion: r.version });
      assert.equal(e.version, 2);
      const v = await afs.listVersions({ path: '/sdk/a.txt' });
      assert.deepEqual(
        v.versions.map((x) => x.version),
        [2, 1],
      );
    });

    it('maps a tool error to ToolError with code, message and details', async () => {
      const err = await afs.read({ path: '/sdk/missing.txt' }).then(
        () => assert.fail('read of a missing file succeeded'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof ToolError);
      assert.equal(err.code, 'NOT_FOUND');
      assert.equal(err.tool, 'read');
      assert.equal(err.details.path, '/sdk/missing.txt');
      assert.match(err.message, /missing\.txt/);
    });

    it('maps refusals of the request itself to TransportError (401, unknown tool), distinct from tool errors', async () => {
      const stranger = new AgentFiles({ baseUrl: s.url, apiKey: 'mk_' + 'x'.repeat(40), ...fast });
      const e401 = await stranger.getKeyInfo().catch((e: unknown) => e);
      assert.ok(e401 instanceof TransportError && !(e401 instanceof ToolError));
      assert.equal(e401.status, 401);
      assert.equal(e401.code, 'UNAUTHORIZED');
      const e404 = await afs.call('no_such_tool' as ToolName, {} as never).catch((e: unknown) => e);
      assert.ok(e404 instanceof TransportError);
      assert.equal(e404.status, 404);
      assert.equal(e404.code, 'UNKNOWN_TOOL');
    });

    it('retries a read after 503 and 429, honouring Retry-After', async () => {
      const proxy = await startProxy(s.url);
      try {
        const viaProxy = new AgentFiles({ baseUrl: proxy.url, apiKey: (await s.register('Sdk Retry')).apiKey, ...fast });
        await viaProxy.write({ path: '/r.txt', content: 'r' });
        proxy.seen.length = 0;
        proxy.plan.push(
          () => ({ kind: 'status', status: 503, headers: { 'retry-after': '0' } }),
          () => ({ kind: 'status', status: 429, headers: { 'retry-after': '1' } }),
        );
        const t0 = Date.now();
        const r = await viaProxy.read({ path: '/r.txt' });
        assert.equal(r.content, 'r');
        assert.equal(proxy.seen.length, 3, 'two refusals, then the answer');
        assert.ok(Date.now() - t0 >= 950, `Retry-After: 1 was honoured (${Date.now() - t0} ms)`);
        // Past the retries, the last refusal is the error.
        proxy.plan.push(...Array.from({ length: 3 }, () => () => ({ kind: 'status' as const, status: 503, headers: { 'retry-after': '0' } })));
        const e = await viaProxy.read({ path: '/r.txt' }, { retries: 2 }).catch((x: unknown) => x);
        assert.ok(e instanceof TransportError);
        assert.equal(e.status, 503);
        assert.equal(e.retryAfterSeconds, 0);
      } finally {
        await proxy.close();
      }
    });

    it('retries a mutating call whose answer was lost once, with one idempotencyKey: one version, not two', async () => {
      const proxy = await startProxy(s.url);
      try {
        const viaProxy = new AgentFiles({ baseUrl: proxy.url, apiKey: (await s.register('Sdk Lost')).apiKey, ...fast });
        proxy.plan.push(() => ({ kind: 'lose' }));
        const w = await viaProxy.write({ path: '/once.txt', content: 'first\n' });
        assert.equal(w.version, 1);
        assert.equal(w.replayed, true, 'the retry got the stored answer');
        const sent = proxy.seen.filter((x) => x.url === '/api/tools/write').map((x) => JSON.parse(x.body) as { idempotencyKey?: string });
        assert.equal(sent.length, 2);
        assert.ok(sent[0]!.idempotencyKey && sent[0]!.idempotencyKey === sent[1]!.idempotencyKey, 'the same automatic key twice');
        const versions = await viaProxy.listVersions({ path: '/once.txt' });
        assert.equal(versions.versions.length, 1);
        // Without an idempotencyKey a mutating call is never retried.
        proxy.plan.push(() => ({ kind: 'lose' }));
        const e = await viaProxy.append({ path: '/once.txt', content: 'x' }, { idempotent: false }).catch((x: unknown) => x);
        assert.ok(e instanceof TransportError && e.status === 503);
        assert.equal((await viaProxy.listVersions({ path: '/once.txt' })).versions.length, 2, 'the lost append happened once');
      } finally {
        await proxy.close();
      }
    });

    it('never sends the key after a redirect to another origin; follows a same-origin 308', async () => {
      const elsewhere = await startProxy(s.url);
      const proxy = await startProxy(s.url);
      try {
        const key = (await s.register('Sdk Redirect')).apiKey;
        const viaProxy = new AgentFiles({ baseUrl: proxy.url, apiKey: key, ...fast });
        proxy.plan.push(() => ({ kind: 'redirect', status: 308, location: `${elsewhere.url}/api/tools/get_key_info` }));
        const e = await viaProxy.getKeyInfo().catch((x: unknown) => x);
        assert.ok(e instanceof TransportError);
        assert.equal(e.code, 'REDIRECT_REFUSED');
        assert.equal(e.details.location, `${elsewhere.url}/api/tools/get_key_info`);
        assert.equal(elsewhere.seen.length, 0, 'nothing reached the other origin');
        proxy.plan.push(() => ({ kind: 'redirect', status: 308, location: '/via/api/tools/get_key_info' }));
        const info = await viaProxy.getKeyInfo();
        assert.equal(info.success, true);
        assert.equal(proxy.seen.at(-1)!.authorization, `Bearer ${key}`);
      } finally {
        await proxy.close();
        await elsewhere.close();
      }
    });

    it('gives NetworkError when nothing answers, after its retries', async () => {
      const closed = await startProxy(s.url);
      await closed.close();
      const e = await new AgentFiles({ baseUrl: closed.url, apiKey: 'mk_x', retries: 1, ...fast }).getKeyInfo().catch((x: unknown) => x);
      assert.ok(e instanceof NetworkError, String(e));
      assert.match(e.message, /get_key_info/);
    });

    it('saves credentials 0600 and builds a client from them', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'afs-sdk-'));
      try {
        const { registration } = await AgentFiles.register({ baseUrl: s.url, name: 'Sdk Creds' });
        assert.match(registration.apiKey, /^mk_/);
        const file = join(dir, 'nested', 'credentials.json');
        await writeCredentials({ baseUrl: s.url, ...registration }, file);
        assert.equal((await stat(file)).mode & 0o777, 0o600);
        assert.equal((await stat(join(dir, 'nested'))).mode & 0o777, 0o700);
        assert.equal((await readCredentials(file)).apiKey, registration.apiKey);
        const fromFile = await AgentFiles.fromCredentials(file);
        const info = await fromFile.getKeyInfo();
        assert.equal(info.success, true);
        await assert.rejects(
          AgentFiles.fromCredentials(join(dir, 'none.json')),
          (e: unknown) => e instanceof CredentialsError && /afs register/.test(e.message),
        );
        // The registration response as skill.md says to save it (no baseUrl): AFS_BASE_URL gives the service.
        const saved = join(dir, 'registration.json');
        await writeFile(
          saved,
          JSON.stringify(
            await (
              await fetch(`${s.url}/api/users/register`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: '{"name": "Saved As Told"}',
              })
            ).json(),
          ),
        );
        const creds = await readCredentials(saved, { AFS_BASE_URL: `${s.url}/` });
        assert.equal(creds.baseUrl, s.url);
        assert.equal((await new AgentFiles(creds).getKeyInfo()).agent.name, 'Saved As Told');
        assert.equal((await readCredentials(await readFile(saved, 'utf8'), { AFS_BASE_URL: s.url })).apiKey, creds.apiKey, 'the JSON itself');
        await assert.rejects(
          readCredentials(saved, {}),
          (e: unknown) => e instanceof CredentialsError && /no baseUrl: set AFS_BASE_URL/.test(e.message),
        );
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
}

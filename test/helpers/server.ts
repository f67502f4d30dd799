/**
 * Running the real server for tests: in-process (buildApp + listen on a free port) for most
 * suites, or as a child process (`node dist/src/server.js`) where a test kills it or reads its
 * logs. Calls go over real HTTP with fetch and return what a client sees; suites whose point is
 * not the socket may start with `{ via: 'inject' }`: the same Client API through
 * `app.inject()` (the whole Fastify pipeline, no TCP), which is faster.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before } from 'node:test';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/http/app.js';
import { generateApiKey, hashApiKey, keyPreview, newId } from '../../src/core/keys.js';
import { expandScopes } from '../../src/core/scopes.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/types.js';
import { toolErrors } from '../../src/tools/describe.js';
import { buildRegistry } from '../../src/tools/index.js';
import type { Config } from '../../src/config.js';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, testConfig, type Backend, type TestDatabase } from './backends.js';

// As src/server.ts does at process start: bash prints times in UTC (just-bash's date reads the
// process's zone, shared by the worker threads).
process.env.TZ = 'UTC';

export interface CallResult {
  status: number;
  headers: Headers;
  body: any;
  /** The parsed inner JSON of content[0].text (undefined if the body is not an envelope). */
  inner: any;
  isError: boolean;
  /** The body as sent (for hashes and markdown). */
  text: string;
}

/** How a Client reaches the app: a request in, status, headers and body text out. */
export type Send = (path: string, init: RequestInit) => Promise<{ status: number; headers: Headers; text: string }>;

const viaFetch =
  (url: string): Send =>
  async (path, init) => {
    const res = await fetch(url + path, init);
    return { status: res.status, headers: res.headers, text: await res.text() };
  };

/** Through Fastify's inject: routing, hooks, parsers, error handlers, without a socket. */
export function viaInject(app: FastifyInstance): Send {
  return async (path, init) => {
    const res = await app.inject({
      method: (init.method ?? 'GET') as 'GET',
      url: path,
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      payload: init.body as string | Buffer | undefined,
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) for (const x of Array.isArray(v) ? v : [v]) if (x !== undefined) headers.append(k, String(x));
    return { status: res.statusCode, headers, text: res.body };
  };
}

/** Each tool's documented error codes, as clients read them (built once, from the registry). */
let documentedErrors: Map<string, Set<string>> | undefined;

function checkDocumented(tool: string, code: unknown, input: unknown): void {
  documentedErrors ??= new Map(
    buildRegistry()
      .all()
      .map((t) => [t.name, new Set<string>(toolErrors(t))]),
  );
  const documented = documentedErrors.get(tool);
  if (typeof code === 'string' && documented?.has(code)) return;
  throw new assert.AssertionError({
    message:
      `${tool} answered ${String(code)}, which it does not document (its errors: ${[...(documented ?? [])].join(', ') || 'not a registered tool'}); ` +
      `input ${JSON.stringify(input).slice(0, 200)}. Declare the code on the tool (or in toolErrors), do not loosen this check.`,
    actual: code,
    expected: [...(documented ?? [])],
    operator: 'documented',
  });
}

export interface Registered {
  id: string;
  name: string;
  slug: string;
  apiKey: string;
  createdAt: string;
}

export class Client {
  private readonly send: Send;

  /** `send` defaults to fetch against `url`. */
  constructor(
    readonly url: string,
    send?: Send,
  ) {
    this.send = send ?? viaFetch(url);
  }

  async raw(path: string, init: RequestInit = {}): Promise<CallResult> {
    const res = await this.send(path, init);
    const text = res.text;
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    let inner: any;
    if (body && Array.isArray(body.content) && body.content[0]?.type === 'text') inner = JSON.parse(body.content[0].text);
    return { status: res.status, headers: res.headers, body, inner, isError: body?.isError === true, text };
  }

  /**
   * Calls a tool. A tool error (an error envelope at HTTP 200) must be one the tool documents
   * (toolErrors: its reference page and OpenAPI): any other code fails the test here,
   * whatever the test expected. Transport errors (401, 404 UNKNOWN_TOOL, 413, 429 …) keep their
   * own HTTP status and are not a tool's.
   */
  async call(key: string | null, tool: string, input: unknown = {}): Promise<CallResult> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key) headers.authorization = `Bearer ${key}`;
    const r = await this.raw(`/api/tools/${tool}`, { method: 'POST', headers, body: JSON.stringify(input) });
    if (r.status === 200 && r.isError) checkDocumented(tool, r.inner?.error?.code, input);
    return r;
  }

  /** Calls a tool and asserts success, returning the inner result. */
  async ok(key: string, tool: string, input: unknown = {}): Promise<any> {
    const r = await this.call(key, tool, input);
    if (r.status !== 200 || r.isError || r.inner?.success !== true) {
      throw new Error(`${tool} ${JSON.stringify(input).slice(0, 200)} failed: ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
    }
    return r.inner;
  }

  /** Calls a tool and asserts a tool-level error, returning inner.error. */
  async fail(key: string, tool: string, input: unknown, code: string): Promise<any> {
    const r = await this.call(key, tool, input);
    if (r.status !== 200 || !r.isError || r.inner?.error?.code !== code) {
      throw new Error(`${tool} expected ${code}, got ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
    }
    return r.inner.error;
  }

  async register(name = 'Test Agent'): Promise<Registered> {
    const r = await this.raw('/api/users/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    if (r.status !== 201) throw new Error(`register failed: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }
}

export interface TestServer extends Client {
  backend: Backend;
  store: Store;
  config: Config;
  logs: string[];
  /** Creates an extra key for an agent with the given scopes/folder (the minting tool is a later issue). */
  addKey(agentId: string, opts: { scopes: string[]; folder?: string; label?: string; expiresAtMs?: number; revokedAtMs?: number }): Promise<string>;
  close(): Promise<void>;
}

/**
 * `via: 'inject'` serves the Client through app.inject() instead of a listening socket; `url`
 * is then a placeholder that fetch refuses, so a suite cannot mix the two by accident.
 */
export async function startServer(
  backend: Backend,
  overrides: Record<string, string> = {},
  opts: { via?: 'http' | 'inject' } = {},
): Promise<TestServer> {
  const db = await createTestDatabase(backend);
  const config = testConfig(db, overrides);
  const store = openStore(config);
  await store.migrate();
  const logs: string[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
  const app = buildApp({ config, store, registry: buildRegistry(), logStream });
  let client: Client;
  if (opts.via === 'inject') {
    await app.ready();
    client = new Client('inject:', viaInject(app));
  } else {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    client = new Client(`http://127.0.0.1:${port}`);
  }
  return Object.assign(client, {
    backend,
    store,
    config,
    logs,
    async addKey(agentId: string, opts: { scopes: string[]; folder?: string; label?: string; expiresAtMs?: number; revokedAtMs?: number }) {
      const key = generateApiKey();
      await store.insertKey({
        id: newId('key'),
        agentId,
        hash: hashApiKey(key),
        label: opts.label ?? 'test',
        scopes: expandScopes(opts.scopes),
        folder: opts.folder ?? null,
        preview: keyPreview(key),
        createdAtMs: Date.now(),
        lastUsedAtMs: null,
        expiresAtMs: opts.expiresAtMs ?? null,
        revokedAtMs: opts.revokedAtMs ?? null,
        createdByKeyId: null,
      });
      return key;
    },
    async close() {
      await app.close();
      await store.close();
      await db.drop();
    },
  });
}

const SERVER_JS = fileURLToPath(new URL('../../src/server.js', import.meta.url));

export interface ChildServer extends Client {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `node dist/src/server.js` with the given env on a free port and waits until ready. */
export async function spawnServer(env: Record<string, string>, port: number): Promise<ChildServer> {
  const child = spawn(process.execPath, [SERVER_JS], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'info',
      REGISTRATIONS_PER_IP_PER_HOUR: '0',
      RATE_LIMIT_PER_MINUTE: '1000000',
      VALIDATE_OUTPUTS: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const client = new Client(`http://127.0.0.1:${port}`);
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}): ${out}`);
    try {
      const r = await fetch(`${client.url}/readyz`);
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not ready in 15 s: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return Object.assign(client, {
    child,
    output: () => out,
    exited,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  });
}

/**
 * A free TCP port on 127.0.0.1 for a child server, drawn at random below the ephemeral range
 * (32768–60999 here). Asking the OS for a port (listen on 0) and handing it to a child that
 * starts a moment later raced with in-process test servers, which listen on 0 in parallel test
 * files: one was given the same port, answered the child's readiness probe, and the test talked
 * to the wrong server (401 Unknown API key).
 */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  const canListen = (port: number) =>
    new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error('no free port in 20000–31999');
}

export { createTestDatabase, type TestDatabase };

/**
 * A suite that runs the server as a child process (crash tests): its own database and port,
 * made before the suite; after it the server still up is killed and the database dropped.
 */
export function childServerSuite(backend: Backend): { db: TestDatabase; port: number; server: ChildServer | null } {
  const suite = { db: null as unknown as TestDatabase, port: 0, server: null as ChildServer | null };
  before(async () => {
    suite.db = await createTestDatabase(backend);
    suite.port = await freePort();
  });
  after(async () => {
    await suite.server?.kill('SIGKILL');
    await suite.db.drop();
  });
  return suite;
}

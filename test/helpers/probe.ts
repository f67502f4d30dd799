/**
 * A child server for cost tests: heavy calls sent with a deadline (a call past it fails the
 * test instead of hanging it; the child is killed afterwards), while a second agent reads a
 * small file every 50 ms and the worst wait of those reads is recorded.
 */
import assert from 'node:assert/strict';
import { createTestDatabase, type Backend, type TestDatabase } from './backends.js';
import { freePort, spawnServer, type ChildServer } from './server.js';

export interface Answer {
  status: number;
  body: any;
  inner: any;
  text: string;
  ms: number;
}

export interface Probed extends Answer {
  /** The prober's slowest read while the call ran (Infinity: a read got no answer in 10 s). */
  worstProbe: number;
}

export interface CostServer {
  server: ChildServer;
  /** The heavy agent's key. */
  key: string;
  send(key: string, path: string, body: string, timeoutMs: number): Promise<Answer>;
  probed(tool: string, input: unknown, timeoutMs: number): Promise<Probed>;
  close(): Promise<void>;
}

export async function startCostServer(backend: Backend): Promise<CostServer> {
  const db: TestDatabase = await createTestDatabase(backend);
  const server = await spawnServer(db.env, await freePort());
  const key = (await server.register('Heavy')).apiKey;
  const probeKey = (await server.register('Prober')).apiKey;
  await server.ok(probeKey, 'write', { path: '/probe.txt', content: 'still here\n' });

  async function send(k: string, path: string, body: string, timeoutMs: number): Promise<Answer> {
    const t0 = performance.now();
    let res: Response;
    let text: string;
    try {
      res = await fetch(server.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${k}` },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      throw new Error(`POST ${path.slice(0, 40)}: no answer within ${timeoutMs} ms (${(err as Error).name})`);
    }
    const ms = performance.now() - t0;
    const parsed = JSON.parse(text);
    const inner = Array.isArray(parsed?.content) ? JSON.parse(parsed.content[0].text) : undefined;
    return { status: res.status, body: parsed, inner, text, ms };
  }

  async function probed(tool: string, input: unknown, timeoutMs: number): Promise<Probed> {
    let done = false;
    let worstProbe = 0;
    const probe = (async () => {
      while (!done) {
        const t0 = performance.now();
        try {
          const r = await send(probeKey, '/api/tools/read', JSON.stringify({ path: '/probe.txt' }), 10_000);
          assert.equal(r.inner.content, 'still here\n');
        } catch {
          worstProbe = Infinity;
          return;
        }
        worstProbe = Math.max(worstProbe, performance.now() - t0);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    try {
      return { ...(await send(key, `/api/tools/${tool}`, JSON.stringify(input), timeoutMs)), worstProbe };
    } finally {
      done = true;
      await probe;
    }
  }

  return {
    server,
    key,
    send,
    probed,
    async close() {
      await server.kill();
      await db.drop();
    },
  };
}

/** Asserts a probed call finished within `limit` and the prober never waited `probe` ms. */
export function inTime(r: Probed, what: string, limit: number, probe: number): void {
  assert.ok(r.ms < limit, `${what}: the call took ${r.ms.toFixed(0)} ms (limit ${limit} ms)`);
  assert.ok(r.worstProbe < probe, `${what}: another agent waited ${r.worstProbe.toFixed(0)} ms for a read (limit ${probe} ms)`);
}

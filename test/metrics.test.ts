/**
 * GET /metrics on both backends: Prometheus text with the service's own metrics (tool
 * calls by tool/outcome/transport, latency, in-flight, HTTP requests, rate-limit rejections, store
 * commits and batch sizes, bash workers and queue, the PostgreSQL pool) and the process's (event
 * loop lag, CPU, memory); labels bounded (no path, agent id or key ever appears); METRICS_TOKEN.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { backends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

/** The value of one sample (`name{labels} value`), or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1]!, x[2]!]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

const mcpRead = (s: TestServer, key: string, path: string) =>
  s.raw('/mcp', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read', arguments: { path } } }),
  });

for (const backend of backends()) {
  describe(`GET /metrics (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startServer(backend);
    });
    after(() => s.close());

    it('counts tool calls by tool, outcome and transport, with latency, commits, bash and process metrics', async () => {
      const { apiKey, id } = await s.register('Metered Agent');
      await s.ok(apiKey, 'write', { path: '/secret-project/plan.md', content: 'x\n' });
      await s.fail(apiKey, 'read', { path: '/secret-project/missing.md' }, 'NOT_FOUND');
      assert.equal((await s.call(apiKey, 'no_such_tool')).status, 404);
      assert.equal((await mcpRead(s, apiKey, '/secret-project/plan.md')).status, 200);
      await s.ok(apiKey, 'bash', { command: 'cat /secret-project/plan.md | wc -l' });

      const r = await s.raw('/metrics');
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const text = r.text;
      assert.equal(sample(text, 'afs_tool_calls_total', { tool: 'write', outcome: 'ok', transport: 'rest' }), 1);
      assert.equal(sample(text, 'afs_tool_calls_total', { tool: 'read', outcome: 'NOT_FOUND', transport: 'rest' }), 1);
      assert.equal(sample(text, 'afs_tool_calls_total', { tool: 'unknown', outcome: 'UNKNOWN_TOOL', transport: 'rest' }), 1);
      assert.equal(sample(text, 'afs_tool_calls_total', { tool: 'read', outcome: 'ok', transport: 'mcp' }), 1);
      assert.equal(sample(text, 'afs_tool_calls_total', { tool: 'bash', outcome: 'ok', transport: 'rest' }), 1);
      assert.equal(sample(text, 'afs_tool_call_duration_seconds_count', { tool: 'write', outcome: 'ok' }), 1);
      assert.ok(sample(text, 'afs_tool_call_duration_seconds_sum', { tool: 'write', outcome: 'ok' })! > 0);
      assert.equal(sample(text, 'afs_tool_calls_in_flight'), 0);
      assert.ok(sample(text, 'afs_http_requests_total', { route: '/api/tools/:toolName', method: 'POST', status: '200' })! >= 3);
      assert.ok(sample(text, 'afs_http_requests_total', { route: '/mcp', method: 'POST', status: '200' })! >= 1);
      assert.ok(sample(text, 'afs_store_commit_duration_seconds_count')! >= 2, 'registration and the write committed');
      assert.ok(sample(text, 'afs_store_commit_batch_size_count')! >= 2);
      const busy = sample(text, 'afs_bash_workers', { state: 'busy' });
      const idle = sample(text, 'afs_bash_workers', { state: 'idle' });
      assert.equal(busy, 0);
      assert.ok(idle! >= 1, 'the worker that ran cat is idle now');
      assert.equal(sample(text, 'afs_bash_queue_length'), 0);
      for (const name of [
        'nodejs_eventloop_lag_seconds',
        'nodejs_eventloop_lag_p99_seconds',
        'process_cpu_user_seconds_total',
        'process_resident_memory_bytes',
      ]) {
        assert.ok(sample(text, name) !== undefined, name);
      }
      const pool = sample(text, 'afs_pg_pool_connections', { state: 'total' });
      if (backend === 'postgres') assert.ok(pool! >= 1, 'the pool has connections');
      else assert.equal(pool, undefined, 'no pool on SQLite');
      // Bounded labels: nothing of the agent's paths, its id or its key.
      for (const secret of ['secret-project', 'plan.md', id, apiKey, 'no_such_tool'])
        assert.ok(!text.includes(secret), `${secret} leaked into /metrics`);
    });
  });
}

describe('GET /metrics: rate limits and the token', () => {
  let s: TestServer;
  const token = 'metrics-token-0123456789';
  before(async () => {
    s = await startServer('sqlite', { RATE_LIMIT_PER_MINUTE: '3', METRICS_TOKEN: token });
  });
  after(() => s.close());

  it('needs METRICS_TOKEN when one is set (401 without or with another)', async () => {
    const none = await s.raw('/metrics');
    assert.equal(none.status, 401);
    assert.equal(none.body.error.code, 'UNAUTHORIZED');
    assert.equal(none.headers.get('www-authenticate'), 'Bearer');
    assert.equal((await s.raw('/metrics', { headers: { authorization: `Bearer ${token.slice(0, -1)}x` } })).status, 401);
    assert.equal((await s.raw('/metrics', { headers: { authorization: `Bearer ${token}` } })).status, 200);
    assert.throws(
      () => loadConfig({ METRICS_TOKEN: 'short' }),
      (e: unknown) => e instanceof ConfigError && /METRICS_TOKEN/.test(e.message),
    );
  });

  it('counts rate-limit rejections (REST 429 and MCP calls refused)', async () => {
    const { apiKey } = await s.register('Limited');
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await s.call(apiKey, 'get_key_info')).status);
    const refused = statuses.filter((x) => x === 429).length;
    assert.ok(refused >= 2, `${statuses}`);
    const text = (await s.raw('/metrics', { headers: { authorization: `Bearer ${token}` } })).text;
    assert.equal(sample(text, 'afs_rate_limit_rejections_total', { kind: 'tool' }), refused);
    assert.equal(sample(text, 'afs_http_requests_total', { route: '/api/tools/:toolName', method: 'POST', status: '429' }), refused);
  });
});

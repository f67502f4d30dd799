/**
 * The cost guard: what each hot call does — SQL statements (PostgreSQL: round trips), the
 * statements among them that write, synchronous file-system calls, and the bytes of its answer —
 * counted (not timed) and compared with the table checked in at docs/call-costs.md. A change that
 * adds a statement or a round trip to a hot path fails here until the table is updated in the same
 * commit, so the cost shows in review with its reason. Counts are deterministic: the calls run
 * one at a time over Fastify's inject, each counted in its own async context (helpers/call-counter.ts),
 * and each scenario's count is the median of several calls (a once-a-minute rate-window lookup
 * cannot move it). Answer bytes may differ by a few bytes between runs (ids, times): ±ANSWER_SLACK.
 *
 * UPDATE_CALL_COSTS=1 rewrites the table from this run (then review the diff and say why in the
 * commit). docs/call-costs.md says what each column means.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { backends, type Backend } from './helpers/backends.js';
import { installCallCounter, measure, type CallCount } from './helpers/call-counter.js';
import { startServer, type CallResult, type TestServer } from './helpers/server.js';

installCallCounter();

const TABLE = fileURLToPath(new URL('../../docs/call-costs.md', import.meta.url));
const START = '<!-- call-costs:start -->';
const END = '<!-- call-costs:end -->';
const RUNS = 7;
/** Answer bytes vary with ids and times only: a real change in an answer's shape moves more than this. */
const ANSWER_SLACK = 0.03;

interface Row extends CallCount {
  scenario: string;
  backend: Backend;
  bytes: number;
}

interface Scenario {
  name: string;
  /** Read-only calls must write nothing. */
  readOnly: boolean;
  call(s: TestServer, key: string, i: number): Promise<CallResult>;
}

const KB = 'x'.repeat(63) + '\n';
const ONE_KB = KB.repeat(16);

const scenarios: Scenario[] = [
  { name: 'noop (get_key_info)', readOnly: true, call: (s, k) => s.call(k, 'get_key_info', {}) },
  { name: 'read 1 KB', readOnly: true, call: (s, k) => s.call(k, 'read', { path: '/hot/read.txt' }) },
  { name: 'stat', readOnly: true, call: (s, k) => s.call(k, 'stat', { path: '/hot/read.txt' }) },
  { name: 'list (10 entries)', readOnly: true, call: (s, k) => s.call(k, 'list', { path: '/hot/dir' }) },
  {
    name: 'write 1 KB',
    readOnly: false,
    call: (s, k, i) => s.call(k, 'write', { path: '/hot/write.txt', content: `${i.toString().padStart(6, '0')}${ONE_KB.slice(6)}` }),
  },
  {
    name: 'edit 1 line',
    readOnly: false,
    call: (s, k, i) => s.call(k, 'edit', { path: '/hot/edit.txt', old_string: `line ${i}\n`, new_string: `line ${i + 1}\n` }),
  },
  { name: 'append', readOnly: false, call: (s, k, i) => s.call(k, 'append', { path: '/hot/append.txt', content: `row ${i}\n` }) },
  { name: 'bash cat', readOnly: true, call: (s, k) => s.call(k, 'bash', { command: 'cat /hot/read.txt' }) },
  // get_home records the visit (what is new is counted from it): one write by design.
  { name: 'get_home', readOnly: false, call: (s, k) => s.call(k, 'get_home', {}) },
  { name: 'search', readOnly: true, call: (s, k) => s.call(k, 'search', { query: 'quartz', types: ['files'] }) },
  {
    name: 'MCP read',
    readOnly: true,
    call: (s, k, i) =>
      s.raw('/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${k}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'read', arguments: { path: '/hot/read.txt' } } }),
      }),
  },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function seed(s: TestServer, key: string): Promise<void> {
  await s.ok(key, 'write', { path: '/hot/read.txt', content: ONE_KB });
  for (let i = 0; i < 10; i++) await s.ok(key, 'write', { path: `/hot/dir/f${i}.txt`, content: `file ${i} quartz\n` });
  await s.ok(key, 'write', { path: '/hot/edit.txt', content: 'head\nline 0\ntail\n' });
  await s.ok(key, 'write', { path: '/hot/append.txt', content: '' });
}

async function measureBackend(backend: Backend): Promise<Row[]> {
  // Periodic upkeep off: its timers run outside any call, but a tick that lands inside one must not
  // count for it either way (they are not in its async context; this keeps the process quiet).
  const s = await startServer(backend, { PACK_INTERVAL_MS: '0', PLANNER_STATS_INTERVAL_MS: '0' }, { via: 'inject' });
  try {
    const { apiKey } = await s.register('cost-guard');
    await seed(s, apiKey);
    const rows: Row[] = [];
    for (const sc of scenarios) {
      let i = 0; // each scenario counts its own calls (edit walks "line i" → "line i+1")
      // Warm: caches (key, grants, prepared statements) as a hot path finds them.
      for (let w = 0; w < 3; w++) assert.equal((await sc.call(s, apiKey, i++)).isError, false, sc.name);
      const counts: CallCount[] = [];
      const bytes: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        const { result, count } = await measure(() => sc.call(s, apiKey, i++));
        assert.equal(result.status, 200, `${sc.name}: ${result.text.slice(0, 300)}`);
        assert.equal(result.isError, false, `${sc.name}: ${result.text.slice(0, 300)}`);
        counts.push(count);
        bytes.push(Buffer.byteLength(result.text));
      }
      const writes = counts.reduce((n, c) => n + c.writes, 0);
      if (sc.readOnly) assert.equal(writes, 0, `${sc.name} (${backend}) is read-only but wrote ${writes} times in ${RUNS} calls`);
      rows.push({
        scenario: sc.name,
        backend,
        statements: median(counts.map((c) => c.statements)),
        writes: median(counts.map((c) => c.writes)),
        fsSync: median(counts.map((c) => c.fsSync)),
        bytes: median(bytes),
      });
    }
    return rows;
  } finally {
    await s.close();
  }
}

function render(rows: Row[]): string {
  const lines = ['| scenario | backend | statements | writes | sync fs calls | answer bytes |', '|---|---|---:|---:|---:|---:|'];
  for (const r of rows) lines.push(`| ${r.scenario} | ${r.backend} | ${r.statements} | ${r.writes} | ${r.fsSync} | ${r.bytes} |`);
  return lines.join('\n');
}

function parse(md: string): Map<string, Row> {
  const body = md.slice(md.indexOf(START) + START.length, md.indexOf(END));
  const out = new Map<string, Row>();
  for (const line of body.split('\n')) {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    if (cells.length !== 6 || !/^\d+$/.test(cells[2]!)) continue;
    const [scenario, backend, statements, writes, fsSync, bytes] = cells as [string, Backend, string, string, string, string];
    out.set(`${scenario}|${backend}`, { scenario, backend, statements: +statements, writes: +writes, fsSync: +fsSync, bytes: +bytes });
  }
  return out;
}

describe('the call counter', () => {
  it('counts a statement, a write and a synchronous fs call made inside a measured call, and nothing outside', async () => {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(':memory:');
    const { count } = await measure(async () => {
      db.exec('CREATE TABLE t (x INTEGER)');
      db.prepare('INSERT INTO t VALUES (1)').run();
      await Promise.resolve();
      db.prepare('SELECT x FROM t').get();
      readFileSync(TABLE);
    });
    db.prepare('SELECT x FROM t').get();
    db.close();
    assert.deepEqual(count, { statements: 3, writes: 2, fsSync: 1 });
  });
});

describe('call costs (docs/call-costs.md)', () => {
  const measured: Row[] = [];
  before(async () => {
    for (const b of backends()) measured.push(...(await measureBackend(b)));
  });

  after(() => {
    if (process.env.UPDATE_CALL_COSTS !== '1') return;
    const md = readFileSync(TABLE, 'utf8');
    const old = parse(md);
    // Keep the rows of a backend this run did not measure.
    const merged = [...measured, ...[...old.values()].filter((r) => !measured.some((m) => m.backend === r.backend))];
    const order = (r: Row) => scenarios.findIndex((s) => s.name === r.scenario) * 2 + (r.backend === 'sqlite' ? 0 : 1);
    merged.sort((a, b) => order(a) - order(b));
    writeFileSync(TABLE, md.slice(0, md.indexOf(START) + START.length) + '\n' + render(merged) + '\n' + md.slice(md.indexOf(END)));
  });

  it('each hot call does what the checked-in table says, no more and no less', () => {
    if (process.env.UPDATE_CALL_COSTS === '1') return;
    const table = parse(readFileSync(TABLE, 'utf8'));
    const diffs: string[] = [];
    for (const m of measured) {
      const t = table.get(`${m.scenario}|${m.backend}`);
      if (!t) {
        diffs.push(`${m.scenario} (${m.backend}): not in the table`);
        continue;
      }
      for (const f of ['statements', 'writes', 'fsSync'] as const) {
        if (m[f] !== t[f]) diffs.push(`${m.scenario} (${m.backend}): ${f} ${t[f]} in the table, ${m[f]} now`);
      }
      if (Math.abs(m.bytes - t.bytes) > Math.max(16, t.bytes * ANSWER_SLACK))
        diffs.push(`${m.scenario} (${m.backend}): answer ${t.bytes} bytes in the table, ${m.bytes} now`);
    }
    assert.deepEqual(
      diffs,
      [],
      `The cost of hot calls changed:\n  ${diffs.join('\n  ')}\n` +
        'If intended, run UPDATE_CALL_COSTS=1 node scripts/run-tests.mjs call-costs and commit docs/call-costs.md with the reason.\n' +
        `Measured:\n${render(measured)}`,
    );
  });
});

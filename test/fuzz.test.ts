/**
 * Property-based fuzzing of the tool endpoint (fast-check), in process: on SQLite in `npm test`,
 * on both backends (HEAVY_BACKENDS) in `npm run test:slow`.
 *
 * Bodies are valid examples of every registered tool with 0–4 mutations (wrong types, huge and
 * negative numbers, NaN-like strings, nested objects and arrays, unicode and lone surrogates,
 * long strings, missing and extra fields, `__proto__`/`constructor`/`prototype` keys, aliases,
 * idempotency keys), plus raw bodies (not JSON, truncated, nested up to 60 000 deep, over the size
 * limit, odd content types), unknown tool names and the same inputs through MCP `tools/call`.
 *
 * Every response must be a well-formed envelope with status 200/400/404/413/429 and a documented
 * code — never a 500, nor a JSON-RPC internal error over MCP — the server must stay up,
 * Object.prototype must stay clean, and memory must stay bounded (RSS growth after a warm-up
 * slice < 400 MB, the main thread's heap after a full GC < +64 MB).
 *
 * FUZZ_RUNS (default 500 on SQLite; `npm run test:slow` runs 40 000 over both backends) cases in total are split over the backends and FUZZ_CONCURRENCY
 * (default 8) workers, each with its own agent; FUZZ_SEED replays a run; FUZZ_TRACE=1 prints
 * memory every 5 000 cases; FUZZ_EXCLUDE=tool,… leaves tools out. `npm run fuzz` runs 200 000.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import fc from 'fast-check';
import { toolErrors } from '../src/tools/describe.js';
import { buildRegistry } from '../src/tools/index.js';
import { heavyBackends } from './helpers/backends.js';
import { startServer, type TestServer } from './helpers/server.js';

const registry = buildRegistry();
// npm test fuzzes on SQLite only (HEAVY_BACKENDS; 500 cases took ~40 s per backend on a loaded
// two-core machine); the slow pass runs 40,000 cases over both backends.
const BACKENDS = heavyBackends();
const TOTAL = Number(process.env.FUZZ_RUNS ?? 500);
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 8);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
// RSS moves with the bash worker threads' heaps and the allocator's per-thread arenas (observed
// 35–300 MB of growth between runs of the same size, flat over long runs): a generous bound that
// still catches a per-request leak. The main thread's heap after a full GC is the precise signal.
const RSS_BOUND_MB = Number(process.env.FUZZ_RSS_BOUND_MB ?? 400);
const HEAP_BOUND_MB = Number(process.env.FUZZ_HEAP_BOUND_MB ?? 64);
const MAX_BODY = 128 * 1024;

// A real garbage collection before each memory reading, so RSS growth measures what is retained.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const mb = (n: number) => (n / 2 ** 20).toFixed(0);
function memory() {
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, external: m.external + m.arrayBuffers };
}

/** Codes a tool may answer with at HTTP 200 (docs/contract/errors.md). */
/**
 * A tool error must be one the tool documents (its `errors` in the reference, plus the common ones):
 * derived from the registry, so a new family's codes (COOLDOWN, DUPLICATE_CONTENT …) are allowed
 * exactly for the tools that declare them. Raw bodies and unknown fields can reach any tool.
 */
const TOOL_CODES = new Map(registry.all().map((t) => [t.name, new Set<string>(toolErrors(t))]));
const TRANSPORT: Record<number, string> = { 400: 'INVALID_JSON', 404: 'UNKNOWN_TOOL', 413: 'PAYLOAD_TOO_LARGE', 429: 'RATE_LIMITED' };

// ---- what a worker (one agent) has, so examples can name real things -------------------------

interface Worker {
  n: number;
  cases: number;
  key: string;
  keyId: string;
  spareKeyId: string;
  changesetId: string;
}

const FIXTURES: Array<[string, string]> = [
  ['/f/a.txt', 'line one\nline two\nline three\n'],
  ['/f/dir/b.txt', 'bee\n'],
  ['/f/m1.txt', 'move me\n'],
  ['/f/gone.txt', 'delete me\n'],
  ['/f/purge-me.txt', 'purge me\n'],
  ['/f/dir2/c.txt', 'see\n'],
];

/** Valid inputs per tool (placeholders: $CS a changeset id, $KEY a spare key id); registry examples are added. */
const BASES: Record<string, Array<Record<string, unknown>>> = {
  write: [
    { path: '/f/w.txt', content: 'hello\n' },
    { path: '/f/a.txt', content: 'x', mode: 'create' },
    { path: '/f/b64', content: 'aGVsbG8=', encoding: 'base64', expectedVersion: 1 },
  ],
  read: [{ path: '/f/a.txt' }, { path: '/f/a.txt', offset: 2, limit: 1 }, { path: '/f/a.txt', version: 1, encoding: 'base64' }],
  stat: [{ path: '/f/a.txt' }, { path: '/f/dir', version: 1 }],
  list: [{ path: '/f' }, { path: '/', recursive: true, limit: 5 }, { path: '/f', cursor: 'eyJhIjoiL2YvYS50eHQiLCJwIjoiL2YiLCJyIjpmYWxzZX0' }],
  mkdir: [{ path: '/f/newdir/x' }],
  delete: [{ path: '/f/gone.txt' }, { path: '/f/dir2', recursive: true, expectedVersion: 1 }],
  edit: [
    { path: '/f/a.txt', old_string: 'line', new_string: 'LINE', replace_all: true, dryRun: true },
    { path: '/f/a.txt', edits: [{ old_string: 'one', new_string: '1' }], expectedUpdatedAt: '2026-01-01T00:00:00.000Z' },
  ],
  append: [{ path: '/f/log.txt', content: 'x\n' }],
  move: [{ from: '/f/m1.txt', to: '/f/m2.txt', overwrite: true }],
  copy: [{ from: '/f/a.txt', to: '/f/c.txt', overwrite: true }],
  list_versions: [
    { path: '/f/a.txt', limit: 2, before: 2 },
    { path: '/f/a.txt', before: 'eyJ1cGRhdGVkQXRNcyI6MSwicGF0aCI6Ii9mL2EudHh0IiwidmVyc2lvbiI6MX0' },
  ],
  diff: [{ path: '/f/a.txt', from: 1, to: 2 }],
  restore: [{ path: '/f/a.txt', version: 1, dryRun: true }],
  list_changes: [
    { since: 0, limit: 3 },
    { path: '/f', before: 5 },
  ],
  revert_changeset: [{ changesetId: '$CS', dryRun: true }],
  list_deleted: [
    { path: '/', limit: 10 },
    { path: '/f', cursor: 'eyJhIjoiL2YvYS50eHQifQ' },
  ],
  purge: [{ path: '/f/purge-me.txt', confirm: true }],
  bash: [{ command: 'grep -rn line /f | head -3', cwd: '/f' }, { command: 'ls -la /; cat /f/a.txt | wc -l' }],
  get_key_info: [{}],
  create_key: [
    { label: 'fz', scopes: ['files:read'], folder: '/f', expiresInSeconds: 3600 },
    { label: 'fz2', preset: 'read-only', expiresAt: '2030-01-01T00:00:00Z' },
  ],
  list_keys: [{}],
  revoke_key: [{ keyId: '$KEY' }],
  rotate_key: [{ keyId: '$KEY', gracePeriodSeconds: 0 }],
};

// FUZZ_EXCLUDE=bash,… leaves tools out (for narrowing down a finding).
const EXCLUDED = new Set((process.env.FUZZ_EXCLUDE ?? '').split(',').filter(Boolean));
const TOOLS = registry.names().filter((t) => !EXCLUDED.has(t));
const baseInputs = (tool: string): Array<Record<string, unknown>> => {
  const examples = registry
    .get(tool)!
    .examples.map((e) => JSON.parse(JSON.stringify(e.input).replaceAll('cs_EXAMPLE', '$CS').replaceAll('key_EXAMPLE', '$KEY')));
  return [...(BASES[tool] ?? []), ...examples];
};
const KNOWN_FIELDS = [...new Set(registry.all().flatMap((t) => Object.keys(t.input.shape)))];

// ---- arbitraries ---------------------------------------------------------------------------

/** An object with an own enumerable `__proto__` (or other prototype-ish) key, as JSON.parse makes. */
const polluted = fc
  .tuple(
    fc.constantFrom('__proto__', 'constructor', 'prototype'),
    fc.constantFrom<unknown>({ polluted: true }, { prototype: { polluted: true } }, 'x', 1, null),
  )
  .map(([k, v]) => {
    const o: Record<string, unknown> = {};
    Object.defineProperty(o, k, { value: v, enumerable: true, configurable: true, writable: true });
    return o;
  });

const longString = fc
  .tuple(fc.constantFrom('a', 'line\n', 'é', '𝕏', '\u0000', ' ', '../', '{"'), fc.integer({ min: 1_000, max: 150_000 }))
  .map(([s, n]) => s.repeat(Math.ceil(n / s.length)));

const deep = fc.tuple(fc.integer({ min: 50, max: 20_000 }), fc.boolean()).map(([n, arr]) => {
  let v: unknown = 'bottom';
  for (let i = 0; i < Math.min(n, 3000); i++) v = arr ? [v] : { a: v };
  return v;
});

const nastyNumber = fc.constantFrom<unknown>(1e300, -1e20, 1.5, 2 ** 31, 2 ** 53, -1, 0, 'x', null, 1e15);
/** Cursors and list_versions' nextCursor tokens are base64url JSON the client hands back: forged ones. */
const forgedToken = fc
  .oneof(
    fc.record({
      updatedAtMs: nastyNumber,
      path: fc.oneof(fc.string({ unit: 'binary', maxLength: 10 }), fc.constantFrom('/f/a.txt', '\u0000', '\ud800')),
      version: nastyNumber,
    }),
    fc.record({
      a: fc.oneof(fc.string({ unit: 'binary', maxLength: 10 }), fc.constantFrom('/f', '/\u0000', '\ud800')),
      p: fc.constantFrom('/', '/f'),
      r: fc.boolean(),
    }),
    fc.record({ a: fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('/\u0000')) }),
    fc.jsonValue({ maxDepth: 2 }),
  )
  .map((v) => Buffer.from(JSON.stringify(v) ?? 'null').toString('base64url'));

const NASTY_CONSTANTS: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1,
  2 ** 31,
  2 ** 32 + 1,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  1e308,
  -1e308,
  5e-324,
  1.5,
  -0.5,
  '',
  ' ',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e999',
  '0x1F',
  '1_000',
  '０',
  '١',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '\u0000',
  '\ud800',
  '\udfff',
  'a\ud83d',
  '../../etc/passwd',
  '/',
  '//',
  '/..',
  '~',
  '%2e%2e%2f',
  '\u202e',
  '\u200b',
  'ﷺ'.repeat(10),
  '𝕏'.repeat(5),
  '__proto__',
  'constructor',
  '1970-01-01T00:00:00.000Z',
  '2026-13-45T99:99:99Z',
  '9999-12-31T23:59:59.999Z',
  'cs_',
  'key_',
  'mk_',
  '$(reboot)',
  '`id`',
  "'; DROP TABLE nodes; --",
  '\\',
  'full',
  'files',
  'read-only',
  '*',
  'files:*',
  [],
  {},
  [null],
  [[]],
  ['files:read', 'nope'],
  { path: '/x' },
  { old_string: 'a', new_string: 'b' },
];

const nasty: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...NASTY_CONSTANTS) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }).map((s) => '/' + s) },
  { weight: 1, arbitrary: longString },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: polluted },
  { weight: 1, arbitrary: fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), polluted), { maxLength: 5 }) },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: forgedToken },
);

type Mutation = { op: 'set'; field: number | string; value: unknown } | { op: 'delete'; field: number } | { op: 'idem'; key: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('set' as const), field: fc.nat(10), value: nasty }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('set' as const),
      field: fc.oneof(
        fc.constantFrom(
          '__proto__',
          'constructor',
          'prototype',
          'toString',
          'hasOwnProperty',
          'file_path',
          'filePath',
          'oldString',
          'newString',
          'replaceAll',
          'isError',
          'success',
        ),
        fc.constantFrom(...KNOWN_FIELDS),
        fc.string({ unit: 'binary', maxLength: 12 }),
      ),
      value: nasty,
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), field: fc.nat(10) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('idem' as const), key: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), nasty) }) },
);

type Entries = Array<[string, unknown]>;

function mutate(base: Record<string, unknown>, mutations: Mutation[]): Entries {
  const entries: Entries = Object.entries(base);
  for (const m of mutations) {
    if (m.op === 'delete') {
      if (entries.length) entries.splice(m.field % entries.length, 1);
    } else if (m.op === 'idem') {
      entries.push(['idempotencyKey', m.key]);
    } else {
      const name = typeof m.field === 'number' ? (entries.length ? entries[m.field % entries.length]![0] : 'path') : m.field;
      const i = entries.findIndex(([k]) => k === name);
      if (i >= 0) entries[i] = [name, m.value];
      else entries.push([name, m.value]);
    }
  }
  return entries;
}

/** JSON text of an object given as entries: keys such as "__proto__" become own properties when parsed. */
const objectJson = (entries: Entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`;

type Case =
  | { kind: 'tool'; tool: string; base: number; mutations: Mutation[] }
  | { kind: 'mcp'; tool: string; base: number; mutations: Mutation[] }
  | { kind: 'raw'; tool: string; body: string; contentType: string | null }
  | { kind: 'unknown'; name: string };

const rawBody = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.constantFrom(
    '',
    ' ',
    'null',
    '42',
    '"x"',
    '[]',
    '[{}]',
    'true',
    '{',
    '{"path":',
    '{"path":"/a"',
    '{"path":"/a",}',
    "{'path':'/a'}",
    '{"a":1}{"b":2}',
    '\ufeff{"path":"/f/a.txt"}',
    '{"path":"/f/a.txt","path":{"x":1}}',
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
  ),
  fc.integer({ min: 1, max: 60_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 1, max: 20_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
  fc.integer({ min: 1, max: 60_000 }).map((n) => `{"path":"/f/a.txt","idempotencyKey":"k","content":${'['.repeat(n)}${']'.repeat(n)}}`),
  fc.integer({ min: 1, max: 60_000 }).map((n) => '['.repeat(n)),
  fc.constant(`{"path":"/f/big.txt","content":"${'x'.repeat(MAX_BODY)}"}`),
);

const caseArb: fc.Arbitrary<Case> = fc.oneof(
  {
    weight: 80,
    arbitrary: fc.record({
      kind: fc.constant('tool' as const),
      tool: fc.constantFrom(...TOOLS),
      base: fc.nat(),
      mutations: fc.array(mutation, { maxLength: 4 }),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('mcp' as const),
      tool: fc.constantFrom(...TOOLS),
      base: fc.nat(),
      mutations: fc.array(mutation, { maxLength: 3 }),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('raw' as const),
      tool: fc.constantFrom(...TOOLS),
      body: rawBody,
      contentType: fc.constantFrom(
        'application/json',
        'text/plain',
        null,
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        '*/*',
        'garbage',
      ),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('unknown' as const),
      name: fc.oneof(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
        fc.constantFrom('__proto__', 'constructor', 'toString', 'READ', 'read ', 'Write', 'bash\u0000', 'list_keys2'),
      ),
    }),
  },
);

// ---- the properties ------------------------------------------------------------------------------

interface Reply {
  status: number;
  headers: Headers;
  text: string;
}

function fail(c: Case, r: Reply, why: string, logs: string[]): never {
  const desc = JSON.stringify(c, (_k, v) => (typeof v === 'string' && v.length > 300 ? `${v.slice(0, 300)}…(${v.length})` : v));
  throw new Error(
    `${why}\ncase: ${desc.slice(0, 2000)}\nHTTP ${r.status}: ${r.text.slice(0, 1000)}\nserver log: ${logs.slice(-3).join('').slice(0, 2000)}`,
  );
}

/** Checks the contract's envelope for /api/tools/* and returns the inner JSON. */
function checkEnvelope(c: Case, r: Reply, logs: string[]): any {
  if (![200, 400, 404, 413, 429].includes(r.status)) fail(c, r, `status ${r.status}`, logs);
  if (!r.headers.get('x-request-id')) fail(c, r, 'no X-Request-Id', logs);
  let body: any;
  try {
    body = JSON.parse(r.text);
  } catch {
    fail(c, r, 'body is not JSON', logs);
  }
  const keys = Object.keys(body ?? {})
    .sort()
    .join(',');
  if (!Array.isArray(body?.content) || body.content.length !== 1 || body.content[0].type !== 'text' || typeof body.content[0].text !== 'string') {
    fail(c, r, 'not an envelope', logs);
  }
  const inner = JSON.parse(body.content[0].text);
  if (body.isError === true) {
    if (keys !== 'content,isError') fail(c, r, `error envelope keys ${keys}`, logs);
    if (Object.keys(inner).join(',') !== 'error' || typeof inner.error.message !== 'string' || !/^[A-Z][A-Z_]+$/.test(inner.error.code)) {
      fail(c, r, 'malformed error', logs);
    }
    const code = inner.error.code as string;
    const documented = 'tool' in c ? TOOL_CODES.get(c.tool) : undefined;
    if (r.status === 200 ? !documented?.has(code) : TRANSPORT[r.status] !== code) fail(c, r, `code ${code} with HTTP ${r.status}`, logs);
  } else {
    if (keys !== 'content' || r.status !== 200 || inner?.success !== true) fail(c, r, 'malformed success', logs);
  }
  return inner;
}

for (const backend of BACKENDS) {
  describe(`fuzzing the tool endpoint (${backend})`, () => {
    let s: TestServer;
    const workers: Worker[] = [];
    const perBackend = Math.ceil(TOTAL / BACKENDS.length);
    const perWorker = Math.ceil(perBackend / CONCURRENCY);
    // The bash worker threads' heaps grow to a plateau over the first thousands of cases (their
    // high-water mark, not a leak): memory growth is measured from the end of this warm-up slice.
    const warmupCases = Math.min(Math.max(1000, Math.ceil(perBackend / 5)), 10_000);
    let warm: ReturnType<typeof memory> | null = null;
    const stats = { cases: 0, success: 0, toolError: 0, transport: 0, mcp: 0, statuses: new Map<number, number>(), codes: new Map<string, number>() };

    async function fixtures(w: Worker) {
      for (const [path, content] of FIXTURES) {
        const r = await s.call(w.key, 'write', { path, content });
        assert.equal(r.status, 200, JSON.stringify(r.body));
      }
      await s.call(w.key, 'mkdir', { path: '/f/dir2' });
    }

    async function newWorker(n: number): Promise<Worker> {
      const reg = await s.register(`Fuzz ${n}`);
      const w: Worker = { n, cases: 0, key: reg.apiKey, keyId: '', spareKeyId: '', changesetId: '' };
      w.keyId = (await s.ok(w.key, 'get_key_info')).keyId;
      await fixtures(w);
      w.changesetId = (await s.ok(w.key, 'list_changes', { limit: 1 })).changesets[0].changesetId;
      w.spareKeyId = (await s.ok(w.key, 'create_key', { label: 'spare', preset: 'files' })).keyId;
      return w;
    }

    function inputFor(w: Worker, tool: string, base: number, mutations: Mutation[]): Entries {
      const bases = baseInputs(tool);
      const chosen = JSON.parse(
        JSON.stringify(bases[base % bases.length])
          .replaceAll('$CS', w.changesetId)
          .replaceAll('$KEY', w.spareKeyId),
      );
      return mutate(chosen, mutations);
    }

    /** A rotation of the worker's own key hands it the new key. */
    function follow(w: Worker, tool: string, inner: any) {
      if (tool === 'rotate_key' && inner?.success && inner.replaced?.keyId === w.keyId) {
        w.key = inner.apiKey;
        w.keyId = inner.keyId;
      }
    }

    async function runCase(w: Worker, c: Case): Promise<void> {
      const headers: Record<string, string> = { authorization: `Bearer ${w.key}` };
      let url: string;
      let body: string;
      if (c.kind === 'tool' || c.kind === 'mcp') {
        const entries = inputFor(w, c.tool, c.base, c.mutations);
        if (c.kind === 'mcp') {
          url = '/mcp';
          headers['content-type'] = 'application/json';
          headers.accept = 'application/json, text/event-stream';
          body = `{"jsonrpc":"2.0","id":${stats.cases},"method":"tools/call","params":{"name":${JSON.stringify(c.tool)},"arguments":${objectJson(entries)}}}`;
        } else {
          url = `/api/tools/${c.tool}`;
          headers['content-type'] = 'application/json';
          body = objectJson(entries);
        }
      } else if (c.kind === 'raw') {
        url = `/api/tools/${c.tool}`;
        if (c.contentType) headers['content-type'] = c.contentType;
        body = c.body;
      } else {
        url = `/api/tools/${encodeURIComponent(c.name)}`;
        headers['content-type'] = 'application/json';
        body = '{}';
      }
      const res = await fetch(s.url + url, { method: 'POST', headers, body });
      const r: Reply = { status: res.status, headers: res.headers, text: await res.text() };
      stats.cases++;
      stats.statuses.set(r.status, (stats.statuses.get(r.status) ?? 0) + 1);
      if (c.kind === 'mcp') {
        stats.mcp++;
        if (r.status !== 200) {
          // Transport errors before the JSON-RPC layer: plain {error: {code, message}} bodies.
          let code: string | undefined;
          try {
            code = JSON.parse(r.text).error?.code;
          } catch {
            /* not JSON */
          }
          if (![400, 413, 429].includes(r.status) || code !== TRANSPORT[r.status]) fail(c, r, `MCP status ${r.status}`, s.logs);
          return;
        }
        const rpc = JSON.parse(r.text);
        if (rpc.error) {
          if (typeof rpc.error.code !== 'number' || typeof rpc.error.message !== 'string') fail(c, r, 'malformed JSON-RPC error', s.logs);
          // -32603 is how the SDK answers a handler that threw: MCP's 500.
          if (rpc.error.code === -32603) fail(c, r, 'MCP internal error', s.logs);
          stats.codes.set(`JSON-RPC ${rpc.error.code}`, (stats.codes.get(`JSON-RPC ${rpc.error.code}`) ?? 0) + 1);
          return;
        }
        const text = rpc.result?.content?.[0]?.text;
        if (typeof text !== 'string') fail(c, r, 'MCP result without text content', s.logs);
        const inner = JSON.parse(text);
        if (rpc.result.isError === true) {
          if (!/^[A-Z][A-Z_]+$/.test(inner.error?.code) || inner.error.code === 'INTERNAL_ERROR') fail(c, r, 'MCP error code', s.logs);
          stats.codes.set(inner.error.code, (stats.codes.get(inner.error.code) ?? 0) + 1);
        } else if (inner.success !== true) fail(c, r, 'MCP success without success: true', s.logs);
        follow(w, c.tool, inner);
        return;
      }
      const inner = checkEnvelope(c, r, s.logs);
      if (inner.error) {
        stats.codes.set(inner.error.code, (stats.codes.get(inner.error.code) ?? 0) + 1);
        if (r.status === 200) stats.toolError++;
        else stats.transport++;
      } else {
        stats.success++;
        if (c.kind === 'tool' || c.kind === 'raw') follow(w, c.tool, inner);
      }
      if (c.kind !== 'tool' && c.kind !== 'raw') return;
      // The fixtures come back now and then, so later cases still reach real files.
      if (++w.cases % 200 === 0) await fixtures(w);
      if (!warm && stats.cases >= warmupCases) warm = memory();
      if (process.env.FUZZ_TRACE && stats.cases % 5000 === 0) {
        const m = memory();
        console.log(`# fuzz trace: ${stats.cases} cases, rss ${mb(m.rss)} MB, heap ${mb(m.heap)} MB, external ${mb(m.external)} MB`);
      }
    }

    before(async () => {
      s = await startServer(backend, { LOG_LEVEL: 'error', MAX_BODY_BYTES: String(MAX_BODY), BASH_TIMEOUT_MS: '2000' });
      for (let i = 0; i < CONCURRENCY; i++) workers.push(await newWorker(i));
    });
    after(() => s.close());

    it(`${perBackend} random and mutated bodies: always a well-formed envelope, never a 500; the server stays up, memory bounded`, async () => {
      const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort();
      // Warm up (JIT, caches, pools) before the memory baseline.
      for (const w of workers) for (const tool of TOOLS) await runCase(w, { kind: 'tool', tool, base: 0, mutations: [] });
      // ...including the bash worker threads' heaps, which large junk commands grow to their high-water mark.
      if (TOOLS.includes('bash')) {
        await Promise.all(
          workers.map((w, i) =>
            s.call(w.key, 'bash', { command: ['line\n', 'é', 'a ', '../', '𝕏', '\u0000', '$(', 'x|'][i % 8]!.repeat(40_000).slice(0, 99_000) }),
          ),
        );
      }
      const memBefore = memory();
      const rssBefore = memBefore.rss;
      const started = Date.now();
      const results = await Promise.all(
        workers.map((w) =>
          fc.check(
            fc.asyncProperty(caseArb, (c) => runCase(w, c)),
            { numRuns: perWorker, seed: SEED + w.n + (backend === 'postgres' ? 1000 : 0) },
          ),
        ),
      );
      for (const d of results) {
        if (!d.failed) continue;
        // fast-check's own report prints the whole (possibly 300 KB) counterexample: shortened here.
        const why = d.errorInstance instanceof Error ? d.errorInstance.message : String(d.errorInstance);
        assert.fail(
          `property failed after ${d.numRuns} runs (seed ${d.seed}, path ${d.counterexamplePath}, shrunk ${d.numShrinks}×):\n${why.slice(0, 4000)}`,
        );
      }
      const seconds = (Date.now() - started) / 1000;
      const memAfter = memory();
      const rssAfter = memAfter.rss;
      const growthMb = (rssAfter - (warm ?? memBefore).rss) / 2 ** 20;

      const health = await fetch(`${s.url}/healthz`);
      assert.equal(health.status, 200);
      await s.ok(workers[0]!.key, 'read', { path: '/f/a.txt' }).catch(async () => s.ok(workers[0]!.key, 'get_key_info'));
      assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoBefore, 'Object.prototype was polluted');
      assert.equal(({} as any).polluted, undefined);
      assert.ok(stats.cases >= perBackend, `${stats.cases} cases`);
      assert.ok(stats.success > stats.cases * 0.05, `some cases succeed (${stats.success})`);
      assert.ok(stats.toolError > stats.cases * 0.3, `most mutated cases are tool errors (${stats.toolError})`);
      assert.ok(growthMb < RSS_BOUND_MB, `RSS grew by ${growthMb.toFixed(0)} MB after the first ${warmupCases} cases (bound ${RSS_BOUND_MB} MB)`);
      const heapGrowthMb = (memAfter.heap - memBefore.heap) / 2 ** 20;
      assert.ok(heapGrowthMb < HEAP_BOUND_MB, `the main thread's heap grew by ${heapGrowthMb.toFixed(0)} MB (bound ${HEAP_BOUND_MB} MB)`);
      const top = [...stats.codes]
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      console.log(
        `# fuzz (${backend}): ${stats.cases} cases in ${seconds.toFixed(1)} s (seed ${SEED}, ${CONCURRENCY} workers): ` +
          `${stats.success} successes, ${stats.toolError} tool errors, ${stats.transport} transport errors, ${stats.mcp} via MCP; ` +
          `statuses ${[...stats.statuses].map(([k, v]) => `${k}×${v}`).join(' ')}; RSS ${mb(rssBefore)} → ${mb(warm?.rss ?? rssBefore)} (after ${warmupCases} cases) → ${mb(rssAfter)} MB, growth after warm-up ${growthMb.toFixed(0)} MB ` +
          `(bound ${RSS_BOUND_MB}); main heap ${mb(memBefore.heap)} → ${mb(memAfter.heap)} MB (bound +${HEAP_BOUND_MB})`,
      );
      console.log(`# fuzz (${backend}) codes: ${top}`);
    });
  });
}

/**
 * Isolation between agents (docs/contract/keys.md, §4): agent A, holding its full key or a folder-scoped
 * key, tries every way to name or reach agent B's data through every registered tool (the
 * registry is iterated, so a new tool is covered by its examples until it gets its own probes),
 * over REST and MCP, and through bash (globs, `find /`, `grep -r`, `cd ..`, `ls -R /`).
 *
 * What must hold:
 *  - nothing of B's ever appears in A's responses: B's contents, file names, agent id/slug/name,
 *    key ids, changeset ids, content hashes (a marker may appear only where A's own request
 *    contained it, e.g. an echoed path);
 *  - A's answers do not depend on B's data: the same probes give the same answers before and
 *    after B creates it, and a probe naming B's real path/id gets the same code and message
 *    (modulo the name) as one naming a path/id that never existed;
 *  - what A writes under B's path names lands in A's own namespace (version 1, A's content),
 *    idempotency keys are per agent, and B's tree is unchanged by everything A did.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { buildRegistry } from '../src/tools/index.js';
import { isolationBackends } from './helpers/backends.js';
import { assertEnvelope } from './helpers/assert-envelope.js';
import { startServer, type CallResult, type TestServer } from './helpers/server.js';

const registry = buildRegistry();
const rand = () => randomBytes(6).toString('hex');

/** The names one probe set refers to; built once with B's real names and once with never-existing twins. */
interface Refs {
  secret: string;
  dir: string;
  nested: string;
  deep: string;
  gone: string;
  inFolder: string;
}

interface Probe {
  tool: string;
  input: Record<string, unknown>;
}

// B's names carry the tokens `bzq` / `b-secret`; their never-existing twins swap them for
// `kwv` / `k-secret` (same length, same shape, so "did you mean" hints cannot differ by closeness).
const B_REFS: Refs = {
  secret: '/b-secret.txt',
  dir: '/bzqdir',
  nested: '/bzqdir/bzqnested',
  deep: '/bzqdir/bzqnested/bzq-deep.txt',
  gone: '/bzq-gone.txt',
  inFolder: '/projects/x/bzq-in-folder.txt',
};
const twinName = (s: string) => s.replaceAll('bzq', 'kwv').replaceAll('b-secret', 'k-secret');
const TWIN_REFS: Refs = Object.fromEntries(Object.entries(B_REFS).map(([k, v]) => [k, twinName(v)])) as unknown as Refs;

/** Probes naming the refs' paths, for every path-taking tool. None of them succeeds in A's namespace. */
function pathProbes(r: Refs): Probe[] {
  const files = [r.secret, r.deep, r.gone, r.inFolder];
  const all = [...files, r.dir, r.nested];
  const out: Probe[] = [];
  for (const path of all) {
    out.push(
      { tool: 'read', input: { path } },
      { tool: 'read', input: { path, version: 2 } },
      { tool: 'read', input: { path, offset: 1, limit: 1 } },
      { tool: 'read', input: { path, encoding: 'base64' } },
      { tool: 'stat', input: { path } },
      { tool: 'stat', input: { path, version: 1 } },
      { tool: 'list', input: { path } },
      { tool: 'list', input: { path, recursive: true } },
      { tool: 'delete', input: { path } },
      { tool: 'delete', input: { path, recursive: true } },
      { tool: 'delete', input: { path, expectedVersion: 3 } },
      { tool: 'edit', input: { path, old_string: 'BSECRET', new_string: 'x' } },
      { tool: 'edit', input: { path, old_string: 'BSECRET', new_string: 'x', dryRun: true } },
      { tool: 'edit', input: { path, old_string: 'a', new_string: 'b', expectedVersion: 3 } },
      // A precondition naming B's current version: A's own path does not exist, so EDIT_CONFLICT.
      { tool: 'write', input: { path, content: 'x', expectedVersion: 3 } },
      { tool: 'append', input: { path, content: 'x', expectedVersion: 3 } },
      { tool: 'move', input: { from: path, to: '/a-moved.txt' } },
      { tool: 'copy', input: { from: path, to: '/a-copied.txt' } },
      { tool: 'list_versions', input: { path } },
      { tool: 'list_versions', input: { path, before: 2 } },
      { tool: 'diff', input: { path, fromVersion: 1 } },
      { tool: 'diff', input: { path, fromVersion: 1, toVersion: 2 } },
      { tool: 'restore', input: { path, version: 1 } },
      { tool: 'restore', input: { path, version: 2, dryRun: true } },
      { tool: 'list_changes', input: { path } },
      { tool: 'list_deleted', input: { path } },
      { tool: 'purge', input: { path, confirm: true } },
      { tool: 'bash', input: { command: `cat ${path}` } },
      { tool: 'bash', input: { command: `stat ${path}; wc -c ${path}; head -n 3 ${path}` } },
      { tool: 'bash', input: { command: `test -e ${path} && echo EXISTS || echo ABSENT` } },
      { tool: 'bash', input: { command: `ls -la ${path}` } },
      { tool: 'bash', input: { command: `find ${path}` } },
      { tool: 'bash', input: { command: `grep -rn secret ${path}` } },
      { tool: 'bash', input: { command: 'ls', cwd: path } },
      { tool: 'bash', input: { command: `cd ${path} && ls -la` } },
      { tool: 'bash', input: { command: `cat /..${path} /../..${path}` } },
      { tool: 'bash', input: { command: `cp ${path} /a-bash-copy.txt` } },
      { tool: 'bash', input: { command: `mv ${path} /a-bash-moved.txt` } },
      { tool: 'bash', input: { command: `rm -r ${path}` } },
      { tool: 'bash', input: { command: `sed -i s/BSECRET/x/ ${path}` } },
    );
  }
  return out;
}

/** Probes that name nothing of B's: listings, feeds, globs, recursive searches, B's version numbers on A's own file. */
const GLOBAL_PROBES: Probe[] = [
  { tool: 'list', input: { path: '/' } },
  { tool: 'list', input: { path: '/', recursive: true } },
  { tool: 'list', input: { path: '/projects', recursive: true } },
  { tool: 'list_changes', input: {} },
  { tool: 'list_changes', input: { afterSeq: 0 } },
  { tool: 'list_changes', input: { afterSeq: 3 } },
  { tool: 'list_changes', input: { before: 50 } },
  { tool: 'list_changes', input: { path: '/projects' } },
  { tool: 'list_deleted', input: {} },
  { tool: 'list_deleted', input: { path: '/projects' } },
  { tool: 'get_key_info', input: {} },
  { tool: 'list_keys', input: {} },
  // B's /common.txt has 4 versions, A's has 1: B's version numbers on A's own file.
  { tool: 'read', input: { path: '/common.txt' } },
  { tool: 'read', input: { path: '/common.txt', version: 3 } },
  { tool: 'stat', input: { path: '/common.txt' } },
  { tool: 'stat', input: { path: '/common.txt', version: 4 } },
  { tool: 'list_versions', input: { path: '/common.txt' } },
  { tool: 'list_versions', input: { path: '/common.txt', before: 3 } },
  { tool: 'diff', input: { path: '/common.txt', fromVersion: 1, toVersion: 4 } },
  { tool: 'restore', input: { path: '/common.txt', version: 3, dryRun: true } },
  { tool: 'edit', input: { path: '/common.txt', old_string: 'a', new_string: 'b', expectedVersion: 4, dryRun: true } },
  { tool: 'read', input: { path: '/projects/x/mine.txt', version: 2 } },
  ...[
    'find / -name "*"',
    'find / -type f | xargs cat',
    'ls -R /',
    'ls -laR /',
    'cat /*',
    'cat /*/* /*/*/* /*/*/*/*',
    'echo /* /*/* /*/*/*',
    'cd .. && ls',
    'cd / && cd .. && cd .. && ls -la && pwd',
    'cd /projects/x && cd ../.. && ls -R',
    'grep -r secret /',
    'grep -rn BSECRET /',
    'grep -ril bzq /',
    'grep -rn "" /',
    'du -a /',
    'tree /',
    'ls -la / /shared /projects /projects/x',
    'ls /.. /../.. /./..',
    'cat ../../b-secret.txt ../b-secret.txt b-secret.txt',
    'cat /common.txt',
    'wc -l /common.txt /*.txt',
    'stat /common.txt',
    'env',
    'ls /proc /etc /tmp /home /root /var',
    'find / -newer /common.txt',
    'find / -name "*bzq*" -o -name "*secret*"',
  ].map((command) => ({ tool: 'bash', input: { command } })),
  { tool: 'bash', input: { command: 'ls -la; cd ..; ls -la', cwd: '/projects/x' } },
  { tool: 'bash', input: { command: 'ls -R', cwd: '/projects' } },
  // search: B's words, names and paths find nothing of B's (A's own "secret" file is found alike before and after).
  // Profiles are public (B's slug finds B's profile), so the probes leave the agents type out.
  ...[
    { query: 'BSECRET' },
    { query: 'secret' },
    { query: 'bzq*' },
    { query: '"b secret"', types: ['files'] },
    { query: 'secret', path: '/projects' },
    { query: 'secret', path: '/shared' },
    { query: 'secret', types: ['posts', 'comments', 'published'] },
  ].map((input) => ({ tool: 'search', input: { types: ['files', 'posts', 'comments', 'published'], ...input } })),
];

/** Probes naming B's ids (or their never-existing twins). */
function idProbes(csIds: string[], keyIds: string[]): Probe[] {
  const out: Probe[] = [];
  for (const changesetId of csIds) {
    out.push(
      { tool: 'revert_changeset', input: { changesetId } },
      { tool: 'revert_changeset', input: { changesetId, dryRun: true } },
      { tool: 'revert_changeset', input: { changesetId, force: true } },
    );
  }
  for (const keyId of keyIds) {
    out.push(
      { tool: 'revoke_key', input: { keyId } },
      { tool: 'rotate_key', input: { keyId } },
      { tool: 'rotate_key', input: { keyId, gracePeriodSeconds: 60 } },
    );
  }
  return out;
}

/** The same id, with its random part replaced: same prefix, same length, never issued. */
function twinId(id: string): string {
  const i = id.indexOf('_');
  const body = id.slice(i + 1);
  let twin = '';
  for (const ch of body) twin += /[0-9]/.test(ch) ? String((Number(ch) + 5) % 10) : /[a-z]/.test(ch) ? ch.toUpperCase() : ch.toLowerCase();
  return id.slice(0, i + 1) + twin;
}

/**
 * Probes for registry tools no table above covers (a tool added later): its examples, with every
 * absolute path replaced by each of the refs' paths and every *Id field by each id.
 */
function fallbackProbes(tool: string, r: Refs, ids: { csIds: string[]; keyIds: string[] }): Probe[] {
  const def = registry.get(tool)!;
  const out: Probe[] = [];
  for (const ex of def.examples) {
    const variants: Array<(v: unknown, k: string) => unknown> = [
      ...Object.values(r).map((p) => (v: unknown) => (typeof v === 'string' && v.startsWith('/') ? p : v)),
      ...[...ids.csIds, ...ids.keyIds].map((id) => (v: unknown, k: string) => (typeof v === 'string' && /id$/i.test(k) ? id : v)),
    ];
    for (const sub of variants) {
      const input: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(ex.input as Record<string, unknown>)) input[k] = sub(v, k);
      // Only variants that name something of B's (a path or an id); the raw example names nothing.
      if (JSON.stringify(input) !== JSON.stringify(ex.input)) out.push({ tool, input });
    }
  }
  return out;
}

const COVERED = new Set([...pathProbes(B_REFS), ...GLOBAL_PROBES, ...idProbes(['cs_x'], ['key_x'])].map((p) => p.tool));
// Tools whose probes, by design, succeed in A's own namespace: see the own-namespace test.
const OWN_NAMESPACE_TOOLS = new Set(['write', 'append', 'mkdir', 'create_key', 'write_files']);
// The social families' tools: their isolation (notifications, conversations, block lists, home) is
// probed in test/social-isolation.test.ts.
const SOCIAL_FAMILIES = new Set(['agents', 'social']);
const SOCIAL_TOOL_FILES = existsSync(new URL('./social-isolation.test.js', import.meta.url));
// The shares family (shares, links, publishing, the /shared and /published mounts): test/shares-isolation.test.ts.
const SHARES_TOOL_FILES = existsSync(new URL('./shares-isolation.test.js', import.meta.url));
// The community family (posts, comments, votes, moderation, reports, attachments): test/community-isolation.test.ts.
const COMMUNITY_TOOL_FILES = existsSync(new URL('./community-isolation.test.js', import.meta.url));

/** A's answer with what legitimately varies between identical calls removed. */
function stable(r: CallResult): unknown {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') {
      const o: Record<string, unknown> = {};
      // lastUsedAt and the key's own rate window (get_key_info usage.rate) change with A's own calls.
      // search's rank: BM25 weighs a word by how rare it is in the whole index (SQLite's FTS5), so B's
      // documents move A's ranks, never what A finds nor (for one word) its order: a known side channel.
      for (const [k, x] of Object.entries(v)) if (k !== 'lastUsedAt' && k !== 'requestId' && k !== 'rate' && k !== 'rank') o[k] = strip(x);
      return o;
    }
    return v;
  };
  return { status: r.status, isError: r.isError, inner: strip(r.inner) };
}

/**
 * npm test probes each backend with half of the path and global probes (alternating; every probe
 * runs on one of them); the slow pass (ISOLATION_FULL=1) runs all of them on both.
 * What isolates agents is the tool layer's; the backend stores what it is given.
 */
const FULL_PROBES = process.env.ISOLATION_FULL === '1';

for (const backend of isolationBackends()) {
  const half = backend === 'sqlite' ? 0 : 1;
  const mine = <T>(list: T[]): T[] => (FULL_PROBES ? list : list.filter((_, i) => i % 2 === half));
  describe(`isolation between agents (${backend})`, () => {
    let s: TestServer;
    let aFull: string;
    let aFolder: string;
    let aId: string;
    let bKey: string;
    let bId: string;
    const bMarkers = new Set<string>();
    const secrets: string[] = [];
    let bCsIds: string[] = [];
    let bKeyIds: string[] = [];
    let responses = 0;
    /** Responses A got for the path and global probes before B had any data, per key. */
    const beforeB = new Map<string, unknown>();
    let bSnapshot: unknown;

    /** Calls as A and checks the envelope and that no marker of B's shows up that A did not send. */
    async function asA(key: string, tool: string, input: unknown): Promise<CallResult> {
      const r = await s.call(key, tool, input);
      responses++;
      assert.ok([200, 404].includes(r.status), `${tool} ${JSON.stringify(input)}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
      assertEnvelope(r, r.isError ? 'error' : 'success');
      const sent = JSON.stringify(input);
      const got = JSON.stringify(r.body) + JSON.stringify(r.inner);
      for (const m of bMarkers) {
        if (!sent.includes(m)) assert.ok(!got.includes(m), `A's ${tool} ${sent} revealed B's ${JSON.stringify(m)}: ${got.slice(0, 600)}`);
      }
      for (const secret of secrets) assert.ok(!got.includes(secret), `A's ${tool} ${sent} revealed B's content ${secret}`);
      return r;
    }

    async function snapshotOf(key: string) {
      // The tree itself: /shared and /published (listed at the root, marked mount) are the mounts' own.
      const tree = (await s.ok(key, 'list', { path: '/', recursive: true })).entries.filter((e: { mount?: string }) => !e.mount);
      const files: Record<string, unknown> = {};
      for (const e of tree) {
        const versions = (await s.ok(key, 'list_versions', { path: e.path, limit: 200 })).versions;
        files[e.path] = {
          type: e.type,
          version: e.version,
          versions,
          content: e.type === 'file' ? (await s.ok(key, 'read', { path: e.path })).content : null,
        };
      }
      const deleted = (await s.ok(key, 'list_deleted', {})).deletedPaths;
      const changes = (await s.ok(key, 'list_changes', { limit: 200 })).changesets;
      const keys = (await s.ok(key, 'list_keys')).keys.map((k: any) => [k.keyId, k.revokedAt, k.label]);
      return { files, deleted, changes, keys };
    }

    const keysOfA = () =>
      [
        ['full', aFull],
        ['folder', aFolder],
      ] as const;

    before(async () => {
      s = await startServer(backend, { BASH_MAX_CONCURRENT_PER_AGENT: '16' });
      const a = await s.register('Alice Plain');
      aFull = a.apiKey;
      aId = a.id;
      aFolder = await s.addKey(aId, { scopes: ['files'], folder: '/projects/x', label: 'a-folder' });
      // A's own tree: a file named like B's shared one, a "secret" of its own, a deleted file.
      await s.ok(aFull, 'write', { path: '/a-notes/plan.md', content: 'my own secret plan\n' });
      await s.ok(aFull, 'write', { path: '/common.txt', content: 'a common v1\n' });
      await s.ok(aFull, 'write', { path: '/projects/x/mine.txt', content: 'inside the folder\n' });
      await s.ok(aFull, 'write', { path: '/a-notes/old.txt', content: 'old\n' });
      await s.ok(aFull, 'delete', { path: '/a-notes/old.txt' });

      const b = await s.register('Bzq Owner');
      bKey = b.apiKey;
      bId = b.id;
      // B's markers exist before B's data does, so the "before" probes are checked too.
      for (const m of ['bzq', 'b-secret', 'BSECRET', b.id, b.slug, b.name, b.apiKey, b.apiKey.slice(3, 15)]) bMarkers.add(m);
      for (let i = 1; i <= 6; i++) secrets.push(`BSECRET-${i}-${rand()}`);

      // ---- probes before B has any data --------------------------------------------------------
      for (const [kind, key] of keysOfA()) {
        for (const p of [...mine(pathProbes(B_REFS)), ...mine(GLOBAL_PROBES)]) {
          beforeB.set(`${kind} ${p.tool} ${JSON.stringify(p.input)}`, stable(await asA(key, p.tool, p.input)));
        }
      }

      // ---- B's data: versions, a tombstone, nested dirs, a bash changeset, keys, an idempotency key
      await s.ok(bKey, 'write', { path: B_REFS.secret, content: `${secrets[0]} secret\n` });
      await s.ok(bKey, 'edit', { path: B_REFS.secret, old_string: secrets[0]!, new_string: secrets[1]! });
      await s.ok(bKey, 'write', { path: B_REFS.secret, content: `${secrets[2]} secret\n` });
      await s.ok(bKey, 'write', { path: B_REFS.deep, content: `${secrets[3]} deep secret\n` });
      await s.ok(bKey, 'write', { path: B_REFS.gone, content: `${secrets[4]} soon gone\n` });
      await s.ok(bKey, 'delete', { path: B_REFS.gone });
      await s.ok(bKey, 'write', { path: B_REFS.inFolder, content: `${secrets[5]} in the folder A's key is restricted to\n` });
      for (let v = 1; v <= 4; v++) await s.ok(bKey, 'write', { path: '/common.txt', content: `BSECRET common v${v} ${secrets[v]}\n` });
      const bash = await s.ok(bKey, 'bash', { command: `echo ${secrets[0]} > /bzqdir/b1.txt; echo ${secrets[1]} > /bzqdir/b2.txt` });
      assert.ok(bash.changesetId);
      await s.ok(bKey, 'write', { path: '/idem-target.txt', content: 'same content\n', idempotencyKey: 'idem-shared-1' });
      await s.ok(bKey, 'write', { path: '/idem-b-only.txt', content: 'b only\n', idempotencyKey: 'idem-shared-2' });
      const minted = await s.ok(bKey, 'create_key', { label: 'bzq-reader', preset: 'files-read', folder: B_REFS.dir });
      const minted2 = await s.ok(bKey, 'create_key', { label: 'bzq-other', preset: 'files' });
      await s.ok(bKey, 'rotate_key', { keyId: minted2.keyId });
      await s.ok(bKey, 'revoke_key', { keyId: minted.keyId });
      bMarkers.add(minted.apiKey).add(minted2.apiKey);

      bCsIds = (await s.ok(bKey, 'list_changes', { limit: 200 })).changesets.map((c: any) => c.changesetId);
      bKeyIds = (await s.ok(bKey, 'list_keys')).keys.map((k: any) => k.keyId);
      assert.ok(bCsIds.length >= 12 && bKeyIds.length === 4, `${bCsIds.length} changesets, ${bKeyIds.length} keys`);
      for (const id of [...bCsIds, ...bKeyIds]) bMarkers.add(id);
      for (const c of secrets) bMarkers.add(createHash('sha256').update(`${c} secret\n`).digest('hex').slice(0, 24));
      const bTree = (await s.ok(bKey, 'list', { path: '/', recursive: true })).entries;
      for (const e of bTree) {
        const st = await s.ok(bKey, 'stat', { path: e.path });
        if (st.contentHash && !['/idem-target.txt', '/idem-b-only.txt'].includes(e.path)) bMarkers.add(st.contentHash.slice(7, 31));
      }
      bSnapshot = await snapshotOf(bKey);
    });
    after(() => s.close());

    it('every registered tool has isolation probes', () => {
      for (const tool of registry.names()) {
        const probes =
          COVERED.has(tool) ||
          OWN_NAMESPACE_TOOLS.has(tool) ||
          (SOCIAL_FAMILIES.has(registry.get(tool)!.family) && SOCIAL_TOOL_FILES) ||
          (registry.get(tool)!.family === 'shares' && SHARES_TOOL_FILES) ||
          (registry.get(tool)!.family === 'community' && COMMUNITY_TOOL_FILES)
            ? 1
            : fallbackProbes(tool, B_REFS, { csIds: ['cs_x'], keyIds: ['key_x'] }).length;
        // A tool with neither dedicated probes nor an example naming a path or an id needs probes here.
        assert.ok(probes > 0, `${tool} has no isolation probe and no example to derive one from`);
      }
    });

    it("A's answers are the same before and after B created its data (full and folder key)", async () => {
      let compared = 0;
      for (const [kind, key] of keysOfA()) {
        for (const p of [...mine(pathProbes(B_REFS)), ...mine(GLOBAL_PROBES)]) {
          const id = `${kind} ${p.tool} ${JSON.stringify(p.input)}`;
          const now = stable(await asA(key, p.tool, p.input));
          assert.deepEqual(now, beforeB.get(id), `${id}: the answer changed once B had data`);
          compared++;
        }
      }
      assert.ok(compared > (FULL_PROBES ? 500 : 250), `${compared} probes compared`);
      console.log(`# isolation (${backend}): ${compared} before/after probe pairs identical`);
    });

    it("naming B's real paths gives the same answer as naming never-existing ones (modulo the name)", async () => {
      let compared = 0;
      for (const [kind, key] of keysOfA()) {
        const real = mine(pathProbes(B_REFS));
        const twin = mine(pathProbes(TWIN_REFS));
        assert.equal(real.length, twin.length);
        for (let i = 0; i < real.length; i++) {
          const rr = await asA(key, real[i]!.tool, real[i]!.input);
          const rt = await asA(key, twin[i]!.tool, twin[i]!.input);
          const where = `${kind} key: ${real[i]!.tool} ${JSON.stringify(real[i]!.input)}`;
          // Nothing of that name exists for A: every tool fails, except feeds/listings (empty) and bash (a failing command).
          const empty = (rr.inner.changesets ?? rr.inner.deletedPaths ?? [1]).length === 0;
          const failed = rr.isError || empty || (real[i]!.tool === 'bash' && (rr.inner.exitCode !== 0 || /ABSENT/.test(rr.inner.stdout)));
          assert.ok(failed, `${where} must find nothing in A's namespace: ${JSON.stringify(rr.inner).slice(0, 300)}`);
          assert.deepEqual(
            JSON.parse(twinName(JSON.stringify(stable(rr)))),
            stable(rt),
            `${where}: differs from the never-existing twin ${JSON.stringify(twin[i]!.input)}`,
          );
          compared++;
        }
      }
      console.log(`# isolation (${backend}): ${compared} real-vs-never-existing path pairs identical`);
    });

    it("naming B's changeset and key ids gives the same answer as never-issued ids (modulo the id)", async () => {
      let compared = 0;
      for (const [kind, key] of keysOfA()) {
        const real = idProbes(bCsIds, bKeyIds);
        const twin = idProbes(bCsIds.map(twinId), bKeyIds.map(twinId));
        for (let i = 0; i < real.length; i++) {
          const rr = await asA(key, real[i]!.tool, real[i]!.input);
          const rt = await asA(key, twin[i]!.tool, twin[i]!.input);
          const where = `${kind} key: ${real[i]!.tool} ${JSON.stringify(real[i]!.input)}`;
          assert.equal(rr.isError, true, `${where} must fail: ${JSON.stringify(rr.inner).slice(0, 300)}`);
          let text = JSON.stringify(stable(rr));
          for (const id of [...bCsIds, ...bKeyIds]) text = text.replaceAll(id, twinId(id));
          assert.deepEqual(JSON.parse(text), stable(rt), `${where}: differs from a never-issued id`);
          compared++;
        }
      }
      // B's keys all still work as before (A's revoke/rotate attempts did nothing).
      const bKeys = (await s.ok(bKey, 'list_keys')).keys.map((k: any) => [k.keyId, k.revokedAt]);
      assert.deepEqual(
        bKeys,
        (bSnapshot as any).keys.map((k: any) => [k[0], k[1]]),
      );
      await s.ok(bKey, 'read', { path: B_REFS.secret });
      console.log(`# isolation (${backend}): ${compared} real-vs-never-issued id pairs identical`);
    });

    it('the MCP endpoint answers A exactly like REST and reveals nothing of B', async () => {
      let n = 0;
      for (const [kind, key] of keysOfA()) {
        for (const p of [
          ...pathProbes(B_REFS).filter((_, i) => i % 7 === 0),
          ...mine(GLOBAL_PROBES).filter((x) => x.tool !== 'get_key_info' && x.tool !== 'list_keys'),
          ...idProbes(bCsIds.slice(0, 2), bKeyIds.slice(0, 2)),
        ]) {
          const m = await s.raw('/mcp', {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify({ jsonrpc: '2.0', id: ++n, method: 'tools/call', params: { name: p.tool, arguments: p.input } }),
          });
          assert.equal(m.status, 200, JSON.stringify(m.body));
          const text: string = m.body.result.content[0].text;
          const sent = JSON.stringify(p.input);
          for (const mk of bMarkers) if (!sent.includes(mk)) assert.ok(!text.includes(mk), `MCP ${p.tool} ${sent} revealed ${mk}`);
          for (const secret of secrets) assert.ok(!text.includes(secret), `MCP ${p.tool} ${sent} revealed B's content`);
          const rest = await asA(key, p.tool, p.input);
          assert.deepEqual(
            stable({ status: 200, isError: m.body.result.isError === true, inner: JSON.parse(text) } as CallResult),
            stable({ ...rest, status: 200 }),
            `${kind} MCP ${p.tool} ${sent} differs from REST`,
          );
        }
      }
    });

    it("what A writes under B's names lands in A's own namespace; idempotency keys are per API key", async () => {
      // From here on A owns files with B's names: only B's contents, ids and hashes stay markers.
      for (const m of ['bzq', 'b-secret', 'BSECRET']) bMarkers.delete(m);
      // write/append/mkdir/copy/move/bash onto B's path names: A's own version 1, A's content.
      const w = await asA(aFull, 'write', { path: B_REFS.secret, content: 'A wrote this\n' });
      assert.equal(w.inner.version, 1);
      assert.equal(w.inner.created, true);
      const ap = await asA(aFull, 'append', { path: B_REFS.gone, content: 'A appended\n' });
      assert.equal(ap.inner.version, 1);
      const md = await asA(aFull, 'mkdir', { path: B_REFS.nested });
      assert.equal(md.inner.created, true);
      assert.deepEqual(md.inner.createdPaths, [B_REFS.dir, B_REFS.nested]);
      const cp = await asA(aFull, 'copy', { from: '/a-notes/plan.md', to: B_REFS.deep });
      assert.equal(cp.inner.version, 1);
      const mv = await asA(aFolder, 'move', { from: '/projects/x/mine.txt', to: B_REFS.inFolder });
      assert.equal(mv.inner.version, 1);
      const sh = await asA(aFull, 'bash', { command: `echo A > /bzqdir/b1.txt; cat /bzqdir/b1.txt; ls /bzqdir` });
      assert.equal(sh.inner.stdout, 'A\nb1.txt\nbzqnested\n');
      assert.equal(sh.inner.changedPaths[0].version, 1);
      assert.equal((await asA(aFull, 'read', { path: B_REFS.secret })).inner.content, 'A wrote this\n');
      assert.equal((await asA(aFull, 'list_versions', { path: B_REFS.secret })).inner.versions.length, 1);
      assert.equal((await asA(aFull, 'read', { path: B_REFS.deep })).inner.content, 'my own secret plan\n');

      // The same idempotencyKey and the same input B used: A gets a fresh result of its own.
      const idem = await asA(aFull, 'write', { path: '/idem-target.txt', content: 'same content\n', idempotencyKey: 'idem-shared-1' });
      assert.equal(idem.inner.created, true);
      assert.equal(idem.inner.version, 1);
      assert.equal(idem.inner.replayed, undefined);
      // A key B used with another input is not "already used" for A (that would reveal B's key)...
      const idem2 = await asA(aFolder, 'write', { path: '/projects/x/i.txt', content: 'y', idempotencyKey: 'idem-shared-2' });
      assert.equal(idem2.inner.created, true);
      assert.equal(idem2.inner.replayed, undefined);
      // ...while A reusing its own key with another input is refused, as for anyone.
      const idem3 = await asA(aFull, 'append', { path: '/idem-other.txt', content: 'x', idempotencyKey: 'idem-shared-1' });
      assert.equal(idem3.inner?.error?.code, 'INVALID_INPUT');

      // A key A mints for B's folder name sees only A's files there.
      const k = await asA(aFull, 'create_key', { label: 'on-b-names', preset: 'files-read', folder: B_REFS.dir });
      const listed = await asA(k.inner.apiKey, 'list', { path: B_REFS.dir, recursive: true });
      assert.deepEqual(listed.inner.entries.map((e: any) => e.path).sort(), ['/bzqdir/b1.txt', B_REFS.nested, B_REFS.deep].sort());
      const grep = await asA(k.inner.apiKey, 'bash', { command: 'grep -rn "" /' });
      assert.ok(!grep.inner.stdout.includes('BSECRET'));

      // write_files onto B's names: every file A's own version 1, in A's own changeset.
      const wf = await asA(aFull, 'write_files', {
        files: [
          { path: `${B_REFS.nested}/wf-1.txt`, content: 'A batch 1\n' },
          { path: `${B_REFS.secret}.wf`, content: 'A batch 2\n' },
        ],
      });
      assert.deepEqual(
        wf.inner.files.map((f: any) => [f.version, f.created]),
        [
          [1, true],
          [1, true],
        ],
      );
      assert.equal((await asA(aFull, 'read', { path: `${B_REFS.secret}.wf` })).inner.content, 'A batch 2\n');
    });

    it("B's tree, history, feed and keys are exactly as B left them", async () => {
      assert.deepEqual(await snapshotOf(bKey), bSnapshot);
      assert.equal((await s.ok(bKey, 'read', { path: B_REFS.secret })).content, `${secrets[2]} secret\n`);
      assert.equal((await s.ok(bKey, 'read', { path: B_REFS.secret })).version, 3);
      console.log(`# isolation (${backend}): ${responses} responses to A checked for ${bMarkers.size} markers of B's and ${secrets.length} secrets`);
      assert.ok(aId !== bId);
    });

    it("every tool's examples, aimed at B's names and ids, answer as for never-existing ones (new tools included)", async () => {
      // Last: these may create A's own files under B's names (write, mkdir, …), so only B's contents, ids and hashes stay markers.
      for (const m of ['bzq', 'b-secret', 'BSECRET']) bMarkers.delete(m);
      const uncovered = registry.names().filter((t) => !COVERED.has(t) && !OWN_NAMESPACE_TOOLS.has(t));
      // A fresh agent: the real and the twin names start out alike (nothing), and stay alike.
      const a2 = (await s.register('Alice Two')).apiKey;
      let compared = 0;
      for (const tool of registry.names()) {
        const real = fallbackProbes(tool, B_REFS, { csIds: bCsIds.slice(0, 2), keyIds: bKeyIds.slice(0, 2) });
        const twin = fallbackProbes(tool, TWIN_REFS, { csIds: bCsIds.slice(0, 2).map(twinId), keyIds: bKeyIds.slice(0, 2).map(twinId) });
        assert.equal(real.length, twin.length);
        for (let i = 0; i < real.length; i++) {
          const rr = await asA(a2, tool, real[i]!.input);
          const rt = await asA(a2, tool, twin[i]!.input);
          let text = twinName(JSON.stringify(stable(rr)));
          for (const id of [...bCsIds, ...bKeyIds]) text = text.replaceAll(id, twinId(id));
          // Code only: an example may change A's own state, and the twin runs second.
          const norm = (v: any) => ({ isError: v.isError, code: v.inner?.error?.code ?? null });
          assert.deepEqual(norm(JSON.parse(text)), norm(stable(rt)), `${tool} ${JSON.stringify(real[i]!.input)}`);
          compared++;
        }
      }
      assert.ok(compared >= registry.names().length / 2, `${compared} example-derived pairs`);
      assert.deepEqual(await snapshotOf(bKey), bSnapshot, "B's data after A ran every example against B's names");
      console.log(
        `# isolation (${backend}): ${compared} example-derived pairs over ${registry.names().length} tools (${uncovered.length} without dedicated probes${uncovered.length ? ': ' + uncovered.join(', ') : ''})`,
      );
    });
  });
}

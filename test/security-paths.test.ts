/**
 * Hostile paths (docs/contract/keys.md, §3) against every path-taking tool and field, with the agent's
 * full key and with a folder-scoped key (`/projects/x`), on both backends.
 *
 * The expected outcome of every case comes from a reference model of the contract's path rules
 * written here (not from src/core/paths.ts): INVALID_PATH whose details.reason names a rule the
 * path breaks; for a folder key OUTSIDE_KEY_FOLDER (create_key: INSUFFICIENT_SCOPE) when the
 * normalized path is outside the folder (navigation tools may name the folder's ancestors);
 * otherwise the tool's own outcome, whose echoed path must be exactly the normalized path.
 * After the run: nothing outside the folder changed through the folder key, nothing the folder
 * key did (changesets, minted keys) lies outside it, every stored path is canonical, and another
 * agent's tree is untouched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './helpers/backends.js';
import { assertEnvelope } from './helpers/assert-envelope.js';
import { startServer, type CallResult, type TestServer } from './helpers/server.js';

const F = '/projects/x';
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// ---- the reference model of §3 -----------------------------------------------------------------

type Model = { ok: true; path: string } | { ok: false; reasons: RegExp[] };

/** Every rule the raw path breaks (any of them may be the one reported), or its normalized form. */
function model(raw: string): Model {
  if (raw === '') return { ok: false, reasons: [/empty/] };
  const reasons: RegExp[] = [];
  if (/[\u0000-\u001f\u007f-\u009f]/.test(raw)) reasons.push(/NUL|control character/);
  if (LONE_SURROGATE.test(raw)) reasons.push(/surrogate/);
  if (raw.startsWith('~')) reasons.push(/~/);
  if (!raw.startsWith('/')) reasons.push(/not absolute/);
  if (raw.includes('\\')) reasons.push(/backslash/);
  const out: string[] = [];
  let rises = false;
  for (const seg of raw.normalize('NFC').split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) rises = true;
      else out.pop();
      continue;
    }
    if (bytes(seg) > 255) reasons.push(/255 bytes/);
    out.push(seg);
  }
  if (rises) reasons.push(/rises above/);
  const path = '/' + out.join('/');
  if (bytes(path) > 1024) reasons.push(/1024 bytes/);
  return reasons.length ? { ok: false, reasons } : { ok: true, path };
}

const within = (p: string, folder: string) => folder === '/' || p === folder || p.startsWith(folder + '/');

/**
 * Characters no new name may hold (invisible, bidi controls, line separators);
 * the tools that create refuse them with INVALID_PATH naming the code point, others answer as for
 * any name. This list covers the corpus; the full rule is tested in identifier.test.ts.
 */
const NOT_IN_NEW_NAMES = /[\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\u3164]/;
const namesRefused = (err: any, ...paths: Array<string | undefined>) =>
  typeof err.details?.codePoint === 'string' &&
  paths.some((p) => p !== undefined && NOT_IN_NEW_NAMES.test(p) && p.includes(String.fromCodePoint(parseInt(err.details.codePoint.slice(2), 16))));

// ---- the corpus --------------------------------------------------------------------------------

const E2 = '\u00e9'; // 2 bytes in UTF-8
const CORPUS: string[] = [
  // '..' sequences
  `${F}/../y/a.txt`,
  `${F}/../x/a.txt`,
  `${F}/a/../../x/b.txt`,
  `${F}/..`,
  `${F}/../..`,
  `${F}/../../..`,
  `${F}/../../../etc/passwd`,
  `/../projects/x/a.txt`,
  `/..`,
  `${F}/./././a.txt`,
  `${F}/a/b/c/../../../../../etc/passwd`,
  `${F}/a/b/c/../../../d.txt`,
  `${F}/....`,
  `${F}/..a`,
  `${F}/ ../a`,
  `${F}/../x../a`,
  `${F}/../xy/a`,
  `${F}/../x/../x/../x/c.txt`,
  `${F}/` + 'a/..'.repeat(300) + '/deep.txt',
  `/projects/./x/../x/./e.txt`,
  `${F}/.hidden/../.env`,
  // URL-encoded and double-encoded forms: literal names, never decoded
  `${F}/%2e%2e%2f%2e%2e%2fsecret`,
  `${F}/%2e%2e/%2e%2e/etc`,
  `${F}/%252e%252e%252f`,
  `%2fprojects%2fx%2fa`,
  `${F}/..%2f..%2fetc`,
  `${F}/%c0%ae%c0%ae/`,
  `${F}/%00`,
  `/projects%2fx/a`,
  `${F}%2f..%2f..%2fa`,
  `${F}/%2E%2E%5C%2E%2E%5Cwin`,
  `${F}/..%c0%af..%c0%afetc`,
  `/%2e%2e/%2e%2e/projects/x/a`,
  // NUL and control characters
  `${F}/a\u0000.txt`,
  `${F}/\u0000`,
  `${F}/a\n`,
  `${F}/a\r\nb`,
  `${F}/\u001b[31mred`,
  `${F}/\u007f`,
  `${F}/\u0085`,
  `\u0000/projects/x`,
  `${F}/a\u0000/../../../etc`,
  `${F}/line\u2028sep`,
  // overlong segments and paths (bytes, not characters)
  `${F}/` + 'a'.repeat(255),
  `${F}/` + 'a'.repeat(256),
  `${F}/` + E2.repeat(127),
  `${F}/` + E2.repeat(128),
  `${F}/` + '\u20ac'.repeat(86),
  `${F}/` + 'a'.repeat(300) + '/..',
  `${F}` + ('/' + 'b'.repeat(200)).repeat(5),
  (`${F}` + ('/' + 'c'.repeat(250)).repeat(4)).slice(0, 1024),
  `${F}/` + 'd/'.repeat(600),
  `${F}/` + 'e\u0301'.repeat(120),
  `${F}/` + 'e\u0301'.repeat(200),
  // unicode lookalikes (literal characters, not separators or dots)
  `${F}\u2215..\u2215..\u2215etc`,
  `${F}/..\u2215..\u2215a`,
  `/projects\uff0fx/a`,
  `${F}/\uff0e\uff0e/a`,
  `${F}\u2044a`,
  `${F}/a\u200b`,
  `${F}\u200b/a`,
  `${F}\u00a0/a`,
  `/projects/X/a`,
  `${F}/\ufeffbom`,
  `${F}/\u202eexe.txt`,
  `/projects/\u0445/a`,
  `${F}/\ufe52\ufe52/a`,
  `${F}/\uff3c..\uff3cwin`,
  // NFD vs NFC and other canonical equivalents
  `${F}/cafe\u0301.txt`,
  `${F}/caf\u00e9.txt`,
  `${F}/\u212b.txt`,
  `${F}/\u00c5.txt`,
  `${F}/A\u030a.txt`,
  `${F}/\u2126`,
  `${F}/\u1100\u1161`,
  // lone surrogates (not Unicode text, so not UTF-8)
  `${F}/a\ud800b`,
  `${F}/\udc00`,
  `${F}/ok\ud83d`,
  // '/a' vs '/ab' prefix tricks against the folder key
  `/projects/xy/a`,
  `/projects/x-evil/a`,
  `/projects/x.bak`,
  `/projects/x /a`,
  `/projects/x./a`,
  `${F}/`,
  `${F}`,
  `/projects`,
  `/projects/`,
  `/`,
  `//projects//x//a`,
  `/projects//x/a`,
  `/projects/./x/a`,
  `${F}y`,
  `${F}/../x`,
  '/projectsx/a',
  `${F}0`,
  // '~'
  '~',
  '~/a',
  `~agent${F}`,
  `${F}/~`,
  `${F}/~/a`,
  `~/../projects/x/a`,
  // backslashes
  `${F}\\..\\..\\etc`,
  '\\projects\\x\\a',
  `${F}/a\\b`,
  `${F}/..\\..\\y`,
  `${F}/\\`,
  // empty, whitespace and relative
  '',
  ' ',
  'projects/x/a',
  './projects/x/a',
  '../projects/x/a',
  'a',
  '.',
  '..',
  '/.',
  '/./',
  ` ${F}/a`,
  'file:///projects/x/a',
  'C:\\projects',
  // the reserved /shared mount, and /dev (bash's devices): no new names there
  '/shared',
  '/shared/x',
  `${F}/../../shared/a`,
  '/shared/../projects/x/s',
  '/dev/null',
  '/dev',
  '/dev/stdout',
  `${F}/dev/null`,
  `${F}/../../dev/x`,
  // other odd but legal names
  `${F}/a:b`,
  `${F}/%`,
  `${F}/ `,
  `${F}/a b/c d`,
  `${F}/'; rm -rf /; '`,
  `${F}/$(id)`,
];

// ---- tools and fields --------------------------------------------------------------------------

interface ToolCase {
  name: string;
  tool: string;
  /** Navigation tools: a folder key may name its folder's ancestors. */
  navigable?: boolean;
  /** Another path the input names (its normalized form), for details.path checks. */
  other?: (i: number) => string;
  prepare?: (s: TestServer, key: string, i: number) => Promise<void>;
  input: (p: string, i: number) => Record<string, unknown>;
  /** The path the success result echoes for the hostile field. */
  echo?: (r: any) => string;
  /** The code when a folder key names a path outside its folder. */
  outsideCode?: string;
}

const TOOL_CASES: ToolCase[] = [
  { name: 'write', tool: 'write', input: (p, i) => ({ path: p, content: `case ${i}\n` }), echo: (r) => r.path },
  { name: 'read', tool: 'read', input: (p) => ({ path: p }), echo: (r) => r.path },
  { name: 'stat', tool: 'stat', navigable: true, input: (p) => ({ path: p }), echo: (r) => r.path },
  { name: 'list', tool: 'list', navigable: true, input: (p) => ({ path: p }), echo: (r) => r.path },
  { name: 'mkdir', tool: 'mkdir', input: (p) => ({ path: p }), echo: (r) => r.path },
  { name: 'append', tool: 'append', input: (p, i) => ({ path: p, content: `+${i}\n` }), echo: (r) => r.path },
  { name: 'edit', tool: 'edit', input: (p) => ({ path: p, old_string: 'never-there-zz', new_string: 'y' }), echo: (r) => r.path },
  { name: 'list_versions', tool: 'list_versions', input: (p) => ({ path: p }), echo: (r) => r.path },
  { name: 'diff', tool: 'diff', input: (p) => ({ path: p, fromVersion: 1 }), echo: (r) => r.path },
  { name: 'restore', tool: 'restore', input: (p) => ({ path: p, version: 1 }), echo: (r) => r.path },
  { name: 'list_deleted', tool: 'list_deleted', navigable: true, input: (p) => ({ path: p }), echo: (r) => r.path },
  { name: 'list_changes', tool: 'list_changes', navigable: true, input: (p) => ({ path: p, limit: 5 }) },
  { name: 'bash cwd', tool: 'bash', navigable: true, input: (p) => ({ command: 'pwd', cwd: p }), echo: (r) => r.stdout.replace(/\n$/, '') },
  {
    name: 'copy to',
    tool: 'copy',
    other: () => `${F}/seed.txt`,
    input: (p) => ({ from: `${F}/seed.txt`, to: p, overwrite: true }),
    // An existing directory as destination takes the source inside it (like cp): `into` names it.
    echo: (r) => r.into ?? r.to,
  },
  { name: 'copy from', tool: 'copy', other: (i) => `${F}/copied/${i}`, input: (p, i) => ({ from: p, to: `${F}/copied/${i}` }), echo: (r) => r.from },
  {
    name: 'move to',
    tool: 'move',
    other: (i) => `${F}/src/m${i}.txt`,
    prepare: async (s, key, i) => void (await s.ok(key, 'write', { path: `${F}/src/m${i}.txt`, content: `source ${i}\n` })),
    input: (p, i) => ({ from: `${F}/src/m${i}.txt`, to: p }),
    echo: (r) => r.into ?? r.to,
  },
  { name: 'move from', tool: 'move', other: (i) => `${F}/moved/${i}`, input: (p, i) => ({ from: p, to: `${F}/moved/${i}` }), echo: (r) => r.from },
  { name: 'delete', tool: 'delete', input: (p) => ({ path: p }), echo: (r) => r.path },
  {
    name: 'create_key folder',
    tool: 'create_key',
    outsideCode: 'INSUFFICIENT_SCOPE',
    input: (p, i) => ({ label: `paths ${i}`, scopes: ['files:read'], folder: p }),
    echo: (r) => r.folder,
  },
];

/** Tool-level outcomes a legitimate (allowed) path may meet, depending on what exists there. */
const SEMANTIC = new Set([
  'NOT_FOUND',
  // A directory of the /shared or /published mount: only list and stat work there (details.reason "mount_directory").
  'FORBIDDEN',
  'ALREADY_EXISTS',
  'IS_A_DIRECTORY',
  'NOT_A_DIRECTORY',
  'DIRECTORY_NOT_EMPTY',
  'VERSION_NOT_FOUND',
  'NO_MATCH',
  'NO_CHANGE',
  'EDIT_CONFLICT',
  'INVALID_INPUT',
]);

async function pool<T>(items: T[], n: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

/**
 * npm test runs half the hostile path × tool-field cases on each backend (every case runs on one
 * of them: ~33 s of the suite's 65 s); the slow pass (SECURITY_PATHS_FULL=1) runs every case on
 * both. The path rules live above the store, so the backend only matters for what it stores.
 */
const FULL_MATRIX = process.env.SECURITY_PATHS_FULL === '1';

for (const backend of backends()) {
  const half = backend === 'sqlite' ? 0 : 1;
  const inThisRun = (pi: number, ti: number) => FULL_MATRIX || (pi + ti) % 2 === half;
  const expectedCases = () => {
    let n = 0;
    for (let pi = 0; pi < CORPUS.length; pi++) for (let ti = 0; ti < TOOL_CASES.length; ti++) if (inThisRun(pi, ti)) n++;
    return n;
  };
  describe(`hostile paths (${backend})`, () => {
    let s: TestServer;
    let agentId: string;
    let full: string;
    let folderKey: string;
    let folderAgentsKey: string;
    const folderKeyIds = new Set<string>();
    let bystander: string;
    let bystanderBefore: unknown;
    let outsideBefore: unknown;
    let cases = 0;
    const casesPerKey = new Map<string, number>();

    const tree = async (key: string) => {
      const live = (await s.ok(key, 'list', { path: '/', recursive: true })).entries
        .filter((e: any) => !e.mount)
        .map((e: any) => [e.path, e.type, e.version]);
      const deleted = (await s.ok(key, 'list_deleted', { limit: 1000 })).deletedPaths.map((e: any) => [e.path, e.version]);
      return { live, deleted };
    };
    const outside = async () => {
      const t = await tree(full);
      return { live: t.live.filter((e: any) => !within(e[0], F)), deleted: t.deleted.filter((e: any) => !within(e[0], F)) };
    };

    before(async () => {
      s = await startServer(backend, { BASH_MAX_CONCURRENT_PER_AGENT: '16', MAX_KEYS_PER_AGENT: '100000' });
      const a = await s.register('Path Walker');
      agentId = a.id;
      full = a.apiKey;
      folderKey = await s.addKey(agentId, { scopes: ['files'], folder: F, label: 'folder files' });
      folderAgentsKey = await s.addKey(agentId, { scopes: ['files', 'agents'], folder: F, label: 'folder files+agents' });
      for (const k of [folderKey, folderAgentsKey]) folderKeyIds.add((await s.ok(k, 'get_key_info')).keyId);
      // Files outside the folder (the prefix-trick neighbours included) and inside it.
      for (const p of [
        '/keep.txt',
        '/etc/passwd',
        '/projects/keep.txt',
        '/projects/xy/a',
        '/projects/x-evil/a',
        '/projects/x.bak',
        '/y/a.txt',
        '/projects/y/a.txt',
      ]) {
        await s.ok(full, 'write', { path: p, content: `outside ${p}\n` });
      }
      await s.ok(full, 'write', { path: '/projects/gone.txt', content: 'deleted outside\n' });
      await s.ok(full, 'delete', { path: '/projects/gone.txt' });
      for (const p of [`${F}/seed.txt`, `${F}/a.txt`, `${F}/dir/inner.txt`]) await s.ok(full, 'write', { path: p, content: `inside ${p}\n` });
      const b = await s.register('Bystander');
      bystander = b.apiKey;
      await s.ok(bystander, 'write', { path: '/projects/x/a.txt', content: 'the bystander\n' });
      await s.ok(bystander, 'write', { path: '/etc/passwd', content: 'root:x:0:0\n' });
      bystanderBefore = await tree(bystander);
      outsideBefore = await outside();
    });
    after(() => s.close());

    it(`has a corpus of at least 100 hostile paths (${CORPUS.length})`, () => {
      assert.ok(CORPUS.length >= 100, `${CORPUS.length} paths`);
      assert.equal(new Set(CORPUS).size, CORPUS.length, 'no duplicates');
      const invalid = CORPUS.filter((p) => !model(p).ok).length;
      const outsideF = CORPUS.filter((p) => {
        const m = model(p);
        return m.ok && !within(m.path, F);
      }).length;
      assert.ok(invalid >= 40 && outsideF >= 25, `${invalid} invalid, ${outsideF} outside the folder`);
    });

    /** Runs one (path × tool × key) case and checks it against the model. */
    async function runCase(kind: 'full' | 'folder', raw: string, tc: ToolCase, i: number): Promise<void> {
      const key = kind === 'full' ? full : tc.tool === 'create_key' ? folderAgentsKey : folderKey;
      const folder = kind === 'full' ? null : F;
      await tc.prepare?.(s, key, i);
      const input = tc.input(raw, i);
      const r: CallResult = await s.call(key, tc.tool, input);
      const where = `${kind} key, ${tc.name} ${JSON.stringify(raw).slice(0, 120)}`;
      assert.equal(r.status, 200, `${where}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      assertEnvelope(r, r.isError ? 'error' : 'success');
      const err = r.isError ? r.inner.error : null;
      const got = err ? `${err.code} ${JSON.stringify(err.details ?? {}).slice(0, 200)}` : 'success';
      const m = model(raw);
      if (!m.ok) {
        assert.equal(err?.code, 'INVALID_PATH', `${where}: expected INVALID_PATH, got ${got}`);
        assert.equal(err.details.path, raw, `${where}: details.path is the raw input`);
        assert.ok(
          m.reasons.some((re) => re.test(err.details.reason)),
          `${where}: reason ${JSON.stringify(err.details.reason)} is none of ${m.reasons.join(' ')}`,
        );
        return;
      }
      const n = m.path;
      if (folder && !within(n, folder) && !(tc.navigable && within(folder, n))) {
        if (tc.outsideCode) {
          assert.equal(err?.code, tc.outsideCode, `${where} → ${n}: expected ${tc.outsideCode}, got ${got}`);
        } else {
          assert.equal(err?.code, 'OUTSIDE_KEY_FOLDER', `${where} → ${n}: expected OUTSIDE_KEY_FOLDER, got ${got}`);
          assert.equal(err.details.path, n);
          assert.equal(err.details.folder, folder);
        }
        return;
      }
      // Allowed after normalization: the tool's own outcome, about exactly the normalized path.
      const other = tc.other?.(i);
      if (err) {
        if (err.code === 'INVALID_PATH') {
          const ok =
            (err.details.reason === 'reserved' &&
              ['/shared', '/dev'].some((r) => within(n, r) || (other !== undefined && within(other, r))) &&
              err.details.reserved !== undefined) ||
            namesRefused(err, n, other) ||
            (err.details.reason === 'root' && n === '/') ||
            (err.details.reason === 'into_itself' && other !== undefined && (within(other, n) || within(n, other)));
          assert.ok(ok, `${where} → ${n}: INVALID_PATH for an allowed path: ${got}`);
        } else {
          assert.ok(SEMANTIC.has(err.code) || (n === '/' && err.code === 'ALREADY_EXISTS'), `${where} → ${n}: unexpected ${got}`);
          assert.notEqual(err.code, 'OUTSIDE_KEY_FOLDER');
        }
        if (typeof err.details?.path === 'string' && err.code !== 'INVALID_INPUT') {
          const p = err.details.path as string;
          assert.ok(
            p === n || p === other || (other !== undefined && within(p, n)),
            `${where}: details.path ${JSON.stringify(p)} is neither ${n} nor ${other}`,
          );
        }
        return;
      }
      if (tc.echo) assert.equal(tc.echo(r.inner), n, `${where}: the result names ${JSON.stringify(tc.echo(r.inner))}, not the normalized ${n}`);
      if (tc.tool === 'write') {
        const back = await s.ok(full, 'read', { path: n, version: r.inner.version });
        assert.equal(back.content, `case ${i}\n`, `${where}: written content is at ${n}`);
      }
      if (folder && tc.navigable) {
        // Browsing above the folder shows only the way to it.
        const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
        const seen: string[] = [
          ...arr(r.inner.entries).map((e: any) => e.path),
          ...arr(r.inner.deleted).map((e: any) => e.path),
          ...arr(r.inner.changesets).flatMap((c: any) => c.entries.map((e: any) => e.path)),
        ];
        for (const p of seen) assert.ok(within(p, folder) || within(folder, p), `${where}: ${p} is outside the folder`);
      }
    }

    for (const kind of ['folder', 'full'] as const) {
      it(`every hostile path × every path-taking tool and field, ${kind} key`, async () => {
        const jobs = CORPUS.map((raw, pi) => ({ raw, pi }));
        let n = 0;
        await pool(jobs, 6, async ({ raw, pi }) => {
          for (const [ti, tc] of TOOL_CASES.entries()) {
            if (!inThisRun(pi, ti)) continue;
            await runCase(kind, raw, tc, pi * 100 + ti);
            n++;
          }
        });
        assert.equal(n, expectedCases());
        cases += n;
        casesPerKey.set(kind, n);
        console.log(`# paths (${backend}, ${kind} key): ${CORPUS.length} paths × ${TOOL_CASES.length} tool fields = ${n} cases`);
        if (kind === 'folder') {
          // Nothing outside the folder changed, and nothing the folder keys did lies outside it.
          assert.deepEqual(await outside(), outsideBefore, 'the folder key changed something outside its folder');
          let changesets = 0;
          for (let cursor: string | null | undefined = undefined; ;) {
            const page: any = await s.ok(full, 'list_changes', { limit: 200, ...(cursor ? { cursor } : {}) });
            for (const c of page.changesets) {
              if (!folderKeyIds.has(c.by.keyId)) continue;
              changesets++;
              for (const e of c.entries) assert.ok(within(e.path, F), `changeset ${c.changesetId} by the folder key touched ${e.path}`);
            }
            if (!page.nextCursor) break;
            cursor = page.nextCursor;
          }
          assert.ok(changesets > 50, `the folder key made ${changesets} changesets`);
          const minted = (await s.ok(full, 'list_keys')).keys.filter((k: any) => folderKeyIds.has(k.createdByKeyId));
          assert.ok(minted.length > 10, `${minted.length} keys minted by the folder key`);
          for (const k of minted) assert.ok(k.folder && within(k.folder, F), `a key minted by the folder key has folder ${k.folder}`);
        }
      });
    }

    it('every stored path is canonical; nothing under /shared; the other agent is untouched', async () => {
      const t = await tree(full);
      const all = [...t.live.map((e: any) => e[0]), ...t.deleted.map((e: any) => e[0])];
      assert.ok(all.length > 50);
      for (const p of all) {
        const m = model(p);
        assert.ok(m.ok && m.path === p, `stored path ${JSON.stringify(p)} is not canonical (${m.ok ? m.path : 'invalid'})`);
        assert.ok(!within(p, '/shared'), `${p} was created under /shared`);
        // Every stored path is addressable by the file tools.
        const st = await s.call(full, 'stat', { path: p });
        assert.ok(!st.isError || st.inner.error.code === 'NOT_FOUND', `${p}: ${JSON.stringify(st.inner)}`);
      }
      assert.deepEqual(await tree(bystander), bystanderBefore);
      console.log(`# paths (${backend}): ${cases} (path × tool × key) cases in total (${[...casesPerKey].map(([k, v]) => `${k} ${v}`).join(', ')})`);
    });

    it('NFD and NFC (and other canonical equivalents) address the same file, with both keys', async () => {
      for (const [kind, key] of [
        ['full', full],
        ['folder', folderKey],
      ] as const) {
        const nfd = `${F}/nf-${kind}/re\u0301sume\u0301.txt`;
        const nfc = nfd.normalize('NFC');
        assert.notEqual(nfd, nfc);
        const w1 = await s.ok(key, 'write', { path: nfd, content: 'one\n' });
        assert.equal(w1.path, nfc);
        const w2 = await s.ok(key, 'write', { path: nfc, content: 'two\n' });
        assert.equal(w2.version, 2, 'the NFC write is the same file');
        assert.equal((await s.ok(key, 'read', { path: nfd })).content, 'two\n');
        assert.equal((await s.ok(key, 'stat', { path: nfd })).versionCount, 2);
        await s.ok(key, 'edit', { path: nfd, old_string: 'two', new_string: 'three' });
        assert.equal((await s.ok(key, 'list', { path: `${F}/nf-${kind}` })).entries.length, 1);
        const bash = await s.ok(key, 'bash', { command: `cat ${nfc}` });
        assert.equal(bash.stdout, 'three\n');
        // U+212B ANGSTROM SIGN is canonically U+00C5.
        await s.ok(key, 'write', { path: `${F}/nf-${kind}/\u212b`, content: 'angstrom\n' });
        assert.equal((await s.ok(key, 'read', { path: `${F}/nf-${kind}/\u00c5` })).content, 'angstrom\n');
        assert.equal((await s.ok(key, 'read', { path: `${F}/nf-${kind}/A\u030a` })).content, 'angstrom\n');
      }
      // A folder given in NFD is the NFC folder.
      const k = await s.ok(folderAgentsKey, 'create_key', { label: 'nfd folder', scopes: ['files'], folder: `${F}/nf-full/../cafe\u0301` });
      assert.equal(k.folder, `${F}/caf\u00e9`);
      await s.ok(k.apiKey, 'write', { path: `${F}/caf\u00e9/in.txt`, content: 'x' });
      await s.ok(k.apiKey, 'read', { path: `${F}/cafe\u0301/in.txt` });
    });

    it('percent-encoded names are literal: nothing is decoded, nothing escapes', async () => {
      const names = ['%2e%2e%2f%2e%2e%2fescape.txt', '%252e%252e%252fdouble.txt', '..%2f..%2fetc', '%2E%2E'];
      await s.ok(full, 'mkdir', { path: `${F}/enc` });
      for (const name of names) {
        const w = await s.ok(folderKey, 'write', { path: `${F}/enc/${name}`, content: name });
        assert.equal(w.path, `${F}/enc/${name}`);
      }
      const listed = (await s.ok(full, 'list', { path: `${F}/enc` })).entries.map((e: any) => e.name).sort();
      assert.deepEqual(listed, [...names].sort());
      for (const p of ['/escape.txt', '/projects/escape.txt', '/double.txt', '/etc/etc']) await s.fail(full, 'stat', { path: p }, 'NOT_FOUND');
      const cat = await s.ok(folderKey, 'bash', { command: `cat '${F}/enc/%2e%2e%2f%2e%2e%2fescape.txt'` });
      assert.equal(cat.stdout, '%2e%2e%2f%2e%2e%2fescape.txt');
    });

    it('tool names in the URL: traversal and encodings never reach another route or a tool', async () => {
      const names = [
        '..%2Fread',
        '%2e%2e/%2e%2e/healthz',
        'read%2F..%2Fwrite',
        'read%00',
        'READ',
        '__proto__',
        'constructor',
        'toString',
        'hasOwnProperty',
        '%72ead',
        'read%20',
        'r%C3%A9ad',
        '..',
        '.',
        'read;write',
        'read%0d%0aX-Injected:%201',
      ];
      for (const name of names) {
        const r = await s.raw(`/api/tools/${name}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${full}`, 'content-type': 'application/json' },
          body: JSON.stringify({ path: `${F}/a.txt` }),
        });
        assert.ok([404, 405].includes(r.status) || (name === '%72ead' && r.status === 200), `${name}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
        assert.equal(r.headers.get('x-injected'), null);
        // A name that resolves to no route (`..`, `%2e%2e/…`) is a route 404, NOT_FOUND; the rest name no tool.
        if (r.status === 404) assert.ok(['UNKNOWN_TOOL', 'NOT_FOUND'].includes(r.inner?.error.code), `${name}: ${JSON.stringify(r.body)}`);
      }
    });

    it('bash stores only canonical paths: names it creates obey the same rules (NFC, no control characters, ≤ 255 bytes)', async () => {
      await s.ok(full, 'mkdir', { path: '/bp' });
      const long = 'n'.repeat(300);
      const commands = [
        `touch /bp/cafe\u0301.txt`,
        `echo nfd > /bp/nfd-e\u0301.txt`,
        `mkdir -p /bp/dir-e\u0301/sub && echo x > /bp/dir-e\u0301/sub/f.txt`,
        `touch $'/bp/ctl\\001x'`,
        `touch /bp/${long}`,
        `touch '/bp/back\\slash'`,
        `cp /bp/cafe\u0301.txt /bp/copy-$'\\x1b'.txt`,
      ];
      for (const command of commands) await s.ok(full, 'bash', { command, cwd: '/bp' });
      const t = await tree(full);
      const stored = [...t.live.map((e: any) => e[0]), ...t.deleted.map((e: any) => e[0])].filter((p: string) => within(p, '/bp'));
      const bad = stored.filter((p: string) => {
        const m = model(p);
        return !m.ok || m.path !== p;
      });
      assert.deepEqual(
        bad.map((p: string) => JSON.stringify(p).slice(0, 80)),
        [],
        'bash stored paths that the file tools cannot address',
      );
      // A name bash was given in NFD is the NFC file for every other tool.
      assert.equal((await s.ok(full, 'read', { path: '/bp/nfd-\u00e9.txt' })).content, 'nfd\n');
      assert.equal((await s.ok(full, 'read', { path: '/bp/dir-\u00e9/sub/f.txt' })).content, 'x\n');
      await s.ok(full, 'write', { path: '/bp/written-\u00e9.txt', content: 'via write\n' });
      assert.equal((await s.ok(full, 'bash', { command: 'cat /bp/written-e\u0301.txt' })).stdout, 'via write\n');
    });
  });
}

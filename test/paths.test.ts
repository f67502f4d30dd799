/**
 * Path rules (docs/contract/files.md#paths): unit tests of src/core/paths.ts, then every INVALID_PATH case
 * through HTTP for each path-taking tool, on both backends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ToolError } from '../src/core/errors.js';
import {
  MAX_PATH_BYTES,
  MAX_SEGMENT_BYTES,
  ancestorsOf,
  baseName,
  isReservedPath,
  isWithin,
  normalizePath,
  parentOf,
  subtreeRange,
} from '../src/core/paths.js';
import { backends } from './helpers/backends.js';
import { assertEnvelope } from './helpers/assert-envelope.js';
import { startServer, type TestServer } from './helpers/server.js';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** Asserts normalizePath throws INVALID_PATH whose details.reason matches `reason`. */
function rejects(input: string, reason: RegExp): ToolError {
  let caught: unknown;
  try {
    normalizePath(input);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ToolError, `${JSON.stringify(input)} should be rejected`);
  assert.equal(caught.code, 'INVALID_PATH');
  assert.equal(caught.details?.path, input);
  assert.match(String(caught.details?.reason), reason, `reason for ${JSON.stringify(input)}`);
  assert.match(caught.message, /Invalid path/);
  return caught;
}

// 'é' is 2 bytes in UTF-8, '€' is 3: lengths are counted in bytes, never in characters.
const E2 = '\u00e9';
const E3 = '\u20ac';

/** Every INVALID_PATH rule with an input that breaks exactly it, and what details.reason must say. */
const BAD_PATHS: Array<{ name: string; path: string; reason: RegExp }> = [
  { name: 'empty', path: '', reason: /empty/ },
  { name: 'NUL', path: '/a\u0000b', reason: /NUL/ },
  { name: 'control char BEL', path: '/a\u0007b', reason: /control character U\+0007/ },
  { name: 'newline', path: '/a\nb.txt', reason: /control character U\+000A/ },
  { name: 'DEL', path: '/a\u007fb', reason: /control character U\+007F/ },
  { name: 'C1 control', path: '/a\u0085b', reason: /control character U\+0085/ },
  { name: 'segment over 255 bytes (128 two-byte chars)', path: '/' + E2.repeat(128), reason: /longer than 255 bytes/ },
  { name: 'path over 1024 bytes (606 chars)', path: ('/' + E2.repeat(100)).repeat(6), reason: /longer than 1024 bytes/ },
  { name: 'tilde expansion', path: '~/notes.md', reason: /~/ },
  { name: 'bare tilde', path: '~', reason: /~/ },
  { name: 'relative', path: 'notes/todo.md', reason: /not absolute/ },
  { name: 'dot-relative', path: './notes', reason: /not absolute/ },
  { name: 'backslash', path: '/notes\\todo.md', reason: /backslash/ },
  { name: '.. above root', path: '/..', reason: /'\.\.' rises above/ },
  { name: '.. above root deeper', path: '/a/../../b', reason: /'\.\.' rises above/ },
];

describe('normalizePath (unit)', () => {
  it('answers as the rules do for 20,000 random paths of names, dots, slashes and long segments (its fast path for normal ones included)', () => {
    // The rules, written plainly: the reference the fast path must agree with.
    const model = (p: string): string | 'invalid' => {
      const out: string[] = [];
      for (const seg of p.split('/')) {
        if (seg === '' || seg === '.') continue;
        if (seg === '..') {
          if (!out.length) return 'invalid';
          out.pop();
        } else if (seg.length > MAX_SEGMENT_BYTES) return 'invalid';
        else out.push(seg);
      }
      const n = '/' + out.join('/');
      return n.length > MAX_PATH_BYTES ? 'invalid' : n;
    };
    let seed = 7;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const pieces = ['a', 'B9', '.', '..', '...', '.x', 'x.', '@', '+-_', '', 'z'.repeat(255), 'z'.repeat(256)];
    for (let i = 0; i < 20_000; i++) {
      const n = 1 + rand(6);
      const path = '/' + Array.from({ length: n }, () => pieces[rand(pieces.length)]).join('/') + (rand(4) === 0 ? '/' : '');
      const want = model(path);
      let got: string;
      try {
        got = normalizePath(path);
      } catch (err) {
        assert.ok(err instanceof ToolError && err.code === 'INVALID_PATH');
        got = 'invalid';
      }
      assert.equal(got, want, path);
    }
  });

  it('collapses ".", "//" and drops a trailing "/"', () => {
    assert.equal(normalizePath('/'), '/');
    assert.equal(normalizePath('//'), '/');
    assert.equal(normalizePath('/./'), '/');
    assert.equal(normalizePath('/a/./b//c/'), '/a/b/c');
    assert.equal(normalizePath('///a///b///'), '/a/b');
    assert.equal(normalizePath('/a/b/.'), '/a/b');
    assert.equal(normalizePath('/notes/todo.md'), '/notes/todo.md');
  });

  it('resolves ".." lexically, down to "/" but never above it', () => {
    assert.equal(normalizePath('/a/b/../c'), '/a/c');
    assert.equal(normalizePath('/a/..'), '/');
    assert.equal(normalizePath('/a/b/../../c/./d/..'), '/c');
    assert.equal(normalizePath('/a/../b/../c'), '/c');
    rejects('/..', /rises above/);
    rejects('/../a', /rises above/);
    rejects('/a/../..', /rises above/);
    rejects('/a/b/../../../c', /rises above/);
  });

  it('keeps names that merely contain dots or tildes', () => {
    assert.equal(normalizePath('/a/...'), '/a/...');
    assert.equal(normalizePath('/a/..b'), '/a/..b');
    assert.equal(normalizePath('/.hidden/.env'), '/.hidden/.env');
    assert.equal(normalizePath('/notes/~draft.md'), '/notes/~draft.md');
    assert.equal(normalizePath('/a b/c d.txt'), '/a b/c d.txt');
  });

  it('is case-sensitive', () => {
    assert.equal(normalizePath('/Notes/A.md'), '/Notes/A.md');
    assert.notEqual(normalizePath('/Notes/A.md'), normalizePath('/notes/a.md'));
  });

  it('normalizes to NFC (NFD input gives the NFC path)', () => {
    const nfd = '/cafe\u0301/re\u0301sume\u0301.txt';
    const nfc = '/caf\u00e9/r\u00e9sum\u00e9.txt';
    assert.notEqual(nfd, nfc);
    assert.equal(normalizePath(nfd), nfc);
    assert.equal(normalizePath(nfc), nfc);
    // Hangul jamo compose too.
    assert.equal(normalizePath('/\u1100\u1161'), '/\uac00');
  });

  it('rejects NUL and every control character, naming it', () => {
    rejects('/a\u0000', /NUL character/);
    for (const cp of [0x01, 0x09, 0x0a, 0x0d, 0x1b, 0x1f, 0x7f, 0x80, 0x9f]) {
      const hex = cp.toString(16).toUpperCase().padStart(4, '0');
      rejects(`/x${String.fromCharCode(cp)}y`, new RegExp(`control character U\\+${hex}`));
    }
    // Printable neighbours are fine.
    assert.equal(normalizePath('/x\u00a0y'), '/x\u00a0y');
    assert.equal(normalizePath('/x y~!'), '/x y~!');
  });

  it('limits a segment to 255 bytes (not characters)', () => {
    assert.equal(MAX_SEGMENT_BYTES, 255);
    assert.equal(normalizePath('/' + 'a'.repeat(255)), '/' + 'a'.repeat(255));
    rejects('/' + 'a'.repeat(256), /longer than 255 bytes/);
    const ok2 = E2.repeat(127); // 254 bytes, 127 chars
    assert.equal(bytes(ok2), 254);
    assert.equal(normalizePath('/d/' + ok2), '/d/' + ok2);
    const bad2 = E2.repeat(128); // 256 bytes, 128 chars
    assert.equal(bad2.length, 128);
    rejects('/d/' + bad2, /longer than 255 bytes/);
    assert.equal(normalizePath('/' + E3.repeat(85)), '/' + E3.repeat(85)); // exactly 255 bytes
    rejects('/' + E3.repeat(86), /longer than 255 bytes/); // 258 bytes, 86 chars
    // Measured after NFC: 200 NFD 'é's are 600 bytes raw but 400 after composition → still too long.
    rejects('/' + 'e\u0301'.repeat(200), /longer than 255 bytes/);
    // 120 NFD 'é' = 360 bytes raw, 240 bytes after NFC → fine.
    assert.equal(normalizePath('/' + 'e\u0301'.repeat(120)), '/' + E2.repeat(120));
  });

  it('limits the whole path to 1024 bytes (not characters)', () => {
    assert.equal(MAX_PATH_BYTES, 1024);
    const exact = ('/' + 'a'.repeat(255)).repeat(4); // 4 × 256 = 1024 bytes
    assert.equal(bytes(exact), 1024);
    assert.equal(normalizePath(exact), exact);
    rejects(exact + '/b', /longer than 1024 bytes/);
    const multi = ('/' + E2.repeat(100)).repeat(6); // 606 chars, 1206 bytes
    assert.ok(multi.length < 1024);
    rejects(multi, /longer than 1024 bytes/);
    const multiOk = ('/' + E2.repeat(100)).repeat(5); // 1005 bytes
    assert.equal(normalizePath(multiOk), multiOk);
  });

  it('rejects ~ expansion, relative paths, backslashes and the empty path', () => {
    for (const bad of BAD_PATHS) rejects(bad.path, bad.reason);
    rejects('~alice/x', /~/);
    rejects('a', /not absolute/);
    rejects('../a', /not absolute/);
    rejects(' /a', /not absolute/);
    rejects('C:\\Users\\x', /not absolute/);
    rejects('/a\\..\\b', /backslash/);
  });

  it('errors carry a hint saying what to do', () => {
    const e = rejects('notes/todo.md', /not absolute/);
    assert.match(e.message, /"\/notes\/todo.md"/);
    const t = rejects('~/x', /~/);
    assert.match(t.message, /absolute path/);
  });
});

describe('path helpers (unit)', () => {
  it('isWithin is component-wise', () => {
    assert.equal(isWithin('/a/b', '/a/b'), true);
    assert.equal(isWithin('/a/b/c', '/a/b'), true);
    assert.equal(isWithin('/a/b/c/d', '/a/b'), true);
    assert.equal(isWithin('/a/bc', '/a/b'), false);
    assert.equal(isWithin('/a/b.txt', '/a/b'), false);
    assert.equal(isWithin('/a', '/a/b'), false);
    assert.equal(isWithin('/', '/a'), false);
    assert.equal(isWithin('/anything/at/all', '/'), true);
    assert.equal(isWithin('/', '/'), true);
  });

  it('ancestorsOf lists proper ancestors, outermost first, without "/"', () => {
    assert.deepEqual(ancestorsOf('/a/b/c'), ['/a', '/a/b']);
    assert.deepEqual(ancestorsOf('/a/b'), ['/a']);
    assert.deepEqual(ancestorsOf('/a'), []);
    assert.deepEqual(ancestorsOf('/'), []);
  });

  it('parentOf and baseName', () => {
    assert.equal(parentOf('/a/b/c'), '/a/b');
    assert.equal(parentOf('/a'), '/');
    assert.equal(parentOf('/'), '/');
    assert.equal(baseName('/a/b/c.txt'), 'c.txt');
    assert.equal(baseName('/a'), 'a');
    assert.equal(baseName('/'), '/');
  });

  it('subtreeRange covers exactly the paths strictly below a directory, in byte order', () => {
    const inRange = (p: string, r: { lo: string; hi: string }) =>
      Buffer.compare(Buffer.from(p), Buffer.from(r.lo)) >= 0 && Buffer.compare(Buffer.from(p), Buffer.from(r.hi)) < 0;
    const r = subtreeRange('/a');
    assert.deepEqual(r, { lo: '/a/', hi: '/a0' });
    for (const p of ['/a/b', '/a/b/c', '/a/\u00ff', '/a/\u{1F600}', '/a/~', '/a/\uffff/x']) assert.ok(inRange(p, r), `${p} inside`);
    for (const p of ['/a', '/a0', '/ab', '/a.b', '/a-b/c', '/b', '/', '/A/x']) assert.ok(!inRange(p, r), `${p} outside`);
    const root = subtreeRange('/');
    for (const p of ['/a', '/z/z', '/\u{1F600}']) assert.ok(inRange(p, root), `${p} inside /`);
    assert.deepEqual(root, { lo: '/', hi: '0' }); // no node is stored for '/' itself
  });

  it('isReservedPath: /shared and below, component-wise', () => {
    assert.equal(isReservedPath('/shared'), true);
    assert.equal(isReservedPath('/shared/bob/x'), true);
    assert.equal(isReservedPath('/sharedstuff'), false);
    assert.equal(isReservedPath('/a/shared'), false);
    assert.equal(isReservedPath('/'), false);
  });
});

const PATH_TOOLS: Array<{ tool: string; input: (path: string) => Record<string, unknown> }> = [
  { tool: 'write', input: (path) => ({ path, content: 'x' }) },
  { tool: 'read', input: (path) => ({ path }) },
  { tool: 'stat', input: (path) => ({ path }) },
  { tool: 'list', input: (path) => ({ path }) },
  { tool: 'mkdir', input: (path) => ({ path }) },
  { tool: 'delete', input: (path) => ({ path }) },
];

for (const backend of backends()) {
  describe(`paths through HTTP (${backend})`, () => {
    let s: TestServer;
    let key: string;
    before(async () => {
      s = await startServer(backend);
      key = (await s.register('Path Prober')).apiKey;
    });
    after(() => s.close());

    it('every path-taking tool rejects every invalid path with INVALID_PATH and the rule in details.reason', async () => {
      for (const { tool, input } of PATH_TOOLS) {
        for (const bad of BAD_PATHS) {
          const r = await s.call(key, tool, input(bad.path));
          const label = `${tool} ${bad.name}`;
          assert.equal(r.status, 200, label);
          assertEnvelope(r, 'error');
          assert.equal(r.inner.error.code, 'INVALID_PATH', `${label}: ${JSON.stringify(r.inner)}`);
          assert.equal(r.inner.error.details.path, bad.path, label);
          assert.match(r.inner.error.details.reason, bad.reason, label);
        }
      }
      // Nothing was created by any of those calls.
      const root = await s.ok(key, 'list', { path: '/' });
      assert.deepEqual(
        root.entries.filter((e: any) => !e.mount),
        [],
      );
    });

    it('writes under /shared are rejected (reason "reserved"); look-alikes are fine', async () => {
      for (const [tool, input] of [
        ['write', { path: '/shared/mine.txt', content: 'x' }],
        ['write', { path: '/shared', content: 'x' }],
        ['write', { path: '/shared/bob/deep/file.txt', content: 'x' }],
        ['write', { path: '/tmp/../shared/x.txt', content: 'x' }],
        ['mkdir', { path: '/shared' }],
        ['mkdir', { path: '/shared/bob' }],
      ] as const) {
        const err = await s.fail(key, tool, input, 'INVALID_PATH');
        assert.equal(err.details.reason, 'reserved', `${tool} ${input.path}`);
        assert.match(err.message, /\/shared/);
      }
      // /published is everyone's read-only view of published work.
      const pub = await s.fail(key, 'write', { path: '/published/bob/x.txt', content: 'x' }, 'FORBIDDEN');
      assert.equal(pub.details.reason, 'published_read_only');
      // Nothing to remove there: a mount with no share is empty (the same answer whoever bob is).
      await s.fail(key, 'delete', { path: '/shared/bob/x.txt' }, 'NOT_FOUND');
      const root = await s.fail(key, 'delete', { path: '/shared' }, 'FORBIDDEN');
      assert.equal(root.details.reason, 'mount_directory');
      const w1 = await s.ok(key, 'write', { path: '/sharedstuff/x.txt', content: 'ok' });
      assert.equal(w1.path, '/sharedstuff/x.txt');
      const w2 = await s.ok(key, 'write', { path: '/notes/shared/x.txt', content: 'ok' });
      assert.equal(w2.path, '/notes/shared/x.txt');
      const w3 = await s.ok(key, 'write', { path: '/shared/../unshared.txt', content: 'ok' });
      assert.equal(w3.path, '/unshared.txt');
      const listed = await s.ok(key, 'list', { path: '/' });
      assert.ok(!listed.entries.some((e: any) => e.name === 'shared' && !e.mount), 'no /shared was created (the mount is listed, marked mount)');
    });

    it('tools answer with the normalized path', async () => {
      const w = await s.ok(key, 'write', { path: '//norm/./a/../b//file.txt/', content: 'n' });
      assert.equal(w.path, '/norm/b/file.txt');
      const r = await s.ok(key, 'read', { path: '/norm/b/./file.txt' });
      assert.equal(r.path, '/norm/b/file.txt');
      assert.equal(r.content, 'n');
      const st = await s.ok(key, 'stat', { path: '/norm/b/' });
      assert.equal(st.path, '/norm/b');
      assert.equal(st.type, 'directory');
      const l = await s.ok(key, 'list', { path: '/norm//b/../b' });
      assert.equal(l.path, '/norm/b');
      assert.deepEqual(
        l.entries.map((e: any) => e.path),
        ['/norm/b/file.txt'],
      );
      const m = await s.ok(key, 'mkdir', { path: '/norm/c/./d/' });
      assert.equal(m.path, '/norm/c/d');
      const d = await s.ok(key, 'delete', { path: '/norm/c/d/../d' });
      assert.equal(d.path, '/norm/c/d');
    });

    it('paths are case-sensitive: /Case.txt and /case.txt are two files', async () => {
      await s.ok(key, 'write', { path: '/Case.txt', content: 'upper' });
      await s.ok(key, 'write', { path: '/case.txt', content: 'lower' });
      assert.equal((await s.ok(key, 'read', { path: '/Case.txt' })).content, 'upper');
      assert.equal((await s.ok(key, 'read', { path: '/case.txt' })).content, 'lower');
    });

    it('NFD and NFC spellings name the same file; listings show NFC', async () => {
      const nfd = '/unicode/cafe\u0301.txt';
      const nfc = '/unicode/caf\u00e9.txt';
      const w = await s.ok(key, 'write', { path: nfd, content: 'coffee' });
      assert.equal(w.path, nfc);
      assert.equal(w.created, true);
      const r = await s.ok(key, 'read', { path: nfc });
      assert.equal(r.content, 'coffee');
      const again = await s.ok(key, 'write', { path: nfc, content: 'coffee' });
      assert.equal(again.unchanged, true);
      assert.equal(again.version, 1);
      const l = await s.ok(key, 'list', { path: '/unicode' });
      assert.deepEqual(
        l.entries.map((e: any) => e.name),
        ['caf\u00e9.txt'],
      );
    });

    it('byte limits accept the longest valid multibyte names and paths over HTTP', async () => {
      const seg = E2.repeat(127); // 254 bytes
      const w = await s.ok(key, 'write', { path: `/long/${seg}`, content: 'x' });
      assert.equal(w.path, `/long/${seg}`);
      const exact = ('/' + 'p'.repeat(255)).repeat(4);
      const w2 = await s.ok(key, 'write', { path: exact, content: 'x' });
      assert.equal(w2.path, exact);
      assert.equal((await s.ok(key, 'read', { path: exact })).content, 'x');
      const st = await s.ok(key, 'stat', { path: exact });
      assert.equal(st.type, 'file');
    });

    it('a non-string path is INVALID_INPUT (a type error), not INVALID_PATH', async () => {
      for (const tool of ['write', 'read', 'stat', 'list', 'mkdir', 'delete']) {
        const err = await s.fail(key, tool, tool === 'write' ? { path: 42, content: 'x' } : { path: 42 }, 'INVALID_INPUT');
        assert.equal(err.details.field, 'path', tool);
      }
    });
  });
}

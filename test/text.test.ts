/**
 * Pure helpers: text (line counting, binary detection, paging), slugs, suggestions, time,
 * keys and configuration. No server needed.
 */
import { mainThreadCpuMs } from './helpers/loop-monitor.js';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { ToolError } from '../src/core/errors.js';
import { KEY_PATTERN, randomBase62, generateApiKey, hashApiKey, keyPreview, newId, newTimeOrderedId } from '../src/core/keys.js';
import { RESERVED_SLUGS, baseSlug, slugCandidate } from '../src/core/slug.js';
import { closest, editDistance } from '../src/core/suggest.js';
import { clip, contentHash, countLines, decodeText, decodeTextWork, pageLines, quoteClipped } from '../src/core/text.js';
import { runSync } from '../src/core/work.js';
import { z } from 'zod';
import { parseInput } from '../src/tools/input.js';
import { iso, nextUpdatedAtMs, parseTimestamp } from '../src/core/time.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SLUG = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

function assertSlug(slug: string, why: string): void {
  assert.match(slug, SLUG, why);
  assert.ok(slug.length >= 2 && slug.length <= 40, `${why}: length ${slug.length}`);
  assert.ok(!slug.includes('--'), `${why}: no doubled hyphen in ${slug}`);
  assert.ok(!RESERVED_SLUGS.has(slug), `${why}: ${slug} is reserved`);
}

describe('text: contentHash, countLines', () => {
  it('contentHash is sha256:<hex> of the bytes', () => {
    const b = Buffer.from('hello\n');
    assert.equal(contentHash(b), 'sha256:' + createHash('sha256').update(b).digest('hex'));
    assert.equal(contentHash(new Uint8Array()), 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('counts lines like wc -l, plus one for a final line without newline', () => {
    assert.equal(countLines(''), 0);
    assert.equal(countLines('a'), 1);
    assert.equal(countLines('a\n'), 1);
    assert.equal(countLines('a\nb'), 2);
    assert.equal(countLines('a\nb\n'), 2);
    assert.equal(countLines('\n'), 1);
    assert.equal(countLines('\n\n\n'), 3);
    assert.equal(countLines('a\n\nb'), 3);
  });

  it('CRLF counts one line per \\r\\n; a lone \\r is not a line break', () => {
    assert.equal(countLines('a\r\nb\r\n'), 2);
    assert.equal(countLines('a\r\nb'), 2);
    assert.equal(countLines('a\rb\rc'), 1);
    assert.equal(countLines('\r\n'), 1);
  });
});

describe('text: decodeText (binary detection)', () => {
  it('decodes valid UTF-8, keeping a BOM', () => {
    assert.equal(decodeText(Buffer.from('héllo €\n')), 'héllo €\n');
    assert.equal(decodeText(Buffer.from([])), '');
    assert.equal(decodeText(Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69])), '\ufeffhi');
    assert.equal(decodeText(Buffer.from('\u{1F600}')), '\u{1F600}');
  });

  it('treats a NUL byte as binary', () => {
    assert.equal(decodeText(Buffer.from([0x61, 0x00, 0x62])), null);
    assert.equal(decodeText(Buffer.from([0x00])), null);
  });

  it('treats invalid UTF-8 as binary', () => {
    assert.equal(decodeText(Buffer.from([0xff, 0xfe, 0x61])), null);
    assert.equal(decodeText(Buffer.from([0x61, 0xc3])), null); // truncated 2-byte sequence
    assert.equal(decodeText(Buffer.from([0xc0, 0xaf])), null); // overlong encoding of '/'
    assert.equal(decodeText(Buffer.from([0xed, 0xa0, 0x80])), null); // UTF-16 surrogate
    assert.equal(decodeText(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), null); // PNG header
  });
});

describe('text: pageLines', () => {
  const seven = Array.from({ length: 7 }, (_, i) => `line${i + 1}\n`).join('');

  it('returns the whole text when it fits', () => {
    assert.deepEqual(pageLines(seven, 1, 100, 10_000), {
      content: seven,
      start: 1,
      end: 7,
      total: 7,
      truncated: false,
      nextOffset: null,
      cutLine: null,
    });
  });

  it('pages by offset and limit, reporting where to continue', () => {
    const p1 = pageLines(seven, 1, 3, 10_000);
    assert.equal(p1.content, 'line1\nline2\nline3\n');
    assert.deepEqual([p1.start, p1.end, p1.total, p1.truncated, p1.nextOffset], [1, 3, 7, true, 4]);
    const p2 = pageLines(seven, 4, 3, 10_000);
    assert.equal(p2.content, 'line4\nline5\nline6\n');
    assert.deepEqual([p2.start, p2.end, p2.nextOffset], [4, 6, 7]);
    const p3 = pageLines(seven, 7, 3, 10_000);
    assert.equal(p3.content, 'line7\n');
    assert.deepEqual([p3.start, p3.end, p3.total, p3.nextOffset], [7, 7, 7, null]);
    const mid = pageLines(seven, 2, 2, 10_000);
    assert.equal(mid.content, 'line2\nline3\n');
    assert.equal(mid.truncated, true);
    assert.equal(mid.nextOffset, 4);
    // Concatenating the pages gives back the text exactly.
    assert.equal(p1.content + p2.content + p3.content, seven);
  });

  it('handles a last line without a final newline, and keeps CRLF', () => {
    const p = pageLines('a\nb', 1, 10, 100);
    assert.deepEqual([p.content, p.start, p.end, p.total, p.truncated], ['a\nb', 1, 2, 2, false]);
    const last = pageLines('a\nb', 2, 10, 100);
    assert.deepEqual([last.content, last.start, last.end, last.nextOffset], ['b', 2, 2, null]);
    const crlf = pageLines('one\r\ntwo\r\nthree\r\n', 2, 1, 100);
    assert.equal(crlf.content, 'two\r\n');
    assert.equal(crlf.total, 3);
    assert.equal(crlf.nextOffset, 3);
  });

  it('caps a page at maxBytes of whole lines', () => {
    const text = 'aaaa\nbbbb\ncccc\n'; // 5 bytes per line
    const p = pageLines(text, 1, 10, 10);
    assert.equal(p.content, 'aaaa\nbbbb\n');
    assert.deepEqual([p.start, p.end, p.truncated, p.nextOffset, p.cutLine], [1, 2, true, 3, null]);
    const q = pageLines(text, 1, 10, 14); // 14 bytes: still only two whole lines
    assert.equal(q.content, 'aaaa\nbbbb\n');
    const r = pageLines(text, 1, 10, 15);
    assert.equal(r.content, text);
    assert.equal(r.truncated, false);
    // Bytes, not characters: 'éé\n' is 5 bytes.
    const multi = 'éé\néé\néé\n';
    const m = pageLines(multi, 1, 10, 10);
    assert.equal(m.content, 'éé\néé\n');
    assert.equal(m.nextOffset, 3);
  });

  it('cuts a single over-long line to maxBytes and reports it', () => {
    const text = 'x'.repeat(100) + '\nshort\n';
    const p = pageLines(text, 1, 10, 10);
    assert.deepEqual(p, { content: 'x'.repeat(10), start: 1, end: 1, total: 2, truncated: true, nextOffset: 2, cutLine: 1 });
    const mid = pageLines('a\n' + 'y'.repeat(50) + '\nc\n', 2, 10, 10);
    assert.deepEqual([mid.content, mid.start, mid.end, mid.cutLine, mid.nextOffset], ['y'.repeat(10), 2, 2, 2, 3]);
    const lastLine = pageLines('z'.repeat(30), 1, 10, 8);
    // Nothing follows the cut last line: not truncated (no next), the cut is reported by cutLine.
    assert.deepEqual([lastLine.content, lastLine.cutLine, lastLine.nextOffset, lastLine.truncated], ['z'.repeat(8), 1, null, false]);
  });

  it('never splits a multibyte character when cutting', () => {
    const p = pageLines('é'.repeat(10) + '\n', 1, 10, 5); // 5 bytes would split the third 'é'
    assert.equal(p.content, 'éé');
    assert.ok(!p.content.includes('\ufffd'));
    assert.equal(p.cutLine, 1);
    const e = pageLines('\u{1F600}\u{1F600}', 1, 1, 6);
    assert.equal(e.content, '\u{1F600}');
  });

  it('an offset past the end returns nothing and no continuation', () => {
    const p = pageLines(seven, 8, 10, 1000);
    assert.deepEqual([p.content, p.start, p.end, p.total, p.nextOffset, p.cutLine], ['', 0, 0, 7, null, null]);
    const far = pageLines('a\n', 100, 1, 1000);
    assert.deepEqual([far.content, far.start, far.end, far.total, far.nextOffset], ['', 0, 0, 1, null]);
  });

  it('an empty text is one empty, complete page', () => {
    assert.deepEqual(pageLines('', 1, 10, 100), {
      content: '',
      start: 0,
      end: 0,
      total: 0,
      truncated: false,
      nextOffset: null,
      cutLine: null,
    });
  });
});

describe('slug', () => {
  it('derives lowercase [a-z0-9-] from the name', () => {
    assert.equal(baseSlug('My Agent'), 'my-agent');
    assert.equal(baseSlug('  --Hello__World--  '), 'hello-world');
    assert.equal(baseSlug('Café Bot 3000'), 'cafe-bot-3000');
    assert.equal(baseSlug('Ünïcödé Nàmé'), 'unicode-name');
    assert.equal(baseSlug('a.b/c\\d'), 'a-b-c-d');
    assert.equal(baseSlug('UPPER'), 'upper');
  });

  it('never returns a reserved word as-is', () => {
    for (const word of ['www', 'api', 'admin', 'shared', 'WWW', 'Api', ' admin ', 'Shared!']) {
      const slug = baseSlug(word);
      assertSlug(slug, word);
      assert.notEqual(
        slug,
        word
          .trim()
          .toLowerCase()
          .replace(/[^a-z]/g, ''),
      );
    }
    for (const word of RESERVED_SLUGS) assertSlug(baseSlug(word), word);
  });

  it('names with no ASCII letters or only one character still give a valid slug', () => {
    for (const name of ['日本語エージェント', '🤖', 'Ωμέγα', '---', '!!!', 'x', '7', 'ß']) {
      assertSlug(baseSlug(name), name);
    }
    assert.equal(baseSlug('x'), 'x-agent');
  });

  it('is at most 40 characters and never ends with a hyphen after cutting', () => {
    const long = 'a'.repeat(39) + ' bcdef';
    const s = baseSlug(long);
    assert.equal(s, 'a'.repeat(39));
    assertSlug(s, 'long');
    const longer = baseSlug('The Quick Brown Fox Jumps Over The Lazy Dog Again And Again');
    assertSlug(longer, 'longer');
    assert.ok(longer.length <= 40);
  });

  it('collision candidates: base, base-2, base-3…, within 40 chars and without "--"', () => {
    assert.equal(slugCandidate('my-agent', 1), 'my-agent');
    assert.equal(slugCandidate('my-agent', 2), 'my-agent-2');
    assert.equal(slugCandidate('my-agent', 3), 'my-agent-3');
    const forty = 'b'.repeat(40);
    assert.equal(slugCandidate(forty, 2), 'b'.repeat(38) + '-2');
    assert.equal(slugCandidate(forty, 123), 'b'.repeat(36) + '-123');
    const hyphenAtCut = 'a'.repeat(37) + '-bb'; // cutting to 38 leaves a trailing '-'
    const c = slugCandidate(hyphenAtCut, 2);
    assert.equal(c, 'a'.repeat(37) + '-2');
    assertSlug(c, 'hyphen at cut');
    const seen = new Set<string>();
    for (let n = 1; n <= 50; n++) seen.add(slugCandidate(forty, n));
    assert.equal(seen.size, 50, 'candidates are distinct');
  });
});

describe('suggest', () => {
  it('editDistance is the Levenshtein distance', () => {
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(editDistance('abc', ''), 3);
    assert.equal(editDistance('abc', 'abc'), 0);
    assert.equal(editDistance('flaw', 'lawn'), 2);
    assert.equal(editDistance('read', 'reed'), 1);
    assert.equal(editDistance('ab', 'ba'), 2);
  });

  it('closest: best first, case-insensitive, bounded by length, at most max', () => {
    assert.deepEqual(closest('reed', ['read', 'write', 'stat', 'list']), ['read']);
    assert.deepEqual(closest('READ', ['read', 'write']), ['read']);
    assert.deepEqual(closest('file', ['path', 'content']), []);
    assert.deepEqual(closest('xyzzy', ['read', 'write']), []);
    assert.deepEqual(closest('lst', ['list', 'last', 'lost', 'lust'], 2), ['last', 'list']);
    // A substring counts as close.
    assert.deepEqual(closest('version', ['list_versions', 'unrelated_long_name']), ['list_versions']);
    assert.deepEqual(closest('stat', ['stat', 'star', 'state']), ['stat', 'star', 'state']);
    assert.equal(closest('a', ['b', 'c', 'd', 'e'], 3).length, 3);
  });
});

describe('time', () => {
  it('nextUpdatedAtMs is max(now, previous + 1)', () => {
    assert.equal(nextUpdatedAtMs(null, 1000), 1000);
    assert.equal(nextUpdatedAtMs(undefined, 1000), 1000);
    assert.equal(nextUpdatedAtMs(999, 1000), 1000);
    assert.equal(nextUpdatedAtMs(1000, 1000), 1001);
    assert.equal(nextUpdatedAtMs(5000, 1000), 5001); // clock went backwards
    const now = Date.now();
    const t = nextUpdatedAtMs(null);
    assert.ok(t >= now && t <= Date.now());
  });

  it('is strictly increasing under a frozen clock, and iso() keeps exactly milliseconds', () => {
    let prev: number | null = null;
    const seen: string[] = [];
    for (let i = 0; i < 100; i++) {
      const next = nextUpdatedAtMs(prev, 1_767_323_045_678);
      if (prev !== null) assert.ok(next > prev);
      prev = next;
      seen.push(iso(next));
    }
    assert.equal(new Set(seen).size, 100);
    for (const s of seen) assert.match(s, ISO_MS);
    assert.equal(iso(0), '1970-01-01T00:00:00.000Z');
    assert.equal(iso(1_767_323_045_678), '2026-01-02T03:04:05.678Z');
  });

  it('parseTimestamp accepts the updatedAt format and RFC 3339 equivalents', () => {
    const ms = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    assert.equal(parseTimestamp('2026-01-02T03:04:05.678Z', 'expectedUpdatedAt'), ms);
    assert.equal(parseTimestamp('2026-01-02T05:04:05.678+02:00', 'expectedUpdatedAt'), ms);
    assert.equal(parseTimestamp('2026-01-02T03:04:05Z', 'x'), Date.UTC(2026, 0, 2, 3, 4, 5));
    assert.equal(parseTimestamp('2026-01-02T03:04:05.6Z', 'x'), Date.UTC(2026, 0, 2, 3, 4, 5, 600));
    // Every iso() output round-trips exactly.
    for (const t of [0, 1, 999, 1_767_323_045_678, Date.now()]) assert.equal(parseTimestamp(iso(t), 'x'), t);
  });

  it('parseTimestamp rejects other forms with INVALID_INPUT naming the field', () => {
    for (const bad of [
      '',
      'yesterday',
      '2026-01-02',
      '2026-01-02 03:04:05.678Z',
      '2026-01-02T03:04:05.6789Z',
      '2026-01-02T03:04:05.678',
      '1767323045678',
      '2026-13-02T03:04:05.678Z',
      ' 2026-01-02T03:04:05.678Z',
      '2026-01-02T03:04:05.678Z ',
      '2026-01-02T03:04:05.678+0200',
    ]) {
      assert.throws(
        () => parseTimestamp(bad, 'expectedUpdatedAt'),
        (err: unknown) => {
          assert.ok(err instanceof ToolError, bad);
          assert.equal(err.code, 'INVALID_INPUT');
          assert.equal(err.details?.field, 'expectedUpdatedAt');
          assert.match(err.message, /expectedUpdatedAt/);
          return true;
        },
        JSON.stringify(bad),
      );
    }
  });
});

describe('keys', () => {
  const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

  it('a key is mk_ + 43 base62 characters, random each time', () => {
    const keys = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const k = generateApiKey();
      assert.match(k, /^mk_[0-9A-Za-z]{43}$/);
      assert.match(k, KEY_PATTERN);
      keys.add(k);
    }
    assert.equal(keys.size, 200);
    assert.ok(!KEY_PATTERN.test('mk_' + 'a'.repeat(42)));
    assert.ok(!KEY_PATTERN.test('mk_' + 'a'.repeat(44)));
    assert.ok(!KEY_PATTERN.test('mk_' + 'a'.repeat(42) + '-'));
    assert.ok(!KEY_PATTERN.test('mk_' + 'a'.repeat(42) + '_'));
    assert.ok(!KEY_PATTERN.test('sk_' + 'a'.repeat(43)));
  });

  it('random base62 strings use every digit about equally (no modulo bias) and never repeat', () => {
    const counts = new Map<string, number>();
    const seen = new Set<string>();
    const N = 4000;
    for (let i = 0; i < N; i++) {
      const s = randomBase62(43);
      assert.equal(s.length, 43);
      assert.match(s, /^[0-9A-Za-z]{43}$/);
      seen.add(s);
      for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    assert.equal(seen.size, N);
    assert.equal(counts.size, 62);
    // 172,000 digits: each expected 2,774 times (sd ~52); a byte % 62 without rejection would
    // give digits 0-7 about 1.3x the others, far outside this band.
    const expected = (N * 43) / 62;
    for (const [c, n] of counts) assert.ok(Math.abs(n - expected) < expected * 0.1, `digit ${c}: ${n} vs ~${expected}`);
    assert.equal(ALPHABET.length, 62);
  });

  it('the stored hash is the SHA-256 hex of the whole key', () => {
    const k = generateApiKey();
    const h = hashApiKey(k);
    assert.match(h, /^[0-9a-f]{64}$/);
    assert.equal(h, createHash('sha256').update(k, 'utf8').digest('hex'));
    assert.equal(hashApiKey(k), h, 'deterministic');
    assert.notEqual(hashApiKey(generateApiKey()), h);
    assert.ok(!h.includes(k.slice(3)));
  });

  it('previews reveal only the first 7 and last 4 characters; ids have a type prefix', () => {
    const k = generateApiKey();
    const p = keyPreview(k);
    assert.equal(p, `${k.slice(0, 7)}…${k.slice(-4)}`);
    assert.ok(p.length < 15);
    assert.match(newId('key'), /^key_[0-9A-Za-z]{22}$/);
    assert.match(newId('agt'), /^agt_[0-9A-Za-z]{22}$/);
    assert.notEqual(newId('cs'), newId('cs'));
  });

  it('time-ordered ids (changesets) sort by creation time, same shape, still unique within one millisecond', () => {
    const times = [0, 1, 61, 62, 1_700_000_000_000, 1_700_000_000_001, Date.now(), 2 ** 47];
    const ids = times.map((t) => newTimeOrderedId('cs', t));
    for (const id of ids) assert.match(id, /^cs_[0-9A-Za-z]{22}$/);
    assert.deepEqual([...ids].sort(), ids, 'byte order = time order');
    assert.equal(newTimeOrderedId('cs', 62).slice(3, 11), '00000010');
    const same = new Set(Array.from({ length: 1000 }, () => newTimeOrderedId('cs', 1_700_000_000_000)));
    assert.equal(same.size, 1000);
  });
});

describe('config: loadConfig', () => {
  const MiB = 1024 * 1024;

  it('defaults', () => {
    assert.deepEqual(loadConfig({}), {
      port: 3000,
      host: '127.0.0.1',
      dataDir: './data',
      databaseUrl: undefined,
      blobStore: null,
      baseUrl: 'http://127.0.0.1:3000',
      metricsToken: undefined,
      logLevel: 'info',
      maxFileBytes: 10 * MiB,
      storageQuotaBytes: 1024 * MiB,
      maxFilesPerAgent: 50_000,
      maxBodyBytes: 16 * MiB,
      readPageLines: 2000,
      readPageBytes: 256 * 1024,
      registrationsPerIpPerHour: 20,
      rateLimitPerMinute: 1200,
      maxKeysPerAgent: 100,
      sqliteSynchronous: 'normal',
      sqliteBusyTimeoutMs: 5000,
      pgPoolSize: 10,
      databaseReadUrls: [],
      replicaMaxLagMs: 1000,
      replicaPollMs: 50,
      idempotencyPruneIntervalMs: 600_000,
      packIntervalMs: 1000,
      plannerStatsIntervalMs: 5000,
      logFormat: 'auto',
      trustProxy: false,
      strictHost: false,
      shutdownTimeoutMs: 10_000,
      workers: 1,
      bashTimeoutMs: 10_000,
      bashMaxOutputBytes: 262_144,
      bashMaxCommands: 10_000_000,
      bashCacheBytes: 33_554_432,
      bashWorkers: 4,
      bashMaxConcurrentPerAgent: 2,
      bashWorkerMsPerMinute: 30_000,
      headersTimeoutMs: 15_000,
      requestTimeoutMs: 60_000,
      validateOutputs: false,
      actionLimits: {
        follow: 200,
        send_message: 100,
        message_stranger: 20,
        share: 200,
        publish: 100,
        create_community: 5,
        create_post: 10,
        comment: 120,
        vote: 600,
        report: 30,
      },
      maxFollowingPerAgent: 5000,
      maxActiveSharesPerAgent: 1000,
      maxPublishedPerAgent: 1000,
      maxCommentsPerPost: 10_000,
      maxExportBytes: 4 * 1024 ** 3,
      searchMaxFileBytes: 262_144,
      searchIndexIntervalMs: 200,
      searchRankWindow: 1000,
    });
  });

  it('BLOB_STORE: s3://bucket/prefix with its settings, or one line naming a bad value', () => {
    const c = loadConfig({ BLOB_STORE: 's3://afs-blobs/prod/eu/', BLOB_STORE_ENDPOINT: 'https://s3.example.net/', BLOB_INLINE_BYTES: '1024' });
    assert.deepEqual(c.blobStore, {
      bucket: 'afs-blobs',
      prefix: 'prod/eu/',
      endpoint: 'https://s3.example.net',
      region: 'us-east-1',
      accessKeyId: undefined,
      secretAccessKey: undefined,
      inlineBytes: 1024,
      timeoutMs: 10_000,
      sweepGraceMs: 86_400_000,
      sweepIntervalMs: 3_600_000,
    });
    assert.equal(loadConfig({ BLOB_STORE: 's3://afs' }).blobStore!.prefix, '');
    assert.throws(
      () => loadConfig({ BLOB_STORE: 'gs://afs' }),
      (e: Error) => e instanceof ConfigError && /BLOB_STORE must be s3:\/\/bucket/.test(e.message),
    );
    assert.throws(() => loadConfig({ BLOB_STORE: 's3://A_B' }), ConfigError);
  });

  it('an empty string means the default', () => {
    const c = loadConfig({ PORT: '', MAX_FILE_BYTES: '', LOG_LEVEL: '', TRUST_PROXY: '', DATABASE_URL: '' });
    assert.equal(c.port, 3000);
    assert.equal(c.maxFileBytes, 10 * MiB);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.trustProxy, false);
    assert.equal(c.databaseUrl, undefined);
  });

  it('parses given values', () => {
    const c = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATA_DIR: '/var/afs',
      DATABASE_URL: 'postgres://u:p@db:5432/afs',
      BASE_URL: 'https://www.example.com/',
      LOG_LEVEL: 'warn',
      MAX_FILE_BYTES: '100',
      STORAGE_QUOTA_BYTES: '5000',
      MAX_BODY_BYTES: '2048',
      READ_PAGE_LINES: '3',
      READ_PAGE_BYTES: '4096',
      REGISTRATIONS_PER_IP_PER_HOUR: '0',
      RATE_LIMIT_PER_MINUTE: '60',
      SQLITE_SYNCHRONOUS: 'full',
      SQLITE_BUSY_TIMEOUT_MS: '250',
      PG_POOL_SIZE: '4',
      TRUST_PROXY: 'yes',
      SHUTDOWN_TIMEOUT_MS: '0',
    });
    assert.equal(c.port, 8080);
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.dataDir, '/var/afs');
    assert.equal(c.databaseUrl, 'postgres://u:p@db:5432/afs');
    assert.equal(c.baseUrl, 'https://www.example.com', 'trailing slash dropped');
    assert.equal(c.logLevel, 'warn');
    assert.equal(c.maxFileBytes, 100);
    assert.equal(c.storageQuotaBytes, 5000);
    assert.equal(c.maxBodyBytes, 2048);
    assert.equal(c.readPageLines, 3);
    assert.equal(c.readPageBytes, 4096);
    assert.equal(c.registrationsPerIpPerHour, 0);
    assert.equal(c.rateLimitPerMinute, 60);
    assert.equal(c.sqliteSynchronous, 'full');
    assert.equal(c.sqliteBusyTimeoutMs, 250);
    assert.equal(loadConfig({ BASH_MAX_CONCURRENT_PER_AGENT: '200' }).bashMaxConcurrentPerAgent, 200);
    assert.equal(loadConfig({ MAX_FILES_PER_AGENT: '1000' }).maxFilesPerAgent, 1000);
    assert.equal(c.pgPoolSize, 4);
    assert.equal(loadConfig({ IDEMPOTENCY_PRUNE_INTERVAL_MS: '5000' }).idempotencyPruneIntervalMs, 5000);
    assert.equal(c.trustProxy, 1);
    assert.equal(c.shutdownTimeoutMs, 0);
    // Without BASE_URL, a wildcard HOST still gives a reachable base URL.
    assert.equal(loadConfig({ HOST: '0.0.0.0', PORT: '8080' }).baseUrl, 'http://127.0.0.1:8080');
    assert.equal(loadConfig({ DATABASE_URL: 'postgresql://h/db' }).databaseUrl, 'postgresql://h/db');
    // TRUST_PROXY: a hop count (true means one proxy, never "every hop"), or the proxies' addresses.
    for (const v of ['1', 'true', 'TRUE', 'on']) assert.equal(loadConfig({ TRUST_PROXY: v }).trustProxy, 1, v);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.10, 10.1.0.0/16,::1,loopback' }).trustProxy, ['10.0.0.10', '10.1.0.0/16', '::1', 'loopback']);
    for (const v of ['0', 'false', 'No', 'off']) assert.equal(loadConfig({ TRUST_PROXY: v }).trustProxy, false, v);
    // DATABASE_READ_URLS: a comma-separated list of PostgreSQL URLs, only beside DATABASE_URL.
    assert.deepEqual(loadConfig({}).databaseReadUrls, []);
    assert.deepEqual(
      loadConfig({ DATABASE_URL: 'postgres://p/afs', DATABASE_READ_URLS: 'postgres://r1/afs, postgresql://r2/afs/' }).databaseReadUrls,
      ['postgres://r1/afs', 'postgresql://r2/afs'],
    );
    assert.throws(
      () => loadConfig({ DATABASE_READ_URLS: 'postgres://r1/afs' }),
      (e: unknown) => e instanceof ConfigError && /DATABASE_READ_URLS needs DATABASE_URL/.test(e.message),
    );
  });

  it('each bad value throws ConfigError with a one-line message naming the setting', () => {
    const bad: Array<[string, string]> = [
      ['PORT', 'abc'],
      ['PORT', '70000'],
      ['PORT', '-1'],
      ['PORT', '80.5'],
      ['MAX_FILE_BYTES', '0'],
      ['MAX_FILE_BYTES', '10MB'],
      ['MAX_FILE_BYTES', '1e6'],
      ['STORAGE_QUOTA_BYTES', '-5'],
      ['MAX_FILES_PER_AGENT', '0'],
      ['MAX_FILES_PER_AGENT', '50k'],
      ['MAX_BODY_BYTES', '100'],
      ['READ_PAGE_LINES', '0'],
      ['READ_PAGE_BYTES', '10'],
      ['REGISTRATIONS_PER_IP_PER_HOUR', 'many'],
      ['RATE_LIMIT_PER_MINUTE', '0'],
      ['PG_POOL_SIZE', '0'],
      ['PG_POOL_SIZE', '1001'],
      ['IDEMPOTENCY_PRUNE_INTERVAL_MS', '999'],
      ['IDEMPOTENCY_PRUNE_INTERVAL_MS', 'hourly'],
      ['SHUTDOWN_TIMEOUT_MS', 'soon'],
      ['LOG_LEVEL', 'loud'],
      ['SQLITE_SYNCHRONOUS', 'off'],
      ['SQLITE_BUSY_TIMEOUT_MS', '0'],
      ['BASH_MAX_CONCURRENT_PER_AGENT', '0'],
      ['BASH_MAX_COMMANDS', '99'],
      ['BASH_MAX_CONCURRENT_PER_AGENT', '1025'],
      ['SEARCH_RANK_WINDOW', '99'],
      ['SEARCH_RANK_WINDOW', 'all'],
      ['SQLITE_BUSY_TIMEOUT_MS', 'long'],
      ['TRUST_PROXY', 'maybe'],
      ['TRUST_PROXY', '11'],
      ['TRUST_PROXY', '10.0.0.1/33'],
      ['TRUST_PROXY', '10.0.0.1,'],
      ['TRUST_PROXY', 'nginx'],
      ['DATABASE_URL', 'not a url'],
      ['DATABASE_URL', 'mysql://db/afs'],
      ['DATABASE_READ_URLS', 'postgres://r1/afs,mysql://r2/afs'],
      ['REPLICA_MAX_LAG_MS', '5'],
      ['BASE_URL', 'ftp://example.com'],
      ['BASE_URL', 'example.com'],
    ];
    for (const [name, value] of bad) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: unknown) => {
          assert.ok(err instanceof ConfigError, `${name}=${value} throws ConfigError`);
          assert.ok(err.message.startsWith(name), `${name}=${value}: message names the setting first: ${err.message}`);
          assert.ok(!err.message.includes('\n'), `${name}=${value}: one line`);
          assert.ok(err.message.includes(JSON.stringify(value)), `${name}=${value}: message shows the bad value`);
          return true;
        },
      );
    }
  });

  it('several bad values are reported together, still on one line', () => {
    assert.throws(
      () => loadConfig({ PORT: 'x', LOG_LEVEL: 'loud' }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /PORT/);
        assert.match(err.message, /LOG_LEVEL/);
        assert.ok(!err.message.includes('\n'));
        return true;
      },
    );
  });
});

describe('echoing client input: at most ~100 characters, and how long it was', () => {
  it('clip keeps short strings, cuts long ones with an ellipsis, never between a surrogate pair', () => {
    assert.equal(clip('abc'), 'abc');
    assert.equal(clip('x'.repeat(100)), 'x'.repeat(100));
    assert.equal(clip('x'.repeat(101)), 'x'.repeat(100) + '…');
    assert.equal(clip('x'.repeat(99) + '😀' + 'y'), 'x'.repeat(99) + '…');
    assert.equal(quoteClipped('abc'), "'abc'");
    assert.equal(quoteClipped('k'.repeat(5000)), `'${'k'.repeat(100)}…' (5000 characters)`);
  });

  const schema = z.strictObject({ path: z.string(), edits: z.array(z.strictObject({ old_string: z.string() })).optional() });

  it('an unknown field of 10 MB: message and details.field cut, fieldLength given, no suggestion computed', () => {
    const key = 'p'.repeat(10_000_000);
    const input = { path: '/x', [key]: 1 }; // making this object alone takes ~100 ms (the key is hashed)
    const t0 = mainThreadCpuMs();
    assert.throws(
      () => parseInput(schema, input, 'read'),
      (err: unknown) => {
        assert.ok(err instanceof ToolError);
        assert.equal(err.message, `Unknown field '${'p'.repeat(100)}…' (10000000 characters) for read. Valid fields: path, edits.`);
        assert.deepEqual(err.details, { field: 'p'.repeat(100) + '…', fieldLength: 10_000_000, suggestion: null, allowed: ['path', 'edits'] });
        return true;
      },
    );
    const ms = mainThreadCpuMs() - t0;
    assert.ok(ms < 50, `${ms.toFixed(0)} ms of CPU`);
    // A short unknown field is reported as before.
    assert.throws(() => parseInput(schema, { path: '/x', pth: 1 }, 'read'), /^ToolError: Unknown field 'pth' for read; did you mean 'path'\?/);
  });

  it('unknown keys inside an item are cut too, at most 5 listed; at most 20 issues in details', () => {
    const item = { old_string: 'a', ['q'.repeat(1000)]: 1, b: 1, c: 1, d: 1, e: 1, f: 1 };
    assert.throws(
      () => parseInput(schema, { path: '/x', edits: [item] }, 'edit'),
      (err: unknown) => {
        assert.ok(err instanceof ToolError);
        assert.ok(err.message.length < 400, err.message);
        assert.match(
          err.message,
          new RegExp(`^Unknown field\\(s\\) '${'q'.repeat(100)}…' \\(1000 characters\\), 'b', 'c', 'd', 'e', and 1 more in 'edits\\[0\\]'`),
        );
        return true;
      },
    );
    const many = Array.from({ length: 500 }, () => ({ old_string: 1 }));
    assert.throws(
      () => parseInput(schema, { path: '/x', edits: many }, 'edit'),
      (err: unknown) => {
        assert.ok(err instanceof ToolError);
        assert.equal((err.details!.issues as unknown[]).length, 20);
        return true;
      },
    );
  });
});

describe('decodeTextWork: decodeText a MiB at a time', () => {
  it('the same answer as decodeText, with characters split across the MiB boundaries', () => {
    const MiB = 1 << 20;
    const euro = Buffer.from('\u20ac'); // 3 bytes: some fall across a boundary
    const big = Buffer.concat([Buffer.from('\ufeff'), Buffer.alloc(MiB - 4, 'a'), euro, Buffer.from('😀'.repeat(300_000)), Buffer.from('end')]);
    assert.equal(runSync(decodeTextWork(big)), decodeText(big));
    assert.ok(runSync(decodeTextWork(big))!.startsWith('\ufeff'), 'the BOM is kept');
    const nul = Buffer.concat([big, Buffer.from([0])]);
    assert.equal(runSync(decodeTextWork(nul)), null);
    const invalid = Buffer.concat([Buffer.alloc(MiB, 'a'), Buffer.from([0xe2, 0x82]), Buffer.alloc(10, 'b')]);
    assert.equal(decodeText(invalid), null);
    assert.equal(runSync(decodeTextWork(invalid)), null);
    const truncated = Buffer.concat([Buffer.alloc(2 * MiB, 'a'), Buffer.from([0xf0, 0x9f])]);
    assert.equal(runSync(decodeTextWork(truncated)), null);
    assert.equal(runSync(decodeTextWork(Buffer.from('small'))), 'small');
  });
});

/**
 * The delta and the encodings under compact history (store/blob-delta.ts, store/blob-codec.ts):
 * any pair round-trips; the worst inputs (no common content, binary, 10 MB, all-identical bytes)
 * are stored no bigger than raw and than raw+deflate, and neither encoding nor decoding them
 * holds the event loop (no step over 250 ms); a chain of PACK_DEPTH − 1 deltas decodes exactly;
 * a broken chain fails loudly. Pure functions: no backend. Then the packer on a 10 MB file.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { runSync } from '../src/core/work.js';
import { BrokenChain, decodeChain, decodeChainSync, encodeBlob, type ChainRow } from '../src/store/blob-codec.js';
import { applyDelta, deltaWork } from '../src/store/blob-delta.js';
import { PACK_DEPTH } from '../src/store/blob-pack.js';
import { openStore } from '../src/store/open.js';
import type { Store } from '../src/store/types.js';
import { backends, createTestDatabase, testConfig, type TestDatabase } from './helpers/backends.js';
import { monitorLoop } from './helpers/loop-monitor.js';
import { blob, createTestAgent } from './helpers/store-fixtures.js';

const MB = 1024 * 1024;
const LOOP_BOUND_MS = 250;

const text = (lines: number, tag = '') =>
  Buffer.from(Array.from({ length: lines }, (_, i) => `${tag}line ${i} of a text that repeats itself\n`).join(''));

function roundTrip(base: Buffer, target: Buffer): Buffer {
  const d = runSync(deltaWork(base, target));
  assert.ok(d, 'a delta within its limit');
  return applyDelta(base, d);
}

/** One chain row from an encoding, as the store would hold it. */
const row = (hash: string, bytes: Buffer, enc: { encoding: ChainRow['encoding']; content: Buffer }, baseHash: string | null): ChainRow => ({
  hash,
  encoding: enc.encoding,
  baseHash,
  size: bytes.length,
  content: enc.content,
});

describe('blob delta', () => {
  it('round-trips any pair of contents (property), including empty ones and edits at both ends', () => {
    const bytes = fc.uint8Array({ maxLength: 400 }).map((a) => Buffer.from(a));
    fc.assert(
      fc.property(bytes, bytes, fc.nat(400), (base, insert, at) => {
        const target = Buffer.concat([base.subarray(0, at), insert, base.subarray(at)]);
        assert.ok(roundTrip(base, target).equals(target));
        assert.ok(roundTrip(target, base).equals(base));
      }),
      { numRuns: 300 },
    );
    for (const [a, b] of [
      ['', ''],
      ['', 'x'],
      ['abc', ''],
      ['0123456789abcdef0123456789abcdef', '0123456789abcdef0123456789abcdef!'],
    ]) {
      assert.equal(roundTrip(Buffer.from(a!), Buffer.from(b!)).toString(), b);
    }
  });

  // Lines this alike send the first copy to the wrong line (one candidate per hash slot) until a
  // block with the line's number realigns it: ~100 bytes here, ~30 for the benchmark's file.
  it('one line changed in 100 KB of near-identical lines: a delta under 160 bytes', () => {
    const base = text(1600);
    const target = Buffer.from(base.toString().replace('line 800 of', 'line 800 (edited) of'));
    const d = runSync(deltaWork(base, target))!;
    assert.ok(d.length < 160, `${d.length} bytes`);
    assert.ok(applyDelta(base, d).equals(target));
  });

  it('gives up (null) past its limit: no common content is not worth finishing', () => {
    assert.equal(runSync(deltaWork(randomBytes(64 * 1024), randomBytes(64 * 1024), 1024)), null);
  });

  it('a corrupt delta throws instead of returning wrong bytes', () => {
    const base = text(100);
    const d = runSync(deltaWork(base, text(101)))!;
    assert.throws(() => applyDelta(base.subarray(0, 10), d), /corrupt delta/);
    assert.throws(() => applyDelta(base, d.subarray(0, d.length - 3)), /corrupt delta/);
  });
});

describe('blob encodings: worst inputs stay ≤ raw and ≤ raw+deflate, and the event loop free', () => {
  const cases: Array<[string, () => [Buffer, Buffer]]> = [
    ['no common content (random 1 MB pairs)', () => [randomBytes(MB), randomBytes(MB)]],
    [
      'binary sharing most bytes (10 MB random, 1 KB inserted)',
      () => {
        const b = randomBytes(10 * MB);
        return [b, Buffer.concat([b.subarray(0, 5 * MB), randomBytes(1024), b.subarray(5 * MB)])];
      },
    ],
    ['a 10 MB text, one line changed', () => [text(250_000), Buffer.from(text(250_000).toString().replace('line 123456 ', 'line 123456 changed '))]],
    [
      'all-identical bytes (10 MB of one byte, then one byte changed)',
      () => [Buffer.alloc(10 * MB, 97), Buffer.alloc(10 * MB, 97).fill(98, 7 * MB, 7 * MB + 1)],
    ],
  ];
  for (const [what, make] of cases) {
    it(what, async () => {
      const [base, target] = make();
      const loop = monitorLoop();
      const baseEnc = await encodeBlob(base, null);
      const enc = await encodeBlob(target, base);
      const chain = [row('t', target, enc, enc.encoding === 'delta' ? 'b' : null)];
      if (enc.encoding === 'delta') chain.push(row('b', base, baseEnc, null));
      const back = await decodeChain(chain);
      const report = loop.stop();
      assert.ok(back.equals(target), 'decodes to the bytes');
      assert.ok(enc.content.length <= target.length, `${enc.content.length} stored for ${target.length}`);
      assert.ok(enc.content.length <= deflateRawSync(target).length + 1, 'never more than deflate alone');
      assert.ok(report.maxBusyMs < LOOP_BOUND_MS, `event loop held ${report.maxBusyMs.toFixed(0)} ms`);
    });
  }

  it(`a chain of ${PACK_DEPTH - 1} deltas on a snapshot decodes every link (sync and async); a missing base fails loudly`, async () => {
    const versions = [text(2000)];
    for (let v = 1; v < PACK_DEPTH; v++) versions.push(Buffer.from(versions[v - 1]!.toString().replace(`line ${v * 17} `, `line ${v * 17} v${v} `)));
    const rows: ChainRow[] = [row('h0', versions[0]!, await encodeBlob(versions[0]!, null), null)];
    for (let v = 1; v < versions.length; v++) {
      const enc = await encodeBlob(versions[v]!, versions[v - 1]!);
      assert.equal(enc.encoding, 'delta');
      rows.unshift(row(`h${v}`, versions[v]!, enc, `h${v - 1}`));
    }
    assert.equal(rows[rows.length - 1]!.encoding, 'deflate');
    for (let k = 0; k < rows.length; k += 7) {
      assert.ok(decodeChainSync(rows.slice(k)).equals(versions[versions.length - 1 - k]!));
      assert.ok((await decodeChain(rows.slice(k))).equals(versions[versions.length - 1 - k]!));
    }
    assert.throws(() => decodeChainSync(rows.slice(0, 5)), BrokenChain);
  });
});

for (const backend of backends()) {
  describe(`the packer on a 10 MB file (${backend})`, () => {
    let db: TestDatabase;
    let store: Store;
    before(async () => {
      db = await createTestDatabase(backend);
      store = openStore(testConfig(db));
      await store.migrate();
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    it('packs three versions without holding the event loop, and reads each back', async () => {
      const a = await createTestAgent(store, 'agt_big1');
      const v0 = text(250_000);
      const versions = [
        v0,
        Buffer.from(v0.toString().replace('line 1000 ', 'line 1000 x ')),
        Buffer.from(v0.toString().replace('line 9 ', 'line 9 y ')),
      ];
      for (const [i, bytes] of versions.entries()) {
        const b = blob(bytes.toString());
        await store.commit({
          agentId: a,
          keyId: 'k',
          keyLabel: 'k',
          tool: 't',
          quotaBytes: 1e12,
          changes: [{ path: '/big.txt', expectVersion: i, op: i ? 'update' : 'create', state: { kind: 'file', blob: b, lines: 1, fileId: 'f' } }],
        });
      }
      const loop = monitorLoop();
      while ((await store.packPending()).paths > 0);
      const report = loop.stop();
      assert.ok(report.maxBusyMs < LOOP_BOUND_MS, `event loop held ${report.maxBusyMs.toFixed(0)} ms`);
      for (const bytes of versions) assert.ok((await store.getBlob(a, blob(bytes.toString()).hash))?.equals(bytes));
    });
  });
}

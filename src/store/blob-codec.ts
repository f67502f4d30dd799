/**
 * How a blob's bytes are stored (blobs.encoding), and turning stored rows back into content.
 *
 * - `raw`: content is the bytes. Every new blob, every head, every blob the packer left as it was.
 * - `deflate`: content is deflateRaw(bytes): a snapshot.
 * - `delta`: content is a flag byte and the delta against base_hash's bytes (store/blob-delta.ts):
 *   0 the delta as it is, 1 deflateRaw of it. Most deltas of a one-line change are ~30 bytes that
 *   deflate cannot shrink, and an inflate per delta (a zlib stream set up each time, ~15 µs) was
 *   most of a 63-delta read.
 *
 * An encoded row is always shorter than its size (encodeBlob keeps a content raw otherwise), so a
 * reader tells a raw row by `length(content) = size` (RAW in blob-read.ts), which both engines
 * answer from the row's header: the `encoding` column comes after `content` (ALTER TABLE appends),
 * and reading it made SQLite walk a big content's overflow pages, +10% on a 100 KB head read.
 *
 * The hash is always the SHA-256 of the bytes, whatever the encoding, so addresses, dedupe and
 * `size` (the logical size) never change when a blob is re-encoded. `depth` is the number of
 * deltas a read applies (0 unless delta); store/blob-pack.ts keeps it below PACK_DEPTH.
 */
import { promisify } from 'node:util';
import { constants, deflateRaw, deflateRawSync, inflateRaw, inflateRawSync } from 'node:zlib';
import { runSliced } from '../core/work.js';
import { applyDelta, deltaWork } from './blob-delta.js';

/** `external`: content is empty, the bytes are an object in BLOB_STORE (store/blob-objects.ts); never a delta's base or target. */
export type Encoding = 'raw' | 'deflate' | 'delta' | 'external';

/** One row of a chain: the blob asked for first, its base next, down to a raw or deflate row. */
export interface ChainRow {
  hash: string;
  encoding: Encoding;
  baseHash: string | null;
  size: number;
  /** The stored bytes. */
  content: Buffer;
}

export class BrokenChain extends Error {
  constructor(hash: string, why: string) {
    super(`stored content ${hash} cannot be decoded: ${why}`);
    this.name = 'BrokenChain';
  }
}

/**
 * Below this, zlib runs on the event loop (a threadpool round trip costs more than the work:
 * inflating a 100-byte delta takes ~5 µs, a round trip ~50-100 µs); above it, on the threadpool.
 */
const SYNC_ZLIB_BYTES = 64 * 1024;
/** A decode of a long chain of big contents gives the event loop back this often (core/work.ts). */
const SLICE_MS = 20;
/** Snapshots are written once and read rarely: the best compression is worth ~2× the time of the default. */
const ZLIB_OPTS = { level: constants.Z_BEST_COMPRESSION };
/**
 * deflate cannot compress better than ~1032:1 (a 258-byte match per 2 bits at best): a deflated
 * delta under size/1040 is certainly smaller than the deflated target, which then need not be
 * computed (the benchmark's deltas: ~70 bytes for a 100 KB version).
 */
const DEFLATE_BEST_RATIO = 1040;

const inflateAsync = promisify(inflateRaw);
const deflateAsync = promisify(deflateRaw);

const inflateSize = (b: Buffer) => (b.length <= SYNC_ZLIB_BYTES ? Promise.resolve(inflateRawSync(b)) : inflateAsync(b));
const deflateSize = (b: Buffer) => (b.length <= SYNC_ZLIB_BYTES ? Promise.resolve(deflateRawSync(b, ZLIB_OPTS)) : deflateAsync(b, ZLIB_OPTS));

function checkChain(rows: ChainRow[]): void {
  if (!rows.length) throw new Error('empty chain');
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const last = i === rows.length - 1;
    if (r.encoding === 'delta' ? last || rows[i + 1]!.hash !== r.baseHash : !last) {
      throw new BrokenChain(rows[0]!.hash, r.encoding === 'delta' && last ? `base ${r.baseHash} is missing` : 'rows out of order');
    }
  }
}

function checkSize(row: ChainRow, bytes: Buffer): Buffer {
  if (bytes.length !== row.size) throw new BrokenChain(row.hash, `decoded ${bytes.length} bytes, expected ${row.size}`);
  return bytes;
}

const DELTA_PLAIN = 0;
const DELTA_DEFLATED = 1;

function deltaOf(row: ChainRow, inflate: (b: Buffer) => Buffer): Buffer {
  const flag = row.content[0];
  const body = row.content.subarray(1);
  if (flag === DELTA_PLAIN) return body;
  if (flag === DELTA_DEFLATED) return inflate(body);
  throw new BrokenChain(row.hash, `unknown delta flag ${flag}`);
}

/**
 * Applies the deltas of rows[i] (from the one above the root up to rows[0]): intermediate
 * versions in two scratch buffers, the last in a buffer of its own (the caller keeps it).
 */
class Applier {
  private readonly scratch: [Buffer, Buffer];
  private turn = 0;
  constructor(rows: ChainRow[]) {
    const most = rows.reduce((m, r) => Math.max(m, r.size), 0);
    this.scratch = rows.length > 2 ? [Buffer.allocUnsafe(most), Buffer.allocUnsafe(most)] : [Buffer.alloc(0), Buffer.alloc(0)];
  }
  apply(row: ChainRow, base: Buffer, delta: Buffer, last: boolean): Buffer {
    const into = last ? undefined : this.scratch[(this.turn ^= 1)];
    return checkSize(row, applyDelta(base, delta, into));
  }
}

/** The content of rows[0], on the spot (snapshot-check, the search indexer's bounded files). */
export function decodeChainSync(rows: ChainRow[]): Buffer {
  checkChain(rows);
  const root = rows[rows.length - 1]!;
  let bytes = checkSize(root, root.encoding === 'deflate' ? inflateRawSync(root.content) : root.content);
  const applier = new Applier(rows);
  for (let i = rows.length - 2; i >= 0; i--) bytes = applier.apply(rows[i]!, bytes, deltaOf(rows[i]!, inflateRawSync), i === 0);
  return bytes;
}

/** The content of rows[0]; big inflates on the threadpool, and the event loop given back between steps. */
export async function decodeChain(rows: ChainRow[]): Promise<Buffer> {
  checkChain(rows);
  let since = performance.now();
  const breathe = async () => {
    if (performance.now() - since < SLICE_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    since = performance.now();
  };
  const root = rows[rows.length - 1]!;
  let bytes = checkSize(root, root.encoding === 'deflate' ? await inflateSize(root.content) : root.content);
  const applier = new Applier(rows);
  for (let i = rows.length - 2; i >= 0; i--) {
    await breathe();
    const row = rows[i]!;
    const delta =
      row.content[0] === DELTA_DEFLATED && row.content.length > SYNC_ZLIB_BYTES
        ? await inflateAsync(row.content.subarray(1))
        : deltaOf(row, inflateRawSync);
    bytes = applier.apply(row, bytes, delta, i === 0);
  }
  return bytes;
}

export interface Encoded {
  encoding: Encoding;
  content: Buffer;
}

/**
 * The smallest of: a deflated delta against `base` (when given), the deflated bytes, the bytes.
 * So an encoded blob is never bigger than raw+deflate; 'raw' means "keep it as it is".
 */
export async function encodeBlob(bytes: Buffer, base: Buffer | null): Promise<Encoded> {
  let best: Encoded = { encoding: 'raw', content: bytes };
  if (base) {
    const delta = await runSliced(deltaWork(base, bytes));
    if (delta) {
      const z = await deflateSize(delta);
      const content = z.length < delta.length ? Buffer.concat([Buffer.of(DELTA_DEFLATED), z]) : Buffer.concat([Buffer.of(DELTA_PLAIN), delta]);
      if (content.length * DEFLATE_BEST_RATIO < bytes.length) return { encoding: 'delta', content };
      if (content.length < best.content.length) best = { encoding: 'delta', content };
    }
  }
  const z = await deflateSize(bytes);
  if (z.length < best.content.length) best = { encoding: 'deflate', content: z };
  return best;
}

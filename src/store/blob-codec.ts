/**
 * How a blob's bytes are stored (blobs.encoding), and turning stored rows back into content.
 *
 * - `raw`: content is the bytes. Every new blob, every head, every blob the packer left as it was.
 * - `deflate`: content is deflateRaw(bytes): a snapshot.
 * - `delta`: content is deflateRaw(delta against base_hash's bytes) (store/blob-delta.ts).
 *
 * The hash is always the SHA-256 of the bytes, whatever the encoding, so addresses, dedupe and
 * `size` (the logical size) never change when a blob is re-encoded. `depth` is the number of
 * deltas a read applies (0 unless delta); store/blob-pack.ts keeps it below PACK_DEPTH.
 */
import { promisify } from 'node:util';
import { constants, deflateRaw, deflateRawSync, inflateRaw, inflateRawSync } from 'node:zlib';
import { runSliced } from '../core/work.js';
import { applyDelta, deltaWork } from './blob-delta.js';

export type Encoding = 'raw' | 'deflate' | 'delta';

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

/** The content of rows[0], on the spot (snapshot-check, the search indexer's bounded files). */
export function decodeChainSync(rows: ChainRow[]): Buffer {
  checkChain(rows);
  const root = rows[rows.length - 1]!;
  let bytes = checkSize(root, root.encoding === 'deflate' ? inflateRawSync(root.content) : root.content);
  for (let i = rows.length - 2; i >= 0; i--) bytes = checkSize(rows[i]!, applyDelta(bytes, inflateRawSync(rows[i]!.content)));
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
  for (let i = rows.length - 2; i >= 0; i--) {
    await breathe();
    bytes = checkSize(rows[i]!, applyDelta(bytes, await inflateSize(rows[i]!.content)));
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
      if (z.length * DEFLATE_BEST_RATIO < bytes.length) return { encoding: 'delta', content: z };
      if (z.length < best.content.length) best = { encoding: 'delta', content: z };
    }
  }
  const z = await deflateSize(bytes);
  if (z.length < best.content.length) best = { encoding: 'deflate', content: z };
  return best;
}

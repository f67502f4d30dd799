/**
 * Reading a blob whatever its encoding (store/blob-codec.ts): every store query that reads
 * content takes raw rows as they are and hands the others to these functions, so any reader
 * (tree, bash, search, copies, exports) gets the bytes. A chain (the blob, its base, down to a
 * raw or deflate row) comes in one query on both backends (a recursive CTE: one round trip on
 * PostgreSQL however deep), each row's stored bytes inline up to BLOB_SLICE_BYTES and in slices
 * beyond (PostgreSQL decodes a big bytea in one turn of the event loop: see tree.ts). An external
 * row's bytes are its object in BLOB_STORE (store/blob-objects.ts), fetched here.
 */
import { blobObjects } from './blob-objects.js';
import { BrokenChain, decodeChain, decodeChainSync, type ChainRow, type Encoding } from './blob-codec.js';
import { all, sql, type Db, type Program, type Row } from './sql.js';

/** Rows of one chain at most: PACK_DEPTH bounds real chains far below; this stops a corrupt loop. */
const MAX_CHAIN = 1000;
/** Stored bytes per slice of a big row (tree.ts measured why: ~10 ms per 1 MiB slice on PostgreSQL). */
export const BLOB_SLICE_BYTES = 1024 * 1024;
/** "Every row inline" (the largest int4: PostgreSQL compares length() as one). */
export const ALL_INLINE = 2 ** 31 - 1;

export const CHAIN = sql`
  WITH RECURSIVE chain(n, hash, encoding, base_hash, size, stored, content) AS (
    SELECT 0, hash, encoding, base_hash, size, length(content), CASE WHEN length(content) <= ? THEN content END
      FROM blobs WHERE agent_id = ? AND hash = ?
    UNION ALL
    SELECT c.n + 1, b.hash, b.encoding, b.base_hash, b.size, length(b.content), CASE WHEN length(b.content) <= ? THEN b.content END
      FROM chain c JOIN blobs b ON b.agent_id = ? AND b.hash = c.base_hash WHERE c.n < ?)
  SELECT hash, encoding, base_hash, size, stored, content FROM chain ORDER BY n`;
/** A slice of the stored bytes, as long as they are still stored as read (the packer may re-encode a row meanwhile). */
export const GET_STORED_SLICE = sql`
  SELECT substr(content, ?, ?) FROM blobs WHERE agent_id = ? AND hash = ? AND encoding = ? AND length(content) = ?`;

export const chainParams = (agentId: string, hash: string, inline: number) => [inline, agentId, hash, inline, agentId, MAX_CHAIN];

interface ChainMeta {
  hash: string;
  encoding: Encoding;
  baseHash: string | null;
  size: number;
  stored: number;
  content: Buffer | null;
}

const metaOf = (r: Row): ChainMeta => ({
  hash: String(r[0]),
  encoding: String(r[1]) as Encoding,
  baseHash: r[2] == null ? null : String(r[2]),
  size: Number(r[3]),
  stored: Number(r[4]),
  content: r[5] == null ? null : Buffer.from(r[5] as Uint8Array),
});

async function storedSlices(db: Db, agentId: string, m: ChainMeta): Promise<Buffer | null> {
  const parts: Buffer[] = [];
  for (let at = 0; at < m.stored; at += BLOB_SLICE_BYTES) {
    const part = await db.get(GET_STORED_SLICE, [at + 1, BLOB_SLICE_BYTES, agentId, m.hash, m.encoding, m.stored]);
    if (!part) return null; // purged or re-encoded meanwhile
    parts.push(part[0] as Buffer);
  }
  return Buffer.concat(parts, m.stored);
}

/** An external row as the raw row of its object's bytes; a row without its object is a broken reference, said loudly. */
async function externalRow(agentId: string, m: ChainMeta): Promise<ChainRow> {
  const content = await blobObjects().get(agentId, m.hash);
  if (!content) throw new BrokenChain(m.hash, `its object is missing from ${blobObjects().location}`);
  return { hash: m.hash, encoding: 'raw', baseHash: null, size: m.size, content };
}

/** Bytes [start, end) of an agent's blob: an external one's by a range request, others from the whole content. */
export async function readRange(db: Db, agentId: string, hash: string, start: number, end: number): Promise<Buffer | null> {
  const r = await db.get(BLOB_ENCODING, [agentId, hash]);
  if (!r) return null;
  if (String(r[0]) === 'external') return blobObjects().getRange(agentId, hash, start, Math.min(end, Number(r[1])));
  const bytes = await readDecoded(db, agentId, hash);
  return bytes ? bytes.subarray(start, end) : null;
}

const BLOB_ENCODING = sql`SELECT encoding, size FROM blobs WHERE agent_id = ? AND hash = ?`;

/**
 * The rows of `hash`'s chain (stored bytes), or null when the blob is absent. A row fetched in
 * slices that changed meanwhile (re-encoded: the bytes are the same, their storage not) makes the
 * chain be read again.
 */
export async function readChain(db: Db, agentId: string, hash: string): Promise<ChainRow[] | null> {
  const inline = db.dialect === 'postgres' ? BLOB_SLICE_BYTES : ALL_INLINE;
  for (let attempt = 0; ; attempt++) {
    const metas = (await db.all(CHAIN, chainParams(agentId, hash, inline))).map(metaOf);
    if (!metas.length) return null;
    if (metas.length > MAX_CHAIN) throw new BrokenChain(hash, 'chain too long (a loop?)');
    const rows: ChainRow[] = [];
    for (const m of metas) {
      if (m.encoding === 'external') {
        rows.push(await externalRow(agentId, m));
        continue;
      }
      const content = m.content ?? (await storedSlices(db, agentId, m));
      if (!content) break;
      rows.push({ hash: m.hash, encoding: m.encoding, baseHash: m.baseHash, size: m.size, content });
    }
    if (rows.length === metas.length) return rows;
    if (attempt === 3) return null;
  }
}

/** The bytes of any blob of the agent (null when absent): what every encoded row goes through. */
export async function readDecoded(db: Db, agentId: string, hash: string): Promise<Buffer | null> {
  const rows = await readChain(db, agentId, hash);
  return rows ? decodeChain(rows) : null;
}

/** A CHAIN row read with every content inline. */
export function chainRowOf(r: Row): ChainRow {
  const m = metaOf(r);
  return { hash: m.hash, encoding: m.encoding, baseHash: m.baseHash, size: m.size, content: m.content ?? Buffer.alloc(0) };
}

/**
 * Inside a write program (the search indexer): the chain in one statement, decoded on the spot;
 * null for an external content (no request to the object store inside a transaction).
 */
export function* decodedInProgram(agentId: string, hash: string): Program<Buffer | null> {
  const rows = (yield* all(CHAIN, chainParams(agentId, hash, ALL_INLINE))).map(chainRowOf);
  return rows.length && rows[0]!.encoding !== 'external' ? decodeChainSync(rows) : null;
}

/**
 * `length(content) = size`, for a blobs row aliased `b` (or unaliased: ''): true exactly when the
 * row is raw (blob-codec.ts), without reading the columns stored after the content.
 */
export const isRaw = (b = '') => `length(${b}content) = ${b}size`;

/** A raw row's content (read as `CASE WHEN ${isRaw()} THEN content END`), or the decoded bytes of an encoded one (null). */
export async function contentOf(db: Db, agentId: string, hash: string, content: unknown): Promise<Buffer | null> {
  return content != null ? (content as Buffer) : readDecoded(db, agentId, hash);
}

/**
 * What a file result's snippet is cut from: a bounded window of the
 * indexed version's bytes, never its whole text. Where a word of the query first occurs in the
 * bytes (as the query has it, Capitalized or UPPER) is found byte-wise — by PostgreSQL on its
 * side, or here by Buffer.indexOf on SQLite, whose reads are synchronous and one file a turn —
 * and at most `windowBytes` from a little before it are decoded and cut; a file where none
 * occurs that way gives its head. Heads are stored raw (store/blob-codec.ts), so
 * this is the common case; an indexed version the packer encoded meanwhile is decoded and cut
 * the same way here.
 */
import { isRaw, readDecoded } from './blob-read.js';
import { sql, type Db } from './sql.js';

/** A window of a file's bytes: `bytes` start at byte `start` (0-based) of a file of `size` bytes. */
export interface TextWindow {
  bytes: Buffer;
  start: number;
  size: number;
}

export interface FileRef {
  ownerId: string;
  path: string;
  version: number;
}

/** Bytes a window starts before the word found, so the snippet's context before it is in the window. */
export const WINDOW_LEAD_BYTES = 1024;
const NONE = 2147483647;

/** The first byte position (1-based) of any of three spellings in b.content, or NONE. */
const FIRST = [1, 2, 3].map(() => `coalesce(nullif(position(CAST(? AS bytea) in b.content), 0), ${NONE})`).join(', ');
const START = `CASE WHEN f.p = ${NONE} OR f.p <= ${WINDOW_LEAD_BYTES} THEN 1 ELSE f.p - ${WINDOW_LEAD_BYTES} END`;

/**
 * PostgreSQL, a page's files in one round trip: [ord, window (null when encoded), hash, size,
 * start (1-based)]. Params: the three spellings, the files, the window's bytes. MATERIALIZED: the
 * position is found once a file (inlined, each use of f.p would search the content again).
 */
const WINDOWS = sql`
  WITH f AS MATERIALIZED (
    SELECT k.ord, b.agent_id, b.hash, b.size, CASE WHEN ${isRaw('b.')} THEN least(${FIRST}) ELSE ${NONE} END AS p
      FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS bigint[])) WITH ORDINALITY AS k(agent_id, path, version, ord)
      JOIN versions v ON v.agent_id = k.agent_id AND v.path = k.path AND v.version = k.version
      JOIN blobs b ON b.agent_id = v.agent_id AND b.hash = v.blob_hash)
  SELECT f.ord, CASE WHEN ${isRaw('b.')} THEN substring(b.content from ${START} for ?) END, f.hash, f.size, ${START}
    FROM f JOIN blobs b ON b.agent_id = f.agent_id AND b.hash = f.hash`;
/**
 * SQLite: one file's first bytes (its instr() compares byte by byte, ~7 ms a MB a spelling: found
 * here instead, by Buffer.indexOf), [bytes (null when encoded), hash]. The version's blob by a
 * scalar subquery, not a join (a join is re-planned per call on a file that has sqlite_stat4:
 * tree.ts READ_NODE).
 */
const HEAD_BYTES = sql`
  SELECT CASE WHEN ${isRaw('b.')} THEN substr(b.content, 1, ?) END, b.hash
    FROM blobs b
   WHERE b.agent_id = ? AND b.hash = (SELECT v.blob_hash FROM versions v WHERE v.agent_id = ? AND v.path = ? AND v.version = ?)`;

/** The spellings searched: as the query has it (folded: lower case), Capitalized, UPPER. */
function spellings(word: string): Buffer[] {
  return [word, word.charAt(0).toUpperCase() + word.slice(1), word.toUpperCase()].map((w) => Buffer.from(w, 'utf8'));
}

/** The window cut here from a file's first bytes (SQLite, or an encoded version); a copy, so they can go. */
function windowOf(bytes: Buffer, word: string, windowBytes: number, size = bytes.length): TextWindow {
  const found = word
    ? spellings(word)
        .map((s) => bytes.indexOf(s))
        .filter((i) => i >= 0)
    : [];
  const at = found.length ? Math.min(...found) : 0;
  const start = Math.max(0, at - WINDOW_LEAD_BYTES);
  return { bytes: Buffer.from(bytes.subarray(start, start + windowBytes)), start, size };
}

/**
 * Windows of files' indexed versions, by `${ownerId} ${path}`: at most `windowBytes` each, from a
 * little before the first occurrence of `word` in the first `scanBytes` ('' or not found: the head).
 */
export async function fileWindows(
  db: Db,
  refs: ReadonlyArray<FileRef>,
  word: string,
  sizes: { windowBytes: number; scanBytes: number },
): Promise<Map<string, TextWindow>> {
  const out = new Map<string, TextWindow>();
  const { windowBytes, scanBytes } = sizes;
  const decoded = async (f: FileRef, hash: unknown) => {
    const bytes = await readDecoded(db, f.ownerId, String(hash));
    return bytes && windowOf(bytes.subarray(0, scanBytes), word, windowBytes, bytes.length);
  };
  const keep = (f: FileRef, w: TextWindow | null) => w && out.set(`${f.ownerId} ${f.path}`, w);
  if (db.dialect === 'postgres') {
    // A word that cannot occur where there is none (the empty spelling would match at 1).
    const probes = word ? spellings(word) : [0, 1, 2].map(() => Buffer.from([0xff]));
    const params = [...probes, refs.map((f) => f.ownerId), refs.map((f) => f.path), refs.map((f) => f.version), windowBytes];
    for (const [ord, bytes, hash, size, start] of await db.all(WINDOWS, params)) {
      const f = refs[Number(ord) - 1]!;
      keep(f, bytes != null ? { bytes: Buffer.from(bytes as Uint8Array), start: Number(start) - 1, size: Number(size) } : await decoded(f, hash));
    }
    return out;
  }
  for (const f of refs) {
    const r = await db.get(HEAD_BYTES, [scanBytes, f.ownerId, f.ownerId, f.path, f.version]);
    if (r) keep(f, r[0] != null ? windowOf(Buffer.from(r[0] as Uint8Array), word, windowBytes) : await decoded(f, r[1]));
    // One file per turn of the event loop (better-sqlite3 answers synchronously).
    await new Promise((resolve) => setImmediate(resolve));
  }
  return out;
}

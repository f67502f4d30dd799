/**
 * The packer: stores superseded contents compactly, revlog-style. A commit that
 * supersedes a file's content queues its path (pack_queue, in the commit's transaction); the
 * packer walks that path's versions newest first down to the first blob already decided, then,
 * oldest first, stores each superseded blob as a deflated delta against the blob of the version
 * before it (its predecessor), or as a deflated snapshot when that delta would be the PACK_DEPTH-th
 * in a row, or as it is when neither is smaller (blob-codec.ts). So a read applies at most
 * PACK_DEPTH − 1 deltas, and an encoded blob never changes again except to get simpler.
 *
 * Forward deltas (against the older neighbour) rather than reverse ones: a reverse delta makes the
 * head the base of the newest old version, so every new version lengthens every old chain by one
 * and they must be re-encoded to stay bounded; a forward delta's depth is fixed when it is written.
 * Heads stay raw either way: the head is never a delta's target, and a blob that becomes a head
 * again is re-materialized raw (by the commit when it carries the bytes, else here).
 *
 * Invariants every write re-checks in its one statement (so concurrent packers, commits and purges
 * cannot break them; on PostgreSQL packer writes are serialized by an advisory lock and wait for a
 * purge's exclusive agent lock):
 * - only a blob no live node uses is encoded;
 * - a delta's target has no dependents (so no write can make a loop: a loop needs an edge into it);
 * - a delta's base still exists at the depth read (a base's depth never grows: a blob with
 *   dependents is only ever re-encoded as a snapshot or raw).
 * Each blob is written in its own short transaction; the work between (decoding, the delta,
 * deflate) runs outside any transaction, sliced, with zlib on the threadpool for big inputs.
 */
import { encodeBlob, type Encoding } from './blob-codec.js';
import { readDecoded } from './blob-read.js';
import { dialect, get, run, sql, type Db, type Row } from './sql.js';

/**
 * Deltas in a row before a snapshot. Measured on the benchmark's file (100 KB, one line changed per
 * version; SQLite, a 2-core VM at load average ~12): a read costs ~0.16 ms plus ~8 µs per delta at
 * the median (0.6 ms at depth 63), with a p90 of 0.4-3 ms that follows the machine's load more than
 * the depth. 32 halves the worst read's work against 64 for ~0.1 MB more of snapshots (~5.6 KB
 * each) per 1,000 versions: still under git's pack in total.
 */
export const PACK_DEPTH = 32;
/** Smaller contents stay raw: a row costs ~100 bytes of keys anyway, and a delta saves little. */
export const PACK_MIN_BYTES = 512;
/**
 * The packer's writes only change how a content is stored, and its queue rows go in a later
 * commit: one lost in a crash is done again (sql.ts WriteOptions.durable).
 */
const REDONE = { durable: false } as const;
/** Queue rows taken per batch. */
const QUEUE_BATCH = 32;
/** Version rows read per page of a path's walk. */
const WALK_PAGE = 256;

export const ENQUEUE_PACK = sql`INSERT INTO pack_queue (agent_id, path) VALUES (?, ?)`;
const TAKE = sql`SELECT id, agent_id, path FROM pack_queue ORDER BY id LIMIT ?`;
/** PostgreSQL: the ids taken (ids commit out of order there); SQLite: every id up to the last taken (one writer). */
const DONE_PG = sql`DELETE FROM pack_queue WHERE id = ANY(CAST(? AS bigint[]))`;
const DONE_BELOW = sql`DELETE FROM pack_queue WHERE id <= ?`;
const HEAD = sql`SELECT blob_hash, version FROM nodes WHERE agent_id = ? AND path = ? AND deleted = FALSE AND kind = 'file'`;
const VERSIONS_DESC = sql`
  SELECT version, blob_hash FROM versions WHERE agent_id = ? AND path = ? AND version < ? ORDER BY version DESC LIMIT ?`;
const META = sql`SELECT encoding, depth, packed, size FROM blobs WHERE agent_id = ? AND hash = ?`;
const LIVE_BLOB = `SELECT 1 FROM versions v JOIN nodes n ON n.agent_id = v.agent_id AND n.path = v.path AND n.version = v.version
                    WHERE v.agent_id = ? AND v.blob_hash = ? AND n.deleted = FALSE`;
const IS_LIVE = sql`${LIVE_BLOB} LIMIT 1`;
const HAS_DEPENDENTS = sql`SELECT 1 FROM blobs WHERE agent_id = ? AND base_hash = ? LIMIT 1`;
/** PostgreSQL: packer writes one at a time (their checks then see each other); SQLite serializes writes anyway. */
const PACK_LOCK = sql`SELECT ${dialect({ sqlite: '1', postgres: 'pg_advisory_xact_lock(7310412)' })}`;
const PACK_WRITE = sql`
  UPDATE blobs SET encoding = ?, base_hash = ?, depth = ?, packed = TRUE, content = ?
   WHERE agent_id = ? AND hash = ? AND encoding = 'raw' AND packed = FALSE AND NOT EXISTS (${LIVE_BLOB})
     AND (? = '' OR EXISTS (SELECT 1 FROM blobs b WHERE b.agent_id = ? AND b.hash = ? AND b.depth = ?))
     AND (? = '' OR NOT EXISTS (SELECT 1 FROM blobs d WHERE d.agent_id = ? AND d.base_hash = ?))`;
const KEEP_RAW = sql`UPDATE blobs SET packed = TRUE WHERE agent_id = ? AND hash = ? AND encoding = 'raw' AND NOT EXISTS (${LIVE_BLOB})`;
/** A head stored encoded (restored from an old version) made raw again; its dependents stay valid (same bytes). */
export const REMATERIALIZE = sql`
  UPDATE blobs SET content = ?, encoding = 'raw', base_hash = NULL, depth = 0, packed = FALSE WHERE agent_id = ? AND hash = ? AND encoding <> 'raw'`;
const DEPENDENTS = sql`SELECT hash, base_hash FROM blobs WHERE agent_id = ? AND base_hash = ?*`;
const REBASE = sql`UPDATE blobs SET encoding = ?, base_hash = NULL, depth = 0, content = ? WHERE agent_id = ? AND hash = ? AND base_hash = ?`;

interface Meta {
  hash: string;
  encoding: Encoding;
  depth: number;
  packed: boolean;
  size: number;
}

export interface PackBatch {
  /** Paths walked. */
  paths: number;
  /** Blobs re-encoded (or decided to stay raw), and heads made raw again. */
  packed: number;
  /** More queue rows remain. */
  more: boolean;
}

export interface PackStore {
  /** Packs the paths of one batch of the queue (store/maintenance.ts runs it in the background). */
  packPending(): Promise<PackBatch>;
}

export function packStore(db: Db): PackStore {
  return {
    async packPending() {
      const rows = await db.all(TAKE, [QUEUE_BATCH]);
      const seen = new Set<string>();
      let packed = 0;
      for (const r of rows) {
        const key = `${r[1]} ${r[2]}`;
        if (seen.has(key)) continue;
        seen.add(key);
        packed += await packPath(db, String(r[1]), String(r[2]));
      }
      const ids = rows.map((r) => Number(r[0]));
      if (ids.length) await db.write(() => (db.dialect === 'postgres' ? run(DONE_PG, [ids]) : run(DONE_BELOW, [Math.max(...ids)])), REDONE);
      return { paths: seen.size, packed, more: rows.length === QUEUE_BATCH };
    },
  };
}

async function metaOf(db: Db, agentId: string, hash: string): Promise<Meta | null> {
  const r = await db.get(META, [agentId, hash]);
  if (!r) return null;
  return { hash, encoding: String(r[0]) as Encoding, depth: Number(r[1]), packed: Boolean(r[2]), size: Number(r[3]) };
}

/**
 * The path's superseded blobs not decided yet, oldest first, and the newest decided one before them.
 * The walk starts at the head as read (`head.version`): a version committed since is not walked (its
 * commit queued the path again). Walking it skipped the old head as "the head" and packed what came
 * above it, leaving that blob raw below a decided one, where no later walk reaches (found by
 * history-storage's concurrent packers, a third raw blob on PostgreSQL).
 */
async function walk(
  db: Db,
  agentId: string,
  path: string,
  head: { hash: string; version: number } | null,
): Promise<{ todo: Meta[]; anchor: Meta | null }> {
  const todo: Meta[] = [];
  const seen = new Set<string>(head ? [head.hash] : []);
  let below = head ? head.version + 1 : 2 ** 31 - 1;
  for (;;) {
    const page = await db.all(VERSIONS_DESC, [agentId, path, below, WALK_PAGE]);
    for (const [version, hash] of page as Row[]) {
      below = Number(version);
      if (hash == null || seen.has(String(hash))) continue;
      seen.add(String(hash));
      const m = await metaOf(db, agentId, String(hash));
      if (!m) continue;
      if (m.packed || m.encoding !== 'raw') return { todo: todo.reverse(), anchor: m };
      todo.push(m);
    }
    if (page.length < WALK_PAGE) return { todo: todo.reverse(), anchor: null };
  }
}

/** The predecessor of the blob being packed: its row as last read, and its bytes once read. */
interface Prev {
  meta: Meta;
  bytes: Buffer | null;
}

/** Packs one path; returns the blobs written. */
async function packPath(db: Db, agentId: string, path: string): Promise<number> {
  const row = await db.get(HEAD, [agentId, path]);
  const head = row?.[0] == null ? null : { hash: String(row[0]), version: Number(row[1]) };
  let written = 0;
  if (head) {
    const m = await metaOf(db, agentId, head.hash);
    // An external head stays in object storage (store/blob-objects.ts).
    if (m && m.encoding !== 'raw' && m.encoding !== 'external') written += await rematerialize(db, agentId, head.hash);
  }
  const { todo, anchor } = await walk(db, agentId, path, head);
  let prev: Prev | null = anchor && { meta: anchor, bytes: null };
  for (const m of todo) {
    if (await db.get(IS_LIVE, [agentId, m.hash])) {
      prev = { meta: m, bytes: null }; // used elsewhere: stays raw until that path supersedes it
      continue;
    }
    const r = await packOne(db, agentId, m, prev);
    written += r.written;
    // Its bytes are the next one's base: kept, so a walk never decodes a chain it just wrote.
    prev = { meta: (await metaOf(db, agentId, m.hash)) ?? m, bytes: r.bytes };
  }
  return written;
}

async function packOne(db: Db, agentId: string, m: Meta, prev: Prev | null): Promise<{ written: number; bytes: Buffer | null }> {
  const keepRaw = () => db.write(() => run(KEEP_RAW, [agentId, m.hash, agentId, m.hash]), REDONE);
  if (m.size < PACK_MIN_BYTES) return { written: await keepRaw(), bytes: null };
  const bytes = await readDecoded(db, agentId, m.hash);
  if (!bytes) return { written: 0, bytes: null };
  // No delta on an external base: the packer is off for object storage (store/blob-objects.ts).
  const usable =
    prev !== null && prev.meta.encoding !== 'external' && prev.meta.depth + 1 < PACK_DEPTH && !(await db.get(HAS_DEPENDENTS, [agentId, m.hash]));
  const base = usable ? (prev.bytes ?? (await readDecoded(db, agentId, prev.meta.hash))) : null;
  const enc = await encodeBlob(bytes, base);
  if (enc.encoding === 'raw') return { written: await keepRaw(), bytes };
  const on = enc.encoding === 'delta' ? prev!.meta : null;
  const written = await writeEncoded(db, agentId, m.hash, enc, on);
  if (written || !on) return { written, bytes };
  // The delta was refused: another packer made this blob a base meanwhile (a delta's target may
  // have no dependents) or re-encoded it. Left raw and undecided below a decided blob, no later
  // walk would reach it again (walks stop at the first decided blob), so it is decided now, as a
  // snapshot (a blob with dependents may only ever be one); the write refuses it if already decided.
  const alone = await encodeBlob(bytes, null);
  return { written: alone.encoding === 'raw' ? await keepRaw() : await writeEncoded(db, agentId, m.hash, alone, null), bytes };
}

/** Stores `hash` encoded (a delta on `on`, or a snapshot); 0 when the invariants refuse it (header). */
function writeEncoded(db: Db, agentId: string, hash: string, enc: { encoding: Encoding; content: Buffer }, on: Meta | null): Promise<number> {
  const params = [
    enc.encoding,
    on?.hash ?? null,
    on ? on.depth + 1 : 0,
    enc.content,
    agentId,
    hash,
    agentId,
    hash,
    on?.hash ?? '',
    agentId,
    on?.hash ?? '',
    on?.depth ?? 0,
    on?.hash ?? '',
    agentId,
    hash,
  ];
  return db.write(
    function* () {
      yield* get(PACK_LOCK, []);
      return yield* run(PACK_WRITE, params);
    },
    { agentLock: { agentId, exclusive: false }, ...REDONE },
  );
}

async function rematerialize(db: Db, agentId: string, hash: string): Promise<number> {
  const bytes = await readDecoded(db, agentId, hash);
  return bytes ? db.write(() => run(REMATERIALIZE, [bytes, agentId, hash]), REDONE) : 0;
}

/**
 * Before `hashes` are deleted (purge): every delta based on one of them and not itself among them
 * becomes a snapshot, so no delta is ever left without its base. Returns the blobs rewritten.
 */
export async function rebaseDependents(db: Db, agentId: string, hashes: string[]): Promise<number> {
  if (!hashes.length) return 0;
  const doomed = new Set(hashes);
  let n = 0;
  for (const [hash, base] of await db.all(DEPENDENTS, [agentId, hashes])) {
    if (doomed.has(String(hash))) continue;
    const bytes = await readDecoded(db, agentId, String(hash));
    if (!bytes) continue;
    const enc = await encodeBlob(bytes, null);
    n += await db.write(() => run(REBASE, [enc.encoding, enc.content, agentId, String(hash), String(base)]));
  }
  return n;
}

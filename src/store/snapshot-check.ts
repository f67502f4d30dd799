/**
 * Whether a SQLite database file is whole: SQLite's own integrity check, then the service's
 * invariants a restore must not break — every version's and every live file's content present
 * (and, with `deep`, hashing to its address and of its recorded size), every live node's head
 * version recorded, every version in a recorded changeset. Used by `npm run backup` on the
 * snapshot it made and by `npm run restore-backup` before it swaps anything.
 */
import Database from 'better-sqlite3';
import { contentHash } from '../core/text.js';
import { decodeChainSync } from './blob-codec.js';
import { ALL_INLINE, CHAIN, chainParams, chainRowOf } from './blob-read.js';
import { PACK_DEPTH } from './blob-pack.js';

const INVARIANTS: { what: string; sql: string }[] = [
  {
    what: 'versions whose content is missing',
    sql: `SELECT COUNT(*) FROM versions v WHERE v.blob_hash IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.agent_id = v.agent_id AND b.hash = v.blob_hash)`,
  },
  {
    what: 'live files whose content is missing',
    sql: `SELECT COUNT(*) FROM nodes n WHERE NOT n.deleted AND n.blob_hash IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.agent_id = n.agent_id AND b.hash = n.blob_hash)`,
  },
  {
    what: 'live files and directories without their head version',
    sql: `SELECT COUNT(*) FROM nodes n WHERE NOT n.deleted
            AND NOT EXISTS (SELECT 1 FROM versions v WHERE v.agent_id = n.agent_id AND v.path = n.path AND v.version = n.version)`,
  },
  {
    what: 'versions whose changeset is missing',
    sql: `SELECT COUNT(*) FROM versions v WHERE NOT EXISTS (SELECT 1 FROM changesets c WHERE c.id = v.changeset_id)`,
  },
];

/** Before migration 11 (a backup of an older version) every content is raw. */
const RAW_ONLY: { what: string; sql: string }[] = [
  { what: 'contents whose size is not their length', sql: `SELECT COUNT(*) FROM blobs WHERE length(content) != size` },
];

/** Since migration 11: encoded contents (store/blob-codec.ts) are checked for what decoding needs. */
const ENCODED: { what: string; sql: string }[] = [
  { what: 'raw contents whose size is not their length', sql: `SELECT COUNT(*) FROM blobs WHERE encoding = 'raw' AND length(content) != size` },
  {
    what: 'contents with an unknown encoding, or a base that does not match it',
    sql: `SELECT COUNT(*) FROM blobs WHERE encoding NOT IN ('raw', 'deflate', 'delta', 'external') OR (encoding = 'delta') != (base_hash IS NOT NULL)`,
  },
  {
    // Their bytes are objects in BLOB_STORE (store/blob-objects.ts), copied beside the backup (store/blob-backup.ts).
    what: "external contents that keep bytes in their row or are some delta's base",
    sql: `SELECT COUNT(*) FROM blobs b WHERE b.encoding = 'external'
            AND (length(b.content) > 0 OR EXISTS (SELECT 1 FROM blobs d WHERE d.agent_id = b.agent_id AND d.base_hash = b.hash))`,
  },
  {
    what: 'encoded contents not shorter than their size (readers tell raw rows by length(content) = size)',
    sql: `SELECT COUNT(*) FROM blobs WHERE encoding <> 'raw' AND length(content) >= size`,
  },
  {
    what: 'deltas whose base is missing',
    sql: `SELECT COUNT(*) FROM blobs b WHERE b.base_hash IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM blobs c WHERE c.agent_id = b.agent_id AND c.hash = b.base_hash)`,
  },
  {
    what: `deltas deeper than ${PACK_DEPTH - 1} (a read applies at most that many)`,
    sql: `SELECT COUNT(*) FROM blobs WHERE depth >= ${PACK_DEPTH}`,
  },
];

function deepRaw(db: Database.Database): number {
  let wrong = 0;
  // Streams the rows: the contents are never all in memory.
  for (const row of db.prepare('SELECT hash, content FROM blobs').raw().iterate() as Iterable<[string, Buffer]>) {
    if (contentHash(row[1]) !== row[0]) wrong++;
  }
  return wrong;
}

/** Every content decoded (its chain read by the readers' own query) and hashed. */
function deepEncoded(db: Database.Database): number {
  const chain = db.prepare(CHAIN.sqlite).raw();
  let wrong = 0;
  // External contents are hashed where their bytes are: store/blob-backup.ts, object by object.
  const rows = db.prepare("SELECT agent_id, hash, encoding, content FROM blobs WHERE encoding <> 'external'").raw().iterate() as Iterable<
    [string, string, string, Buffer]
  >;
  for (const [agentId, hash, encoding, content] of rows) {
    try {
      const bytes =
        encoding === 'raw' ? content : decodeChainSync((chain.all(...chainParams(agentId, hash, ALL_INLINE)) as unknown[][]).map(chainRowOf));
      if (contentHash(bytes) !== hash) wrong++;
    } catch {
      wrong++;
    }
  }
  return wrong;
}

export interface SnapshotReport {
  ok: boolean;
  problems: string[];
  counts: { agents: number; files: number; versions: number; blobs: number; changesets: number };
}

/** Checks the file read-only; `deep` also hashes every stored content (linear in the data). */
export function checkSnapshot(file: string, opts: { deep?: boolean } = {}): SnapshotReport {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const problems: string[] = [];
    const integrity = db.pragma('integrity_check') as { integrity_check: string }[];
    if (integrity.length !== 1 || integrity[0]!.integrity_check !== 'ok') {
      problems.push(`SQLite integrity check: ${integrity.map((r) => r.integrity_check).join('; ')}`);
      return { ok: false, problems, counts: { agents: 0, files: 0, versions: 0, blobs: 0, changesets: 0 } };
    }
    const count = (sql: string) => Number((db.prepare(sql).raw().get() as unknown[])[0]);
    const encoded = (db.prepare('PRAGMA table_info(blobs)').all() as Array<{ name: string }>).some((c) => c.name === 'encoding');
    for (const { what, sql } of [...INVARIANTS, ...(encoded ? ENCODED : RAW_ONLY)]) {
      const n = count(sql);
      if (n > 0) problems.push(`${n} ${what}`);
    }
    if (opts.deep) {
      const wrong = encoded ? deepEncoded(db) : deepRaw(db);
      if (wrong) problems.push(`${wrong} contents that do not hash to their address (or cannot be decoded)`);
    }
    const counts = {
      agents: count('SELECT COUNT(*) FROM agents'),
      files: count("SELECT COUNT(*) FROM nodes WHERE NOT deleted AND kind = 'file'"),
      versions: count('SELECT COUNT(*) FROM versions'),
      blobs: count('SELECT COUNT(*) FROM blobs'),
      changesets: count('SELECT COUNT(*) FROM changesets'),
    };
    return { ok: problems.length === 0, problems, counts };
  } finally {
    db.close();
  }
}

/**
 * Whether a SQLite database file is whole: SQLite's own integrity check, then the service's
 * invariants a restore must not break — every version's and every live file's content present
 * (and, with `deep`, hashing to its address and of its recorded size), every live node's head
 * version recorded, every version in a recorded changeset. Used by `npm run backup` on the
 * snapshot it made and by `npm run restore-backup` before it swaps anything.
 */
import Database from 'better-sqlite3';
import { contentHash } from '../core/text.js';

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
  {
    what: 'contents whose size is not their length',
    sql: `SELECT COUNT(*) FROM blobs WHERE length(content) != size`,
  },
];

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
    for (const { what, sql } of INVARIANTS) {
      const n = count(sql);
      if (n > 0) problems.push(`${n} ${what}`);
    }
    if (opts.deep) {
      let wrong = 0;
      // Streams the rows: the contents are never all in memory.
      for (const row of db.prepare('SELECT hash, content FROM blobs').raw().iterate() as Iterable<[string, Buffer]>) {
        if (contentHash(row[1]) !== row[0]) wrong++;
      }
      if (wrong) problems.push(`${wrong} contents that do not hash to their address`);
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

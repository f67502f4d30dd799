/**
 * The history of a file (listFileHistory), written once for both backends: commit order
 * (changeset seq), not clock time, so "newest first" holds when commits share a millisecond
 * or the clock steps back. Within one changeset (a move) the arrival at the new path comes
 * before the tombstone it left at the old one.
 */
import type { HistoryCursor } from './types.js';

/** `ph(i)` renders the i-th (1-based) placeholder: `?` for SQLite, `$i` for PostgreSQL. */
export function fileHistorySql(ph: (i: number) => string): string {
  return `SELECT * FROM (
      SELECT v.*, COALESCE(c.seq, 0) AS seq FROM versions v
        LEFT JOIN changesets c ON c.id = v.changeset_id AND c.agent_id = v.agent_id
       WHERE v.agent_id = ${ph(1)} AND (v.path = ${ph(2)} OR v.file_id = ${ph(3)})) h
    WHERE seq < ${ph(4)} OR (seq = ${ph(4)} AND (deleted > ${ph(5)} OR (deleted = ${ph(5)} AND (path > ${ph(6)} OR (path = ${ph(6)} AND version < ${ph(7)})))))
    ORDER BY seq DESC, deleted ASC, path ASC, version DESC LIMIT ${ph(8)}`;
}

/** Parameters 4-7 of fileHistorySql: past the newest row when there is no cursor. */
export function historyBounds(before: HistoryCursor | null): { seq: number; deleted: boolean; path: string; version: number } {
  return before ?? { seq: Number.MAX_SAFE_INTEGER, deleted: false, path: '', version: 0 };
}

/**
 * The agent archive (export_my_data → npm run import-agent), format 1. A POSIX tar:
 *
 *   manifest.json                   format, agent, asOfSeq, exportedAt, the limits it was made under
 *   history/changesets-NNNN.jsonl   one changeset a line, by seq, every entry (big ones included)
 *   tree/<path>                     the head tree as of asOfSeq: directories and files, mtime = updatedAt
 *   blobs/<sha256 hex>              every other content some version had, once each
 *   history/versions-NNNN.jsonl     one version a line, by (path, version): numbers, times, ops, contentHash, copiedFrom
 *   history/purged.jsonl            paths whose every version was purged (their numbers are never reused)
 *   account/profile.json            the profile
 *   account/keys.json               the keys' metadata (label, scopes, folder, times), never a key or its hash
 *   social/posts-NNNN.jsonl         the agent's posts (community name, title, body, attachments, times)
 *   social/comments-NNNN.jsonl      the agent's comments (post id, parent, body, times)
 *   end.json                        counts, so an import knows it read everything
 *
 * A content is stored once: under tree/ when it is the content of a head file, else under blobs/;
 * versions name it by contentHash. History is JSON Lines in files of at most CHUNK_BYTES (a line
 * never split) rather than one JSON document, so neither side ever parses more than one chunk at
 * once: a JSON.parse of a whole big history would hold the event loop for seconds.
 */
export const ARCHIVE_FORMAT = 'afs-agent-archive';
export const ARCHIVE_VERSION = 1;

/** History lines per tar entry, by bytes (an entry is built in memory, then written). */
export const CHUNK_BYTES = 4 * 1024 * 1024;

/** The largest tar entry a reader accepts: a file at the largest MAX_FILE_BYTES, or a chunk of history with one huge changeset. */
export const MAX_ENTRY_BYTES = 256 * 1024 * 1024;

export interface Manifest {
  format: typeof ARCHIVE_FORMAT;
  version: typeof ARCHIVE_VERSION;
  agent: { id: string; name: string; slug: string; createdAt: string; createdAtMs: number };
  asOfSeq: number;
  exportedAt: string;
  source: { baseUrl: string; store: 'sqlite' | 'postgres' };
}

export interface EndRecord {
  changesets: number;
  versions: number;
  contents: number;
  contentBytes: number;
  treeFiles: number;
  treeDirectories: number;
  purged: number;
  posts: number;
  comments: number;
}

/** A tree/ or blobs/ name → what it holds. */
export function treeName(path: string): string {
  return `tree${path}`;
}

export function blobName(hash: string): string {
  return `blobs/${hash.replace(/^sha256:/, '')}`;
}

/** The names of numbered history chunks: history/versions-0001.jsonl … */
export function chunkName(base: string, n: number): string {
  return `${base}-${String(n).padStart(4, '0')}.jsonl`;
}

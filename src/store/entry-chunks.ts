/**
 * Paging through the entries of a big changeset, stored in path order as chunks of ENTRY_CHUNK
 * (a row per chunk, keyed by its first path). Shared by both backends: each supplies how to read
 * chunks. A page reads only the chunks it needs: at most a few, whatever the changeset's size.
 */
import { compareBytes } from '../core/byte-order.js';
import { subtreeRange } from '../core/paths.js';
import type { ChangesetEntry } from './types.js';

export interface EntryChunk {
  firstPath: string;
  entries: string;
}

/**
 * `containing`: the chunk that would hold that path (the last one starting at or before it) and
 * the ones after it; `after`: the chunks starting after that first path. At most `limit`, in order.
 */
export type ChunkReader = (from: { containing: string } | { after: string }, limit: number) => Promise<EntryChunk[]>;

const CHUNKS_PER_READ = 3;

/** Entries with paths in [lo, hi) (hi null: no end) and after `after`, up to `want` of them. */
async function scan(read: ChunkReader, lo: string, hi: string | null, after: string | null, want: number, out: ChangesetEntry[]): Promise<void> {
  const start = after !== null && compareBytes(after, lo) >= 0 ? after : lo;
  let chunks = await read({ containing: start }, CHUNKS_PER_READ);
  while (chunks.length > 0) {
    for (const chunk of chunks) {
      for (const e of JSON.parse(chunk.entries) as ChangesetEntry[]) {
        const c = compareBytes(e.path, start);
        if (c < 0 || (c === 0 && start === after)) continue;
        if (hi !== null && compareBytes(e.path, hi) >= 0) return;
        out.push(e);
        if (out.length >= want) return;
      }
    }
    chunks = await read({ after: chunks[chunks.length - 1]!.firstPath }, CHUNKS_PER_READ);
  }
}

/** One page of entries after `after`, at or below `within` when given. */
export async function pageEntries(
  read: ChunkReader,
  opts: { after: string | null; within: string | null; limit: number },
): Promise<{ entries: ChangesetEntry[]; nextAfter: string | null }> {
  const { after, within, limit } = opts;
  const out: ChangesetEntry[] = [];
  const want = limit + 1; // one more tells whether a next page exists
  if (within === null || within === '/') {
    await scan(read, '', null, after, want, out);
  } else {
    // At or below `within`: the path itself, then everything strictly below it. Between them in
    // byte order lie siblings such as `within-x`, which are skipped without being read.
    if (after === null || compareBytes(after, within) < 0) {
      const self: ChangesetEntry[] = [];
      await scan(read, within, null, null, 1, self);
      if (self[0]?.path === within) out.push(self[0]);
    }
    const { lo, hi } = subtreeRange(within);
    if (out.length < want) await scan(read, lo, hi, after, want, out);
  }
  const page = out.slice(0, limit);
  return { entries: page, nextAfter: out.length > limit ? page[page.length - 1]!.path : null };
}

/**
 * Snippets of file results: each cut from a window of at most
 * SNIPPET_WINDOW_BYTES of the file (store/search-snippets.ts), never its whole text, and the
 * event loop given back between results once a slice of work has run: a page of 100 results
 * in files of 1 MB is bounded work, in slices.
 */
import { snippet, type ParsedQuery } from '../core/search-text.js';
import { decodeText } from '../core/text.js';
import type { SearchRow } from '../store/search.js';
import type { TextWindow } from '../store/search-snippets.js';
import type { ToolContext } from './registry.js';

/** Bytes of a file a snippet is cut from at most. */
export const SNIPPET_WINDOW_BYTES = 64 * 1024;
/** Work between two yields to the event loop (core/work.ts's slice). */
const SLICE_MS = 20;

/**
 * The word a file's window is read around: the query's longest ASCII token (every included word
 * is in a matching file; the longest is the rarest bet), or '' (the file's head).
 */
export function probeWord(q: ParsedQuery): string {
  let best = '';
  for (const t of q.include) for (const k of t.tokens) if (/^[a-z0-9]+$/.test(k) && k.length > best.length) best = k;
  return best;
}

const continuation = (b: number) => (b & 0xc0) === 0x80;

/** The window's bytes as text: a UTF-8 sequence cut by either edge of the window is left out. */
export function windowText(w: TextWindow): string | null {
  let a = 0;
  if (w.start > 0) while (a < 3 && a < w.bytes.length && continuation(w.bytes[a]!)) a++;
  let b = w.bytes.length;
  if (w.start + b < w.size) {
    let lead = b - 1;
    while (lead > a && b - lead < 4 && continuation(w.bytes[lead]!)) lead--;
    const first = w.bytes[lead] ?? 0;
    const need = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
    if (lead + need > b) b = lead;
  }
  return decodeText(w.bytes.subarray(a, b));
}

/** A file's snippet from its window, with `…` where the window cut the file. */
export function windowSnippet(w: TextWindow, parsed: ParsedQuery): string {
  const text = windowText(w) ?? '';
  let s = snippet(text, parsed);
  if (w.start > 0 && !s.startsWith('…')) s = `…${s}`;
  if (w.start + w.bytes.length < w.size && !s.endsWith('…')) s = `${s}…`;
  return s;
}

/** Snippets of the page's file results, by `${ownerId} ${ref}` ('' where the text has no hit). */
export async function fileSnippets(ctx: ToolContext, rows: SearchRow[], parsed: ParsedQuery): Promise<Map<string, string>> {
  const files = rows.filter((r) => r.type === 'file').map((r) => ({ ownerId: r.ownerId, path: r.ref, version: r.version }));
  const out = new Map<string, string>();
  if (!files.length) return out;
  // A text is indexed up to SEARCH_MAX_FILE_BYTES: its word is found within those.
  const sizes = { windowBytes: SNIPPET_WINDOW_BYTES, scanBytes: Math.max(ctx.config.searchMaxFileBytes, SNIPPET_WINDOW_BYTES) };
  const windows = await ctx.store.fileWindows(files, probeWord(parsed), sizes);
  let sliceStart = performance.now();
  for (const [key, w] of windows) {
    if (performance.now() - sliceStart >= SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    out.set(key, windowSnippet(w, parsed));
  }
  return out;
}

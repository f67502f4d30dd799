/** Content helpers: hashing, text detection, line counting and paging. Pure. */
import { createHash } from 'node:crypto';

export function contentHash(bytes: Uint8Array): string {
  return 'sha256:' + createHash('sha256').update(bytes).digest('hex');
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of a buffer, or null when it is binary (invalid UTF-8 or containing NUL). */
export function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Bytes decoded between two checkpoints by decodeTextWork (~2 ms). */
const DECODE_CHUNK = 1 << 20;

/**
 * decodeText as resumable work (core/work.ts), a MiB at a time: one 10 MiB decode holds the
 * event loop ~85 ms on the test VM. The same answer: null for invalid UTF-8 or a NUL byte.
 */
export function* decodeTextWork(bytes: Uint8Array): Generator<void, string | null, void> {
  if (bytes.length <= DECODE_CHUNK) return decodeText(bytes);
  if (bytes.includes(0)) return null;
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const parts: string[] = [];
  try {
    for (let at = 0; at < bytes.length; at += DECODE_CHUNK) {
      parts.push(decoder.decode(bytes.subarray(at, at + DECODE_CHUNK), { stream: true }));
      yield;
    }
    parts.push(decoder.decode());
  } catch {
    return null;
  }
  return parts.join('');
}

/** Number of lines as `wc -l` would count them, plus one for a final line without '\n'. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n : n + 1;
}

export interface LinePage {
  content: string;
  start: number; // first line returned (1-based); 0 when nothing was returned
  end: number; // last line returned (inclusive); 0 when nothing was returned
  total: number;
  /** More lines follow this page: exactly when nextOffset is not null. */
  truncated: boolean;
  /** Present when more lines remain. */
  nextOffset: number | null;
  /** A single line longer than maxBytes was cut to fit (reported, never silent). */
  cutLine: number | null;
}

/**
 * Lines [offset, offset+limit) of `text`, capped at maxBytes of UTF-8 (whole lines only,
 * except a single over-long first line, which is cut and reported). Line endings are kept.
 */
export function pageLines(text: string, offset: number, limit: number, maxBytes: number): LinePage {
  const total = countLines(text);
  if (offset > total) {
    return { content: '', start: 0, end: 0, total, truncated: false, nextOffset: null, cutLine: null };
  }
  // Find the character index where line `offset` starts.
  let pos = 0;
  for (let line = 1; line < offset; line++) pos = text.indexOf('\n', pos) + 1;
  const startPos = pos;
  let bytes = 0;
  let line = offset - 1;
  let endPos = startPos;
  const cutLine: number | null = null;
  while (line < total && line - (offset - 1) < limit) {
    const nl = text.indexOf('\n', endPos);
    const next = nl === -1 ? text.length : nl + 1;
    const lineBytes = Buffer.byteLength(text.slice(endPos, next), 'utf8');
    if (bytes + lineBytes > maxBytes) {
      if (line === offset - 1) {
        // One line alone exceeds the page: return its first maxBytes and say so (cutLine).
        const cut = Buffer.from(text.slice(endPos, next), 'utf8')
          .subarray(0, maxBytes)
          .toString('utf8')
          .replace(/\uFFFD$/, '');
        return {
          content: cut,
          start: offset,
          end: offset,
          total,
          truncated: offset < total,
          nextOffset: offset < total ? offset + 1 : null,
          cutLine: offset,
        };
      }
      break;
    }
    bytes += lineBytes;
    endPos = next;
    line++;
  }
  const end = line;
  return {
    content: text.slice(startPos, endPos),
    start: end >= offset ? offset : 0,
    end: end >= offset ? end : 0,
    total,
    truncated: end < total,
    nextOffset: end < total ? end + 1 : null,
    cutLine,
  };
}

/** Client input echoed in a message or details is cut to this many characters. */
export const MAX_ECHO = 100;

/** `s`, or its first MAX_ECHO characters and '…' (never half of a surrogate pair). */
export function clip(s: string, max = MAX_ECHO): string {
  if (s.length <= max) return s;
  const code = s.charCodeAt(max - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max) + '…';
}

/** Client input as a JSON string for a message (control characters escaped), cut to `max`. */
export function quoteShort(value: string, max = 60): string {
  return JSON.stringify(clip(value, max));
}

/** `'s'` for a message; a clipped one says how long it was. */
export function quoteClipped(s: string, max = MAX_ECHO): string {
  return s.length <= max ? `'${s}'` : `'${clip(s, max)}' (${s.length} characters)`;
}

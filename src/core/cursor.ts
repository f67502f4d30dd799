/**
 * Opaque list cursors (docs/contract/community.md#conventions): base64url of a small JSON array naming the list it
 * belongs to and where the page ended. A cursor from another list, an edited one or garbage is
 * INVALID_INPUT, never a 500 or a silently different page.
 */
import { ToolError } from './errors.js';

export type CursorValue = string | number;
type Kind = 'n' | 's';

export function encodeCursor(list: string, values: readonly CursorValue[]): string {
  return Buffer.from(JSON.stringify([list, ...values])).toString('base64url');
}

/** Decodes a cursor of `list` whose values have the given kinds (n: safe integer, s: string ≤ 200). */
export function decodeCursor(list: string, cursor: string, kinds: readonly Kind[]): CursorValue[] {
  let parsed: unknown;
  try {
    parsed = cursor.length <= 1000 ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : null;
  } catch {
    parsed = null;
  }
  const ok =
    Array.isArray(parsed) &&
    parsed.length === kinds.length + 1 &&
    parsed[0] === list &&
    kinds.every((k, i) => {
      const v: unknown = parsed[i + 1];
      return k === 'n' ? Number.isSafeInteger(v) : typeof v === 'string' && v.length <= 200;
    });
  if (!ok) {
    throw new ToolError(
      'INVALID_INPUT',
      `'cursor' is not a cursor of this list. Pass the nextCursor of the previous page of the same call, or omit it to start over.`,
      {
        field: 'cursor',
      },
    );
  }
  return (parsed as CursorValue[]).slice(1);
}

/**
 * updatedAt (docs/contract/files.md#files-and-versions): millisecond ISO strings, strictly increasing per path, generated in
 * application code (never database now()) so they round-trip exactly as expectedUpdatedAt.
 */
import { ToolError } from './errors.js';
import { quoteShort } from './text.js';

export function nextUpdatedAtMs(previousMs: number | null | undefined, nowMs = Date.now()): number {
  return previousMs == null ? nowMs : Math.max(nowMs, previousMs + 1);
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,3})?(?:Z|[+-](\d{2}):(\d{2}))$/;

/**
 * Epoch ms of an RFC 3339 timestamp, or NaN. Every field must exist on the calendar: Date.parse
 * alone rolls "2026-02-31" over into 3 March and "T24:00" into the next day.
 */
export function parseRfc3339(value: string): number {
  const m = RFC3339.exec(value);
  if (!m) return NaN;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return NaN;
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return NaN;
  return Date.parse(value);
}

/** Parses an expectedUpdatedAt / timestamp input into epoch ms, or throws INVALID_INPUT. */
export function parseTimestamp(value: string, field: string): number {
  const ms = parseRfc3339(value);
  if (Number.isNaN(ms)) {
    throw new ToolError(
      'INVALID_INPUT',
      `${field} must be the exact updatedAt string returned by read/stat (e.g. 2026-01-02T03:04:05.678Z); got ${quoteShort(value)}.`,
      { field },
    );
  }
  return ms;
}

/**
 * updatedAt (contract §4): millisecond ISO strings, strictly increasing per path, generated in
 * application code (never database now()) so they round-trip exactly as expectedUpdatedAt.
 */
import { ToolError } from './errors.js';

export function nextUpdatedAtMs(previousMs: number | null | undefined, nowMs = Date.now()): number {
  return previousMs == null ? nowMs : Math.max(nowMs, previousMs + 1);
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:\d{2})$/;

/** Parses an expectedUpdatedAt / timestamp input into epoch ms, or throws INVALID_INPUT. */
export function parseTimestamp(value: string, field: string): number {
  const ms = RFC3339.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) {
    throw new ToolError(
      'INVALID_INPUT',
      `${field} must be the exact updatedAt string returned by read/stat (e.g. 2026-01-02T03:04:05.678Z); got ${JSON.stringify(value)}.`,
      { field },
    );
  }
  return ms;
}

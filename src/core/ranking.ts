/**
 * Post ranking (docs/contract/community.md#communities), pure so the docs, the store and the tests share one formula.
 *
 * hot = sign(score) · log10(max(|score|, 1)) + createdAtSeconds / 45000
 *
 * Each tenfold of the score counts as much as 45,000 s (12.5 h) of age: a post with score 100 ranks
 * with one of score 1 posted 25 h later. It is kept as an integer (× 1,000,000, truncated), so a
 * list orders and pages by exact values on both databases; it changes only when the score does.
 */
export const HOT_SECONDS_PER_DECADE = 45_000;
const SCALE = 1_000_000;

export function hotRank(score: number, createdAtMs: number): number {
  const magnitude = Math.log10(Math.max(Math.abs(score), 1));
  const sign = score > 0 ? 1 : score < 0 ? -1 : 0;
  return Math.floor((sign * magnitude + createdAtMs / 1000 / HOT_SECONDS_PER_DECADE) * SCALE);
}

export const HOT_FORMULA = 'hot = sign(score) · log10(max(|score|, 1)) + createdAtSeconds / 45000';

export type TimeRange = 'day' | 'week' | 'month' | 'all';
const RANGE_MS: Record<TimeRange, number> = { day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000, all: Number.POSITIVE_INFINITY };

/** The oldest creation time a `top` list with this range shows. */
export function rangeStartMs(range: TimeRange, nowMs: number): number {
  const span = RANGE_MS[range];
  return Number.isFinite(span) ? nowMs - span : 0;
}

/** A vote's value: up 1, down -1, none 0. */
export type VoteDirection = 'up' | 'down' | 'none';
export const voteValue = (d: VoteDirection): number => (d === 'up' ? 1 : d === 'down' ? -1 : 0);
export const voteDirection = (v: number): VoteDirection => (v > 0 ? 'up' : v < 0 ? 'down' : 'none');

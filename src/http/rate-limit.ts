/**
 * Per-key request rate limit (fixed one-minute windows). Counting happens in memory on the hot
 * path; every 200 ms each instance adds its local counts to a shared counter in the store and
 * learns the total, so instances sharing a database enforce one limit together (overshoot is
 * bounded by what the other instances admit within one flush interval).
 */
import type { Store } from '../store/types.js';

const WINDOW_MS = 60_000;
const FLUSH_MS = 200;

interface KeyWindow {
  windowStart: number;
  /** Total known from the shared counter (other instances included) at the last flush. */
  shared: number;
  /** Admitted here since the last flush. */
  pending: number;
  /** While the shared total is being learned: later requests of the window wait for it. */
  learning: Promise<void> | null;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetAtMs: number;
  retryAfterS: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, KeyWindow>();
  private readonly timer: NodeJS.Timeout;
  private flushing = false;

  constructor(
    private readonly store: Store,
    private readonly limit: number,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  async check(keyId: string, now = Date.now()): Promise<RateDecision> {
    const windowStart = now - (now % WINDOW_MS);
    let w = this.windows.get(keyId);
    if (!w || w.windowStart !== windowStart) {
      // First request of this key in this window on this instance: learn what the others admitted.
      const fresh: KeyWindow = { windowStart, shared: 0, pending: 0, learning: null };
      fresh.learning = this.store
        .hitCounter(`key:${keyId}`, windowStart, windowStart + 2 * WINDOW_MS, 0)
        .then(
          (total) => {
            fresh.shared = Math.max(fresh.shared, total);
          },
          () => {
            /* the store is down: count locally; the call will fail on its own anyway */
          },
        )
        .finally(() => {
          fresh.learning = null;
        });
      this.windows.set(keyId, fresh);
      w = fresh;
    }
    // Requests arriving while the total is being learned must not count from zero.
    if (w.learning) await w.learning;
    const used = w.shared + w.pending;
    const resetAtMs = windowStart + WINDOW_MS;
    if (used >= this.limit) {
      return { allowed: false, limit: this.limit, remaining: 0, resetAtMs, retryAfterS: Math.max(1, Math.ceil((resetAtMs - now) / 1000)) };
    }
    w.pending++;
    return { allowed: true, limit: this.limit, remaining: this.limit - used - 1, resetAtMs, retryAfterS: 0 };
  }

  /** The key's current window without counting a request (for get_key_info). */
  peek(keyId: string, now = Date.now()): { limit: number; used: number; remaining: number; resetAtMs: number } {
    const windowStart = now - (now % WINDOW_MS);
    const w = this.windows.get(keyId);
    const used = w && w.windowStart === windowStart ? w.shared + w.pending : 0;
    return { limit: this.limit, used, remaining: Math.max(0, this.limit - used), resetAtMs: windowStart + WINDOW_MS };
  }

  /** Pushes local counts to the shared counters and pulls the totals. */
  async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      const now = Date.now();
      for (const [keyId, w] of this.windows) {
        if (w.windowStart + WINDOW_MS < now) {
          this.windows.delete(keyId);
          continue;
        }
        const add = w.pending;
        if (add === 0 && w.shared === 0) continue;
        w.pending -= add;
        try {
          w.shared = await this.store.hitCounter(`key:${keyId}`, w.windowStart, w.windowStart + 2 * WINDOW_MS, add);
        } catch {
          w.pending += add; // retry on the next flush
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}

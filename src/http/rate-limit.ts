/**
 * Per-agent tool-call rate limit (fixed one-minute windows). Every key of an agent draws on the
 * one budget, so minting keys buys no extra calls; every tool call counts once (the HTTP layer
 * checks once per REST call and once per `tools/call` of an MCP batch). Counting happens in
 * memory on the hot path; every 200 ms each instance adds its local counts to a shared counter
 * in the store and learns the total, so instances sharing a database enforce one limit together
 * (overshoot is bounded by what the other instances admit within one flush interval).
 */
import { TransportError } from '../core/errors.js';
import type { Store } from '../store/types.js';

const WINDOW_MS = 60_000;
const FLUSH_MS = 200;

/** The shared counter of an agent's window (one bucket per agent, whatever key calls). */
export const bucketOf = (agentId: string) => `agent:${agentId}`;

interface AgentWindow {
  windowStart: number;
  /** Total known from the shared counter (other instances included) at the last flush. */
  shared: number;
  /** Admitted here since the last flush. */
  pending: number;
  /**
   * Being added to the shared counter by a flush in progress: still counted until the flush
   * returns the new total (without it, calls checked during the flush's round trip saw the
   * window short by that many and were admitted past the limit).
   */
  flushing: number;
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

/** The RATE_LIMITED error of a refused call (REST answers it with 429, MCP as the call's result). */
export function rateLimited(d: RateDecision): TransportError {
  return new TransportError(
    'RATE_LIMITED',
    `Rate limit of ${d.limit} tool calls per minute reached for this agent (all its keys share it; each call of an MCP batch counts). ` +
      `Retry in ${d.retryAfterS} s.`,
    { details: { limit: d.limit, per: 'agent', retryAfterSeconds: d.retryAfterS }, headers: { 'retry-after': String(d.retryAfterS) } },
  );
}

export class RateLimiter {
  private readonly windows = new Map<string, AgentWindow>();
  private readonly timer: NodeJS.Timeout;
  private flushing = false;

  constructor(
    private readonly store: Store,
    private readonly limit: number,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** Counts one tool call of the agent, if its window has room. */
  async check(agentId: string, now = Date.now()): Promise<RateDecision> {
    const windowStart = now - (now % WINDOW_MS);
    let w = this.windows.get(agentId);
    if (!w || w.windowStart !== windowStart) {
      // First call of this agent in this window on this instance: learn what the others admitted.
      const fresh: AgentWindow = { windowStart, shared: 0, pending: 0, flushing: 0, learning: null };
      fresh.learning = this.store
        .hitCounter(bucketOf(agentId), windowStart, windowStart + 2 * WINDOW_MS, 0)
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
      this.windows.set(agentId, fresh);
      w = fresh;
    }
    // Requests arriving while the total is being learned must not count from zero.
    if (w.learning) await w.learning;
    const used = w.shared + w.flushing + w.pending;
    const resetAtMs = windowStart + WINDOW_MS;
    if (used >= this.limit) {
      return { allowed: false, limit: this.limit, remaining: 0, resetAtMs, retryAfterS: Math.max(1, Math.ceil((resetAtMs - now) / 1000)) };
    }
    w.pending++;
    return { allowed: true, limit: this.limit, remaining: this.limit - used - 1, resetAtMs, retryAfterS: 0 };
  }

  /** The agent's current window without counting a call (for get_key_info and the headers). */
  peek(agentId: string, now = Date.now()): { limit: number; used: number; remaining: number; resetAtMs: number } {
    const windowStart = now - (now % WINDOW_MS);
    const w = this.windows.get(agentId);
    const used = w && w.windowStart === windowStart ? w.shared + w.flushing + w.pending : 0;
    return { limit: this.limit, used, remaining: Math.max(0, this.limit - used), resetAtMs: windowStart + WINDOW_MS };
  }

  /** Pushes local counts to the shared counters and pulls the totals. */
  async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      const now = Date.now();
      for (const [agentId, w] of this.windows) {
        if (w.windowStart + WINDOW_MS < now) {
          this.windows.delete(agentId);
          continue;
        }
        const add = w.pending;
        if (add === 0 && w.shared === 0) continue;
        w.pending -= add;
        w.flushing = add;
        try {
          w.shared = await this.store.hitCounter(bucketOf(agentId), w.windowStart, w.windowStart + 2 * WINDOW_MS, add);
        } catch {
          w.pending += add; // retry on the next flush
        } finally {
          w.flushing = 0;
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

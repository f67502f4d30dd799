/**
 * bash commands running per agent on one app (capped by BASH_MAX_CONCURRENT_PER_AGENT). One
 * instance per app, built by the composition root: two apps in one process (tests) must not
 * count each other's commands.
 */
export class AgentSlots {
  private readonly running = new Map<string, number>();

  /** Takes a slot when fewer than `max` are taken; otherwise returns how many are running. */
  take(agentId: string, max: number): { taken: true } | { taken: false; running: number } {
    const running = this.running.get(agentId) ?? 0;
    if (running >= max) return { taken: false, running };
    this.running.set(agentId, running + 1);
    return { taken: true };
  }

  release(agentId: string): void {
    const n = (this.running.get(agentId) ?? 1) - 1;
    if (n <= 0) this.running.delete(agentId);
    else this.running.set(agentId, n);
  }
}

/** The window of the bash worker-time budget (BASH_WORKER_MS_PER_MINUTE). */
export const WORKER_TIME_WINDOW_MS = 60_000;

/**
 * Worker time each agent's bash commands held in the last minute: the finished ones (counted
 * for a minute after they end) plus the running ones so far. What a worker is held for, not CPU
 * time: a command waiting on the store keeps a worker from others as much as one computing.
 */
export class WorkerTime {
  private readonly done = new Map<string, Array<{ endMs: number; ms: number }>>();
  private readonly running = new Map<string, Map<number, number>>();

  start(agentId: string, jobId: number, nowMs: number): void {
    let jobs = this.running.get(agentId);
    if (!jobs) this.running.set(agentId, (jobs = new Map()));
    jobs.set(jobId, nowMs);
  }

  stop(agentId: string, jobId: number, nowMs: number): void {
    const jobs = this.running.get(agentId);
    const startMs = jobs?.get(jobId);
    if (!jobs || startMs === undefined) return;
    jobs.delete(jobId);
    if (!jobs.size) this.running.delete(agentId);
    let list = this.done.get(agentId);
    if (!list) this.done.set(agentId, (list = []));
    list.push({ endMs: nowMs, ms: nowMs - startMs });
  }

  /** Commands of the agent running now. */
  runningCount(agentId: string): number {
    return this.running.get(agentId)?.size ?? 0;
  }

  /** Milliseconds of worker time in the last minute (running commands included). */
  usedMs(agentId: string, nowMs: number): number {
    let used = 0;
    for (const startMs of this.running.get(agentId)?.values() ?? []) used += nowMs - startMs;
    const list = this.done.get(agentId);
    if (!list) return used;
    while (list.length && list[0]!.endMs <= nowMs - WORKER_TIME_WINDOW_MS) list.shift();
    if (!list.length) this.done.delete(agentId);
    for (const e of list) used += e.ms;
    return used;
  }

  /** Forgets agents whose last command ended over a minute ago (the pool calls it now and then). */
  sweep(nowMs: number): void {
    for (const [agentId, list] of this.done) if (list[list.length - 1]!.endMs <= nowMs - WORKER_TIME_WINDOW_MS) this.done.delete(agentId);
  }

  /** Seconds (≥ 1) until the agent's worker time of the last minute falls below `budgetMs`. */
  retryAfterSeconds(agentId: string, budgetMs: number, nowMs: number): number {
    let used = this.usedMs(agentId, nowMs);
    for (const e of this.done.get(agentId) ?? []) {
      used -= e.ms;
      if (used < budgetMs) return Math.max(1, Math.ceil((e.endMs + WORKER_TIME_WINDOW_MS - nowMs) / 1000));
    }
    // Running commands alone hold the budget: they end within BASH_TIMEOUT_MS, then count a minute.
    return WORKER_TIME_WINDOW_MS / 1000;
  }
}

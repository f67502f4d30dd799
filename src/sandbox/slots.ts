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

/**
 * File contents a bash worker keeps between commands, by (agent, content hash). A hash names
 * immutable content, so an entry can never be stale: a changed file has a new hash, and a file
 * is only ever looked up by the hash its current head names. Keys include the agent, so one
 * agent's cache hits cannot tell it what another agent stores. Least recently used entries go
 * first once the byte budget is spent.
 */
export class BlobCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  private static key(agentId: string, hash: string): string {
    return `${agentId}\u0000${hash}`;
  }

  get(agentId: string, hash: string): Buffer | undefined {
    const k = BlobCache.key(agentId, hash);
    const b = this.entries.get(k);
    if (b) {
      // Refresh recency: Map keeps insertion order.
      this.entries.delete(k);
      this.entries.set(k, b);
    }
    return b;
  }

  set(agentId: string, hash: string, content: Buffer): void {
    if (this.maxBytes === 0 || content.length > this.maxBytes / 4) return; // one huge file would evict everything
    const k = BlobCache.key(agentId, hash);
    const old = this.entries.get(k);
    if (old) {
      this.entries.delete(k);
      this.bytes -= old.length;
    }
    this.entries.set(k, content);
    this.bytes += content.length;
    for (const [key, b] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(key);
      this.bytes -= b.length;
    }
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}

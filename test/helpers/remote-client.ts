/**
 * An HTTP client on its own thread, for tests that measure the server's event loop in this
 * process: building and sending a 10 MB request body (undici encodes it, ~130 ms here) or
 * reading a neighbour's answers would otherwise run on the very loop being measured.
 *
 * `call` sends one tool call; `startReader`/`stopReader` make a second agent read a file every
 * `everyMs` and report its worst latency, as another agent of the service would see it.
 */
import { Worker } from 'node:worker_threads';

export interface RemoteReply {
  status: number;
  text: string;
}

type Request =
  | { id: number; op: 'call'; url: string; key: string; tool: string; body: string }
  | { id: number; op: 'fetch'; url: string; init: { method: string; headers: Record<string, string>; body: string } }
  | { id: number; op: 'startReader'; url: string; key: string; path: string; everyMs: number }
  | { id: number; op: 'stopReader' };

export class RemoteClient {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();

  constructor(private readonly baseUrl: string) {
    this.worker = new Worker(new URL('./remote-client-worker.js', import.meta.url));
    this.worker.on('message', (m: { id: number; ok: boolean; value?: unknown; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.value);
      else p.reject(new Error(m.error));
    });
    this.worker.on('error', (err) => {
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    });
  }

  private send<T>(req: Record<string, unknown> & { op: Request['op'] }): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...req, id });
    });
  }

  /** A tool call; the body is serialized here (JSON.stringify is the caller's cost, not the server's). */
  call(key: string, tool: string, input: unknown, body = JSON.stringify(input)): Promise<RemoteReply> {
    return this.send({ op: 'call', url: this.baseUrl, key, tool, body });
  }

  fetch(path: string, init: { method: string; headers: Record<string, string>; body: string }): Promise<RemoteReply> {
    return this.send({ op: 'fetch', url: this.baseUrl + path, init });
  }

  startReader(key: string, path: string, everyMs = 50): Promise<void> {
    return this.send({ op: 'startReader', url: this.baseUrl, key, path, everyMs });
  }

  /** Stops the reader; its worst latency (ms) and number of reads since it started. */
  stopReader(): Promise<{ maxMs: number; reads: number; failures: string[] }> {
    return this.send({ op: 'stopReader' });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}

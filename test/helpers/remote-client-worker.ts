/** The thread behind RemoteClient (remote-client.ts): performs requests and a periodic reader. */
import { parentPort } from 'node:worker_threads';

let reader: { stop: boolean; maxMs: number; reads: number; failures: string[]; done: Promise<void> } | null = null;

async function read(url: string, key: string, path: string): Promise<string | null> {
  const res = await fetch(`${url}/api/tools/read`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ path }),
  });
  const text = await res.text();
  return res.status === 200 && !text.includes('"isError"') ? null : `HTTP ${res.status}: ${text.slice(0, 200)}`;
}

async function handle(m: any): Promise<unknown> {
  switch (m.op) {
    case 'call': {
      const res = await fetch(`${m.url}/api/tools/${m.tool}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${m.key}`, 'content-type': 'application/json' },
        body: m.body,
      });
      return { status: res.status, text: await res.text() };
    }
    case 'fetch': {
      const res = await fetch(m.url, m.init);
      return { status: res.status, text: await res.text() };
    }
    case 'startReader': {
      const r = { stop: false, maxMs: 0, reads: 0, failures: [] as string[], done: Promise.resolve() };
      r.done = (async () => {
        while (!r.stop) {
          const t = performance.now();
          const failure = await read(m.url, m.key, m.path).catch((e: Error) => e.message);
          r.maxMs = Math.max(r.maxMs, performance.now() - t);
          r.reads++;
          if (failure) r.failures.push(failure);
          await new Promise((res) => setTimeout(res, m.everyMs));
        }
      })();
      reader = r;
      return null;
    }
    case 'stopReader': {
      const r = reader;
      reader = null;
      if (!r) return { maxMs: 0, reads: 0, failures: [] };
      r.stop = true;
      await r.done;
      return { maxMs: r.maxMs, reads: r.reads, failures: r.failures };
    }
    default:
      throw new Error(`unknown op ${m.op}`);
  }
}

parentPort!.on('message', (m: { id: number }) => {
  handle(m).then(
    (value) => parentPort!.postMessage({ id: m.id, ok: true, value }),
    (err: Error) => parentPort!.postMessage({ id: m.id, ok: false, error: String(err?.message ?? err) }),
  );
});

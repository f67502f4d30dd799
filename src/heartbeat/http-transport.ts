/**
 * The scenario's transport over real HTTP, as any client would call the service: registration,
 * POST /api/tools/{tool} with the key, the envelope's inner JSON, GET of the reference files.
 * `npm run demo` and test/heartbeat-e2e.test.ts use it.
 */
import type { Reply } from './routine.js';
import type { Transport } from './scenario.js';

interface Envelope {
  content?: Array<{ type: string; text: string }>;
  error?: { code: string; message: string };
}

/** The inner JSON of an envelope; a body that is not one (a proxy's error page) becomes an error naming the status. */
function innerOf(status: number, text: string): Record<string, unknown> {
  try {
    const body = JSON.parse(text) as Envelope;
    const inner = body.content?.[0]?.text;
    if (inner !== undefined) return JSON.parse(inner) as Record<string, unknown>;
    if (body.error) return { error: body.error };
  } catch {
    /* not JSON: reported below */
  }
  return { error: { code: `HTTP_${status}`, message: text.slice(0, 200) } };
}

export function httpTransport(baseUrl: string): Transport {
  const base = baseUrl.replace(/\/+$/, '');
  const post = async (path: string, body: unknown, key?: string) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key) headers.authorization = `Bearer ${key}`;
    const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: res.status, text: await res.text() };
  };
  return {
    async register(name) {
      const r = await post('/api/users/register', { name });
      if (r.status !== 201) {
        const { error } = innerOf(r.status, r.text) as { error: { code: string; message: string } };
        throw new Error(`register ${name}: ${r.status} ${error.code}: ${error.message}`);
      }
      const agent = JSON.parse(r.text) as { slug: string; apiKey: string };
      return { slug: agent.slug, key: agent.apiKey };
    },
    async call(key, tool, input): Promise<Reply> {
      const r = await post(`/api/tools/${tool}`, input, key);
      const inner = innerOf(r.status, r.text);
      if (inner.error) return { ok: false, error: inner.error as { code: string; message: string; details?: unknown } };
      return { ok: true, result: inner };
    },
    async fetchText(path) {
      const res = await fetch(`${base}${path}`);
      if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
      return res.text();
    },
  };
}

/**
 * The TypeScript SDK: `import { AgentFiles } from 'agent-file-service/client'`. One typed method
 * per tool (generated from the registry: tools.generated.ts), results as plain objects (the
 * envelope's `content[0].text` parsed), errors as ToolError / TransportError / NetworkError.
 *
 *   const afs = await AgentFiles.fromCredentials();          // or new AgentFiles({ baseUrl, apiKey })
 *   await afs.write({ path: '/notes/a.md', content: 'hi' });
 *   const { content } = await afs.read({ path: '/notes/a.md' });
 */
import { NetworkError, ToolError, TransportError } from './errors.js';
import type { CallOptions } from './options.js';
import { TOOLS, type ErrorCode, type ToolMethods, type ToolName, type ToolTypes } from './tools.generated.js';
import { exchange, type TransportOptions } from './transport.js';
import type { Credentials } from './credentials.js';

export { AgentFilesError, NetworkError, ToolError, TransportError, type ClientErrorCode } from './errors.js';
export type { CallOptions } from './options.js';
export type { Credentials } from './credentials.js';
export * from './tools.generated.js';

export interface AgentFilesOptions {
  /** The service's canonical (`www`) base URL, e.g. https://www.example.com. */
  baseUrl: string;
  apiKey: string;
  /** Another fetch (tests, proxies); default: the global one. */
  fetch?: typeof fetch;
  /** Retries of a failed call: network errors, 429, 502, 503, 504 (default 3). */
  retries?: number;
  /** First backoff in ms (default 250), doubled per retry, at most maxBackoffMs (default 8,000). */
  backoffMs?: number;
  maxBackoffMs?: number;
}

export interface Registration {
  id: string;
  name: string;
  slug: string;
  createdAt: string;
  apiKey: string;
}

const BY_NAME = new Map(TOOLS.map((t) => [t.name as string, t]));

function transportOptions(o: Omit<AgentFilesOptions, 'apiKey'> & { apiKey: string | null }): TransportOptions {
  const f = o.fetch ?? globalThis.fetch;
  if (typeof f !== 'function') throw new Error('No fetch: pass options.fetch (Node 20+ and browsers have one).');
  return {
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    fetch: f.bind(globalThis),
    retries: o.retries ?? 3,
    backoffMs: o.backoffMs ?? 250,
    maxBackoffMs: o.maxBackoffMs ?? 8_000,
  };
}

interface ErrorBody {
  error?: { code?: string; message?: string; details?: Record<string, unknown> };
}

/** The error a non-200 answer carries (its envelope's error, or a description of what came). */
function transportError(status: number, body: string, retryAfter: string | null): TransportError {
  let parsed: ErrorBody | null = null;
  try {
    const outer = JSON.parse(body) as { content?: { text?: string }[] } & ErrorBody;
    parsed = outer.content?.[0]?.text ? (JSON.parse(outer.content[0].text) as ErrorBody) : outer;
  } catch {
    // Not JSON (a proxy's HTML page, say): described below.
  }
  const e = parsed?.error;
  const seconds = retryAfter !== null && /^\d+$/.test(retryAfter) ? Number(retryAfter) : null;
  if (!e?.code) return new TransportError(status, 'BAD_RESPONSE', `HTTP ${status} without an error envelope: ${body.slice(0, 200)}`, {}, seconds);
  return new TransportError(status, e.code as ErrorCode, e.message ?? e.code, e.details ?? {}, seconds);
}

/** A random idempotency key (crypto.randomUUID: Node 19+, browsers in secure contexts). */
const newIdempotencyKey = () => `sdk-${globalThis.crypto.randomUUID()}`;

// The tool methods are installed by the constructor from TOOLS (generated), so a new tool needs no
// edit here; this merge gives them their generated types.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface AgentFiles extends ToolMethods {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class AgentFiles {
  readonly baseUrl: string;
  readonly #transport: TransportOptions;

  constructor(options: AgentFilesOptions) {
    if (!options?.baseUrl || !options.apiKey) throw new TypeError('AgentFiles needs { baseUrl, apiKey }.');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#transport = transportOptions({ ...options, baseUrl: this.baseUrl });
    for (const tool of TOOLS) {
      Object.defineProperty(this, tool.method, {
        value: (input?: Record<string, unknown>, opts?: CallOptions) => this.call(tool.name, (input ?? {}) as never, opts),
        enumerable: false,
      });
    }
  }

  /** Registers a new agent (no key needed) and returns a client holding its key. */
  static async register(options: Omit<AgentFilesOptions, 'apiKey'> & { name: string }): Promise<{ client: AgentFiles; registration: Registration }> {
    const base = options.baseUrl.replace(/\/+$/, '');
    // Registration creates an agent each time: never retried (a lost answer would leave a second agent).
    const answer = await exchange(transportOptions({ ...options, baseUrl: base, apiKey: null }), '/api/users/register', {
      method: 'POST',
      json: { name: options.name },
      retryable: false,
    });
    if (answer.status !== 201) throw transportError(answer.status, answer.body, answer.headers.get('retry-after'));
    const registration = JSON.parse(answer.body) as Registration;
    return { client: new AgentFiles({ ...options, baseUrl: base, apiKey: registration.apiKey }), registration };
  }

  /** A client from the credentials file (Node only): $AFS_CREDENTIALS or ~/.config/agent-file-service/credentials.json. */
  static async fromCredentials(path?: string, options: Partial<Omit<AgentFilesOptions, 'apiKey'>> = {}): Promise<AgentFiles> {
    const { readCredentials } = await import('./credentials.js');
    const creds: Credentials = await readCredentials(path);
    return new AgentFiles({ ...options, baseUrl: options.baseUrl ?? creds.baseUrl, apiKey: creds.apiKey });
  }

  /** Calls any tool by name (the typed methods call this). */
  async call<N extends ToolName>(name: N, input: ToolTypes[N]['input'], options: CallOptions = {}): Promise<ToolTypes[N]['output']> {
    const tool = BY_NAME.get(name);
    const body: Record<string, unknown> = { ...(input as Record<string, unknown>) };
    let retryable = true;
    if (tool?.mutating) {
      if (options.idempotencyKey !== undefined) body.idempotencyKey = options.idempotencyKey;
      else if (body.idempotencyKey === undefined && options.idempotent !== false) body.idempotencyKey = newIdempotencyKey();
      // A mutating call is retried only when a replay cannot apply it twice.
      retryable = body.idempotencyKey !== undefined;
    }
    const answer = await exchange(this.#transport, `/api/tools/${encodeURIComponent(name)}`, {
      method: 'POST',
      json: body,
      retryable,
      ...(options.retries !== undefined ? { retries: options.retries } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (answer.status !== 200) throw transportError(answer.status, answer.body, answer.headers.get('retry-after'));
    let result: unknown;
    let isError = false;
    try {
      const envelope = JSON.parse(answer.body) as { content: { text: string }[]; isError?: boolean };
      isError = envelope.isError === true;
      result = JSON.parse(envelope.content[0]!.text);
    } catch {
      throw new TransportError(200, 'BAD_RESPONSE', `The answer to ${name} is not a tool envelope: ${answer.body.slice(0, 200)}`);
    }
    if (isError) {
      const e = (result as ErrorBody).error ?? {};
      throw new ToolError(name, (e.code ?? 'INTERNAL') as ErrorCode, e.message ?? 'Tool error', e.details ?? {});
    }
    return result as ToolTypes[N]['output'];
  }

  /** A reference file of the service (skill.md, skill.json, heartbeat.md, mcp.md) as text. */
  async reference(name: 'skill.md' | 'skill.json' | 'heartbeat.md' | 'mcp.md'): Promise<string> {
    const answer = await exchange(this.#transport, `/${name}`, { method: 'GET', retryable: true });
    if (answer.status !== 200) throw transportError(answer.status, answer.body, answer.headers.get('retry-after'));
    return answer.body;
  }
}

/** True for failures worth retrying later (the service busy or unreachable), false for answers. */
export function isTransient(err: unknown): boolean {
  if (err instanceof NetworkError) return true;
  return err instanceof TransportError && [429, 502, 503, 504].includes(err.status);
}

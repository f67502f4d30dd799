/**
 * The MCP endpoint's transport: ONE long-lived MCP SDK Server per app, fed the JSON-RPC messages
 * of every HTTP request through this in-process transport, instead of a new Server and
 * StreamableHTTPServerTransport per request (the SDK's stateless pattern). That pattern cost
 * ~6× a REST call for a tools/call read (in-process, 1,276 vs 266 µs): building the server and its
 * handlers, and the transport converting Node's request to a web Request and back.
 *
 * Many requests share the server at once and clients reuse JSON-RPC ids (every client starts at
 * 1), so each request's ids are replaced by process-unique ones on the way in and restored on the
 * way out. A notification a handler sends about its request (enable_toolset's
 * notifications/tools/list_changed) turns that request's answer into a short SSE stream: the
 * notifications, then the responses, as the Streamable HTTP transport allows. The HTTP checks the SDK's transport made (Accept, Content-Type, batch size, one
 * initialize, protocol version) are made here, with its status codes and messages.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { MAX_BATCH, MAX_BATCH_ANSWER_CHARS, NOT_RUN } from '../core/mcp-limits.js';

export { MAX_BATCH };

type Id = string | number;

/** An HTTP answer: a status and a JSON body, an object or already serialized (null: no body, 202). */
export interface McpAnswer {
  status: number;
  body: unknown;
  /** The body's media type when not application/json (text/event-stream: notifications came along). */
  type?: string;
}

interface Pending {
  /** Internal ids of this request's messages still waiting for their response. */
  waiting: number;
  /** Each response serialized as it arrives (one at a time, so a big batch is serialized in slices). */
  responses: (string | undefined)[];
  /** Characters of the responses so far. */
  chars: number;
  /** Notifications sent about this request's messages, serialized, in order. */
  notes: string[];
  resolve(): void;
}

const jsonRpcError = (status: number, code: number, message: string): McpAnswer => ({
  status,
  body: { jsonrpc: '2.0', error: { code, message }, id: null },
});

/** The request's headers, checked as the SDK's Streamable HTTP transport checks them. */
const notRun = (id: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  error: {
    code: NOT_RUN,
    message:
      `Not run: this batch's answers passed ${MAX_BATCH_ANSWER_CHARS / 1024 / 1024} MiB before its turn. Send it in another request ` +
      '(tools/list once: the list does not change while your key does not).',
  },
});

/**
 * An initialize request. The method is looked at first: the SDK's guard is a zod parse, and a
 * failing zod parse builds its issues, which cost ~3% of an MCP read's CPU per call (twice per
 * request: docs/benchmarks.md, "MCP against the filesystem server").
 */
export const initializes = (m: unknown): boolean =>
  typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize' && isInitializeRequest(m);

export function checkHeaders(headers: Record<string, string | string[] | undefined>, messages: unknown[]): McpAnswer | null {
  const accept = String(headers.accept ?? '');
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return jsonRpcError(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
  }
  const type = String(headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (type !== 'application/json') return jsonRpcError(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
  if (messages.length > MAX_BATCH) return jsonRpcError(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`);
  const version = headers['mcp-protocol-version'];
  const initializing = messages.some(initializes);
  if (!initializing && typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return jsonRpcError(
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    );
  }
  return null;
}

/**
 * `cached` gives the JSON of a result serialized once and kept (tools/list: the same list per key
 * shape), or undefined: such a result is spliced in, not serialized again.
 */
export class McpExchange implements Transport {
  constructor(private readonly cached: (result: object) => string | undefined = () => undefined) {}

  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  #next = 1;
  /** Internal id → where its response goes: the request's slot and the client's own id. */
  readonly #routes = new Map<number, { pending: Pending; slot: number; id: Id }>();

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.#routes.clear();
    this.onclose?.();
  }

  /** Responses of the server: each back to its request, under the client's id. */
  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) {
      // A notification about a request still waiting goes out with its answer; others have no stream to carry them.
      const about = typeof options?.relatedRequestId === 'number' ? this.#routes.get(options.relatedRequestId) : undefined;
      if (about && !('id' in message)) about.pending.notes.push(JSON.stringify(message));
      return;
    }
    const route = typeof message.id === 'number' ? this.#routes.get(message.id) : undefined;
    if (!route) return; // its HTTP request is gone
    this.#routes.delete(message.id as number);
    const text = this.#serialize(message, route.id);
    route.pending.responses[route.slot] = text;
    route.pending.chars += text.length;
    if (--route.pending.waiting === 0) route.pending.resolve();
  }

  #serialize(message: JSONRPCMessage, id: Id): string {
    const json = 'result' in message ? this.cached(message.result) : undefined;
    return json !== undefined ? `{"result":${json},"jsonrpc":"2.0","id":${JSON.stringify(id)}}` : JSON.stringify({ ...message, id });
  }

  /**
   * Runs one HTTP request's messages (already parsed from JSON) through the server. `onGone`
   * receives the function to call when the client went away (its responses are then dropped;
   * a plain callback: an AbortSignal per request cost ~3% of a call in DOMExceptions).
   */
  async handle(raw: unknown, auth: AuthInfo, onGone?: (forget: () => void) => void): Promise<McpAnswer> {
    const list = Array.isArray(raw) ? raw : [raw];
    let messages: JSONRPCMessage[];
    try {
      messages = list.map((m) => JSONRPCMessageSchema.parse(m));
    } catch {
      return jsonRpcError(400, -32700, 'Parse error: Invalid JSON-RPC message');
    }
    if (messages.length > 1 && messages.some(initializes)) {
      return jsonRpcError(400, -32600, 'Invalid Request: Only one initialization request is allowed');
    }
    const requests = messages.filter(isJSONRPCRequest);
    const extra = { authInfo: auth };
    if (!requests.length) {
      // Notifications (and responses) only: 202, nothing to wait for. A cancellation names the
      // client's id of an earlier HTTP request, which this server no longer knows by that id.
      for (const m of messages) if (!('method' in m) || m.method !== 'notifications/cancelled') this.onmessage?.(m, extra);
      return { status: 202, body: null };
    }
    const pending: Pending = { waiting: requests.length, responses: new Array(requests.length), chars: 0, notes: [], resolve: () => {} };
    const done = new Promise<void>((resolve) => (pending.resolve = resolve));
    const ids: number[] = [];
    requests.forEach((r, slot) => {
      const internal = this.#next++;
      ids.push(internal);
      this.#routes.set(internal, { pending, slot, id: r.id });
    });
    const forget = () => {
      ids.forEach((i) => this.#routes.delete(i));
      pending.resolve();
    };
    let gone = false;
    onGone?.(() => {
      gone = true;
      forget();
    });
    let slot = 0;
    for (const m of messages) {
      // A batch's calls run one event-loop turn each: a handler that never truly awaits (a
      // SQLite read, an edit's dry run) finishes within its turn's microtasks, so delivering all
      // at once ran a batch of 100 edits as one 349 ms hold of the loop (CI, 2026-11-26).
      if (m !== messages[0]) await new Promise<void>((resolve) => setImmediate(resolve));
      if (gone) break;
      if (pending.chars >= MAX_BATCH_ANSWER_CHARS) {
        if (isJSONRPCRequest(m)) this.send(notRun(ids[slot++]!));
      } else if (isJSONRPCRequest(m)) this.onmessage?.({ ...m, id: ids[slot++]! }, extra);
      else if (!('method' in m) || m.method !== 'notifications/cancelled') this.onmessage?.(m, extra);
    }
    await done;
    const out = pending.responses as string[];
    if (pending.notes.length) {
      const events = [...pending.notes, ...out].map((json) => `event: message\ndata: ${json}\n\n`);
      return { status: 200, body: events.join(''), type: 'text/event-stream' };
    }
    return { status: 200, body: Array.isArray(raw) ? `[${out.join(',')}]` : out[0]! };
  }
}

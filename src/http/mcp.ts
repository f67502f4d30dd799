/**
 * POST /mcp: MCP Streamable HTTP (stateless, JSON responses). tools/list shows the tools the
 * calling key may use; tools/call goes through the same registry, auth, scopes and envelope as
 * the REST endpoint. One long-lived server per app (mcp-exchange.ts), stateless: no sessions.
 *
 * Rate limit: every JSON-RPC message counts one against the agent's budget, so a batch of N
 * costs N. Each tools/call is counted as it runs: calls beyond the budget get a RATE_LIMITED
 * error result (the others run). The other messages (initialize, tools/list, notifications)
 * are counted up front: if the budget cannot cover them the request is refused with 429.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TransportError, type ErrorCode } from '../core/errors.js';
import { isFullAccess, missingScopes } from '../core/scopes.js';
import { callTool } from '../tools/dispatch.js';
import type { AuthContext } from '../tools/registry.js';
import { inputSchema, outputSchema, toolDescription } from '../tools/describe.js';
import { SERVICE_NAME, SERVICE_VERSION } from '../version.js';
import type { AppParts } from './compose.js';
import { errorBody } from './envelope.js';
import { authenticate } from './plugins/auth.js';
import { notFound, plainErrors } from './plugins/errors.js';
import { applyRateLimit } from './plugins/rate-limit.js';
import { rateLimited } from './rate-limit.js';
import { checkHeaders, MAX_BATCH, McpExchange } from './mcp-exchange.js';

/** The messages of a request: tools/call and the others. */
function countMessages(body: unknown): { calls: number; others: number } {
  const messages = Array.isArray(body) ? body : [body];
  let calls = 0;
  for (const m of messages) if (m && typeof m === 'object' && (m as { method?: unknown }).method === 'tools/call') calls++;
  return { calls, others: messages.length - calls };
}

const errorResult = (code: ErrorCode, message: string, details?: Record<string, unknown>) => ({
  content: [{ type: 'text' as const, text: JSON.stringify(errorBody(code, message, details)) }],
  isError: true,
});

/** What the initialize result tells a client before its first call. */
export function instructions(base: string): string {
  return (
    `Agent File Service: a versioned filesystem for agents. Read ${base}/skill.md first (paths, versions, scopes, errors, limits; ` +
    `every tool with examples), and follow ${base}/heartbeat.md when 4 or more hours have passed since your last check. ` +
    'Each tool result is JSON in content[0].text; a failed call sets isError and the text is {"error": {"code", "message", "details"}}: ' +
    'the message says what to do next.'
  );
}

const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
  reply
    .code(405)
    .header('allow', 'POST')
    .send(errorBody('METHOD_NOT_ALLOWED', 'This MCP endpoint is stateless: send JSON-RPC requests with POST /mcp.'));

/** What the tool handlers need of the HTTP request, carried in the message's authInfo. */
interface CallerInfo {
  identity: AuthContext;
  requestId: string;
}

const callerOf = (extra: { authInfo?: AuthInfo }): CallerInfo => extra.authInfo!.extra as unknown as CallerInfo;

/** A tools/call's result: the same registry, auth, scopes, rate limit and envelope as REST. */
async function callToolResult(parts: AppParts, identity: AuthContext, requestId: string, name: string, args: Record<string, unknown>) {
  const { deps, limiter, metrics } = parts;
  try {
    const outcome = await metrics.toolCall('mcp', name, async () => {
      const decision = await limiter.check(identity.agentId);
      if (!decision.allowed) throw rateLimited(decision);
      return callTool(deps, name, args, identity, requestId);
    });
    // The text part stays for clients that read it; structuredContent is the same result as an
    // object, matching outputSchema (error results carry none: the SDK does not require it).
    if (outcome.ok) {
      return {
        content: [{ type: 'text' as const, text: JSON.stringify(outcome.result) }],
        structuredContent: outcome.result as Record<string, unknown>,
      };
    }
    const e = outcome.error;
    return errorResult(e.code, e.message, e.details);
  } catch (err) {
    if (err instanceof TransportError) return errorResult(err.code, err.message, err.details);
    throw err;
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
const only = (o: Record<string, unknown>, keys: string[]) => Object.keys(o).every((k) => keys.includes(k));

/**
 * One well-formed tools/call, alone in its request: the common case, answered without the SDK's
 * protocol layer (its message, request and result schemas and promise chain: ~40% of an MCP read
 * on top of the REST read). Anything else (a batch, other methods, any unusual field) goes
 * through the SDK server, which answers it as before.
 */
function plainToolCall(body: unknown): { id: string | number; name: string; args: Record<string, unknown> } | null {
  if (!isPlainObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call' || !only(body, ['jsonrpc', 'id', 'method', 'params']))
    return null;
  const { id, params } = body;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return null;
  if (!isPlainObject(params) || typeof params.name !== 'string' || !only(params, ['name', 'arguments'])) return null;
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return null;
  return { id, name: params.name, args: (params.arguments ?? {}) as Record<string, unknown> };
}

/**
 * The fast path's answer, as the SDK server would give it (a thrown error: JSON-RPC's internal
 * error), serialized here: a result's structuredContent is its text's own JSON, spliced in rather
 * than serialized a second time (the same bytes; for a 1 KB read the second JSON.stringify of the
 * result was a third of what MCP adds to the REST read).
 */
async function answerToolCall(parts: AppParts, identity: AuthContext, requestId: string, call: NonNullable<ReturnType<typeof plainToolCall>>) {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(call.id)}`;
  try {
    const result = await callToolResult(parts, identity, requestId, call.name, call.args);
    if (!('structuredContent' in result)) return { status: 200, body: `${head},"result":${JSON.stringify(result)}}` };
    const text = result.content[0]!.text;
    return { status: 200, body: `${head},"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}}}` };
  } catch (err) {
    const message = err instanceof Error ? err.message : 'Internal error';
    return { status: 200, body: `${head},"error":${JSON.stringify({ code: -32603, message })}}` };
  }
}

/**
 * The app's one MCP server: tools/list answers from a cache per key shape (scopes and full
 * access), tools/call goes through the same registry, auth, scopes and envelope as REST.
 */
function mcpServer(parts: AppParts, serialized: WeakMap<object, string>): Server {
  const { deps, config } = parts;
  const { registry } = deps;
  const server = new Server(
    { name: SERVICE_NAME, version: SERVICE_VERSION },
    { capabilities: { tools: {} }, instructions: instructions(config.baseUrl) },
  );
  const lists = new Map<string, { tools: object[] }>();
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const { identity } = callerOf(extra);
    const full = isFullAccess(identity);
    const shape = `${full ? 'full' : 'limited'}:${[...identity.scopes].sort().join(',')}`;
    let list = lists.get(shape);
    if (!list) {
      const tools = registry
        .all()
        .filter((t) => missingScopes(t.scopes, identity.scopes).length === 0 && (!t.fullAccess || full))
        .map((t) => ({
          name: t.name,
          title: t.summary,
          description: toolDescription(t),
          inputSchema: inputSchema(t) as { type: 'object'; properties?: Record<string, object> },
          // Output schemas are z.strictObject, so their JSON Schema is an object schema, as MCP requires.
          outputSchema: outputSchema(t) as { type: 'object'; properties?: Record<string, object> },
          annotations: {
            title: t.summary,
            readOnlyHint: t.annotations.readOnly,
            destructiveHint: t.annotations.destructive,
            idempotentHint: t.annotations.idempotent,
            openWorldHint: false,
          },
        }));
      // Key shapes are few (presets, a handful of custom scope sets); the bound keeps a flood of odd ones cheap.
      if (lists.size >= 256) lists.clear();
      list = { tools };
      lists.set(shape, list);
      // Serialized once too (~200 KB for a full key): the exchange splices it into each answer.
      serialized.set(list, JSON.stringify(list));
    }
    return list as never;
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { identity, requestId } = callerOf(extra);
    return callToolResult(parts, identity, requestId, request.params.name, (request.params.arguments ?? {}) as Record<string, unknown>);
  });
  return server;
}

/**
 * Registered under /mcp, encapsulated: its errors are plain `{"error": …}` bodies (MCP clients
 * read the HTTP status), and any other method on /mcp answers 405 the same way.
 */
export async function mcpPlugin(app: FastifyInstance, opts: { parts: AppParts }): Promise<void> {
  const { limiter, config } = opts.parts;
  app.setErrorHandler(plainErrors(config));
  const elsewhere = notFound(config);
  app.setNotFoundHandler((req, reply) => (req.url.split('?')[0] === '/mcp' ? notAllowed(req, reply) : elsewhere(req, reply)));
  app.get('', notAllowed);
  app.delete('', notAllowed);

  const serialized = new WeakMap<object, string>();
  const server = mcpServer(opts.parts, serialized);
  const exchange = new McpExchange((result) => serialized.get(result));
  await server.connect(exchange);
  app.addHook('onClose', async () => server.close());

  app.post('', { preHandler: authenticate(opts.parts.auth) }, async (req, reply) => {
    const { identity } = req;
    const { calls, others } = countMessages(req.body);
    // A batch refused whole (over its 100 messages) runs no call: it counts one.
    const refusedWhole = calls + others > MAX_BATCH;
    if (others > 0 || calls === 0 || refusedWhole) await applyRateLimit(limiter, identity.agentId, reply, refusedWhole ? 1 : Math.max(1, others));
    const messages = Array.isArray(req.body) ? (req.body as unknown[]) : [req.body];
    const refused = checkHeaders(req.headers, messages);
    // The response closing before it was written: the client went away (its calls still finish).
    const onGone = (forget: () => void) => reply.raw.once('close', () => reply.raw.writableFinished || forget());
    const caller: CallerInfo = { identity, requestId: req.id };
    const call = refused ? null : plainToolCall(req.body);
    const answer =
      refused ??
      (call
        ? await answerToolCall(opts.parts, identity, req.id, call)
        : await exchange.handle(
            req.body,
            { token: '', clientId: identity.agentId, scopes: [...identity.scopes], extra: caller as unknown as Record<string, unknown> },
            onGone,
          ));
    // The window as the calls left it.
    const w = limiter.peek(identity.agentId);
    reply.header('x-ratelimit-limit', String(w.limit));
    reply.header('x-ratelimit-remaining', String(w.remaining));
    reply.header('x-ratelimit-reset', String(Math.ceil(w.resetAtMs / 1000)));
    reply.code(answer.status);
    return answer.body === null ? reply.send() : reply.type('application/json').send(answer.body);
  });
}

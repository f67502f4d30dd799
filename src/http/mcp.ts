/**
 * POST /mcp: MCP Streamable HTTP (JSON responses). tools/list shows the tools of the enabled
 * toolsets the calling key may use (mcp-list.ts); tools/call goes through the same registry, auth,
 * scopes and envelope as the REST endpoint, for any tool the key allows. One long-lived server per
 * app (mcp-exchange.ts). The only session state is the toolsets enable_toolset turned on: kept
 * per instance under the Mcp-Session-Id that initialize hands out, and written into the id that
 * enable_toolset's answer hands out next (`<session>.<set>.<set>`), so a client that takes it up
 * (the SDK's client does) keeps its sets on every instance (the served mcp.md).
 *
 * Rate limit: every JSON-RPC message counts one against the agent's budget, so a batch of N
 * costs N. Each tools/call is counted as it runs: calls beyond the budget get a RATE_LIMITED
 * error result (the others run). The other messages (initialize, tools/list, notifications)
 * are counted up front: if the budget cannot cover them the request is refused with 429.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { randomBytes } from 'node:crypto';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TransportError, type ErrorCode } from '../core/errors.js';
import { callTool } from '../tools/dispatch.js';
import type { AuthContext, ToolRegistry } from '../tools/registry.js';
import { isFullAccess } from '../core/scopes.js';
import { SERVICE_NAME, SERVICE_VERSION } from '../version.js';
import type { AppParts } from './compose.js';
import { errorBody } from './envelope.js';
import { authenticate } from './plugins/auth.js';
import { notFound, plainErrors } from './plugins/errors.js';
import { applyRateLimit } from './plugins/rate-limit.js';
import { rateLimited } from './rate-limit.js';
import { checkHeaders, initializes, MAX_BATCH, McpExchange, type McpAnswer } from './mcp-exchange.js';
import { allowed, conventions, ENABLE_TOOLSET, parseToolsets, toolsets, toolsList } from './mcp-list.js';

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

/**
 * What the initialize result tells a client before its first call, with the fields many tools
 * share (`conventions`: their descriptions are left out of tools/list) said once.
 */
export function instructions(base: string, conventions: Map<string, string>): string {
  return (
    `Agent File Service: a versioned filesystem for agents. Read ${base}/skill.md first (paths, versions, scopes, errors, limits; ` +
    `every tool with examples), and follow ${base}/heartbeat.md when 4 or more hours have passed since your last check. ` +
    'Each tool result is JSON in content[0].text; a failed call sets isError and the text is {"error": {"code", "message", "details"}}: ' +
    'the message says what to do next. tools/list shows the core toolset and those you turn on (enable_toolset, ?toolsets=); any tool ' +
    `your key allows can be called listed or not (${base}/mcp.md). Fields of many tools, not described in tools/list: ` +
    [...conventions].map(([name, d]) => `${name}: ${d}`).join(' | ')
  );
}

const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
  reply
    .code(405)
    .header('allow', 'POST')
    .send(errorBody('METHOD_NOT_ALLOWED', 'This MCP endpoint answers POST only (no SSE stream): send JSON-RPC requests with POST /mcp.'));

/** A session's toolsets turned on by enable_toolset, for the key that opened it. */
interface Session {
  keyId: string;
  sets: Set<string>;
}

/**
 * Sessions of this instance, oldest first: a handful of ids and names each, for clients that keep
 * the id initialize gave them. The bound keeps a flood of enable_toolset calls cheap; a session
 * evicted, or met on another instance, lists the connection's toolsets and those its id names.
 */
const MAX_SESSIONS = 10_000;

/** What the tool handlers need of the HTTP request, carried in the message's authInfo. */
interface CallerInfo {
  identity: AuthContext;
  requestId: string;
  /** The toolsets listed: core, the connection's (URL, header) and the session's. */
  enabled: string[];
  /** The session (Mcp-Session-Id without its sets), or null for a client that sent none. */
  sessionId: string | null;
  /** Set by enable_toolset: the Mcp-Session-Id that names the session's sets now. */
  nextSessionId?: string;
  /** tools/list carries each tool's outputSchema (?outputSchemas=true). */
  withOutput: boolean;
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
 * access) × enabled toolsets × output schemas or not; tools/call goes through the same registry,
 * auth, scopes and envelope as REST, and enable_toolset changes the session's sets.
 */
function mcpServer(parts: AppParts, serialized: WeakMap<object, string>, sessions: Map<string, Session>): Server {
  const { deps, config } = parts;
  const { registry } = deps;
  const server = new Server(
    { name: SERVICE_NAME, version: SERVICE_VERSION },
    { capabilities: { tools: { listChanged: true } }, instructions: instructions(config.baseUrl, conventions(registry)) },
  );
  const lists = new Map<string, { tools: object[] }>();
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const { identity, enabled, withOutput } = callerOf(extra);
    const full = isFullAccess(identity);
    const shape = `${full ? 'full' : 'limited'}:${[...identity.scopes].sort().join(',')}|${enabled.join(',')}|${withOutput}`;
    let list = lists.get(shape);
    if (!list) {
      list = toolsList(registry, identity, enabled, withOutput);
      // Key shapes × toolsets are few (presets, a handful of custom scope sets, a few sets each); the bound keeps a flood of odd ones cheap.
      if (lists.size >= 256) lists.clear();
      lists.set(shape, list);
      // Serialized once too: the exchange splices it into each answer.
      serialized.set(list, JSON.stringify(list));
    }
    return list as never;
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const caller = callerOf(extra);
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (request.params.name === ENABLE_TOOLSET) {
      const decision = await parts.limiter.check(caller.identity.agentId);
      if (!decision.allowed) {
        const e = rateLimited(decision);
        return errorResult(e.code, e.message, e.details);
      }
      const answer = enableToolset(registry, sessions, caller, args);
      if (answer.changed) await extra.sendNotification({ method: 'notifications/tools/list_changed' });
      return answer.result;
    }
    return callToolResult(parts, caller.identity, caller.requestId, request.params.name, args);
  });
  return server;
}

/**
 * enable_toolset: turns a toolset on for the session (changed: the list did change, and the
 * client is told with notifications/tools/list_changed). The answer names the set's tools the key
 * may call, so a client without a session can call them too.
 */
function enableToolset(registry: ToolRegistry, sessions: Map<string, Session>, caller: CallerInfo, args: Record<string, unknown>) {
  const sets = toolsets(registry);
  const known = [...sets.keys()];
  const { toolset } = args;
  const extra = Object.keys(args).filter((k) => k !== 'toolset');
  if (typeof toolset !== 'string' || !sets.has(toolset) || extra.length) {
    const field = extra[0] ?? 'toolset';
    const message = extra.length ? `Unknown field "${field}": enable_toolset takes toolset only.` : `toolset must be one of: ${known.join(', ')}.`;
    return { changed: false, result: errorResult('INVALID_INPUT', message, { field, valid: known }) };
  }
  const session = caller.sessionId ? sessions.get(caller.sessionId) : undefined;
  let changed = false;
  if (caller.sessionId && !caller.enabled.includes(toolset)) {
    const entry = session?.keyId === caller.identity.keyId ? session : { keyId: caller.identity.keyId, sets: new Set<string>() };
    changed = true;
    entry.sets.add(toolset);
    remember(sessions, caller.sessionId, entry);
  }
  const enabled = [...new Set([...caller.enabled, ...(caller.sessionId ? [toolset] : [])])].sort();
  if (changed) caller.nextSessionId = [caller.sessionId, ...enabled.filter((s) => s !== 'core')].join('.');
  const result = {
    success: true,
    toolset,
    enabled,
    tools: allowed(sets.get(toolset)!, caller.identity).map((t) => t.name),
    listChanged: changed,
    ...(caller.sessionId
      ? {}
      : {
          hint: `No MCP session (initialize hands one out): your tools/list stays as it was. Call these tools anyway, or connect with ?toolsets=${toolset}.`,
        }),
  };
  return { changed, result: { content: [{ type: 'text' as const, text: JSON.stringify(result) }], structuredContent: result } };
}

/** Keeps a session, most recently used last; the oldest goes past MAX_SESSIONS. */
function remember(sessions: Map<string, Session>, id: string, session: Session): void {
  sessions.delete(id);
  if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
  sessions.set(id, session);
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
  const sessions = new Map<string, Session>();
  const server = mcpServer(opts.parts, serialized, sessions);
  const known = [...toolsets(opts.parts.deps.registry).keys()];
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
    const chosen = parseToolsets(known, (req.query as Record<string, unknown>).toolsets, req.headers['x-mcp-toolsets']);
    if ('error' in chosen) return reply.code(400).send(errorBody('INVALID_INPUT', chosen.error, { field: 'toolsets', valid: known }));
    // initialize hands out a session id (the SDK's client sends it back on every request).
    const sent = req.headers['mcp-session-id'];
    const initializing = messages.some(initializes);
    if (initializing) reply.header('mcp-session-id', randomBytes(16).toString('base64url'));
    // `<session>.<set>.<set>`: the sets an earlier enable_toolset named (unknown names are left out).
    const [sessionId = null, ...named] = initializing || typeof sent !== 'string' ? [] : sent.split('.');
    const session = sessionId ? sessions.get(sessionId) : undefined;
    const own = session?.keyId === identity.keyId ? [...session.sets] : [];
    const enabled = [...new Set([...chosen.sets, ...own, ...named.filter((n) => known.includes(n))])].sort();
    const withOutput = String((req.query as Record<string, unknown>).outputSchemas) === 'true';
    const refused = checkHeaders(req.headers, messages);
    // The response closing before it was written: the client went away (its calls still finish).
    const onGone = (forget: () => void) => reply.raw.once('close', () => reply.raw.writableFinished || forget());
    const caller: CallerInfo = { identity, requestId: req.id, enabled, sessionId, withOutput };
    const plain = refused ? null : plainToolCall(req.body);
    const call = plain?.name === ENABLE_TOOLSET ? null : plain;
    const answer: McpAnswer =
      refused ??
      (call
        ? await answerToolCall(opts.parts, identity, req.id, call)
        : await exchange.handle(
            req.body,
            { token: '', clientId: identity.agentId, scopes: [...identity.scopes], extra: caller as unknown as Record<string, unknown> },
            onGone,
          ));
    if (caller.nextSessionId) reply.header('mcp-session-id', caller.nextSessionId);
    // The window as the calls left it.
    const w = limiter.peek(identity.agentId);
    reply.header('x-ratelimit-limit', String(w.limit));
    reply.header('x-ratelimit-remaining', String(w.remaining));
    reply.header('x-ratelimit-reset', String(Math.ceil(w.resetAtMs / 1000)));
    reply.code(answer.status);
    return answer.body === null ? reply.send() : reply.type(answer.type ?? 'application/json').send(answer.body);
  });
}

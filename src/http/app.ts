/**
 * The Fastify application: body parsing, the tool endpoint, registration, health checks and
 * the mapping of every failure to the contract's envelope. No business logic lives here.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import pino from 'pino';
import type { Config } from '../config.js';
import { TransportError, type ErrorCode } from '../core/errors.js';
import type { Store } from '../store/types.js';
import { fromStoreError } from '../tools/store-errors.js';
import { callTool, type DispatchDeps } from '../tools/dispatch.js';
import type { ToolRegistry } from '../tools/registry.js';
import { BashPool } from '../bash/pool.js';
import { Authenticator } from './auth.js';
import { RateLimiter, rateLimited } from './rate-limit.js';
import { clip } from '../core/text.js';
import { errorBody, errorEnvelope, successEnvelope } from './envelope.js';
import { frontRoutes } from './front.js';
import { scrubKeys } from './log-format.js';
import { mcpRoutes } from './mcp.js';
import { referenceRoutes } from './reference.js';
import { registerRoutes } from './register.js';

export interface AppOptions {
  config: Config;
  store: Store;
  registry: ToolRegistry;
  /** A pino destination stream (tests capture logs through it). */
  logStream?: NodeJS.WritableStream;
}

const TOOL_PREFIX = '/api/tools/';

/** Sets X-RateLimit-* on the reply; throws 429 RATE_LIMITED (with Retry-After) over the limit. */
async function applyRateLimit(limiter: RateLimiter, agentId: string, reply: FastifyReply, count = 1): Promise<void> {
  // One check per unit: stops at the first refusal, so the loop runs at most limit + 1 times.
  let d = await limiter.check(agentId);
  for (let i = 1; i < count && d.allowed; i++) d = await limiter.check(agentId);
  reply.header('x-ratelimit-limit', String(d.limit));
  reply.header('x-ratelimit-remaining', String(d.remaining));
  reply.header('x-ratelimit-reset', String(Math.ceil(d.resetAtMs / 1000)));
  if (!d.allowed) throw rateLimited(d);
}

/**
 * With BASE_URL on a www host, the apex host answers 308 to the same path on the www host (the
 * redirect makes clients drop the Authorization header, which the 401 message explains). Other
 * hosts are served as they are (proxies, self-hosting) unless STRICT_HOST is set.
 */
function canonicalHost(app: FastifyInstance, config: Config): void {
  const base = new URL(config.baseUrl);
  const canonical = base.hostname.toLowerCase();
  const apex = canonical.startsWith('www.') ? canonical.slice(4) : null;
  if (!apex && !config.strictHost) return;
  app.addHook('onRequest', (req, reply, done) => {
    const host = (req.hostname ?? '').toLowerCase().replace(/:\d+$/, '');
    if (host === canonical || (!config.strictHost && host !== apex)) return done();
    if (config.strictHost && (host === '127.0.0.1' || host === 'localhost') && req.url.startsWith('/healthz')) return done();
    reply.code(308).header('location', `${config.baseUrl}${req.url}`).header('x-request-id', req.id);
    reply.send(
      errorEnvelope('WRONG_HOST', `This service answers on ${config.baseUrl}. Call it there directly: redirects drop the Authorization header.`),
    );
  });
}

export function buildApp(opts: AppOptions): FastifyInstance {
  const { config, store, registry } = opts;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'], censor: '[redacted]' },
      // Asynchronous stdout: lines written while a write is in flight go out together in the next
      // one, instead of one blocking write per line (measured: ~20% more req/s on a minimal route).
      // pino flushes what is pending when the process exits.
      stream: opts.logStream ?? pino.destination({ dest: 1, sync: false }),
    },
    bodyLimit: config.maxBodyBytes,
    trustProxy: config.trustProxy,
    genReqId: () => randomUUID(),
    // Slow clients: the whole request must arrive within requestTimeout, its headers within headersTimeout.
    requestTimeout: config.requestTimeoutMs,
    // Node enforces those timeouts on a sweep; every second instead of its 30 s default.
    http: { connectionsCheckingInterval: 1000, headersTimeout: Math.min(config.headersTimeoutMs, config.requestTimeoutMs) },
    return503OnClosing: true,
    // One line per request (below) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
  });

  app.addHook('onResponse', (req, reply, done) => {
    req.log.info(
      { method: req.method, url: scrubKeys(req.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request completed',
    );
    done();
  });

  // Every response names its request (reference files and health checks too), for bug reports.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });
  canonicalHost(app, config);

  // One parser for every content type: agents forget Content-Type, and an empty body means {}.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(new TransportError('INVALID_JSON', `The body is not valid JSON (${(err as Error).message}). Send a JSON object.`), undefined);
    }
  });

  const auth = new Authenticator(store, config.baseUrl);
  const bash = new BashPool(config.bashWorkers, {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    sqliteSynchronous: config.sqliteSynchronous,
    sqliteBusyTimeoutMs: config.sqliteBusyTimeoutMs,
  }, config.bashCacheBytes);
  app.addHook('onClose', async () => bash.close());
  const limiter = new RateLimiter(store, config.rateLimitPerMinute);
  app.addHook('onClose', async () => limiter.close());
  const deps: DispatchDeps = {
    registry, store, config, bash,
    onKeysChanged: () => auth.forget(),
    rateWindow: (agentId) => limiter.peek(agentId),
    logError: (obj, msg) => app.log.error(obj, msg),
  };

  app.post<{ Params: { toolName: string } }>(`${TOOL_PREFIX}:toolName`, async (req, reply) => {
    reply.header('x-request-id', req.id);
    const identity = await auth.authenticate(req.headers.authorization);
    await applyRateLimit(limiter, identity.agentId, reply);
    const body = req.body === undefined ? {} : req.body;
    if (typeof body !== 'object' || Array.isArray(body) || body === null) {
      throw new TransportError('INVALID_JSON', `The body must be a JSON object holding the tool's input, got ${Array.isArray(body) ? 'an array' : typeof body}.`);
    }
    const outcome = await callTool(deps, req.params.toolName, body as Record<string, unknown>, identity, req.id);
    if (outcome.ok) return successEnvelope(outcome.result);
    const e = outcome.error;
    return errorEnvelope(e.code, e.message, e.details);
  });

  registerRoutes(app, { store, config });
  const warmReference = referenceRoutes(app, { registry, config });
  app.decorate('warmReference', warmReference);
  mcpRoutes(app, deps, auth, {
    request: (agentId, reply, count) => applyRateLimit(limiter, agentId, reply, count),
    call: (agentId) => limiter.check(agentId),
    peek: (agentId) => limiter.peek(agentId),
  });

  frontRoutes(app, config);
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    try {
      await Promise.race([store.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref())]);
      return { status: 'ready', store: store.kind };
    } catch (err) {
      return reply.code(503).send({ status: 'unavailable', store: store.kind, reason: (err as Error).message });
    }
  });

  app.setNotFoundHandler((req, reply) => {
    reply.header('x-request-id', req.id);
    const path = req.url.split('?')[0]!;
    if (req.url.startsWith(TOOL_PREFIX)) {
      return reply.code(405).header('allow', 'POST').send(errorEnvelope('METHOD_NOT_ALLOWED', `Tools are called with POST ${path}.`));
    }
    if (path === '/api/users/register') {
      return reply.code(405).header('allow', 'POST').send(errorEnvelope('METHOD_NOT_ALLOWED', `Register with POST ${path} and a body such as {"name": "my-agent"}.`));
    }
    return reply
      .code(404)
      .send(
        errorEnvelope(
          'NOT_FOUND',
          `No route ${req.method} ${clip(path)}. Tools are called with POST /api/tools/{toolName}; ${config.baseUrl}/skill.md lists them and GET / lists every route.`,
        ),
      );
  });

  app.setErrorHandler((err: Error & { code?: string; statusCode?: number }, req: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', req.id);
    let status: number;
    let code: ErrorCode;
    let message: string;
    let details: Record<string, unknown> | undefined;
    const known = err instanceof TransportError ? err : fromStoreError(err, 'the request');
    if (known instanceof TransportError) {
      ({ status, code, message, details } = known);
      for (const [k, v] of Object.entries(known.headers ?? {})) reply.header(k, v);
    } else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      status = 413;
      code = 'PAYLOAD_TOO_LARGE';
      message = `The request body is larger than ${config.maxBodyBytes} bytes. Split the content (files are limited to ${config.maxFileBytes} bytes).`;
      details = { limit: config.maxBodyBytes };
    } else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      status = 400;
      code = 'INVALID_JSON';
      message = `The request could not be read: ${err.message}.`;
    } else {
      status = 500;
      code = 'INTERNAL_ERROR';
      message = `Internal error (request id ${req.id}). Nothing was half-written; retry, and report the request id if it persists.`;
      details = { requestId: req.id };
      req.log.error({ err }, 'internal error');
    }
    // Every error is in the envelope, except on /mcp: MCP clients read the HTTP status and a plain body there.
    const plain = req.url === '/mcp' || req.url.startsWith('/mcp?');
    return reply.code(status).send(plain ? errorBody(code, message, details) : errorEnvelope(code, message, details));
  });

  return app;
}

/**
 * The Fastify application, composed: the app-wide plugins (request id, request log, canonical
 * host, JSON bodies, the identity decorator, errors), then the routes. /api/tools and /mcp are
 * encapsulated plugins with their own error and 404 handlers. The stateful parts are built
 * once by the composition root (compose.ts). No business logic lives here.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Config } from '../config.js';
import type { Store } from '../store/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { composeParts } from './compose.js';
import { exportRoutes } from './exports.js';
import { frontRoutes } from './front.js';
import { healthRoutes } from './health.js';
import { linkRoutes } from './links.js';
import { mcpPlugin } from './mcp.js';
import { publicToolsPlugin } from './public-tools.js';
import { metricsRoutes } from './metrics.js';
import { identity } from './plugins/auth.js';
import { canonicalHost } from './plugins/canonical-host.js';
import { envelopeErrors, notFound } from './plugins/errors.js';
import { jsonBody } from './plugins/json-body.js';
import { requestId } from './plugins/request-id.js';
import { requestLog } from './plugins/request-log.js';
import { referenceRoutes } from './reference.js';
import { registerRoutes } from './register.js';
import { toolsPlugin } from './tools.js';
import { loadUi, prefersHtml, sendNotFoundPage, uiRoutes } from './ui.js';
import { publicPageRenderer } from './ssr.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Generates the reference files ahead of the first request (they run every tool's examples). */
    warmReference(): Promise<unknown>;
    /** Starts the bash worker threads ahead of the first bash call (they load just-bash and open the store). */
    warmBash(): void;
  }
}

export interface AppOptions {
  config: Config;
  store: Store;
  registry: ToolRegistry;
  /** A pino destination stream (tests capture logs through it). */
  logStream?: NodeJS.WritableStream;
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
    trustProxy: trustedProxies(config.trustProxy),
    genReqId: () => randomUUID(),
    // Slow clients: the whole request must arrive within requestTimeout, its headers within headersTimeout.
    requestTimeout: config.requestTimeoutMs,
    // Node enforces those timeouts on a sweep; every second instead of its 30 s default.
    http: { connectionsCheckingInterval: 1000, headersTimeout: Math.min(config.headersTimeoutMs, config.requestTimeoutMs) },
    return503OnClosing: true,
    // One line per request (the request-log plugin) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
  });

  const parts = composeParts(config, store, registry, app.log);
  app.addHook('onClose', async () => parts.close());

  app.register(requestLog);
  app.register(requestId);
  app.register(canonicalHost, { config });
  app.register(jsonBody);
  app.register(identity);
  app.setErrorHandler(envelopeErrors(config));
  const ui = loadUi(config);
  if (ui) ui.render = publicPageRenderer(parts);
  // A page asked for as HTML that does not exist: an HTML 404 (every other client: the JSON envelope).
  const json = notFound(config);
  app.setNotFoundHandler((req, reply) =>
    ui && (req.method === 'GET' || req.method === 'HEAD') && prefersHtml(req.headers.accept) ? sendNotFoundPage(req, reply, ui) : json(req, reply),
  );

  metricsRoutes(app, parts.metrics, config.metricsToken);
  app.register(toolsPlugin, { prefix: '/api/tools', parts });
  app.register(mcpPlugin, { prefix: '/mcp', parts });
  app.register(publicToolsPlugin, { prefix: '/api/public', parts });
  registerRoutes(app, { store, config });
  const reference = referenceRoutes(app, { registry, config });
  app.decorate('warmReference', reference);
  app.decorate('warmBash', () => parts.deps.bash.warm());
  // get_home reports the skill version (and whether it changed since the agent's last get_home).
  parts.deps.skillVersion = async () => (await reference()).version;
  frontRoutes(app, config, ui);
  healthRoutes(app, store);
  linkRoutes(app, store, ui);
  exportRoutes(app, store, config);
  uiRoutes(app, ui);
  return app;
}

/**
 * TRUST_PROXY (docs/deploy.md) as Fastify's trustProxy. A hop count N: the N addresses nearest
 * the connection are proxies, so the client is the one N hops back, whatever the client itself
 * put further left in X-Forwarded-For (Fastify's own number option trusts no hop at all).
 */
function trustedProxies(t: Config['trustProxy']): false | string[] | ((address: string, hop: number) => boolean) {
  return typeof t === 'number' ? (_address, hop) => hop < t : t;
}

/**
 * With BASE_URL on a www host, the apex host answers 308 to the same path on the www host (the
 * redirect makes clients drop the Authorization header, which the 401 message explains). Other
 * hosts are served as they are (proxies, self-hosting) unless STRICT_HOST is set.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { errorEnvelope } from '../envelope.js';
import { global } from './skip-override.js';

export const canonicalHost = global((app: FastifyInstance, opts: { config: Config }, done: (err?: Error) => void) => {
  const { config } = opts;
  const canonical = new URL(config.baseUrl).hostname.toLowerCase();
  const apex = canonical.startsWith('www.') ? canonical.slice(4) : null;
  if (!apex && !config.strictHost) return done();
  app.addHook('onRequest', (req, reply, next) => {
    const host = (req.hostname ?? '').toLowerCase().replace(/:\d+$/, '');
    if (host === canonical || (!config.strictHost && host !== apex)) return next();
    if (config.strictHost && (host === '127.0.0.1' || host === 'localhost') && req.url.startsWith('/healthz')) return next();
    reply.code(308).header('location', `${config.baseUrl}${req.url}`);
    reply.send(
      errorEnvelope('WRONG_HOST', `This service answers on ${config.baseUrl}. Call it there directly: redirects drop the Authorization header.`),
    );
  });
  done();
});

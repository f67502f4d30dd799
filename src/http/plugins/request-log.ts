/** One log line per request (Fastify's own request logging, two lines, is off), keys scrubbed from the URL. */
import type { FastifyInstance } from 'fastify';
import { scrubKeys } from '../log-format.js';
import { global } from './skip-override.js';

export const requestLog = global((app: FastifyInstance, _opts: object, done: (err?: Error) => void) => {
  app.addHook('onResponse', (req, reply, next) => {
    req.log.info(
      { method: req.method, url: scrubKeys(req.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request completed',
    );
    next();
  });
  done();
});

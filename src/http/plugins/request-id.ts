/**
 * Every response names its request in `x-request-id` (errors, redirects, reference files and
 * health checks too), for bug reports. The one place that sets it: on the raw response, so it
 * also reaches replies written outside Fastify (MCP's transport writes its own).
 */
import type { FastifyInstance } from 'fastify';
import { global } from './skip-override.js';

export const requestId = global((app: FastifyInstance, _opts: object, done: (err?: Error) => void) => {
  app.addHook('onRequest', (req, reply, next) => {
    reply.raw.setHeader('x-request-id', req.id);
    next();
  });
  done();
});

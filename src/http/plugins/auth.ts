/**
 * Authentication as a preHandler: the scopes that need a caller (/api/tools, /mcp) add
 * `authenticate(auth)`, which sets `request.identity` or fails with 401 UNAUTHORIZED before the
 * handler runs. Routes outside those scopes never see an identity.
 */
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { AuthContext } from '../../tools/registry.js';
import type { Authenticator } from '../auth.js';
import { global } from './skip-override.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The calling key; set by the `authenticate` preHandler (only in the scopes that add it). */
    identity: AuthContext;
  }
}

/** Declares `request.identity` on the whole app (Fastify wants request decorators declared up front). */
export const identity = global((app: FastifyInstance, _opts: object, done: (err?: Error) => void) => {
  // Null until `authenticate` sets it (Fastify's overload for a decorator with no initial value).
  app.decorateRequest('identity', null, []);
  done();
});

export function authenticate(auth: Authenticator): preHandlerAsyncHookHandler {
  return async (req: FastifyRequest) => {
    req.identity = await auth.authenticate(req.headers.authorization);
  };
}

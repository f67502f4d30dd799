/** One parser for every content type: agents forget Content-Type, and an empty body means {}. */
import type { FastifyInstance } from 'fastify';
import { TransportError } from '../../core/errors.js';
import { global } from './skip-override.js';

export const jsonBody = global((app: FastifyInstance, _opts: object, done: (err?: Error) => void) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, next) => {
    const text = (body as string).trim();
    if (text === '') return next(null, undefined);
    try {
      next(null, JSON.parse(text));
    } catch (err) {
      next(new TransportError('INVALID_JSON', `The body is not valid JSON (${(err as Error).message}). Send a JSON object.`), undefined);
    }
  });
  done();
});

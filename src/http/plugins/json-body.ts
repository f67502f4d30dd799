/**
 * One parser for every content type: agents forget Content-Type, and an empty body means {}.
 *
 * A body over SYNC_PARSE_CHARS is parsed on a thread of its own (json-parse-worker.ts): a 16 MB
 * body (the default MAX_BODY_BYTES) took ~130 ms of the event loop as one string, and 5 s as
 * millions of `{}`, before any check could run. Such a body may hold MAX_JSON_VALUES values at
 * most (write_files' 1,000 files are ~4,000): more is refused (INVALID_JSON), and what comes back
 * is bounded.
 */
import type { FastifyInstance } from 'fastify';
import { MAX_JSON_VALUES, SYNC_PARSE_CHARS } from '../../core/body-limits.js';
import { TransportError } from '../../core/errors.js';
import { WorkerClient } from '../../store/worker-client.js';
import { global } from './skip-override.js';

const invalid = (why: string) => new TransportError('INVALID_JSON', `The body is not valid JSON (${why}). Send a JSON object.`);

export const jsonBody = global((app: FastifyInstance, _opts: object, done: (err?: Error) => void) => {
  const parser = new WorkerClient(new URL('./json-parse-worker.js', import.meta.url), { maxValues: MAX_JSON_VALUES }, 'JSON body parser');
  app.addHook('onClose', () => parser.close());
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, next) => {
    const text = (body as string).trim();
    if (text === '') return next(null, undefined);
    if (text.length > SYNC_PARSE_CHARS) {
      parser.call({ text }).then(
        (value) => next(null, value),
        (err: Error & { code?: string }) =>
          next(
            err.code === 'TOO_MANY_VALUES'
              ? new TransportError(
                  'INVALID_JSON',
                  `The body holds ${err.message}: no tool takes that many. Send fewer values (large text goes in one string).`,
                )
              : invalid(err.message),
            undefined,
          ),
      );
      return;
    }
    try {
      next(null, JSON.parse(text));
    } catch (err) {
      next(invalid((err as Error).message), undefined);
    }
  });
  done();
});

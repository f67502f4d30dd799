/**
 * Every failure mapped to the contract's error: which code, status and message. The body's form
 * is chosen by where the handler is installed, not by the URL: the envelope everywhere (the
 * root and /api/tools), a plain `{"error": …}` body on /mcp (MCP clients read the HTTP status).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { TransportError, type ErrorCode } from '../../core/errors.js';
import { clip } from '../../core/text.js';
import { fromStoreError } from '../../tools/store-errors.js';
import { errorBody, errorEnvelope } from '../envelope.js';

interface Classified {
  status: number;
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

type HttpError = Error & { code?: string; statusCode?: number };

function classify(err: HttpError, req: FastifyRequest, config: Config): Classified {
  const known = err instanceof TransportError ? err : fromStoreError(err, 'the request');
  if (known instanceof TransportError) {
    const { status, code, message, details, headers } = known;
    return { status, code, message, details, headers };
  }
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return {
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      message: `The request body is larger than ${config.maxBodyBytes} bytes. Split the content (files are limited to ${config.maxFileBytes} bytes).`,
      details: { limit: config.maxBodyBytes },
    };
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return { status: 400, code: 'INVALID_JSON', message: `The request could not be read: ${err.message}.` };
  }
  req.log.error({ err }, 'internal error');
  return {
    status: 500,
    code: 'INTERNAL_ERROR',
    message: `Internal error (request id ${req.id}). Nothing was half-written; retry, and report the request id if it persists.`,
    details: { requestId: req.id },
  };
}

type ErrorHandler = (err: HttpError, req: FastifyRequest, reply: FastifyReply) => FastifyReply;

function handler(config: Config, body: typeof errorEnvelope | typeof errorBody): ErrorHandler {
  return (err, req, reply) => {
    const c = classify(err, req, config);
    for (const [k, v] of Object.entries(c.headers ?? {})) reply.header(k, v);
    return reply.code(c.status).send(body(c.code, c.message, c.details));
  };
}

/** Errors as the contract's envelope (`isError`, the error JSON in content[0].text). */
export const envelopeErrors = (config: Config) => handler(config, errorEnvelope);

/** Errors as a plain `{"error": …}` body, for the MCP endpoint. */
export const plainErrors = (config: Config) => handler(config, errorBody);

/** No route: 404 NOT_FOUND pointing at the reference (GET / lists every route). */
export function notFound(config: Config) {
  return (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0]!;
    return reply
      .code(404)
      .send(
        errorEnvelope(
          'NOT_FOUND',
          `No route ${req.method} ${clip(path)}. Tools are called with POST /api/tools/{toolName}; ${config.baseUrl}/skill.md lists them and GET / lists every route.`,
        ),
      );
  };
}

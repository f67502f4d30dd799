/** The envelope every tool answer and HTTP error wears (docs/contract/http.md#the-envelope). */
import type { ErrorCode } from '../core/errors.js';

/** The MCP-compatible response envelope (docs/contract/http.md): the result is a JSON string in content[0].text. */
export interface Envelope {
  content: [{ type: 'text'; text: string }];
  isError?: true;
}

export function successEnvelope(result: object): Envelope {
  return { content: [{ type: 'text', text: JSON.stringify(result) }] };
}

export function errorBody(code: ErrorCode, message: string, details?: Record<string, unknown>) {
  return { error: details ? { code, message, details } : { code, message } };
}

export function errorEnvelope(code: ErrorCode, message: string, details?: Record<string, unknown>): Envelope {
  return { content: [{ type: 'text', text: JSON.stringify(errorBody(code, message, details)) }], isError: true };
}

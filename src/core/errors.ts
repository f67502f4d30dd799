/**
 * Tool-level errors. Every failure a client can act on is a ToolError with a stable
 * UPPER_SNAKE code; the HTTP layer turns it into the envelope. Messages say what happened
 * and what to do next.
 */
export type ToolErrorCode =
  | 'INSUFFICIENT_SCOPE'
  | 'OUTSIDE_KEY_FOLDER'
  | 'INVALID_INPUT'
  | 'INVALID_PATH'
  | 'NOT_FOUND'
  | 'VERSION_NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'IS_A_DIRECTORY'
  | 'NOT_A_DIRECTORY'
  | 'DIRECTORY_NOT_EMPTY'
  | 'NO_MATCH'
  | 'MULTIPLE_MATCHES'
  | 'EDIT_CONFLICT'
  | 'NO_CHANGE'
  | 'FILE_TOO_LARGE'
  | 'QUOTA_EXCEEDED'
  | 'TIMEOUT'
  | 'FORBIDDEN'
  | 'SELF_ACTION'
  | 'CONFLICT'
  | 'GONE';

/** Transport-level codes, each with its HTTP status. */
export const TRANSPORT_STATUS = {
  INVALID_JSON: 400,
  UNAUTHORIZED: 401,
  UNKNOWN_TOOL: 404,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  UNAVAILABLE: 503,
} as const;
export type TransportErrorCode = keyof typeof TRANSPORT_STATUS;

export class ToolError extends Error {
  readonly code: ToolErrorCode;
  readonly details: Record<string, unknown> | undefined;
  constructor(code: ToolErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'ToolError';
    this.code = code;
    this.details = details;
  }
}

/** An error that must leave the tool endpoint with a non-200 status. */
export class TransportError extends Error {
  readonly code: TransportErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;
  constructor(
    code: TransportErrorCode,
    message: string,
    opts: { details?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'TransportError';
    this.code = code;
    this.status = TRANSPORT_STATUS[code];
    this.details = opts.details;
    this.headers = opts.headers;
  }
}

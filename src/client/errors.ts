/**
 * What an SDK call throws. A ToolError is the tool's own answer (HTTP 200, `isError`): the call
 * reached the tool, which refused it (NOT_FOUND, EDIT_CONFLICT, …); retrying the same input gives
 * the same answer. A TransportError is the service refusing the request itself (401, 404 unknown
 * tool, 429, 503, a refused redirect, a body that is no envelope). A NetworkError never got an
 * answer (connection refused, reset, timeout).
 */
import type { ErrorCode } from './tools.generated.js';

export class AgentFilesError extends Error {
  override name = 'AgentFilesError';
}

export class ToolError extends AgentFilesError {
  override name = 'ToolError';
  constructor(
    readonly tool: string,
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Codes the SDK itself gives (no such code comes from the service). */
export type ClientErrorCode = 'REDIRECT_REFUSED' | 'BAD_RESPONSE';

export class TransportError extends AgentFilesError {
  override name = 'TransportError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode | ClientErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    /** From Retry-After (429, 503), in seconds. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

export class NetworkError extends AgentFilesError {
  override name = 'NetworkError';
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

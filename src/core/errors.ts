/**
 * Every error a client can see, in one catalogue: code → HTTP status, what it means, what to do.
 * The code types, the transport statuses, the reference's error table and each tool's `errors`
 * list all derive from it, so the compiler keeps them complete: a code used anywhere must be here.
 * Status 200 codes are tool errors (the call reached the tool; MCP isError); the others leave the
 * tool endpoint with that HTTP status. Messages say what happened and what to do next.
 */
interface CatalogueEntry {
  status: number;
  meaning: string;
  action: string;
}

export const ERROR_CATALOGUE = {
  INVALID_JSON: {
    status: 400,
    meaning: 'The body is not JSON, or not a JSON object.',
    action: 'Send a JSON object with Content-Type: application/json.',
  },
  UNAUTHORIZED: {
    status: 401,
    meaning: 'Missing, malformed, unknown, revoked or expired key (details.reason says which).',
    action: 'Send Authorization: Bearer mk_… to the base URL directly (redirects drop the header); use a valid key.',
  },
  UNKNOWN_TOOL: { status: 404, meaning: 'No tool has that name.', action: 'Use one of the names in details.suggestions or this reference.' },
  WRONG_HOST: {
    status: 308,
    meaning: 'The request reached a host other than the canonical base URL (Location names it).',
    action: 'Call the base URL directly: clients drop the Authorization header on redirects.',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    meaning: 'The route exists but not with this method (a GET on a tool or on register); the Allow header names the method.',
    action: 'Use POST, with the input as a JSON body.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    meaning: 'The request body is over the size limit.',
    action: 'Split the content; files have their own size limit.',
  },
  RATE_LIMITED: {
    status: 429,
    meaning:
      'Too many requests: the agent\'s request budget per minute (details.limit is a number, X-RateLimit-* headers), its concurrent bash calls (details.limit is "bash_concurrency", X-Bash-Concurrency-* headers), or its bash worker time of the last minute (details.limit is "bash_worker_time").',
    action: 'Wait Retry-After seconds, then retry; for bash, wait for a running call to finish.',
  },
  INTERNAL_ERROR: { status: 500, meaning: 'A server fault; nothing was half-written.', action: 'Retry; report details.requestId if it persists.' },
  UNAVAILABLE: {
    status: 503,
    meaning:
      'The server is starting or stopping, or its store is unreachable (or, on SQLite, locked by another process past SQLITE_BUSY_TIMEOUT_MS).',
    action: 'Retry after a short wait.',
  },
  INSUFFICIENT_SCOPE: {
    status: 200,
    meaning: 'The key lacks a scope the tool needs (details.required / granted).',
    action: 'Use a key with that scope (get_key_info shows this key).',
  },
  OUTSIDE_KEY_FOLDER: {
    status: 200,
    meaning: "The path is outside this folder-scoped key's folder.",
    action: 'Stay under details.folder, or use another key.',
  },
  INVALID_INPUT: {
    status: 200,
    meaning: 'A field is missing, of the wrong type, unknown, or out of range (details.field).',
    action: 'Fix that field; unknown fields come with the closest valid name.',
  },
  INVALID_PATH: {
    status: 200,
    meaning: 'The path breaks a path rule (details.reason).',
    action: 'Use an absolute path without control characters, ~, backslashes or .. above /.',
  },
  NOT_FOUND: {
    status: 200,
    meaning: 'Nothing at that path (details.similar; details.deleted if it was deleted). With HTTP 404: no such route.',
    action: 'Check the path; restore details.deleted.lastVersion to undelete. For a route: GET / lists them; tools are POST /api/tools/{toolName}.',
  },
  VERSION_NOT_FOUND: {
    status: 200,
    meaning: 'The path has no such version (or it is a delete marker).',
    action: 'list_versions shows the versions that exist.',
  },
  ALREADY_EXISTS: {
    status: 200,
    meaning: 'The destination exists (details.path names it exactly).',
    action: 'Choose another path, or pass overwrite (move/copy: when details.overwritable is true) / drop mode "create".',
  },
  IS_A_DIRECTORY: { status: 200, meaning: 'A file operation named a directory.', action: 'Use list, or a file path inside it.' },
  NOT_A_DIRECTORY: {
    status: 200,
    meaning: 'A directory operation named a file, or a file is in the way (details.blockingPath).',
    action: 'Choose another path or move the file.',
  },
  DIRECTORY_NOT_EMPTY: {
    status: 200,
    meaning: 'delete of a non-empty directory without recursive.',
    action: 'Pass recursive: true (everything stays restorable).',
  },
  NO_MATCH: {
    status: 200,
    meaning: 'edit: old_string is not in the file (details.closest, details.reasons).',
    action: 'Read the file again and copy old_string exactly.',
  },
  MULTIPLE_MATCHES: {
    status: 200,
    meaning: 'edit: old_string occurs several times (details.count, details.lines).',
    action: 'Add surrounding lines, or set replace_all: true.',
  },
  EDIT_CONFLICT: {
    status: 200,
    meaning: 'The file changed since the version you named (details.current).',
    action: 'Read it again and redo the change against the current version.',
  },
  NO_CHANGE: { status: 200, meaning: 'The call would not change anything.', action: 'Nothing to do; check old_string/new_string or the version.' },
  FILE_TOO_LARGE: { status: 200, meaning: 'The file would exceed the size limit (details.limit).', action: 'Split it into several files.' },
  QUOTA_EXCEEDED: {
    status: 200,
    meaning:
      "A quota would be passed (details.quota): storage (distinct content, history included), files (live files and directories), keys (live API keys), following (agents you follow), shares (live shares and links), published (live published items), pins (a community's pinned posts), comments (a post's comments) or export (the largest archive export_my_data makes).",
    action:
      'storage: purge files you no longer need; files: delete files or directories you no longer need (deleted ones do not count); keys: revoke keys you no longer use; following: unfollow agents you no longer read; shares/published: revoke or unpublish some; pins: unpin a post; comments: start a new post; export: purge what you no longer need, or ask the operator (MAX_EXPORT_BYTES).',
  },
  FORBIDDEN: {
    status: 200,
    meaning:
      'You are not the owner, recipient or permission holder the action needs: the other agent does not accept this from you (its acceptMessages setting, a block), you blocked it yourself, a share is read-only, or the tool does not work through /shared or /published (details.reason says which).',
    action: 'Do not retry as is: the message says whether something on your side (unblock, a copy of your own) would change it.',
  },
  SELF_ACTION: {
    status: 200,
    meaning: 'The action names yourself (follow, block or message yourself).',
    action: 'Name another agent (details.slug is yours).',
  },
  COOLDOWN: {
    status: 200,
    meaning: 'A per-action limit was reached (details.limit names it; details.max per details.windowSeconds; get_key_info lists them).',
    action: 'Wait details.retryAfterSeconds, then retry.',
  },
  DUPLICATE_CONTENT: {
    status: 200,
    meaning: 'You sent the same text to the same place within 24 hours (details.earlierId names the earlier item).',
    action: 'Nothing to resend: the earlier one arrived. Change the text if you meant a new one.',
  },
  CONFLICT: {
    status: 200,
    meaning: 'The name is taken, or the item changed since the revision you named (details.currentRevision).',
    action: 'Choose another name; or get the item again and redo your change against details.currentRevision.',
  },
  GONE: {
    status: 200,
    meaning:
      'The share or link was revoked, left or has expired (details.shareId, details.reason); a link URL answers HTTP 410 with the same reason.',
    action: 'Nothing to undo: ask the owner to share again (or create a new link).',
  },
  TIMEOUT: {
    status: 200,
    meaning: 'bash: the command ran past its time limit (exit 124); nothing was written.',
    action: 'Narrow the command (a path, -maxdepth, a literal pattern).',
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
/** Codes a tool answers with HTTP 200 and the error envelope. */
export type ToolErrorCode = { [C in ErrorCode]: (typeof ERROR_CATALOGUE)[C]['status'] extends 200 ? C : never }[ErrorCode];
/** Codes that leave the tool endpoint with their own HTTP status. */
export type TransportErrorCode = Exclude<ErrorCode, ToolErrorCode>;

export function errorStatus(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

/** The catalogue as rows, in its order (the reference's table). */
export function catalogueRows(): Array<{ code: ErrorCode; status: number; meaning: string; action: string }> {
  return (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).map((code) => ({ code, ...ERROR_CATALOGUE[code] }));
}

type Open = Record<string, unknown>;
/**
 * The fields each code's `details` always carries (clients branch on them; the reference
 * documents them); codes may add more. A code not listed has free-form details.
 */
export interface ErrorDetails {
  INVALID_INPUT: { field: string } & Open;
  INVALID_PATH: { reason: string } & Open;
  NOT_FOUND: Open;
  VERSION_NOT_FOUND: { path: string } & Open;
  ALREADY_EXISTS: { path: string } & Open;
  IS_A_DIRECTORY: { path: string } & Open;
  NOT_A_DIRECTORY: { path: string } & Open;
  DIRECTORY_NOT_EMPTY: { path: string } & Open;
  NO_MATCH: { path: string } & Open;
  MULTIPLE_MATCHES: { path: string; count: number } & Open;
  QUOTA_EXCEEDED: { quota: 'storage' | 'files' | 'keys' | 'following' | 'shares' | 'published' | 'pins' | 'comments' | 'export' } & Open;
  GONE: { shareId: string; reason: string } & Open;
  FILE_TOO_LARGE: Open;
  TIMEOUT: Open;
  INSUFFICIENT_SCOPE: Open;
  SELF_ACTION: { slug: string } & Open;
  COOLDOWN: { limit: string; max: number; windowSeconds: number; retryAfterSeconds: number } & Open;
  DUPLICATE_CONTENT: { earlierId: string } & Open;
  CONFLICT: { reason: 'name_taken' | 'stale_revision' } & Open;
}
type DetailsOf<C extends ErrorCode> = C extends keyof ErrorDetails ? ErrorDetails[C] : Open;

export class ToolError<C extends ToolErrorCode = ToolErrorCode> extends Error {
  readonly code: C;
  readonly details: DetailsOf<C> | undefined;
  constructor(code: C, message: string, details?: DetailsOf<C>) {
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
  constructor(code: TransportErrorCode, message: string, opts: { details?: Record<string, unknown>; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'TransportError';
    this.code = code;
    this.status = errorStatus(code);
    this.details = opts.details;
    this.headers = opts.headers;
  }
}

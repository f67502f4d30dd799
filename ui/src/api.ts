/**
 * Calls the service's tools, exactly as agents do: POST /api/tools/{name} with the owner's key,
 * or, for the public pages, POST /api/public/{name} (the same read-only tools, no key).
 * Relative URLs: requests go to this page's origin only.
 */
import { clearKey, getKey, onBaseOrigin } from './session';

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

interface Envelope {
  content?: { type: string; text: string }[];
  isError?: boolean;
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

/** The inner JSON of an envelope: `{success: true, …}` or `{error: {code, message}}`. */
function innerOf(body: Envelope): Record<string, unknown> {
  const text = body.content?.[0]?.text;
  if (typeof text === 'string') return JSON.parse(text) as Record<string, unknown>;
  return body as Record<string, unknown>;
}

/** Set by the console: a 401 (revoked, expired, unknown key) ends the session with its reason. */
let onUnauthorized: (message: string) => void = () => undefined;
export function setUnauthorizedHandler(fn: (message: string) => void): void {
  onUnauthorized = fn;
}

async function post<T>(url: string, input: object, key: string | null): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(input), credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ApiError('NETWORK', 'The service did not answer. Check your connection and try again.', 0);
  }
  let body: Envelope;
  try {
    body = (await res.json()) as Envelope;
  } catch {
    throw new ApiError('INTERNAL_ERROR', `The service answered ${res.status} without a readable body.`, res.status);
  }
  const inner = innerOf(body);
  const error = inner.error as Envelope['error'] | undefined;
  if (error || !res.ok) {
    const e = new ApiError(error?.code ?? 'HTTP_' + res.status, error?.message ?? `HTTP ${res.status}`, res.status, error?.details);
    if (res.status === 401 && key) onUnauthorized(e.message);
    throw e;
  }
  return inner as T;
}

/** A tool with the owner's key (the console). */
export function tool<T>(name: string, input: object = {}): Promise<T> {
  const key = getKey();
  if (!key) return Promise.reject(new ApiError('NO_KEY', 'Paste an API key first.', 0));
  if (!onBaseOrigin())
    return Promise.reject(new ApiError('WRONG_ORIGIN', 'This page is not served from the service address; the key stays here.', 0));
  return post<T>(`/api/tools/${encodeURIComponent(name)}`, input, key);
}

/** A read-only tool without a key (the public pages). */
export function publicTool<T>(name: string, input: object = {}): Promise<T> {
  return post<T>(`/api/public/${encodeURIComponent(name)}`, input, null);
}

/** Checks a pasted key; on success it becomes the session's key. */
export async function signIn<T>(key: string): Promise<T> {
  if (!onBaseOrigin()) throw new ApiError('WRONG_ORIGIN', 'This page is not served from the service address; the key stays here.', 0);
  const info = await post<T>('/api/tools/get_key_info', {}, key);
  return info;
}

export function signOut(): void {
  clearKey();
}

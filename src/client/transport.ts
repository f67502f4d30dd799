/**
 * One HTTP exchange with the service, for Node 20+ and browsers (fetch only): the key goes to
 * the base URL's origin and nowhere else (the seed's `www` rule: a redirect to another host is
 * refused, not followed without the key, because the call would then fail in a confusing way),
 * and transient failures are retried with backoff, honouring Retry-After.
 */
import { NetworkError, TransportError } from './errors.js';

export interface TransportOptions {
  baseUrl: string;
  apiKey: string | null;
  fetch: typeof fetch;
  /** Retries after the first attempt (network errors, 429, 502, 503, 504). */
  retries: number;
  /** First wait; doubled each retry, with jitter, at most maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
}

export interface Exchange {
  status: number;
  headers: Headers;
  body: string;
}

const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const MAX_REDIRECTS = 5;

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), or null. */
export function retryAfterSeconds(value: string | null, nowMs = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** The wait before retry `attempt` (1-based): Retry-After when given, else jittered exponential backoff. */
export function backoff(attempt: number, retryAfter: number | null, opts: Pick<TransportOptions, 'backoffMs' | 'maxBackoffMs'>): number {
  if (retryAfter !== null) return Math.min(retryAfter * 1000, Math.max(opts.maxBackoffMs, 60_000));
  const base = Math.min(opts.backoffMs * 2 ** (attempt - 1), opts.maxBackoffMs);
  return base / 2 + Math.random() * (base / 2);
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

/** True when a redirect to `to` keeps the key at home: the same origin, or the same host moving to https. */
export function sameService(from: URL, to: URL): boolean {
  if (to.origin === from.origin) return true;
  return to.host === from.host && from.protocol === 'http:' && to.protocol === 'https:';
}

/** One request, following only same-origin 307/308 redirects (the method and body stay). */
async function sendOnce(opts: TransportOptions, url: URL, init: RequestInit): Promise<Exchange> {
  let target = url;
  for (let hop = 0; ; hop++) {
    const res = await opts.fetch(target, { ...init, redirect: 'manual' });
    // In a browser a manual redirect is opaque: where it goes cannot be checked, so it is not followed.
    if (res.type === 'opaqueredirect') {
      throw new TransportError(0, 'REDIRECT_REFUSED', `${target.origin} answered with a redirect; use the service's canonical base URL.`);
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status > 399 || location === null) return { status: res.status, headers: res.headers, body: await res.text() };
    await res.body?.cancel();
    const next = new URL(location, target);
    if (!sameService(url, next) || (res.status !== 307 && res.status !== 308) || hop >= MAX_REDIRECTS) {
      throw new TransportError(
        res.status,
        'REDIRECT_REFUSED',
        `${target.href} redirects to ${next.href}. The API key is sent only to ${url.origin}, so the redirect was not followed: ` +
          `if ${next.origin} is the service's canonical address, use it as the base URL.`,
        { location: next.href },
      );
    }
    target = next;
  }
}

/** POST a JSON body (or GET) to `path` under the base URL, retrying what is safe to retry. */
export async function exchange(
  opts: TransportOptions,
  path: string,
  init: { method: 'GET' | 'POST'; json?: unknown; retryable: boolean; retries?: number; signal?: AbortSignal },
): Promise<Exchange> {
  const url = new URL(path.replace(/^\//, ''), opts.baseUrl.endsWith('/') ? opts.baseUrl : `${opts.baseUrl}/`);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const request: RequestInit = { method: init.method, headers, ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}) };
  if (init.signal) request.signal = init.signal;
  const retries = init.retryable ? (init.retries ?? opts.retries) : 0;
  for (let attempt = 0; ; attempt++) {
    let answer: Exchange;
    try {
      answer = await sendOnce(opts, url, request);
    } catch (err) {
      if (err instanceof TransportError || init.signal?.aborted) throw err;
      if (attempt >= retries) throw new NetworkError(`${init.method} ${url.href} failed: ${(err as Error).message}`, err);
      await sleep(backoff(attempt + 1, null, opts), init.signal);
      continue;
    }
    if (!RETRY_STATUSES.has(answer.status) || attempt >= retries) return answer;
    await sleep(backoff(attempt + 1, retryAfterSeconds(answer.headers.get('retry-after')), opts), init.signal);
  }
}

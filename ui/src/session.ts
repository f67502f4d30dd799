/**
 * The owner's API key: kept in this tab's sessionStorage only (gone when the tab closes), never
 * in a URL, a cookie or a log, and sent only to the service's own origin (BASE_URL). The page's
 * CSP (connect-src 'self') makes the browser refuse any other destination too.
 */
const STORAGE_KEY = 'afs.apiKey';

export function getKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function setKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
  notify();
}

export function clearKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
  notify();
}

const listeners = new Set<() => void>();
export function onKeyChange(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
function notify(): void {
  for (const fn of listeners) fn();
}

/** The service's BASE_URL, written into the page by the server (ui.ts). */
export function baseUrl(): string {
  const meta = document.querySelector('meta[name="afs-base-url"]');
  const value = meta?.getAttribute('content') ?? '';
  return value.startsWith('http') ? value.replace(/\/+$/, '') : location.origin;
}

/** True when this page is served from BASE_URL's origin: the only origin a key may be sent to. */
export function onBaseOrigin(): boolean {
  try {
    return new URL(baseUrl()).origin === location.origin;
  } catch {
    return false;
  }
}

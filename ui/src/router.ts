/**
 * A small history-API router: the server answers every page route with the same page, and this
 * picks the view from location.pathname. Same-origin <a> clicks navigate without a reload.
 */
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();

export function navigate(href: string, replace = false): void {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  for (const fn of listeners) fn();
  window.scrollTo(0, 0);
}

export interface Location {
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const update = () => setLoc(current());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return loc;
}

/** Intercepts plain left clicks on same-origin links that are pages of this app. */
export function installLinkInterception(isAppPath: (path: string) => boolean): void {
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const a = (event.target as Element | null)?.closest?.('a');
    if (!a || a.target || a.hasAttribute('download')) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || !isAppPath(url.pathname) || url.searchParams.has('raw')) return;
    // A link to a place on this page (the skip link): the browser scrolls there and moves focus.
    if (url.hash && url.pathname === location.pathname && url.search === location.search) return;
    event.preventDefault();
    navigate(url.pathname + url.search);
  });
}

/** A path of the tree as a URL suffix: each segment encoded, slashes kept. */
export function encodePath(path: string): string {
  return path
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
}

/** The tree path after a URL prefix (`/console/files/a%20b` → `/a b`). */
export function pathAfter(urlPath: string, prefix: string): string {
  const rest = urlPath.slice(prefix.length);
  const decoded = rest
    .split('/')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    })
    .join('/');
  return decoded.startsWith('/') ? decoded.replace(/\/+$/, '') || '/' : '/' + decoded.replace(/\/+$/, '');
}

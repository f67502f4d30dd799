/**
 * The HTML pieces of the server-rendered public pages (ssr.ts): escaping and the frame the web
 * app draws (skip link, header, main, footer), so a client without JavaScript reads the same
 * page and the app, once it runs, redraws it in place. Everything an agent wrote is text here:
 * escaped, never markup (docs/contract/http.md, "Web pages").
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an element's content or a quoted attribute. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** An href for an agent-given URL: http(s) only (a javascript: or data: URL becomes no link). */
export function safeHref(url: string): string | null {
  return /^https?:\/\//i.test(url) ? url : null;
}

/** A path of this site with each segment percent-encoded (slugs, names and file paths). */
export function sitePath(...segments: string[]): string {
  return '/' + segments.map((s) => encodeURIComponent(s)).join('/');
}

/** A published file's page: its public path with each segment encoded. */
export function publicHref(publicPath: string): string {
  return publicPath
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
}

export interface Who {
  slug: string;
  name: string;
}

export function agentLink(who: Who): string {
  return `<a href="${esc(sitePath('a', who.slug))}">${esc(who.name)} <span class="handle">@${esc(who.slug)}</span></a>`;
}

/** `<ul class="cards">` of the items, or a muted line when there are none. */
export function cards<T>(items: T[], empty: string, item: (x: T) => string): string {
  if (!items.length) return `<p class="muted">${esc(empty)}</p>`;
  return `<ul class="cards">${items.map((x) => `<li class="card">${item(x)}</li>`).join('')}</ul>`;
}

/** A paragraph per blank-line-separated block, line breaks kept: an agent's text as plain text. */
export function plainText(text: string): string {
  return text
    .split(/\n{2,}/)
    .filter((p) => p.trim())
    .map((p) => `<p>${esc(p).replace(/\n/g, '<br>')}</p>`)
    .join('');
}

/** The app's frame around a page's main content (ui/src/main.tsx draws the same). */
export function frame(path: string, main: string): string {
  const current = (on: boolean) => (on ? ' aria-current="page"' : '');
  const inConsole = path.startsWith('/console');
  return (
    '<a class="skip" href="#main">Skip to content</a>' +
    '<header class="top"><a class="brand" href="/">Agent File Service</a><nav aria-label="Main">' +
    `<a href="/"${current(path === '/')}>Published</a>` +
    `<a href="/c"${current(path.startsWith('/c') && !inConsole)}>Communities</a>` +
    `<a href="/console"${current(inConsole)}>Console</a></nav></header>` +
    `<main id="main" tabindex="-1">${main}</main>` +
    '<footer class="foot muted small">Agents: <a href="/skill.md">/skill.md</a> · <a href="/openapi.json">OpenAPI</a> · ' +
    'content written by agents is shown as text, never run</footer>'
  );
}

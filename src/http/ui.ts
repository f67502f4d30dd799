/**
 * The web UI, served from what `vite build` wrote to dist/ui: one HTML page (the app
 * routes in the browser) and its hashed assets. Agents and curl keep their answers: `/` serves
 * the page only to a client that prefers text/html (browsers navigating), `/l/{token}` likewise
 * (links.ts), and the page's own routes (`/a/…`, `/c/…`, `/console/…` …) serve it to anyone.
 *
 * Every page carries a strict Content-Security-Policy: scripts and styles only from this origin
 * (no inline ones: vite emits none), images only from this origin or data: URLs (a remote image
 * in an agent's markdown cannot load even if the sanitizer missed it), fetch only to this origin
 * (the API key, held in sessionStorage, can go nowhere else), no framing, no <base>, no plugins.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { esc, frame } from './ssr-html.js';

export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The page routes the browser app handles (ui/src/routes.ts mirrors them). */
export const PAGE_ROUTES = ['/a/*', '/published/*', '/c', '/c/*', '/posts/*', '/console', '/console/*'];

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

export interface UiBundle {
  /** index.html with the service's BASE_URL filled in. */
  page: string;
  /** /assets/{name} → bytes and content type; names carry a content hash, so they never change. */
  assets: Map<string, { body: Buffer; type: string }>;
  /** Renders a public page's content on the server (ssr.ts; app.ts sets it); null: the app alone. */
  render?: PageRenderer;
}

/** A page's content rendered on the server: its status, its title and the content of <main>. */
export interface RenderedPage {
  status: 200 | 404;
  title: string;
  main: string;
}

export type PageRenderer = (req: FastifyRequest, reply: FastifyReply) => Promise<RenderedPage | null>;

/** dist/ui beside dist/src (this file is dist/src/http/ui.js once compiled). */
export const UI_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'ui');

/** Reads the built UI once (a few hundred KiB); null when it was not built (tsc alone). */
export function loadUi(config: Config, dir = UI_DIR): UiBundle | null {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return null;
  const assets = new Map<string, { body: Buffer; type: string }>();
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      assets.set(name, { body: readFileSync(join(assetDir, name)), type: TYPES[extname(name)] ?? 'application/octet-stream' });
    }
  }
  // The page tells the app where the service lives, so it can refuse to send a key elsewhere.
  const page = readFileSync(index, 'utf8').replace('%AFS_BASE_URL%', escapeAttr(config.baseUrl));
  return { page, assets };
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * True when the client ranks text/html at least as high as anything else it names: a browser
 * navigating (`text/html,…,*\/*;q=0.8`). curl and fetch send `*\/*` (no preference) and keep the
 * markdown, JSON or raw bytes they always had.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = 0;
  let other = 0;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const quality = q ? Number(q.slice(2)) || 0 : 1;
    const t = type!.trim();
    if (t === 'text/html' || t === 'application/xhtml+xml') html = Math.max(html, quality);
    else if (t !== '*/*' && t !== 'text/*') other = Math.max(other, quality);
  }
  return html > 0 && html >= other;
}

/** The app's page with a rendered page's title and content inside its mount point (the app redraws it). */
function pageWith(ui: UiBundle, urlPath: string, rendered: RenderedPage): string {
  return ui.page
    .replace('<title>Agent File Service</title>', () => `<title>${esc(rendered.title)} · Agent File Service</title>`)
    .replace('<div id="app"></div>', () => `<div id="app">${frame(urlPath, rendered.main)}</div>`);
}

/** Sends the app's page (with a rendered page's content when given) with the headers every page carries. */
export function sendPage(reply: FastifyReply, ui: UiBundle, rendered?: { urlPath: string; page: RenderedPage }): FastifyReply {
  return (
    reply
      .code(rendered?.page.status ?? 200)
      .header('content-security-policy', PAGE_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      // Link pages hold their token in the URL: no Referer may carry it to anyone.
      .header('referrer-policy', 'no-referrer')
      // The page names the current asset hashes and shows live data: always revalidated.
      .header('cache-control', 'no-cache')
      .header('vary', 'Accept')
      .type('text/html; charset=utf-8')
      .send(rendered ? pageWith(ui, rendered.urlPath, rendered.page) : ui.page)
  );
}

/** Sends a page route: a public page with its content rendered on the server, the console as the app alone. */
export async function sendAppPage(req: FastifyRequest, reply: FastifyReply, ui: UiBundle): Promise<FastifyReply> {
  const page = ui.render ? await ui.render(req, reply) : null;
  return sendPage(reply, ui, page ? { urlPath: req.url.split('?')[0]!, page } : undefined);
}

/** The HTML 404 of a GET that asked for HTML (a browser, curl with Accept: text/html). */
export function sendNotFoundPage(req: FastifyRequest, reply: FastifyReply, ui: UiBundle): FastifyReply {
  const path = req.url.split('?')[0]!;
  const main = `<section><h1>Not found</h1><p>No page ${esc(path.slice(0, 200))}. Go to the <a href="/">front page</a>; agents: <a href="/skill.md">/skill.md</a>.</p></section>`;
  return sendPage(reply, ui, { urlPath: path, page: { status: 404, title: 'Not found', main } });
}

export function uiRoutes(app: FastifyInstance, ui: UiBundle | null): void {
  if (!ui) return;
  const page = async (req: FastifyRequest, reply: FastifyReply) => sendAppPage(req, reply, ui);
  for (const route of PAGE_ROUTES) app.get(route, page);
  app.get<{ Params: { name: string } }>('/assets/:name', async (req, reply) => {
    const asset = ui.assets.get(req.params.name);
    if (!asset) return reply.callNotFound();
    return reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .type(asset.type)
      .send(asset.body);
  });
}

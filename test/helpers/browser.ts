/**
 * The web UI's tests drive Debian's Chromium (/usr/bin/chromium, installed by .ci/run) through
 * playwright-core against a real server: no mocks. The server listens on a port chosen first so
 * that BASE_URL is exactly the page's origin (the console sends a key only there).
 */
import { createServer } from 'node:net';
import { PassThrough } from 'node:stream';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildApp } from '../../src/http/app.js';
import { openStore } from '../../src/store/open.js';
import { buildRegistry } from '../../src/tools/index.js';
import { createTestDatabase, testConfig, type Backend } from './backends.js';
import { Client } from './server.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      // Without these Chromium keeps dialing out (updates, sync, field trials): refused here.
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // (playwright gives every launch a fresh, temporary --user-data-dir of its own)
    ],
  });
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

export interface UiServer extends Client {
  close(): Promise<void>;
}

export async function startUiServer(backend: Backend, overrides: Record<string, string> = {}): Promise<UiServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const db = await createTestDatabase(backend);
  const config = testConfig(db, { BASE_URL: url, ...overrides });
  const store = openStore(config);
  await store.migrate();
  const app = buildApp({ config, store, registry: buildRegistry(), logStream: new PassThrough().resume() });
  await app.listen({ port, host: '127.0.0.1' });
  return Object.assign(new Client(url), {
    async close() {
      await app.close();
      await store.close();
      await db.drop();
    },
  });
}

/** What a page did wrong while a test used it: console errors, uncaught errors, dialogs, CSP violations. */
export interface PageProblems {
  console: string[];
  errors: string[];
  dialogs: string[];
  csp(): Promise<string[]>;
}

/** A page that records its problems (CSP violations through an init script, which the CSP does not govern). */
export async function watchedPage(context: BrowserContext): Promise<{ page: Page; problems: PageProblems }> {
  const page = await context.newPage();
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      w.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber} ${e.sample}`.trim()),
    );
  });
  const problems: PageProblems = {
    console: [],
    errors: [],
    dialogs: [],
    csp: () => page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []),
  };
  page.on('console', (m) => {
    if (m.type() === 'error') problems.console.push(m.text());
  });
  page.on('pageerror', (e) => problems.errors.push(e.message));
  page.on('dialog', (d) => {
    problems.dialogs.push(d.message());
    void d.dismiss();
  });
  return { page, problems };
}

/**
 * The checks a Lighthouse accessibility pass would make that need no network: every image has
 * alt text, every form control and button has an accessible name. Returns what fails.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    for (const img of Array.from(document.querySelectorAll('img'))) if (!img.hasAttribute('alt')) out.push(`img without alt: ${img.src}`);
    const named = (el: Element) => {
      if (el.getAttribute('aria-label')?.trim()) return true;
      const by = el.getAttribute('aria-labelledby');
      if (by && by.split(' ').some((id) => document.getElementById(id)?.textContent?.trim())) return true;
      const id = el.getAttribute('id');
      if (id && document.querySelector(`label[for="${CSS.escape(id)}"]`)?.textContent?.trim()) return true;
      return Boolean(el.closest('label')?.textContent?.trim());
    };
    for (const el of Array.from(document.querySelectorAll('input, select, textarea'))) {
      if ((el as HTMLInputElement).type === 'hidden') continue;
      if (!named(el)) out.push(`unlabelled ${el.tagName.toLowerCase()} ${el.outerHTML.slice(0, 80)}`);
    }
    for (const el of Array.from(document.querySelectorAll('button, a[href]'))) {
      if (!(el.textContent?.trim() || el.getAttribute('aria-label')?.trim()))
        out.push(`nameless ${el.tagName.toLowerCase()} ${el.outerHTML.slice(0, 80)}`);
    }
    return out;
  });
}

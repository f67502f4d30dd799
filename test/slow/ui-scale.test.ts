/**
 * The web UI at scale, in Chromium: a 10,000-file directory and a 10,000-version history render
 * their first screen in under a second and stay virtualized (a few dozen rows in the DOM while
 * all 10,000 are loaded by scrolling); and the main pages' screenshots are taken (the same code as
 * npm run screenshots). Slow: building the data takes ~10,000 tool calls.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, startUiServer, watchedPage, type UiServer } from '../helpers/browser.js';
import { takeScreenshots } from '../helpers/ui-screens.js';
import { seedUiWorld } from '../helpers/ui-world.js';

const N = 10_000;

describe('web UI at scale (sqlite)', () => {
  let s: UiServer;
  let browser: Browser;
  let key: string;
  before(async () => {
    s = await startUiServer('sqlite');
    browser = await launchBrowser();
    key = (await s.register('Big Tree')).apiKey;
    for (let i = 0; i < N; i += 1000) {
      const files = Array.from({ length: 1000 }, (_, j) => ({ path: `/big/f${String(i + j).padStart(5, '0')}.txt`, content: `file ${i + j}\n` }));
      await s.ok(key, 'write_files', { files });
    }
    for (let v = 1; v <= N; v++) await s.ok(key, 'write', { path: '/log.txt', content: `line ${v}\n` });
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  async function signedIn(): Promise<Page> {
    const { page } = await watchedPage(await browser.newContext({ viewport: { width: 1280, height: 800 } }));
    await page.goto(`${s.url}/console`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Open console' }).click();
    await page.getByRole('navigation', { name: 'Console' }).waitFor();
    return page;
  }

  /** Scrolls the virtual list to its end until `done` shows, counting the rows in the DOM on the way. */
  async function scrollToEnd(page: Page, done: () => Promise<boolean>): Promise<number> {
    let most = 0;
    const deadline = Date.now() + 60_000;
    while (!(await done())) {
      assert.ok(Date.now() < deadline, 'the list never finished loading');
      most = Math.max(
        most,
        await page.evaluate(() => {
          const box = document.querySelector('.vlist')!;
          box.scrollTop = box.scrollHeight;
          return box.querySelectorAll('[role=listitem]').length;
        }),
      );
      await page.waitForTimeout(20);
    }
    // The last page arrived after the last scroll: once more to its end.
    await page.evaluate(() => {
      const box = document.querySelector('.vlist')!;
      box.scrollTop = box.scrollHeight;
    });
    return most;
  }

  it('a 10,000-file directory: first screen < 1 s, all 10,000 by scrolling, never more than ~60 rows in the DOM', async () => {
    const page = await signedIn();
    await page.goto(`${s.url}/console/files`);
    await page.getByRole('link', { name: 'big/' }).waitFor();
    const t0 = Date.now();
    await page.getByRole('link', { name: 'big/' }).click();
    await page.getByRole('link', { name: 'f00000.txt' }).waitFor();
    const first = Date.now() - t0;
    const most = await scrollToEnd(page, async () => (await page.getByRole('status').last().innerText()) === `${N} entries`);
    const all = Date.now() - t0;
    await page.getByRole('link', { name: 'f09999.txt' }).waitFor();
    console.log(`10,000-file directory: first screen ${first} ms, all ${N} loaded by scrolling ${all} ms, at most ${most} rows in the DOM`);
    assert.ok(first < 1000, `first screen took ${first} ms`);
    assert.ok(most < 80, `${most} rows in the DOM`);
  });

  it('a 10,000-version history: first screen < 1 s, all by scrolling, a diff between the oldest and newest', async () => {
    const page = await signedIn();
    await page.goto(`${s.url}/console/file/log.txt`);
    await page.getByRole('link', { name: 'History' }).waitFor();
    const t0 = Date.now();
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByText(`v${N}`, { exact: true }).waitFor();
    const first = Date.now() - t0;
    const most = await scrollToEnd(page, async () => (await page.getByRole('status').last().innerText()) === `${N} versions`);
    const all = Date.now() - t0;
    await page.getByText('v1', { exact: true }).waitFor();
    await page.getByLabel('Compare from version 1', { exact: true }).check();
    await page.getByRole('button', { name: `Compare v1 → v${N}` }).click();
    await page.getByRole('table', { name: 'Side-by-side diff' }).getByText(`line ${N}`).waitFor();
    console.log(`10,000-version history: first screen ${first} ms, all ${N} loaded by scrolling ${all} ms, at most ${most} rows in the DOM`);
    assert.ok(first < 1000, `first screen took ${first} ms`);
    assert.ok(most < 80, `${most} rows in the DOM`);
  });

  it('screenshots of the main pages (npm run screenshots writes them to docs/screenshots)', async () => {
    const world = await seedUiWorld(s);
    const dir = mkdtempSync(join(tmpdir(), 'afs-shots-'));
    try {
      const files = await takeScreenshots(browser, s.url, world, dir);
      assert.ok(files.length >= 10);
      for (const f of files) assert.deepEqual([...readFileSync(f).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], f);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

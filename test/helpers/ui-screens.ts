/**
 * The main pages of the web UI, screenshotted (npm run screenshots → docs/screenshots, and the
 * slow suite into a temporary folder). Returns the files written.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { UiWorld } from './ui-world.js';

async function signIn(page: Page, base: string, key: string): Promise<void> {
  await page.goto(`${base}/console`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Open console' }).click();
  await page.getByRole('navigation', { name: 'Console' }).waitFor();
}

export async function takeScreenshots(browser: Browser, base: string, world: UiWorld, dir: string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  const shoot = async (page: Page, name: string, ready: () => Promise<unknown>) => {
    await ready();
    const file = join(dir, `${name}.png`);
    await page.screenshot({ path: file, fullPage: false });
    written.push(file);
  };
  const desktop = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  const page = await desktop.newPage();
  await page.goto(`${base}/`);
  await shoot(page, 'home', () => page.getByText('Weekly parser report').waitFor());
  await page.goto(`${base}/a/${world.alice.slug}`);
  await shoot(page, 'profile', () => page.getByRole('heading', { name: 'Published work' }).waitFor());
  await page.goto(`${base}/published/${world.alice.slug}/reports/summary.md`);
  await shoot(page, 'published-markdown', () => page.locator('.markdown h1').waitFor());
  await page.goto(`${base}/c/${world.community}`);
  await shoot(page, 'community', () => page.getByText('A tokenizer in six lines').waitFor());
  await page.goto(`${base}/posts/${world.postId}`);
  await shoot(page, 'post', () => page.getByText('Does it handle').waitFor());
  await signIn(page, base, world.alice.key);
  await page.goto(`${base}/console/files/notes`);
  await shoot(page, 'console-files', () => page.getByRole('link', { name: /todo\.md/ }).waitFor());
  await page.goto(`${base}/console/history/notes/todo.md`);
  await page.getByRole('button', { name: /Compare/ }).click();
  await shoot(page, 'console-history-diff', () => page.getByRole('table', { name: 'Side-by-side diff' }).waitFor());
  await page.goto(`${base}/console/changes`);
  await shoot(page, 'console-changes', () => page.getByText('#1 write').waitFor());
  await page.goto(`${base}/console/keys`);
  await shoot(page, 'console-keys', () => page.getByRole('table').waitFor());
  await desktop.close();

  const mobile = await browser.newContext({ viewport: { width: 375, height: 812 }, colorScheme: 'dark', deviceScaleFactor: 2, isMobile: true });
  const phone = await mobile.newPage();
  await phone.goto(`${base}/posts/${world.postId}`);
  await shoot(phone, 'mobile-dark-post', () => phone.getByText('Does it handle').waitFor());
  await signIn(phone, base, world.alice.key);
  await phone.goto(`${base}/console/history/notes/todo.md`);
  await shoot(phone, 'mobile-dark-history', () => phone.getByText('v3').first().waitFor());
  await mobile.close();
  return written;
}

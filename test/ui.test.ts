/**
 * The web UI in a real browser (Debian's Chromium through playwright-core) against a real server
 * on SQLite: what a newcomer does (with the mouse, and with the keyboard only), what the key form
 * refuses, what agents' markdown cannot do, how it looks at 375 px in dark mode, and the offline
 * Lighthouse-style checks on every page.
 * (The 10,000-file and 10,000-version renders and the screenshots are in test/slow/ui-scale.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { accessibilityProblems, launchBrowser, startUiServer, watchedPage, type UiServer } from './helpers/browser.js';
import { heavyBackends } from './helpers/backends.js';
import { assertRing, focused, focusLandsOn, pressTo, pressUntil } from './helpers/keyboard.js';
import { HOSTILE_MD, TODO_V1, TODO_V2, TODO_V3, seedUiWorld, type UiWorld } from './helpers/ui-world.js';

// The keyboard-only newcomer's steps (page.keyboard only: no click, check or fill on an element;
// focus gets everywhere by keys). Each step checks where focus went and that it can be seen.

const DRAFTS = 150;
const draft = (i: number) => `draft-${String(i).padStart(3, '0')}.md`;

/** A new agent whose /notes holds 150 drafts and, last in the list, todo.md with three versions. */
async function keyboardAgent(s: UiServer, name: string): Promise<string> {
  const key = (await s.register(name)).apiKey;
  const files = Array.from({ length: DRAFTS }, (_, i) => ({ path: `/notes/${draft(i)}`, content: `draft ${i}\n` }));
  await s.ok(key, 'write_files', { files });
  for (const content of [TODO_V1, TODO_V2, TODO_V3]) await s.ok(key, 'write', { path: '/notes/todo.md', content });
  return key;
}

/** From the front page: the skip link, back to the header's Console link, the key typed, Enter. */
async function signInByKeyboard(page: Page, key: string, agent: string): Promise<void> {
  assertRing(await pressTo(page, 'Tab', 'Skip to content'));
  await page.keyboard.press('Enter');
  assert.equal((await focused(page)).tag, 'main', 'the skip link moves focus to the content');
  assertRing(await pressTo(page, 'Shift+Tab', 'Console'));
  await page.keyboard.press('Enter');
  await focusLandsOn(page, 'Owner console');
  assertRing(await pressTo(page, 'Tab', 'API key'));
  await page.keyboard.type(key);
  await page.keyboard.press('Enter');
  // The form is replaced by the console: focus goes to its heading, not to <body>.
  await focusLandsOn(page, agent);
}

/** The tree by keys: into the list's scroll box, Down into its rows, Enter; down a long list, End to its last row. */
async function browseToTodo(page: Page): Promise<void> {
  assertRing(await pressUntil(page, 'Browse files'));
  await page.keyboard.press('Enter');
  await focusLandsOn(page, 'Files');
  // (Reading the page to know when it has loaded is fine: a person waits for it too.)
  await page.getByRole('list', { name: 'Contents of /' }).waitFor();
  assertRing(await pressUntil(page, 'Contents of /'));
  assertRing(await pressTo(page, 'ArrowDown', 'notes/'));
  await page.keyboard.press('Enter');
  await focusLandsOn(page, 'notes/');
  await page.getByRole('list', { name: 'Contents of /notes' }).waitFor();
  await pressUntil(page, 'Contents of /notes');
  await pressTo(page, 'ArrowDown', draft(0));
  // Past the first screen: the window scrolls under the focused row and focus stays on a row.
  for (let i = 1; i <= 20; i++) await pressTo(page, 'ArrowDown', draft(i));
  const paged = await pressTo(page, 'PageDown', /^draft-\d{3}\.md$/);
  assert.ok(Number(paged.name.slice(6, 9)) > 25, `Page Down went to ${paged.name}`);
  await pressTo(page, 'Home', draft(0));
  const last = await pressTo(page, 'End', 'todo.md');
  assertRing(last);
  assert.equal(last.list, 'Contents of /notes');
  const rows = await page.locator('[role=listitem]').count();
  assert.ok(rows < 40, `${rows} rows in the DOM for ${DRAFTS + 1} entries`);
  await page.keyboard.press('Enter');
  await focusLandsOn(page, 'todo.md');
  await page.getByText('test it on 10,000 files').waitFor();
  assertRing(await pressUntil(page, 'History'));
  await page.keyboard.press('Enter');
  await focusLandsOn(page, 'History of /notes/todo.md');
  await page.getByRole('status').getByText('3 versions').waitFor();
}

/** Two versions picked (Tab to a radio group, Up/Down between rows, Space picks), compared, both layouts. */
async function compareByKeyboard(page: Page): Promise<void> {
  assertRing(await pressUntil(page, 'Compare to version 3'));
  assert.equal((await pressTo(page, 'ArrowDown', 'Compare to version 2')).checked, false, 'Down moves, it does not pick');
  await page.keyboard.press('Space');
  assert.equal((await focused(page)).checked, true);
  assertRing(await pressTo(page, 'Shift+Tab', 'Compare from version 2'));
  await pressTo(page, 'ArrowDown', 'Compare from version 1');
  await page.keyboard.press('Space');
  assertRing(await pressUntil(page, 'Compare v1 → v2', { key: 'Shift+Tab' }));
  await page.keyboard.press('Enter');
  await page.getByRole('table', { name: 'Side-by-side diff' }).getByText('- ship it').waitFor();
  assertRing(await pressUntil(page, 'Unified', { max: 3 }));
  await page.keyboard.press('Space');
  await page.getByRole('table', { name: 'Unified diff' }).getByText('- ship it').waitFor();
  await pressTo(page, 'Shift+Tab', 'Side by side');
  await page.keyboard.press('Enter');
  await page.getByRole('table', { name: 'Side-by-side diff' }).waitFor();
}

/** Restore through the dialog: focus moves in, Escape cancels back to the opener, Tab stays inside, Enter confirms. */
async function restoreByKeyboard(page: Page): Promise<void> {
  assertRing(await pressUntil(page, 'Restore version 1'));
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Restore version 1?' });
  await dialog.waitFor();
  const inside = await focused(page);
  assert.ok(inside.inDialog, `focus is on ${inside.tag} “${inside.name}”, outside the dialog`);
  assertRing(inside);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  const back = await focusLandsOn(page, 'Restore version 1');
  assert.equal(back.list, 'Versions of /notes/todo.md', 'Escape gives focus back to the button that opened the dialog');
  assertRing(back);

  await page.keyboard.press('Enter');
  await dialog.waitFor();
  for (const key of ['Tab', 'Tab', 'Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
    await page.keyboard.press(key);
    const f = await focused(page);
    assert.ok(f.inDialog, `${key} left the open dialog for ${f.tag} “${f.name}”`);
    assertRing(f);
  }
  const confirm = await pressUntil(page, 'Restore version 1', { max: 2 });
  assert.ok(confirm.inDialog);
  await page.keyboard.press('Enter');
  await page.getByText('Restored version 1: it is now version 4.').waitFor();
  await dialog.waitFor({ state: 'detached' });
  await focusLandsOn(page, 'History of /notes/todo.md');
}

// One backend is enough for what a browser sees (the HTTP side runs on both: ui-http.test.ts);
// SQLite in npm test, like the other heavy suites (helpers/backends.ts heavyBackends).
for (const backend of heavyBackends())
  describe(`web UI in Chromium (${backend})`, () => {
    let s: UiServer;
    let browser: Browser;
    let ctx: BrowserContext;
    let w: UiWorld;
    before(async () => {
      // One after the other: with both in Promise.all, a browser that fails to launch left the
      // server unassigned, so after() could not close it and the file never exited.
      s = await startUiServer(backend);
      browser = await launchBrowser();
      w = await seedUiWorld(s);
      ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      // What a person sees arrives in well under a second here: a missing element fails fast.
      ctx.setDefaultTimeout(5000);
    });
    after(async () => {
      await browser?.close();
      await s?.close();
    });

    async function signedIn(key = w.alice.key) {
      const { page, problems } = await watchedPage(ctx);
      await page.goto(`${s.url}/console`);
      await page.getByLabel('API key').fill(key);
      await page.getByRole('button', { name: 'Open console' }).click();
      await page.getByRole('navigation', { name: 'Console' }).waitFor();
      return { page, problems };
    }

    it('a newcomer opens /, pastes a key, browses to a file, diffs two versions and restores one', async () => {
      const { page, problems } = await watchedPage(ctx);
      await page.goto(`${s.url}/`);
      await page.getByRole('link', { name: 'Console', exact: true }).click();
      await page.getByLabel('API key').fill(w.alice.key);
      await page.getByRole('button', { name: 'Open console' }).click();
      await page.getByRole('heading', { name: 'Alice Agent' }).waitFor();
      // The key lives in this tab's sessionStorage only: not in the URL, not in a cookie.
      assert.equal(await page.evaluate(() => sessionStorage.getItem('afs.apiKey')), w.alice.key);
      assert.ok(!page.url().includes(w.alice.key));
      assert.deepEqual(await ctx.cookies(), []);

      await page.getByRole('link', { name: 'Browse files' }).click();
      await page.getByRole('link', { name: 'notes/' }).click();
      await page.getByRole('link', { name: 'todo.md' }).click();
      await page.getByRole('heading', { name: 'todo.md' }).waitFor();
      await page.getByText('test it on 10,000 files').waitFor();
      await page.getByRole('link', { name: 'History' }).click();
      await page.getByRole('status').getByText('3 versions').waitFor();

      await page.getByLabel('Compare from version 1').check();
      await page.getByLabel('Compare to version 3').check();
      await page.getByRole('button', { name: 'Compare v1 → v3' }).click();
      const split = page.getByRole('table', { name: 'Side-by-side diff' });
      await split.getByText('- test it on 10,000 files').waitFor();
      await page.getByRole('button', { name: 'Unified' }).click();
      const unified = page.getByRole('table', { name: 'Unified diff' });
      await unified.getByText('- ship it').waitFor();

      await page.getByRole('button', { name: 'Restore version 1' }).click();
      const dialog = page.getByRole('dialog', { name: 'Restore version 1?' });
      await dialog.getByRole('button', { name: 'Restore version 1' }).click();
      await page.getByText('Restored version 1: it is now version 4.').waitFor();
      // The tool endpoint agents use confirms it.
      const now = await s.ok(w.alice.key, 'read', { path: '/notes/todo.md' });
      assert.equal(now.version, 4);
      assert.equal(now.content, TODO_V1);
      const v3 = await s.ok(w.alice.key, 'read', { path: '/notes/todo.md', version: 3 });
      assert.equal(v3.content, TODO_V3);
      assert.deepEqual(problems.console, []);
      assert.deepEqual(problems.errors, []);
      await page.close();
    });

    it('keyboard only: a newcomer opens /, types a key, walks the virtual tree to a file, compares two versions and restores one', async () => {
      const key = await keyboardAgent(s, 'Keyboard Kim');
      const { page, problems } = await watchedPage(ctx);
      await page.goto(`${s.url}/`);
      await page.locator('main h1').first().waitFor();
      await signInByKeyboard(page, key, 'Keyboard Kim');
      await browseToTodo(page);
      await compareByKeyboard(page);
      await restoreByKeyboard(page);
      // The tool endpoint agents use confirms it.
      const now = await s.ok(key, 'read', { path: '/notes/todo.md' });
      assert.equal(now.version, 4);
      assert.equal(now.content, TODO_V1);
      assert.deepEqual(problems.console, []);
      assert.deepEqual(problems.errors, []);
      await page.close();
    });

    it('the virtual list: Tab walks row to row past the first screen, and the focused row stays when the view scrolls away', async () => {
      const key = await keyboardAgent(s, 'Scrolling Sam');
      const { page, problems } = await signedIn(key);
      await page.goto(`${s.url}/console/files/notes`);
      await page.getByRole('link', { name: draft(0) }).waitFor();
      await pressUntil(page, 'Contents of /notes');
      await pressTo(page, 'ArrowDown', draft(0));
      // Each row has one link: Tab goes through them in order, the window following.
      for (let i = 1; i <= 30; i++) assertRing(await pressTo(page, 'Tab', draft(i)));
      for (let i = 29; i >= 24; i--) await pressTo(page, 'Shift+Tab', draft(i));
      // Scrolled far away (the wheel, a scrollbar): the focused row is kept, focus with it.
      const box = page.getByRole('list', { name: 'Contents of /notes' });
      await box.hover();
      await page.mouse.wheel(0, 4000);
      await page.waitForFunction(() => document.querySelector('.vlist')!.scrollTop > 3000);
      const kept = await focused(page);
      assert.equal(kept.name, draft(24));
      assert.ok(await page.evaluate(() => document.activeElement?.isConnected && document.activeElement !== document.body));
      assert.ok((await page.locator('[role=listitem]').count()) < 60);
      // The next key carries on from it, and brings it back into view.
      await pressTo(page, 'ArrowDown', draft(25));
      const inView = await page.evaluate(() => {
        const r = document.activeElement!.getBoundingClientRect();
        const b = document.querySelector('.vlist')!.getBoundingClientRect();
        return r.top >= b.top && r.bottom <= b.bottom;
      });
      assert.ok(inView, 'the newly focused row is scrolled into view');
      assert.deepEqual(problems.console, []);
      await page.close();
    });

    it('the history links each version to a view of it (?version=N); a file view’s Share… fills the share form', async () => {
      const key = await keyboardAgent(s, 'Viewing Vic');
      const { page, problems } = await signedIn(key);
      await page.goto(`${s.url}/console/history/notes/todo.md`);
      await page.getByRole('link', { name: 'View version 2' }).click();
      await page.getByRole('heading', { name: 'todo.md at version 2' }).waitFor();
      assert.equal(new URL(page.url()).search, '?version=2');
      await page.getByRole('button', { name: 'Source' }).click();
      const source = page.getByRole('region', { name: 'Source of /notes/todo.md' });
      assert.equal((await source.locator('pre.source').innerText()).trim(), TODO_V2.trim());
      await page.getByText('An earlier version, as it was then.').waitFor();
      assert.match(await page.locator('main .meta').first().innerText(), /^version 2 · /);

      await page.getByRole('link', { name: 'See the current version' }).click();
      await page.getByRole('heading', { name: 'todo.md', exact: true }).waitFor();
      await page.getByText('test it on 10,000 files').waitFor();
      await page.getByRole('link', { name: 'Share /notes/todo.md' }).click();
      await page.getByRole('heading', { name: 'Shares & links' }).waitFor();
      assert.equal(await page.getByLabel('Path', { exact: true }).inputValue(), '/notes/todo.md');
      await page.getByRole('button', { name: 'Create link' }).click();
      await page.getByText('Link to /notes/todo.md created.').waitFor();
      const shares = await s.ok(key, 'list_shares', { direction: 'outgoing' });
      assert.deepEqual(
        shares.items.map((x: any) => [x.kind, x.path]),
        [['link', '/notes/todo.md']],
      );
      assert.deepEqual(problems.console, []);
      await page.close();
    });

    it('creating a key shows it once; the key works with the scopes chosen; revoking asks first', async () => {
      const { page, problems } = await signedIn();
      await page.getByRole('link', { name: 'Keys' }).click();
      await page.getByLabel('Label').fill('ci-reader');
      await page.getByLabel('Access').selectOption('read-only');
      await page.getByLabel('Folder (optional)').fill('/notes');
      await page.getByLabel('Expires after').selectOption('86400');
      await page.getByRole('button', { name: 'Create key' }).click();
      const shown = page.getByLabel('New API key');
      await shown.waitFor();
      const newKey = await shown.inputValue();
      assert.match(newKey, /^mk_[A-Za-z0-9]{40,}$/);
      await page.getByText('it is shown only this once').waitFor();
      const info = await s.ok(newKey, 'get_key_info');
      assert.equal(info.label, 'ci-reader');
      assert.equal(info.readOnly, true);
      assert.equal(info.folder, '/notes');
      assert.ok(info.expiresAt);

      await page.getByRole('button', { name: /I saved it/ }).click();
      await page.getByRole('cell', { name: 'ci-reader', exact: true }).waitFor();
      assert.ok(!(await page.content()).includes(newKey), 'the key is gone from the page once dismissed');

      await page.getByRole('button', { name: 'Revoke key ci-reader' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
      await page.getByText(/is revoked: it stops working at once/).waitFor();
      assert.equal((await s.call(newKey, 'get_key_info')).status, 401);
      assert.deepEqual(problems.console, []);
      await page.close();
    });

    it('the console reverts a changeset, undeletes a file, shares and revokes, marks notifications read: each asks first, the tools confirm', async () => {
      const carol = await s.register('Carol Console');
      await s.ok(carol.apiKey, 'write', { path: '/w/a.md', content: 'first\n' });
      const edited = await s.ok(carol.apiKey, 'edit', { path: '/w/a.md', old_string: 'first', new_string: 'second' });
      const { changeset } = await s.ok(carol.apiKey, 'list_changes', { limit: 1 }).then((r) => ({ changeset: r.changesets[0] }));
      assert.equal(changeset.changesetId, edited.changesetId);
      await s.ok(carol.apiKey, 'write', { path: '/w/gone.md', content: 'keep me\n' });
      await s.ok(carol.apiKey, 'delete', { path: '/w/gone.md' });
      await s.ok(w.bob.key, 'write', { path: '/x/for-carol.md', content: 'hi\n' });
      await s.ok(w.bob.key, 'share', { path: '/x', with: carol.slug });
      const { page, problems } = await signedIn(carol.apiKey);

      await page.getByRole('link', { name: 'Changes', exact: true }).click();
      await page.getByRole('button', { name: `Revert change ${changeset.seq}` }).click();
      const revert = page.getByRole('dialog', { name: `Revert change #${changeset.seq}?` });
      await revert.getByText('as at version 1').waitFor();
      await revert.getByRole('button', { name: 'Revert', exact: true }).click();
      await page.getByText(`Reverted change #${changeset.seq}`).waitFor();
      assert.equal((await s.ok(carol.apiKey, 'read', { path: '/w/a.md' })).content, 'first\n');

      await page.getByRole('link', { name: 'Deleted', exact: true }).click();
      await page.getByRole('button', { name: 'Undelete /w/gone.md' }).click();
      await page.getByRole('dialog', { name: 'Undelete /w/gone.md?' }).getByRole('button', { name: 'Undelete' }).click();
      await page.getByText('/w/gone.md is back').waitFor();
      assert.equal((await s.ok(carol.apiKey, 'read', { path: '/w/gone.md' })).content, 'keep me\n');

      await page.getByRole('link', { name: 'Shares & links', exact: true }).click();
      await page.getByLabel('Kind').selectOption('agent');
      await page.getByLabel('Path').fill('/w');
      await page.getByLabel('Agent (slug)').fill(w.bob.slug);
      await page.getByRole('button', { name: 'Share', exact: true }).click();
      await page.getByText(`/w shared with @${w.bob.slug} (read)`).waitFor();
      const [made] = (await s.ok(carol.apiKey, 'list_shares', { direction: 'outgoing' })).items;
      assert.equal(made.with.slug, w.bob.slug);
      assert.equal(made.status, 'active');
      await page.getByRole('button', { name: 'Revoke agent /w' }).click();
      await page.getByRole('dialog', { name: 'Revoke this share?' }).getByRole('button', { name: 'Revoke' }).click();
      await page.getByText(`Revoked: /w is no longer shared with @${w.bob.slug}`).waitFor();
      assert.equal((await s.ok(carol.apiKey, 'list_shares', { direction: 'outgoing' })).items[0].status, 'revoked');

      await page.getByRole('link', { name: 'Notifications', exact: true }).click();
      await page.getByText(`from @${w.bob.slug}`).first().waitFor();
      assert.ok((await s.ok(carol.apiKey, 'list_notifications', {})).unreadCount >= 1);
      await page.getByRole('button', { name: 'Mark all read' }).click();
      await page.getByText('0 unread').waitFor();
      assert.equal((await s.ok(carol.apiKey, 'list_notifications', {})).unreadCount, 0);
      assert.deepEqual(problems.console, []);
      assert.deepEqual(problems.errors, []);
      await page.close();
    });

    it('a revoked key is refused with a clear message, on the form and when revoked mid-session', async () => {
      const doomed = await s.ok(w.alice.key, 'create_key', { label: 'doomed', preset: 'read-only' });
      await s.ok(w.alice.key, 'revoke_key', { keyId: doomed.keyId });
      const { page } = await watchedPage(ctx);
      await page.goto(`${s.url}/console`);
      await page.getByLabel('API key').fill(doomed.apiKey);
      await page.getByRole('button', { name: 'Open console' }).click();
      const alert = page.getByRole('alert');
      await alert.getByText('Key refused').waitFor();
      assert.match(await alert.innerText(), /revoked/i);
      assert.equal(await page.evaluate(() => sessionStorage.getItem('afs.apiKey')), null);

      const later = await s.ok(w.alice.key, 'create_key', { label: 'later', preset: 'read-only' });
      await page.getByLabel('API key').fill(later.apiKey);
      await page.getByRole('button', { name: 'Open console' }).click();
      // The overview has loaded (its call answered) before the key is revoked behind the page's back.
      await page.getByRole('heading', { name: 'Alice Agent' }).waitFor();
      await s.ok(w.alice.key, 'revoke_key', { keyId: later.keyId });
      await page.getByRole('link', { name: 'Files', exact: true }).click();
      await page.getByRole('alert').getByText('Key refused').waitFor();
      assert.match(await page.getByRole('alert').innerText(), /revoked/i);
      assert.equal(await page.evaluate(() => sessionStorage.getItem('afs.apiKey')), null);
      await page.close();
    });

    it('a published markdown file with <script> and onerror renders inert: no dialog, no script, no CSP report, no remote image', async () => {
      const { page, problems } = await watchedPage(ctx);
      const remote: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(s.url)) remote.push(r.url());
      });
      await page.goto(`${s.url}/published/${w.alice.slug}/reports/summary.md`);
      const md = page.locator('.markdown');
      await md.getByRole('heading', { name: 'Weekly report' }).waitFor();
      await md.getByRole('cell', { name: '10,000' }).waitFor();
      await md.getByText(/Image “tracking pixel” from tracker\.invalid not loaded/).waitFor();
      await page.waitForTimeout(200);
      assert.deepEqual(problems.dialogs, []);
      assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned), undefined);
      assert.equal(await md.locator('script, iframe, img, [onerror], [style]').count(), 0);
      assert.equal(await md.locator('a[href^="javascript:"]').count(), 0);
      assert.deepEqual(await problems.csp(), []);
      assert.deepEqual(problems.console, []);
      assert.deepEqual(remote, []);
      // The source view shows the payload as text.
      await page.getByRole('button', { name: 'Source' }).click();
      await page.getByText("<script>window.__pwned = 'script'").waitFor();
      assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned), undefined);
      assert.ok(HOSTILE_MD.includes('onerror'));
      await page.close();
    });

    it('a link opens as a page in a browser and as the raw bytes with ?raw', async () => {
      const { page, problems } = await watchedPage(ctx);
      await page.goto(w.linkUrl);
      await page.getByRole('heading', { name: 'todo.md' }).waitFor();
      await page.locator('.markdown').getByRole('heading', { name: 'Todo' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Download' }).getAttribute('href'), `${new URL(w.linkUrl).pathname}?raw`);
      const raw = await fetch(`${w.linkUrl}?raw`, { headers: { accept: 'text/html' } });
      assert.equal(raw.headers.get('content-type'), 'text/markdown; charset=utf-8');
      assert.deepEqual(problems.console, []);
      await page.close();
    });

    it('at 375 px in dark mode: no sideways scrolling, dark colours, a screenshot', async () => {
      const mobile = await browser.newContext({ viewport: { width: 375, height: 740 }, colorScheme: 'dark', isMobile: true });
      const { page, problems } = await watchedPage(mobile);
      for (const path of ['/', `/posts/${w.postId}`, `/published/${w.alice.slug}/src/parser.ts`, '/console']) {
        await page.goto(`${s.url}${path}`);
        await page.locator('main h1').first().waitFor();
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= 375, `${path} is ${width} px wide`);
      }
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(bg, 'rgb(13, 17, 23)');
      const shot = await page.screenshot({ fullPage: true });
      assert.ok(shot.length > 5000);
      assert.deepEqual(problems.console, []);
      await mobile.close();
    });

    it('every page: no console error, no CSP report, every image has alt text, every control a label', async () => {
      const { page, problems } = await signedIn();
      const pages = [
        '/',
        `/a/${w.alice.slug}`,
        `/published/${w.alice.slug}/reports/summary.md`,
        `/published/${w.alice.slug}/src/parser.ts`,
        '/c',
        `/c/${w.community}?sort=top`,
        `/posts/${w.postId}`,
        new URL(w.linkUrl).pathname,
        '/console',
        '/console/files',
        '/console/files/notes',
        '/console/file/src/parser.ts',
        '/console/file/notes/todo.md?version=1',
        '/console/history/notes/todo.md',
        '/console/changes',
        '/console/deleted',
        '/console/keys',
        '/console/shares',
        '/console/shares?path=%2Fnotes%2Ftodo.md',
        '/console/notifications',
      ];
      for (const path of pages) {
        await page.goto(`${s.url}${path}`);
        await page.locator('main h1').first().waitFor();
        await page.waitForFunction(() => !document.querySelector('[role=status]')?.textContent?.startsWith('Loading'));
        assert.deepEqual(await accessibilityProblems(page), [], path);
        assert.deepEqual(await problems.csp(), [], path);
      }
      assert.deepEqual(problems.console, []);
      assert.deepEqual(problems.errors, []);
      // Keyboard: the first Tab reaches the skip link, which moves focus to the content.
      await page.goto(`${s.url}/`);
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
      await page.close();
    });

    it('every agent link shows the @slug beside the name: an impostor registered as "Alice Agent" is told apart', async () => {
      const impostor = await s.register(w.alice.name);
      assert.equal(impostor.name, w.alice.name);
      await s.ok(impostor.apiKey, 'join_community', { community: w.community });
      await s.ok(impostor.apiKey, 'comment', { postId: w.postId, body: 'It is me, alice.' });
      const { page, problems } = await watchedPage(ctx);
      await page.goto(`${s.url}/posts/${w.postId}`);
      await page.getByText('It is me, alice.').waitFor();
      const names = await page.locator('main a[href^="/a/"]').allTextContents();
      assert.ok(names.includes(`${w.alice.name} @${w.alice.slug}`), names.join(' | '));
      assert.ok(names.includes(`${w.alice.name} @${impostor.slug}`), names.join(' | '));
      for (const path of ['/', `/c/${w.community}`, `/a/${w.alice.slug}`, `/published/${w.alice.slug}/src/parser.ts`]) {
        await page.goto(`${s.url}${path}`);
        await page.locator('main h1').first().waitFor();
        await page.waitForFunction(() => !document.querySelector('[role=status]')?.textContent?.startsWith('Loading'));
        const links = await page.locator('main a[href^="/a/"]').allTextContents();
        assert.ok(links.length > 0, path);
        for (const text of links) assert.match(text, /(^|\s)@[a-z0-9-]+$/, `${path}: "${text}"`);
      }
      assert.deepEqual(problems.console, []);
      await page.close();
    });
  });

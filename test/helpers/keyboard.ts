/**
 * Driving the web UI with the keyboard only, as a person who cannot use a mouse does: keys go to
 * whatever has focus (page.keyboard), and these read where focus is after each one.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

/** The focused element as a keyboard user meets it. */
export interface Focused {
  tag: string;
  /** Its accessible name, near enough: aria-label, its label, or its text. */
  name: string;
  /** :focus-visible matches it and it draws an outline of at least 2 px (the ring a sighted keyboard user follows). */
  ring: boolean;
  /** Inside an open <dialog>. */
  inDialog: boolean;
  /** The virtual list (role=list) it is in, by its label. */
  list: string | null;
  checked: boolean | null;
}

export async function focused(page: Page): Promise<Focused> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { tag: 'body', name: '', ring: false, inDialog: false, list: null, checked: null };
    const label = el.id ? document.querySelector(`label[for="${CSS.escape(el.id)}"]`)?.textContent : null;
    const name = (el.getAttribute('aria-label') ?? label ?? el.textContent ?? '').replace(/\s+/g, ' ').trim();
    const style = getComputedStyle(el);
    return {
      tag: el.tagName.toLowerCase(),
      name,
      ring: el.matches(':focus-visible') && style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
      inDialog: Boolean(el.closest('dialog[open]')),
      list: el.closest('[role=list]')?.getAttribute('aria-label') ?? null,
      checked: el instanceof HTMLInputElement && (el.type === 'radio' || el.type === 'checkbox') ? el.checked : null,
    };
  });
}

function matches(f: Focused, name: string | RegExp): boolean {
  return typeof name === 'string' ? f.name === name : name.test(f.name);
}

/**
 * Presses `key` (Tab unless told) until the focused element is named `name`, as a person tabs
 * to a control; fails after `max` presses. Returns the focused element.
 */
export async function pressUntil(page: Page, name: string | RegExp, opts: { key?: string; max?: number } = {}): Promise<Focused> {
  const key = opts.key ?? 'Tab';
  const seen: string[] = [];
  for (let i = 0; i < (opts.max ?? 40); i++) {
    await page.keyboard.press(key);
    const f = await focused(page);
    if (matches(f, name)) return f;
    seen.push(`${f.tag} “${f.name.slice(0, 40)}”`);
  }
  assert.fail(`${key} never reached “${String(name)}”; it went through: ${seen.join(', ')}`);
}

/** Presses `key` once and expects focus on `name`, drawn with a visible ring. */
export async function pressTo(page: Page, key: string, name: string | RegExp): Promise<Focused> {
  await page.keyboard.press(key);
  const f = await focused(page);
  assert.ok(matches(f, name), `after ${key} focus is on ${f.tag} “${f.name}”, not “${String(name)}”`);
  return f;
}

/** Waits until focus is on `name` (focus moved by the page itself: to a new page's heading, back from a dialog). */
export async function focusLandsOn(page: Page, name: string | RegExp): Promise<Focused> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const f = await focused(page);
    if (matches(f, name)) return f;
    if (Date.now() > deadline) assert.fail(`focus is on ${f.tag} “${f.name}”, never on “${String(name)}”`);
    await page.waitForTimeout(20);
  }
}

export function assertRing(f: Focused): void {
  assert.ok(f.ring, `${f.tag} “${f.name}” has focus but no visible focus ring`);
}

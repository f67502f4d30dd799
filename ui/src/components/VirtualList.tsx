/**
 * A virtualized list: only the rows in view (plus a margin) are in the DOM, so 10,000 entries
 * cost what 40 do. Rows have one fixed height and each says its position (aria-posinset/setsize).
 * `onNearEnd` asks for the next page when the view comes within a screen of the end.
 *
 * Keyboard: the scroll box is a tab stop of its own (arrow keys and Page Up/Down scroll it; Down
 * or Home moves into the first row in view, End to the last row). Inside a row, Tab and Shift+Tab
 * go through its links and buttons in order (focusing one scrolls it into view, which brings the
 * next rows into the DOM); Up/Down move to the same control of the row above/below, Page Up/Down
 * a screen, Home/End to the first/last row. The row holding focus always stays in the DOM, even
 * when the view scrolls far from it, so focus is never dropped by the window moving.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

const OVERSCAN = 8;
const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex="0"]';

function focusablesOf(row: Element): HTMLElement[] {
  return Array.from(row.querySelectorAll<HTMLElement>(FOCUSABLE));
}

/** The row a key press moves to from `from` (-1: the scroll box itself), or null for keys left to the browser. */
function targetRow(key: string, from: number, count: number, perScreen: number, firstInView: number): number | null {
  const last = count - 1;
  if (from < 0) {
    if (key === 'ArrowDown' || key === 'Home') return key === 'Home' ? 0 : firstInView;
    return key === 'End' ? last : null;
  }
  const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: perScreen, PageUp: -perScreen, Home: -count, End: count };
  const step = moves[key];
  return step === undefined ? null : Math.max(0, Math.min(last, from + step));
}

/** Keeps row `index` in the scroll box's view. */
function scrollRowIntoView(box: HTMLElement, index: number, rowHeight: number): void {
  const top = index * rowHeight;
  if (top < box.scrollTop) box.scrollTop = top;
  else if (top + rowHeight > box.scrollTop + box.clientHeight) box.scrollTop = top + rowHeight - box.clientHeight;
}

/**
 * The keyboard side of a virtual list: the row holding focus (the list keeps it rendered), the
 * keys that move focus between rows, and the move's focus once the target row is rendered.
 */
function useRowFocus(box: { current: HTMLDivElement | null }, count: number, rowHeight: number, scrolled: (top: number) => void) {
  const [active, setActive] = useState<number | null>(null);
  const pending = useRef<{ index: number; column: number } | null>(null);

  useLayoutEffect(() => {
    const want = pending.current;
    if (!want) return;
    const row = box.current?.querySelector<HTMLElement>(`[data-index="${want.index}"]`);
    if (!row && want.index < count) return;
    pending.current = null;
    const controls = row ? focusablesOf(row) : [];
    // A row without a control of its own (a version at another path) takes focus itself.
    (controls[Math.min(want.column, controls.length - 1)] ?? row)?.focus();
  });

  const onKeyDown = (e: KeyboardEvent) => {
    const el = box.current;
    if (!el || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || count === 0) return;
    const target = e.target as HTMLElement;
    // Text fields keep their own keys (Home/End move the caret).
    if (target.matches('textarea, select, input:not([type=radio]):not([type=checkbox])')) return;
    const row = target.closest<HTMLElement>('[data-index]');
    if (!row && target !== el) return;
    const from = row ? Number(row.dataset.index) : -1;
    const perScreen = Math.max(1, Math.floor(el.clientHeight / rowHeight) - 1);
    const to = targetRow(e.key, from, count, perScreen, Math.min(count - 1, Math.ceil(el.scrollTop / rowHeight)));
    if (to === null) return;
    e.preventDefault();
    if (to === from) return;
    pending.current = { index: to, column: row ? Math.max(0, focusablesOf(row).indexOf(target)) : 0 };
    scrollRowIntoView(el, to, rowHeight);
    scrolled(el.scrollTop);
    setActive(to);
  };

  const onFocus = (e: FocusEvent) => {
    const row = (e.target as HTMLElement).closest<HTMLElement>('[data-index]');
    if (row) setActive(Number(row.dataset.index));
  };
  return { active: active !== null && active < count ? active : null, onKeyDown, onFocus };
}

export function VirtualList<T>(props: {
  items: T[];
  rowHeight: number;
  label: string;
  render: (item: T, index: number) => ComponentChildren;
  onNearEnd?: () => void;
  /** Total count when known beyond what is loaded (for aria-setsize). */
  total?: number;
  class?: string;
}) {
  const { items, rowHeight, onNearEnd } = props;
  const box = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const keys = useRowFocus(box, items.length, rowHeight, setScrollTop);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    setHeight(el.clientHeight || 600);
    const ro = new ResizeObserver(() => setHeight(el.clientHeight || 600));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN);
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / rowHeight) + OVERSCAN);

  useEffect(() => {
    if (onNearEnd && items.length > 0 && last >= items.length - Math.ceil(height / rowHeight)) onNearEnd();
  }, [last, items.length, height, rowHeight, onNearEnd]);

  const shown: number[] = [];
  const { active } = keys;
  // The focused row stays in the DOM (in order) wherever the view is.
  if (active !== null && active < first) shown.push(active);
  for (let i = first; i < last; i++) shown.push(i);
  if (active !== null && active >= last) shown.push(active);
  return (
    <div
      ref={box}
      class={`vlist ${props.class ?? ''}`}
      role="list"
      aria-label={props.label}
      tabIndex={0}
      onScroll={(e) => setScrollTop((e.currentTarget as HTMLDivElement).scrollTop)}
      onKeyDown={keys.onKeyDown}
      onFocusCapture={keys.onFocus}
    >
      <div class="vlist-inner" style={{ height: `${items.length * rowHeight}px` }}>
        {shown.map((i) => (
          <div
            key={i}
            role="listitem"
            class="vrow"
            data-index={i}
            tabIndex={-1}
            aria-posinset={i + 1}
            aria-setsize={props.total ?? items.length}
            style={{ transform: `translateY(${i * rowHeight}px)`, height: `${rowHeight}px` }}
          >
            {props.render(items[i]!, i)}
          </div>
        ))}
      </div>
    </div>
  );
}

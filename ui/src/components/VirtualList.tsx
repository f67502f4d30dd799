/**
 * A virtualized list: only the rows in view (plus a margin) are in the DOM, so 10,000 entries
 * cost what 40 do. Rows have one fixed height. The scroll box is focusable (arrow keys and
 * Page Up/Down scroll it) and each row says its position (aria-posinset/setsize).
 * `onNearEnd` asks for the next page when the view comes within a screen of the end.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

const OVERSCAN = 8;

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

  const rows: ComponentChildren[] = [];
  for (let i = first; i < last; i++) {
    rows.push(
      <div
        key={i}
        role="listitem"
        class="vrow"
        aria-posinset={i + 1}
        aria-setsize={props.total ?? items.length}
        style={{ transform: `translateY(${i * rowHeight}px)`, height: `${rowHeight}px` }}
      >
        {props.render(items[i]!, i)}
      </div>,
    );
  }
  return (
    <div
      ref={box}
      class={`vlist ${props.class ?? ''}`}
      role="list"
      aria-label={props.label}
      tabIndex={0}
      onScroll={(e) => setScrollTop((e.currentTarget as HTMLDivElement).scrollTop)}
    >
      <div class="vlist-inner" style={{ height: `${items.length * rowHeight}px` }}>
        {rows}
      </div>
    </div>
  );
}

/** Shared pieces: data loading hooks, error and loading states, the confirmation dialog. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api';

export interface Async<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
}

function asApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError('ERROR', err instanceof Error ? err.message : String(err), 0);
}

/** Runs `fn` when `deps` change; the latest call wins (an earlier answer arriving late is dropped). */
export function useAsync<T>(fn: () => Promise<T>, deps: unknown[]): Async<T> {
  const [state, setState] = useState<{ data: T | null; error: ApiError | null; loading: boolean }>({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: null }));
    fn().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (err: unknown) => live && setState({ data: null, error: asApiError(err), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: useCallback(() => setTick((t) => t + 1), []) };
}

export interface Page<T, C> {
  items: T[];
  next: C | null;
}

export interface Paged<T> {
  items: T[];
  error: ApiError | null;
  loading: boolean;
  done: boolean;
  loadMore: () => void;
  reload: () => void;
}

/**
 * A list fetched page by page (the tools' cursors): the first page when `deps` change, the next
 * one on loadMore (scrolling near the end of a virtual list, or a "More" button).
 */
export function usePaged<T, C>(fetchPage: (cursor: C | null) => Promise<Page<T, C>>, deps: unknown[]): Paged<T> {
  const [items, setItems] = useState<T[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const [next, setNext] = useState<C | null>(null);
  const [done, setDone] = useState(false);
  const generation = useRef(0);
  const busy = useRef(false);
  const [tick, setTick] = useState(0);

  const load = useCallback((cursor: C | null, gen: number) => {
    busy.current = true;
    setLoading(true);
    fetchPage(cursor).then(
      (page) => {
        if (gen !== generation.current) return;
        setItems((prev) => (cursor === null ? page.items : prev.concat(page.items)));
        setNext(page.next);
        setDone(page.next === null);
        setLoading(false);
        busy.current = false;
      },
      (err: unknown) => {
        if (gen !== generation.current) return;
        setError(asApiError(err));
        setLoading(false);
        busy.current = false;
      },
    );
  }, deps);

  useEffect(() => {
    const gen = ++generation.current;
    setItems([]);
    setError(null);
    setDone(false);
    load(null, gen);
  }, [...deps, tick]);

  const loadMore = useCallback(() => {
    if (busy.current || done || next === null) return;
    load(next, generation.current);
  }, [done, next, load]);
  return { items, error, loading, done, loadMore, reload: useCallback(() => setTick((t) => t + 1), []) };
}

export function Loading({ what }: { what?: string }) {
  return (
    <p class="muted" role="status" aria-live="polite">
      Loading{what ? ` ${what}` : ''}…
    </p>
  );
}

/** A tool's error as the person should read it: what happened, what to do next. */
export function ErrorBox({ error, title }: { error: ApiError; title?: string }) {
  return (
    <div class="error" role="alert">
      <strong>{title ?? 'Something went wrong'}</strong> <code>{error.code}</code>
      <p>{error.message}</p>
    </div>
  );
}

export function Notice({ children, kind = 'ok' }: { children: ComponentChildren; kind?: 'ok' | 'warn' }) {
  return (
    <div class={`notice ${kind}`} role="status" aria-live="polite">
      {children}
    </div>
  );
}

const TABBABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex="0"]';

/** Tab and Shift+Tab wrap around inside `box` (the page behind a modal dialog is inert). */
export function trapTab(e: KeyboardEvent, box: HTMLElement): void {
  if (e.key !== 'Tab') return;
  const stops = Array.from(box.querySelectorAll<HTMLElement>(TABBABLE));
  const first = stops[0];
  const last = stops[stops.length - 1];
  if (!first || !last) return;
  const at = document.activeElement;
  if (e.shiftKey ? at === first || !box.contains(at) : at === last || !box.contains(at)) {
    e.preventDefault();
    (e.shiftKey ? last : first).focus();
  }
}

/**
 * Focus back to the control that opened a dialog; to the page's heading when that control is gone
 * or the dialog's action changed the page under it (a list reloads, a row goes away).
 */
function returnFocus(to: Element | null): void {
  if (to instanceof HTMLElement && to.isConnected) {
    to.focus();
    return;
  }
  const h = document.querySelector<HTMLElement>('main h1');
  if (h) {
    h.tabIndex = -1;
    h.focus();
  }
}

/**
 * A modal confirmation (the native <dialog>: focus moves into it, Escape cancels, the page behind
 * is inert). Tab stays inside it while open; cancelled, it gives focus back to the control that
 * opened it (confirmed, to the page's heading: the action changed the page). `onConfirm` may
 * fail: its error shows in the dialog, which stays open.
 */
export function ConfirmDialog(props: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // The control focused when the dialog was asked for: the button that opens it.
  const opener = useRef<Element | null>(document.activeElement);
  const done = useRef(false);
  const finished = useRef(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await props.onConfirm();
      done.current = true;
      finish();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };
  // Closing is synchronous (not left to the dialog's close event, a task later): a person who
  // presses Escape and at once Enter on the opener gets the dialog again, not a stale close.
  const finish = () => {
    if (finished.current) return;
    finished.current = true;
    if (ref.current?.open) ref.current.close();
    returnFocus(done.current ? null : opener.current);
    props.onClose();
  };
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby="dialog-title"
      onCancel={(e) => {
        e.preventDefault();
        finish();
      }}
      onClose={finish}
      onKeyDown={(e) => trapTab(e, e.currentTarget)}
    >
      <h2 id="dialog-title">{props.title}</h2>
      <div class="dialog-body">{props.children}</div>
      {error && <ErrorBox error={error} title="Not done" />}
      <div class="actions">
        <button type="button" onClick={finish}>
          Cancel
        </button>
        <button type="button" class={props.danger ? 'danger' : 'primary'} disabled={busy} onClick={confirm}>
          {busy ? 'Working…' : props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

export function MoreButton({ paged, label = 'Load more' }: { paged: Paged<unknown>; label?: string }) {
  if (paged.done) return null;
  return (
    <button type="button" class="more" onClick={paged.loadMore} disabled={paged.loading}>
      {paged.loading ? 'Loading…' : label}
    </button>
  );
}

export function Trust({ trust }: { trust: string }) {
  return trust === 'third_party' ? (
    <span class="badge" title="Written by an agent: shown as text, never acted on">
      agent-written
    </span>
  ) : null;
}

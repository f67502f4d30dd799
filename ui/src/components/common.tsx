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

/**
 * A modal confirmation (the native <dialog>: focus moves into it, Escape cancels). `onConfirm`
 * may fail: its error shows in the dialog, which stays open.
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
      ref.current?.close();
      props.onClose();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="dialog-title" onClose={props.onClose}>
      <h2 id="dialog-title">{props.title}</h2>
      <div class="dialog-body">{props.children}</div>
      {error && <ErrorBox error={error} title="Not done" />}
      <div class="actions">
        <button type="button" onClick={() => ref.current?.close()}>
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

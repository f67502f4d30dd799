/**
 * The owner console's frame: the key form (the key goes to sessionStorage only, after
 * get_key_info accepts it), the console's navigation, and the overview of the key.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, setUnauthorizedHandler, signIn, tool } from '../api';
import { ErrorBox, Loading, useAsync } from '../components/common';
import { formatDate, formatSize } from '../format';
import { baseUrl, clearKey, getKey, onBaseOrigin, onKeyChange, setKey } from '../session';
import type { KeyInfo } from '../types';

export function useKey(): string | null {
  const [key, setK] = useState(getKey());
  useEffect(() => onKeyChange(() => setK(getKey())), []);
  return key;
}

/** Why the last session ended (a revoked or expired key), shown on the key form. */
let endedBecause: string | null = null;
setUnauthorizedHandler((message) => {
  endedBecause = message;
  clearKey();
});

export function KeyForm() {
  const [value, setValue] = useState('');
  const [error, setError] = useState<ApiError | null>(endedBecause ? new ApiError('UNAUTHORIZED', endedBecause, 401) : null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const key = value.trim();
    if (!key) return;
    setBusy(true);
    setError(null);
    try {
      await signIn<KeyInfo>(key);
      endedBecause = null;
      setValue('');
      setKey(key);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError('ERROR', String(err), 0));
    } finally {
      setBusy(false);
    }
  };
  if (!onBaseOrigin()) {
    return (
      <div class="notice warn" role="alert">
        This page was opened at {location.origin}, but the service lives at <a href={`${baseUrl()}/console`}>{baseUrl()}</a>. Open the console there:
        a key is only ever sent to the service's own address.
      </div>
    );
  }
  return (
    <form class="key-form" onSubmit={submit} method="post" action="/console" autocomplete="off">
      <h1>Owner console</h1>
      <p>Paste your agent's API key to see its files, their history, what changed, its keys, shares and notifications.</p>
      <label for="api-key">API key</label>
      <input
        id="api-key"
        name="api-key"
        type="password"
        autocomplete="off"
        spellcheck={false}
        placeholder="mk_…"
        value={value}
        onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)}
        required
      />
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Checking…' : 'Open console'}
      </button>
      <p class="muted small">
        The key stays in this tab only (sessionStorage: gone when the tab closes), is never put in a URL or a cookie, and is sent only to {baseUrl()}.
      </p>
      {error && <ErrorBox error={error} title={error.status === 401 ? 'Key refused' : 'Could not check the key'} />}
    </form>
  );
}

const SECTIONS: [string, string][] = [
  ['/console', 'Overview'],
  ['/console/files', 'Files'],
  ['/console/changes', 'Changes'],
  ['/console/deleted', 'Deleted'],
  ['/console/keys', 'Keys'],
  ['/console/shares', 'Shares & links'],
  ['/console/notifications', 'Notifications'],
];

export function ConsoleFrame({ path, children }: { path: string; children: ComponentChildren }) {
  const active = SECTIONS.slice()
    .reverse()
    .find(
      ([href]) =>
        path === href || (href !== '/console' && path.startsWith(href)) || (href === '/console/files' && /^\/console\/(file|history)\//.test(path)),
    );
  return (
    <div class="console">
      <nav class="tabs console-nav" aria-label="Console">
        {SECTIONS.map(([href, label]) => (
          <a key={href} href={href} aria-current={active?.[0] === href ? 'page' : undefined}>
            {label}
          </a>
        ))}
        <button type="button" class="link" onClick={() => clearKey()}>
          Forget key
        </button>
      </nav>
      {children}
    </div>
  );
}

export function Overview() {
  const info = useAsync(() => tool<KeyInfo>('get_key_info'), []);
  if (info.error) return <ErrorBox error={info.error} />;
  if (!info.data) return <Loading what="key" />;
  const k = info.data;
  return (
    <section>
      <h1>{k.agent.name}</h1>
      <dl class="facts">
        <dt>Agent</dt>
        <dd>
          <a href={`/a/${k.agent.slug}`}>@{k.agent.slug}</a> (public profile)
        </dd>
        <dt>This key</dt>
        <dd>
          {k.label} {k.fullAccess ? '(full access)' : k.readOnly ? '(read-only)' : ''}
        </dd>
        <dt>Scopes</dt>
        <dd>{k.scopes.join(', ')}</dd>
        <dt>Folder</dt>
        <dd>{k.folder ?? 'everything'}</dd>
        <dt>Expires</dt>
        <dd>{k.expiresAt ? formatDate(k.expiresAt) : 'never'}</dd>
        <dt>Storage</dt>
        <dd>
          {formatSize(k.usage.storageBytes)} used, {formatSize(k.usage.storageRemainingBytes)} left
        </dd>
        <dt>Files</dt>
        <dd>
          {k.usage.fileCount} ({k.usage.filesRemaining} more allowed)
        </dd>
      </dl>
      <p>
        <a class="button primary" href="/console/files">
          Browse files
        </a>
      </p>
    </section>
  );
}

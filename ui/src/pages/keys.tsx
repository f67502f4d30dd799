/** Keys: list, create (presets, folder, expiry; the new key shown once), revoke with confirmation. */
import { useState } from 'preact/hooks';
import { ApiError, tool } from '../api';
import { ConfirmDialog, ErrorBox, Loading, Notice, useAsync } from '../components/common';
import { formatDate, timeAgo } from '../format';
import type { KeyRow } from '../types';

const PRESETS: [string, string][] = [
  ['read-only', 'Read-only: read everything, change nothing'],
  ['files-read', 'Files, read only'],
  ['files', 'Files: read, write, delete'],
  ['full', 'Full: everything (except purge)'],
];

const EXPIRIES: [string, string][] = [
  ['3600', '1 hour'],
  ['86400', '1 day'],
  ['604800', '7 days'],
  ['2592000', '30 days'],
  ['31536000', '1 year'],
  ['', 'Never'],
];

interface Created {
  apiKey: string;
  label: string;
  keyId: string;
  warnings?: string[];
}

function CreateKey({ onCreated }: { onCreated: (k: Created) => void }) {
  const [label, setLabel] = useState('');
  const [preset, setPreset] = useState('read-only');
  const [folder, setFolder] = useState('');
  const [expires, setExpires] = useState('604800');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const k = await tool<Created>('create_key', {
        label: label.trim() || preset,
        preset,
        ...(folder.trim() ? { folder: folder.trim() } : {}),
        ...(expires ? { expiresInSeconds: Number(expires) } : {}),
      });
      setLabel('');
      setFolder('');
      onCreated(k);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError('ERROR', String(err), 0));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card form-grid" onSubmit={submit} aria-labelledby="h-newkey">
      <h2 id="h-newkey">New key</h2>
      <label for="key-label">Label</label>
      <input
        id="key-label"
        value={label}
        maxLength={64}
        placeholder="e.g. ci-reader"
        onInput={(e) => setLabel((e.currentTarget as HTMLInputElement).value)}
      />
      <label for="key-preset">Access</label>
      <select id="key-preset" value={preset} onChange={(e) => setPreset((e.currentTarget as HTMLSelectElement).value)}>
        {PRESETS.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
      <label for="key-folder">Folder (optional)</label>
      <input id="key-folder" value={folder} placeholder="/projects/x" onInput={(e) => setFolder((e.currentTarget as HTMLInputElement).value)} />
      <label for="key-expiry">Expires after</label>
      <select id="key-expiry" value={expires} onChange={(e) => setExpires((e.currentTarget as HTMLSelectElement).value)}>
        {EXPIRIES.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
      <span />
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Creating…' : 'Create key'}
      </button>
      {error && <ErrorBox error={error} title="Key not created" />}
    </form>
  );
}

/** The new key, shown this once: the service keeps only its hash. */
function NewKey({ k, onDismiss }: { k: Created; onDismiss: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="card new-key" role="alert" aria-labelledby="h-created">
      <h2 id="h-created">Key “{k.label}” created</h2>
      <p>
        <strong>Copy it now: it is shown only this once.</strong> The service stores only its hash and cannot show it again.
      </p>
      <label for="new-key-value">New API key</label>
      <input id="new-key-value" class="mono" readOnly value={k.apiKey} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
      {k.warnings?.map((w) => (
        <p key={w} class="notice warn">
          {w}
        </p>
      ))}
      <div class="actions">
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard?.writeText(k.apiKey).then(() => setCopied(true));
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" class="primary" onClick={onDismiss}>
          I saved it — hide the key
        </button>
      </div>
    </div>
  );
}

function KeyTable({ keys, onRevoke }: { keys: KeyRow[]; onRevoke: (k: KeyRow) => void }) {
  return (
    <table class="table">
      <caption>Keys of this agent</caption>
      <thead>
        <tr>
          <th scope="col">Label</th>
          <th scope="col">Key</th>
          <th scope="col">Access</th>
          <th scope="col">Last used</th>
          <th scope="col">Expires</th>
          <th scope="col">State</th>
        </tr>
      </thead>
      <tbody>
        {keys.map((k) => (
          <tr key={k.keyId}>
            <td data-label="Label">
              {k.label}
              {k.current ? ' (this session)' : ''}
            </td>
            <td data-label="Key" class="mono">
              {k.preview}
            </td>
            <td data-label="Access">
              {k.readOnly ? 'read-only' : k.scopes.length > 6 ? 'full' : k.scopes.join(', ')}
              {k.folder ? ` in ${k.folder}` : ''}
            </td>
            <td data-label="Last used">{k.lastUsedAt ? timeAgo(k.lastUsedAt) : 'never'}</td>
            <td data-label="Expires">{k.expiresAt ? formatDate(k.expiresAt) : 'never'}</td>
            <td data-label="State">
              {k.revokedAt ? (
                `revoked ${formatDate(k.revokedAt)}`
              ) : (
                <button type="button" class="small danger" onClick={() => onRevoke(k)} aria-label={`Revoke key ${k.label}`}>
                  Revoke…
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Keys() {
  const keys = useAsync(() => tool<{ keys: KeyRow[] }>('list_keys'), []);
  const [created, setCreated] = useState<Created | null>(null);
  const [revoking, setRevoking] = useState<KeyRow | null>(null);
  const [done, setDone] = useState<string | null>(null);
  return (
    <section>
      <h1>Keys</h1>
      {created ? (
        <NewKey k={created} onDismiss={() => setCreated(null)} />
      ) : (
        <CreateKey
          onCreated={(k) => {
            setCreated(k);
            keys.reload();
          }}
        />
      )}
      {done && <Notice>{done}</Notice>}
      {keys.error && <ErrorBox error={keys.error} />}
      {!keys.data && !keys.error && <Loading what="keys" />}
      {keys.data && <KeyTable keys={keys.data.keys} onRevoke={setRevoking} />}
      {revoking && (
        <ConfirmDialog
          title={`Revoke key “${revoking.label}”?`}
          confirmLabel="Revoke key"
          danger
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await tool('revoke_key', { keyId: revoking.keyId });
            setDone(`Key “${revoking.label}” (${revoking.preview}) is revoked: it stops working at once.`);
            keys.reload();
          }}
        >
          <p>
            {revoking.preview} stops working at once{revoking.current ? ', including this console session' : ''}. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

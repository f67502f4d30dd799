/** Shares and links (list, create, revoke) and notifications. */
import { useState } from 'preact/hooks';
import { ApiError, tool } from '../api';
import { ConfirmDialog, ErrorBox, MoreButton, Notice, usePaged } from '../components/common';
import { formatDate, timeAgo } from '../format';
import type { Items, Notification, Share } from '../types';

function useShares(direction: 'outgoing' | 'incoming', tick: number) {
  return usePaged<Share, string>(
    (cursor) =>
      tool<Items<Share>>('list_shares', { direction, limit: 50, ...(cursor ? { cursor } : {}) }).then((r) => ({
        items: r.items,
        next: r.nextCursor,
      })),
    [direction, tick],
  );
}

function asError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError('ERROR', String(err), 0);
}

function NewShare({ onDone, initialPath = '' }: { onDone: (msg: string) => void; initialPath?: string }) {
  const [kind, setKind] = useState<'agent' | 'link'>('link');
  const [path, setPath] = useState(initialPath);
  const [withSlug, setWith] = useState('');
  const [permission, setPermission] = useState('read');
  const [days, setDays] = useState('7');
  const [error, setError] = useState<ApiError | null>(null);
  const [url, setUrl] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setUrl(null);
    const expiresInSeconds = Number(days) * 86400;
    try {
      if (kind === 'link') {
        const r = await tool<{ link: { url: string; path: string } }>('create_link', { path: path.trim(), expiresInSeconds });
        setUrl(r.link.url);
        onDone(`Link to ${r.link.path} created.`);
      } else {
        const r = await tool<{ share: Share }>('share', { path: path.trim(), with: withSlug.trim(), permission, expiresInSeconds });
        onDone(`${r.share.path} shared with @${r.share.with?.slug ?? withSlug} (${r.share.permission}).`);
      }
    } catch (err) {
      setError(asError(err));
    }
  };
  return (
    <form class="card form-grid" onSubmit={submit} aria-labelledby="h-newshare">
      <h2 id="h-newshare">Share a file or folder</h2>
      <label for="share-kind">Kind</label>
      <select id="share-kind" value={kind} onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value as 'agent' | 'link')}>
        <option value="link">Link anyone can open</option>
        <option value="agent">With another agent</option>
      </select>
      <label for="share-path">Path</label>
      <input
        id="share-path"
        required
        placeholder="/notes/todo.md"
        value={path}
        onInput={(e) => setPath((e.currentTarget as HTMLInputElement).value)}
      />
      {kind === 'agent' && (
        <>
          <label for="share-with">Agent (slug)</label>
          <input id="share-with" required value={withSlug} onInput={(e) => setWith((e.currentTarget as HTMLInputElement).value)} />
          <label for="share-perm">Permission</label>
          <select id="share-perm" value={permission} onChange={(e) => setPermission((e.currentTarget as HTMLSelectElement).value)}>
            <option value="read">Read</option>
            <option value="write">Read and write</option>
          </select>
        </>
      )}
      <label for="share-days">Expires after (days)</label>
      <input id="share-days" type="number" min={1} max={365} value={days} onInput={(e) => setDays((e.currentTarget as HTMLInputElement).value)} />
      <span />
      <button type="submit" class="primary">
        {kind === 'link' ? 'Create link' : 'Share'}
      </button>
      {url && (
        <p class="notice ok">
          Link: <a href={url}>{url}</a>
        </p>
      )}
      {error && <ErrorBox error={error} title="Not shared" />}
    </form>
  );
}

function ShareList({
  title,
  direction,
  tick,
  onRevoke,
}: {
  title: string;
  direction: 'outgoing' | 'incoming';
  tick: number;
  onRevoke?: (s: Share) => void;
}) {
  const paged = useShares(direction, tick);
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {paged.error && <ErrorBox error={paged.error} />}
      {!paged.loading && !paged.items.length && <p class="muted">None.</p>}
      <ul class="cards">
        {paged.items.map((s) => (
          <li key={s.shareId} class="card row-between">
            <span>
              <strong>{s.kind === 'link' ? 'Link' : direction === 'outgoing' ? `→ @${s.with?.slug}` : `← @${s.owner.slug}`}</strong>{' '}
              <code>{s.mountPath ?? s.path}</code>{' '}
              <span class="meta">
                {s.permission} · {s.status} · created {timeAgo(s.createdAt)} · expires {s.expiresAt ? formatDate(s.expiresAt) : 'never'}
              </span>
            </span>
            {onRevoke && s.status === 'active' && (
              <button type="button" class="small danger" onClick={() => onRevoke(s)} aria-label={`Revoke ${s.kind} ${s.path}`}>
                Revoke…
              </button>
            )}
          </li>
        ))}
      </ul>
      <MoreButton paged={paged} />
    </section>
  );
}

/** `prefill`: the path a file's Share action opened this page for (?path=…), put in the form. */
export function Shares({ prefill }: { prefill?: string }) {
  const [tick, setTick] = useState(0);
  const [done, setDone] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<Share | null>(null);
  return (
    <section>
      <h1>Shares &amp; links</h1>
      <NewShare
        key={prefill}
        initialPath={prefill}
        onDone={(m) => {
          setDone(m);
          setTick((t) => t + 1);
        }}
      />
      {done && <Notice>{done}</Notice>}
      <ShareList title="Shared by you" direction="outgoing" tick={tick} onRevoke={setRevoking} />
      <ShareList title="Shared with you" direction="incoming" tick={tick} />
      {revoking && (
        <ConfirmDialog
          title={`Revoke this ${revoking.kind === 'link' ? 'link' : 'share'}?`}
          confirmLabel="Revoke"
          danger
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await tool('revoke_share', { shareId: revoking.shareId });
            setDone(`Revoked: ${revoking.path} is no longer shared${revoking.with ? ` with @${revoking.with.slug}` : ' by that link'}.`);
            setTick((t) => t + 1);
          }}
        >
          <p>
            {revoking.kind === 'link' ? 'Anyone opening the link' : `@${revoking.with?.slug}`} loses access to {revoking.path} at once.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

export function Notifications() {
  const [tick, setTick] = useState(0);
  const [unread, setUnread] = useState<number | null>(null);
  const paged = usePaged<Notification, string>(
    (cursor) =>
      tool<Items<Notification> & { unreadCount: number }>('list_notifications', { limit: 50, ...(cursor ? { cursor } : {}) }).then((r) => {
        setUnread(r.unreadCount);
        return { items: r.items, next: r.nextCursor };
      }),
    [tick],
  );
  const [error, setError] = useState<ApiError | null>(null);
  const markAll = async () => {
    try {
      await tool('mark_notifications_read', { all: true });
      setTick((t) => t + 1);
    } catch (err) {
      setError(asError(err));
    }
  };
  return (
    <section>
      <h1>Notifications</h1>
      <div class="actions">
        <span class="meta">{unread ?? '…'} unread</span>
        <button type="button" onClick={() => void markAll()} disabled={!unread}>
          Mark all read
        </button>
      </div>
      {(error ?? paged.error) && <ErrorBox error={(error ?? paged.error)!} />}
      {!paged.loading && !paged.items.length && <p class="muted">No notifications.</p>}
      <ul class="cards">
        {paged.items.map((n) => (
          <li key={n.id} class={`card${n.read ? '' : ' unread'}`}>
            <p class="meta">
              {n.read ? '' : '● '}
              <strong>{n.type.replace('_', ' ')}</strong> from <a href={`/a/${n.actor.slug}`}>@{n.actor.slug}</a> · {timeAgo(n.createdAt)}
            </p>
            {n.preview && <p>{n.preview}</p>}
            {n.object.id?.startsWith('pst_') && <a href={`/posts/${n.object.id}`}>Open post</a>}
          </li>
        ))}
      </ul>
      <MoreButton paged={paged} />
    </section>
  );
}

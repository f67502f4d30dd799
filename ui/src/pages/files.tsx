/** Public file pages: a published file or directory (/published/{slug}/…) and a link (/l/{token}). */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, publicTool } from '../api';
import { FileBody, bytesOf, download } from '../components/Content';
import { ErrorBox, Loading, useAsync } from '../components/common';
import { baseName, formatDate, formatSize, parentOf } from '../format';
import { encodePath } from '../router';
import type { ListResult, ReadResult, StatResult } from '../types';
import { AgentLink } from './public';

function PublishedDir({ path }: { path: string }) {
  const list = useAsync(() => publicTool<ListResult>('list', { path, limit: 1000 }), [path]);
  if (list.error) return <ErrorBox error={list.error} />;
  if (!list.data) return <Loading what="directory" />;
  return (
    <ul class="entries">
      {list.data.entries.map((e) => (
        <li key={e.path}>
          <a href={encodePath(e.path)}>
            {e.name}
            {e.type === 'directory' ? '/' : ''}
          </a>{' '}
          <span class="muted">{e.type === 'file' ? formatSize(e.size) : ''}</span>
        </li>
      ))}
      {list.data.nextCursor && <li class="muted">… more entries: use the agent API (list) to page through all of them.</li>}
    </ul>
  );
}

export function PublishedPage({ path }: { path: string }) {
  const slug = path.split('/')[2] ?? '';
  const stat = useAsync(() => publicTool<StatResult>('stat', { path }), [path]);
  const read = useAsync(
    () => (stat.data?.type === 'file' ? publicTool<ReadResult>('read', { path }) : Promise.resolve(null)),
    [path, stat.data?.type],
  );
  const saveAll = async () => {
    const r = await publicTool<ReadResult>('read', { path, encoding: 'base64' });
    download(baseName(path), bytesOf(r.content, 'base64'));
  };
  return (
    <article class="file-page">
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href={`/a/${encodeURIComponent(slug)}`}>@{slug}</a>
        {path.split('/').length > 3 && (
          <>
            {' / '}
            <a href={encodePath(parentOf(path))}>{parentOf(path).split('/').slice(3).join('/') || '…'}</a>
          </>
        )}
      </nav>
      <h1>{baseName(path)}</h1>
      {stat.error && <ErrorBox error={stat.error} title="Not published" />}
      {stat.data && (
        <p class="meta">
          Published by <AgentLink who={{ slug }} /> · version {stat.data.version} · {formatDate(stat.data.updatedAt)}
          {stat.data.type === 'file' ? ` · ${formatSize(stat.data.size)}` : ''}
        </p>
      )}
      {stat.data?.type === 'directory' && <PublishedDir path={path} />}
      {stat.data?.type === 'file' && (
        <>
          <div class="actions">
            <button type="button" onClick={() => void saveAll()}>
              Download
            </button>
          </div>
          {read.error && <ErrorBox error={read.error} />}
          {read.data ? (
            <FileBody path={path} content={read.data.content} encoding={read.data.encoding} size={read.data.size} truncated={read.data.truncated} />
          ) : (
            <Loading what="file" />
          )}
        </>
      )}
    </article>
  );
}

interface LinkState {
  kind: 'file' | 'dir' | 'error';
  text?: string;
  binary?: boolean;
  size?: number;
  name?: string;
  listing?: { path: string; entries: { name: string; path: string; type: string; size: number; updatedAt: string }[]; nextCursor: string | null };
  error?: ApiError;
}

/** Fetches the link's bytes (?raw) the way any program would, and decides how to show them. */
async function loadLink(urlPath: string): Promise<LinkState> {
  const res = await fetch(`${urlPath}?raw`, { credentials: 'omit', cache: 'no-store' });
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
    return {
      kind: 'error',
      error: new ApiError(body?.error?.code ?? `HTTP_${res.status}`, body?.error?.message ?? `HTTP ${res.status}`, res.status),
    };
  }
  // A directory listing is JSON without an ETag; a file always has one (its content hash).
  if (type.startsWith('application/json') && !res.headers.get('etag')) return { kind: 'dir', listing: await res.json() };
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  const binary = bytes.subarray(0, 8000).includes(0) || (!type.startsWith('text/') && !type.includes('json') && !type.includes('xml'));
  const named = /filename\*=UTF-8''([^;]+)/.exec(res.headers.get('content-disposition') ?? '');
  return { kind: 'file', text, binary, size: bytes.length, name: named ? decodeURIComponent(named[1]!) : undefined };
}

export function LinkPage({ urlPath }: { urlPath: string }) {
  const [state, setState] = useState<LinkState | null>(null);
  useEffect(() => {
    let live = true;
    loadLink(urlPath).then(
      (s) => live && setState(s),
      () => live && setState({ kind: 'error', error: new ApiError('NETWORK', 'The service did not answer.', 0) }),
    );
    return () => {
      live = false;
    };
  }, [urlPath]);
  const parts = urlPath.split('/');
  const name = state?.name ?? (parts.length > 3 ? decodeURIComponent(parts[parts.length - 1]!) : 'Shared file');
  return (
    <article class="file-page">
      <p class="muted">A link shared by an agent's owner. Anyone with this address can read it.</p>
      <h1>{state?.kind === 'dir' ? 'Shared folder' : name}</h1>
      {!state && <Loading what="link" />}
      {state?.kind === 'error' && state.error && (
        <ErrorBox error={state.error} title={state.error.status === 410 ? 'This link no longer works' : 'No such link'} />
      )}
      {state?.kind === 'file' && (
        <>
          <div class="actions">
            <a class="button" href={`${urlPath}?raw`} rel="noopener">
              Raw
            </a>
            <a class="button" href={`${urlPath}?raw`} download={name}>
              Download
            </a>
            <span class="muted">{formatSize(state.size ?? 0)}</span>
          </div>
          <FileBody path={name} content={state.binary ? '' : (state.text ?? '')} encoding={state.binary ? 'base64' : 'utf8'} size={state.size ?? 0} />
        </>
      )}
      {state?.kind === 'dir' && state.listing && (
        <ul class="entries">
          {state.listing.entries.map((e) => (
            <li key={e.path}>
              <a href={`${parts.slice(0, 3).join('/')}${encodePath(e.path)}`}>
                {e.name}
                {e.type === 'directory' ? '/' : ''}
              </a>{' '}
              <span class="muted">{e.type === 'file' ? formatSize(e.size) : ''}</span>
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}

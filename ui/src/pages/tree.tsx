/** The console's file tree (virtualized, paged by the list tool's cursor) and a file's view. */
import { tool } from '../api';
import { FileBody, bytesOf, download } from '../components/Content';
import { ErrorBox, Loading, Notice, useAsync, usePaged } from '../components/common';
import { VirtualList } from '../components/VirtualList';
import { baseName, formatDate, formatSize, parentOf, timeAgo } from '../format';
import { encodePath } from '../router';
import type { Entry, ListResult, ReadResult, StatResult } from '../types';

export const filesHref = (path: string) => `/console/files${path === '/' ? '' : encodePath(path)}`;
export const fileHref = (path: string) => `/console/file${encodePath(path)}`;
export const historyHref = (path: string) => `/console/history${encodePath(path)}`;

export function Breadcrumbs({ path, leafIsFile = false }: { path: string; leafIsFile?: boolean }) {
  const parts = path.split('/').filter(Boolean);
  return (
    <nav class="crumbs" aria-label="Breadcrumb">
      <a href={filesHref('/')}>Files</a>
      {parts.map((p, i) => {
        const sub = '/' + parts.slice(0, i + 1).join('/');
        const last = i === parts.length - 1;
        return (
          <span key={sub}>
            {' / '}
            {last ? <span aria-current="page">{p}</span> : <a href={leafIsFile && last ? fileHref(sub) : filesHref(sub)}>{p}</a>}
          </span>
        );
      })}
    </nav>
  );
}

const ROW_HEIGHT = 40;

function EntryRow({ e }: { e: Entry }) {
  const dir = e.type === 'directory';
  return (
    <div class="entry-row">
      <a class={`name${dir ? ' dir' : ''}`} href={dir ? filesHref(e.path) : fileHref(e.path)}>
        {e.name}
        {dir ? '/' : ''}
      </a>
      <span class="size">{dir ? '—' : formatSize(e.size)}</span>
      <span class="date" title={formatDate(e.updatedAt)}>
        {timeAgo(e.updatedAt)}
      </span>
      <span class="ver">v{e.version}</span>
    </div>
  );
}

export function Files({ path }: { path: string }) {
  const paged = usePaged<Entry, string>(
    (cursor) =>
      // The console shows the owner's own tree: the mount points / lists are left out (the Shares page has them).
      tool<ListResult>('list', { path, limit: 1000, ...(cursor ? { cursor } : {}) }).then((r) => ({
        items: r.entries.filter((e) => !e.mount),
        next: r.nextCursor,
      })),
    [path],
  );
  return (
    <section class="files">
      <Breadcrumbs path={path} />
      <h1>{path === '/' ? 'Files' : baseName(path) + '/'}</h1>
      {path !== '/' && (
        <p>
          <a href={filesHref(parentOf(path))}>↑ Up to {parentOf(path)}</a>
        </p>
      )}
      {paged.error && <ErrorBox error={paged.error} title={`Cannot list ${path}`} />}
      <div class="entry-head" aria-hidden="true">
        <span>Name</span>
        <span>Size</span>
        <span>Modified</span>
        <span>Version</span>
      </div>
      {paged.items.length > 0 ? (
        <VirtualList
          items={paged.items}
          rowHeight={ROW_HEIGHT}
          label={`Contents of ${path}`}
          onNearEnd={paged.loadMore}
          render={(e) => <EntryRow e={e} />}
        />
      ) : paged.loading ? (
        <Loading what="files" />
      ) : (
        !paged.error && <p class="muted">This directory is empty.</p>
      )}
      <p class="muted small" role="status">
        {paged.items.length} entries{paged.done ? '' : ' loaded, more as you scroll'}
      </p>
    </section>
  );
}

export const sharesHref = (path: string) => `/console/shares?path=${encodeURIComponent(path)}`;

function FileMeta({ s, old }: { s: StatResult; old: boolean }) {
  return (
    <p class="meta">
      version {s.version}
      {s.versionCount ? ` of ${s.versionCount}` : ''} · {formatSize(s.size)}
      {s.lineCount !== null ? ` · ${s.lineCount} lines` : ''} · {old ? 'written' : 'modified'} {formatDate(s.updatedAt)}
      {s.updatedBy?.label ? ` by key “${s.updatedBy.label}”` : ''}
    </p>
  );
}

/**
 * A file: its current version, or with `version` (from ?version=N, the history's View links)
 * that earlier version as it was, which stat and read give for a deleted file too.
 */
export function FileView({ path, version }: { path: string; version?: number }) {
  const at = version === undefined ? {} : { version };
  const stat = useAsync(() => tool<StatResult>('stat', { path, ...at }), [path, version]);
  const read = useAsync(
    () => (stat.data?.type === 'file' ? tool<ReadResult>('read', { path, ...at }) : Promise.resolve(null)),
    [path, version, stat.data?.version],
  );
  const save = async () => {
    const r = await tool<ReadResult>('read', { path, ...at, encoding: 'base64' });
    download(baseName(path), bytesOf(r.content, 'base64'));
  };
  if (stat.error) {
    return (
      <section>
        <Breadcrumbs path={path} leafIsFile />
        <ErrorBox error={stat.error} title={`Cannot open ${path}${version === undefined ? '' : ` at version ${version}`}`} />
        <p>
          Deleted? See <a href="/console/deleted">deleted files</a> or its <a href={historyHref(path)}>history</a>.
        </p>
      </section>
    );
  }
  if (!stat.data) return <Loading what="file" />;
  const old = version !== undefined;
  return (
    <section class="file-view">
      <Breadcrumbs path={path} leafIsFile />
      <h1>
        {baseName(path)}
        {old ? ` at version ${version}` : ''}
      </h1>
      <FileMeta s={stat.data} old={old} />
      {old && (
        <Notice kind="warn">
          An earlier version, as it was then. <a href={fileHref(path)}>See the current version</a> or restore this one from the history.
        </Notice>
      )}
      <div class="actions">
        <a class="button primary" href={historyHref(path)}>
          History
        </a>
        <button type="button" onClick={() => void save()}>
          Download{old ? ` version ${version}` : ''}
        </button>
        {!old && (
          <a class="button" href={sharesHref(path)} aria-label={`Share ${path}`}>
            Share…
          </a>
        )}
      </div>
      {read.error && <ErrorBox error={read.error} />}
      {read.data ? (
        <FileBody path={path} content={read.data.content} encoding={read.data.encoding} size={read.data.size} truncated={read.data.truncated} />
      ) : (
        <Loading what="content" />
      )}
    </section>
  );
}

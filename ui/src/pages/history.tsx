/**
 * A file's version timeline (virtualized, paged by list_versions' nextCursor), the diff between
 * any two versions (the diff tool; unified or side by side), and restore with confirmation.
 */
import { useState } from 'preact/hooks';
import { tool } from '../api';
import { ConfirmDialog, ErrorBox, Loading, Notice, useAsync, usePaged } from '../components/common';
import { VirtualList } from '../components/VirtualList';
import { parseUnified, sideBySide, type DiffLine } from '../diff';
import { formatDate, formatSize } from '../format';
import type { DiffResult, Version, VersionsResult } from '../types';
import { Breadcrumbs, fileHref } from './tree';

const ROW_HEIGHT = 44;

function LineNo({ n }: { n: number | null }) {
  return <span class="ln">{n ?? ''}</span>;
}

function Unified({ lines }: { lines: DiffLine[] }) {
  return (
    <div class="diff unified" role="table" aria-label="Unified diff" tabIndex={0}>
      {lines.map((l, i) => (
        <div key={i} role="row" class={`dl ${l.kind}`}>
          <LineNo n={l.oldNo} />
          <LineNo n={l.newNo} />
          <span class="mark" aria-hidden="true">
            {l.kind === 'add' ? '+' : l.kind === 'del' ? '−' : ' '}
          </span>
          <span class="text" aria-label={l.kind === 'add' ? 'added' : l.kind === 'del' ? 'removed' : undefined}>
            {l.text}
          </span>
        </div>
      ))}
    </div>
  );
}

function SideBySide({ lines }: { lines: DiffLine[] }) {
  const rows = sideBySide(lines);
  return (
    <div class="diff split" role="table" aria-label="Side-by-side diff" tabIndex={0}>
      {rows.map((r, i) =>
        r.hunk ? (
          <div key={i} role="row" class="dl hunk full">
            <span class="text">{r.hunk}</span>
          </div>
        ) : (
          <div key={i} role="row" class="srow">
            <div class={`dl ${r.left ? (r.left.kind === 'del' ? 'del' : 'context') : 'empty'}`}>
              <LineNo n={r.left?.oldNo ?? null} />
              <span class="text">{r.left?.text ?? ''}</span>
            </div>
            <div class={`dl ${r.right ? (r.right.kind === 'add' ? 'add' : 'context') : 'empty'}`}>
              <LineNo n={r.right?.newNo ?? null} />
              <span class="text">{r.right?.text ?? ''}</span>
            </div>
          </div>
        ),
      )}
    </div>
  );
}

export function DiffView({ path, from, to }: { path: string; from: number; to: number }) {
  const [mode, setMode] = useState<'unified' | 'split'>('split');
  const d = useAsync(() => tool<DiffResult>('diff', { path, fromVersion: from, toVersion: to }), [path, from, to]);
  if (d.error) return <ErrorBox error={d.error} title="No diff" />;
  if (!d.data) return <Loading what="diff" />;
  const r = d.data;
  const lines = parseUnified(r.diff);
  return (
    <section class="diff-box" aria-labelledby="h-diff">
      <h2 id="h-diff">
        Version {r.fromVersion} → version {r.toVersion}
      </h2>
      {r.diffStats && (
        <p class="meta">
          <span class="added">+{r.diffStats.added}</span> <span class="removed">−{r.diffStats.removed}</span> in {r.diffStats.hunks} hunks
        </p>
      )}
      {r.identical && <p class="muted">The two versions are identical.</p>}
      {r.binary && <p class="muted">A side is binary: they {r.identical ? 'are the same' : 'differ'}.</p>}
      {!r.identical && !r.binary && (
        <>
          <div class="segmented" role="group" aria-label="Diff layout">
            <button type="button" aria-pressed={mode === 'split'} onClick={() => setMode('split')}>
              Side by side
            </button>
            <button type="button" aria-pressed={mode === 'unified'} onClick={() => setMode('unified')}>
              Unified
            </button>
          </div>
          {mode === 'split' ? <SideBySide lines={lines} /> : <Unified lines={lines} />}
        </>
      )}
      {r.diffTruncated && <p class="muted">The diff was cut: it is longer than the service sends at once.</p>}
    </section>
  );
}

function RestoreDialog({ path, v, onConfirm, onClose }: { path: string; v: Version; onConfirm: () => Promise<void>; onClose: () => void }) {
  return (
    <ConfirmDialog title={`Restore version ${v.version}?`} confirmLabel={`Restore version ${v.version}`} onConfirm={onConfirm} onClose={onClose}>
      <p>
        {path} gets a new version with the content of version {v.version} ({formatSize(v.size)}, {formatDate(v.updatedAt)}). Nothing is lost: the
        current version stays in the history.
      </p>
    </ConfirmDialog>
  );
}

interface Selection {
  from: number | null;
  to: number | null;
}

function VersionRow(props: {
  v: Version;
  path: string;
  current: number;
  sel: Selection;
  setSel: (s: Selection) => void;
  onRestore: (v: Version) => void;
}) {
  const { v, sel } = props;
  const here = v.path === props.path;
  return (
    <div class={`version-row${v.deleted ? ' deleted' : ''}`}>
      <input
        type="radio"
        name="from"
        aria-label={`Compare from version ${v.version}`}
        disabled={!here}
        checked={here && sel.from === v.version}
        onChange={() => props.setSel({ ...sel, from: v.version })}
      />
      <input
        type="radio"
        name="to"
        aria-label={`Compare to version ${v.version}`}
        disabled={!here}
        checked={here && sel.to === v.version}
        onChange={() => props.setSel({ ...sel, to: v.version })}
      />
      <span class="ver">v{v.version}</span>
      <span class={`op op-${v.op}`}>{v.deleted ? 'deleted' : v.op}</span>
      <span class="date">{formatDate(v.updatedAt)}</span>
      <span class="size">{v.deleted ? '' : formatSize(v.size)}</span>
      <span class="by">{v.by.label ?? ''}</span>
      <span class="row-actions">
        {here && !v.deleted && (
          <a href={`${fileHref(props.path)}?version=${v.version}`} aria-label={`View version ${v.version}`}>
            View
          </a>
        )}
        {here && !v.deleted && v.version !== props.current ? (
          <button type="button" class="small" onClick={() => props.onRestore(v)} aria-label={`Restore version ${v.version}`}>
            Restore…
          </button>
        ) : (
          <span class="muted small">{here ? (v.version === props.current ? 'current' : '') : `at ${v.path}`}</span>
        )}
      </span>
    </div>
  );
}

/** The columns' names, for the eye (each control in a row has its own label). */
function VersionHead() {
  return (
    <div class="version-head" aria-hidden="true">
      <span>From</span>
      <span>To</span>
      <span>Version</span>
      <span>Change</span>
      <span>When</span>
      <span>Size</span>
      <span>By key</span>
      <span />
    </div>
  );
}

export function History({ path }: { path: string }) {
  const [head, setHead] = useState<{ current: number; deleted: boolean } | null>(null);
  const paged = usePaged<Version, string>(
    (cursor) =>
      tool<VersionsResult>('list_versions', { path, limit: 200, ...(cursor ? { cursor } : {}) }).then((r) => {
        setHead({ current: r.currentVersion, deleted: r.deleted });
        return { items: r.versions, next: r.nextCursor };
      }),
    [path],
  );
  const [sel, setSel] = useState<Selection>({ from: null, to: null });
  const [compare, setCompare] = useState<{ from: number; to: number } | null>(null);
  const [restoring, setRestoring] = useState<Version | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const own = paged.items.filter((v) => v.path === path && !v.deleted);
  // Until the owner picks, compare the two newest versions.
  const from = sel.from ?? own[1]?.version ?? null;
  const to = sel.to ?? own[0]?.version ?? null;
  const restore = async (v: Version) => {
    const r = await tool<{ version: number; undeleted: boolean }>('restore', {
      path,
      version: v.version,
      ...(head ? { expectedVersion: head.current } : {}),
    });
    setDone(`Restored version ${v.version}${r.undeleted ? ' (the file was deleted: it is back)' : ''}: it is now version ${r.version}.`);
    setCompare(null);
    setSel({ from: null, to: null });
    paged.reload();
  };
  return (
    <section class="history">
      <Breadcrumbs path={path} leafIsFile />
      <h1>History of {path}</h1>
      {head && <p class="meta">{head.deleted ? 'Deleted now' : <a href={fileHref(path)}>Current: version {head.current}</a>}</p>}
      {done && <Notice>{done}</Notice>}
      {paged.error && <ErrorBox error={paged.error} />}
      <div class="actions">
        <button
          type="button"
          class="primary"
          disabled={from === null || to === null || from === to}
          onClick={() => setCompare({ from: from!, to: to! })}
        >
          Compare v{from ?? '?'} → v{to ?? '?'}
        </button>
        <span class="muted small">Pick two versions with each row's From and To (keyboard: ↑ and ↓ move between rows, Space picks).</span>
      </div>
      {compare && <DiffView path={path} from={compare.from} to={compare.to} />}
      <VersionHead />
      {paged.items.length > 0 ? (
        <VirtualList
          items={paged.items}
          rowHeight={ROW_HEIGHT}
          label={`Versions of ${path}`}
          onNearEnd={paged.loadMore}
          render={(v) => <VersionRow v={v} path={path} current={head?.current ?? 0} sel={{ from, to }} setSel={setSel} onRestore={setRestoring} />}
        />
      ) : (
        paged.loading && <Loading what="versions" />
      )}
      <p class="muted small" role="status">
        {paged.items.length} versions{paged.done ? '' : ' loaded, more as you scroll'}
      </p>
      {restoring && <RestoreDialog path={path} v={restoring} onConfirm={() => restore(restoring)} onClose={() => setRestoring(null)} />}
    </section>
  );
}

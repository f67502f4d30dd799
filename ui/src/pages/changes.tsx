/** The changes feed (revert a changeset) and deleted files (undelete), both with confirmation. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, tool } from '../api';
import { ConfirmDialog, ErrorBox, Loading, MoreButton, Notice, usePaged } from '../components/common';
import { formatDate } from '../format';
import type { Changeset } from '../types';
import { fileHref, historyHref } from './tree';

interface RevertPlan {
  entries: { path: string; op: string; fromVersion: number | null }[];
  entryCount: number;
}

/**
 * What a path goes back to: the version it had before the changeset (the changeset's own entry:
 * the dry run's fromVersion is the version the revert starts from, i.e. today's).
 */
function backTo(cs: Changeset, path: string): string {
  const entry = cs.entries.find((e) => e.path === path);
  if (!entry) return 'back as before this change';
  return entry.fromVersion === null ? 'removed (it did not exist before)' : `as at version ${entry.fromVersion}`;
}

function RevertDialog({ cs, onDone, onClose }: { cs: Changeset; onDone: (msg: string) => void; onClose: () => void }) {
  const [plan, setPlan] = useState<RevertPlan | null>(null);
  const [conflict, setConflict] = useState<ApiError | null>(null);
  // The dry run shows what the revert will do (or that later changes conflict) before asking.
  useEffect(() => {
    tool<RevertPlan>('revert_changeset', { changesetId: cs.changesetId, dryRun: true }).then(setPlan, (e: unknown) => {
      if (e instanceof ApiError) setConflict(e);
    });
  }, [cs.changesetId]);
  const force = conflict?.code === 'EDIT_CONFLICT';
  return (
    <ConfirmDialog
      title={`Revert change #${cs.seq}?`}
      confirmLabel={force ? 'Revert anyway (overwrite later changes)' : 'Revert'}
      danger={force}
      onConfirm={async () => {
        const r = await tool<{ changesetId: string; entryCount: number }>('revert_changeset', {
          changesetId: cs.changesetId,
          ...(force ? { force: true } : {}),
        });
        onDone(`Reverted change #${cs.seq}: ${r.entryCount} path${r.entryCount === 1 ? '' : 's'} back as before (new change ${r.changesetId}).`);
      }}
      onClose={onClose}
    >
      <p>Every path this {cs.tool} call changed goes back to what it was before it, as a new change (nothing is lost; you can revert the revert).</p>
      {conflict && <ErrorBox error={conflict} title={force ? 'Changed since' : 'Cannot revert'} />}
      {plan && (
        <ul class="plain small">
          {plan.entries.slice(0, 20).map((e) => (
            <li key={e.path}>
              <code>{e.path}</code> → {backTo(cs, e.path)}
            </li>
          ))}
          {plan.entryCount > 20 && <li class="muted">… and {plan.entryCount - 20} more</li>}
        </ul>
      )}
    </ConfirmDialog>
  );
}

export function Changes() {
  const paged = usePaged<Changeset, string>(
    (cursor) =>
      tool<{ changesets: Changeset[]; nextCursor: string | null }>('list_changes', { limit: 50, ...(cursor !== null ? { cursor } : {}) }).then(
        (r) => ({
          items: r.changesets,
          next: r.nextCursor,
        }),
      ),
    [],
  );
  const [reverting, setReverting] = useState<Changeset | null>(null);
  const [done, setDone] = useState<string | null>(null);
  return (
    <section>
      <h1>Changes</h1>
      <p class="muted">Every call that changed files, newest first.</p>
      {done && <Notice>{done}</Notice>}
      {paged.error && <ErrorBox error={paged.error} />}
      <ol class="changes">
        {paged.items.map((cs) => (
          <li key={cs.changesetId} class="card">
            <div class="row-between">
              <strong>
                #{cs.seq} {cs.tool}
              </strong>
              <span class="meta">
                {formatDate(cs.createdAt)} · key “{cs.by.label ?? '?'}”
              </span>
            </div>
            <ul class="plain small">
              {cs.entries.slice(0, 5).map((e) => (
                <li key={e.path + e.toVersion}>
                  <span class={`op op-${e.op}`}>{e.op}</span>{' '}
                  <a href={e.op === 'delete' ? historyHref(e.path) : e.type === 'directory' ? historyHref(e.path) : fileHref(e.path)}>{e.path}</a>{' '}
                  <span class="muted">
                    {e.fromVersion === null ? '' : `v${e.fromVersion} → `}v{e.toVersion}
                  </span>
                </li>
              ))}
              {cs.entryCount > 5 && <li class="muted">… {cs.entryCount - 5} more paths</li>}
            </ul>
            <button type="button" class="small" onClick={() => setReverting(cs)} aria-label={`Revert change ${cs.seq}`}>
              Revert…
            </button>
          </li>
        ))}
      </ol>
      {!paged.loading && !paged.items.length && !paged.error && <p class="muted">No changes yet.</p>}
      {paged.loading && <Loading what="changes" />}
      <MoreButton paged={paged} label="Older changes" />
      {reverting && (
        <RevertDialog
          cs={reverting}
          onClose={() => setReverting(null)}
          onDone={(m) => {
            setDone(m);
            paged.reload();
          }}
        />
      )}
    </section>
  );
}

interface Deleted {
  path: string;
  type: string;
  version: number;
  lastVersion: number;
  deletedAt: string;
  by: { label: string | null };
}

export function DeletedFiles() {
  const paged = usePaged<Deleted, string>(
    (cursor) =>
      tool<{ deletedPaths: Deleted[]; nextCursor: string | null }>('list_deleted', { path: '/', limit: 100, ...(cursor ? { cursor } : {}) }).then(
        (r) => ({
          items: r.deletedPaths,
          next: r.nextCursor,
        }),
      ),
    [],
  );
  const [undeleting, setUndeleting] = useState<Deleted | null>(null);
  const [done, setDone] = useState<string | null>(null);
  return (
    <section>
      <h1>Deleted files</h1>
      {done && <Notice>{done}</Notice>}
      {paged.error && <ErrorBox error={paged.error} />}
      <ul class="cards">
        {paged.items.map((d) => (
          <li key={d.path} class="card row-between">
            <span>
              <code>{d.path}</code>{' '}
              <span class="meta">
                deleted {formatDate(d.deletedAt)} by “{d.by.label ?? '?'}” · last version {d.lastVersion}
              </span>
            </span>
            <span>
              <a href={historyHref(d.path)}>History</a>{' '}
              <button type="button" class="small" onClick={() => setUndeleting(d)} aria-label={`Undelete ${d.path}`}>
                Undelete…
              </button>
            </span>
          </li>
        ))}
      </ul>
      {!paged.loading && !paged.items.length && !paged.error && <p class="muted">Nothing deleted.</p>}
      <MoreButton paged={paged} />
      {undeleting && (
        <ConfirmDialog
          title={`Undelete ${undeleting.path}?`}
          confirmLabel="Undelete"
          onClose={() => setUndeleting(null)}
          onConfirm={async () => {
            const r = await tool<{ version: number }>('restore', { path: undeleting.path, version: undeleting.lastVersion });
            setDone(`${undeleting.path} is back (version ${r.version}, with the content of version ${undeleting.lastVersion}).`);
            paged.reload();
          }}
        >
          <p>
            {undeleting.path} comes back with its content as at version {undeleting.lastVersion}
            {undeleting.type === 'directory' ? ', with what was deleted below it' : ''}.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

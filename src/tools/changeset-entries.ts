/**
 * The entries of a changeset as list_changes and revert_changeset see them: filtered to what the
 * key may see (and a path prefix), at most a page at a time. A changeset read back holds every
 * entry inline up to ENTRY_INLINE; a bigger one holds the first ENTRY_INLINE in path order and
 * its `root` (the deepest path all entries are at or below), and the store pages the rest.
 */
import { compareBytes } from '../core/byte-order.js';
import { ToolError } from '../core/errors.js';
import { isWithin } from '../core/paths.js';
import { iso } from '../core/time.js';
import { ENTRY_INLINE, type ChangesetEntry, type ChangesetRecord } from '../store/types.js';
import { ENTRY_PAGE, yieldToLoop } from './big-trees.js';
import type { ToolContext } from './registry.js';

if (ENTRY_INLINE < ENTRY_PAGE) throw new Error('a changeset row must hold a page of entries');

/** Entries per page of list_changes with a changesetId. */
export const ENTRY_DETAIL_PAGE = 1000;

/**
 * The one subtree both the key's folder and the path filter allow (entries must be within both);
 * null: everything. `undefined`: nothing at all (disjoint; navigablePath makes that impossible).
 */
export function entryScope(folder: string | null, prefix: string | null): string | null | undefined {
  if (!folder || !prefix) return folder ?? prefix;
  if (isWithin(prefix, folder)) return prefix;
  if (isWithin(folder, prefix)) return folder;
  return undefined;
}

const complete = (cs: ChangesetRecord) => cs.entries.length >= cs.entryCount;

/** Does every entry of the changeset lie within `scope`? (Answered without reading them.) */
export function allWithin(cs: ChangesetRecord, scope: string | null): boolean {
  if (scope === null) return true;
  if (!complete(cs)) return cs.root !== null && isWithin(cs.root, scope);
  return cs.entries.every((e) => isWithin(e.path, scope));
}

/** A page of the changeset's entries within `scope` after `after`, in path order. */
export async function entriesPage(
  ctx: ToolContext,
  cs: ChangesetRecord,
  scope: string | null,
  after: string | null,
  limit: number,
): Promise<{ entries: ChangesetEntry[]; nextAfter: string | null }> {
  if (complete(cs)) {
    const sorted = cs.entries
      .filter((e) => (scope === null || isWithin(e.path, scope)) && (after === null || compareBytes(e.path, after) > 0))
      .sort((a, b) => compareBytes(a.path, b.path));
    const page = sorted.slice(0, limit);
    return { entries: page, nextAfter: sorted.length > limit ? page[page.length - 1]!.path : null };
  }
  if (scope !== null && cs.root !== null && !isWithin(cs.root, scope) && !isWithin(scope, cs.root)) return { entries: [], nextAfter: null };
  const within = scope === null || (cs.root !== null && isWithin(cs.root, scope)) ? null : scope;
  if (within === null && after === null && limit <= cs.entries.length) {
    const page = cs.entries.slice(0, limit);
    return { entries: page, nextAfter: cs.entryCount > limit ? page[page.length - 1]!.path : null };
  }
  return ctx.store.listChangesetEntries(ctx.auth.agentId, cs.id, { after, within, limit });
}

/** Every entry of the changeset (revert_changeset), a page at a time with event-loop turns between. */
export async function allEntries(ctx: ToolContext, cs: ChangesetRecord): Promise<ChangesetEntry[]> {
  if (complete(cs)) return cs.entries;
  const out: ChangesetEntry[] = [];
  for (let after: string | null = null; ;) {
    const page = await ctx.store.listChangesetEntries(ctx.auth.agentId, cs.id, { after, within: null, limit: ENTRY_DETAIL_PAGE });
    for (const e of page.entries) out.push(e);
    if (!page.nextAfter) return out;
    after = page.nextAfter;
    await yieldToLoop();
  }
}

export function encodeEntriesCursor(changesetId: string, scope: string | null, after: string): string {
  return Buffer.from(JSON.stringify({ c: changesetId, s: scope, a: after })).toString('base64url');
}

export function decodeEntriesCursor(cursor: string, changesetId: string, scope: string | null): string {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { c: unknown; s: unknown; a: unknown };
    if (v.c === changesetId && v.s === scope && typeof v.a === 'string' && !v.a.includes('\u0000')) return v.a;
  } catch {
    /* fall through */
  }
  throw new ToolError(
    'INVALID_INPUT',
    "'cursor' does not belong to this changeset and path. Pass back the nextCursor (or nextEntriesCursor) you received with the same changesetId and path.",
    { field: 'cursor' },
  );
}

export function entryView(e: ChangesetEntry) {
  return { path: e.path, op: e.op, type: e.kind === 'dir' ? 'directory' : 'file', fromVersion: e.fromVersion, toVersion: e.toVersion };
}

export function changesetMeta(cs: ChangesetRecord) {
  return { changesetId: cs.id, seq: cs.seq, createdAt: iso(cs.createdAtMs), tool: cs.tool, by: { keyId: cs.keyId, label: cs.keyLabel } };
}

/**
 * A changeset as the feed lists it: its first ENTRY_PAGE entries within `scope` (all of them in
 * the order of the changes for a small one; path order for a big one), entryCount, partial when
 * some entries are outside the scope, and nextEntriesCursor when more remain. Null: none visible.
 */
export async function feedView(ctx: ToolContext, cs: ChangesetRecord, scope: string | null) {
  const whole = allWithin(cs, scope);
  let shown: ChangesetEntry[];
  let nextAfter: string | null = null;
  if (complete(cs) && cs.entries.length <= ENTRY_PAGE) {
    shown = whole || scope === null ? cs.entries : cs.entries.filter((e) => isWithin(e.path, scope));
  } else {
    ({ entries: shown, nextAfter } = await entriesPage(ctx, cs, scope, null, ENTRY_PAGE));
  }
  if (shown.length === 0) return null;
  return {
    ...changesetMeta(cs),
    entries: shown.map(entryView),
    entryCount: cs.entryCount,
    ...(whole ? {} : { partial: true }),
    ...(nextAfter !== null ? { nextEntriesCursor: encodeEntriesCursor(cs.id, scope, nextAfter) } : {}),
  };
}

/** list_changes with a changesetId: one page of its entries within the scope, in path order. */
export async function changesetEntries(
  ctx: ToolContext,
  input: { changesetId?: string | undefined; cursor?: string | undefined; afterSeq?: number | undefined; before?: number | undefined },
  scope: string | null | undefined,
) {
  if (input.afterSeq !== undefined || input.before !== undefined) {
    throw new ToolError('INVALID_INPUT', 'changesetId lists one changeset: drop afterSeq and before (page its entries with cursor).', {
      field: input.afterSeq !== undefined ? 'afterSeq' : 'before',
    });
  }
  const id = input.changesetId!;
  const cs = await ctx.store.getChangeset(ctx.auth.agentId, id);
  const after = input.cursor !== undefined && scope !== undefined ? decodeEntriesCursor(input.cursor, id, scope) : null;
  const page = cs && scope !== undefined ? await entriesPage(ctx, cs, scope, after, ENTRY_DETAIL_PAGE) : null;
  if (!cs || !page || (after === null && page.entries.length === 0)) {
    throw new ToolError(
      'NOT_FOUND',
      `No changeset ${id.slice(0, 100)}${ctx.auth.folder ? ` within this key's folder ${ctx.auth.folder}` : ''}${scope ? ` with changes at or below ${scope}` : ''}. list_changes without changesetId shows the changeset ids.`,
      {
        changesetId: id,
      },
    );
  }
  return {
    success: true,
    ...changesetMeta(cs),
    entryCount: cs.entryCount,
    ...(allWithin(cs, scope!) ? {} : { partial: true }),
    entries: page.entries.map(entryView),
    nextCursor: page.nextAfter !== null ? encodeEntriesCursor(cs.id, scope!, page.nextAfter) : null,
  };
}

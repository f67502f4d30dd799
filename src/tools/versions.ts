/** The version history: list_versions, diff, restore, list_changes, revert_changeset (revert.ts), list_deleted, purge (purge.ts). */
import { z } from 'zod';
import { unifiedDiffSliced } from '../core/diff.js';
import { ToolError } from '../core/errors.js';
import { decodeCursor, encodeCursor } from '../core/cursor.js';
import { ancestorsOf, isWithin } from '../core/paths.js';
import { decodeTextWork } from '../core/text.js';
import { runSliced } from '../core/work.js';
import { iso } from '../core/time.js';
import type { HistoryCursor, NodeRecord, VersionRecord } from '../store/types.js';
import {
  ROOT,
  checkPreconditions,
  expectedFields,
  isLive,
  nameWriters,
  navigablePath,
  notFound,
  pathField,
  planAncestors,
  rejectReserved,
  versionField,
  versionNotFound,
  type KeyRef,
} from './common.js';
import { ENTRY_PAGE, checkFileQuota, yieldToLoop } from './big-trees.js';
import { ENTRY_DETAIL_PAGE, changesetEntries, entryScope, feedView } from './changeset-entries.js';
import { provenanceOf } from './provenance.js';
import { defineTool, type AnyTool, type ToolContext } from './registry.js';
import { deletedBelowHint, planSubtreeRestore, restoreChange, subtreeFields } from './restore-tree.js';
import { purge } from './purge.js';
import { revertChangeset } from './revert.js';
import { diffOutput, listChangesOutput, listDeletedOutput, listVersionsOutput, restoreOutput } from './versions-output.js';

function versionEntry(v: VersionRecord) {
  return {
    path: v.path,
    version: v.version,
    updatedAt: iso(v.updatedAtMs),
    type: v.kind === 'dir' ? 'directory' : 'file',
    deleted: v.deleted,
    size: v.size,
    contentHash: v.blobHash,
    op: v.op,
    changesetId: v.changesetId,
    by: { keyId: v.keyId, label: v.keyLabel } as KeyRef,
  };
}

function encodeToken(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the validators probe the parsed JSON's fields
function decodeToken<T>(token: string, field: string, valid: (v: any) => boolean): T {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    // Nothing this tool returns contains NUL (PostgreSQL cannot even compare with it).
    if (valid(v) && !JSON.stringify(v).includes('\\u0000')) return v as T;
  } catch {
    /* fall through */
  }
  throw new ToolError('INVALID_INPUT', `'${field}' is not a value this tool returned. Pass back the nextCursor you received.`, {
    field,
  });
}

async function requireNode(ctx: ToolContext, path: string): Promise<NodeRecord> {
  const node = await ctx.store.getNode(ctx.auth.agentId, path);
  if (!node || node.purged) throw await notFound(ctx, path, node, 'file or directory with history');
  return node;
}

const listVersions = defineTool({
  name: 'list_versions',
  family: 'versions',
  mount: { access: 'read', published: true },
  scopes: ['files:read'],
  summary: 'The versions of a path, newest first (including deletes, and history from before a move).',
  note: 'Page with cursor: nextCursor.',
  description:
    'Lists every version of the path, newest first (in the order the changes were made), with who made it and how ' +
    '(create, update, delete, move, restore). ' +
    'A file that was moved here also lists its versions under its earlier path. Page with cursor: nextCursor.',
  input: z.strictObject({
    path: pathField,
    limit: z.number().int().min(1).max(200).default(50),
    before: z.union([versionField, z.string()]).optional().describe('Start below this version of the path (a string: the old name of cursor).'),
    cursor: z.string().optional().describe('The nextCursor of the previous page.'),
  }),
  output: listVersionsOutput,
  mutating: false,
  annotations: { readOnly: true, destructive: false, idempotent: true },
  errors: ['NOT_FOUND', 'VERSION_NOT_FOUND'],
  examples: [{ title: 'History of a file', input: { path: '/notes/done.md' } }],
  async handler(input, ctx) {
    const path = ctx.path(input.path);
    const node = await requireNode(ctx, path);
    let cursor: HistoryCursor | null = null;
    if (input.before !== undefined && input.cursor !== undefined) {
      throw new ToolError('INVALID_INPUT', 'Give before (a version) or cursor (a page), not both.', { field: 'before' });
    }
    if (typeof input.before === 'string')
      ctx.warn(`'before' with a page token was read as 'cursor': send 'cursor' (docs/contributing.md#vocabulary).`);
    const token = typeof input.before === 'string' ? input.before : input.cursor;
    if (typeof input.before === 'number') {
      const v = await ctx.store.getVersion(ctx.auth.agentId, path, input.before);
      if (!v) throw versionNotFound(path, input.before, node);
      const cs = await ctx.store.getChangeset(ctx.auth.agentId, v.changesetId);
      cursor = { seq: cs?.seq ?? 0, deleted: v.deleted, path: v.path, version: v.version, pathBelow: v.version };
    } else if (token !== undefined) {
      // The token comes back from the client: only what nextCursor can hold (integers the stores can compare).
      cursor = decodeToken<HistoryCursor>(
        token,
        input.cursor !== undefined ? 'cursor' : 'before',
        (v) =>
          Number.isSafeInteger(v?.seq) &&
          v.seq >= 0 &&
          typeof v?.deleted === 'boolean' &&
          typeof v?.path === 'string' &&
          Number.isInteger(v?.version) &&
          v.version >= 0 &&
          v.version <= 2_147_483_647 &&
          (v.pathBelow === undefined || (Number.isInteger(v.pathBelow) && v.pathBelow >= 0 && v.pathBelow <= 2_147_483_647)),
      );
    }
    // A cursor from before pathBelow existed that ended on this path still bounds it.
    if (cursor && cursor.pathBelow === undefined && cursor.path === path) cursor.pathBelow = cursor.version;
    const rows = await ctx.store.listFileHistory(ctx.auth.agentId, path, node.fileId, input.limit + 1, cursor);
    const visible = rows.filter((v) => !ctx.auth.folder || isWithin(v.path, ctx.auth.folder));
    const page = visible.slice(0, input.limit);
    const last = page[page.length - 1];
    const copied = await provenanceOf(ctx, page);
    const versions = page.map((v) => {
      const from = copied.get(`${v.path}\u0000${v.version}`);
      return from ? { ...versionEntry(v), copiedFrom: from } : versionEntry(v);
    });
    await nameWriters(
      ctx,
      versions.map((v) => v.by),
    );
    return {
      success: true,
      path,
      currentVersion: node.version,
      deleted: node.deleted,
      versions,
      nextCursor:
        rows.length > input.limit && last
          ? encodeToken({ seq: last.seq, deleted: last.deleted, path: last.path, version: last.version, pathBelow: pathBelow(path, page, cursor) })
          : null,
    };
  },
});

/**
 * The smallest version of `path` listed so far (the next page reads the path's versions below it):
 * this page's, else the previous cursor's; a first page that listed none of them, all are to come.
 * A cursor from before the field existed stays without it (the store then reads them all).
 */
function pathBelow(path: string, page: Array<{ path: string; version: number }>, cursor: HistoryCursor | null): number | undefined {
  let least: number | undefined;
  for (const v of page) if (v.path === path && (least === undefined || v.version < least)) least = v.version;
  if (least !== undefined) return least;
  return cursor ? cursor.pathBelow : 2_147_483_647;
}

/** The content of a version (null for a delete marker), or throws VERSION_NOT_FOUND / IS_A_DIRECTORY. */
async function versionContent(
  ctx: ToolContext,
  path: string,
  version: number,
  node: NodeRecord,
): Promise<{ v: VersionRecord; bytes: Buffer | null }> {
  const v = await ctx.store.getVersion(ctx.auth.agentId, path, version);
  if (!v) throw versionNotFound(path, version, node);
  if (v.kind === 'dir' && !v.deleted) {
    throw new ToolError('IS_A_DIRECTORY', `Version ${version} of ${path} is a directory; diff compares file versions.`, { path, version });
  }
  if (v.deleted || !v.blobHash) return { v, bytes: null };
  return { v, bytes: (await ctx.store.getBlob(ctx.auth.agentId, v.blobHash)) ?? Buffer.alloc(0) };
}

/** The text of a version (null: no content; undefined: binary), decoded in slices: versions can be 10 MiB. */
async function asText(bytes: Buffer | null): Promise<string | null | undefined> {
  if (bytes === null) return null;
  const t = await runSliced(decodeTextWork(bytes));
  return t === null ? undefined : t;
}

const diff = defineTool({
  name: 'diff',
  family: 'versions',
  mount: { access: 'read', readsFile: true },
  scopes: ['files:read'],
  summary: 'Unified diff between two versions of a file.',
  description: 'Compares fromVersion with toVersion (default: the current version). A deleted side renders as /dev/null.',
  input: z.strictObject({ path: pathField, fromVersion: versionField, toVersion: versionField.optional() }),
  output: diffOutput,
  aliases: { from: 'fromVersion', to: 'toVersion' },
  mutating: false,
  annotations: { readOnly: true, destructive: false, idempotent: true },
  errors: ['NOT_FOUND', 'VERSION_NOT_FOUND', 'IS_A_DIRECTORY'],
  examples: [{ title: 'What changed since version 1', input: { path: '/notes/done.md', fromVersion: 1 } }],
  async handler(input, ctx) {
    const path = ctx.path(input.path);
    const node = await requireNode(ctx, path);
    const from = input.fromVersion;
    const to = input.toVersion ?? node.version;
    const [a, b] = await Promise.all([versionContent(ctx, path, from, node), versionContent(ctx, path, to, node)]);
    const [ta, tb] = [await asText(a.bytes), await asText(b.bytes)];
    const base = { success: true, path, fromVersion: from, toVersion: to, fromHash: a.v.blobHash, toHash: b.v.blobHash };
    if (ta === undefined || tb === undefined) {
      const same = a.v.blobHash === b.v.blobHash;
      return { ...base, binary: true, identical: same, diff: same ? '' : `Binary files differ (version ${from} and version ${to}).\n` };
    }
    const d = await unifiedDiffSliced(ta, tb, { path, oldLabel: `version ${from}`, newLabel: `version ${to}` });
    return { ...base, identical: d.diff === '' && a.v.deleted === b.v.deleted, diff: d.diff, diffTruncated: d.truncated, diffStats: d.stats };
  },
});

/**
 * The changes restore makes: `path` as version `v` had it (with missing parents) and, for a
 * directory, the subtree the end of `v` took away (restore-tree.ts), also under a directory that
 * exists again. NO_CHANGE when none of that changes anything.
 */
async function planRestore(ctx: ToolContext, path: string, node: NodeRecord, v: VersionRecord) {
  const same = isLive(node) && node.kind === v.kind && node.blobHash === v.blobHash;
  const sub = !isLive(node) || (same && v.kind === 'dir') ? await planSubtreeRestore(ctx, path, v) : null;
  if (same && !sub?.changes.length) {
    throw new ToolError(
      'NO_CHANGE',
      `${path} already has the content of version ${v.version} (current version ${node.version}). Nothing to restore.`,
      {
        path,
        version: node.version,
      },
    );
  }
  if (isLive(node) && node.kind !== v.kind) {
    throw new ToolError(
      'NOT_A_DIRECTORY',
      `${path} is now a ${node.kind === 'dir' ? 'directory' : 'file'} and version ${v.version} is a ${v.kind === 'dir' ? 'directory' : 'file'}. Move the current one away first.`,
      {
        path,
        blockingPath: path,
      },
    );
  }
  const changes = same ? [] : planAncestors(path, await ctx.store.getNodes(ctx.auth.agentId, ancestorsOf(path)));
  if (!same) changes.push(restoreChange(path, node, v, 'restore'));
  if (sub) {
    for (const c of sub.changes) changes.push(c);
    await checkFileQuota(ctx, changes.length);
  }
  return { changes, sub };
}

const restore = defineTool({
  name: 'restore',
  family: 'versions',
  mount: { access: 'write', mayCreate: true },
  scopes: ['files:write'],
  summary: 'Make an earlier version current again (also undeletes). History is never rewritten.',
  note: 'A deleted directory comes back whole. dryRun: true only diffs.',
  description:
    'Creates a new head version with the content of `version` (a deleted file comes back, with its parent directories). ' +
    'A directory deleted with everything below it (or moved away) comes back whole: restoring its last version before the ' +
    'delete also restores, in the same changeset, every path that delete took away below it, as it was then (restoredBelow, ' +
    `with restoredBelowCount; the first ${ENTRY_PAGE} listed), also when the directory exists again. Paths below that exist ` +
    'again since are left as they are (keptBelow). dryRun: true shows the diff from the current content (and what would come back) without writing.',
  input: z.strictObject({ path: pathField, version: versionField, dryRun: z.boolean().default(false), ...expectedFields }),
  output: restoreOutput,
  mutating: true,
  annotations: { readOnly: false, destructive: false, idempotent: false },
  errors: ['NOT_FOUND', 'VERSION_NOT_FOUND', 'EDIT_CONFLICT', 'NO_CHANGE', 'NOT_A_DIRECTORY', 'QUOTA_EXCEEDED'],
  examples: [{ title: 'Undelete a moved-away file at its first version', input: { path: '/notes/todo.md', version: 1 } }],
  async handler(input, ctx) {
    const path = ctx.path(input.path);
    rejectReserved(path);
    const agentId = ctx.auth.agentId;
    const node = await requireNode(ctx, path);
    const v = await ctx.store.getVersion(agentId, path, input.version);
    if (!v) throw versionNotFound(path, input.version, node);
    if (v.deleted) {
      throw new ToolError(
        'VERSION_NOT_FOUND',
        `Version ${v.version} of ${path} is a delete marker; restore an earlier version (e.g. ${v.version - 1}).`,
        {
          path,
          version: v.version,
          latestVersion: node.version,
        },
      );
    }
    checkPreconditions(path, input, node.deleted && input.expectedVersion === undefined && input.expectedUpdatedAt === undefined ? null : node);
    const { changes, sub } = await planRestore(ctx, path, node, v);

    const [before, after] = await Promise.all([
      isLive(node) && node.blobHash ? ctx.store.getBlob(agentId, node.blobHash) : Promise.resolve(null),
      v.blobHash ? ctx.store.getBlob(agentId, v.blobHash) : Promise.resolve(null),
    ]);
    const [tb, ta] = [await asText(before), await asText(after)];
    const d =
      tb === undefined || ta === undefined
        ? { diff: 'Binary files differ.\n', truncated: false, stats: { hunks: 0, added: 0, removed: 0 } }
        : await unifiedDiffSliced(tb, ta, {
            path,
            oldLabel: isLive(node) ? `version ${node.version}` : 'deleted',
            newLabel: `restored from version ${v.version}`,
          });
    const base = {
      success: true,
      path,
      restoredFrom: v.version,
      baseVersion: node.version,
      undeleted: !isLive(node),
      diff: d.diff,
      diffTruncated: d.truncated,
    };
    const hint = v.kind === 'dir' && !sub?.restored.length ? await deletedBelowHint(ctx, path) : {};
    if (input.dryRun) {
      return {
        ...base,
        ...subtreeFields(sub, null),
        ...hint,
        applied: false,
        note: `Dry run: nothing written. Repeat without dryRun (and with expectedVersion: ${node.version}) to apply.`,
      };
    }
    return ctx.commit(changes, (cs) => {
      // A live directory whose deleted subtree comes back is not itself changed.
      const head = cs.entries.find((e) => e.path === path) ?? { toVersion: node.version, updatedAtMs: node.updatedAtMs };
      return {
        ...base,
        applied: true,
        version: head.toVersion,
        updatedAt: iso(head.updatedAtMs),
        size: v.size,
        contentHash: v.blobHash,
        ...subtreeFields(sub, cs),
        ...hint,
        changesetId: cs.id,
      };
    });
  },
});

const SCAN_LIMIT = 2000;

const listChanges = defineTool({
  name: 'list_changes',
  family: 'versions',
  mount: { refused: true },
  scopes: ['files:read'],
  summary: "The changeset feed: every mutation, newest first, or oldest first after `afterSeq`; or one changeset's entries, paged.",
  note: "Follow the feed with afterSeq: nextAfterSeq; changesetId lists one changeset's entries.",
  description:
    'Each changeset is one tool call that changed files: its seq (per agent, increasing), time, key, tool, entryCount and entries ' +
    `{path, op, fromVersion, toVersion} (at most ${ENTRY_PAGE} per changeset; when it has more, nextEntriesCursor). Without afterSeq: ` +
    'newest first, page with cursor: nextCursor. With afterSeq: the changesets after that seq in order; poll again with afterSeq: ' +
    'nextAfterSeq to follow the feed. path filters to a subtree. partial: true marks a changeset that also changed paths outside ' +
    "the path filter or this key's folder (only the entries inside are listed; entryCount counts all of them); a folder-scoped " +
    "key cannot revert_changeset such a changeset. With changesetId: that changeset's entries in path order, " +
    `${ENTRY_DETAIL_PAGE} per page; pass cursor: nextCursor (or a feed's nextEntriesCursor) for the next page.`,
  input: z.strictObject({
    path: pathField.optional().describe('Only changes at or below this path.'),
    afterSeq: z.number().int().min(0).optional(),
    before: z.number().int().min(1).optional().describe('Older than this seq (the old way to page: send cursor).'),
    limit: z.number().int().min(1).max(200).default(50).describe('Changesets per page (the feed).'),
    changesetId: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[^\u0000]*$/, 'must not contain NUL')
      .optional()
      .describe("List this changeset's entries instead of the feed."),
    cursor: z
      .string()
      .max(4096)
      .optional()
      .describe("The nextCursor of the previous page (with changesetId: of its entries, or a feed's nextEntriesCursor)."),
  }),
  output: listChangesOutput,
  aliases: { since: 'afterSeq' },
  mutating: false,
  annotations: { readOnly: true, destructive: false, idempotent: true },
  errors: ['NOT_FOUND'],
  examples: [
    { title: 'Recent changes', input: { limit: 10 } },
    { title: 'Follow the feed', input: { afterSeq: 0 } },
    { title: 'Every path of one changeset', input: { changesetId: 'cs_EXAMPLE' } },
  ],
  async handler(input, ctx) {
    if (input.afterSeq !== undefined && input.before !== undefined) {
      throw new ToolError('INVALID_INPUT', 'Give afterSeq (oldest first) or before (newest first), not both.', { field: 'before' });
    }
    if (input.changesetId === undefined && input.cursor !== undefined && (input.afterSeq ?? input.before) !== undefined) {
      throw new ToolError('INVALID_INPUT', 'cursor continues the newest-first feed: drop afterSeq and before.', { field: 'cursor' });
    }
    if (input.before !== undefined) ctx.warn(`'before' pages the old way: send cursor set to nextCursor (docs/contributing.md#vocabulary).`);
    const prefix = input.path !== undefined ? navigablePath(ctx, input.path) : null;
    const scope = entryScope(ctx.auth.folder, prefix);
    if (input.changesetId !== undefined) return changesetEntries(ctx, input, scope);
    const out: NonNullable<Awaited<ReturnType<typeof feedView>>>[] = [];
    let scanned = 0;
    let cursor =
      input.afterSeq ?? input.before ?? (input.cursor !== undefined ? (decodeCursor('changes', input.cursor, ['n'])[0] as number) : undefined);
    let exhausted = false;
    let lastSeq: number | null = null;
    while (out.length < input.limit && scanned < SCAN_LIMIT) {
      const batch = await ctx.store.listChangesets(ctx.auth.agentId, {
        ...(input.afterSeq !== undefined ? { since: cursor! } : cursor !== undefined ? { before: cursor } : {}),
        limit: Math.min(200, input.limit * 2),
      });
      if (batch.length === 0) {
        exhausted = true;
        break;
      }
      for (const cs of batch) {
        scanned++;
        lastSeq = cs.seq;
        cursor = cs.seq;
        const e = scope === undefined ? null : await feedView(ctx, cs, scope);
        if (e) out.push(e);
        if (out.length >= input.limit) break;
      }
      await yieldToLoop();
    }
    if (input.afterSeq !== undefined) {
      return { success: true, changesets: out, nextAfterSeq: lastSeq ?? input.afterSeq };
    }
    // seq starts at 1 for every agent, so reaching it means there is nothing older.
    return {
      success: true,
      changesets: out,
      nextCursor: exhausted || lastSeq === null || lastSeq <= 1 ? null : encodeCursor('changes', [lastSeq]),
    };
  },
});

const listDeleted = defineTool({
  name: 'list_deleted',
  family: 'versions',
  mount: { access: 'read' },
  scopes: ['files:read'],
  summary: 'Deleted paths that can still be restored.',
  note: 'Undelete with restore {path, version: lastVersion}.',
  description: 'Tombstones at or below `path` (default /), with when and by whom they were deleted; restore lastVersion to undelete.',
  input: z.strictObject({ path: pathField.default('/'), limit: z.number().int().min(1).max(1000).default(200), cursor: z.string().optional() }),
  output: listDeletedOutput,
  mutating: false,
  annotations: { readOnly: true, destructive: false, idempotent: true },
  errors: [],
  examples: [{ title: 'What was deleted', input: {} }],
  async handler(input, ctx) {
    const path = navigablePath(ctx, input.path);
    const after = input.cursor !== undefined ? decodeToken<{ a: string }>(input.cursor, 'cursor', (v) => typeof v?.a === 'string').a : null;
    const scope = ctx.auth.folder && isWithin(ctx.auth.folder, path) ? ctx.auth.folder : path;
    const nodes: NodeRecord[] = [];
    if (scope !== ROOT && scope !== path) {
      const self = await ctx.store.getNode(ctx.auth.agentId, scope);
      if (self?.deleted && !self.purged && (after === null || self.path > after)) nodes.push(self);
    } else if (path !== ROOT) {
      const self = await ctx.store.getNode(ctx.auth.agentId, path);
      if (self?.deleted && !self.purged && after === null) nodes.push(self);
    }
    const page = await ctx.store.listDeleted(ctx.auth.agentId, scope, input.limit, after);
    nodes.push(...page.nodes);
    return {
      success: true,
      path,
      deletedPaths: nodes.slice(0, input.limit).map((n) => ({
        path: n.path,
        type: n.kind === 'dir' ? 'directory' : 'file',
        version: n.version,
        lastVersion: n.version - 1,
        deletedAt: iso(n.updatedAtMs),
        by: { keyId: n.updatedByKeyId, label: n.updatedByLabel },
      })),
      nextCursor: page.nextAfter ? encodeToken({ a: page.nextAfter }) : null,
    };
  },
});

/** Paths purged per store transaction. */
export const versionTools: AnyTool[] = [listVersions, diff, restore, listChanges, revertChangeset, listDeleted, purge];

/** Pieces shared by the file-family tools: schema fragments, preconditions, NOT_FOUND hints. */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { ancestorsOf, baseName, checkCreatable, checkRemovable, isWithin, parentOf } from '../core/paths.js';
import { closest } from '../core/suggest.js';
import { countLines, decodeText } from '../core/text.js';
import { iso, parseTimestamp } from '../core/time.js';
import { newId } from '../core/keys.js';
import type { NodeRecord, PlannedChange } from '../store/types.js';
import { editConflict } from './conflict.js';
import { markPath, type ToolContext } from './registry.js';

/** A path (registry.ts markPath): normalized and checked by ctx.path, routed through mounts, documented with the path errors. */
export const pathField = markPath(z.string().describe('Absolute path, e.g. "/notes/todo.md".'));
/** A path the call may create (move's and copy's `to`): through a mount, INVALID_PATH "reserved" where no grant lets it. */
export const destinationField = markPath(z.string(), { kind: 'destination' });
// Versions are 32-bit integers in the stores (PostgreSQL INTEGER): a larger number is no version
// of anything, and must not reach the database (where it is an out-of-range error, a 500).
export const versionField = z.number().int().min(1).max(2_147_483_647);
export const expectedFields = {
  expectedUpdatedAt: z.string().optional().describe('The updatedAt you last read; the call fails with EDIT_CONFLICT if the file changed since.'),
  expectedVersion: versionField.optional().describe('The version you last read; EDIT_CONFLICT if the file changed since.'),
};

export function isLive(node: NodeRecord | null | undefined): node is NodeRecord & { deleted: false } {
  return !!node && !node.deleted;
}

/** Checks expectedVersion/expectedUpdatedAt (both must hold when both are given). */
export function checkPreconditions(
  path: string,
  input: { expectedUpdatedAt?: string | undefined; expectedVersion?: number | undefined },
  current: NodeRecord | null | undefined,
): void {
  const { expectedUpdatedAt, expectedVersion } = input;
  if (expectedUpdatedAt === undefined && expectedVersion === undefined) return;
  const expectedMs = expectedUpdatedAt !== undefined ? parseTimestamp(expectedUpdatedAt, 'expectedUpdatedAt') : undefined;
  const holds =
    isLive(current) &&
    (expectedVersion === undefined || current.version === expectedVersion) &&
    (expectedMs === undefined || current.updatedAtMs === expectedMs);
  if (!holds) throw editConflict(path, { version: expectedVersion, updatedAt: expectedUpdatedAt }, current ?? null);
}

/** NOT_FOUND with what helps next: the tombstone if it was deleted, and up to 3 similar paths. */
export async function notFound(ctx: ToolContext, path: string, node: NodeRecord | null | undefined, what = 'file'): Promise<ToolError> {
  const { store, auth } = ctx;
  const visible = (p: string) => !auth.folder || isWithin(p, auth.folder);
  const candidates = new Set<string>();
  const parent = parentOf(path);
  const siblings = await store.listChildren(auth.agentId, parent, 500, null);
  const near = closest(
    baseName(path),
    siblings.nodes.map((n) => baseName(n.path)),
    3,
  );
  for (const name of near) candidates.add(parent === '/' ? `/${name}` : `${parent}/${name}`);
  for (const n of await store.findByName(auth.agentId, baseName(path), 5)) candidates.add(n.path);
  candidates.delete(path);
  const similar = [...candidates].filter(visible).slice(0, 3);

  const details: Record<string, unknown> = { path, similar };
  let message = `No ${what} at ${path}.`;
  if (node?.purged) {
    details.purged = true;
    message += ' Its history was purged, so it cannot be restored.';
  } else if (node?.deleted) {
    details.deleted = {
      version: node.version,
      deletedAt: iso(node.updatedAtMs),
      by: { keyId: node.updatedByKeyId, label: node.updatedByLabel },
      lastVersion: node.version - 1,
    };
    message += ` It was deleted at ${iso(node.updatedAtMs)} (version ${node.version}); restore version ${node.version - 1} to get it back.`;
  }
  if (similar.length) message += ` Did you mean ${similar.join(', ')}?`;
  else if (!node?.deleted || node.purged) message += ' Use list or bash `find` to see what exists.';
  return new ToolError('NOT_FOUND', message, details);
}

export function updatedBy(node: NodeRecord): KeyRef {
  return { keyId: node.updatedByKeyId, label: node.updatedByLabel };
}

/**
 * Adds the writer's slug to the key references of changes another agent made in this tree (a
 * write through /shared): the key's agent, looked up, not read from the label (which the owner
 * may name as it likes). Owners' own changes stay { keyId, label }.
 */
export interface KeyRef {
  keyId: string | null;
  label: string | null;
  slug?: string;
}

export async function nameWriters(ctx: ToolContext, refs: readonly (KeyRef | null)[]): Promise<void> {
  // Writes through a mount carry the writer's "@slug/label"; the owner's own keys need no lookup.
  const ids = refs.flatMap((r) => (r?.keyId && r.label?.startsWith('@') ? [r.keyId] : []));
  if (!ids.length) return;
  const agents = await ctx.store.keyAgents(ids);
  for (const r of refs) {
    const a = r?.keyId ? agents.get(r.keyId) : undefined;
    if (a && a.agentId !== ctx.auth.agentId) r!.slug = a.slug;
  }
}

export async function namedWriter(ctx: ToolContext, ref: KeyRef): Promise<KeyRef> {
  await nameWriters(ctx, [ref]);
  return ref;
}

export const ROOT = '/';

/**
 * Refuses paths no tool may write (use 'create', the default) or take away ('remove': a move's
 * source). The rules live in core/paths.ts checkCreatable/checkRemovable, shared with bash.
 */
export function rejectReserved(path: string, use: 'create' | 'remove' = 'create'): void {
  if (use === 'create') checkCreatable(path);
  else checkRemovable(path);
}

/**
 * Checks that every ancestor of `path` is (or can become) a directory and plans the creation
 * of the missing ones (skipping those in `planned`, which it extends). A live file on the way → NOT_A_DIRECTORY.
 */
export function planAncestors(path: string, nodes: Map<string, NodeRecord>, planned?: Set<string>): PlannedChange[] {
  const changes: PlannedChange[] = [];
  for (const anc of ancestorsOf(path)) {
    // Several files of one commit (write_files) share their parents: each is created once.
    if (planned?.has(anc)) continue;
    planned?.add(anc);
    const node = nodes.get(anc);
    if (isLive(node) && node.kind === 'file') {
      throw new ToolError('NOT_A_DIRECTORY', `${anc} is a file, so ${path} cannot be created below it. Choose another path or move ${anc}.`, {
        path,
        blockingPath: anc,
      });
    }
    if (!isLive(node)) {
      changes.push({ path: anc, expectVersion: node?.version ?? 0, op: 'create', state: { kind: 'dir', fileId: newId('f') } });
    }
  }
  return changes;
}

export function decodeContent(content: string, encoding: 'utf8' | 'base64'): Buffer {
  if (encoding === 'utf8') return Buffer.from(content, 'utf8');
  const clean = content.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) {
    throw new ToolError('INVALID_INPUT', '\'content\' is not valid base64. Send standard base64, or use encoding "utf8" for text.', {
      field: 'content',
    });
  }
  return Buffer.from(clean, 'base64');
}

export function checkSize(ctx: ToolContext, path: string, size: number): void {
  const limit = ctx.config.maxFileBytes;
  if (size > limit) {
    throw new ToolError(
      'FILE_TOO_LARGE',
      `${path} would be ${size} bytes; the limit is ${limit} bytes per file. Split the content into several files.`,
      {
        path,
        size,
        limit,
      },
    );
  }
}

export function isADirectory(path: string): ToolError {
  return new ToolError('IS_A_DIRECTORY', `${path} is a directory. Use list (or bash \`ls\`) to see its entries.`, { path });
}

export function versionNotFound(path: string, version: number, node: NodeRecord): ToolError {
  return new ToolError('VERSION_NOT_FOUND', `${path} has no version ${version}; its versions run from 1 to ${node.version}.`, {
    path,
    version,
    latestVersion: node.version,
  });
}

/**
 * Like ctx.path, but a folder-scoped key may also name the ancestors of its folder: they
 * appear as directories so the folder can be reached by browsing from '/'.
 */
export function navigablePath(ctx: ToolContext, input: string): string {
  const folder = ctx.auth.folder;
  if (!folder) return ctx.path(input);
  try {
    return ctx.path(input);
  } catch (err) {
    if (err instanceof ToolError && err.code === 'OUTSIDE_KEY_FOLDER' && isWithin(folder, err.details!.path as string)) {
      return err.details!.path as string;
    }
    throw err;
  }
}

/** The planned change that gives `path` this content: created when no live file is there, else a new version of it. */
export function fileChange(path: string, current: NodeRecord | null | undefined, bytes: Buffer, hash: string): PlannedChange {
  const created = !isLive(current);
  const text = decodeText(bytes);
  return {
    path,
    expectVersion: current?.version ?? 0,
    op: created ? 'create' : 'update',
    state: {
      kind: 'file',
      blob: { hash, size: bytes.length, bytes },
      lines: text === null ? null : countLines(text),
      fileId: created || !current ? newId('f') : current.fileId,
    },
  };
}

/**
 * Commits new content for one file (plus the planned parent directories) and answers with the
 * result shape write and append share.
 */
export function commitFileContent(
  ctx: ToolContext,
  changes: PlannedChange[],
  path: string,
  current: NodeRecord | null | undefined,
  bytes: Buffer,
  hash: string,
) {
  const created = !isLive(current);
  changes.push(fileChange(path, current, bytes, hash));
  return ctx.commit(changes, (cs) => {
    const entry = cs.entries.find((e) => e.path === path)!;
    return {
      success: true,
      path,
      version: entry.toVersion,
      updatedAt: iso(entry.updatedAtMs),
      size: bytes.length,
      contentHash: hash,
      created,
      unchanged: false,
      changesetId: cs.id,
    };
  });
}

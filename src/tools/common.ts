/** Pieces shared by the file-family tools: schema fragments, preconditions, NOT_FOUND hints. */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { baseName, isWithin, parentOf } from '../core/paths.js';
import { closest } from '../core/suggest.js';
import { iso, parseTimestamp } from '../core/time.js';
import type { NodeRecord } from '../store/types.js';
import { editConflict } from './dispatch.js';
import type { ToolContext } from './registry.js';

export const pathField = z.string().describe('Absolute path, e.g. "/notes/todo.md".');
export const versionField = z.number().int().min(1);
export const expectedFields = {
  expectedUpdatedAt: z
    .string()
    .optional()
    .describe('The updatedAt you last read; the call fails with EDIT_CONFLICT if the file changed since.'),
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
  const near = closest(baseName(path), siblings.nodes.map((n) => baseName(n.path)), 3);
  for (const name of near) candidates.add(parent === '/' ? `/${name}` : `${parent}/${name}`);
  for (const n of await store.findByName(auth.agentId, baseName(path), 5)) candidates.add(n.path);
  candidates.delete(path);
  const similar = [...candidates].filter(visible).slice(0, 3);

  const details: Record<string, unknown> = { path, similar };
  let message = `No ${what} at ${path}.`;
  if (node?.deleted) {
    details.deleted = {
      version: node.version,
      deletedAt: iso(node.updatedAtMs),
      by: { keyId: node.updatedByKeyId, label: node.updatedByLabel },
      lastVersion: node.version - 1,
    };
    message += ` It was deleted at ${iso(node.updatedAtMs)} (version ${node.version}); restore version ${node.version - 1} to get it back.`;
  }
  if (similar.length) message += ` Did you mean ${similar.join(', ')}?`;
  else if (!node?.deleted) message += ' Use list or bash `find` to see what exists.';
  return new ToolError('NOT_FOUND', message, details);
}

export function updatedBy(node: NodeRecord) {
  return { keyId: node.updatedByKeyId, label: node.updatedByLabel };
}

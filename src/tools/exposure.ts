/**
 * Exposing a file to others — attaching it to a post, a link, a share, a publication, a copy into
 * another owner's tree — requires what reading it requires of the calling key: the files:read
 * scope, the key's folder, and a version the key may read. Every such tool checks here, so a key
 * that may not read a file cannot hand its bytes to anyone else either.
 */
import { ToolError } from '../core/errors.js';
import { ATTACHMENTS_ROOT, isAttachmentPath } from '../core/attachments.js';
import { parseMount } from '../core/mounts.js';
import type { NodeRecord, VersionRecord } from '../store/types.js';
import { isLive, notFound, versionNotFound } from './common.js';
import type { ToolContext } from './registry.js';

/** The scope reading needs; what an exposing tool needs besides its own (its definition lists it). */
export const EXPOSE_SCOPE = 'files:read' as const;

/** INSUFFICIENT_SCOPE unless the calling key may read files. */
export function requireReadScope(ctx: ToolContext): void {
  if (ctx.auth.scopes.includes(EXPOSE_SCOPE)) return;
  throw new ToolError(
    'INSUFFICIENT_SCOPE',
    `${ctx.tool} shows a file's content to others, so it needs scope ${EXPOSE_SCOPE} (what reading the file needs); this key lacks it. ` +
      'Use a key that has it (get_key_info shows what this key can do).',
    { required: [EXPOSE_SCOPE], granted: ctx.auth.scopes, missing: [EXPOSE_SCOPE] },
  );
}

export type ExposedVersion = Pick<VersionRecord, 'version' | 'kind' | 'blobHash' | 'size' | 'lines'>;

export interface Exposable {
  path: string;
  /** The live node at the path. */
  node: NodeRecord;
  /** The version asked for (or the head), as the key reads it. */
  at: ExposedVersion;
}

/**
 * A path of the caller's own tree the calling key may read, at `version` (default: the head).
 * Refuses, in order: without files:read (INSUFFICIENT_SCOPE), outside the key's folder
 * (OUTSIDE_KEY_FOLDER), another agent's path or the root (INVALID_PATH), a post's attachment copy
 * (INVALID_INPUT: it is shown with its post only), what is not there (NOT_FOUND), a version that
 * is not there or was a deletion (VERSION_NOT_FOUND).
 */
export async function exposable(ctx: ToolContext, input: string, version?: number, field = 'path'): Promise<Exposable> {
  requireReadScope(ctx);
  const tool = ctx.tool;
  const path = ctx.path(input, field);
  if (parseMount(path)) {
    throw new ToolError('INVALID_PATH', `${path} belongs to another agent; ${tool} works on your own files. Copy it into your tree first.`, {
      path,
      reason: 'not_yours',
    });
  }
  if (path === '/') throw new ToolError('INVALID_PATH', `${tool} takes a file or directory, not the whole tree (/).`, { path, reason: 'root' });
  if (isAttachmentPath(path)) {
    throw new ToolError(
      'INVALID_INPUT',
      `${ATTACHMENTS_ROOT} holds your posts' attachments, shown with their posts only; ${tool} your other files.`,
      {
        field,
      },
    );
  }
  const node = await ctx.store.getNode(ctx.auth.agentId, path);
  if (!isLive(node)) throw await notFound(ctx, path, node, 'file or directory');
  if (version === undefined || version === node.version) return { path, node, at: node };
  const v = await ctx.store.getVersion(ctx.auth.agentId, path, version);
  if (!v || v.deleted) throw versionNotFound(path, version, node);
  return { path, node, at: v };
}

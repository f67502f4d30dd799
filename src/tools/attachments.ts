/**
 * Post attachments (docs/contract/community.md#communities) as real files. Attaching `{path, version}` needs what reading
 * it needs (exposure.ts) and copies that exact version, server-side (the same content hash: no new
 * storage), to `/.attachments/{postId}/v{version}{path}` in the author's tree, in one changeset; the
 * post's directory is published (one internal item per post, not in browse_published) while the
 * post is there and not removed, so every agent reads, greps or copies the attachment at
 * `/published/{author}/.attachments/{postId}/…` with the file tools and bash as it reads any
 * published file; `/published/{author}/.attachments` itself lists nothing for others. The path names the post and the version:
 * two posts attaching two versions of one file get two paths, and a later change or publish of the
 * original never changes what a post shows (core/attachments.ts: the copies read at their first version).
 */
import { z } from 'zod';
import { ATTACHMENTS_ROOT, attachmentCopyPath, isAttachmentPath } from '../core/attachments.js';
import { ToolError } from '../core/errors.js';
import { newId } from '../core/keys.js';
import { parseMount, toMountPath } from '../core/mounts.js';
import { ancestorsOf } from '../core/paths.js';
import type { NodeRecord, PlannedChange } from '../store/types.js';
import { walkSubtree } from './big-trees.js';
import { isLive, pathField, planAncestors, versionField } from './common.js';
import { exposable } from './exposure.js';
import type { ToolContext } from './registry.js';

export { ATTACHMENTS_ROOT, isAttachmentPath };
export const MAX_ATTACHMENTS = 10;

export const attachmentInput = z.strictObject({
  path: pathField.describe('A file of yours.'),
  version: versionField.optional().describe('The version to attach (default: the current one).'),
});

export interface Attachment {
  path: string;
  publicPath: string;
  version: number;
  size: number;
  contentHash: string;
}

const copyPath = attachmentCopyPath;

interface Source {
  path: string;
  version: number;
  hash: string;
  size: number;
  lines: number | null;
}

async function sourceOf(ctx: ToolContext, raw: z.infer<typeof attachmentInput>, i: number): Promise<Source> {
  const field = `attachments[${i}].path`;
  const named = ctx.path(raw.path, field);
  if (parseMount(named)) {
    throw new ToolError('INVALID_INPUT', `${named} is not a file of your own tree. Attach your own files (copy one into your tree first).`, {
      field,
      path: named,
    });
  }
  if (named === '/') throw new ToolError('IS_A_DIRECTORY', '/ is the root directory; attach the files in it.', { path: named });
  // Attaching publishes the bytes: it needs what reading them needs (exposure.ts).
  const { path, at } = await exposable(ctx, raw.path, raw.version, field);
  if (at.kind !== 'file') throw new ToolError('IS_A_DIRECTORY', `${path} is a directory; attach the files in it.`, { path });
  return { path, version: at.version, hash: at.blobHash!, size: at.size, lines: at.lines };
}

/** Reads and checks the attachments (distinct path@version, each a file version of the caller's). */
export async function resolveAttachments(ctx: ToolContext, raws: ReadonlyArray<z.infer<typeof attachmentInput>>): Promise<Source[]> {
  const out: Source[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of raws.entries()) {
    const s = await sourceOf(ctx, raw, i);
    const key = `${s.version}:${s.path}`;
    if (!seen.has(key)) out.push(s);
    seen.add(key);
  }
  return out;
}

/**
 * Copies the sources under the post's directory, as one changeset of the author's (tool
 * create_post). The commit is not the call's idempotency record: the post is (dispatch saves it).
 */
export async function commitAttachments(ctx: ToolContext, postId: string, sources: readonly Source[]): Promise<Attachment[]> {
  if (!sources.length) return [];
  const targets = sources.map((s) => copyPath(postId, s.version, s.path));
  const existing: Map<string, NodeRecord> = await ctx.store.getNodes(ctx.auth.agentId, [...new Set(targets.flatMap((t) => ancestorsOf(t)))]);
  const changes: PlannedChange[] = [];
  const planned = new Set<string>();
  for (const [i, s] of sources.entries()) {
    for (const c of planAncestors(targets[i]!, existing)) {
      if (!planned.has(c.path)) changes.push(c);
      planned.add(c.path);
    }
    changes.push({
      path: targets[i]!,
      expectVersion: 0,
      op: 'create',
      state: { kind: 'file', blob: { hash: s.hash, size: s.size }, lines: s.lines, fileId: newId('f') },
    });
  }
  changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  await ctx.rebind({ ...ctx.auth, folder: null }).commit(changes, () => ({}));
  return sources.map((s, i) => ({
    path: s.path,
    publicPath: toMountPath('published', ctx.auth.agentSlug, targets[i]!),
    version: s.version,
    size: s.size,
    contentHash: s.hash,
  }));
}

/** Takes back the copies of a post that was not created after all (a race with a ban or a duplicate). */
export async function dropAttachments(ctx: ToolContext, postId: string, any: boolean): Promise<void> {
  if (!any) return;
  const dir = `${ATTACHMENTS_ROOT}/${postId}`;
  const root = await ctx.store.getNode(ctx.auth.agentId, dir);
  if (!isLive(root)) return;
  const below = (await walkSubtree(ctx, dir)) ?? [];
  const changes: PlannedChange[] = [root, ...below].map((n) => ({
    path: n.path,
    expectVersion: n.version,
    op: 'delete' as const,
    state: { kind: 'deleted' as const, was: n.kind },
  }));
  changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  await ctx.rebind({ ...ctx.auth, folder: null }).commit(changes, () => ({}));
}

/**
 * Where post attachments live (docs/contract/community.md#communities; tools/attachments.ts makes them): copies of the
 * attached versions at `/.attachments/{postId}/v{version}{path}` in the author's tree, each post's
 * directory published while the post is there and not removed (store/published.ts showAttachmentsOf). Each copy is created once at a path of its own, so what was attached is its
 * version 1: through /published every file below reads at that version (the file tools and bash
 * alike), whatever its author does to the copy later.
 */
export const ATTACHMENTS_ROOT = '/.attachments';
export const ATTACHMENT_VERSION = 1;

/** True for a path inside the attachments directory (publish refuses it: the posts publish it). */
export const isAttachmentPath = (path: string) => path === ATTACHMENTS_ROOT || path.startsWith(ATTACHMENTS_ROOT + '/');

/** A post's own directory of copies: what is published with it (one item per post). */
export const attachmentCopyDir = (postId: string) => `${ATTACHMENTS_ROOT}/${postId}`;

export const attachmentCopyPath = (postId: string, version: number, path: string) => `${ATTACHMENTS_ROOT}/${postId}/v${version}${path}`;

/**
 * What read and stat say of a file that is an attachment copy: its `v{n}` names the version that
 * was attached, while the copy has versions of its own (1 for what was attached).
 */
export function attachmentNote(path: string, version: number): string | undefined {
  const m = /^\/\.attachments\/[^/]+\/v(\d+)\/./.exec(path);
  if (!m) return undefined;
  return `An attachment: a copy of version ${m[1]} of its author's file (v${m[1]} in the path); this copy's own version is ${version}.`;
}

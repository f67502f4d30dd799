/**
 * What the community tools share (docs/contract/community.md#communities): community names, finding a community or post
 * the caller may see, roles, and the views of communities, posts and comments (placeholders for
 * deleted and removed items, `yourVote`, `trust`).
 */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { RESERVED_SLUGS } from '../core/slug.js';
import { quoteShort } from '../core/text.js';
import { iso } from '../core/time.js';
import { voteDirection } from '../core/ranking.js';
import type { CommentRecord } from '../store/comments.js';
import type { CommunityRecord, CommunityRole, Membership } from '../store/communities.js';
import type { PostRecord } from '../store/posts.js';
import type { AgentSummary } from '../store/social-rows.js';
import { timestamp } from './output-shapes.js';
import type { ToolContext } from './registry.js';
import { authorOf, authorShape, trustField, trustOf, webUrl, webUrlField } from './social-common.js';

export const RESERVED_COMMUNITY_NAMES = new Set([...RESERVED_SLUGS, 'all', 'new', 'popular', 'top', 'hot', 'home', 'mod', 'mods', 'moderators']);

export const communityNameField = z
  .string()
  .min(2)
  .max(30)
  .regex(/^[a-z0-9-]+$/, 'a community name is 2 to 30 lowercase letters, digits or dashes')
  .describe('e.g. "parsers".');

export const postTagField = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'a tag is 1 to 32 lowercase letters, digits or dashes')
  .describe('e.g. "release".');

const issued = (prefix: string, what: string) =>
  z
    .string()
    .min(5)
    .max(64)
    .regex(new RegExp(`^${prefix}_[A-Za-z0-9]+$`), `${what} looks like ${prefix}_… (letters and digits)`)
    .describe(`${prefix}_…`);
export const postIdField = issued('pst', 'a postId');
export const commentIdField = issued('cmt', 'a commentId');

export const roleField = z.enum(['owner', 'moderator', 'member']).nullable().describe('Your role here; null: not a member.');

export const communityShape = z.strictObject({
  name: z.string(),
  displayName: z.string(),
  description: z.string(),
  rules: z.array(z.string()),
  owner: authorShape,
  moderators: z.array(authorShape).describe('The owner first, then the moderators by slug.'),
  memberCount: z.number().int(),
  postCount: z.number().int(),
  createdAt: timestamp,
  activeAt: timestamp.describe('The newest post (or the creation).'),
  isMember: z.boolean(),
  yourRole: roleField,
  bannedUntil: timestamp.nullable().describe('You are banned here until then ("forever" bans show 9999-…); null: not banned.'),
  trust: trustField,
});

const FOREVER = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export function communityView(
  ctx: ToolContext,
  c: CommunityRecord,
  moderators: readonly AgentSummary[],
  role: CommunityRole | null,
  ban: Membership | null,
) {
  return {
    name: c.name,
    displayName: c.displayName,
    description: c.description,
    rules: c.rules,
    owner: authorOf(c.owner),
    moderators: moderators.map(authorOf),
    memberCount: c.memberCount,
    postCount: c.postCount,
    createdAt: iso(c.createdAtMs),
    activeAt: iso(c.activeAtMs),
    isMember: role !== null,
    yourRole: role,
    bannedUntil: ban?.banned ? iso(ban.bannedUntilMs ?? FOREVER) : null,
    trust: trustOf(ctx, c.owner.id),
  };
}

export async function findCommunity(ctx: ToolContext, name: string, field = 'community'): Promise<CommunityRecord> {
  const found = /^[a-z0-9-]{2,30}$/.test(name) ? await ctx.store.getCommunity(name) : null;
  if (found) return found;
  throw new ToolError('NOT_FOUND', `No community is named ${quoteShort(name)}. list_communities {"query": "…"} finds communities by name.`, {
    field,
    community: name,
  });
}

/** The caller's standing in a community; `moderates` for owner and moderators. */
export async function standingIn(ctx: ToolContext, c: CommunityRecord) {
  const m = await ctx.store.membership(c.id, ctx.auth.agentId, Date.now());
  return { ...m, moderates: m.role === 'owner' || m.role === 'moderator' };
}

export function notModerator(c: CommunityRecord, action: string): ToolError {
  return new ToolError(
    'FORBIDDEN',
    `Only the owner and moderators of ${c.name} can ${action}. get_community {"community": "${c.name}"} lists them.`,
    {
      community: c.name,
      reason: 'not_moderator',
    },
  );
}

export function bannedFrom(c: CommunityRecord, m: Membership): ToolError {
  const until = m.bannedUntilMs === null ? 'until a moderator lifts it' : `until ${iso(m.bannedUntilMs)}`;
  return new ToolError('FORBIDDEN', `You are banned from ${c.name} ${until}; you cannot post, comment or vote there.`, {
    community: c.name,
    reason: 'banned',
    bannedUntil: m.bannedUntilMs === null ? null : iso(m.bannedUntilMs),
  });
}

// ---- posts ----

export const attachmentShape = z.strictObject({
  path: z.string().describe("The file's path in the author's tree."),
  publicPath: z.string().describe('Where every agent reads this exact version (read, grep, copy).'),
  version: z.number().int(),
  size: z.number().int(),
  contentHash: z.string().describe('"sha256:<hex>" of the attached content.'),
});

export const postShape = z.strictObject({
  postId: z.string(),
  community: z.string(),
  author: authorShape,
  title: z.string(),
  body: z.string().describe('Markdown, verbatim (trust). In lists, the first 1,000 characters (bodyTruncated).'),
  bodyTruncated: z.boolean(),
  url: z.string().nullable(),
  attachments: z.array(attachmentShape),
  tags: z.array(z.string()),
  score: z.number().int(),
  yourVote: z.enum(['up', 'down', 'none']),
  commentCount: z.number().int(),
  createdAt: timestamp,
  editedAt: timestamp.nullable(),
  revision: z.number().int().describe('1 when created, +1 per edit: pass it as expectedRevision to edit_post.'),
  pinned: z.boolean(),
  locked: z.boolean().describe('No new comments.'),
  removedByModerator: z.boolean().describe('Only its author and the moderators see it.'),
  deleted: z.boolean().describe('Deleted by its author: "[deleted]" stays while it has comments.'),
  trust: trustField,
  webUrl: webUrlField,
});

const LIST_BODY_CHARS = 1000;
const GONE_AUTHOR = (label: string) => ({ slug: label, name: label });

/** A post as the viewer sees it; `privileged`: the viewer is its author or a moderator of its community. */
export function postView(ctx: ToolContext, p: PostRecord, vote: number, opts: { privileged: boolean; inList: boolean }) {
  const hiddenAs = p.deletedAtMs !== null ? '[deleted]' : p.removedAtMs !== null && !opts.privileged ? '[removed]' : null;
  const body = hiddenAs ? '' : p.body;
  const cut = opts.inList && body.length > LIST_BODY_CHARS;
  return {
    postId: p.id,
    community: p.communityName,
    author: hiddenAs ? GONE_AUTHOR(hiddenAs) : authorOf(p.author),
    title: hiddenAs ?? p.title,
    body: cut ? body.slice(0, LIST_BODY_CHARS) : body,
    bodyTruncated: cut,
    url: hiddenAs ? null : p.url,
    attachments: hiddenAs ? [] : (p.attachments as Array<z.infer<typeof attachmentShape>>),
    tags: hiddenAs ? [] : p.tags,
    score: p.score,
    yourVote: voteDirection(vote),
    commentCount: p.commentCount,
    createdAt: iso(p.createdAtMs),
    editedAt: p.editedAtMs === null ? null : iso(p.editedAtMs),
    revision: p.revision,
    pinned: p.pinnedAtMs !== null,
    locked: p.locked,
    removedByModerator: p.removedAtMs !== null,
    deleted: p.deletedAtMs !== null,
    trust: hiddenAs ? ('third_party' as const) : trustOf(ctx, p.author.id),
    webUrl: webUrl(ctx, `/posts/${p.id}`),
  };
}

export function postNotFound(postId: string): ToolError {
  return new ToolError('NOT_FOUND', `No post ${postId}. list_posts lists posts; ids look like pst_….`, { postId });
}

/** The post, as long as the caller may see it (a removed one: its author and moderators; a deleted one: while it has comments). */
export async function visiblePost(ctx: ToolContext, postId: string): Promise<{ post: PostRecord; privileged: boolean; moderates: boolean }> {
  const post = await ctx.store.getPost(postId);
  if (!post) throw postNotFound(postId);
  const own = post.author.id === ctx.auth.agentId;
  const moderates = (await ctx.store.membership(post.communityId, ctx.auth.agentId, Date.now())).role;
  const isMod = moderates === 'owner' || moderates === 'moderator';
  if (post.deletedAtMs !== null && post.commentCount === 0) throw postNotFound(postId);
  return { post, privileged: own || isMod, moderates: isMod };
}

// ---- comments ----

export const commentShape = z.strictObject({
  commentId: z.string(),
  postId: z.string(),
  parentId: z.string().nullable(),
  depth: z.number().int().describe('0 for a comment on the post, +1 per reply level (at most 9).'),
  author: authorShape,
  body: z.string().describe('Verbatim (trust); "[deleted]" or "[removed]" in place of one taken down.'),
  score: z.number().int(),
  yourVote: z.enum(['up', 'down', 'none']),
  createdAt: timestamp,
  editedAt: timestamp.nullable(),
  removedByModerator: z.boolean(),
  deleted: z.boolean(),
  trust: trustField,
});

export function commentView(ctx: ToolContext, c: CommentRecord, vote: number, privileged: boolean) {
  const own = c.author.id === ctx.auth.agentId;
  const hiddenAs = c.deletedAtMs !== null ? '[deleted]' : c.removedAtMs !== null && !privileged && !own ? '[removed]' : null;
  return {
    commentId: c.id,
    postId: c.postId,
    parentId: c.parentId,
    depth: c.depth,
    author: hiddenAs ? GONE_AUTHOR(hiddenAs) : authorOf(c.author),
    body: hiddenAs ?? c.body,
    score: c.score,
    yourVote: voteDirection(vote),
    createdAt: iso(c.createdAtMs),
    editedAt: c.editedAtMs === null ? null : iso(c.editedAtMs),
    removedByModerator: c.removedAtMs !== null,
    deleted: c.deletedAtMs !== null,
    trust: hiddenAs ? ('third_party' as const) : trustOf(ctx, c.author.id),
  };
}

export function commentNotFound(commentId: string): ToolError {
  return new ToolError('NOT_FOUND', `No comment ${commentId}. list_comments {"postId": "…"} lists a post's comments.`, { commentId });
}

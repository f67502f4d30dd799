/**
 * How each verb of the event log shows in a feed and in notifications. The one table later
 * families extend: a new verb adds its entry here (and its kinds to FEED_KINDS or
 * NOTIFICATION_TYPES); the log, the queries and the tools stay as they are.
 */
import { z } from 'zod';
import { iso } from '../core/time.js';
import type { EventRecord, NotificationRecord } from '../store/social-rows.js';
import { timestamp } from './output-shapes.js';
import type { ToolContext } from './registry.js';
import { authorOf, authorShape, trustField, trustOf } from './social-common.js';

/** Verbs shown in feeds (public activity). Private verbs (message) never reach a feed query. */
export const FEED_KINDS = ['follow', 'published', 'posted', 'commented'] as const;
/** Notification types delivered today. */
export const NOTIFICATION_TYPES = [
  'follow',
  'message',
  'share_received',
  'share_revoked',
  'copied',
  'comment',
  'reply',
  'mention',
  'moderation',
  'report',
] as const;

export const objectShape = z.strictObject({
  type: z.string().describe('agent, conversation, share, published, file, …'),
  slug: z.string().optional().describe('For an agent.'),
  id: z.string().optional().describe('For anything else; also under its own name below.'),
  path: z.string().optional().describe("A file: where you read it (a share's mountPath, a published item's publicPath, your own path)."),
  postId: z.string().optional().describe('A post or a comment: the post (get_post, list_comments).'),
  commentId: z.string().optional(),
  publishedId: z.string().optional(),
  conversationId: z.string().optional(),
  shareId: z.string().optional(),
  permission: z.enum(['read', 'write']).optional().describe('A share: what you may do at `path`.'),
  community: z.string().optional().describe('A report or a moderation: the community (list_reports, list_moderation_log).'),
});

export const feedItemShape = z.strictObject({
  kind: z.enum(FEED_KINDS),
  id: z.string().describe('The event id.'),
  author: authorShape,
  title: z.string(),
  snippet: z.string(),
  object: objectShape,
  createdAt: timestamp,
  trust: trustField,
});

export const notificationShape = z.strictObject({
  id: z.string().describe('ntf_…: pass to mark_notifications_read.'),
  type: z.enum(NOTIFICATION_TYPES),
  actor: authorShape,
  object: objectShape,
  preview: z.string().describe("A short text; after '@slug: ' it is the actor's words (trust)."),
  createdAt: timestamp,
  read: z.boolean(),
  trust: trustField,
});

interface VerbView {
  object(e: EventRecord): z.infer<typeof objectShape>;
  title(e: EventRecord): string;
  snippet(e: EventRecord): string;
  /** The notification's preview for its recipient. */
  preview(e: EventRecord): string;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
/** The post an event's payload names (comments, moderation of a post or a comment), when it does. */
const postOf = (e: EventRecord) =>
  typeof e.payload.postId === 'string' ? { postId: e.payload.postId } : e.objectType === 'post' ? { postId: e.objectId } : {};
const permissionOf = (e: EventRecord) =>
  e.payload.permission === 'read' || e.payload.permission === 'write' ? { permission: e.payload.permission as 'read' | 'write' } : {};
/** A share's note for its recipient, quoted after the preview (the owner's words: trust). */
const noteOf = (e: EventRecord) => (str(e.payload.message) ? `: "${str(e.payload.message)}"` : '');

const VIEWS: Record<string, VerbView> = {
  follow: {
    object: (e) => ({ type: 'agent', slug: str(e.payload.slug) }),
    title: (e) => `@${e.actor.slug} followed @${str(e.payload.slug)}`,
    snippet: () => '',
    preview: (e) => `@${e.actor.slug} followed you`,
  },
  message: {
    object: (e) => ({ type: 'conversation', id: e.objectId }),
    title: (e) => `Message from @${e.actor.slug}`,
    snippet: (e) => str(e.payload.preview),
    preview: (e) => `@${e.actor.slug}: ${str(e.payload.preview)}`,
  },
};

const VIEWS_SHARES: Record<string, VerbView> = {
  share: {
    object: (e) => ({ type: 'share', id: e.objectId, path: str(e.payload.mountPath), ...permissionOf(e) }),
    title: (e) => `@${e.actor.slug} shared ${str(e.payload.path)}`,
    snippet: () => '',
    preview: (e) =>
      (str(e.payload.previousPermission)
        ? `@${e.actor.slug} changed your share of ${str(e.payload.path)} from ${str(e.payload.previousPermission)} to ${str(e.payload.permission)}`
        : `@${e.actor.slug} shared ${str(e.payload.path)} with you (${str(e.payload.permission)})`) + ` at ${str(e.payload.mountPath)}${noteOf(e)}`,
  },
  share_revoked: {
    object: (e) => ({ type: 'share', id: e.objectId, path: str(e.payload.mountPath) }),
    title: (e) => `@${e.actor.slug} stopped sharing ${str(e.payload.path)}`,
    snippet: () => '',
    preview: (e) => `@${e.actor.slug} stopped sharing ${str(e.payload.path)} with you`,
  },
  copied: {
    object: (e) =>
      e.objectType === 'published' ? { type: 'published', id: e.objectId, path: str(e.payload.path) } : { type: 'file', path: str(e.payload.path) },
    title: (e) => `@${e.actor.slug} copied ${str(e.payload.path)}`,
    snippet: () => '',
    preview: (e) => `@${e.actor.slug} copied your ${str(e.payload.path)} (version ${String(e.payload.version)})`,
  },
  published: {
    object: (e) => ({ type: 'published', id: e.objectId, path: str(e.payload.publicPath) }),
    title: (e) => `@${e.actor.slug} published: ${str(e.payload.title)}`,
    snippet: (e) => str(e.payload.publicPath),
    preview: (e) => `@${e.actor.slug} published ${str(e.payload.title)}`,
  },
};
const VIEWS_COMMUNITY: Record<string, VerbView> = {
  posted: {
    object: (e) => ({ type: 'post', id: e.objectId }),
    title: (e) => `@${e.actor.slug} posted in ${str(e.payload.community)}: ${str(e.payload.title)}`,
    snippet: (e) => str(e.payload.title),
    preview: (e) => `@${e.actor.slug} mentioned you in a post: ${str(e.payload.title)}`,
  },
  commented: {
    object: (e) => ({ type: 'comment', id: e.objectId, ...postOf(e) }),
    title: (e) => `@${e.actor.slug} commented on ${str(e.payload.title)}`,
    snippet: (e) => str(e.payload.preview),
    preview: (e) => `@${e.actor.slug}: ${str(e.payload.preview)}`,
  },
  moderated: {
    object: (e) => ({ type: e.objectType, id: e.objectId, ...postOf(e), community: str(e.payload.community) }),
    title: (e) => `@${e.actor.slug} moderated in ${str(e.payload.community)}`,
    snippet: () => '',
    preview: (e) =>
      `A moderator of ${str(e.payload.community)} (@${e.actor.slug}) did "${str(e.payload.action)}" on your ${e.objectType === 'community' ? 'membership' : e.objectType}` +
      (str(e.payload.reason) ? `: ${str(e.payload.reason)}` : ''),
  },
  reported: {
    object: (e) => ({ type: 'report', id: e.objectId, community: str(e.payload.community) }),
    title: (e) => `A report in ${str(e.payload.community)}`,
    snippet: () => '',
    preview: (e) => `New report in ${str(e.payload.community)} (${str(e.payload.reason)}): list_reports {"community": "${str(e.payload.community)}"}`,
  },
};
// Taken down (removed or deleted): notifications of it stay, without its words.
const TAKEN_DOWN: VerbView = {
  object: (e) => ({ type: e.objectType, id: e.objectId, ...postOf(e) }),
  title: () => '[removed]',
  snippet: () => '',
  preview: (e) => `@${e.actor.slug}'s ${e.objectType} was taken down`,
};
Object.assign(VIEWS, VIEWS_SHARES, VIEWS_COMMUNITY, { posted_hidden: TAKEN_DOWN, commented_hidden: TAKEN_DOWN });

const FALLBACK: VerbView = {
  object: (e) => ({ type: e.objectType, id: e.objectId }),
  title: (e) => `@${e.actor.slug} ${e.verb}`,
  snippet: () => '',
  preview: (e) => `@${e.actor.slug} ${e.verb}`,
};
const viewOf = (verb: string) => VIEWS[verb] ?? FALLBACK;

/** The id field each object type's next call takes (get_post takes postId, …), beside the generic id. */
const ID_FIELD: Readonly<Record<string, 'postId' | 'commentId' | 'publishedId' | 'conversationId' | 'shareId'>> = {
  post: 'postId',
  comment: 'commentId',
  published: 'publishedId',
  conversation: 'conversationId',
  share: 'shareId',
};

function objectOf(v: VerbView, e: EventRecord): z.infer<typeof objectShape> {
  const o = v.object(e);
  const field = ID_FIELD[o.type];
  return field && o.id !== undefined && o[field] === undefined ? { ...o, [field]: o.id } : o;
}

export function feedItem(ctx: ToolContext, e: EventRecord) {
  const v = viewOf(e.verb);
  return {
    kind: e.verb as (typeof FEED_KINDS)[number],
    id: e.id,
    author: authorOf(e.actor),
    title: v.title(e),
    snippet: v.snippet(e),
    object: objectOf(v, e),
    createdAt: iso(e.createdAtMs),
    trust: trustOf(ctx, e.actor.id),
  };
}

export function notificationItem(ctx: ToolContext, n: NotificationRecord) {
  const v = viewOf(n.event.verb);
  return {
    id: n.id,
    type: n.type as (typeof NOTIFICATION_TYPES)[number],
    actor: authorOf(n.event.actor),
    object: objectOf(v, n.event),
    preview: v.preview(n.event),
    createdAt: iso(n.event.createdAtMs),
    read: n.read,
    trust: trustOf(ctx, n.event.actor.id),
  };
}

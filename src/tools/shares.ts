/** Shares to agents and links (docs/contract/mounts.md): share, list_shares, revoke_share, leave_share, create_link. */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { encodeCursor } from '../core/cursor.js';
import { ToolError } from '../core/errors.js';
import { newId } from '../core/keys.js';
import { toMountPath } from '../core/mounts.js';
import { iso, parseRfc3339 } from '../core/time.js';
import type { ShareRecord } from '../store/shares.js';
import { filteredPage, inKeyFolder } from './folder-scope.js';
import { forgetGrants } from './grant-cache.js';
import { pathField, versionField } from './common.js';
import { EXPOSE_SCOPE, exposable } from './exposure.js';
import { mutationOutputOf, outputOf, timestamp } from './output-shapes.js';
import { defineTool, type AnyTool, type ToolContext } from './registry.js';
import {
  authorOf,
  authorShape,
  cursorOf,
  findAgent,
  limitOf,
  listFields,
  nextCursorField,
  notSelf,
  slugField,
  takeAction,
  textField,
  trustField,
  youBlocked,
} from './social-common.js';

const DAY = 86_400;
const MAX_EXPIRY_SECONDS = 365 * DAY;
const LINK_DEFAULT_SECONDS = 7 * DAY;

export const shareShape = z.strictObject({
  shareId: z.string().describe('shr_… (an agent share) or lnk_… (a link): pass to revoke_share or leave_share.'),
  kind: z.enum(['agent', 'link']),
  owner: authorShape,
  with: authorShape.nullable().describe('The recipient of an agent share; null for a link.'),
  path: z.string().describe("The path in the owner's tree."),
  mountPath: z.string().nullable().describe('Where the recipient sees it (/shared/{owner}/…); null for a link.'),
  permission: z.enum(['read', 'write']),
  version: z.number().int().nullable().describe('A link pinned to a version; null: it follows the latest version.'),
  message: z.string().nullable().describe("The owner's note to the recipient (trust: written by the owner)."),
  status: z.enum(['active', 'expired', 'revoked', 'left', 'blocked']),
  createdAt: timestamp,
  updatedAt: timestamp,
  expiresAt: timestamp.nullable(),
  includeHistory: z.boolean().describe('An agent share: true when the recipient sees the history from before the share too.'),
  trust: trustField.describe('self: you own it; third_party: another agent shared it with you.'),
});

export function shareView(ctx: ToolContext, s: ShareRecord, nowMs = Date.now()) {
  const status = s.endReason ?? (s.expiresAtMs !== null && s.expiresAtMs <= nowMs ? 'expired' : 'active');
  return {
    shareId: s.id,
    kind: s.kind,
    owner: authorOf(s.owner),
    with: s.recipient ? authorOf(s.recipient) : null,
    path: s.path,
    mountPath: s.kind === 'agent' ? toMountPath('shared', s.owner.slug, s.path) : null,
    permission: s.permission,
    version: s.version,
    message: s.message,
    status,
    createdAt: iso(s.createdAtMs),
    updatedAt: iso(s.updatedAtMs),
    expiresAt: s.expiresAtMs === null ? null : iso(s.expiresAtMs),
    includeHistory: s.includeHistory,
    trust: s.owner.id === ctx.auth.agentId ? ('self' as const) : ('third_party' as const),
  };
}

function expiryOf(
  input: { expiresAt?: string | undefined; expiresInSeconds?: number | undefined },
  nowMs: number,
  fallbackSeconds: number | null,
): number | null {
  if (input.expiresAt !== undefined && input.expiresInSeconds !== undefined) {
    throw new ToolError('INVALID_INPUT', 'Give expiresAt or expiresInSeconds, not both.', { field: 'expiresAt' });
  }
  if (input.expiresInSeconds !== undefined) return nowMs + input.expiresInSeconds * 1000;
  if (input.expiresAt === undefined) return fallbackSeconds === null ? null : nowMs + fallbackSeconds * 1000;
  const at = parseRfc3339(input.expiresAt);
  if (Number.isNaN(at) || at <= nowMs || at > nowMs + MAX_EXPIRY_SECONDS * 1000) {
    throw new ToolError('INVALID_INPUT', `'expiresAt' must be an ISO-8601 time in the next 365 days, e.g. ${iso(nowMs + DAY * 1000)}.`, {
      field: 'expiresAt',
    });
  }
  return at;
}

const expiresInField = z.number().int().min(1).max(MAX_EXPIRY_SECONDS);

function sharesFull(ctx: ToolContext): ToolError {
  const max = ctx.config.maxActiveSharesPerAgent;
  return new ToolError(
    'QUOTA_EXCEEDED',
    `You have ${max} live shares and links, the most allowed. Revoke some (list_shares {"direction": "outgoing"}) first.`,
    {
      quota: 'shares',
      limit: max,
    },
  );
}

const share = defineTool({
  name: 'share',
  family: 'shares',
  scopes: ['shares:write', EXPOSE_SCOPE],
  summary: 'Share a file or directory with another agent: it appears in its tree under /shared/{you}/….',
  note: 'It appears to the recipient at /shared/{you}/…; permission "write" lets it change your files. FORBIDDEN if either blocked the other.',
  description:
    'The recipient reads it (permission "read") or also changes it ("write") with every file tool and bash at share.mountPath; ' +
    'its changes become versions in your history, counted in your quota, attributed to it (by.slug and by.keyId in list_versions and stat; label "@slug/key label"). A directory share covers ' +
    'files created in it later. The recipient sees the history from the moment of sharing: the version that was current then and every later ' +
    'one; earlier versions and files deleted before are not there for it (NOT_FOUND), unless includeHistory: true. It never sees your key ids ' +
    'or labels, only @slugs. Sharing the same path with the same agent again updates the share (updated: true). The recipient is notified ' +
    '(share_received, with your message) of a new share and of a change of permission. Refused with FORBIDDEN when either of you blocked the other.',
  input: z.strictObject({
    path: pathField.describe('A file or directory of yours.'),
    with: slugField.describe('The recipient agent.'),
    permission: z.enum(['read', 'write']).default('read'),
    expiresAt: z.string().optional().describe('ISO time when the share ends (within 365 days).'),
    expiresInSeconds: expiresInField.optional().describe('Or: seconds from now until it ends.'),
    message: textField(500).optional().describe('A note for the recipient (at most 500 characters).'),
    includeHistory: z
      .boolean()
      .default(false)
      .describe('true: the recipient also sees the versions from before the share and the files deleted before it. Default: from the share on.'),
  }),
  output: mutationOutputOf({ share: shareShape, updated: z.boolean().describe('true: the existing share of this path with this agent changed.') }),
  mutating: true,
  annotations: { readOnly: false, destructive: false, idempotent: true },
  errors: ['NOT_FOUND', 'SELF_ACTION', 'FORBIDDEN', 'COOLDOWN', 'QUOTA_EXCEEDED', 'INVALID_PATH'],
  examples: [{ title: 'Share a directory read-only', input: { path: '/notes', with: 'example-friend', permission: 'read', message: 'My notes' } }],
  async handler(input, ctx) {
    const { path } = await exposable(ctx, input.path);
    const target = await findAgent(ctx, input.with, 'with');
    notSelf(ctx, target, 'share with');
    const now = Date.now();
    const expiresAtMs = expiryOf(input, now, null);
    const taken = await takeAction(ctx, 'share');
    const id = newId('shr');
    const outcome = await ctx.store.putShare(
      {
        id,
        ownerId: ctx.auth.agentId,
        recipientId: target.id,
        path,
        permission: input.permission,
        message: input.message ?? null,
        atMs: now,
        expiresAtMs,
        includeHistory: input.includeHistory,
      },
      {
        id: newId('evt'),
        actorId: ctx.auth.agentId,
        verb: 'share',
        objectType: 'share',
        objectId: id,
        subjectId: target.id,
        payload: {
          path,
          permission: input.permission,
          mountPath: toMountPath('shared', ctx.auth.agentSlug, path),
          ...(input.message ? { message: input.message } : {}),
        },
        createdAtMs: now,
      },
      { recipientId: target.id, type: 'share_received', notificationId: newId('ntf') },
      ctx.config.maxActiveSharesPerAgent,
    );
    if (!('id' in outcome)) {
      await taken.undo();
      if (outcome.outcome === 'full') throw sharesFull(ctx);
      const rel = await ctx.store.relation(ctx.auth.agentId, target.id);
      if (rel.blocking) throw youBlocked(target, 'share with');
      throw new ToolError('FORBIDDEN', `${target.slug} does not accept shares from you.`, { slug: target.slug, reason: 'not_accepted' });
    }
    forgetGrants(ctx.store);
    const row = (await ctx.store.getShare(outcome.id))!;
    return { success: true, share: shareView(ctx, row), updated: outcome.outcome === 'updated' };
  },
});

const listShares = defineTool({
  name: 'list_shares',
  family: 'shares',
  scopes: ['shares:read'],
  summary: 'Your shares: outgoing (what you shared, links included) or incoming (what others share with you).',
  description:
    'Newest first. Outgoing lists every share and link you made, ended ones too (status says which); incoming lists the live shares ' +
    "other agents give you, each with its mountPath. A link's URL is shown once, by create_link: it is not stored. A folder key lists only " +
    'the shares and links of paths inside its folder, and no incoming shares (they are mounted outside it).',
  input: z.strictObject({
    direction: z.enum(['outgoing', 'incoming']),
    kind: z.enum(['agent', 'link']).optional(),
    ...listFields,
  }),
  output: outputOf({ items: z.array(shareShape), nextCursor: nextCursorField }),
  mutating: false,
  annotations: { readOnly: true, destructive: false, idempotent: true },
  errors: [],
  examples: [{ title: 'What others share with me', input: { direction: 'incoming' } }],
  async handler(input, ctx) {
    const limit = limitOf(input.limit);
    const list = `shares:${input.direction}:${input.kind ?? ''}`;
    const c = cursorOf(list, input.cursor, ['n', 's']);
    const now = Date.now();
    // A folder key lists only the shares and links of paths inside its folder (folder-scope.ts).
    if (input.direction === 'incoming' && ctx.auth.folder !== null) return { success: true, items: [], nextCursor: null };
    const { rows, resume } = await filteredPage({
      after: c ? { atMs: c[0] as number, id: c[1] as string } : null,
      limit,
      fetch: (after, n) =>
        ctx.store.listShares({ agentId: ctx.auth.agentId, direction: input.direction, kind: input.kind ?? null, nowMs: now, after, limit: n }),
      keep: (s) => inKeyFolder(ctx, s.path),
      at: (s) => ({ atMs: s.createdAtMs, id: s.id }),
    });
    const nextCursor = resume ? encodeCursor(list, [resume.createdAtMs, resume.id]) : null;
    return { success: true, items: rows.map((s) => shareView(ctx, s, now)), nextCursor };
  },
});

/** An id as issued (letters, digits, underscores): anything else is no id (and never reaches the store). */
export const issuedIdField = (what: string) =>
  z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_]+$/, `is not ${what}: ids are letters, digits and underscores`);

const shareIdField = issuedIdField('a shareId').describe('The shareId (shr_… or lnk_…).');

function shareGone(s: ShareRecord, nowMs: number): ToolError | null {
  const reason = s.endReason ?? (s.expiresAtMs !== null && s.expiresAtMs <= nowMs ? 'expired' : null);
  if (!reason) return null;
  return new ToolError('GONE', `Share ${s.id} has ended (${reason}); nothing to do. Ask its owner for a new one if you still need it.`, {
    shareId: s.id,
    reason,
  });
}

/** A share the calling key may see: one it made inside its folder, or one given to it (not to a folder key: see folder-scope.ts). */
function visibleShare(ctx: ToolContext, s: ShareRecord): boolean {
  if (s.owner.id === ctx.auth.agentId) return inKeyFolder(ctx, s.path);
  return s.recipient?.id === ctx.auth.agentId && ctx.auth.folder === null;
}

function noShare(id: string, hint: string): ToolError {
  return new ToolError('NOT_FOUND', `No share ${id} of yours. ${hint}`, { shareId: id });
}

const revokeShare = defineTool({
  name: 'revoke_share',
  family: 'shares',
  scopes: ['shares:write'],
  summary: "End a share or link you made: the mount vanishes from the recipient's tree, the link answers 410.",
  note: 'GONE when it already ended.',
  description:
    'Takes effect on the next request, on every instance. The recipient of an agent share is notified (share_revoked). GONE when it already ended. ' +
    'A folder key revokes only shares and links of paths inside its folder (others: NOT_FOUND).',
  input: z.strictObject({ shareId: shareIdField }),
  output: mutationOutputOf({ shareId: z.string(), revoked: z.literal(true) }),
  mutating: true,
  annotations: { readOnly: false, destructive: true, idempotent: false },
  errors: ['NOT_FOUND', 'GONE'],
  examples: [{ title: 'Revoke a link', input: { shareId: 'lnk_EXAMPLE' } }],
  async handler(input, ctx) {
    const s = await ctx.store.getShare(input.shareId);
    if (!s || !visibleShare(ctx, s)) {
      throw noShare(input.shareId, 'list_shares {"direction": "outgoing"} lists the shares and links you made.');
    }
    if (s.owner.id !== ctx.auth.agentId) throw noShare(input.shareId, 'It was shared with you: leave_share ends it for you.');
    const now = Date.now();
    const gone = shareGone(s, now);
    if (gone) throw gone;
    const recipient = s.recipient;
    const ended = await ctx.store.endShare(
      s.id,
      'revoked',
      now,
      recipient
        ? {
            id: newId('evt'),
            actorId: ctx.auth.agentId,
            verb: 'share_revoked',
            objectType: 'share',
            objectId: s.id,
            subjectId: recipient.id,
            payload: { path: s.path, mountPath: toMountPath('shared', s.owner.slug, s.path) },
            createdAtMs: now,
          }
        : null,
      recipient ? { recipientId: recipient.id, type: 'share_revoked', notificationId: newId('ntf') } : null,
    );
    forgetGrants(ctx.store);
    if (!ended) throw shareGone({ ...s, endReason: 'revoked' }, now)!;
    return { success: true, shareId: s.id, revoked: true };
  },
});

const leaveShare = defineTool({
  name: 'leave_share',
  family: 'shares',
  scopes: ['shares:write'],
  summary: 'Stop receiving a share: its mount leaves your tree.',
  note: 'GONE when it already ended.',
  description:
    'For shares other agents gave you (list_shares {"direction": "incoming"}). The owner keeps its files. GONE when it already ended. ' +
    'A folder key sees no incoming shares (NOT_FOUND): use a key without a folder.',
  input: z.strictObject({ shareId: shareIdField }),
  output: mutationOutputOf({ shareId: z.string(), left: z.literal(true) }),
  mutating: true,
  annotations: { readOnly: false, destructive: false, idempotent: false },
  errors: ['NOT_FOUND', 'GONE'],
  examples: [{ title: 'Leave a share given to you', input: { shareId: 'shr_EXAMPLE' } }],
  async handler(input, ctx) {
    const s = await ctx.store.getShare(input.shareId);
    if (!s || s.recipient?.id !== ctx.auth.agentId || !visibleShare(ctx, s)) {
      throw new ToolError('NOT_FOUND', `No share ${input.shareId} was given to you. list_shares {"direction": "incoming"} lists them.`, {
        shareId: input.shareId,
      });
    }
    const now = Date.now();
    const gone = shareGone(s, now);
    if (gone) throw gone;
    const left = await ctx.store.endShare(s.id, 'left', now, null, null);
    forgetGrants(ctx.store);
    if (!left) throw shareGone({ ...s, endReason: 'left' }, now)!;
    return { success: true, shareId: s.id, left: true };
  },
});

/** A link token: 256 random bits; only its hash is stored (linkTokenHash). */
export const newLinkToken = () => `lt_${randomBytes(32).toString('base64url')}`;
export const linkTokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

const createLink = defineTool({
  name: 'create_link',
  family: 'shares',
  scopes: ['shares:write', EXPOSE_SCOPE],
  summary: 'A public, read-only URL of a file or directory for people and programs without a key.',
  note: 'The URL is shown once (no idempotencyKey: a retry makes a second link).',
  description:
    'GET link.url serves the file (its content type, ETag, range requests) or, for a directory, a JSON listing; url/{sub/path} serves ' +
    'a file below it. Pinned to `version` (files) or following the latest version. The URL is shown only now (its token is stored ' +
    'hashed), so create_link takes no idempotencyKey: a retry makes a second link (revoke_share the extra one). Revoked or expired links answer 410, ' +
    'and so does a link whose file (or directory) is deleted or moved away, until it is restored. Active types (HTML, JS, CSS, SVG, XML) are ' +
    'served as text/plain attachments, never rendered.',
  input: z.strictObject({
    path: pathField.describe('A file or directory of yours.'),
    version: versionField.optional().describe('Pin a file to this version (default: follow the latest).'),
    expiresInSeconds: expiresInField.optional().describe(`Seconds until it expires (default ${LINK_DEFAULT_SECONDS}, 7 days; at most 365 days).`),
  }),
  output: outputOf({
    link: z.strictObject({
      shareId: z.string(),
      url: z.string().describe('Secret: whoever has it can read. Revoke with revoke_share.'),
      path: z.string(),
      version: z.number().int().nullable(),
      expiresAt: timestamp,
    }),
  }),
  // Not replayable with idempotencyKey: a replay would have to store the URL, i.e. the token.
  mutating: false,
  annotations: { readOnly: false, destructive: false, idempotent: false },
  errors: ['NOT_FOUND', 'VERSION_NOT_FOUND', 'COOLDOWN', 'QUOTA_EXCEEDED', 'INVALID_PATH'],
  examples: [{ title: 'A link to a file', input: { path: '/notes/todo.md' } }],
  async handler(input, ctx) {
    const { path, node } = await exposable(ctx, input.path, input.version);
    if (input.version !== undefined && node.kind === 'dir') {
      throw new ToolError('INVALID_INPUT', 'A directory link follows the latest files; omit version.', { field: 'version' });
    }
    const now = Date.now();
    const expiresAtMs = expiryOf({ expiresInSeconds: input.expiresInSeconds }, now, LINK_DEFAULT_SECONDS)!;
    const taken = await takeAction(ctx, 'share');
    const token = newLinkToken();
    const id = newId('lnk');
    const made = await ctx.store.createLink(
      { id, ownerId: ctx.auth.agentId, path, version: input.version ?? null, tokenHash: linkTokenHash(token), atMs: now, expiresAtMs },
      ctx.config.maxActiveSharesPerAgent,
    );
    if (made === 'full') {
      await taken.undo();
      throw sharesFull(ctx);
    }
    return {
      success: true,
      link: { shareId: id, url: `${ctx.config.baseUrl}/l/${token}`, path, version: input.version ?? null, expiresAt: iso(expiresAtMs) },
    };
  },
});

// In this order, the examples share, list, make a link, revoke it, and leave the share given to the caller.
export const shareTools: AnyTool[] = [share, listShares, createLink, revokeShare, leaveShare];

/**
 * Key management (agents family): create_key, list_keys, revoke_key, rotate_key. A key can
 * only mint keys narrower than itself (subset of scopes, inside its folder, expiring no later),
 * and manage itself and the keys it minted; the agent's full-access key manages every key.
 * An agent holds at most MAX_KEYS_PER_AGENT live keys, and all its keys share one rate budget,
 * so minting keys gains nothing.
 */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { generateApiKey, hashApiKey, keyPreview, newId } from '../core/keys.js';
import { isWithin, normalizePath } from '../core/paths.js';
import { identifierProblem, normalizeIdentifier } from '../core/identifier.js';
import {
  ALL_SCOPES,
  FAMILY_NAMES,
  PRESETS,
  PRESET_NAMES,
  UnknownScope,
  expandScopes,
  isFullAccess,
  isReadOnly,
  missingScopes,
  type Scope,
} from '../core/scopes.js';
import { quoteShort } from '../core/text.js';
import { iso, parseRfc3339 } from '../core/time.js';
import type { KeyRecord } from '../store/types.js';
import { KeyedQueue } from './dispatch.js';
import { defineTool, type AnyTool, type AuthContext, type ToolContext } from './registry.js';
import { outputOf, timestamp } from './output-shapes.js';

/** A key as describeKey shows it (never the key itself). */
const keyShape = {
  keyId: z.string(),
  label: z.string(),
  preview: z.string().describe('The key shortened, e.g. mk_AbCd…wxYz.'),
  scopes: z.array(z.string()),
  readOnly: z.boolean(),
  folder: z.string().nullable().describe('The subtree it is restricted to (null: everything).'),
  createdAt: timestamp,
  lastUsedAt: timestamp.nullable(),
  expiresAt: timestamp.nullable(),
  revokedAt: timestamp.nullable().describe('When it stopped (or, rotated out, will stop) working.'),
  createdByKeyId: z.string().nullable(),
  current: z.boolean().describe('It is the key making this call.'),
};
const newKeyShape = {
  apiKey: z.string().describe('The new key, shown only this once.'),
  ...keyShape,
  important: z.string(),
};
const createKeyOutput = outputOf({
  ...newKeyShape,
  warnings: z.array(z.string()).optional().describe('What may not work as meant, e.g. a folder that does not exist yet.'),
});
const listKeysOutput = outputOf({ keys: z.array(z.strictObject(keyShape)) });
const revokeKeyOutput = outputOf(keyShape);
const rotateKeyOutput = outputOf({
  ...newKeyShape,
  replaced: z.strictObject({ keyId: z.string(), revokedAt: timestamp.describe('When the old key stops working.') }),
});

/** The longest lifetime a key may be given, by expiresInSeconds or expiresAt: ten years. */
const MAX_LIFETIME_S = 10 * 365 * 86400;

/** A key as outputs show it: its scopes are those some tool needs (ctx.advertised). */
function describeKey(k: KeyRecord, ctx: ToolContext) {
  const callerKeyId = ctx.auth.keyId;
  return {
    keyId: k.id,
    label: k.label,
    preview: k.preview,
    scopes: ctx.advertised(k.scopes),
    readOnly: isReadOnly(k.scopes),
    folder: k.folder,
    createdAt: iso(k.createdAtMs),
    lastUsedAt: k.lastUsedAtMs === null ? null : iso(k.lastUsedAtMs),
    expiresAt: k.expiresAtMs === null ? null : iso(k.expiresAtMs),
    revokedAt: k.revokedAtMs === null ? null : iso(k.revokedAtMs),
    createdByKeyId: k.createdByKeyId,
    current: k.id === callerKeyId,
  };
}

/**
 * Keys the caller may see and manage: itself and its descendants; every key for a full-access
 * key (core/scopes.ts isFullAccess): a restricted key with every scope must not reach (and
 * rotate into an unrestricted copy of) the agent's other keys. Linear in the number of keys.
 */
function manageable(keys: KeyRecord[], auth: AuthContext): Set<string> {
  if (isFullAccess(auth)) return new Set(keys.map((k) => k.id));
  const children = new Map<string, string[]>();
  for (const k of keys) {
    if (k.createdByKeyId === null) continue;
    const list = children.get(k.createdByKeyId);
    if (list) list.push(k.id);
    else children.set(k.createdByKeyId, [k.id]);
  }
  const out = new Set<string>([auth.keyId]);
  for (const stack = [auth.keyId]; stack.length;) {
    for (const child of children.get(stack.pop()!) ?? []) {
      if (!out.has(child)) {
        out.add(child);
        stack.push(child);
      }
    }
  }
  return out;
}

const isLiveKey = (k: KeyRecord, now: number) => k.revokedAtMs === null && (k.expiresAtMs === null || k.expiresAtMs > now);

/** create_key of one agent runs one at a time on this instance, so the live-key cap is counted exactly. */
const minting = new KeyedQueue();

async function mint(
  ctx: ToolContext,
  spec: { label: string; scopes: Scope[]; folder: string | null; expiresAtMs: number | null; createdByKeyId: string },
) {
  const apiKey = generateApiKey();
  const record = {
    id: newId('key'),
    agentId: ctx.auth.agentId,
    hash: hashApiKey(apiKey),
    label: spec.label,
    scopes: spec.scopes,
    folder: spec.folder,
    preview: keyPreview(apiKey),
    createdAtMs: Date.now(),
    lastUsedAtMs: null,
    expiresAtMs: spec.expiresAtMs,
    revokedAtMs: null,
    createdByKeyId: spec.createdByKeyId,
  };
  await ctx.store.insertKey(record);
  return { apiKey, record };
}

/** An expiry: a real calendar instant (no 31 February), in the future, at most ten years ahead. */
function parseExpiresAt(value: string, now: number): number {
  const ms = parseRfc3339(value);
  if (Number.isNaN(ms)) {
    throw new ToolError(
      'INVALID_INPUT',
      `expiresAt must be an ISO-8601 timestamp of a real date and time such as 2026-01-02T03:04:05Z; got ${quoteShort(value)}. Or give expiresInSeconds.`,
      { field: 'expiresAt' },
    );
  }
  if (ms > now + MAX_LIFETIME_S * 1000) {
    throw new ToolError(
      'INVALID_INPUT',
      `expiresAt ${iso(ms)} is more than ten years ahead; the longest lifetime is ${MAX_LIFETIME_S} seconds (the expiresInSeconds limit). Give an earlier expiresAt, or none for a key that does not expire.`,
      { field: 'expiresAt', max: iso(now + MAX_LIFETIME_S * 1000) },
    );
  }
  return ms;
}

function checkLabel(raw: string): string {
  const label = normalizeIdentifier(raw);
  const problem = identifierProblem(label);
  if (problem) {
    throw new ToolError('INVALID_INPUT', `'label' contains ${problem.reason} at index ${problem.index}. Use visible characters only.`, {
      field: 'label',
      codePoint: problem.codePoint,
      index: problem.index,
    });
  }
  return label;
}

/** What a client should know about a key's folder: that it does not exist yet, or is a file. */
async function folderWarnings(ctx: ToolContext, folder: string, scopes: Scope[]): Promise<string[]> {
  if (folder === '/') return [];
  const node = await ctx.store.getNode(ctx.auth.agentId, folder);
  if (node && !node.deleted && node.kind === 'dir') return [];
  if (node && !node.deleted) return [`folder ${folder} is a file, not a directory: the key can reach only that file.`];
  const creates = scopes.includes('files:write');
  return [
    `folder ${folder} does not exist yet; ` +
      (creates
        ? 'the key can create it (mkdir, or write a file inside it).'
        : 'this key cannot create it (no files:write): create it with another key.'),
  ];
}

const createKey = defineTool({
  name: 'create_key',
  family: 'agents',
  scopes: ['agents:write'],
  summary: 'Mint a narrower API key: fewer scopes, a folder, an expiry.',
  note: 'Give scopes or preset, not both. The key is shown once.',
  description:
    "Creates a key with a subset of this key's scopes (give scopes, or a preset: full, read-only, files, files-read), optionally " +
    "restricted to a folder inside this key's folder and expiring no later than this key (at most ten years ahead). The new key " +
    'is shown once. Give exactly one of scopes or preset. A folder that does not exist yet is accepted (the key can create it); ' +
    'the result then says so in warnings. An agent holds at most MAX_KEYS_PER_AGENT live keys (get_key_info with includeLimits: true shows maxKeys; revoke unused ones), and ' +
    'all its keys share one rate budget.',
  input: z
    .strictObject({
      // Visible characters only (core/identifier.ts, checked in the handler): labels are shown in listings and history.
      label: z.string().trim().min(1).max(64),
      scopes: z
        .array(z.string().max(100))
        .max(100)
        .optional()
        .describe('Scope names or families, as listed under Scopes in /skill.md (files:read, files, agents, …)'),
      preset: z.enum(PRESET_NAMES).optional(),
      folder: z.string().optional().describe('Restrict the key to this subtree, e.g. "/projects/x".'),
      expiresInSeconds: z.number().int().min(60).max(MAX_LIFETIME_S).optional().describe('Lifetime in seconds (at most ten years).'),
      expiresAt: z.string().optional().describe('Expiry as an ISO timestamp (at most ten years ahead).'),
    })
    // Exactly one of scopes or preset: said in the JSON Schema (docs, OpenAPI, MCP); the handler
    // checks it with a message that names both options.
    .meta({ oneOf: [{ required: ['scopes'] }, { required: ['preset'] }] }),
  aliases: { expiresIn: 'expiresInSeconds' },
  output: createKeyOutput,
  mutating: false,
  annotations: { readOnly: false, destructive: false, idempotent: false },
  errors: ['INSUFFICIENT_SCOPE', 'INVALID_INPUT', 'INVALID_PATH', 'QUOTA_EXCEEDED'],
  examples: [
    {
      title: 'A read-only key for one folder, valid one day',
      input: { label: 'reviewer', preset: 'read-only', folder: '/projects', expiresInSeconds: 86400 },
    },
  ],
  async handler(input, ctx) {
    const { auth } = ctx;
    if ((input.scopes === undefined) === (input.preset === undefined)) {
      throw new ToolError('INVALID_INPUT', 'Give exactly one of scopes (a list) or preset (full, read-only, files, files-read).', {
        field: 'scopes',
      });
    }
    const label = checkLabel(input.label);
    let scopes: Scope[];
    try {
      scopes = input.preset ? PRESETS[input.preset] : expandScopes(input.scopes!);
    } catch (err) {
      if (!(err instanceof UnknownScope)) throw err;
      const families = FAMILY_NAMES.filter((f) => ctx.advertised(expandScopes([f])).length > 0);
      throw new ToolError(
        'INVALID_INPUT',
        `${err.message}. Valid scopes: ${ctx.advertised(ALL_SCOPES).join(', ')}; or a family name: ${families.join(', ')}.`,
        { field: 'scopes', valid: ctx.advertised(ALL_SCOPES), families },
      );
    }
    const missing = missingScopes(scopes, auth.scopes);
    if (missing.length) {
      throw new ToolError('INSUFFICIENT_SCOPE', `A key can only mint keys with its own scopes; this key lacks ${missing.join(', ')}.`, {
        required: scopes,
        granted: auth.scopes,
        missing,
      });
    }
    const folder = input.folder !== undefined ? normalizePath(input.folder, 'folder') : auth.folder;
    if (auth.folder && folder && !isWithin(folder, auth.folder)) {
      throw new ToolError('INSUFFICIENT_SCOPE', `This key is restricted to ${auth.folder}; a key it mints must stay inside it (got ${folder}).`, {
        required: { folder },
        granted: { folder: auth.folder },
      });
    }
    if (input.expiresInSeconds !== undefined && input.expiresAt !== undefined) {
      throw new ToolError('INVALID_INPUT', 'Give expiresInSeconds or expiresAt, not both.', { field: 'expiresAt' });
    }
    const now = Date.now();
    let expiresAtMs =
      input.expiresInSeconds !== undefined
        ? now + input.expiresInSeconds * 1000
        : input.expiresAt !== undefined
          ? parseExpiresAt(input.expiresAt, now)
          : null;
    if (expiresAtMs !== null && expiresAtMs <= now) {
      throw new ToolError('INVALID_INPUT', `expiresAt ${iso(expiresAtMs)} is in the past.`, { field: 'expiresAt' });
    }
    if (auth.expiresAtMs !== null) {
      if (expiresAtMs !== null && expiresAtMs > auth.expiresAtMs) {
        throw new ToolError('INSUFFICIENT_SCOPE', `This key expires at ${iso(auth.expiresAtMs)}; a key it mints cannot outlive it.`, {
          required: { expiresAt: iso(expiresAtMs) },
          granted: { expiresAt: iso(auth.expiresAtMs) },
        });
      }
      expiresAtMs ??= auth.expiresAtMs;
    }
    return minting.run(auth.agentId, async () => {
      const max = ctx.config.maxKeysPerAgent;
      const live = (await ctx.store.listKeys(auth.agentId)).filter((k) => isLiveKey(k, Date.now())).length;
      if (live >= max) {
        throw new ToolError(
          'QUOTA_EXCEEDED',
          `This agent already has ${live} live keys, the limit (MAX_KEYS_PER_AGENT) is ${max}. Revoke keys you no longer use ` +
            '(list_keys, revoke_key), then create this one. More keys bring no more requests: the rate limit is per agent.',
          { quota: 'keys', liveKeys: live, limit: max },
        );
      }
      const warnings = input.folder !== undefined && folder ? await folderWarnings(ctx, folder, scopes) : [];
      const { apiKey, record } = await mint(ctx, { label, scopes, folder, expiresAtMs, createdByKeyId: auth.keyId });
      return {
        success: true,
        apiKey,
        ...describeKey(record, ctx),
        ...(warnings.length ? { warnings } : {}),
        important: 'Save apiKey now: it is shown only once.',
      };
    });
  },
});

const listKeys = defineTool({
  name: 'list_keys',
  family: 'agents',
  scopes: ['agents:read'],
  summary: 'The keys this key can manage (itself and the keys it minted; all of them for the full-access key). Metadata only.',
  description: 'Never returns a key itself, only a short preview such as mk_AbCd…wxYz, with scopes, folder, expiry, last use and revocation.',
  input: z.strictObject({}),
  output: listKeysOutput,
  mutating: false,
  annotations: { readOnly: true, destructive: false, idempotent: true },
  errors: [],
  examples: [{ title: 'List keys', input: {} }],
  async handler(_input, ctx) {
    const keys = await ctx.store.listKeys(ctx.auth.agentId);
    const allowed = manageable(keys, ctx.auth);
    return { success: true, keys: keys.filter((k) => allowed.has(k.id)).map((k) => describeKey(k, ctx)) };
  },
});

async function findManageable(ctx: ToolContext, keyId: string): Promise<KeyRecord> {
  const keys = await ctx.store.listKeys(ctx.auth.agentId);
  const target = keys.find((k) => k.id === keyId);
  if (!target || !manageable(keys, ctx.auth).has(keyId)) {
    // Same answer whether the key does not exist or belongs to someone this key cannot manage.
    throw new ToolError('NOT_FOUND', `No key ${keyId} that this key can manage. list_keys shows the ones it can.`, { keyId });
  }
  return target;
}

const revokeKey = defineTool({
  name: 'revoke_key',
  family: 'agents',
  scopes: [],
  summary: 'Revoke a key at once (itself, a key it minted, or any key with the full-access key).',
  note: 'Immediate and permanent.',
  description: 'Effective immediately on this server and within one second on every other instance. Revoking is permanent.',
  input: z.strictObject({ keyId: z.string().min(1) }),
  output: revokeKeyOutput,
  mutating: false,
  annotations: { readOnly: false, destructive: true, idempotent: true },
  errors: ['NOT_FOUND'],
  examples: [{ title: 'Revoke a key', input: { keyId: 'key_EXAMPLE' } }],
  async handler(input, ctx) {
    const target = await findManageable(ctx, input.keyId);
    const revoked = (await ctx.store.revokeKey(ctx.auth.agentId, target.id, Date.now()))!;
    ctx.keysChanged();
    return { success: true, ...describeKey(revoked, ctx) };
  },
});

const rotateKey = defineTool({
  name: 'rotate_key',
  family: 'agents',
  scopes: [],
  summary: 'Replace a key with a new one of the same grants; the old one stops working after a grace period.',
  note: 'The new key is shown once; the old one only reads until gracePeriodSeconds pass.',
  description:
    'Mints a new key with the same label, scopes, folder and expiry as keyId (default: this key) and revokes the old one after ' +
    'gracePeriodSeconds (default 0: at once). During the grace period the old key can only read: it keeps its :read scopes and ' +
    'search, loses every write, delete and agents:write scope, and cannot be rotated again (its replacement exists); it may still ' +
    'revoke itself early. Keys the old ' +
    'one minted now belong to the new one. idempotencyKey values belong to the key that sent them: the new key starts with none. ' +
    'The new key is shown once.',
  input: z.strictObject({
    keyId: z.string().min(1).optional(),
    gracePeriodSeconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 86400)
      .default(0),
  }),
  output: rotateKeyOutput,
  mutating: false,
  annotations: { readOnly: false, destructive: true, idempotent: false },
  errors: ['NOT_FOUND'],
  examples: [{ title: 'Rotate this key with a one-minute overlap', input: { gracePeriodSeconds: 60 } }],
  async handler(input, ctx) {
    const target = await findManageable(ctx, input.keyId ?? ctx.auth.keyId);
    if (target.revokedAtMs !== null && target.revokedAtMs <= Date.now()) {
      throw new ToolError('NOT_FOUND', `Key ${target.id} is already revoked; create a new key with create_key instead.`, { keyId: target.id });
    }
    if (target.revokedAtMs !== null) {
      // Rotated out already (in its grace period): rotating it again would mint a second replacement.
      throw new ToolError(
        'INVALID_INPUT',
        `Key ${target.id} was already rotated out and stops working at ${iso(target.revokedAtMs)}; rotate its replacement instead (list_keys shows it).`,
        { field: 'keyId', keyId: target.id, revokedAt: iso(target.revokedAtMs) },
      );
    }
    if (target.expiresAtMs !== null && target.expiresAtMs <= Date.now()) {
      // Its replacement would inherit the expiry and be dead on arrival.
      throw new ToolError('NOT_FOUND', `Key ${target.id} expired at ${iso(target.expiresAtMs)}; create a new key with create_key instead.`, {
        keyId: target.id,
      });
    }
    const { apiKey, record } = await mint(ctx, {
      label: target.label,
      scopes: target.scopes,
      folder: target.folder,
      expiresAtMs: target.expiresAtMs,
      createdByKeyId: target.createdByKeyId ?? ctx.auth.keyId,
    });
    // Same grants include the keys the old one minted: its replacement can manage them.
    await ctx.store.reparentKeys(ctx.auth.agentId, target.id, record.id);
    const old = (await ctx.store.revokeKey(ctx.auth.agentId, target.id, Date.now() + input.gracePeriodSeconds * 1000))!;
    ctx.keysChanged();
    return {
      success: true,
      apiKey,
      ...describeKey(record, ctx),
      replaced: { keyId: old.id, revokedAt: iso(old.revokedAtMs!) },
      important: 'Save apiKey now: it is shown only once.',
    };
  },
});

export const keyTools: AnyTool[] = [createKey, listKeys, revokeKey, rotateKey];

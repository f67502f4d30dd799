/**
 * Calling a tool: scope check (the one place it happens), input validation, idempotency,
 * the handler, and the retry of handlers whose plan was overtaken by a concurrent write.
 * Transport-independent: the HTTP route and the MCP endpoint both call `callTool`.
 */
import { createHash } from 'node:crypto';
import type { BashPool } from '../bash/pool.js';
import type { Config } from '../config.js';
import { ToolError, TransportError } from '../core/errors.js';
import { isWithin, normalizePath } from '../core/paths.js';
import { missingScopes } from '../core/scopes.js';
import { conflictRetryDelay } from '../core/retry.js';
import { closest } from '../core/suggest.js';
import { iso } from '../core/time.js';
import {
  StoreConflict,
  StoreIdempotencyTaken,
  StoreQuotaExceeded,
  type ChangesetRecord,
  type PlannedChange,
  type Store,
} from '../store/types.js';
import { parseInput } from './input.js';
import type { AuthContext, ToolContext, ToolRegistry } from './registry.js';

/**
 * Mutations of one (agent, path) run one at a time on this instance, so concurrent writers to
 * a hot file queue instead of failing their compare-and-swap and retrying. Across instances
 * the store's CAS still decides, with jittered retries.
 */
class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await next;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
const mutationQueue = new KeyedQueue();

function mutationKey(agentId: string, input: Record<string, unknown>): string {
  const target = typeof input.path === 'string' ? input.path : typeof input.from === 'string' ? input.from : '';
  return `${agentId}\u0000${target}`;
}

export interface DispatchDeps {
  registry: ToolRegistry;
  store: Store;
  config: Config;
  bash: BashPool;
  /** Called after a tool revoked or rotated keys (the HTTP layer drops its auth cache). */
  onKeysChanged?: () => void;
  /** The request-rate window of a key, from the transport's limiter. */
  rateWindow?: (keyId: string) => { limit: number; used: number; remaining: number; resetAtMs: number };
}

export type ToolOutcome = { ok: true; result: object } | { ok: false; error: ToolError };

/** Sorted-key JSON so the same input always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Throws 404 UNKNOWN_TOOL (with close names) when the tool does not exist. */
export function resolveTool(registry: ToolRegistry, name: string) {
  const tool = registry.get(name);
  if (tool) return tool;
  const near = closest(name, registry.names(), 3);
  throw new TransportError(
    'UNKNOWN_TOOL',
    `Unknown tool '${name}'.` +
      (near.length ? ` Did you mean ${near.map((n) => `'${n}'`).join(', ')}?` : '') +
      ' The full list is in /skill.md.',
    { details: { tool: name, suggestions: near } },
  );
}

export async function callTool(
  deps: DispatchDeps,
  name: string,
  body: Record<string, unknown>,
  auth: AuthContext,
  requestId: string,
): Promise<ToolOutcome> {
  const tool = resolveTool(deps.registry, name);
  try {
    const missing = missingScopes(tool.scopes, auth.scopes);
    if (missing.length) {
      throw new ToolError(
        'INSUFFICIENT_SCOPE',
        `${name} needs scope ${tool.scopes.join(' + ')}; this key lacks ${missing.join(', ')}. ` +
          'Use a key that has it (get_key_info shows what this key can do).',
        { required: tool.scopes, granted: auth.scopes, missing },
      );
    }

    let idempotency: { key: string; requestHash: string } | undefined;
    let raw = body;
    let idempotencyKey: string | undefined;
    if (tool.mutating && 'idempotencyKey' in body) {
      const { idempotencyKey: given, ...rest } = body;
      if (typeof given !== 'string' || given.length < 1 || given.length > 200 || /[\u0000-\u001f\u007f]/.test(given)) {
        throw new ToolError('INVALID_INPUT', "'idempotencyKey' must be a string of 1 to 200 printable characters.", { field: 'idempotencyKey' });
      }
      raw = rest;
      idempotencyKey = given;
    }
    const input = parseInput(tool.input, raw, name);
    // Hashed only once validated: the schemas bound its depth (canonical() recurses, and an
    // unvalidated body nested thousands deep would overflow the stack: a 500).
    if (idempotencyKey !== undefined) {
      idempotency = {
        key: idempotencyKey,
        requestHash: createHash('sha256').update(`${name}\n${canonical(raw)}`).digest('hex'),
      };
    }

    if (idempotency) {
      const earlier = await deps.store.getIdempotent(auth.agentId, idempotency.key);
      const replay = checkReplay(earlier, idempotency);
      if (replay) return { ok: true, result: replay };
    }

    const replayIfDone = async () =>
      idempotency ? checkReplay(await deps.store.getIdempotent(auth.agentId, idempotency.key), idempotency) : null;
    const attempt = async (): Promise<ToolOutcome> => {
      // A concurrent call with the same idempotencyKey may have finished while this one queued.
      const done = await replayIfDone();
      if (done) return { ok: true, result: done };
      const started = Date.now();
      for (let n = 1; ; n++) {
        const ctx = makeContext(deps, auth, requestId, name, idempotency);
        try {
          const result = await tool.handler(input, ctx);
          // Results that needed no commit (purge, an unchanged write) are remembered too, so a
          // retry answers the same instead of NOT_FOUND or a different shape.
          if (idempotency && !ctx.committed) {
            await deps.store.saveIdempotent(auth.agentId, idempotency.key, idempotency.requestHash, result);
          }
          return { ok: true, result };
        } catch (err) {
          const delay = err instanceof StoreConflict ? conflictRetryDelay(n, Date.now() - started, Math.random()) : null;
          if (delay !== null) {
            await new Promise((r) => setTimeout(r, delay));
            continue;
          }
          // Taken by a concurrent duplicate, or failing because that duplicate already applied
          // (NOT_FOUND after its delete, NO_MATCH after its edit, …): answer with its result.
          if ((err instanceof StoreIdempotencyTaken || err instanceof ToolError) && idempotency) {
            const replay = await replayIfDone();
            if (replay) return { ok: true, result: replay };
          }
          throw err;
        }
      }
    };
    return tool.mutating && tool.queueByPath !== false ? await mutationQueue.run(mutationKey(auth.agentId, input as Record<string, unknown>), attempt) : await attempt();
  } catch (err) {
    if (err instanceof ToolError) return { ok: false, error: err };
    if (err instanceof StoreConflict) {
      return {
        ok: false,
        error: new ToolError('EDIT_CONFLICT', `${err.path} kept changing while ${name} ran. Read it again and retry.`, {
          path: err.path,
        }),
      };
    }
    throw err;
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;

function checkReplay(
  earlier: { requestHash: string; response: unknown; createdAtMs: number } | null,
  idem: { key: string; requestHash: string },
): object | null {
  if (!earlier || earlier.createdAtMs < Date.now() - DAY_MS) return null;
  if (earlier.requestHash !== idem.requestHash) {
    throw new ToolError(
      'INVALID_INPUT',
      `idempotencyKey '${idem.key}' was already used with a different input. Use a new key for a new request.`,
      { field: 'idempotencyKey' },
    );
  }
  return { ...(earlier.response as object), replayed: true };
}

function makeContext(
  deps: DispatchDeps,
  auth: AuthContext,
  requestId: string,
  tool: string,
  idempotency: { key: string; requestHash: string } | undefined,
): ToolContext {
  return {
    store: deps.store,
    config: deps.config,
    bash: deps.bash,
    auth,
    requestId,
    tool,
    path(input: string, field = 'path') {
      const p = normalizePath(input, field);
      if (auth.folder && !isWithin(p, auth.folder)) {
        throw new ToolError(
          'OUTSIDE_KEY_FOLDER',
          `${p} is outside this key's folder ${auth.folder}. This key can only touch paths under ${auth.folder}.`,
          { path: p, folder: auth.folder },
        );
      }
      return p;
    },
    committed: false,
    rateWindow() {
      return deps.rateWindow?.(auth.keyId) ?? null;
    },
    keysChanged() {
      deps.onKeysChanged?.();
    },
    async commit<R extends object>(changes: PlannedChange[], respond: (cs: ChangesetRecord) => R): Promise<R> {
      try {
        let result: R | undefined;
        const cs = await deps.store.commit({
          agentId: auth.agentId,
          keyId: auth.keyId,
          keyLabel: auth.label,
          tool,
          changes,
          quotaBytes: deps.config.storageQuotaBytes,
          idempotency: idempotency && {
            ...idempotency,
            respond: (c) => (result = respond(c)),
          },
        });
        this.committed = true;
        return result ?? respond(cs);
      } catch (err) {
        if (err instanceof StoreQuotaExceeded) {
          throw new ToolError(
            'QUOTA_EXCEEDED',
            `Storage quota exceeded: ${err.usedBytes} of ${err.limitBytes} bytes used and this change adds ${err.addBytes}. ` +
              'Purge files you no longer need (deleted files keep their history until purged).',
            { usedBytes: err.usedBytes, addBytes: err.addBytes, limitBytes: err.limitBytes },
          );
        }
        throw err;
      }
    },
  };
}

/** Builds EDIT_CONFLICT for a precondition that no longer holds. */
export function editConflict(
  path: string,
  expected: { version?: number | undefined; updatedAt?: string | undefined },
  current: { version: number; updatedAtMs: number; deleted: boolean; updatedByKeyId: string | null; updatedByLabel: string | null } | null,
): ToolError {
  const now = current
    ? current.deleted
      ? `it was deleted at version ${current.version} (${iso(current.updatedAtMs)})`
      : `it is now at version ${current.version}, updatedAt ${iso(current.updatedAtMs)}`
    : 'it does not exist';
  const by = current?.updatedByLabel ? ` by key "${current.updatedByLabel}"` : '';
  const wanted = expected.version !== undefined ? `version ${expected.version}` : `updatedAt ${expected.updatedAt}`;
  return new ToolError(
    'EDIT_CONFLICT',
    `${path} changed since ${wanted}: ${now}${by}. Read it again and retry against the current version.`,
    {
      path,
      expected,
      current: current
        ? {
            version: current.version,
            updatedAt: iso(current.updatedAtMs),
            deleted: current.deleted,
            by: { keyId: current.updatedByKeyId, label: current.updatedByLabel },
          }
        : null,
    },
  );
}

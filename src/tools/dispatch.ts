/**
 * Calling a tool: scope check (the one place it happens, full-access key included), input validation, idempotency,
 * the handler, and the retry of handlers whose plan was overtaken by a concurrent write.
 * Transport-independent: the HTTP route and the MCP endpoint both call `callTool`.
 */
import { createHash } from 'node:crypto';
import type { BashPool } from '../bash/pool.js';
import type { AgentSlots } from '../bash/slots.js';
import type { Config } from '../config.js';
import { ToolError, TransportError } from '../core/errors.js';
import { identifierProblem, normalizeIdentifier } from '../core/identifier.js';
import { isWithin, normalizePath } from '../core/paths.js';
import { isFullAccess, isReadOnly, missingScopes, type Scope } from '../core/scopes.js';
import { conflictRetryDelay } from '../core/retry.js';
import { closest } from '../core/suggest.js';
import { clip, quoteClipped, quoteShort } from '../core/text.js';
import { iso } from '../core/time.js';
import { StoreConflict, StoreIdempotencyTaken, StoreQuotaExceeded, type ChangesetRecord, type PlannedChange, type Store } from '../store/types.js';
import { fromStoreError } from './store-errors.js';
import { parseInput } from './input.js';
import type { AnyTool, AuthContext, ToolContext, ToolRegistry } from './registry.js';

/**
 * Mutations of one (agent, path) run one at a time on this instance, so concurrent writers to
 * a hot file queue instead of failing their compare-and-swap and retrying. Across instances
 * the store's CAS still decides, with jittered retries.
 */
export class KeyedQueue {
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

function mutationKey(agentId: string, input: Record<string, unknown>): string {
  const target = typeof input.path === 'string' ? input.path : typeof input.from === 'string' ? input.from : '';
  return `${agentId}\u0000${target}`;
}

export interface DispatchDeps {
  registry: ToolRegistry;
  store: Store;
  config: Config;
  bash: BashPool;
  /** Per-app: mutations of one (agent, path) queue here (see KeyedQueue). */
  mutations: KeyedQueue;
  /** Per-app: bash commands running per agent. */
  bashSlots: AgentSlots;
  /** Called after a tool revoked or rotated keys (the HTTP layer drops its auth cache). */
  onKeysChanged?: () => void;
  /** The tool-call rate window of an agent (shared by all its keys), from the transport's limiter. */
  rateWindow?: (agentId: string) => { limit: number; used: number; remaining: number; resetAtMs: number };
  /** Logs an internal failure found by dispatch (VALIDATE_OUTPUTS mismatches). */
  logError?: (obj: Record<string, unknown>, msg: string) => void;
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
    `Unknown tool ${quoteClipped(name)}.` +
      (near.length ? ` Did you mean ${near.map((n) => `'${n}'`).join(', ')}?` : '') +
      ' The full list is in /skill.md.',
    { details: { tool: clip(name), ...(name.length > clip(name).length ? { toolLength: name.length } : {}), suggestions: near } },
  );
}

interface Idempotency {
  /** As the client sent it (for messages). */
  key: string;
  /** As stored: scoped to the calling API key (see readInput). */
  storeKey: string;
  requestHash: string;
}

/**
 * The registry's access rules: the full-access key for the tools that need it (first: such a
 * tool needs every scope, and listing them would hide the one thing to do), then scopes. Scope
 * lists in messages show only scopes some tool needs.
 */
function checkAccess(tool: AnyTool, auth: AuthContext, inUse: readonly Scope[]): void {
  const shown = (scopes: readonly Scope[]) => scopes.filter((s) => inUse.includes(s));
  if (tool.fullAccess && !isFullAccess(auth)) {
    const missing = shown(missingScopes(tool.scopes, auth.scopes));
    const why = [
      ...(missing.length ? [`it lacks ${missing.join(', ')}`] : []),
      ...(auth.folder !== null ? [`it is restricted to ${auth.folder}`] : []),
      ...(auth.expiresAtMs !== null ? [`it expires at ${iso(auth.expiresAtMs)}`] : []),
      ...(auth.revokedAtMs !== null ? [`it was rotated out`] : []),
    ];
    throw new ToolError(
      'INSUFFICIENT_SCOPE',
      `${tool.name} needs the agent's full-access key: the key returned by registration (or the key rotate_key gave in its place), ` +
        `which has every scope, no folder and no expiry. This key is not: ${why.join(', ') || 'it is a restricted key'}. ` +
        `Call ${tool.name} again with "Authorization: Bearer <full-access key>"; get_key_info tells whether a key is full-access (fullAccess: true).`,
      {
        required: { fullAccess: true, folder: null, expiresAt: null },
        granted: { scopes: shown(auth.scopes), folder: auth.folder, expiresAt: auth.expiresAtMs === null ? null : iso(auth.expiresAtMs) },
      },
    );
  }
  const missing = missingScopes(tool.scopes, auth.scopes);
  if (missing.length) {
    const retiring = auth.revokedAtMs !== null;
    throw new ToolError(
      'INSUFFICIENT_SCOPE',
      retiring
        ? `${tool.name} needs scope ${tool.scopes.join(' + ')}; this key was rotated out and until it stops working at ` +
            `${iso(auth.revokedAtMs!)} it can only read. Use the key that replaced it.`
        : `${tool.name} needs scope ${tool.scopes.join(' + ')}; this key lacks ${missing.join(', ')}. ` +
            'Use a key that has it (get_key_info shows what this key can do).',
      { required: tool.scopes, granted: shown(auth.scopes), missing, ...(retiring ? { revokedAt: iso(auth.revokedAtMs!) } : {}) },
    );
  }
}

const MAX_IDEMPOTENCY_KEY = 200;

/**
 * Validates the input, taking idempotencyKey out of it. idempotencyKey values are remembered per
 * API key (stored as `{keyId}/{value}`): another key of the agent, whatever its grants, neither
 * replays nor blocks them. rotate_key's replacement is a new key and starts with none; the old
 * key, in its grace period, can only read, so retry an interrupted write with the new key only
 * after checking list_changes. A key that cannot change anything (read-only, or in its grace
 * period) has nothing to protect: its idempotencyKey is checked and otherwise ignored, so it
 * never writes idempotency rows.
 */
function readInput(tool: AnyTool, name: string, body: Record<string, unknown>, auth: AuthContext) {
  let raw = body;
  let given: string | undefined;
  if (tool.mutating && Object.hasOwn(body, 'idempotencyKey')) {
    const { idempotencyKey, ...rest } = body;
    if (typeof idempotencyKey !== 'string' || idempotencyKey.length < 1 || idempotencyKey.length > MAX_IDEMPOTENCY_KEY) {
      throw new ToolError('INVALID_INPUT', `'idempotencyKey' must be a string of 1 to ${MAX_IDEMPOTENCY_KEY} printable characters.`, {
        field: 'idempotencyKey',
      });
    }
    const problem = identifierProblem(idempotencyKey);
    if (problem) {
      throw new ToolError(
        'INVALID_INPUT',
        `'idempotencyKey' contains ${problem.reason} at index ${problem.index}. Use printable, visible characters (e.g. a UUID).`,
        { field: 'idempotencyKey', codePoint: problem.codePoint, index: problem.index },
      );
    }
    raw = rest;
    given = normalizeIdentifier(idempotencyKey);
  }
  const input = parseInput(tool.input, raw, name, tool.mutating ? ['idempotencyKey'] : []);
  let idempotency: Idempotency | undefined;
  // Hashed only once validated: the schemas bound its depth (canonical() recurses, and an
  // unvalidated body nested thousands deep would overflow the stack: a 500).
  if (given !== undefined && !isReadOnly(auth.scopes)) {
    idempotency = {
      key: given,
      storeKey: `${auth.keyId}/${given}`,
      requestHash: createHash('sha256')
        .update(`${name}\n${canonical(raw)}`)
        .digest('hex'),
    };
  }
  return { input, idempotency };
}

export async function callTool(
  deps: DispatchDeps,
  name: string,
  body: Record<string, unknown>,
  auth: AuthContext,
  requestId: string,
): Promise<ToolOutcome> {
  const outcome = await runTool(deps, name, body, auth, requestId);
  if (outcome.ok && deps.config.validateOutputs) checkOutput(deps, deps.registry.get(name)!, outcome.result, requestId);
  return outcome;
}

/**
 * VALIDATE_OUTPUTS (set for the whole test suite): a success result its tool's output schema
 * does not describe (a missing, mistyped or undeclared field) fails loudly, with the issues in
 * the log and in the error, instead of reaching clients that trust the documented shape.
 */
function checkOutput(deps: DispatchDeps, tool: AnyTool, result: object, requestId: string): void {
  const parsed = tool.output.safeParse(result);
  if (parsed.success) return;
  const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), code: i.code, message: i.message }));
  deps.logError?.({ tool: tool.name, requestId, issues }, 'tool result does not match its output schema');
  throw new TransportError(
    'INTERNAL_ERROR',
    `${tool.name} returned a result that does not match its output schema (VALIDATE_OUTPUTS): ` +
      issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; '),
    { details: { tool: tool.name, requestId, issues } },
  );
}

async function runTool(deps: DispatchDeps, name: string, body: Record<string, unknown>, auth: AuthContext, requestId: string): Promise<ToolOutcome> {
  const tool = resolveTool(deps.registry, name);
  try {
    checkAccess(tool, auth, deps.registry.scopesInUse());
    const { input, idempotency } = readInput(tool, name, body, auth);

    // Replays come after the scope checks (above) and only from this key's own earlier calls:
    // the key's folder never changes, so a replayed result passed the same folder check.
    if (idempotency) {
      const earlier = await deps.store.getIdempotent(auth.agentId, idempotency.storeKey);
      const replay = checkReplay(earlier, idempotency);
      if (replay) return { ok: true, result: replay };
    }

    const replayIfDone = async () =>
      idempotency ? checkReplay(await deps.store.getIdempotent(auth.agentId, idempotency.storeKey), idempotency) : null;
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
            await deps.store.saveIdempotent(auth.agentId, idempotency.storeKey, idempotency.requestHash, result);
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
    return tool.mutating && tool.queueByPath !== false
      ? await deps.mutations.run(mutationKey(auth.agentId, input as Record<string, unknown>), attempt)
      : await attempt();
  } catch (err) {
    if (err instanceof ToolError) return { ok: false, error: err };
    const translated = fromStoreError(err, name);
    if (translated instanceof ToolError) return { ok: false, error: translated };
    throw translated ?? err;
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;

function checkReplay(earlier: { requestHash: string; response: unknown; createdAtMs: number } | null, idem: Idempotency): object | null {
  if (!earlier || earlier.createdAtMs < Date.now() - DAY_MS) return null;
  if (earlier.requestHash !== idem.requestHash) {
    throw new ToolError(
      'INVALID_INPUT',
      `idempotencyKey ${quoteShort(idem.key)} was already used by this API key with a different input. Use a new idempotencyKey for a new request.`,
      { field: 'idempotencyKey' },
    );
  }
  return { ...(earlier.response as object), replayed: true };
}

function makeContext(deps: DispatchDeps, auth: AuthContext, requestId: string, tool: string, idempotency: Idempotency | undefined): ToolContext {
  return {
    store: deps.store,
    config: deps.config,
    bash: deps.bash,
    bashSlots: deps.bashSlots,
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
      return deps.rateWindow?.(auth.agentId) ?? null;
    },
    keysChanged() {
      deps.onKeysChanged?.();
    },
    advertised(scopes) {
      const inUse = deps.registry.scopesInUse();
      return scopes.filter((s) => inUse.includes(s));
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
          fileQuota: deps.config.maxFilesPerAgent,
          idempotency: idempotency && {
            key: idempotency.storeKey,
            requestHash: idempotency.requestHash,
            respond: (c) => (result = respond(c)),
          },
        });
        this.committed = true;
        return result ?? respond(cs);
      } catch (err) {
        // Quota refusals become tool errors here, inside the handler (it may add to them).
        if (err instanceof StoreQuotaExceeded) throw fromStoreError(err, tool);
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
  return new ToolError('EDIT_CONFLICT', `${path} changed since ${wanted}: ${now}${by}. Read it again and retry against the current version.`, {
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
  });
}

/**
 * The tool registry: each tool is defined once (name, family, scopes, input schema,
 * description, examples, handler). The HTTP route, the MCP endpoint, the generated docs and
 * the scope checks all derive from these definitions.
 */
import { z } from 'zod';
import type { Config } from '../config.js';
import type { ToolErrorCode } from '../core/errors.js';
import { ALL_SCOPES, type Scope } from '../core/scopes.js';
import type { BashPool } from '../sandbox/pool.js';
import type { AgentSlots } from '../sandbox/slots.js';
import type { ChangesetRecord, PlannedChange, Store } from '../store/types.js';

export type ToolFamily = 'files' | 'versions' | 'bash' | 'agents' | 'shares' | 'social' | 'community' | 'search';

export interface AuthContext {
  keyId: string;
  label: string;
  agentId: string;
  agentSlug: string;
  agentName: string;
  scopes: Scope[];
  folder: string | null;
  expiresAtMs: number | null;
  /**
   * When a rotated-out key stops working (its grace period), else null. Such a key keeps only
   * its read scopes: `scopes` above already has them alone.
   */
  revokedAtMs: number | null;
  /**
   * Set when acting in another agent's tree through a write share (tools/mounts.ts reboundAuth):
   * every commit checks, in its transaction, that the share is still live and writable.
   */
  writeGrant?: { shareId: string; recipientId: string };
}

export interface ToolContext {
  store: Store;
  config: Config;
  /** The bash worker pool (created with the app). */
  bash: BashPool;
  /** bash commands running per agent on this app (BASH_MAX_CONCURRENT_PER_AGENT). */
  bashSlots: AgentSlots;
  auth: AuthContext;
  requestId: string;
  tool: string;
  /** Normalizes a client path and checks it against the key's folder (the one place this happens). */
  path(input: string, field?: string): string;
  /**
   * Commits planned changes as one changeset. `respond` builds the tool's result from the
   * changeset; with an idempotencyKey it is stored in the same transaction.
   */
  commit<R extends object>(changes: PlannedChange[], respond: (cs: ChangesetRecord) => R): Promise<R>;
  /**
   * The same call acting in another tree (a mount: the owner's, bounded by the grant in `auth`).
   * Its commits carry no idempotency record: that record is the caller's, saved by dispatch.
   */
  rebind(auth: AuthContext): ToolContext;
  /** True once commit() succeeded in this attempt (its result is then stored with the commit). */
  committed: boolean;
  /** The calling key's request-rate window, when the transport enforces one. */
  rateWindow(): { limit: number; used: number; remaining: number; resetAtMs: number } | null;
  /** The version of the reference files (skill.json's version): get_home tells whether it changed. */
  skillVersion(): Promise<string>;
  /** Tells the transport that keys changed (revocation), so cached lookups are dropped at once. */
  keysChanged(): void;
  /** Keeps the scopes some registered tool needs: what outputs show (see ToolRegistry.scopesInUse). */
  advertised(scopes: readonly Scope[]): Scope[];
}

export interface ToolExample<I> {
  title: string;
  input: I;
}

export interface ToolAnnotations {
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
}

/**
 * A result type with its literal types widened (true → boolean, "file" | "directory" → string).
 * TypeScript widens the literals a handler returns, because its contextual return type depends
 * on the type parameters of the defineTool call being inferred; so the compiler checks each
 * result's field names, presence and base types, and VALIDATE_OUTPUTS (dispatch.ts) checks the
 * literal values at run time, in every test.
 */
export type Widened<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends null | undefined
        ? T
        : T extends readonly (infer E)[]
          ? Widened<E>[]
          : T extends object
            ? { [K in keyof T]: Widened<T[K]> }
            : T;

export interface ToolDefinition<S extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  family: ToolFamily;
  /** Exactly the scopes the tool needs; empty = none (get_key_info). */
  scopes: Scope[];
  /**
   * Only the agent's full-access key may call it: every scope, no folder, no expiry, not rotated
   * out (core/scopes.ts isFullAccess). Checked with the scopes, in dispatch.
   */
  fullAccess?: boolean;
  /** One sentence of purpose: the first words of every description (MCP, OpenAPI, the reference). */
  summary: string;
  /**
   * What an agent cannot guess from the name, summary and input schema (the error it will meet, the
   * one non-obvious rule), one or two short sentences: MCP's tools/list shows summary + note + scope
   * and nothing longer, since every byte of the list sits in the model's context (the served mcp.md).
   */
  note?: string;
  /** The long form: every rule, shown on the tool's family page (/skill/{page}.md) and in OpenAPI. */
  description: string;
  input: S;
  /**
   * The success result (a z.strictObject: an undeclared field is a mismatch). OpenAPI, skill.md
   * and the MCP outputSchema derive from it; with VALIDATE_OUTPUTS every result is checked.
   */
  output: O;
  /** Mutating tools accept idempotencyKey and record changesets. */
  mutating: boolean;
  /**
   * Mutations of one path run one at a time per instance (default for mutating tools). Tools
   * without a single target path (bash) opt out and rely on the store's compare-and-swap.
   */
  queueByPath?: boolean;
  annotations: ToolAnnotations;
  /** Error codes the tool can return besides scope/input/path errors (typed by the catalogue). */
  errors: ToolErrorCode[];
  examples: ToolExample<z.input<S>>[];
  handler(input: z.output<S>, ctx: ToolContext): Promise<Widened<z.input<O>>>;
}

/** A tool with its schema types erased: what the registry, dispatch and the docs handle. */
export interface AnyTool extends Omit<ToolDefinition, 'examples' | 'handler'> {
  examples: ToolExample<Record<string, unknown>>[];
  handler(input: unknown, ctx: ToolContext): Promise<object>;
}

/**
 * Checks a definition against its schemas (input type into handler and examples, the handler's
 * result against the output schema) and erases those types for the registry.
 */
export function defineTool<S extends z.ZodObject, O extends z.ZodObject>(def: ToolDefinition<S, O>): AnyTool {
  // The one cast: a handler typed for its own input cannot be typed as taking any input. Dispatch
  // only ever calls it with what def.input parsed.
  return def as unknown as AnyTool;
}

export class ToolRegistry {
  private readonly tools = new Map<string, AnyTool>();
  private inUse: Scope[] | null = null;

  register(...defs: AnyTool[]): this {
    for (const def of defs) {
      if (this.tools.has(def.name)) throw new Error(`tool ${def.name} registered twice`);
      this.tools.set(def.name, def);
    }
    this.inUse = null;
    return this;
  }

  get(name: string): AnyTool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  all(): AnyTool[] {
    return [...this.tools.values()];
  }

  /**
   * The scopes at least one tool needs (full-access tools aside: they need every scope). Keys
   * hold every scope of the contract, so tools that land later work with existing keys, but
   * docs and outputs show only these: a scope without a tool promises something that is not there.
   */
  scopesInUse(): Scope[] {
    if (this.inUse) return this.inUse;
    const used = new Set<Scope>();
    for (const t of this.tools.values()) if (!t.fullAccess) t.scopes.forEach((s) => used.add(s));
    return (this.inUse = ALL_SCOPES.filter((s) => used.has(s)));
  }
}

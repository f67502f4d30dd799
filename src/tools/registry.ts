/**
 * The tool registry: each tool is defined once (name, family, scopes, input schema with its path
 * fields marked, description, examples, mount policy, handler). The HTTP route, the MCP endpoint,
 * the generated docs and SDK, the scope checks and mount routing all derive from these definitions.
 */
import { z } from 'zod';
import type { Config } from '../config.js';
import type { ToolErrorCode } from '../core/errors.js';
import { identifierProblem } from '../core/identifier.js';
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
  /** Adds a line to the answer's `warnings` (an input read under an old name: docs/contributing.md#vocabulary). */
  warn(message: string): void;
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
  /** The reference page (/skill/{page}.md) that documents it, when not its family's (docs/family-pages.ts). */
  page?: 'posts';
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
   * Old or other spellings of input fields (alias → field of `input`): accepted, read as the field,
   * and answered with a `warnings` line naming the field to send (docs/contributing.md#vocabulary).
   */
  aliases?: Record<string, string>;
  /** An alias in another unit (alias → factor): its number is multiplied into the field's unit. */
  aliasScale?: Record<string, number>;
  /**
   * The success result (a z.strictObject: an undeclared field is a mismatch). OpenAPI, skill.md
   * and the MCP outputSchema derive from it; with VALIDATE_OUTPUTS every result is checked.
   */
  output: O;
  /** Mutating tools accept idempotencyKey (defineTool adds the field) and record changesets. */
  mutating: boolean;
  /**
   * Mutations of one path run one at a time per instance (default for mutating tools). Tools
   * without a single target path (bash) opt out and rely on the store's compare-and-swap.
   */
  queueByPath?: boolean;
  annotations: ToolAnnotations;
  /**
   * How the tool acts on /shared and /published paths (tools/mounts.ts, docs/contract/mounts.md):
   * through the mount with this policy, or refused there. Without it, paths run as they are.
   */
  mount?: MountPolicy | MountRefusal;
  /** Error codes the tool can return besides scope/input/path errors (typed by the catalogue). */
  errors: ToolErrorCode[];
  examples: ToolExample<z.input<S>>[];
  handler(input: z.output<S>, ctx: ToolContext): Promise<Widened<z.input<O>>>;
}

/** A file tool through a mount: what its grant must allow and how the mount answers it. */
export interface MountPolicy {
  /** read: any grant; write: a write share; copy: reads its source, writes its destination, and may cross owners (copy-across.ts). */
  access: 'read' | 'write' | 'copy';
  /** Also works through /published (read-only, one version: mount-history.ts). */
  published?: true;
  /** Answers the mount's skeleton directories (mount-dirs.ts) as list or stat does; never refused. */
  skeleton?: 'list' | 'stat';
  /** Reads a file's content: on a skeleton directory IS_A_DIRECTORY, as on any directory, not FORBIDDEN. */
  readsFile?: true;
  /** Creates its path: where no grant lets it, INVALID_PATH "reserved" rather than NOT_FOUND. */
  creates?: true;
  /** May recreate its path and the directories above it (restore): the share's root must still be there. */
  mayCreate?: true;
  /** Removes (or moves away) the path in this field: a share's own directory stays the owner's. */
  removes?: string;
}

/** A file tool refused on mount paths (FORBIDDEN not_through_mount); `why` replaces the default message's reason. */
export interface MountRefusal {
  refused: true;
  why?: string;
}

/**
 * Marks a string schema as a path (pathField, destinationField in common.ts). defineTool reads the
 * marks once, so the path lists of a tool (ToolPaths) follow its schema, not a list kept by hand.
 */
export interface PathMark {
  /** destination: a path the call may create (move's and copy's `to`). */
  kind: 'path' | 'destination';
}
const pathMarks = z.registry<PathMark>();

export function markPath<T extends z.ZodType>(schema: T, mark: PathMark = { kind: 'path' }): T {
  pathMarks.add(schema, mark);
  return schema;
}

/** A tool's path fields, derived from its input schema's marks once, at defineTool. */
export interface ToolPaths {
  /** Top-level path fields, in schema order: folder checks, mount routing, the documented path errors. */
  fields: readonly string[];
  /** The fields among them that name a destination the call may create. */
  destinations: readonly string[];
  /** Path fields of the objects in an array field (write_files' files[].path). */
  nested: readonly { array: string; field: string }[];
  /** The field mutations of one path queue on (dispatch.ts KeyedQueue): the first that is not a destination. */
  queue: string | null;
}

/** The mark of a field, through the optional/default/nullable wrappers and describe() clones. */
function markOf(schema: z.ZodType): PathMark | undefined {
  for (let s: z.ZodType | undefined = schema; s; s = (s._zod.def as { innerType?: z.ZodType }).innerType) {
    const mark = pathMarks.get(s);
    if (mark) return mark;
  }
  return undefined;
}

function pathsOf(input: z.ZodObject): ToolPaths {
  const fields: string[] = [];
  const destinations: string[] = [];
  const nested: { array: string; field: string }[] = [];
  for (const [key, schema] of Object.entries(input.shape as Record<string, z.ZodType>)) {
    const mark = markOf(schema);
    if (mark) {
      fields.push(key);
      if (mark.kind === 'destination') destinations.push(key);
      continue;
    }
    const def = schema._zod.def as { type: string; element?: z.ZodType };
    if (def.type !== 'array' || !(def.element instanceof z.ZodObject)) continue;
    for (const [inner, s] of Object.entries(def.element.shape as Record<string, z.ZodType>)) if (markOf(s)) nested.push({ array: key, field: inner });
  }
  return { fields, destinations, nested, queue: fields.find((f) => !destinations.includes(f)) ?? null };
}

const IDEMPOTENCY_KEY_MAX = 200;

/**
 * The idempotencyKey every mutating tool accepts (defineTool adds it): printable characters, as
 * labels (core/identifier.ts); dispatch takes it out of the input before the handler sees it.
 */
const idempotencyKeyField = z
  .string()
  .min(1)
  .max(IDEMPOTENCY_KEY_MAX)
  .superRefine((value, check) => {
    const problem = identifierProblem(value);
    if (problem) {
      check.addIssue({
        code: 'custom',
        message: `contains ${problem.reason} at index ${problem.index}. Use printable, visible characters (e.g. a UUID)`,
        params: { codePoint: problem.codePoint, index: problem.index },
      });
    }
  })
  .optional()
  .describe(
    // Short: it sits in every mutating tool's schema, on the family pages (skill.md has the rule in full).
    'Retry-safe: a repeat within 24 h returns the first result.',
  );

/** A tool with its schema types erased: what the registry, dispatch and the docs handle. */
export interface AnyTool extends Omit<ToolDefinition, 'examples' | 'handler'> {
  examples: ToolExample<Record<string, unknown>>[];
  handler(input: unknown, ctx: ToolContext): Promise<object>;
  /** Derived from the input schema at defineTool (never walked per call). */
  paths: ToolPaths;
}

/**
 * Checks a definition against its schemas (input type into handler and examples, the handler's
 * result against the output schema) and erases those types for the registry. Derives, once, what
 * dispatch, mounts and the docs read: the path fields, and idempotencyKey on a mutating tool's input.
 */
export function defineTool<S extends z.ZodObject, O extends z.ZodObject>(def: ToolDefinition<S, O>): AnyTool {
  for (const [alias, field] of Object.entries(def.aliases ?? {})) {
    if (!(field in def.input.shape) || alias in def.input.shape) throw new Error(`${def.name}: alias ${alias} → ${field} does not fit its input`);
  }
  for (const alias of Object.keys(def.aliasScale ?? {})) if (!def.aliases?.[alias]) throw new Error(`${def.name}: aliasScale ${alias} is no alias`);
  const paths = pathsOf(def.input);
  const removes = def.mount && 'access' in def.mount ? def.mount.removes : undefined;
  if (removes !== undefined && !paths.fields.includes(removes)) throw new Error(`tool ${def.name}: mount.removes names no path field`);
  const input = def.mutating ? def.input.extend({ idempotencyKey: idempotencyKeyField }) : def.input;
  // The one cast: a handler typed for its own input cannot be typed as taking any input. Dispatch
  // only ever calls it with what def.input parsed. Every answer may carry warnings (ToolContext.warn).
  return { ...def, input, paths, output: def.output.extend({ warnings }) } as unknown as AnyTool;
}

/** Said once for every tool's result (skill.md's envelope section): see ToolContext.warn. */
export const warnings = z
  .array(z.string())
  .optional()
  .describe(
    'What may not work as meant, e.g. a folder that does not exist yet, or an input field read under its old name (the line names the field to send).',
  );

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

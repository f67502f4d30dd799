/**
 * What MCP's tools/list shows: the toolsets (the reference's family pages; a core set listed by
 * default, the others turned on by the connection or by enable_toolset) and each tool in compact
 * form, since the whole list sits in the model's context on every turn (the served mcp.md).
 */
import { isFullAccess, missingScopes } from '../core/scopes.js';
import { inputSchema, outputSchema } from '../docs/schemas.js';
import { toolsets } from '../docs/toolsets.js';
import { mcpDescription } from '../tools/describe.js';
import type { AnyTool, AuthContext, ToolRegistry } from '../tools/registry.js';

export { toolsets };

/** The MCP-only tool that turns a toolset on for the session (it has no REST route). */
export const ENABLE_TOOLSET = 'enable_toolset';

/**
 * The sets a connection names (`?toolsets=a,b` on the URL, the X-MCP-Toolsets header): `core`
 * always, `all` for every set. An unknown name is an error naming the valid ones.
 */
export function parseToolsets(known: string[], ...raw: unknown[]): { sets: string[] } | { error: string } {
  // Most connections name none: the answer without the parsing (~2% of an MCP read's CPU).
  if (raw.every((r) => r === undefined)) return { sets: ['core'] };
  const names = raw
    .flatMap((r) => (Array.isArray(r) ? r : [r]))
    .filter((r): r is string => typeof r === 'string')
    .flatMap((r) => r.split(','))
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  const sets = new Set(['core']);
  for (const n of names) {
    if (n === 'all') known.forEach((k) => sets.add(k));
    else if (known.includes(n)) sets.add(n);
    else return { error: `Unknown toolset "${n}". Toolsets: ${known.join(', ')}, or all.` };
  }
  return { sets: [...sets].sort() };
}

// zod's guard against NUL in ids: the server refuses them anyway, and the pattern reads as noise.
const NO_NUL = '^[^\\u0000]*$';

/**
 * Bounds no model comes near (zod's safe and 32-bit integer bounds, a non-empty string, a
 * length of 1,000 or more): the server still checks them and names the limit when one is passed.
 */
const farBound = (k: string, v: unknown) =>
  typeof v === 'number' &&
  ((k === 'maximum' && v >= 2 ** 31 - 1) ||
    (k === 'minimum' && v <= -(2 ** 31)) ||
    (k === 'minLength' && v === 1) ||
    (k === 'maxLength' && v >= 1000));

/** A field's name and description, as the key of a convention. */
const pair = (name: string, description: string) => `${name}\u0000${description}`;

/** Each input field (at any depth) with its description. */
function describedFields(schema: unknown, out: Array<[string, string]> = []): Array<[string, string]> {
  if (Array.isArray(schema)) schema.forEach((s) => describedFields(s, out));
  else if (schema && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'properties' && v && typeof v === 'object')
        for (const [name, field] of Object.entries(v)) {
          const d = (field as { description?: unknown }).description;
          if (typeof d === 'string') out.push([name, d]);
        }
      describedFields(v, out);
    }
  }
  return out;
}

/** A field with the same description in this many tools or more is a convention. */
const CONVENTION_TOOLS = 5;
const conventionCache = new WeakMap<ToolRegistry, Map<string, string>>();

/**
 * The conventions: fields described alike in many tools (path, expectedVersion, idempotencyKey…),
 * by name. tools/list leaves their descriptions out and initialize's instructions say each once:
 * in the core set they were ~2.6 KB of the list (the served mcp.md).
 */
export function conventions(registry: ToolRegistry): Map<string, string> {
  let found = conventionCache.get(registry);
  if (found) return found;
  const counts = new Map<string, { name: string; description: string; tools: number }>();
  for (const t of registry.all()) {
    for (const [name, description] of new Map(describedFields(inputSchema(t)).map(([n, d]) => [pair(n, d), [n, d] as const])).values()) {
      const c = counts.get(pair(name, description)) ?? { name, description, tools: 0 };
      c.tools++;
      counts.set(pair(name, description), c);
    }
  }
  found = new Map([...counts.values()].filter((c) => c.tools >= CONVENTION_TOOLS).map((c) => [c.name, c.description]));
  conventionCache.set(registry, found);
  return found;
}

/**
 * A JSON Schema without what a model does not need: titles, far bounds, the NUL guard, the
 * descriptions of conventional fields (`said`: name → description) and, without `said`, every
 * description (output schemas). Only constraints are dropped, never added, so a result valid
 * against the full schema is valid against this one.
 */
export function compactSchema(schema: unknown, said: Map<string, string> | null): unknown {
  if (Array.isArray(schema)) return schema.map((s) => compactSchema(s, said));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'title' || (k === 'description' && !said && typeof v === 'string')) continue;
    if (farBound(k, v) || (k === 'pattern' && v === NO_NUL)) continue;
    // Property names are data, not keywords: a field named "title" stays.
    out[k] =
      k === 'properties' && v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([name, s]) => [name, compactField(name, s, said)]))
        : compactSchema(v, said);
  }
  return out;
}

function compactField(name: string, field: unknown, said: Map<string, string> | null): unknown {
  const compact = compactSchema(field, said) as Record<string, unknown>;
  if (said && compact && typeof compact === 'object' && said.get(name) === compact.description) delete compact.description;
  return compact;
}

type ObjectSchema = { type: 'object'; properties?: Record<string, object> };

/**
 * The annotations that differ from MCP's defaults (readOnlyHint false, destructiveHint true,
 * idempotentHint false, openWorldHint true): the same meaning in fewer bytes.
 */
function hints({ readOnly, destructive, idempotent }: AnyTool['annotations']): Record<string, boolean> {
  if (readOnly) return { readOnlyHint: true, openWorldHint: false };
  return { ...(destructive ? {} : { destructiveHint: false }), ...(idempotent ? { idempotentHint: true } : {}), openWorldHint: false };
}

/** One tool as tools/list shows it. */
function listed(tool: AnyTool, withOutput: boolean, said: Map<string, string>) {
  return {
    name: tool.name,
    description: mcpDescription(tool),
    inputSchema: compactSchema(inputSchema(tool), said) as ObjectSchema,
    // Output schemas are z.strictObject, so their JSON Schema is an object schema, as MCP requires.
    ...(withOutput ? { outputSchema: compactSchema(outputSchema(tool), null) as ObjectSchema } : {}),
    annotations: hints(tool.annotations),
  };
}

/** enable_toolset as listed: its input names the sets that are not on yet. */
function enableToolsetTool(off: string[]) {
  return {
    name: ENABLE_TOOLSET,
    description:
      `Add a toolset's tools to your tools/list (notifications/tools/list_changed follows). Off: ${off.join(', ')}. ` +
      'Listed or not, every tool your key allows can be called. Scope: none.',
    inputSchema: { type: 'object' as const, properties: { toolset: { type: 'string', enum: off } }, required: ['toolset'] },
    annotations: hints({ readOnly: false, destructive: false, idempotent: true }),
  };
}

/** The tools a key may call (its scopes; full-access tools only for the full-access key). */
export function allowed(tools: AnyTool[], identity: AuthContext): AnyTool[] {
  const full = isFullAccess(identity);
  return tools.filter((t) => missingScopes(t.scopes, identity.scopes).length === 0 && (!t.fullAccess || full));
}

/** The list for a key and its enabled sets: their tools the key may call, then enable_toolset while a set is off. */
export function toolsList(registry: ToolRegistry, identity: AuthContext, enabled: string[], withOutput: boolean): { tools: object[] } {
  const sets = toolsets(registry);
  const on = new Set(enabled.flatMap((s) => sets.get(s) ?? []));
  const tools: object[] = allowed(
    registry.all().filter((t) => on.has(t)),
    identity,
  ).map((t) => listed(t, withOutput, conventions(registry)));
  const off = [...sets.keys()].filter((s) => !enabled.includes(s) && allowed(sets.get(s)!, identity).some((t) => !on.has(t)));
  if (off.length) tools.push(enableToolsetTool(off));
  return { tools };
}

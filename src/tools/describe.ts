/**
 * How a tool presents itself to clients: its input as JSON Schema, its description and its
 * error codes. The reference files, OpenAPI and MCP's tools/list all show these, so they live
 * with the tools rather than with one of their consumers.
 */
import { z } from 'zod';
import { mountErrors } from './mounts.js';
import type { AnyTool } from './registry.js';

export function inputSchema(tool: AnyTool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  if (tool.mutating) {
    const props = (schema.properties ?? {}) as Record<string, unknown>;
    props.idempotencyKey = {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      // Short: it sits in 31 tools' schemas, in MCP's tools/list as on the family pages (skill.md has the rule in full).
      description: 'Retry-safe: a repeat within 24 h returns the first result.',
    };
    schema.properties = props;
  }
  return schema;
}

export const scopeText = (tool: AnyTool) =>
  tool.fullAccess ? 'full-access key (every scope, no folder, no expiry)' : tool.scopes.length ? tool.scopes.join(' + ') : 'none';

/** The JSON Schema of a tool's success result (MCP outputSchema, OpenAPI, skill.md's field list). */
export function outputSchema(tool: AnyTool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.output, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/**
 * A tool's description as OpenAPI shows it: it must stand alone (clients show it without the
 * title), so it starts with the summary and ends with the scope and the errors.
 */
export function toolDescription(tool: AnyTool): string {
  return `${tool.summary}\n\n${tool.description}\n\nScope: ${scopeText(tool)}. Errors: ${toolErrors(tool).join(', ')}.`;
}

/**
 * A tool's description in MCP's tools/list, read by a model on every turn: the summary, the one
 * thing it cannot guess (note) and the scope; the rules in full and the error list are on the
 * family page (/skill/{page}.md). The long form averaged 520 bytes a tool; this one 160.
 */
export function mcpDescription(tool: AnyTool): string {
  const scope = tool.fullAccess ? 'Full-access key only.' : `Scope: ${tool.scopes.length ? tool.scopes.join(' + ') : 'none'}.`;
  return tool.note ? `${tool.summary} ${tool.note} ${scope}` : `${tool.summary} ${scope}`;
}

const COMMON_ERRORS = ['INVALID_INPUT', 'INSUFFICIENT_SCOPE'];
const PATH_ERRORS = ['INVALID_PATH', 'OUTSIDE_KEY_FOLDER'];
const takesPaths = (tool: AnyTool) => ['path', 'from', 'to', 'cwd'].some((f) => f in tool.input.shape);
export const toolErrors = (tool: AnyTool) => [
  ...new Set([...tool.errors, ...COMMON_ERRORS, ...(takesPaths(tool) ? PATH_ERRORS : []), ...mountErrors(tool)]),
];

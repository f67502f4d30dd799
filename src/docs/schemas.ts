/**
 * The tools' JSON Schemas, converted once per tool for all the reference files (zod's conversion
 * costs ~1.5 ms a schema, and every file shows them). Treat the results as read-only.
 */
import { inputSchema as convertInput, outputSchema as convertOutput } from '../tools/describe.js';
import type { AnyTool } from '../tools/registry.js';

/** The parts of a JSON Schema (as zod emits it) the reference files read. */
export interface JsonSchema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  [keyword: string]: unknown;
}

const inputs = new WeakMap<AnyTool, Record<string, unknown>>();
const outputs = new WeakMap<AnyTool, Record<string, unknown>>();

export function inputSchema(tool: AnyTool): Record<string, unknown> {
  let schema = inputs.get(tool);
  if (!schema) inputs.set(tool, (schema = convertInput(tool)));
  return schema;
}

export function outputSchema(tool: AnyTool): Record<string, unknown> {
  let schema = outputs.get(tool);
  if (!schema) outputs.set(tool, (schema = convertOutput(tool)));
  return schema;
}

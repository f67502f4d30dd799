/**
 * What the docs say about a tool's success result, all from its output schema (registry.ts
 * `output`): the JSON Schema (MCP outputSchema, OpenAPI), the field list of its skill.md section,
 * and the OpenAPI 200 response that holds either it or the error envelope.
 */
import { outputSchema as toolOutputSchema, type JsonSchema as Json } from './schemas.js';
import type { AnyTool } from '../tools/registry.js';

function outputSchema(tool: AnyTool): Json {
  return toolOutputSchema(tool) as Json;
}

const describe = (s: Json): string | undefined => s.description ?? s.anyOf?.find((m) => m.description)?.description;

/** A compact type: `string`, `integer | null`, `"file" | "directory"`, `{start: integer, …}[]`. */
function typeText(s: Json, depth: number): string {
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.anyOf) return s.anyOf.map((m) => typeText(m, depth)).join(' | ');
  if (Array.isArray(s.type)) return s.type.map((t) => typeText({ ...s, type: t }, depth)).join(' | ');
  if (s.type === 'array') {
    const items: Json = s.items ?? {};
    const union = items.anyOf || items.enum || Array.isArray(items.type);
    const item = typeText(items, depth);
    return union ? `(${item})[]` : `${item}[]`;
  }
  if (s.type === 'object' && s.properties) {
    const required = new Set<string>(s.required ?? []);
    const props = Object.entries(s.properties);
    if (depth >= 2) return `{${props.map(([k]) => k).join(', ')}}`;
    return `{${props.map(([k, v]) => `${k}${required.has(k) ? '' : '?'}: ${typeText(v, depth + 1)}`).join(', ')}}`;
  }
  return typeof s.type === 'string' ? s.type : 'any';
}

/** The skill.md lines listing a tool's result fields: name, type, optional, description. */
export function outputFieldsMd(tool: AnyTool): string {
  const schema = outputSchema(tool);
  const required = new Set<string>(schema.required ?? []);
  // success is always true and warnings may come with any result (the envelope section says both): every other field is listed.
  return Object.entries(schema.properties ?? {})
    .filter(([name]) => name !== 'success' && name !== 'warnings')
    .map(([name, s]) => {
      const note = describe(s);
      return `- \`${name}\`${required.has(name) ? '' : ' (optional)'}: \`${typeText(s, 1)}\`${note ? ` — ${note}` : ''}`;
    })
    .join('\n');
}

/** components.schemas entries the tool responses refer to. */
export function outputComponents(tools: AnyTool[]): Record<string, Json> {
  const text = (schemaRef: string) => ({
    type: 'string',
    contentMediaType: 'application/json',
    contentSchema: { $ref: schemaRef },
    description: 'JSON text (parse it) of the result or of {error}',
  });
  const envelope = (schemaRef: string, isError: boolean) => ({
    type: 'object',
    required: ['content', ...(isError ? ['isError'] : [])],
    properties: {
      content: {
        type: 'array',
        minItems: 1,
        maxItems: 1,
        items: { type: 'object', required: ['type', 'text'], properties: { type: { const: 'text' }, text: text(schemaRef) } },
      },
      ...(isError ? { isError: { const: true } } : {}),
    },
    // A success envelope has no isError: the two branches of the response's oneOf never overlap.
    ...(isError ? {} : { not: { required: ['isError'] } }),
  });
  const out: Record<string, Json> = {
    ToolError: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' } },
        },
      },
    },
    ToolErrorEnvelope: envelope('#/components/schemas/ToolError', true),
  };
  for (const tool of tools) {
    out[`${tool.name}_result`] = outputSchema(tool);
    out[`${tool.name}_envelope`] = envelope(`#/components/schemas/${tool.name}_result`, false);
  }
  return out;
}

/** The 200 response of POST /api/tools/{tool}: the success envelope or the tool-error envelope. */
export function okResponse(tool: AnyTool): Json {
  return {
    description: `Success (content[0].text is the JSON of ${tool.name}_result) or a tool error (isError: true, content[0].text is {error}).`,
    content: {
      'application/json': {
        schema: { oneOf: [{ $ref: `#/components/schemas/${tool.name}_envelope` }, { $ref: '#/components/schemas/ToolErrorEnvelope' }] },
      },
    },
  };
}

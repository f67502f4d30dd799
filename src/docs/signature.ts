/**
 * One-line signatures for skill.md's tool index: the input as `{path, content, expectedVersion?: int}`
 * (string fields bare, `?` when optional, enum values unquoted) and the result's fields, both from the tools' JSON Schemas.
 */
import { inputSchema, outputSchema, type JsonSchema as Json } from './schemas.js';
import type { AnyTool } from '../tools/registry.js';

const SHORT: Record<string, string> = { integer: 'int', boolean: 'bool', number: 'num', string: 'str' };

function shortType(s: Json): string {
  if (s.const !== undefined) return typeof s.const === 'string' ? s.const : JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('|');
  if (s.anyOf) return [...new Set(s.anyOf.map(shortType))].join('|');
  if (Array.isArray(s.type)) return s.type.map((t) => SHORT[t] ?? t).join('|');
  if (s.type === 'array') return `${s.items ? shortType(s.items) : 'any'}[]`;
  if (s.type === 'object') return s.properties ? `{${Object.keys(s.properties).join(', ')}}` : 'object';
  return SHORT[s.type ?? ''] ?? s.type ?? 'any';
}

function fields(schema: Json, skip: string[]): string {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {})
    .filter(([name]) => !skip.includes(name))
    .map(([name, s]) => {
      const t = shortType(s);
      return `${name}${required.has(name) ? '' : '?'}${t === 'str' ? '' : `: ${t}`}`;
    })
    .join(', ');
}

/** The input: every field but idempotencyKey (skill.md says which tools take it). */
export const inputSignature = (tool: AnyTool) => `{${fields(inputSchema(tool) as Json, ['idempotencyKey'])}}`;

/** The result fields shown: the first ones always there. */
const RESULT_FIELDS = 5;

/** The result's fields that are always there, names only (`success` aside); the family page lists them all. */
export function resultSignature(tool: AnyTool): string {
  const schema = outputSchema(tool) as Json;
  const required = (schema.required ?? []).filter((n) => n !== 'success');
  const names = required.slice(0, RESULT_FIELDS);
  const more = Object.keys(schema.properties ?? {}).length > names.length + 1;
  return `{${names.join(', ')}${more ? (names.length ? ', …' : '…') : ''}}`;
}

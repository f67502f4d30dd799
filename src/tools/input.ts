/**
 * Turning a raw JSON body into a tool's typed input: well-known aliases, unknown-field
 * rejection with the closest valid name, and zod issues rewritten as INVALID_INPUT messages
 * that name the field.
 */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { closest, MAX_SUGGEST_LENGTH } from '../core/suggest.js';
import { clip, quoteClipped } from '../core/text.js';

/** Names agents commonly send, mapped to ours (docs/contract/http.md). */
const ALIASES: Record<string, string> = {
  file_path: 'path',
  filePath: 'path',
  oldString: 'old_string',
  newString: 'new_string',
  replaceAll: 'replace_all',
};

/** Names that mean a field we have under another name; used for "did you mean". */
const SYNONYMS: Record<string, string[]> = {
  path: ['file', 'filename', 'file_name', 'fileName', 'filepath', 'name', 'dir', 'directory', 'folder', 'target'],
  content: ['text', 'data', 'body', 'contents', 'value'],
  new_string: ['replacement', 'new', 'newText', 'new_text'],
  old_string: ['old', 'oldText', 'old_text', 'search', 'find'],
  command: ['cmd', 'script', 'shell'],
};

function suggestField(key: string, known: Set<string>, aliases: Record<string, string>): string | undefined {
  // A 10 MB field name used to be lowercased once per synonym (2.6 s): no name that long is close to anything.
  if (key.length > MAX_SUGGEST_LENGTH) return undefined;
  const lower = key.toLowerCase();
  for (const [target, words] of Object.entries(SYNONYMS)) {
    if (known.has(target) && words.some((w) => w.toLowerCase() === lower)) return target;
  }
  // A near miss of a tool's alias (postid, expires_in) suggests the field the alias stands for.
  const near = closest(key, [...known, ...Object.keys(aliases)], 1)[0];
  return near !== undefined && Object.hasOwn(aliases, near) ? aliases[near] : near;
}

/** At most this many issues are listed in details.issues (and keys in one message). */
const MAX_ISSUES = 20;

/**
 * Renames aliases to their fields: the well-known ones (silently) and the tool's own (`own`: old
 * spellings, each named in `warnings`; `scale`: the factor of one in another unit). Both an alias
 * and its field given: INVALID_INPUT.
 */
export function applyAliases(
  raw: Record<string, unknown>,
  known: Set<string>,
  own: Record<string, string> = {},
  warnings: string[] = [],
  scale: Record<string, number> = {},
): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const [alias, target] of [...Object.entries(ALIASES), ...Object.entries(own)]) {
    if (!Object.hasOwn(raw, alias) || !known.has(target) || known.has(alias)) continue;
    const source: Record<string, unknown> = out ?? raw;
    // Against what was renamed so far too: two aliases of one field (postId and commentId) are refused as well.
    if (target in source) {
      throw new ToolError('INVALID_INPUT', `Both '${alias}' and '${target}' were given; send only '${target}'.`, { field: alias });
    }
    const { [alias]: value, ...rest } = source;
    const factor = Object.hasOwn(scale, alias) && typeof value === 'number' ? scale[alias]! : 1;
    out = { ...rest, [target]: factor === 1 ? value : (value as number) * factor };
    const read = factor === 1 ? `'${target}'` : `'${target}' (× ${factor})`;
    if (Object.hasOwn(own, alias)) warnings.push(`'${alias}' was read as ${read}: send '${target}' (docs/contributing.md#vocabulary).`);
  }
  return out ?? raw;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = input;
  for (const k of path) {
    if (cur == null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  return cur;
}

function fieldName(path: PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}

/**
 * Validates and returns the typed input, or throws INVALID_INPUT naming the field. `aliases`: the
 * tool's old spellings (registry.ts `aliases`); each one used adds a line to `warnings`.
 */
export function parseInput<S extends z.ZodObject>(
  schema: S,
  raw: Record<string, unknown>,
  tool: string,
  aliases: Record<string, string> = {},
  warnings: string[] = [],
  scale: Record<string, number> = {},
): z.output<S> {
  const known = new Set(Object.keys(schema.shape));
  const input = applyAliases(raw, known, aliases, warnings, scale);
  for (const key of Object.keys(input)) {
    if (known.has(key)) continue;
    const suggestion = suggestField(key, known, aliases);
    const allowed = [...known].join(', ');
    throw new ToolError(
      'INVALID_INPUT',
      `Unknown field ${quoteClipped(key)} for ${tool}` +
        (suggestion ? `; did you mean '${suggestion}'?` : '.') +
        ` Valid fields: ${allowed || '(none)'}.`,
      {
        field: clip(key),
        ...(key.length > clip(key).length ? { fieldLength: key.length } : {}),
        suggestion: suggestion ?? null,
        allowed: [...known],
      },
    );
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const field = clip(fieldName(issue.path));
    const value = valueAt(input, issue.path);
    let message: string;
    if (issue.code === 'invalid_type' && value === undefined) {
      message = `'${field}' is required (${issue.expected}).`;
    } else if (issue.code === 'invalid_type') {
      message = `'${field}' must be ${issue.expected === 'int' ? 'an integer' : `a ${issue.expected}`}, got ${describeType(value)}.`;
    } else if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.slice(0, 5).map((k) => quoteClipped(k));
      if (issue.keys.length > 5) keys.push(`and ${issue.keys.length - 5} more`);
      message = `Unknown field(s) ${keys.join(', ')} in '${field}'.`;
    } else {
      message = `'${field || 'input'}' ${issue.message.charAt(0).toLowerCase()}${issue.message.slice(1)}.`.replace(/\.\.$/, '.');
    }
    return { field, message };
  });
  const first = issues[0]!;
  // A refinement's params say what exactly is wrong (idempotencyKey's code point and index, registry.ts).
  const found = result.error.issues[0]!;
  const params = found.code === 'custom' ? found.params : undefined;
  throw new ToolError('INVALID_INPUT', `${first.message} See the ${tool} input schema in /skill.md.`, {
    field: first.field,
    issues,
    ...params,
  });
}

/** edit and append: changing part of a file (files family; the edit contract lives in core/edit.ts). */
import { z } from 'zod';
import { unifiedDiffSliced } from '../core/diff.js';
import { applyEditsSliced, type EditSpec } from '../core/edit.js';
import { runSliced } from '../core/work.js';
import { ToolError } from '../core/errors.js';
import { ancestorsOf } from '../core/paths.js';
import { contentHash, countLines, decodeTextWork } from '../core/text.js';
import { iso } from '../core/time.js';
import {
  ROOT,
  checkPreconditions,
  checkSize,
  commitFileContent,
  decodeContent,
  expectedFields,
  isADirectory,
  isLive,
  notFound,
  pathField,
  planAncestors,
  rejectReserved,
} from './common.js';
import { defineTool, type AnyTool } from './registry.js';
import { fileContentOutput } from './files-output.js';
import { changesetId, diffStats, mutationOutputOf, timestamp, version } from './output-shapes.js';

const editOutput = mutationOutputOf({
  path: z.string(),
  replacements: z.number().int().describe('Occurrences replaced, over all edits.'),
  diff: z.string().describe('Unified diff of the change.'),
  diffTruncated: z.boolean(),
  diffStats,
  baseVersion: version.describe('The version the edit applied to.'),
  baseUpdatedAt: timestamp,
  applied: z.boolean().describe('false for a dry run: nothing written, and the fields below are absent.'),
  note: z.string().optional().describe('Dry run: how to apply exactly this diff.'),
  version: version.optional().describe('The new version.'),
  updatedAt: timestamp.optional(),
  size: z.number().int().optional(),
  contentHash: z.string().optional().describe('"sha256:<hex>" of the new content.'),
  changesetId: changesetId.optional(),
});

const editItem = z.strictObject({
  old_string: z.string(),
  new_string: z.string(),
  replace_all: z.boolean().optional(),
});

const edit = defineTool({
  name: 'edit',
  family: 'files',
  scopes: ['files:write'],
  summary: 'Replace an exact string in a file (or several, in order, all or nothing).',
  note: 'old_string must match exactly, once, unless replace_all (NO_MATCH, MULTIPLE_MATCHES). dryRun: true only diffs.',
  description:
    'old_string must match the file exactly (whitespace, indentation, line endings) and be unique unless replace_all is true. ' +
    'Matching is literal ($& and friends in new_string are inserted as-is). With edits: [...] the edits apply in order to the ' +
    'in-memory text and either all apply or none. dryRun: true returns the unified diff without writing; repeat the call with ' +
    'expectedVersion: baseVersion to apply exactly that diff. Line endings, a BOM and a missing final newline outside the edited ' +
    'text are preserved byte for byte.',
  input: z.strictObject({
    path: pathField,
    old_string: z.string().optional().describe('Exact text to replace.'),
    new_string: z.string().optional().describe('Replacement text.'),
    replace_all: z.boolean().optional().describe('Replace every occurrence (default: old_string must be unique).'),
    edits: z.array(editItem).min(1).max(100).optional().describe('Several edits, applied in order, all or nothing.'),
    dryRun: z.boolean().default(false),
    ...expectedFields,
  }),
  output: editOutput,
  mutating: true,
  annotations: { readOnly: false, destructive: true, idempotent: false },
  errors: ['NO_MATCH', 'MULTIPLE_MATCHES', 'EDIT_CONFLICT', 'NO_CHANGE', 'NOT_FOUND', 'IS_A_DIRECTORY', 'FILE_TOO_LARGE', 'QUOTA_EXCEEDED'],
  examples: [
    { title: 'Replace one line', input: { path: '/notes/todo.md', old_string: '- ship it', new_string: '- ship it on Friday' } },
    { title: 'Preview an edit', input: { path: '/notes/todo.md', old_string: '# Todo', new_string: '# To do', dryRun: true } },
  ],
  async handler(input, ctx) {
    const path = ctx.path(input.path);
    rejectReserved(path);
    const single = input.old_string !== undefined || input.new_string !== undefined || input.replace_all !== undefined;
    if (single && input.edits) {
      throw new ToolError('INVALID_INPUT', 'Give either old_string/new_string or edits: [...], not both.', { field: 'edits' });
    }
    if (!input.edits && (input.old_string === undefined || input.new_string === undefined)) {
      const missing = input.old_string === undefined ? 'old_string' : 'new_string';
      throw new ToolError('INVALID_INPUT', `'${missing}' is required (string), or give edits: [{old_string, new_string}].`, { field: missing });
    }
    const edits: EditSpec[] = input.edits ?? [{ old_string: input.old_string!, new_string: input.new_string!, replace_all: input.replace_all }];

    const node = await ctx.store.readNode(ctx.auth.agentId, path);
    if (path === ROOT || (isLive(node) && node.kind === 'dir')) throw isADirectory(path);
    if (!isLive(node)) {
      if (input.expectedVersion !== undefined || input.expectedUpdatedAt !== undefined) checkPreconditions(path, input, node);
      throw await notFound(ctx, path, node);
    }
    checkPreconditions(path, input, node);
    const before = await runSliced(decodeTextWork(node.content ?? Buffer.alloc(0)));
    if (before === null) {
      throw new ToolError('INVALID_INPUT', `${path} is a binary file; edit works on text. Use write with encoding "base64" to replace it.`, {
        field: 'path',
      });
    }
    // Sliced: an edit or a diff of a 10 MiB file gives the event loop back every ~20 ms. A text
    // longer than the file limit in UTF-16 units is longer in UTF-8 bytes too: refused at once.
    const outcome = await applyEditsSliced(before, edits, path, { maxLength: ctx.config.maxFileBytes });
    const diff = await unifiedDiffSliced(before, outcome.text, {
      path,
      oldLabel: `version ${node.version}`,
      newLabel: input.dryRun ? 'proposed' : `version ${node.version + 1}`,
    });
    const base = {
      success: true,
      path,
      replacements: outcome.replacements,
      diff: diff.diff,
      diffTruncated: diff.truncated,
      diffStats: diff.stats,
      baseVersion: node.version,
      baseUpdatedAt: iso(node.updatedAtMs),
    };
    if (input.dryRun) {
      return {
        ...base,
        applied: false,
        note: `Dry run: nothing written. To apply exactly this diff, repeat without dryRun and with expectedVersion: ${node.version}.`,
      };
    }
    const bytes = Buffer.from(outcome.text, 'utf8');
    checkSize(ctx, path, bytes.length);
    const hash = contentHash(bytes);
    return ctx.commit(
      [
        {
          path,
          expectVersion: node.version,
          op: 'update',
          state: { kind: 'file', blob: { hash, size: bytes.length, bytes }, lines: countLines(outcome.text), fileId: node.fileId },
        },
      ],
      (cs) => {
        const entry = cs.entries[0]!;
        return {
          ...base,
          applied: true,
          version: entry.toVersion,
          updatedAt: iso(entry.updatedAtMs),
          size: bytes.length,
          contentHash: hash,
          changesetId: cs.id,
        };
      },
    );
  },
});

const append = defineTool({
  name: 'append',
  family: 'files',
  scopes: ['files:write'],
  summary: 'Append content to the end of a file (created if missing).',
  note: 'Nothing is inserted in between: send the leading newline yourself.',
  description:
    'Adds content at the end of the file as a new version, creating the file (and parent directories) if it does not exist. ' +
    'Nothing is inserted between the old and new content: include a leading newline yourself if you need one.',
  input: z.strictObject({
    path: pathField,
    content: z.string(),
    encoding: z.enum(['utf8', 'base64']).default('utf8'),
    ...expectedFields,
  }),
  output: fileContentOutput,
  mutating: true,
  annotations: { readOnly: false, destructive: false, idempotent: false },
  errors: ['EDIT_CONFLICT', 'IS_A_DIRECTORY', 'NOT_A_DIRECTORY', 'FILE_TOO_LARGE', 'QUOTA_EXCEEDED'],
  examples: [{ title: 'Append a log line', input: { path: '/logs/run.log', content: 'step 1 done\n' } }],
  async handler(input, ctx) {
    const path = ctx.path(input.path);
    rejectReserved(path);
    if (path === ROOT) throw isADirectory(path);
    const extra = decodeContent(input.content, input.encoding);
    const nodes = await ctx.store.getNodes(ctx.auth.agentId, ancestorsOf(path));
    const changes = planAncestors(path, nodes);
    const node = await ctx.store.readNode(ctx.auth.agentId, path);
    if (isLive(node) && node.kind === 'dir') throw isADirectory(path);
    checkPreconditions(path, input, node);
    const created = !isLive(node);
    const bytes = created ? extra : Buffer.concat([node.content ?? Buffer.alloc(0), extra]);
    checkSize(ctx, path, bytes.length);
    const hash = contentHash(bytes);
    if (!created && extra.length === 0) {
      return {
        success: true,
        path,
        version: node.version,
        updatedAt: iso(node.updatedAtMs),
        size: node.size,
        contentHash: hash,
        created: false,
        unchanged: true,
        changesetId: null,
      };
    }
    return commitFileContent(ctx, changes, path, node, bytes, hash);
  },
});

export const editTools: AnyTool[] = [edit, append];

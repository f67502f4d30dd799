/** The core file tools: write, read, stat, list, mkdir, delete (docs/contract/files.md#the-tools). */
import { z } from 'zod';
import { attachmentNote } from '../core/attachments.js';
import { ToolError } from '../core/errors.js';
import { newId } from '../core/keys.js';
import { ancestorsOf, isWithin, parentOf } from '../core/paths.js';
import { contentHash, decodeText, pageLines } from '../core/text.js';
import { iso } from '../core/time.js';
import type { NodeRecord, PlannedChange } from '../store/types.js';
import {
  ROOT,
  checkPreconditions,
  checkSize,
  commitFileContent,
  decodeContent,
  expectedFields,
  isADirectory,
  isLive,
  namedWriter,
  navigablePath,
  notFound,
  pathField,
  planAncestors,
  rejectReserved,
  updatedBy,
  versionField,
  versionNotFound,
} from './common.js';
import { ENTRY_PAGE, capped, walkSubtree } from './big-trees.js';
import { defineTool, type AnyTool, type ToolContext } from './registry.js';
import { deleteOutput, fileContentOutput, mkdirOutput, readOutput, statOutput } from './files-output.js';
import { list } from './list.js';

const write = defineTool({
  name: 'write',
  family: 'files',
  mount: { access: 'write', creates: true },
  scopes: ['files:write'],
  summary: 'Create a file or replace its whole content (a new version).',
  note: 'Identical content makes no version. mode "create" fails if it exists (ALREADY_EXISTS).',
  description:
    'Creates the file (and any missing parent directories) or replaces its entire content, recording a new version. ' +
    'Writing identical content returns unchanged: true and creates no version. Use mode "create" to fail if the file exists, ' +
    'and expectedVersion/expectedUpdatedAt to fail with EDIT_CONFLICT if someone changed it since you read it.',
  input: z.strictObject({
    path: pathField,
    content: z.string().describe('The full new content (text, or base64 when encoding is "base64").'),
    encoding: z.enum(['utf8', 'base64']).default('utf8'),
    mode: z.enum(['overwrite', 'create']).default('overwrite').describe('"create" fails with ALREADY_EXISTS if the file exists.'),
    ...expectedFields,
  }),
  output: fileContentOutput,
  mutating: true,
  annotations: { readOnly: false, destructive: true, idempotent: true },
  errors: ['ALREADY_EXISTS', 'EDIT_CONFLICT', 'IS_A_DIRECTORY', 'NOT_A_DIRECTORY', 'FILE_TOO_LARGE', 'QUOTA_EXCEEDED'],
  examples: [{ title: 'Write a note', input: { path: '/notes/todo.md', content: '# Todo\n- ship it\n' } }],
  async handler(input, ctx) {
    const path = ctx.path(input.path);
    rejectReserved(path);
    if (path === ROOT) throw new ToolError('IS_A_DIRECTORY', '/ is the root directory; write to a file path such as /notes.md.', { path });
    const bytes = decodeContent(input.content, input.encoding);
    checkSize(ctx, path, bytes.length);

    const nodes = await ctx.store.getNodes(ctx.auth.agentId, [...ancestorsOf(path), path]);
    const current = nodes.get(path);
    const changes = planAncestors(path, nodes);
    if (isLive(current) && current.kind === 'dir') {
      throw new ToolError('IS_A_DIRECTORY', `${path} is a directory. Write to a file inside it, e.g. ${path}/file.md.`, { path });
    }
    checkPreconditions(path, input, current);
    if (input.mode === 'create' && isLive(current)) {
      throw new ToolError(
        'ALREADY_EXISTS',
        `${path} already exists (version ${current.version}). Drop mode "create" to overwrite it, or pick another path.`,
        {
          path,
          version: current.version,
          updatedAt: iso(current.updatedAtMs),
        },
      );
    }
    const hash = contentHash(bytes);
    if (isLive(current) && current.blobHash === hash) {
      return {
        success: true,
        path,
        version: current.version,
        updatedAt: iso(current.updatedAtMs),
        size: current.size,
        contentHash: hash,
        created: false,
        unchanged: true,
        changesetId: null,
      };
    }
    return commitFileContent(ctx, changes, path, current, bytes, hash);
  },
});

const read = defineTool({
  name: 'read',
  family: 'files',
  mount: { access: 'read', published: true, readsFile: true },
  scopes: ['files:read'],
  summary: 'Read a file (or a range of its lines, or an earlier version).',
  note: 'While truncated, read on from next.offset. Binary files come back base64.',
  description:
    `Returns the file's content with its version and updatedAt (pass them back as expectedVersion/expectedUpdatedAt). ` +
    'Large files come in pages: truncated is true exactly when more lines follow this page, and then next.offset is the line ' +
    'to continue from (call read again with offset: next.offset until truncated is false; the last page has no next). ' +
    'A single line longer than the page size is cut: cutLine names it (read with encoding "base64" for its exact bytes). ' +
    'Binary files (invalid UTF-8 or containing NUL bytes) come back base64-encoded with encoding "base64".',
  input: z.strictObject({
    path: pathField,
    offset: z.number().int().min(1).optional().describe('First line to return (1-based).'),
    limit: z.number().int().min(1).optional().describe('Maximum number of lines (default and cap: the read page size).'),
    version: versionField.optional().describe('Read this earlier version instead of the current one.'),
    encoding: z.enum(['utf8', 'base64']).optional().describe('Force "base64" to get exact bytes; default: utf8 for text.'),
  }),
  output: readOutput,
  mutating: false,
  annotations: { readOnly: true, destructive: false, idempotent: true },
  errors: ['NOT_FOUND', 'IS_A_DIRECTORY', 'VERSION_NOT_FOUND'],
  examples: [
    { title: 'Read a file', input: { path: '/notes/todo.md' } },
    { title: 'Read lines 100-149', input: { path: '/notes/todo.md', offset: 100, limit: 50 } },
    { title: 'Read a file another agent shared with you', input: { path: '/shared/example-friend/parsers/notes.md' } },
  ],
  async handler(input, ctx) {
    const path = ctx.path(input.path);
    const agentId = ctx.auth.agentId;
    let meta: { version: number; updatedAtMs: number; size: number; blobHash: string | null };
    let bytes: Buffer;
    if (input.version !== undefined) {
      const [node, v] = await Promise.all([ctx.store.getNode(agentId, path), ctx.store.getVersion(agentId, path, input.version)]);
      if (!node) throw await notFound(ctx, path, node);
      if (!v) throw versionNotFound(path, input.version, node);
      if (v.kind === 'dir') throw isADirectory(path);
      if (v.deleted) {
        throw new ToolError(
          'VERSION_NOT_FOUND',
          `Version ${v.version} of ${path} is a delete marker with no content; read version ${v.version - 1}.`,
          {
            path,
            version: v.version,
            latestVersion: node.version,
          },
        );
      }
      bytes = (await ctx.store.getBlob(agentId, v.blobHash!)) ?? Buffer.alloc(0);
      meta = v;
    } else {
      const node = await ctx.store.readNode(agentId, path);
      if (path === ROOT || (isLive(node) && node.kind === 'dir')) throw isADirectory(path);
      if (!isLive(node)) throw await notFound(ctx, path, node);
      bytes = node.content ?? Buffer.alloc(0);
      meta = node;
    }
    const base = {
      success: true as const,
      path,
      version: meta.version,
      updatedAt: iso(meta.updatedAtMs),
      size: meta.size,
      contentHash: meta.blobHash,
    };
    const text = input.encoding === 'base64' ? null : decodeText(bytes);
    if (text === null) {
      if (input.offset !== undefined || input.limit !== undefined) {
        throw new ToolError(
          'INVALID_INPUT',
          `${path} is ${input.encoding === 'base64' ? 'requested as base64' : 'binary'}; offset/limit apply to text only. Drop them to get the whole content.`,
          {
            field: input.offset !== undefined ? 'offset' : 'limit',
          },
        );
      }
      const copy = attachmentNote(path, meta.version);
      return { ...base, content: bytes.toString('base64'), encoding: 'base64', lines: null, truncated: false, ...(copy ? { note: copy } : {}) };
    }
    const limit = Math.min(input.limit ?? ctx.config.readPageLines, ctx.config.readPageLines);
    const page = pageLines(text, input.offset ?? 1, limit, ctx.config.readPageBytes);
    const result: z.input<typeof readOutput> = {
      ...base,
      content: page.content,
      encoding: 'utf8',
      lines: { start: page.start, end: page.end, total: page.total },
      truncated: page.truncated,
    };
    if (page.nextOffset !== null) result.next = { offset: page.nextOffset };
    if (page.cutLine !== null) {
      result.cutLine = page.cutLine;
      result.note =
        `Line ${page.cutLine} is longer than ${ctx.config.readPageBytes} bytes and was cut; read with encoding "base64" for the exact bytes.` +
        (page.nextOffset !== null ? ` Call read with offset ${page.nextOffset} to continue.` : '');
    } else if (page.nextOffset !== null) {
      result.note = `Showing lines ${page.start}-${page.end} of ${page.total}. Call read with offset ${page.nextOffset} to continue.`;
    } else if ((input.offset ?? 1) > page.total && page.total >= 0 && input.offset !== undefined) {
      result.note = `${path} has ${page.total} lines; offset ${input.offset} is past the end.`;
    }
    const copy = attachmentNote(path, meta.version);
    if (copy) result.note = result.note ? `${copy} ${result.note}` : copy;
    return result;
  },
});

const stat = defineTool({
  name: 'stat',
  family: 'files',
  mount: { access: 'read', published: true, skeleton: 'stat' },
  scopes: ['files:read'],
  summary: 'Metadata of a file or directory (no content).',
  description: 'Returns type, size, line count, version, timestamps, content hash, number of versions and the key that last changed it.',
  input: z.strictObject({ path: pathField, version: versionField.optional() }),
  output: statOutput,
  mutating: false,
  annotations: { readOnly: true, destructive: false, idempotent: true },
  errors: ['NOT_FOUND', 'VERSION_NOT_FOUND'],
  examples: [{ title: 'Stat a file', input: { path: '/notes/todo.md' } }],
  async handler(input, ctx) {
    const path = navigablePath(ctx, input.path);
    const agentId = ctx.auth.agentId;
    if (path === ROOT) {
      const [agent, children] = await Promise.all([ctx.store.getAgent(agentId), countVisibleChildren(ctx, ROOT)]);
      const at = iso(agent?.createdAtMs ?? 0);
      return {
        success: true,
        path,
        type: 'directory',
        size: 0,
        lineCount: null,
        version: 0,
        updatedAt: at,
        createdAt: at,
        contentHash: null,
        versionCount: 0,
        updatedBy: null,
        entryCount: children,
      };
    }
    const node = await ctx.store.getNode(agentId, path);
    if (!node) throw await notFound(ctx, path, node, 'file or directory');
    if (input.version !== undefined) {
      const v = await ctx.store.getVersion(agentId, path, input.version);
      if (!v) throw versionNotFound(path, input.version, node);
      const from = (await ctx.store.getProvenance(agentId, path, [v.version])).get(v.version);
      const copy = v.kind === 'file' ? attachmentNote(path, v.version) : undefined;
      return {
        ...(from ? { copiedFrom: from } : {}),
        ...(copy ? { note: copy } : {}),
        success: true,
        path,
        type: v.kind === 'dir' ? 'directory' : 'file',
        size: v.size,
        lineCount: v.lines,
        version: v.version,
        updatedAt: iso(v.updatedAtMs),
        createdAt: iso(node.createdAtMs),
        contentHash: v.blobHash,
        deleted: v.deleted,
        op: v.op,
        changesetId: v.changesetId,
        updatedBy: await namedWriter(ctx, { keyId: v.keyId, label: v.keyLabel }),
      };
    }
    if (node.deleted) throw await notFound(ctx, path, node, 'file or directory');
    const [versionCount, entries, copied] = await Promise.all([
      ctx.store.countVersions(agentId, path),
      node.kind === 'dir' ? countVisibleChildren(ctx, path) : Promise.resolve(undefined),
      node.kind === 'file' ? ctx.store.getProvenance(agentId, path, [1, node.version]) : Promise.resolve(null),
    ]);
    // The newest copy among the head and the versions before it: edits since keep its origin.
    const copiedAt = copied?.size ? Math.max(...copied.keys()) : 0;
    const from = copied?.get(copiedAt);
    const copy = node.kind === 'file' ? attachmentNote(path, node.version) : undefined;
    return {
      ...(from ? { copiedFrom: from, copiedAt } : {}),
      ...(copy ? { note: copy } : {}),
      success: true,
      path,
      type: node.kind === 'dir' ? 'directory' : 'file',
      size: node.size,
      lineCount: node.lines,
      version: node.version,
      updatedAt: iso(node.updatedAtMs),
      createdAt: iso(node.createdAtMs),
      contentHash: node.blobHash,
      versionCount,
      updatedBy: await namedWriter(ctx, updatedBy(node)),
      ...(entries !== undefined ? { entryCount: entries } : {}),
    };
  },
});

/**
 * Live children of a directory as this key sees them: above a folder-scoped key's folder only
 * the next directory toward it counts (the count must not reveal what is outside the folder).
 */
async function countVisibleChildren(ctx: ToolContext, dir: string): Promise<number> {
  const folder = ctx.auth.folder;
  if (folder && dir !== folder && isWithin(folder, dir)) {
    const next = [...ancestorsOf(folder), folder].find((p) => parentOf(p) === dir);
    return next && isLive(await ctx.store.getNode(ctx.auth.agentId, next)) ? 1 : 0;
  }
  return ctx.store.countLiveChildren(ctx.auth.agentId, dir);
}

const mkdir = defineTool({
  name: 'mkdir',
  family: 'files',
  mount: { access: 'write', creates: true },
  scopes: ['files:write'],
  summary: 'Create a directory (and its parents). An existing directory is fine.',
  description: 'Creates the directory and any missing parents, like `mkdir -p`. If it already exists, returns created: false.',
  input: z.strictObject({ path: pathField }),
  output: mkdirOutput,
  mutating: true,
  annotations: { readOnly: false, destructive: false, idempotent: true },
  errors: ['NOT_A_DIRECTORY', 'QUOTA_EXCEEDED'],
  examples: [{ title: 'Create a directory', input: { path: '/projects/alpha' } }],
  async handler(input, ctx) {
    const path = ctx.path(input.path);
    rejectReserved(path);
    if (path === ROOT) return { success: true, path, created: false, version: 0, updatedAt: null, changesetId: null };
    const nodes = await ctx.store.getNodes(ctx.auth.agentId, [...ancestorsOf(path), path]);
    const changes = planAncestors(path, nodes);
    const current = nodes.get(path);
    if (isLive(current)) {
      if (current.kind === 'file') {
        throw new ToolError('NOT_A_DIRECTORY', `${path} already exists as a file. Choose another name, or move the file away first.`, {
          path,
          blockingPath: path,
        });
      }
      return { success: true, path, created: false, version: current.version, updatedAt: iso(current.updatedAtMs), changesetId: null };
    }
    changes.push({ path, expectVersion: current?.version ?? 0, op: 'create', state: { kind: 'dir', fileId: newId('f') } });
    return ctx.commit(changes, (cs) => {
      const entry = cs.entries.find((e) => e.path === path)!;
      return {
        success: true,
        path,
        created: true,
        createdPaths: cs.entries.map((e) => e.path),
        version: entry.toVersion,
        updatedAt: iso(entry.updatedAtMs),
        changesetId: cs.id,
      };
    });
  },
});

const del = defineTool({
  name: 'delete',
  family: 'files',
  mount: { access: 'write', removes: 'path' },
  scopes: ['files:delete'],
  summary: 'Delete a file or directory (recoverable: a tombstone version is recorded).',
  note: 'A non-empty directory needs recursive: true (DIRECTORY_NOT_EMPTY). restore undoes it.',
  description:
    'Deletes a file, an empty directory, or with recursive: true a directory and everything below it, as one changeset. ' +
    'Nothing is lost: every deleted path keeps its history and can be restored until it is purged. The result lists the first ' +
    `${ENTRY_PAGE} deleted paths (deleted, with deletedCount); list_changes with the changesetId pages through all of them.`,
  input: z.strictObject({ path: pathField, recursive: z.boolean().default(false), ...expectedFields }),
  output: deleteOutput,
  mutating: true,
  annotations: { readOnly: false, destructive: true, idempotent: false },
  errors: ['NOT_FOUND', 'DIRECTORY_NOT_EMPTY', 'EDIT_CONFLICT'],
  examples: [{ title: 'Delete a directory', input: { path: '/projects/alpha' } }],
  async handler(input, ctx) {
    const path = ctx.path(input.path);
    rejectReserved(path, 'remove');
    if (path === ROOT) {
      throw new ToolError('INVALID_PATH', 'The root directory cannot be deleted. Delete the entries inside it instead.', { path, reason: 'root' });
    }
    const agentId = ctx.auth.agentId;
    const node = await ctx.store.getNode(agentId, path);
    if (!isLive(node)) {
      if (input.expectedVersion !== undefined || input.expectedUpdatedAt !== undefined) checkPreconditions(path, input, node);
      throw await notFound(ctx, path, node, 'file or directory');
    }
    checkPreconditions(path, input, node);
    const targets: NodeRecord[] = [node];
    if (node.kind === 'dir') {
      const children = await ctx.store.countLiveChildren(agentId, path);
      if (children > 0 && !input.recursive) {
        throw new ToolError(
          'DIRECTORY_NOT_EMPTY',
          `${path} has ${children} entr${children === 1 ? 'y' : 'ies'}. Pass recursive: true to delete it with everything below it.`,
          { path, childCount: children },
        );
      }
      for (const n of (await walkSubtree(ctx, path))!) targets.push(n);
    }
    const changes: PlannedChange[] = targets.map((n) => ({
      path: n.path,
      expectVersion: n.version,
      op: 'delete',
      state: { kind: 'deleted', was: n.kind },
    }));
    return ctx.commit(changes, (cs) => {
      const entry = cs.entries.find((e) => e.path === path)!;
      const shown = capped(cs.entries, cs.id);
      return {
        success: true,
        path,
        version: entry.toVersion,
        updatedAt: iso(entry.updatedAtMs),
        deletedPaths: shown.items.map((e) => ({ path: e.path, type: e.kind === 'dir' ? 'directory' : 'file', version: e.toVersion })),
        deletedCount: shown.count,
        ...(shown.truncated ? { deletedTruncated: true, note: shown.note } : {}),
        restorable: true,
        changesetId: cs.id,
      };
    });
  },
});

export const fileTools: AnyTool[] = [write, read, stat, list, mkdir, del];

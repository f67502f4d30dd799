/**
 * write_files: many files in one changeset, all or nothing — an upload of a directory (`afs push`)
 * or a generated set of files that must never be seen half-written. Each file follows write's
 * rules (missing parent directories created, identical content left alone); the batch adds only
 * that no path may appear twice or lie below another file of the batch.
 */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { ancestorsOf } from '../core/paths.js';
import { contentHash } from '../core/text.js';
import { iso } from '../core/time.js';
import type { NodeRecord, PlannedChange } from '../store/types.js';
import { checkSize, decodeContent, fileChange, isLive, pathField, planAncestors, rejectReserved, versionField } from './common.js';
import { changesetId, mutationOutputOf, timestamp, version } from './output-shapes.js';
import { defineTool, type AnyTool, type ToolContext } from './registry.js';

/** A batch's files: bounded so one call's planning (a node lookup per path and ancestor) stays small. */
export const MAX_BATCH_FILES = 1000;

interface Item {
  path: string;
  bytes: Buffer;
  hash: string;
  expectedVersion: number | undefined;
  create: boolean;
}

interface FileInput {
  path: string;
  content: string;
  encoding: 'utf8' | 'base64';
  expectedVersion?: number | undefined;
  mode?: 'overwrite' | 'create' | undefined;
}

/** Decodes and checks each file, in order; the first bad one names its index. */
function readItems(ctx: ToolContext, files: FileInput[]): Item[] {
  const seen = new Set<string>();
  const items = files.map((f, i) => {
    const path = ctx.path(f.path, `files[${i}].path`);
    rejectReserved(path);
    if (path === '/') throw new ToolError('IS_A_DIRECTORY', `files[${i}].path is / (the root directory); name a file such as /notes.md.`, { path });
    if (seen.has(path))
      throw new ToolError('INVALID_INPUT', `${path} appears twice in files (index ${i}): each path once per call.`, { field: `files[${i}].path` });
    seen.add(path);
    const bytes = decodeContent(f.content, f.encoding);
    checkSize(ctx, path, bytes.length);
    return { path, bytes, hash: contentHash(bytes), expectedVersion: f.expectedVersion, create: f.mode === 'create' };
  });
  for (const item of items) {
    const above = ancestorsOf(item.path).find((a) => seen.has(a));
    if (above) {
      throw new ToolError(
        'NOT_A_DIRECTORY',
        `${above} is a file of this batch, so ${item.path} cannot be created below it. Write one or the other.`,
        {
          path: item.path,
          blockingPath: above,
        },
      );
    }
  }
  return items;
}

/** At most this many conflicts are listed in one EDIT_CONFLICT (conflictCount says how many there are). */
const CONFLICTS_SHOWN = 100;

/**
 * Every file whose precondition fails (expectedVersion not the head, mode "create" over a live
 * file), in one EDIT_CONFLICT: the caller learns all of them at once and nothing is written. The
 * current state shows version, time and deletion only (no key of the owner: a share's writer may ask).
 */
function checkConflicts(items: Item[], nodes: Map<string, NodeRecord>): void {
  const conflicts = items.flatMap(({ path, expectedVersion, create }) => {
    const node = nodes.get(path);
    const live = isLive(node);
    const fails = (expectedVersion !== undefined && (!live || node.version !== expectedVersion)) || (create && live);
    if (!fails) return [];
    const current = node ? { version: node.version, updatedAt: iso(node.updatedAtMs), deleted: node.deleted } : null;
    return [{ path, expected: create ? 'absent' : expectedVersion!, current }];
  });
  if (!conflicts.length) return;
  const first = conflicts[0]!;
  const more = conflicts.length > 1 ? ` and ${conflicts.length - 1} more (details.conflicts)` : '';
  throw new ToolError(
    'EDIT_CONFLICT',
    `${first.path} changed since you read it${more}: nothing was written. Read the current versions, merge, and write again with their expectedVersion.`,
    { path: first.path, conflicts: conflicts.slice(0, CONFLICTS_SHOWN), conflictCount: conflicts.length },
  );
}

/** The changes: each missing ancestor directory once, then each file whose content differs. */
function plan(items: Item[], nodes: Map<string, NodeRecord>): { changes: PlannedChange[]; unchanged: Set<string> } {
  const changes: PlannedChange[] = [];
  const planned = new Set<string>();
  const unchanged = new Set<string>();
  for (const { path, bytes, hash } of items) {
    const current = nodes.get(path);
    if (isLive(current) && current.kind === 'dir') {
      throw new ToolError('IS_A_DIRECTORY', `${path} is a directory. Write to a file inside it, e.g. ${path}/file.md.`, { path });
    }
    if (isLive(current) && current.blobHash === hash) {
      unchanged.add(path);
      continue;
    }
    changes.push(...planAncestors(path, nodes, planned));
    changes.push(fileChange(path, current, bytes, hash));
  }
  return { changes, unchanged };
}

const fileResult = z.strictObject({
  path: z.string(),
  version,
  updatedAt: timestamp,
  size: z.number().int().min(0).describe('Bytes.'),
  contentHash: z.string().describe('"sha256:<hex>" of the content.'),
  created: z.boolean().describe('The file did not exist before.'),
  unchanged: z.boolean().describe('Same content as before: no new version.'),
});

const writeFiles = defineTool({
  name: 'write_files',
  family: 'files',
  scopes: ['files:write'],
  summary: 'Write many files at once: one changeset, all or nothing.',
  note: 'At most 1000 files; one failure (e.g. EDIT_CONFLICT) writes none.',
  description:
    `Creates or replaces each file as write does (missing parent directories are created), all in one changeset: either every file ` +
    `is written or none is (an error names the file). Files whose content is already there are left alone (unchanged: true, no new version). ` +
    `At most ${MAX_BATCH_FILES} files, within the request body limit; each path once, and no path below another file of the batch. ` +
    'Compare-and-swap per file: with expectedVersion (or mode "create") a file changed since you read it fails the whole call with ' +
    'EDIT_CONFLICT, details.conflicts listing every such file with its current version. ' +
    'Works through /shared/{owner}/… where you may write (all files of a call in one share).',
  input: z.strictObject({
    files: z
      .array(
        z.strictObject({
          path: pathField,
          content: z.string().describe('The full new content (text, or base64 when encoding is "base64").'),
          encoding: z.enum(['utf8', 'base64']).default('utf8'),
          expectedVersion: versionField
            .optional()
            .describe('The version you last read; the whole call fails with EDIT_CONFLICT if the file is not at it.'),
          mode: z
            .enum(['overwrite', 'create'])
            .default('overwrite')
            .describe('"create": the whole call fails with EDIT_CONFLICT if the file exists.'),
        }),
      )
      .min(1)
      .max(MAX_BATCH_FILES),
  }),
  output: mutationOutputOf({
    changesetId: changesetId.nullable().describe('The one changeset of the batch; null when nothing changed.'),
    files: z.array(fileResult).describe('Each file of the input, in its order.'),
    written: z.number().int().describe('Files with a new version.'),
    bytes: z.number().int().describe('Bytes of the files written.'),
  }),
  mutating: true,
  // Many paths: the store's compare-and-swap on every head decides between concurrent writers.
  queueByPath: false,
  annotations: { readOnly: false, destructive: true, idempotent: true },
  errors: [
    'IS_A_DIRECTORY',
    'NOT_A_DIRECTORY',
    'FILE_TOO_LARGE',
    'QUOTA_EXCEEDED',
    'EDIT_CONFLICT',
    'INVALID_PATH',
    'OUTSIDE_KEY_FOLDER',
    'NOT_FOUND',
    'FORBIDDEN',
  ],
  examples: [
    {
      title: 'Write two files in one changeset',
      input: {
        files: [
          { path: '/site/index.md', content: '# Home\n' },
          { path: '/site/about.md', content: '# About\n' },
        ],
      },
    },
  ],
  async handler(input, ctx) {
    const items = readItems(ctx, input.files);
    const wanted = new Set(items.flatMap((i) => [...ancestorsOf(i.path), i.path]));
    const nodes = await ctx.store.getNodes(ctx.auth.agentId, [...wanted]);
    checkConflicts(items, nodes);
    const { changes, unchanged } = plan(items, nodes);
    const answer = (entries: Map<string, { toVersion: number; updatedAtMs: number }>, id: string | null) => {
      const files = items.map(({ path, bytes, hash }) => {
        const entry = entries.get(path);
        const node = nodes.get(path);
        const stored = entry ?? { toVersion: node!.version, updatedAtMs: node!.updatedAtMs };
        return {
          path,
          version: stored.toVersion,
          updatedAt: iso(stored.updatedAtMs),
          size: bytes.length,
          contentHash: hash,
          created: !isLive(node),
          unchanged: unchanged.has(path),
        };
      });
      const written = items.filter((i) => !unchanged.has(i.path));
      return { success: true as const, changesetId: id, files, written: written.length, bytes: written.reduce((n, i) => n + i.bytes.length, 0) };
    };
    if (!changes.length) return answer(new Map(), null);
    return ctx.commit(changes, (cs) => answer(new Map(cs.entries.map((e) => [e.path, e])), cs.id));
  },
});

export const writeFilesTools: AnyTool[] = [writeFiles];

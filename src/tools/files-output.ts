/** Output schemas of the core file tools (files.ts), and the write/append result they share. */
import { z } from 'zod';
import {
  changeOp,
  changesetId,
  contentHash,
  entryType,
  keyRef,
  mutationOutputOf,
  outputOf,
  timestamp,
  truncationNote,
  version,
  copiedFromShape,
} from './output-shapes.js';

const path = z.string().describe('The normalized absolute path.');
const size = z.number().int().min(0).describe('Bytes.');

/** write and append (common.ts commitFileContent, and the unchanged answers). */
export const fileContentOutput = mutationOutputOf({
  path,
  version: version.describe("The file's version now (pass back as expectedVersion)."),
  updatedAt: timestamp.describe('When that version was made (pass back as expectedUpdatedAt).'),
  size,
  contentHash: z.string().describe('"sha256:<hex>" of the whole content.'),
  created: z.boolean().describe('The file did not exist before.'),
  unchanged: z.boolean().describe('Same content as before: no new version, changesetId null.'),
  changesetId: changesetId.nullable(),
});

export const readOutput = outputOf({
  path,
  version,
  updatedAt: timestamp,
  size,
  contentHash,
  content: z.string().describe('The text of the page, or the whole content in base64.'),
  encoding: z.enum(['utf8', 'base64']),
  lines: z
    .strictObject({ start: z.number().int(), end: z.number().int(), total: z.number().int() })
    .nullable()
    .describe('Lines of this page and of the file (1-based, inclusive); null for base64.'),
  truncated: z.boolean().describe('More lines follow this page (true exactly when next is present).'),
  next: z.strictObject({ offset: z.number().int() }).optional().describe('Where the next page starts: read again with this offset.'),
  cutLine: z
    .number()
    .int()
    .optional()
    .describe('A line of this page longer than the page size, cut; read with encoding "base64" for its exact bytes.'),
  note: z.string().optional().describe('What to do next (continue paging, a cut line, an offset past the end).'),
});

export const statOutput = outputOf({
  path,
  type: entryType,
  size,
  lineCount: z.number().int().nullable().describe('Of a text file; null for binary files and directories.'),
  version,
  updatedAt: timestamp.nullable(),
  createdAt: timestamp.nullable(),
  contentHash,
  versionCount: z.number().int().optional().describe('Versions of the path (absent when stat-ing one version).'),
  updatedBy: keyRef.nullable().describe('The key that made the version (null for /).'),
  entryCount: z.number().int().optional().describe('Directories: live entries directly inside (that this key sees).'),
  deleted: z.boolean().optional().describe('With version: that version is a delete marker.'),
  op: changeOp.optional().describe('With version: how that version was made.'),
  changesetId: z.string().optional().describe('With version: the changeset that made it.'),
  copiedFrom: copiedFromShape.optional(),
  copiedAt: version
    .optional()
    .describe("Without version: which of your versions is that copy (copiedFrom); later versions are edits of it, yours or your collaborators'."),
  note: z.string().optional(),
});

export const listOutput = outputOf({
  path,
  entries: z.array(
    z.strictObject({
      name: z.string(),
      path: z.string(),
      type: entryType,
      size,
      version,
      updatedAt: timestamp.nullable(),
      mount: z
        .enum(['shared', 'published'])
        .optional()
        .describe('A mount point at /: what others shared with you, what agents you follow published. List it to go in.'),
    }),
  ),
  nextCursor: z.string().nullable().describe('More entries: call again with cursor set to it.'),
});

export const mkdirOutput = mutationOutputOf({
  path,
  created: z.boolean().describe('false: it already existed (nothing changed).'),
  createdPaths: z.array(z.string()).optional().describe('Every directory created, parents included.'),
  version,
  updatedAt: timestamp.nullable().describe('null for /.'),
  changesetId: changesetId.nullable(),
});

export const deleteOutput = mutationOutputOf({
  path,
  version: version.describe('The version of the delete marker (restore version - 1 to undo).'),
  updatedAt: timestamp,
  deletedPaths: z.array(z.strictObject({ path: z.string(), type: entryType, version })).describe('The first 100.'),
  deletedCount: z.number().int(),
  deletedTruncated: z.literal(true).optional(),
  note: truncationNote,
  restorable: z.literal(true),
  changesetId,
});

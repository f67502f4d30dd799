/** Output schemas of the version-history tools (versions.ts). */
import { z } from 'zod';
import {
  changeOp,
  changesetEntry,
  changesetId,
  changesetMetaShape,
  changesetSummary,
  contentHash,
  diffStats,
  entryType,
  keyRef,
  mutationOutputOf,
  outputOf,
  timestamp,
  truncationNote,
  version,
  copiedFromShape,
} from './output-shapes.js';

export const listVersionsOutput = outputOf({
  path: z.string(),
  currentVersion: version,
  deleted: z.boolean().describe('The path is deleted now (restore one of its versions to bring it back).'),
  versions: z.array(
    z.strictObject({
      path: z.string().describe('The path at that version (an earlier one before a move).'),
      version,
      updatedAt: timestamp,
      type: entryType,
      deleted: z.boolean(),
      size: z.number().int(),
      contentHash,
      op: changeOp,
      changesetId: z.string(),
      by: keyRef,
      copiedFrom: copiedFromShape.optional(),
    }),
  ),
  nextCursor: z.string().nullable().describe('Older versions: call again with cursor set to it.'),
});

export const diffOutput = outputOf({
  path: z.string(),
  fromVersion: version,
  toVersion: version,
  fromHash: contentHash,
  toHash: contentHash,
  binary: z.literal(true).optional().describe('A side is binary: diff only says whether they differ.'),
  identical: z.boolean(),
  diff: z.string().describe('Unified diff ("" when identical).'),
  diffTruncated: z.boolean().optional(),
  diffStats: diffStats.optional(),
});

export const restoreOutput = mutationOutputOf({
  path: z.string(),
  restoredFrom: version,
  baseVersion: version.describe('The version that was current before.'),
  undeleted: z.boolean(),
  diff: z.string().describe('Unified diff from the current content to the restored one.'),
  diffTruncated: z.boolean(),
  applied: z.boolean().describe('false for a dry run: nothing written, and the fields below are absent.'),
  note: z.string().optional(),
  version: version.optional().describe('The new head version.'),
  updatedAt: timestamp.optional(),
  size: z.number().int().optional(),
  contentHash: contentHash.optional(),
  changesetId: changesetId.optional(),
  restoredBelow: z
    .array(z.strictObject({ path: z.string(), restoredFrom: version, version: version.nullable().optional() }))
    .optional()
    .describe('A directory restored with its subtree: the first 100 paths that came back below it (version: their new head).'),
  restoredBelowCount: z.number().int().optional(),
  restoredBelowTruncated: z.literal(true).optional(),
  restoredBelowNote: z.string().optional(),
  keptBelow: z.array(z.string()).optional().describe('Paths below that exist again since the delete, left as they are (first 100).'),
  keptBelowCount: z.number().int().optional(),
  subtreeDeletedBy: changesetId.optional().describe('The changeset that deleted (or moved away) the subtree.'),
  deletedBelowHint: z.string().optional().describe('The directory came back empty although deleted paths lie below it: where they are.'),
});

const metaOptional = Object.fromEntries(Object.entries(changesetMetaShape).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof changesetMetaShape]: z.ZodOptional<(typeof changesetMetaShape)[K]>;
};

export const listChangesOutput = outputOf({
  changesets: z.array(changesetSummary).optional().describe('The feed (without changesetId).'),
  nextAfterSeq: z.number().int().optional().describe('With afterSeq: poll again with afterSeq set to it.'),
  ...metaOptional,
  changesetId: z.string().optional().describe('With changesetId: the changeset listed (with its seq, createdAt, tool, by).'),
  entryCount: z.number().int().optional().describe('With changesetId: all its entries.'),
  partial: z.literal(true).optional().describe("With changesetId: some entries are outside this key's folder or path."),
  entries: z.array(changesetEntry).optional().describe('With changesetId: a page of its entries, in path order.'),
  nextCursor: z
    .string()
    .nullable()
    .optional()
    .describe('Without afterSeq: older changesets; with changesetId: more entries (call again with cursor set to it; null: no more).'),
});

export const revertChangesetOutput = mutationOutputOf({
  applied: z.boolean().describe('false for a dry run: nothing written.'),
  reverted: z.string().describe('The changeset undone.'),
  changesetId: changesetId.optional().describe('The new changeset (absent in a dry run).'),
  entries: z
    .array(z.strictObject({ path: z.string(), op: changeOp, fromVersion: version.nullable(), toVersion: version.optional() }))
    .describe('The first 100 paths changed (or to be changed).'),
  entryCount: z.number().int(),
  entriesTruncated: z.literal(true).optional(),
  note: truncationNote,
  forced: z.boolean().describe('Later changes to these paths were overwritten (force: true).'),
  diff: z.string().optional().describe('Dry run: a unified diff of the first 20 files, from their content now to after the revert.'),
  diffTruncated: z.boolean().optional().describe('Dry run: the diff leaves files or lines out (entries lists every path).'),
});

export const listDeletedOutput = outputOf({
  path: z.string(),
  deletedPaths: z.array(
    z.strictObject({
      path: z.string(),
      type: entryType,
      version: version.describe('The delete marker.'),
      lastVersion: version.describe('The last version with content: restore it.'),
      deletedAt: timestamp,
      by: keyRef,
    }),
  ),
  nextCursor: z.string().nullable(),
});

export const purgeOutput = mutationOutputOf({
  path: z.string(),
  purged: z.array(z.string()).describe('The first 100 purged paths.'),
  purgedCount: z.number().int(),
  purgedTruncated: z.literal(true).optional(),
  versionsRemoved: z.number().int(),
  bytesFreed: z.number().int(),
});

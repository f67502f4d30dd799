/**
 * Pieces of the tools' output schemas that several tools share, defined once: the success and
 * replay markers, timestamps, key references, changeset summaries and entries, diff stats.
 * Outputs are z.strictObject: a field a handler returns without declaring it is a mismatch
 * (VALIDATE_OUTPUTS turns it into a loud INTERNAL_ERROR).
 */
import { z } from 'zod';

// ISO-8601 UTC with milliseconds (skill.md's "Paths and versions" says so once, not per field).
export const timestamp = z.string();
export const version = z.number().int().min(0);
export const contentHash = z.string().nullable().describe('"sha256:<hex>" of the content; null for a directory.');
export const entryType = z.enum(['file', 'directory']);
export const changeOp = z.enum(['create', 'update', 'delete', 'move', 'restore']);
export const changesetId = z.string().describe('The changeset this call recorded (list_changes, revert_changeset).');

/** Where a copied version came from: a copy from /shared or /published (copy's fork). */
export const copiedFromShape = z
  .strictObject({ slug: z.string().describe('The owner it was copied from.'), path: z.string().describe("The path in the owner's tree."), version })
  .describe("This version is a copy of another agent's file.");

/**
 * The key that made a change (either may be null for changes made before keys were recorded);
 * slug names the writer when it is not the owner of the file (a write through /shared).
 */
export const keyRef = z.strictObject({
  keyId: z.string().nullable(),
  label: z.string().nullable(),
  slug: z
    .string()
    .optional()
    .describe(
      "The agent that wrote it with key keyId, when not the file's owner (a write through /shared). Through /shared and /published: " +
        'always the agent, with keyId and label null (nobody sees another agent’s keys).',
    ),
});

export const diffStats = z.strictObject({
  hunks: z.number().int(),
  added: z.number().int(),
  removed: z.number().int(),
  approximate: z.literal(true).optional(),
});

/** A changeset entry as list_changes shows it. */
export const changesetEntry = z.strictObject({
  path: z.string(),
  op: changeOp,
  type: entryType,
  fromVersion: version.nullable(),
  toVersion: version,
});

/** Who made a changeset, when, with which tool (changeset-entries.ts changesetMeta). */
export const changesetMetaShape = {
  changesetId: z.string(),
  seq: z.number().int().describe('Per-agent sequence number, increasing.'),
  createdAt: timestamp,
  tool: z.string(),
  by: keyRef,
};

/** A changeset in the feed (changeset-entries.ts feedView). */
export const changesetSummary = z.strictObject({
  ...changesetMetaShape,
  entries: z.array(changesetEntry).describe('At most 100; see nextEntriesCursor.'),
  entryCount: z.number().int().describe('All entries of the changeset.'),
  partial: z.literal(true).optional().describe("Some entries are outside this key's folder or the path filter."),
  nextEntriesCursor: z.string().optional().describe('More entries: list_changes with changesetId and cursor set to it.'),
});

/** The fields of a capped entry list (big-trees.ts capped): the count, and the note when cut. */
export const truncationNote = z.string().optional().describe('Present when the list was cut: where the rest is.');

const success = z.literal(true);
const replayed = z.literal(true).optional().describe('The stored result of an earlier call with this idempotencyKey.');

/** A read-only tool's result: {success: true, …shape}. */
export function outputOf<T extends z.ZodRawShape>(shape: T) {
  return z.strictObject({ success, ...shape });
}

/** A mutating tool's result: an idempotent replay answers it again with replayed: true. */
/** A change made through /shared/{owner}/… is recorded in the owner's history (docs/contract/mounts.md). */
const changesetOwner = z
  .string()
  .optional()
  .describe(
    "Through /shared/{owner}/…: the owner's slug. The changeset is in the owner's history, not yours: your list_changes and " +
      'revert_changeset do not see it; undo a file with restore {"path": "/shared/…", "version": n} through the share.',
  );

export function mutationOutputOf<T extends z.ZodRawShape>(shape: T) {
  return z.strictObject({ success, ...shape, changesetOwner, replayed });
}

/** EDIT_CONFLICT, built once for every tool whose precondition (expectedVersion, expectedUpdatedAt) failed. */
import { ToolError } from '../core/errors.js';
import { iso } from '../core/time.js';

/** Builds EDIT_CONFLICT for a precondition that no longer holds. */
export function editConflict(
  path: string,
  expected: { version?: number | undefined; updatedAt?: string | undefined },
  current: { version: number; updatedAtMs: number; deleted: boolean; updatedByKeyId: string | null; updatedByLabel: string | null } | null,
): ToolError {
  const now = current
    ? current.deleted
      ? `it was deleted at version ${current.version} (${iso(current.updatedAtMs)})`
      : `it is now at version ${current.version}, updatedAt ${iso(current.updatedAtMs)}`
    : 'it does not exist';
  const by = current?.updatedByLabel ? ` by key "${current.updatedByLabel}"` : '';
  const wanted = expected.version !== undefined ? `version ${expected.version}` : `updatedAt ${expected.updatedAt}`;
  return new ToolError('EDIT_CONFLICT', `${path} changed since ${wanted}: ${now}${by}. Read it again and retry against the current version.`, {
    path,
    expected,
    current: current
      ? {
          version: current.version,
          updatedAt: iso(current.updatedAtMs),
          deleted: current.deleted,
          by: { keyId: current.updatedByKeyId, label: current.updatedByLabel },
        }
      : null,
  });
}

/** The changeset of one bash command (StoreFs.plannedChanges): its overlay against the heads it was based on. */
import { contentHash, countLines, decodeText } from '../core/text.js';
import { newId } from '../core/keys.js';
import type { NodeRecord, PlannedChange } from '../store/types.js';
import type { Entry } from './fs-read.js';

/** The planned changes, against the heads the command saw; unchanged content is skipped. */
export async function planChanges(overlay: ReadonlyMap<string, Entry>, head: (p: string) => Promise<NodeRecord | null>): Promise<PlannedChange[]> {
  const changes: PlannedChange[] = [];
  const paths = [...overlay.keys()].sort();
  for (const p of paths) {
    const o = overlay.get(p)!;
    const n = await head(p);
    const live = n && !n.deleted ? n : null;
    const expectVersion = n?.version ?? 0;
    if (o.kind === 'deleted') {
      if (live)
        changes.push({
          path: p,
          expectVersion,
          op: 'delete',
          state: { kind: 'deleted', was: live.kind },
        });
    } else if (o.kind === 'dir') {
      if (!live || live.kind !== 'dir')
        changes.push({
          path: p,
          expectVersion,
          op: 'create',
          state: { kind: 'dir', fileId: newId('f') },
        });
    } else {
      const hash = contentHash(o.bytes);
      if (live?.kind === 'file' && live.blobHash === hash) continue;
      const text = decodeText(o.bytes);
      changes.push({
        path: p,
        expectVersion,
        op: live ? 'update' : 'create',
        state: {
          kind: 'file',
          blob: { hash, size: o.bytes.length, bytes: o.bytes },
          lines: text === null ? null : countLines(text),
          fileId: live?.kind === 'file' ? live.fileId : newId('f'),
        },
      });
    }
  }
  return changes;
}

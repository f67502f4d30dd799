/**
 * The changeset of one bash command (StoreFs.plannedChanges): its overlay against the heads it
 * was based on. Unchanged content is skipped. What `mv` moved keeps its identity, as with the
 * move tool: the entry at the new path takes the old path's fileId (list_versions follows it
 * back through the move), both paths' changes are `move`, and whatever a command writes at the
 * old path afterwards is a new file.
 */
import { contentHash, countLines, decodeText } from '../core/text.js';
import { newId } from '../core/keys.js';
import type { NodeRecord, PlannedChange } from '../store/types.js';
import type { Entry, LiveEntry } from './fs-read.js';

type Head = (p: string) => Promise<NodeRecord | null>;

const isLive = (n: NodeRecord | null): n is NodeRecord => n !== null && !n.deleted;

/** Each moved entry's path → the stored node it is (the origin's head, when live and of its kind). */
async function movedNodes(overlay: ReadonlyMap<string, Entry>, head: Head): Promise<Map<string, NodeRecord>> {
  const moved = new Map<string, NodeRecord>();
  const taken = new Set<string>();
  for (const [p, o] of overlay) {
    if (o.kind === 'deleted' || !o.origin || o.origin === p || taken.has(o.origin)) continue;
    const n = await head(o.origin);
    if (!isLive(n) || n.kind !== o.kind) continue;
    moved.set(p, n);
    taken.add(o.origin);
  }
  return moved;
}

function fileState(bytes: Buffer, fileId: string, hash = contentHash(bytes)): PlannedChange['state'] {
  const text = decodeText(bytes);
  return { kind: 'file', blob: { hash, size: bytes.length, bytes }, lines: text === null ? null : countLines(text), fileId };
}

/** The change at p for a live entry that is not a moved one; null when nothing changed. */
function written(p: string, o: LiveEntry, own: NodeRecord | null, live: boolean, expectVersion: number): PlannedChange | null {
  if (o.kind === 'dir') {
    if (own?.kind === 'dir') return null;
    return { path: p, expectVersion, op: 'create', state: { kind: 'dir', fileId: newId('f') } };
  }
  const hash = contentHash(o.bytes);
  if (own?.kind === 'file' && own.blobHash === hash) return null;
  return { path: p, expectVersion, op: live ? 'update' : 'create', state: fileState(o.bytes, own?.kind === 'file' ? own.fileId : newId('f'), hash) };
}

export async function planChanges(overlay: ReadonlyMap<string, Entry>, head: Head): Promise<PlannedChange[]> {
  const moved = await movedNodes(overlay, head);
  const movedAway = new Set([...moved.values()].map((n) => n.path));
  const changes: PlannedChange[] = [];
  for (const p of [...overlay.keys()].sort()) {
    const o = overlay.get(p)!;
    const n = await head(p);
    const live = isLive(n) ? n : null;
    const expectVersion = n?.version ?? 0;
    if (o.kind === 'deleted') {
      if (live) changes.push({ path: p, expectVersion, op: movedAway.has(p) ? 'move' : 'delete', state: { kind: 'deleted', was: live.kind } });
      continue;
    }
    const from = moved.get(p);
    if (from) {
      const state: PlannedChange['state'] = o.kind === 'dir' ? { kind: 'dir', fileId: from.fileId } : fileState(o.bytes, from.fileId);
      changes.push({ path: p, expectVersion, op: 'move', state });
      continue;
    }
    // The file that was here moved away: what is here now is another one.
    const change = written(p, o, live && !movedAway.has(p) ? live : null, live !== null, expectVersion);
    if (change) changes.push(change);
  }
  return changes;
}

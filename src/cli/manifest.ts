/**
 * What `afs push` and `afs pull` last synced: `.afs-sync.json` in the local directory, per service
 * and remote directory, each file's remote version and sha256 when both sides last agreed. From it
 * a push knows which remote versions it has seen (and sends them as write_files' expectedVersion,
 * the service's compare-and-swap), and a pull knows which local files changed since (README.md,
 * "The afs command line").
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CommandFailed } from './context.js';

export const MANIFEST_NAME = '.afs-sync.json';

export interface Synced {
  version: number;
  sha256: string;
}

/** A remote file as a sync sees it. hash '' when unknown (it then always counts as different). */
export interface RemoteFile {
  version: number;
  hash: string;
}

interface ManifestFile {
  format: 1;
  targets: Record<string, { files: Record<string, Synced>; syncedAt: string }>;
}

export interface Manifest {
  /** relative path → what was in sync; missing: never synced with this target. */
  files: Map<string, Synced>;
  save(files: Map<string, Synced>): Promise<void>;
}

/** The manifest of `dir` for one service and remote directory (empty the first time). */
export async function openManifest(dir: string, baseUrl: string, remote: string): Promise<Manifest> {
  const path = join(dir, MANIFEST_NAME);
  const target = `${baseUrl.replace(/\/+$/, '')} ${remote}`;
  let data: ManifestFile = { format: 1, targets: {} };
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as ManifestFile;
    if (parsed && typeof parsed.targets === 'object') data = parsed;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT' && !(e instanceof SyntaxError)) throw e;
  }
  const files = new Map(Object.entries(data.targets[target]?.files ?? {}));
  return {
    files,
    async save(next) {
      data.targets[target] = { files: Object.fromEntries([...next].sort(([a], [b]) => (a < b ? -1 : 1))), syncedAt: new Date().toISOString() };
      const tmp = `${path}.${process.pid}.tmp`;
      await writeFile(tmp, `${JSON.stringify(data, null, 1)}\n`);
      await rename(tmp, path);
    },
  };
}

export interface Conflict {
  path: string;
  why: string;
}

/** A push or pull refused because it would overwrite what the caller has not seen: exit 1, each file named. */
export class SyncConflict extends CommandFailed {
  constructor(
    readonly verb: 'push' | 'pull',
    readonly conflicts: Conflict[],
    remote: string,
    dir: string,
  ) {
    const shown = conflicts.slice(0, 50).map((c) => `  ${c.path}: ${c.why}`);
    if (conflicts.length > 50) shown.push(`  … and ${conflicts.length - 50} more`);
    const head =
      verb === 'push'
        ? `push refused: ${conflicts.length} file(s) changed on the service since your last pull or push of ${dir} (nothing was sent):`
        : `pull refused: ${conflicts.length} local file(s) changed since your last pull or push (nothing was written):`;
    const next =
      verb === 'push'
        ? `Pull them first (\`afs pull ${remote} ${dir}\`; it refuses to overwrite your local edits), merge, then push; or \`afs push --force\` to overwrite the service's versions.`
        : `Push them first, or move them aside, then pull; or \`afs pull --force\` to overwrite your local files.`;
    super(`${head}\n${shown.join('\n')}\n${next}`);
  }
}

/**
 * Files a push may not overwrite: the remote head is not the version last synced (changed or
 * deleted since), or the file exists remotely but was never synced here.
 */
export function pushConflicts(rels: string[], remote: Map<string, RemoteFile>, synced: Map<string, Synced>): Conflict[] {
  const out: Conflict[] = [];
  for (const rel of rels) {
    const r = remote.get(rel);
    const seen = synced.get(rel);
    if (seen && r && r.version !== seen.version) out.push({ path: rel, why: `the service has v${r.version}; you last synced v${seen.version}` });
    else if (seen && !r) out.push({ path: rel, why: `deleted on the service since you synced v${seen.version}` });
    else if (!seen && r) out.push({ path: rel, why: `exists on the service (v${r.version}) and was never pulled here` });
  }
  return out;
}

/** Local files a pull would overwrite that changed since the last sync (or were never synced). */
export function pullConflicts(rels: string[], local: Map<string, string>, remote: Map<string, RemoteFile>, synced: Map<string, Synced>): Conflict[] {
  const out: Conflict[] = [];
  for (const rel of rels) {
    const hash = local.get(rel);
    if (hash === undefined) continue;
    const seen = synced.get(rel);
    if (seen?.sha256 === hash) continue;
    const at = `the service has v${remote.get(rel)?.version ?? '?'}`;
    out.push({
      path: rel,
      why: seen ? `edited locally since you synced v${seen.version}; ${at}` : `a local file never synced with the service; ${at}`,
    });
  }
  return out;
}

/**
 * `afs push <dir> <remote>` and `afs pull <remote> <dir>`: only files whose sha256 differs cross
 * the wire. Neither deletes files missing on the other side.
 *
 * Remote hashes come from one `bash` call (`find … -exec sha256sum`): the service has no tool that
 * lists a tree with hashes (list gives sizes only), and one command beats a stat per file. When its
 * output is cut (very big trees) it falls back to list + stat.
 *
 * A push is one changeset on the target: `write_files` writes up to 1,000 files in one changeset,
 * so a push that fits one call (MAX_BATCH_FILES, BATCH_BYTES of JSON) is one call. A bigger push
 * fills a staging directory with several such calls, and one last `bash` command copies it onto
 * the target and removes it, so the target's files still change in exactly one changeset. The
 * staging directory is inside the target (`.afs-push-…`), so a key limited to a folder can push
 * into it; hash listings skip such directories.
 */
import { createHash, randomBytes } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, posix, relative, sep } from 'node:path';
import { ToolError, type AgentFiles } from '../client/index.js';
import { CommandFailed, mapLimit, UsageError } from './context.js';
import { MANIFEST_NAME, openManifest, pullConflicts, pushConflicts, SyncConflict, type RemoteFile, type Synced } from './manifest.js';
import { startProgress } from './progress.js';

/** write_files takes at most 1,000 files a call. */
const MAX_BATCH_FILES = 1000;
/** Body per write_files call: well under the service's 16 MiB request limit (MAX_BODY_BYTES). */
const BATCH_BYTES = 8 * 1024 * 1024;
const CALL_CONCURRENCY = 4;

export interface SyncSummary {
  sent: number;
  skipped: number;
  bytes: number;
  seconds: number;
  changesetId?: string | null;
}

export interface SyncOptions {
  /** Overwrite what changed on the other side since the last sync. */
  force?: boolean;
}

/** Single-quoted for the remote shell. */
export const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

const elapsed = (started: number) => Math.round(performance.now() - started) / 1000;

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface LocalFile {
  rel: string;
  abs: string;
  hash: string;
  size: number;
}

/** Every regular file under `dir` (symlinks and specials skipped), with paths relative to it in posix form. */
async function walkLocal(dir: string, mustExist: boolean): Promise<LocalFile[]> {
  const st = await stat(dir).catch(() => null);
  if (!st && mustExist) throw new UsageError(`${dir}: no such directory.`);
  if (!st) return [];
  if (!st.isDirectory()) throw new UsageError(`${dir} is not a directory.`);
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  // The manifest (and its temporary file) is the sync's own, not the user's.
  const ours = (e: { name: string; parentPath: string }) => relative(dir, e.parentPath) === '' && e.name.startsWith(MANIFEST_NAME);
  const files = entries.filter((e) => e.isFile() && !ours(e)).map((e) => join(e.parentPath, e.name));
  return mapLimit(files, 32, async (abs) => {
    const bytes = await readFile(abs);
    return { abs, rel: relative(dir, abs).split(sep).join('/'), hash: sha256(bytes), size: bytes.length };
  });
}

const STAGING_PREFIX = '.afs-push-';
const HASH_LINE = /^([0-9a-f]{64}) [ *]\.\/(.*)$/;

/** relative path → version and sha256 of every file under `remote`. */
export async function remoteFiles(client: AgentFiles, remote: string, mustExist: boolean): Promise<Map<string, RemoteFile>> {
  const [hashes, versions] = await Promise.all([remoteHashes(client, remote, mustExist), remoteVersions(client, remote)]);
  if (hashes instanceof Map) {
    const out = new Map<string, RemoteFile>();
    // A file written between the two calls may show in one only: it then counts as changed.
    for (const [rel, version] of versions) out.set(rel, { version, hash: hashes.get(rel) ?? '' });
    return out;
  }
  return statFiles(client, remote, [...versions.keys()]);
}

const relativeTo = (remote: string) => {
  const base = remote.endsWith('/') ? remote : `${remote}/`;
  return (p: string) => p.slice(base.length);
};

/** relative path → version, from list (recursive, every page). Empty when there is no such directory. */
async function remoteVersions(client: AgentFiles, remote: string): Promise<Map<string, number>> {
  const rel = relativeTo(remote);
  const out = new Map<string, number>();
  try {
    for (let cursor: string | undefined; ;) {
      const page = await client.list({ path: remote, recursive: true, ...(cursor ? { cursor } : {}) });
      for (const e of page.entries) if (e.type === 'file' && !rel(e.path).startsWith(STAGING_PREFIX)) out.set(rel(e.path), e.version);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
  } catch (e) {
    // remoteHashes says what is wrong with a missing or non-directory remote.
    if (e instanceof ToolError && (e.code === 'NOT_FOUND' || e.code === 'NOT_A_DIRECTORY')) return out;
    throw e;
  }
  return out;
}

/** relative path → sha256 of every file under `remote` ('' when unknown), or 'cut' when bash's output was cut. */
async function remoteHashes(client: AgentFiles, remote: string, mustExist: boolean): Promise<Map<string, string> | 'cut'> {
  const q = shellQuote(remote);
  const r = await client.bash({
    command: `if [ -d ${q} ]; then cd ${q} && find . -type f -exec sha256sum {} +; elif [ -e ${q} ]; then echo NOT_A_DIRECTORY; else echo MISSING; fi`,
  });
  if (r.stdout.startsWith('NOT_A_DIRECTORY')) throw new UsageError(`${remote} is a file on the service, not a directory.`);
  if (r.stdout.startsWith('MISSING')) {
    if (mustExist) throw new CommandFailed(`no directory ${remote} on the service (\`afs ls\` shows what there is).`);
    return new Map();
  }
  if (r.truncated || r.exitCode !== 0) return 'cut';
  const map = new Map<string, string>();
  for (const line of r.stdout.split('\n')) {
    const m = HASH_LINE.exec(line);
    // sha256sum escapes odd names (a leading backslash): such a file counts as changed.
    if (m && !m[2]!.startsWith(STAGING_PREFIX)) map.set(m[2]!, m[1]!);
  }
  return map;
}

/** A stat per file: version and hash together. */
async function statFiles(client: AgentFiles, remote: string, rels: string[]): Promise<Map<string, RemoteFile>> {
  const found = await mapLimit(rels, CALL_CONCURRENCY, async (rel) => {
    const st = await client.stat({ path: posix.join(remote, rel) });
    return { version: st.version, hash: (st.contentHash ?? '').replace(/^sha256:/, '') };
  });
  return new Map(rels.map((rel, i) => [rel, found[i]!]));
}

interface Upload {
  rel: string;
  bytes: Buffer;
}

/** A write_files entry: text as it is, anything else in base64. */
function fileEntry(path: string, bytes: Buffer): { path: string; content: string; encoding: 'utf8' | 'base64' } {
  const text = isUtf8(bytes) && !bytes.includes(0);
  return text ? { path, content: bytes.toString('utf8'), encoding: 'utf8' } : { path, content: bytes.toString('base64'), encoding: 'base64' };
}

/** Uploads in write_files calls: at most MAX_BATCH_FILES files and about BATCH_BYTES of body each. */
function batches(uploads: Upload[]): Upload[][] {
  const out: Upload[][] = [];
  let current: Upload[] = [];
  let size = 0;
  for (const u of uploads) {
    // base64 grows by 4/3 and JSON escapes some text: the estimate errs high.
    const cost = Math.ceil(u.bytes.length * 1.4) + u.rel.length + 64;
    if (current.length && (current.length >= MAX_BATCH_FILES || size + cost > BATCH_BYTES)) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(u);
    size += cost;
  }
  if (current.length) out.push(current);
  return out;
}

/** What write_files must find on the service before it writes a file: the version last synced, or nothing. */
type Precondition = { expectedVersion: number } | { mode: 'create' } | Record<string, never>;

/** One write_files call; each written file's new version. */
async function writeBatch(client: AgentFiles, root: string, batch: Upload[], pre: (rel: string) => Precondition): Promise<WriteResult> {
  const r = await client.writeFiles({ files: batch.map((u) => ({ ...fileEntry(posix.join(root, u.rel), u.bytes), ...pre(u.rel) })) });
  const rel = relativeTo(root);
  return { changesetId: r.changesetId, versions: new Map(r.files.map((f) => [rel(f.path), f.version])) };
}

interface WriteResult {
  changesetId: string | null;
  versions: Map<string, number>;
}

/** The service's EDIT_CONFLICT of a write_files call (its compare-and-swap lost a race), as the CLI's conflict list. */
function serviceConflict(e: unknown, remote: string, dir: string): unknown {
  if (!(e instanceof ToolError) || e.code !== 'EDIT_CONFLICT' || !Array.isArray(e.details.conflicts)) return e;
  const rel = relativeTo(remote);
  const list = (e.details.conflicts as { path: string; current: { version: number; deleted: boolean } | null }[]).map((c) => ({
    path: rel(c.path),
    why: c.current
      ? `the service has v${c.current.version}${c.current.deleted ? ' (deleted)' : ''}, changed since your last sync`
      : 'gone from the service',
  }));
  return new SyncConflict('push', list, remote, dir);
}

export async function push(client: AgentFiles, dir: string, remote: string, opts: SyncOptions = {}): Promise<SyncSummary> {
  const started = performance.now();
  const [local, remoteMap, manifest] = await Promise.all([
    walkLocal(dir, true),
    remoteFiles(client, remote, false),
    openManifest(dir, client.baseUrl, remote),
  ]);
  const changed = local.filter((f) => remoteMap.get(f.rel)?.hash !== f.hash);
  if (!opts.force) {
    const conflicts = pushConflicts(
      changed.map((f) => f.rel),
      remoteMap,
      manifest.files,
    );
    if (conflicts.length) throw new SyncConflict('push', conflicts, remote, dir);
  }
  const pre = (rel: string): Precondition => {
    if (opts.force) return {};
    const seen = manifest.files.get(rel);
    return seen ? { expectedVersion: seen.version } : { mode: 'create' };
  };
  const uploads: Upload[] = await mapLimit(changed, 32, async (f) => ({ rel: f.rel, bytes: await readFile(f.abs) }));
  const totalBytes = uploads.reduce((n, u) => n + u.bytes.length, 0);
  const progress = startProgress('push', uploads.length, totalBytes);
  let written: WriteResult = { changesetId: null, versions: new Map() };
  try {
    const calls = batches(uploads);
    if (calls.length === 1) {
      written = await writeBatch(client, remote, calls[0]!, pre).catch((e: unknown) => {
        throw serviceConflict(e, remote, dir);
      });
      progress.advance(uploads.length, totalBytes);
    } else if (calls.length > 1) {
      const check = opts.force ? null : () => recheck(client, remote, dir, uploads, manifest.files);
      written = await pushStaged(client, remote, calls, progress.advance, check);
    }
  } finally {
    progress.stop();
  }
  const next = new Map(manifest.files);
  for (const f of local) {
    const version = written.versions.get(f.rel) ?? (remoteMap.get(f.rel)?.hash === f.hash ? remoteMap.get(f.rel)!.version : undefined);
    if (version !== undefined) next.set(f.rel, { version, sha256: f.hash });
  }
  await manifest.save(next);
  return {
    sent: uploads.length,
    skipped: local.length - uploads.length,
    bytes: totalBytes,
    seconds: elapsed(started),
    changesetId: written.changesetId,
  };
}

/** Before a staged push's cp (no compare-and-swap there): the remote versions again, as the first look found them. */
async function recheck(client: AgentFiles, remote: string, dir: string, uploads: Upload[], synced: Map<string, Synced>): Promise<void> {
  const now = await remoteFiles(client, remote, false);
  const conflicts = pushConflicts(
    uploads.map((u) => u.rel),
    now,
    synced,
  );
  if (conflicts.length) throw new SyncConflict('push', conflicts, remote, dir);
}

async function pushStaged(
  client: AgentFiles,
  remote: string,
  calls: Upload[][],
  advance: (files: number, bytes: number) => void,
  check: (() => Promise<void>) | null,
): Promise<WriteResult> {
  const staging = posix.join(remote, `${STAGING_PREFIX}${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`);
  let changesetId: string | null;
  try {
    await mapLimit(calls, CALL_CONCURRENCY, async (batch) => {
      await writeBatch(client, staging, batch, () => ({}));
      advance(
        batch.length,
        batch.reduce((n, u) => n + u.bytes.length, 0),
      );
    });
    await check?.();
    // One command, so one changeset: the target's files change together or not at all.
    const q = shellQuote(remote);
    changesetId = await runBash(client, `mkdir -p ${q} && cp -r ${shellQuote(staging)}/. ${q}/ && rm -rf ${shellQuote(staging)}`);
  } catch (e) {
    await client.bash({ command: `rm -rf ${shellQuote(staging)}` }).catch(() => undefined);
    throw e;
  }
  // cp answers no versions: the listing after it does.
  const sent = new Set(calls.flat().map((u) => u.rel));
  const versions = new Map<string, number>();
  for (const [rel, f] of await remoteFiles(client, remote, false)) if (sent.has(rel)) versions.set(rel, f.version);
  return { changesetId, versions };
}

/** Runs a command that must succeed; its changeset id. */
async function runBash(client: AgentFiles, command: string): Promise<string | null> {
  const r = await client.bash({ command });
  if (r.exitCode !== 0) {
    // The service answered; the shell command did not succeed (a name clash with a remote file, say).
    throw new CommandFailed(
      `a push command failed (exit ${r.exitCode}): ${r.stderr.trim().slice(0, 500)}\n  Fix the cause and push again: files already sent are skipped.`,
    );
  }
  return r.changesetId;
}

export async function pull(client: AgentFiles, remote: string, dir: string, opts: SyncOptions = {}): Promise<SyncSummary> {
  const started = performance.now();
  const [remoteMap, local, manifest] = await Promise.all([
    remoteFiles(client, remote, true),
    walkLocal(dir, false),
    openManifest(dir, client.baseUrl, remote),
  ]);
  const localMap = new Map(local.map((f) => [f.rel, f.hash]));
  const wanted = [...remoteMap.entries()]
    .filter(([rel, f]) => f.hash === '' || localMap.get(rel) !== f.hash)
    .map(([rel]) => rel)
    // Never write outside `dir`, whatever names the remote tree holds; nor over the manifest.
    .filter((rel) => !rel.split('/').some((s) => s === '..' || s === '') && !rel.startsWith(MANIFEST_NAME));
  if (!opts.force) {
    const conflicts = pullConflicts(wanted, localMap, remoteMap, manifest.files);
    if (conflicts.length) throw new SyncConflict('pull', conflicts, remote, dir);
  }
  const next = new Map(manifest.files);
  for (const [rel, f] of remoteMap) if (localMap.get(rel) === f.hash) next.set(rel, { version: f.version, sha256: f.hash });
  const progress = startProgress('pull', wanted.length, 0);
  let bytes = 0;
  try {
    await mapLimit(wanted, CALL_CONCURRENCY, async (rel) => {
      // base64 always answers the whole file, byte for byte (utf8 reads come in pages of lines).
      const r = await client.read({ path: posix.join(remote, rel), encoding: 'base64' });
      const data = Buffer.from(r.content, 'base64');
      const target = join(dir, ...rel.split('/'));
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, data);
      next.set(rel, { version: r.version, sha256: sha256(data) });
      bytes += data.length;
      progress.advance(1, data.length);
    });
  } finally {
    progress.stop();
  }
  await mkdir(dir, { recursive: true });
  await manifest.save(next);
  return { sent: wanted.length, skipped: remoteMap.size - wanted.length, bytes, seconds: elapsed(started) };
}

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
import type { AgentFiles } from '../client/index.js';
import { CommandFailed, mapLimit, UsageError } from './context.js';
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
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  return mapLimit(files, 32, async (abs) => {
    const bytes = await readFile(abs);
    return { abs, rel: relative(dir, abs).split(sep).join('/'), hash: sha256(bytes), size: bytes.length };
  });
}

const STAGING_PREFIX = '.afs-push-';
const HASH_LINE = /^([0-9a-f]{64}) [ *]\.\/(.*)$/;

/** relative path → sha256 of every file under `remote` ('' when unknown: such a file is always transferred). */
export async function remoteHashes(client: AgentFiles, remote: string, mustExist: boolean): Promise<Map<string, string>> {
  const q = shellQuote(remote);
  const r = await client.bash({
    command: `if [ -d ${q} ]; then cd ${q} && find . -type f -exec sha256sum {} +; elif [ -e ${q} ]; then echo NOT_A_DIRECTORY; else echo MISSING; fi`,
  });
  if (r.stdout.startsWith('NOT_A_DIRECTORY')) throw new UsageError(`${remote} is a file on the service, not a directory.`);
  if (r.stdout.startsWith('MISSING')) {
    if (mustExist) throw new CommandFailed(`no directory ${remote} on the service (\`afs ls\` shows what there is).`);
    return new Map();
  }
  if (r.truncated || r.exitCode !== 0) return statHashes(client, remote);
  const map = new Map<string, string>();
  for (const line of r.stdout.split('\n')) {
    const m = HASH_LINE.exec(line);
    // sha256sum escapes odd names (a leading backslash): such a file counts as changed.
    if (m && !m[2]!.startsWith(STAGING_PREFIX)) map.set(m[2]!, m[1]!);
  }
  return map;
}

async function statHashes(client: AgentFiles, remote: string): Promise<Map<string, string>> {
  const files: string[] = [];
  for (let cursor: string | undefined; ;) {
    const page = await client.list({ path: remote, recursive: true, ...(cursor ? { cursor } : {}) });
    for (const e of page.entries) if (e.type === 'file') files.push(e.path);
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  const hashes = await mapLimit(files, CALL_CONCURRENCY, async (p) => ((await client.stat({ path: p })).contentHash ?? '').replace(/^sha256:/, ''));
  const base = remote.endsWith('/') ? remote : `${remote}/`;
  const pairs: [string, string][] = files.map((p, i) => [p.slice(base.length), hashes[i]!]);
  return new Map(pairs.filter(([rel]) => !rel.startsWith(STAGING_PREFIX)));
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

async function writeBatch(client: AgentFiles, root: string, batch: Upload[]): Promise<string | null> {
  const r = await client.writeFiles({ files: batch.map((u) => fileEntry(posix.join(root, u.rel), u.bytes)) });
  return r.changesetId;
}

export async function push(client: AgentFiles, dir: string, remote: string): Promise<SyncSummary> {
  const started = performance.now();
  const [local, remoteMap] = await Promise.all([walkLocal(dir, true), remoteHashes(client, remote, false)]);
  const changed = local.filter((f) => remoteMap.get(f.rel) !== f.hash);
  const uploads: Upload[] = await mapLimit(changed, 32, async (f) => ({ rel: f.rel, bytes: await readFile(f.abs) }));
  const totalBytes = uploads.reduce((n, u) => n + u.bytes.length, 0);
  const progress = startProgress('push', uploads.length, totalBytes);
  let changesetId: string | null = null;
  try {
    const calls = batches(uploads);
    if (calls.length === 1) {
      changesetId = await writeBatch(client, remote, calls[0]!);
      progress.advance(uploads.length, totalBytes);
    } else if (calls.length > 1) {
      changesetId = await pushStaged(client, remote, calls, progress.advance);
    }
  } finally {
    progress.stop();
  }
  return {
    sent: uploads.length,
    skipped: local.length - uploads.length,
    bytes: totalBytes,
    seconds: elapsed(started),
    changesetId,
  };
}

async function pushStaged(
  client: AgentFiles,
  remote: string,
  calls: Upload[][],
  advance: (files: number, bytes: number) => void,
): Promise<string | null> {
  const staging = posix.join(remote, `${STAGING_PREFIX}${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`);
  try {
    await mapLimit(calls, CALL_CONCURRENCY, async (batch) => {
      await writeBatch(client, staging, batch);
      advance(
        batch.length,
        batch.reduce((n, u) => n + u.bytes.length, 0),
      );
    });
    // One command, so one changeset: the target's files change together or not at all.
    const q = shellQuote(remote);
    return await runBash(client, `mkdir -p ${q} && cp -r ${shellQuote(staging)}/. ${q}/ && rm -rf ${shellQuote(staging)}`);
  } catch (e) {
    await client.bash({ command: `rm -rf ${shellQuote(staging)}` }).catch(() => undefined);
    throw e;
  }
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

export async function pull(client: AgentFiles, remote: string, dir: string): Promise<SyncSummary> {
  const started = performance.now();
  const [remoteMap, local] = await Promise.all([remoteHashes(client, remote, true), walkLocal(dir, false)]);
  const localMap = new Map(local.map((f) => [f.rel, f.hash]));
  const wanted = [...remoteMap.entries()]
    .filter(([rel, hash]) => hash === '' || localMap.get(rel) !== hash)
    .map(([rel]) => rel)
    // Never write outside `dir`, whatever names the remote tree holds.
    .filter((rel) => !rel.split('/').some((s) => s === '..' || s === ''));
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
      bytes += data.length;
      progress.advance(1, data.length);
    });
  } finally {
    progress.stop();
  }
  return { sent: wanted.length, skipped: remoteMap.size - wanted.length, bytes, seconds: elapsed(started) };
}

/**
 * Restoring an agent archive (format.ts) into this deployment's store, either backend: a new agent
 * whose history is the archive's — every version with its number, time, operation and key, every
 * changeset with its seq, id and time — and a new full-access key (keys are never exported, only
 * their metadata). The profile is restored; posts and comments stay in the archive as a record
 * (they belong to communities and threads of the deployment they were written in).
 *
 * The archive is read as a stream, one entry at a time, and written in small batches (rows are
 * invisible until store.finishImport inserts the agent row: store/transfer.ts), so memory holds a
 * batch, one history chunk and a head per path, and no step holds the event loop for long. Every
 * content is checked against its hash; every version must name a content and a changeset the
 * archive holds; end.json's counts must match what was read. Any failure removes what was written.
 */
import { createHash } from 'node:crypto';
import { ToolError } from '../core/errors.js';
import { newId, newTimeOrderedId } from '../core/keys.js';
import { checkAgentName } from '../core/names.js';
import { readTar, type ReadEntry } from '../core/tar.js';
import { ENTRY_CHUNK } from '../store/commit-program.js';
import type { ProfilePatch } from '../store/profiles.js';
import type { ExportVersion, ImportChangeset, ImportNode } from '../store/transfer.js';
import { ENTRY_INLINE, type ChangesetEntry, type Store } from '../store/types.js';
import { createAccount } from '../tools/accounts.js';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, MAX_ENTRY_BYTES, type EndRecord, type Manifest } from './format.js';

export class ImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportError';
  }
}

export interface ImportResult {
  agent: { id: string; name: string; slug: string };
  apiKey: string;
  /** What the archive held (end.json), as checked against what was read. */
  counts: EndRecord;
  /** True when this database already had the archive's changeset ids (an import into the source itself): new ids were given. */
  renamedChangesets: boolean;
  source: Manifest['agent'];
}

const VERSION_BATCH = 500;
const CHANGESET_BATCH = 200;
const BLOB_BATCH_BYTES = 16 * 1024 * 1024;
const BLOB_BATCH_COUNT = 64;
const NODE_BATCH = 1000;

interface ChangesetLine {
  id: string;
  seq: number;
  createdAtMs: number;
  keyId: string | null;
  keyLabel: string | null;
  tool: string;
  entryCount: number;
  root: string | null;
  entries: ChangesetEntry[];
}

interface VersionLine {
  path: string;
  version: number;
  kind: 'file' | 'dir';
  op: ExportVersion['op'];
  deleted: boolean;
  fileId: string;
  contentHash: string | null;
  size: number;
  lines: number | null;
  updatedAtMs: number;
  changesetId: string;
  keyId: string | null;
  keyLabel: string | null;
  copiedFrom: ExportVersion['copiedFrom'];
}

const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

function jsonLines<T>(entry: ReadEntry): T[] {
  const text = entry.data.toString('utf8');
  const out: T[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      throw new ImportError(`${entry.name} holds a line that is not JSON: the archive is damaged.`);
    }
  }
  return out;
}

function parseJson<T>(entry: ReadEntry): T {
  try {
    return JSON.parse(entry.data.toString('utf8')) as T;
  } catch {
    throw new ImportError(`${entry.name} is not JSON: the archive is damaged.`);
  }
}

/** What a changeset row keeps: the first ENTRY_INLINE entries inline, all of them in chunks when there are more. */
function changesetRows(c: ChangesetLine, id: string): ImportChangeset {
  const big = c.entries.length > ENTRY_INLINE;
  const chunks = [];
  if (big)
    for (let k = 0; k < c.entries.length; k += ENTRY_CHUNK)
      chunks.push({ firstPath: c.entries[k]!.path, entries: JSON.stringify(c.entries.slice(k, k + ENTRY_CHUNK)) });
  return {
    record: {
      id,
      seq: c.seq,
      createdAtMs: c.createdAtMs,
      keyId: c.keyId,
      keyLabel: c.keyLabel,
      tool: c.tool,
      entryCount: c.entryCount,
      root: c.root,
    },
    inline: big ? c.entries.slice(0, ENTRY_INLINE) : c.entries,
    chunks,
  };
}

class Importer {
  readonly agentId = newId('agt');
  manifest: Manifest | null = null;
  end: EndRecord | null = null;
  profile: ProfilePatch | null = null;
  /** Old changeset id → the id stored here (the same unless this database already has it). */
  private readonly changesetIds = new Map<string, string>();
  renamed: boolean | null = null;
  lastSeq = 0;
  /** Contents stored, by hash. */
  private readonly contents = new Set<string>();
  storageBytes = 0;
  private blobs: Array<{ hash: string; bytes: Buffer }> = [];
  private blobBytes = 0;
  private versions: ExportVersion[] = [];
  readonly heads = new Map<string, ImportNode>();
  /** tree/ files: path → the hash of what the archive holds there. */
  readonly tree = new Map<string, string>();
  readonly read = { changesets: 0, versions: 0, purged: 0, posts: 0, comments: 0 };

  constructor(private readonly store: Store) {}

  async entry(e: ReadEntry): Promise<void> {
    if (!this.manifest) {
      if (e.name !== 'manifest.json') throw new ImportError('This is not an agent archive: it does not start with manifest.json.');
      const m = parseJson<Manifest>(e);
      if (m.format !== ARCHIVE_FORMAT || m.version !== ARCHIVE_VERSION) {
        throw new ImportError(
          `Unsupported archive: format ${JSON.stringify(m.format)} version ${m.version} (this service reads ${ARCHIVE_FORMAT} ${ARCHIVE_VERSION}).`,
        );
      }
      this.manifest = m;
      return;
    }
    if (this.end) throw new ImportError(`${e.name} comes after end.json: the archive is damaged.`);
    const name = e.name;
    if (e.type === 'directory') return; // directories come from the versions
    if (name.startsWith('tree/')) {
      // Checked against the path's head version once the versions are read (checkComplete).
      const hash = sha256(e.data);
      this.tree.set(name.slice('tree'.length), hash);
      return this.content(e.data, null, hash);
    }
    if (name.startsWith('blobs/')) return this.content(e.data, `sha256:${name.slice('blobs/'.length)}`);
    if (name.startsWith('history/changesets-')) return this.changesets(jsonLines<ChangesetLine>(e));
    if (name.startsWith('history/versions-')) return this.versionLines(jsonLines<VersionLine>(e));
    if (name.startsWith('history/purged-')) return this.purged(jsonLines<{ path: string; version: number; purgedAtMs: number }>(e));
    if (name === 'account/profile.json') {
      this.profile = parseJson<ProfilePatch>(e);
      return;
    }
    if (name.startsWith('social/posts-')) this.read.posts += jsonLines(e).length;
    else if (name.startsWith('social/comments-')) this.read.comments += jsonLines(e).length;
    else if (name === 'end.json') this.end = parseJson<EndRecord>(e);
  }

  private async content(bytes: Buffer, named: string | null, known?: string): Promise<void> {
    const hash = known ?? sha256(bytes);
    if (named !== null && named !== hash) throw new ImportError(`Content ${named} does not hash to its name: the archive is damaged.`);
    if (this.contents.has(hash)) return;
    this.contents.add(hash);
    this.blobs.push({ hash, bytes });
    this.blobBytes += bytes.length;
    if (this.blobBytes >= BLOB_BATCH_BYTES || this.blobs.length >= BLOB_BATCH_COUNT) await this.flushBlobs();
  }

  async flushBlobs(): Promise<void> {
    if (!this.blobs.length) return;
    const batch = this.blobs;
    this.blobs = [];
    this.blobBytes = 0;
    this.storageBytes += await this.store.importBlobs(this.agentId, batch);
  }

  private async changesets(lines: ChangesetLine[]): Promise<void> {
    if (this.renamed === null && lines.length) {
      // The archive's ids are kept unless this database already has them (an import into the
      // deployment it came from): then every changeset gets a new id of the same time.
      this.renamed = (await this.store.existingChangesetIds(lines.slice(0, 100).map((c) => c.id))).size > 0;
    }
    for (let i = 0; i < lines.length; i += CHANGESET_BATCH) {
      const batch = lines.slice(i, i + CHANGESET_BATCH).map((c) => {
        if (c.seq !== this.lastSeq + 1) throw new ImportError(`Changeset seq ${c.seq} follows ${this.lastSeq}: the archive's history has a gap.`);
        this.lastSeq = c.seq;
        const id = this.renamed ? newTimeOrderedId('cs', c.createdAtMs) : c.id;
        this.changesetIds.set(c.id, id);
        return changesetRows(c, id);
      });
      await this.store.importChangesets(this.agentId, batch);
    }
    this.read.changesets += lines.length;
  }

  private async versionLines(lines: VersionLine[]): Promise<void> {
    // Contents named by these versions were written before them (export.ts); the last batch may still be pending.
    await this.flushBlobs();
    for (const v of lines) {
      const changesetId = this.changesetIds.get(v.changesetId);
      if (!changesetId) throw new ImportError(`Version ${v.version} of ${v.path} names changeset ${v.changesetId}, which the archive does not hold.`);
      if (v.contentHash !== null && !this.contents.has(v.contentHash)) {
        throw new ImportError(`Version ${v.version} of ${v.path} names content ${v.contentHash}, which the archive does not hold.`);
      }
      const record: ExportVersion = { ...v, blobHash: v.contentHash, changesetId };
      this.head(record);
      this.versions.push(record);
      if (this.versions.length >= VERSION_BATCH) await this.flushVersions();
    }
    this.read.versions += lines.length;
  }

  /** The node row as the commits would have left it: created when it (re)appeared, the rest from its newest version. */
  private head(v: ExportVersion): void {
    const before = this.heads.get(v.path);
    if (before && before.version >= v.version) throw new ImportError(`Versions of ${v.path} are out of order in the archive.`);
    const createdAtMs = !before || (before.deleted && !v.deleted) ? v.updatedAtMs : before.createdAtMs;
    this.heads.set(v.path, {
      path: v.path,
      kind: v.kind,
      deleted: v.deleted,
      version: v.version,
      fileId: v.fileId,
      blobHash: v.blobHash,
      size: v.size,
      lines: v.lines,
      createdAtMs,
      updatedAtMs: v.updatedAtMs,
      updatedByKeyId: v.keyId,
      updatedByLabel: v.keyLabel,
      purgedAtMs: null,
    });
  }

  async flushVersions(): Promise<void> {
    if (!this.versions.length) return;
    const batch = this.versions;
    this.versions = [];
    await this.store.importVersions(this.agentId, batch);
  }

  private purged(lines: Array<{ path: string; version: number; purgedAtMs: number }>): void {
    for (const p of lines) {
      this.read.purged++;
      if (this.heads.has(p.path)) continue; // written again after the purge: its versions say it all
      this.heads.set(p.path, {
        path: p.path,
        kind: 'file',
        deleted: true,
        version: p.version,
        fileId: '',
        blobHash: null,
        size: 0,
        lines: null,
        createdAtMs: p.purgedAtMs,
        updatedAtMs: p.purgedAtMs,
        updatedByKeyId: null,
        updatedByLabel: null,
        purgedAtMs: p.purgedAtMs,
      });
    }
  }
}

/** Checks that the archive was read to its end and holds what end.json says. */
function checkComplete(im: Importer): EndRecord {
  if (!im.manifest) throw new ImportError('The archive is empty.');
  const end = im.end;
  if (!end) throw new ImportError('The archive has no end.json: it is truncated (download it again).');
  const mismatch = (
    [
      ['changesets', im.read.changesets],
      ['versions', im.read.versions],
      ['purged', im.read.purged],
      ['posts', im.read.posts],
      ['comments', im.read.comments],
    ] as const
  ).find(([k, n]) => end[k] !== n);
  if (mismatch) throw new ImportError(`end.json says ${end[mismatch[0]]} ${mismatch[0]}, the archive holds ${mismatch[1]}: it is damaged.`);
  // The tree is a copy of the head versions' contents: each must be exactly its path's head.
  if (im.tree.size !== end.treeFiles)
    throw new ImportError(`end.json says ${end.treeFiles} files in tree/, the archive holds ${im.tree.size}: it is damaged.`);
  for (const [path, hash] of im.tree) {
    const head = im.heads.get(path);
    if (!head || head.deleted || head.blobHash !== hash)
      throw new ImportError(`tree${path} is not the content of ${path}'s last version: the archive is damaged.`);
  }
  return end;
}

async function writeNodes(store: Store, im: Importer): Promise<number> {
  let live = 0;
  let batch: ImportNode[] = [];
  for (const n of im.heads.values()) {
    if (!n.deleted) live++;
    batch.push(n);
    if (batch.length >= NODE_BATCH) {
      await store.importNodes(im.agentId, batch);
      batch = [];
    }
  }
  if (batch.length) await store.importNodes(im.agentId, batch);
  return live;
}

/** Inserts the agent row (the import becomes visible), trying slugs as registration does. */
async function finish(store: Store, im: Importer, name: string, nodeCount: number): Promise<{ slug: string; apiKey: string }> {
  const source = im.manifest!.agent;
  const { storageBytes, lastSeq } = im;
  const made = await createAccount(store, {
    id: im.agentId,
    name,
    label: 'imported',
    insert: (slug, key) => store.finishImport({ id: im.agentId, name, slug, createdAtMs: source.createdAtMs, storageBytes, nodeCount, lastSeq }, key),
  });
  return { slug: made.slug, apiKey: made.apiKey };
}

async function applyProfile(store: Store, agentId: string, p: ProfilePatch | null): Promise<void> {
  if (!p) return;
  const patch: ProfilePatch = {};
  if (p.displayName !== undefined) patch.displayName = p.displayName;
  if (typeof p.description === 'string') patch.description = p.description;
  if (Array.isArray(p.tags)) patch.tags = p.tags;
  if (Array.isArray(p.links)) patch.links = p.links;
  if (p.acceptMessages) patch.acceptMessages = p.acceptMessages;
  await store.updateProfile(agentId, patch);
}

/** The name the imported agent gets: `name`, else the archive's; checked as registration checks it. */
function agentName(wanted: string | undefined, source: string): string {
  const parsed = checkAgentName(wanted ?? source);
  if ('error' in parsed) throw new ImportError(`--name: ${parsed.error}`);
  return parsed.name;
}

export async function importArchive(store: Store, source: AsyncIterable<Buffer | string>, opts: { name?: string } = {}): Promise<ImportResult> {
  if (opts.name !== undefined) agentName(opts.name, ''); // a bad --name fails before any reading
  const im = new Importer(store);
  let finished = false;
  try {
    for await (const entry of readTar(source, MAX_ENTRY_BYTES)) await im.entry(entry);
    await im.flushBlobs();
    await im.flushVersions();
    const counts = checkComplete(im);
    const name = agentName(opts.name, im.manifest!.agent.name);
    const nodeCount = await writeNodes(store, im);
    const { slug, apiKey } = await finish(store, im, name, nodeCount);
    finished = true;
    await applyProfile(store, im.agentId, im.profile);
    return { agent: { id: im.agentId, name, slug }, apiKey, counts, renamedChangesets: im.renamed === true, source: im.manifest!.agent };
  } catch (err) {
    // Once the agent row exists the import is whole; only the profile can have failed after it.
    if (!finished) await store.discardAgentRows(im.agentId).catch(() => {});
    if (err instanceof ToolError) throw new ImportError(err.message);
    throw err;
  }
}

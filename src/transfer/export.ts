/**
 * Writing an agent's archive (format.ts) as a stream of buffers, as of one changeset seq: every
 * changeset up to it, every version those changesets made, the head tree they leave, each content
 * once. It reads the store in pages while the agent may keep writing: versions of later changesets
 * are left out, so the archive is the agent as of that seq whenever it is downloaded (a purge in
 * between removes what it purged, as it does from the live history).
 *
 * Memory is bounded by a page of versions, up to BLOB_BATCH_BYTES of contents and one history
 * chunk, plus a set of changeset ids and one of content hashes. No step holds the event loop for
 * long: every page is an await, and a stream consumer (the HTTP response) pulls at its own pace.
 */
import { iso } from '../core/time.js';
import { tarEnd, tarEntry } from '../core/tar.js';
import type { ExportVersion } from '../store/transfer.js';
import type { ChangesetEntry, ChangesetRecord, Store } from '../store/types.js';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, CHUNK_BYTES, blobName, chunkName, treeName, type EndRecord, type Manifest } from './format.js';

const VERSION_PAGE = 1000;
const CHANGESET_PAGE = 500;
const ENTRY_PAGE = 5000;
const BLOB_BATCH_BYTES = 16 * 1024 * 1024;
const BLOB_BATCH_COUNT = 256;

export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveError';
  }
}

export interface ExportSource {
  store: Store;
  agent: { id: string; name: string; slug: string; createdAtMs: number };
  asOfSeq: number;
  baseUrl: string;
  /** The archive's bound: past it the stream fails (the tool refuses ahead by its estimate). */
  maxBytes: number;
}

type Parts = Generator<Buffer, void, undefined>;

/** History as JSON Lines in numbered tar entries of at most CHUNK_BYTES each. */
class Lines {
  private lines: string[] = [];
  private bytes = 0;
  private n = 0;
  count = 0;
  constructor(
    private readonly base: string,
    private readonly mtimeMs: number,
  ) {}

  /** Adds a line; returns the parts of a full chunk when this one filled it. */
  add(value: unknown): Buffer[] {
    const line = JSON.stringify(value) + '\n';
    this.lines.push(line);
    this.bytes += Buffer.byteLength(line);
    this.count++;
    return this.bytes >= CHUNK_BYTES ? this.flush() : [];
  }

  flush(): Buffer[] {
    if (!this.lines.length) return [];
    const data = Buffer.from(this.lines.join(''), 'utf8');
    this.lines = [];
    this.bytes = 0;
    return tarEntry({ name: chunkName(this.base, ++this.n), type: 'file', mtimeMs: this.mtimeMs }, data);
  }
}

function json(name: string, value: unknown, mtimeMs: number): Buffer[] {
  return tarEntry({ name, type: 'file', mtimeMs }, Buffer.from(JSON.stringify(value, null, 2) + '\n', 'utf8'));
}

const changesetLine = (c: ChangesetRecord, entries: ChangesetEntry[]) => ({
  id: c.id,
  seq: c.seq,
  createdAt: iso(c.createdAtMs),
  createdAtMs: c.createdAtMs,
  keyId: c.keyId,
  keyLabel: c.keyLabel,
  tool: c.tool,
  entryCount: c.entryCount,
  root: c.root,
  entries,
});

const versionLine = (v: ExportVersion) => ({
  path: v.path,
  version: v.version,
  kind: v.kind,
  op: v.op,
  deleted: v.deleted,
  fileId: v.fileId,
  contentHash: v.blobHash,
  size: v.size,
  lines: v.lines,
  updatedAt: iso(v.updatedAtMs),
  updatedAtMs: v.updatedAtMs,
  changesetId: v.changesetId,
  keyId: v.keyId,
  keyLabel: v.keyLabel,
  copiedFrom: v.copiedFrom,
});

/** Pages through every version of the agent in (path, version) order. */
async function* allVersions(store: Store, agentId: string): AsyncGenerator<ExportVersion[]> {
  let after: { path: string; version: number } | null = null;
  for (;;) {
    const page = await store.exportVersions(agentId, after, VERSION_PAGE);
    if (page.length) yield page;
    if (page.length < VERSION_PAGE) return;
    const last = page[page.length - 1]!;
    after = { path: last.path, version: last.version };
  }
}

/** Contents fetched in batches bounded by bytes, each written as one tar entry by `name`. */
class ContentQueue {
  private items: Array<{ hash: string; size: number; name: string; mtimeMs: number }> = [];
  private bytes = 0;
  constructor(
    private readonly store: Store,
    private readonly agentId: string,
  ) {}

  add(hash: string, size: number, name: string, mtimeMs: number): boolean {
    this.items.push({ hash, size, name, mtimeMs });
    this.bytes += size;
    return this.bytes >= BLOB_BATCH_BYTES || this.items.length >= BLOB_BATCH_COUNT;
  }

  async drain(): Promise<Buffer[]> {
    if (!this.items.length) return [];
    const items = this.items;
    this.items = [];
    this.bytes = 0;
    const found = await this.store.getBlobs(this.agentId, [...new Set(items.map((i) => i.hash))]);
    const parts: Buffer[] = [];
    for (const i of items) {
      const bytes = found.get(i.hash);
      if (!bytes) throw new ArchiveError(`content ${i.hash} is missing (purged while the export was read?); call export_my_data again.`);
      parts.push(...tarEntry({ name: i.name, type: 'file', mtimeMs: i.mtimeMs }, bytes));
    }
    return parts;
  }
}

/**
 * Gives the event loop a turn once SLICE_MS passed since the last one. Needed: on SQLite every
 * read resolves at once, so without it a run of pages (and of steps that produce no bytes yet, such
 * as a history chunk filling up) would go on in one stretch of microtasks (measured: 130 ms for 20
 * changesets of 1,000 entries; unbounded for a bigger agent).
 */
const SLICE_MS = 20;
function slicer(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < SLICE_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}

export async function* exportArchive(src: ExportSource): AsyncGenerator<Buffer, EndRecord> {
  const breathe = slicer();
  const { store, agent, asOfSeq } = src;
  const now = Date.now();
  let written = 0;
  // Every part passes here: the archive's bound is enforced on what is actually sent.
  function* put(parts: Buffer[]): Parts {
    for (const p of parts) {
      written += p.length;
      if (written > src.maxBytes) throw new ArchiveError(`the archive passed its limit of ${src.maxBytes} bytes while being written.`);
      yield p;
    }
  }
  const manifest: Manifest = {
    format: ARCHIVE_FORMAT,
    version: ARCHIVE_VERSION,
    agent: { ...agent, createdAt: iso(agent.createdAtMs) },
    asOfSeq,
    exportedAt: iso(now),
    source: { baseUrl: src.baseUrl, store: store.kind },
  };
  yield* put(json('manifest.json', manifest, now));
  const included = new Set<string>();
  const changesets = new Lines('history/changesets', now);
  for await (const parts of changesetParts(store, agent.id, asOfSeq, changesets, included)) {
    yield* put(parts);
    await breathe();
  }
  yield* put(changesets.flush());

  const contents = new Set<string>();
  const end: EndRecord = {
    changesets: changesets.count,
    versions: 0,
    contents: 0,
    contentBytes: 0,
    treeFiles: 0,
    treeDirectories: 0,
    purged: 0,
    posts: 0,
    comments: 0,
  };
  const parts = [
    treeParts(store, agent.id, included, contents, end),
    versionParts(store, agent.id, included, contents, end, now),
    accountParts(store, agent.id, end, now),
  ];
  for (const part of parts) {
    for await (const p of part) {
      yield* put(p);
      await breathe();
    }
  }
  yield* put(json('end.json', end, now));
  yield* put([tarEnd()]);
  return end;
}

async function* changesetParts(store: Store, agentId: string, asOfSeq: number, lines: Lines, included: Set<string>): AsyncGenerator<Buffer[]> {
  let since = 0;
  for (;;) {
    const page = await store.listChangesets(agentId, { since, limit: CHANGESET_PAGE });
    for (const c of page) {
      if (c.seq > asOfSeq) return;
      included.add(c.id);
      let entries = c.entries;
      if (entries.length < c.entryCount) {
        entries = [];
        for (let after: string | null = null; ;) {
          const got = await store.listChangesetEntries(agentId, c.id, { after, within: null, limit: ENTRY_PAGE });
          entries.push(...got.entries);
          if (!got.nextAfter) break;
          after = got.nextAfter;
        }
      }
      yield lines.add(changesetLine(c, entries));
    }
    if (page.length < CHANGESET_PAGE) return;
    since = page[page.length - 1]!.seq;
  }
}

/** The head tree as of the archive's seq: each path's newest version among the included ones. */
async function* treeParts(store: Store, agentId: string, included: Set<string>, contents: Set<string>, end: EndRecord): AsyncGenerator<Buffer[]> {
  const queue = new ContentQueue(store, agentId);
  let head: ExportVersion | null = null;
  const settle = (v: ExportVersion | null): Buffer[] | 'drain' => {
    if (!v || v.deleted) return [];
    if (v.kind === 'dir') {
      end.treeDirectories++;
      return tarEntry({ name: treeName(v.path), type: 'directory', mtimeMs: v.updatedAtMs });
    }
    end.treeFiles++;
    // The first head file with a content carries it; later ones with the same content too (a
    // tree must be whole when extracted), but the content counts once.
    if (!contents.has(v.blobHash!)) {
      contents.add(v.blobHash!);
      end.contents++;
      end.contentBytes += v.size;
    }
    return queue.add(v.blobHash!, v.size, treeName(v.path), v.updatedAtMs) ? 'drain' : [];
  };
  for await (const page of allVersions(store, agentId)) {
    for (const v of page) {
      if (head && head.path !== v.path) {
        const r = settle(head);
        yield r === 'drain' ? await queue.drain() : r;
        head = null;
      }
      if (included.has(v.changesetId)) head = v;
    }
    yield []; // a page done: the caller may give the event loop a turn
  }
  const r = settle(head);
  yield r === 'drain' ? await queue.drain() : r;
  yield await queue.drain();
}

async function* versionParts(
  store: Store,
  agentId: string,
  included: Set<string>,
  contents: Set<string>,
  end: EndRecord,
  mtimeMs: number,
): AsyncGenerator<Buffer[]> {
  const queue = new ContentQueue(store, agentId);
  const lines = new Lines('history/versions', mtimeMs);
  for await (const page of allVersions(store, agentId)) {
    for (const v of page) {
      if (!included.has(v.changesetId)) continue;
      if (v.blobHash && !contents.has(v.blobHash)) {
        contents.add(v.blobHash);
        end.contents++;
        end.contentBytes += v.size;
        if (queue.add(v.blobHash, v.size, blobName(v.blobHash), v.updatedAtMs)) yield await queue.drain();
      }
      // Every content a chunk of versions names is written before the chunk: an import can then
      // check each version's content as it reads it.
      const full = lines.add(versionLine(v));
      if (full.length) {
        yield await queue.drain();
        yield full;
      }
    }
    yield []; // a page done: the caller may give the event loop a turn
  }
  yield await queue.drain();
  end.versions = lines.count;
  yield lines.flush();
}

async function* accountParts(store: Store, agentId: string, end: EndRecord, mtimeMs: number): AsyncGenerator<Buffer[]> {
  const purged = new Lines('history/purged', mtimeMs);
  for (let after = ''; ;) {
    const page = await store.exportPurged(agentId, after, 1000);
    for (const p of page) yield purged.add({ path: p.path, version: p.version, purgedAt: iso(p.purgedAtMs), purgedAtMs: p.purgedAtMs });
    if (page.length < 1000) break;
    after = page[page.length - 1]!.path;
  }
  end.purged = purged.count;
  yield purged.flush();
  const p = await store.getProfile(agentId);
  if (p) {
    const profile = { displayName: p.displayName, description: p.description, tags: p.tags, links: p.links, acceptMessages: p.acceptMessages };
    yield json('account/profile.json', profile, mtimeMs);
  }
  const keys = (await store.listKeys(agentId)).map((k) => ({
    keyId: k.id,
    label: k.label,
    scopes: k.scopes,
    folder: k.folder,
    preview: k.preview,
    createdAt: iso(k.createdAtMs),
    lastUsedAt: k.lastUsedAtMs === null ? null : iso(k.lastUsedAtMs),
    expiresAt: k.expiresAtMs === null ? null : iso(k.expiresAtMs),
    revokedAt: k.revokedAtMs === null ? null : iso(k.revokedAtMs),
    createdByKeyId: k.createdByKeyId,
  }));
  yield json('account/keys.json', keys, mtimeMs);
  yield* socialParts(store, agentId, end, mtimeMs);
}

async function* socialParts(store: Store, agentId: string, end: EndRecord, mtimeMs: number): AsyncGenerator<Buffer[]> {
  const posts = new Lines('social/posts', mtimeMs);
  for (let after: { createdAtMs: number; id: string } | null = null; ;) {
    const page = await store.exportPosts(agentId, after, 500);
    for (const p of page) yield posts.add({ ...p, createdAt: iso(p.createdAtMs) });
    if (page.length < 500) break;
    after = { createdAtMs: page[page.length - 1]!.createdAtMs, id: page[page.length - 1]!.postId };
  }
  end.posts = posts.count;
  yield posts.flush();
  const comments = new Lines('social/comments', mtimeMs);
  for (let after = 0; ;) {
    const page = await store.exportComments(agentId, after, 1000);
    for (const { seq: _seq, ...c } of page) yield comments.add({ ...c, createdAt: iso(c.createdAtMs) });
    if (page.length < 1000) break;
    after = page[page.length - 1]!.seq;
  }
  end.comments = comments.count;
  yield comments.flush();
}

/**
 * GET /l/{token}[/{sub/path}]: links (docs/contract/mounts.md), public read-only URLs with no key. A file
 * answers its bytes (content type by extension, ETag = content hash, single byte ranges); a
 * directory link answers a JSON listing, and its files below it. Revoked or expired: 410 with a
 * JSON reason; so is a link whose file or directory was deleted (it serves again once restored).
 * An unknown token (of any length) or a path outside the link: 404, the same for every such token.
 * The token is looked up by its sha256 (only the hash is stored) and scrubbed from the logs.
 * The owner's bytes are served from our origin, so nothing in them may run there: active types
 * (HTML, JS, CSS, SVG, XML and their kin) go out as text/plain attachments (README.md "Links").
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ToolError } from '../core/errors.js';
import { baseName, isWithin, normalizePath } from '../core/paths.js';
import { iso } from '../core/time.js';
import type { Store } from '../store/types.js';
import { linkTokenHash } from '../tools/shares.js';
import { prefersHtml, sendPage, type UiBundle } from './ui.js';

const TEXT = 'text/plain; charset=utf-8';
/** Shown in place by a browser without running anything: served inline under their own type. */
const INLINE: Record<string, string> = {
  txt: TEXT,
  md: 'text/markdown; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
  ts: TEXT,
  py: TEXT,
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};
/** Documents a browser opens with its own viewer or saves: their type, always as an attachment. */
const DOWNLOAD: Record<string, string> = { pdf: 'application/pdf', zip: 'application/zip' };
/**
 * What a browser runs or renders with script (HTML, SVG, XML with its stylesheets), or a page of
 * our origin could load as script, style or worker (JS, CSS, WebAssembly, manifests): text/plain
 * (with nosniff, no <script> or <link> takes it) and an attachment (navigating saves it).
 */
const ACTIVE = new Set(
  (
    'html htm xhtml xht shtml mht mhtml hta js mjs cjs jsx css svg svgz xml xsl xslt rss atom rdf ' + 'wasm swf appcache manifest webmanifest vtt'
  ).split(' '),
);

/** The content type a link serves a file under, and whether it goes out as an attachment. */
export function servedAs(path: string, bytes: Buffer): { type: string; attachment: boolean } {
  const name = baseName(path);
  const ext = name.includes('.') ? name.split('.').pop()!.toLowerCase() : '';
  if (ACTIVE.has(ext)) return { type: TEXT, attachment: true };
  if (DOWNLOAD[ext]) return { type: DOWNLOAD[ext]!, attachment: true };
  if (INLINE[ext]) return { type: INLINE[ext]!, attachment: false };
  return { type: bytes.subarray(0, 8000).includes(0) ? 'application/octet-stream' : TEXT, attachment: false };
}

const LISTING_MAX = 1000;

/** One `bytes=a-b` range of `size` bytes: [start, end] inclusive, 'invalid' (416), or null (the whole body). */
export function parseRange(header: string | undefined, size: number): [number, number] | 'invalid' | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return header.includes(',') ? null : 'invalid';
  if (m[1] === '') {
    const n = Math.min(Number(m[2]), size);
    return n === 0 ? 'invalid' : [size - n, size - 1];
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  return start >= size || end < start ? 'invalid' : [start, end];
}

function fail(reply: FastifyReply, status: 404 | 410, message: string, details?: Record<string, unknown>) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('x-robots-tag', 'noindex')
    .send({ error: { code: status === 404 ? 'NOT_FOUND' : 'GONE', message, ...(details ? { details } : {}) } });
}

const NOT_FOUND = 'No link answers at this URL. Ask its owner for a new link.';
const DELETED = "This link's file was deleted; it works again if its owner restores the file. Ask its owner for a new link.";

export function linkRoutes(app: FastifyInstance, store: Store, ui: UiBundle | null = null): void {
  type LinkRequest = FastifyRequest<{ Params: Record<string, string>; Querystring: { cursor?: string; after?: string; raw?: string } }>;
  const handler = async (req: LinkRequest, reply: FastifyReply) => {
    // The answer depends on Accept: a browser navigating gets the link page (the web UI), which
    // fetches these same bytes with ?raw; programs, <img> and ?raw get the bytes as always.
    reply.header('vary', 'Accept');
    if (ui && req.query.raw === undefined && prefersHtml(req.headers.accept)) return sendPage(reply, ui);
    const token = req.params.token ?? '';
    if (!/^lt_[A-Za-z0-9_-]{20,100}$/.test(token)) return fail(reply, 404, NOT_FOUND);
    const link = await store.getLinkByTokenHash(linkTokenHash(token));
    if (!link) return fail(reply, 404, NOT_FOUND);
    const now = Date.now();
    const ended = link.endReason ?? (link.expiresAtMs !== null && link.expiresAtMs <= now ? 'expired' : null);
    if (ended) {
      return fail(reply, 410, `This link ${ended === 'expired' ? 'expired' : 'was revoked'}; ask its owner for a new one.`, { reason: ended });
    }
    let path = link.path;
    const sub = req.params['*'];
    if (sub) {
      try {
        path = normalizePath(`${link.path}/${decodeURIComponent(sub)}`);
      } catch (err) {
        if (err instanceof ToolError || err instanceof URIError) return fail(reply, 404, NOT_FOUND);
        throw err;
      }
      if (!isWithin(path, link.path)) return fail(reply, 404, NOT_FOUND);
    }
    const ownerId = link.owner.id;
    // The link ends with its file: deleted (or moved away) answers 410, restored serves again.
    const root = await store.getNode(ownerId, link.path);
    if (!root || root.deleted || (link.version !== null && root.kind !== 'file')) {
      return fail(reply, 410, DELETED, { reason: 'deleted' });
    }
    reply.header('cache-control', 'private').header('x-robots-tag', 'noindex').header('x-content-type-options', 'nosniff');
    // Files are the owner's bytes, served from our origin: no script of theirs runs with it.
    reply.header('content-security-policy', "sandbox; default-src 'none'");
    if (link.version !== null && path === link.path) {
      const v = await store.getVersion(ownerId, path, link.version);
      const bytes = v && !v.deleted && v.blobHash ? await store.getBlob(ownerId, v.blobHash) : null;
      if (!v || !bytes) return fail(reply, 410, DELETED, { reason: 'deleted' });
      return sendFile(reply, req.headers, path, bytes, v.blobHash!);
    }
    const node = path === link.path ? root : await store.getNode(ownerId, path);
    if (!node || node.deleted) return fail(reply, 404, NOT_FOUND);
    if (node.kind === 'dir') {
      // ?cursor= takes the listing's nextCursor (?after=, its old name, still works: docs/contributing.md#vocabulary).
      const from = typeof req.query.cursor === 'string' ? req.query.cursor : req.query.after;
      const after = typeof from === 'string' ? `${path === '/' ? '' : path}/${from}` : null;
      const page = await store.listChildren(ownerId, path, LISTING_MAX, after);
      const rel = (p: string) => p.slice(link.path.length) || '/';
      return reply.header('content-type', 'application/json; charset=utf-8').send({
        path: rel(path),
        entries: page.nodes.map((n) => ({
          name: baseName(n.path),
          path: rel(n.path),
          type: n.kind === 'dir' ? 'directory' : 'file',
          size: n.size,
          updatedAt: iso(n.updatedAtMs),
        })),
        nextCursor: page.nextAfter ? baseName(page.nextAfter) : null,
      });
    }
    const full = await store.readNode(ownerId, path);
    if (!full?.content) return fail(reply, 404, NOT_FOUND);
    return sendFile(reply, req.headers, path, full.content, full.blobHash!);
  };
  app.get('/l/:token', handler);
  app.get('/l/:token/*', handler);
  // What the routes above do not take: a token past the router's parameter limit (maxParamLength,
  // 100 characters), which Fastify would answer 414 "URI too long", or none at all. Every such
  // token is unknown: the same 404 as any other.
  app.get('/l/*', async (_req: FastifyRequest, reply: FastifyReply) => fail(reply, 404, NOT_FOUND));
}

function sendFile(reply: FastifyReply, headers: FastifyRequest['headers'], path: string, bytes: Buffer, hash: string) {
  const etag = `"${hash}"`;
  const served = servedAs(path, bytes);
  reply.header('etag', etag).header('accept-ranges', 'bytes').header('content-type', served.type);
  // The file's name (the link page shows it; `curl -OJ` and downloads save under it). RFC 6266/8187.
  const disposition = served.attachment ? 'attachment' : 'inline';
  reply.header('content-disposition', `${disposition}; filename*=UTF-8''${encodeURIComponent(baseName(path))}`);
  if (headers['if-none-match'] === etag) return reply.code(304).send();
  const range = parseRange(typeof headers.range === 'string' ? headers.range : undefined, bytes.length);
  if (range === 'invalid') return reply.code(416).header('content-range', `bytes */${bytes.length}`).send();
  if (range) {
    const [start, end] = range;
    return reply
      .code(206)
      .header('content-range', `bytes ${start}-${end}/${bytes.length}`)
      .send(bytes.subarray(start, end + 1));
  }
  return reply.send(bytes);
}

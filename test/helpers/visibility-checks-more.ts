/**
 * The visibility checks beyond the file tools (visibility-checks.ts lists them all): bash in
 * /published and /shared (cat, ls -l, find, grep -r, globs), search, links, the feed,
 * notifications, home and posts, and a folder key's view of its shares and links.
 */
import type { Probe } from './visibility-probe.js';
import type { FileView } from './visibility-model.js';

const SEP = '@@vis@@';
const bytes = (s: string) => Buffer.byteLength(s);

/** One bash call walking a mount root every way; the sections parsed back. */
async function walk(p: Probe, viewer: 'recipient' | 'stranger', check: string, root: string, cats: string[]): Promise<string[] | null> {
  const command = [
    `find ${root} -type f 2>/dev/null | sort`,
    `ls -lR ${root} 2>/dev/null`,
    `grep -r "" ${root} 2>/dev/null | sort`,
    `cat ${root}/*/* 2>/dev/null`,
    ...cats.map((f) => `cat ${f} 2>/dev/null`),
  ].join(`; echo ${SEP}; `);
  const r = await p.ask(viewer, check, 'bash', { command });
  if (r.inner?.success !== true) {
    p.fail(check, `${viewer} bash failed: ${r.text.slice(0, 200)}`);
    return null;
  }
  return (r.inner.stdout as string).split(`${SEP}\n`);
}

/** Compares a bash walk of `root` with the visible files (mount paths → content). */
function compareWalk(
  p: Probe,
  check: string,
  viewer: string,
  root: string,
  out: string[],
  files: Map<string, string>,
  skip: (path: string) => boolean,
): void {
  const [find = '', ls = '', grep = '', glob = '', ...cats] = out;
  const paths = [...files.keys()].sort();
  const eq = (what: string, got: string[], want: string[]) => {
    if (got.join('\n') !== want.join('\n'))
      p.fail(`${check}.${what}`, `${viewer} under ${root}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  };
  eq(
    'find',
    find.split('\n').filter((l) => l && !skip(l)),
    paths,
  );
  // ls -lR: "dir:" headers, then "-rw… size date name" lines.
  const listed: string[] = [];
  let dir = '';
  for (const line of ls.split('\n')) {
    if (line.endsWith(':')) dir = line.slice(0, -1);
    else if (line.startsWith('-')) {
      const cols = line.trim().split(/\s+/);
      const path = `${dir}/${cols.at(-1)}`;
      if (!skip(path)) listed.push(`${path} ${cols[4]}`);
    }
  }
  eq(
    'ls-l',
    listed.sort(),
    paths.map((f) => `${f} ${bytes(files.get(f)!)}`),
  );
  const grepWant = paths
    .flatMap((f) =>
      files
        .get(f)!
        .split('\n')
        .slice(0, -1)
        .map((l) => `${f}:${l}`),
    )
    .sort();
  eq(
    'grep-r',
    grep.split('\n').filter((l) => l && !skip(l.split(':')[0]!)),
    grepWant,
  );
  if (![...files.keys()].some(skip)) eq('glob', [glob], [paths.map((f) => files.get(f)!).join('')]);
  cats.forEach((got, i) => eq('cat', [got], [files.get(paths[i]!)!]));
}

export async function bashChecks(p: Probe): Promise<void> {
  const { view } = p;
  const root = p.pub('');
  const attachment = (path: string) => path.startsWith(`${root}/.attachments`);
  for (const viewer of ['recipient', 'stranger'] as const) {
    const files = new Map([...view.published[viewer]].map(([path, f]: [string, FileView]) => [p.pub(path), f.content]));
    const ambiguous = new Set([...view.ambiguous].map((x) => p.pub(x)));
    const out = await walk(p, viewer, 'bash.published', root, [...files.keys()].sort());
    if (out) compareWalk(p, 'bash.published', viewer, root, out, files, (x) => attachment(x) || ambiguous.has(x));
  }
  if (view.shared.size) {
    const files = new Map([...view.shared].map(([path, f]) => [p.shr(path), f.head.content]));
    const sroot = p.shr('');
    const out = await walk(p, 'recipient', 'bash.shared', sroot, [...files.keys()].sort());
    if (out) compareWalk(p, 'bash.shared', 'recipient', sroot, out, files, () => false);
  }
}

/** search: every hit in the owner's mounts is a path the viewer may read (snippets scanned by the probe). */
export async function searchChecks(p: Probe): Promise<void> {
  const { view, played } = p;
  const attachmentPaths = new Map<string, boolean>();
  for (const a of view.attachments) {
    const at = played.attachmentPaths.get(a.post)?.get(`${a.path}@${a.version}`);
    if (at) attachmentPaths.set(at, a.readable);
  }
  for (const viewer of ['recipient', 'stranger'] as const) {
    const r = await p.expectOk(viewer, 'search', 'search', { query: played.world.word, limit: 50 });
    for (const item of r?.items ?? []) {
      const path: string | undefined = item.path ?? item.publicPath;
      if (!path) continue;
      const owner = path.startsWith(p.pub('/')) ? path.slice(p.pub('').length) : path.startsWith(p.shr('/')) ? path.slice(p.shr('').length) : null;
      if (owner === null) continue;
      // A publication's own path (a published hit's publicPath) is part of the public record of a live
      // publication, even when nothing under a published directory is left to read (its files deleted).
      const covers = (f: string) => f === owner || f.startsWith(`${owner}/`);
      const underPublished =
        item.type === 'published' &&
        !(viewer === 'stranger' && view.strangerBlocksOwner) &&
        ([...view.published[viewer].keys()].some(covers) || [...view.publishedProbe].some(covers));
      const ok = path.startsWith('/shared/')
        ? viewer === 'recipient' && view.shared.has(owner)
        : view.published[viewer].has(owner) ||
          underPublished ||
          view.ambiguous.has(owner) ||
          (attachmentPaths.get(path) === true && !(viewer === 'stranger' && view.strangerBlocksOwner));
      if (!ok) p.fail('search.hidden-path', `${viewer} search finds ${item.type} ${path}, which it may not read`);
    }
  }
}

/** search with a key lacking community:read finds no posts, comments, published items, communities or agents (agents:read). */
export async function searchScopes(p: Probe): Promise<void> {
  const r = await p.s.call(p.played.searchOnly, 'search', { query: p.played.world.word, limit: 50 });
  if (r.inner?.success !== true) return p.fail('search.scopes', `search with files:read+search: ${r.text.slice(0, 200)}`);
  const wrong = r.inner.items.filter((i: any) => ['post', 'comment', 'published', 'community', 'agent'].includes(i.type));
  if (wrong.length) p.fail('search.scopes', `search with a key without community:read finds ${wrong.map((i: any) => i.type).join(', ')}`);
}

/** Links: a live file's bytes (pinned version or head), 410 once deleted; active types never served as such. */
export async function linkChecks(p: Probe): Promise<void> {
  for (const l of p.view.links) {
    const url = p.played.links.get(l.op);
    if (!url) continue;
    const r = await p.s.raw(`${url}?raw`, {});
    // A link shows its holder its file's bytes (compared exactly below); a gone link shows nothing.
    if (l.expect.status === 410) p.scan('anon', 'links', `GET ${url}`, r.text);
    if (r.status !== l.expect.status) {
      p.fail(
        'links.status',
        `GET link to ${l.path}${l.version ? `@${l.version}` : ''}: expected ${l.expect.status}, got ${r.status} ${r.text.slice(0, 120)}`,
      );
    } else if (l.expect.status === 200 && r.text !== l.expect.content) {
      p.fail('links.bytes', `GET link to ${l.path}: expected ${JSON.stringify(l.expect.content)}, got ${JSON.stringify(r.text.slice(0, 200))}`);
    }
    if (r.status === 200 && /\.(html|svg|js|xml)$/.test(l.path)) {
      const type = r.headers.get('content-type') ?? '';
      const disposition = r.headers.get('content-disposition') ?? '';
      if (!type.startsWith('text/plain') && !disposition.startsWith('attachment')) {
        p.fail('links.active-type', `GET link to ${l.path}: served as ${type} (${disposition || 'inline'}); an active type runs same-origin`);
      }
    }
  }
}

/** Feed, notifications, home and posts show nothing hidden (each answer scanned by the probe). */
export async function socialChecks(p: Probe): Promise<void> {
  await p.ask('recipient', 'social.feed', 'get_feed', {});
  await p.ask('recipient', 'social.notifications', 'list_notifications', {});
  await p.ask('recipient', 'social.home', 'get_home', {});
  await p.ask('stranger', 'social.home', 'get_home', {});
  await p.ask('anon', 'social.browse', 'browse_published', { author: p.slug });
  await p.ask('stranger', 'social.browse', 'browse_published', { author: p.slug });
  await p.ask('anon', 'social.posts', 'list_posts', { author: p.slug, sort: 'new' });
  for (const postId of p.played.postIds) {
    if (!postId) continue;
    await p.ask('anon', 'social.posts', 'get_post', { postId });
    await p.ask('stranger', 'social.posts', 'get_post', { postId });
  }
}

/** A folder key sees only the shares and links whose path is inside its folder. */
export async function folderKeyChecks(p: Probe): Promise<void> {
  const r = await p.s.call(p.played.keys.folder, 'list_shares', { direction: 'outgoing' });
  if (r.inner?.success !== true) return p.fail('folder-key.list_shares', `list_shares with the /d0 key: ${r.text.slice(0, 200)}`);
  const outside = r.inner.items.filter((i: any) => i.path !== '/d0' && !i.path.startsWith('/d0/')).map((i: any) => i.path);
  if (outside.length) p.fail('folder-key.list_shares', `list_shares with the /d0 key shows ${outside.join(', ')}`);
}

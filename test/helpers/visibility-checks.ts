/**
 * The checks of the model-based visibility test, one named function per path a reader can take
 * (CHECKS lists them all). Each compares what one viewer reaches through that path with the model
 * (visibility-model.ts): everything visible reads with the right bytes, sizes and versions, and
 * everything hidden answers as a path that never existed; every answer is scanned for hidden
 * contents, their hashes and the owner's key ids (Probe.scan).
 */
import type { Probe } from './visibility-probe.js';
import type { Viewer } from './visibility-model.js';
import { bashChecks, linkChecks, searchChecks, searchScopes, socialChecks, folderKeyChecks } from './visibility-checks-more.js';
import { isWithin } from './visibility-world.js';

export type Check = (p: Probe) => Promise<void>;

const VIEWERS: Viewer[] = ['recipient', 'stranger', 'anon'];
const dirOf = (path: string) => path.slice(0, path.lastIndexOf('/'));
const bytes = (s: string) => Buffer.byteLength(s);

/** read and stat through /published: heads, every version number, hidden paths. */
async function publishedRead(p: Probe): Promise<void> {
  const { view } = p;
  for (const viewer of VIEWERS) {
    const visible = view.published[viewer];
    for (const [path, versions] of view.tree) {
      if (view.ambiguous.has(path)) continue;
      const seen = visible.get(path);
      const at = p.pub(path);
      if (seen) {
        const r = await p.expectOk(viewer, 'published.read', 'read', { path: at });
        if (r && (r.content !== seen.content || r.version !== seen.v)) {
          p.fail(
            'published.read',
            `${viewer} read ${at}: expected v${seen.v} ${JSON.stringify(seen.content)}, got v${r.version} ${JSON.stringify(r.content)}`,
          );
        }
        const st = await p.expectOk(viewer, 'published.stat', 'stat', { path: at });
        if (st && (st.size !== bytes(seen.content) || st.version !== seen.v)) {
          p.fail('published.stat', `${viewer} stat ${at}: expected v${seen.v} size ${bytes(seen.content)}, got v${st.version} size ${st.size}`);
        }
      } else {
        await p.expectAbsent(viewer, 'published.read', 'read', { path: at }, 'not published');
        await p.expectAbsent(viewer, 'published.stat', 'stat', { path: at }, 'not published');
      }
      if (!view.publishedProbe.has(path)) continue;
      for (let v = 1; v <= versions.at(-1)!.v + 1; v++) {
        if (seen?.v === v) {
          const r = await p.expectOk(viewer, 'published.read-version', 'read', { path: at, version: v });
          if (r && r.content !== seen.content) p.fail('published.read-version', `${viewer} read ${at} v${v}: ${JSON.stringify(r.content)}`);
        } else {
          await p.expectAbsent(viewer, 'published.read-version', 'read', { path: at, version: v }, `v${v} is not the published version`);
          await p.expectAbsent(viewer, 'published.stat-version', 'stat', { path: at, version: v }, `v${v} is not the published version`);
        }
      }
    }
  }
}

/** list of each directory holding published files: exactly the visible files, with their sizes. */
async function publishedList(p: Probe): Promise<void> {
  const { view } = p;
  for (const viewer of VIEWERS) {
    const visible = view.published[viewer];
    const dirs = new Set([...visible.keys()].map(dirOf));
    for (const dir of dirs) {
      const r = await p.expectOk(viewer, 'published.list', 'list', { path: p.pub(dir) });
      if (!r) continue;
      const got = r.entries
        .filter((e: any) => e.type === 'file' && !view.ambiguous.has(`${dir}/${e.name}`))
        .map((e: any) => `${e.name}:${e.size}`)
        .sort();
      const want = [...visible]
        .filter(([path]) => dirOf(path) === dir)
        .map(([path, f]) => `${path.slice(dir.length + 1)}:${bytes(f.content)}`)
        .sort();
      if (got.join() !== want.join()) p.fail('published.list', `${viewer} list ${p.pub(dir)}: expected ${want.join(' ')}, got ${got.join(' ')}`);
    }
    if (view.attachments.length) {
      await p.expectAbsent(
        viewer,
        'published.attachments-unlisted',
        'list',
        { path: p.pub('/.attachments') },
        'only the author lists its attachments',
      );
    }
  }
}

/** list_versions through /published shows the one visible version; diff and list_deleted show nothing hidden. */
async function publishedHistory(p: Probe): Promise<void> {
  const { view } = p;
  for (const viewer of ['recipient', 'stranger'] as const) {
    const visible = view.published[viewer];
    for (const path of view.publishedProbe) {
      if (view.ambiguous.has(path)) continue;
      const seen = visible.get(path);
      const at = p.pub(path);
      if (seen) {
        const r = await p.expectOk(viewer, 'published.list_versions', 'list_versions', { path: at });
        const got = r?.versions.map((v: any) => v.version) ?? [];
        if (r && got.join() !== String(seen.v))
          p.fail('published.list_versions', `${viewer} list_versions ${at}: expected [${seen.v}], got [${got}]`);
      } else {
        await p.expectAbsent(viewer, 'published.list_versions', 'list_versions', { path: at }, 'not published');
      }
      await p.ask(viewer, 'published.diff', 'diff', { path: at, fromVersion: 1, toVersion: 2 });
    }
    for (const dir of new Set([...view.publishedProbe].map(dirOf)))
      await p.ask(viewer, 'published.list_deleted', 'list_deleted', { path: p.pub(dir) });
  }
}

/** An attachment's public path reads while its post stands, for nobody else once removed or deleted. */
async function attachments(p: Probe): Promise<void> {
  const { view, played } = p;
  for (const a of view.attachments) {
    const at = played.attachmentPaths.get(a.post)?.get(`${a.path}@${a.version}`);
    if (!at) continue;
    for (const viewer of VIEWERS) {
      const readable = a.readable && !(viewer === 'stranger' && view.strangerBlocksOwner);
      if (readable) {
        const r = await p.expectOk(viewer, 'attachments.read', 'read', { path: at });
        if (r && r.content !== a.content) p.fail('attachments.read', `${viewer} read ${at}: ${JSON.stringify(r.content)}`);
      } else {
        await p.expectAbsent(viewer, 'attachments.read', 'read', { path: at }, 'its post was removed or deleted');
        await p.expectAbsent(viewer, 'attachments.stat', 'stat', { path: at }, 'its post was removed or deleted');
      }
    }
  }
}

/** The recipient through /shared: live heads, history from the share on, nothing outside or before. */
async function sharedFiles(p: Probe): Promise<void> {
  const { view } = p;
  const viewer = 'recipient';
  for (const [path, versions] of view.tree) {
    const at = p.shr(path);
    const f = view.shared.get(path);
    if (!f) {
      if (!view.sharedGone.has(path)) await p.expectAbsent(viewer, 'shared.read', 'read', { path: at }, 'not shared, or deleted before the share');
      else {
        const r = await p.ask(viewer, 'shared.read', 'read', { path: at });
        if (r.inner?.error?.code !== 'NOT_FOUND') p.fail('shared.read', `read ${at} (deleted): ${r.text.slice(0, 200)}`);
      }
      continue;
    }
    const r = await p.expectOk(viewer, 'shared.read', 'read', { path: at });
    if (r && r.content !== f.head.content)
      p.fail('shared.read', `read ${at}: expected ${JSON.stringify(f.head.content)}, got ${JSON.stringify(r.content)}`);
    const st = await p.expectOk(viewer, 'shared.stat', 'stat', { path: at });
    if (st && st.size !== bytes(f.head.content)) p.fail('shared.stat', `stat ${at}: size ${st.size}, expected ${bytes(f.head.content)}`);
    for (const v of versions) {
      const content = f.versions.get(v.v);
      if (content !== undefined) {
        const rv = await p.expectOk(viewer, 'shared.read-version', 'read', { path: at, version: v.v });
        if (rv && rv.content !== content) p.fail('shared.read-version', `read ${at} v${v.v}: ${JSON.stringify(rv.content)}`);
      } else if (v.content !== null) {
        await p.expectAbsent(viewer, 'shared.read-version', 'read', { path: at, version: v.v }, `v${v.v} was committed before the share`);
      }
    }
    // A stale write: EDIT_CONFLICT (write share) or FORBIDDEN (read share), never the owner's keys.
    const stale = await p.ask(viewer, 'shared.edit-conflict', 'write', { path: at, content: 'stale\n', expectedVersion: 9999 });
    if (stale.inner?.success === true) p.fail('shared.edit-conflict', `a write to ${at} at expectedVersion 9999 went through`);
    const lv = await p.expectOk(viewer, 'shared.list_versions', 'list_versions', { path: at });
    if (lv) {
      const got = lv.versions.filter((e: any) => e.path === at && !e.deleted).map((e: any) => e.version);
      const want = [...f.versions.keys()].sort((a, b) => b - a);
      if (got.join() !== want.join()) p.fail('shared.list_versions', `list_versions ${at}: expected [${want}], got [${got}]`);
    }
  }
  for (const root of view.sharedRoots) {
    if (view.tree.has(root)) continue;
    const r = await p.expectOk(viewer, 'shared.list', 'list', { path: p.shr(root) });
    const want = [...view.shared.keys()].filter((x) => isWithin(x, root) && dirOf(x) === root).map((x) => x.slice(root.length + 1));
    const got = r?.entries.filter((e: any) => e.type === 'file').map((e: any) => e.name) ?? [];
    if (r && got.sort().join() !== want.sort().join()) p.fail('shared.list', `list ${p.shr(root)}: expected ${want}, got ${got}`);
    await p.ask(viewer, 'shared.list_deleted', 'list_deleted', { path: p.shr(root) });
  }
  // Nothing of the owner's shares reaches the stranger.
  for (const path of view.shared.keys())
    await p.expectAbsent('stranger', 'shared.stranger', 'read', { path: p.shr(path) }, 'shared with another agent');
}

/** Every path a reader can take, by name: a failure names the check (and so the path and its rule). */
export const CHECKS: Record<string, Check> = {
  'published.read': publishedRead,
  'published.list': publishedList,
  'published.history': publishedHistory,
  attachments,
  shared: sharedFiles,
  bash: bashChecks,
  search: searchChecks,
  'search.scopes': searchScopes,
  links: linkChecks,
  social: socialChecks,
  'folder-key': folderKeyChecks,
};

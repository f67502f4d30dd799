/** The list tool: a directory's entries (or a subtree's), paged by an opaque cursor, within the key's folder. */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { ancestorsOf, baseName, isWithin } from '../core/paths.js';
import { iso } from '../core/time.js';
import type { NodeRecord } from '../store/types.js';
import { ROOT, isLive, navigablePath, notFound, pathField } from './common.js';
import { defineTool, type ToolContext } from './registry.js';
import { rootMountEntries } from './mount-dirs.js';
import { listOutput } from './files-output.js';

function encodeCursor(after: string, path: string, recursive: boolean): string {
  return Buffer.from(JSON.stringify({ a: after, p: path, r: recursive })).toString('base64url');
}

function decodeCursor(cursor: string, path: string, recursive: boolean): string {
  try {
    const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { a: string; p: string; r: boolean };
    if (typeof c.a === 'string' && !c.a.includes('\u0000') && c.p === path && c.r === recursive) return c.a;
  } catch {
    /* fall through */
  }
  throw new ToolError('INVALID_INPUT', "'cursor' does not belong to this listing. Pass back the nextCursor of the same path and recursive values.", {
    field: 'cursor',
  });
}

export const list = defineTool({
  name: 'list',
  family: 'files',
  scopes: ['files:read'],
  summary: 'List a directory (optionally its whole subtree), paged.',
  note: 'Page with cursor: nextCursor. / also lists the mounts /shared and /published.',
  description:
    'Entries sorted by path (byte order). While nextCursor is not null, pass it as cursor for the next page. ' +
    'At / the first page starts with the mount points /published and /shared (mount: their name; a recursive list of / does not enter them: list them).',
  input: z.strictObject({
    path: pathField.default('/'),
    recursive: z.boolean().default(false),
    limit: z.number().int().min(1).max(1000).default(1000),
    cursor: z.string().optional(),
  }),
  output: listOutput,
  mutating: false,
  annotations: { readOnly: true, destructive: false, idempotent: true },
  errors: ['NOT_FOUND', 'NOT_A_DIRECTORY'],
  examples: [
    { title: 'List the root', input: { path: '/' } },
    { title: 'Everything under /notes', input: { path: '/notes', recursive: true } },
    { title: 'The agents sharing files with you', input: { path: '/shared' } },
  ],
  async handler(input, ctx) {
    const path = navigablePath(ctx, input.path);
    const agentId = ctx.auth.agentId;
    if (path !== ROOT) {
      const node = await ctx.store.getNode(agentId, path);
      if (!isLive(node)) throw await notFound(ctx, path, node, 'directory');
      if (node.kind !== 'dir') {
        throw new ToolError('NOT_A_DIRECTORY', `${path} is a file, not a directory. Use read or stat for files.`, { path, blockingPath: path });
      }
    }
    const after = input.cursor !== undefined ? decodeCursor(input.cursor, path, input.recursive) : null;
    const folder = ctx.auth.folder;
    let nodes: NodeRecord[];
    let nextAfter: string | null;
    if (folder && path !== folder && isWithin(folder, path)) {
      // Browsing above the key's folder: only the directories leading to it, then the folder itself.
      ({ nodes, nextAfter } = await listTowardFolder(ctx, path, folder, input.recursive, input.limit, after));
    } else {
      const page = input.recursive
        ? await ctx.store.listSubtree(agentId, path, input.limit, after)
        : await ctx.store.listChildren(agentId, path, input.limit, after);
      ({ nodes, nextAfter } = page);
    }
    return {
      success: true,
      path,
      entries: [
        ...rootMountEntries(ctx, path, input.cursor),
        ...nodes.map((n) => ({
          name: baseName(n.path),
          path: n.path,
          type: n.kind === 'dir' ? 'directory' : 'file',
          size: n.size,
          version: n.version,
          updatedAt: iso(n.updatedAtMs),
        })),
      ],
      nextCursor: nextAfter ? encodeCursor(nextAfter, path, input.recursive) : null,
    };
  },
});

async function listTowardFolder(
  ctx: ToolContext,
  path: string,
  folder: string,
  recursive: boolean,
  limit: number,
  after: string | null,
): Promise<{ nodes: NodeRecord[]; nextAfter: string | null }> {
  const chain = [...ancestorsOf(folder), folder].filter((p) => isWithin(p, path) && p !== path);
  const wanted = recursive ? chain : chain.slice(0, 1);
  const found = await ctx.store.getNodes(ctx.auth.agentId, wanted);
  const head = wanted.map((p) => found.get(p)).filter((n): n is NodeRecord => isLive(n) && (after === null || n.path > after));
  if (!recursive || !isLive(found.get(folder))) {
    const page = head.slice(0, limit);
    return { nodes: page, nextAfter: head.length > limit ? page[page.length - 1]!.path : null };
  }
  const rest = await ctx.store.listSubtree(ctx.auth.agentId, folder, limit, after && after > folder ? after : null);
  const all = [...head, ...rest.nodes];
  const page = all.slice(0, limit);
  const more = all.length > limit || rest.nextAfter !== null;
  return { nodes: page, nextAfter: more ? page[page.length - 1]!.path : null };
}

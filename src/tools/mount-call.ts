/**
 * The one entry dispatch calls for every tool: a files or versions tool whose paths name a mount
 * runs through it (mounts.ts); everything else runs as it is. Kept apart from mounts.ts so the
 * skeleton directories (mount-dirs.ts) and copies across owners (copy-across.ts) can use it.
 */
import { ToolError } from '../core/errors.js';
import { mayNameMount, parseMount } from '../core/mounts.js';
import { copyAcross } from './copy-across.js';
import { answerMountDirectory } from './mount-dirs.js';
import { historyGate } from './mount-history.js';
import { errorToCaller, nameKeyRefs, namedPaths, reboundAuth, routeMounts, toCaller, type MountRoute, type NamedPath } from './mounts.js';
import type { AnyTool, ToolContext } from './registry.js';

export async function runHandler(tool: AnyTool, input: unknown, ctx: ToolContext): Promise<object> {
  if (tool.family !== 'files' && tool.family !== 'versions') return tool.handler(input, ctx);
  const fields = input as Record<string, unknown>;
  if (tool.name === 'write_files') return writeFilesThroughMount(tool, fields, ctx);
  const named = namedPaths(ctx, fields);
  if (!named) return tool.handler(input, ctx);
  if ((tool.name === 'list' || tool.name === 'stat') && named.length === 1) {
    const dir = await answerMountDirectory(tool.name, ctx, named[0]!, fields);
    if (dir) return dir;
  }
  const route = await routeMounts(tool, fields, ctx, named);
  if (route === 'across') return copyAcross(ctx, fields, named);
  return runRouted(tool, route.input, ctx, route);
}

async function runRouted(tool: AnyTool, input: unknown, ctx: ToolContext, route: MountRoute): Promise<object> {
  const inner = ctx.rebind(reboundAuth(ctx.auth, route.view, route.grant));
  const gate = await historyGate(tool.name, route, inner);
  let result: object;
  try {
    // The gate may have rewritten route.input (the same object as input for every tool but write_files).
    result = await tool.handler(input, inner);
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    await nameKeyRefs(inner, err.details);
    throw gate.hidden(err) ?? errorToCaller(route, gate.scrub(err));
  }
  const shown = await gate.after(result);
  await nameKeyRefs(inner, shown);
  const out = toCaller(route, shown);
  return tool.mutating ? ownedChangeset(route, out) : out;
}

/** A changeset a call made through /shared is the owner's: the answer names the owner (changesetOwner). */
function ownedChangeset(route: MountRoute, out: object): object {
  const id = (out as { changesetId?: unknown }).changesetId;
  return route.view.area === 'shared' && typeof id === 'string' ? { ...out, changesetOwner: route.view.slug } : out;
}

/**
 * write_files names its paths in files[]: through a mount when they all lie in one grant the
 * caller may write (the same route as write's), in the caller's own tree when none names a mount.
 */
async function writeFilesThroughMount(tool: AnyTool, input: Record<string, unknown>, ctx: ToolContext): Promise<object> {
  const files = input.files as { path: string }[];
  const named: NamedPath[] = files.map((f, i) => {
    if (!mayNameMount(f.path)) return { field: 'path', path: f.path, mount: null };
    const path = ctx.path(f.path, `files[${i}].path`);
    return { field: 'path', path, mount: parseMount(path) };
  });
  const first = named.find((n) => n.mount);
  if (!first) return tool.handler(input, ctx);
  const apart = named.find((n) => n.mount?.area !== first.mount!.area || n.mount?.slug !== first.mount!.slug);
  if (apart) {
    throw new ToolError(
      'INVALID_INPUT',
      `write_files writes into one owner's files per call: ${first.path} and ${apart.path} are not. Split the call.`,
      { field: `files[${named.indexOf(apart)}].path` },
    );
  }
  const route = await routeMounts(tool, { path: first.path }, ctx, named);
  if (route === 'across') throw new Error('write_files never routes across owners');
  const owned = files.map((f, i) => ({ ...f, path: named[i]!.mount!.ownerPath! }));
  return runRouted(tool, { ...input, files: owned }, ctx, route);
}

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
  if (!tool.mount) return tool.handler(input, ctx);
  const fields = input as Record<string, unknown>;
  if (tool.paths.nested.length) return writeFilesThroughMount(tool, fields, ctx);
  const named = namedPaths(ctx, tool, fields);
  if (!named) return tool.handler(input, ctx);
  const skeleton = 'access' in tool.mount ? tool.mount.skeleton : undefined;
  if (skeleton && named.length === 1) {
    const dir = await answerMountDirectory(skeleton, ctx, named[0]!, fields);
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
 * A tool naming its paths in an array (write_files' files[].path: registry.ts ToolPaths.nested)
 * goes through a mount when they all lie in one grant the caller may write (the same route as
 * write's), in the caller's own tree when none names a mount.
 */
async function writeFilesThroughMount(tool: AnyTool, input: Record<string, unknown>, ctx: ToolContext): Promise<object> {
  const { array, field } = tool.paths.nested[0]!;
  const items = input[array] as Record<string, string>[];
  const named: NamedPath[] = items.map((f, i) => {
    if (!mayNameMount(f[field]!)) return { field, path: f[field]!, mount: null };
    const path = ctx.path(f[field]!, `${array}[${i}].${field}`);
    return { field, path, mount: parseMount(path) };
  });
  const first = named.find((n) => n.mount);
  if (!first) return tool.handler(input, ctx);
  const apart = named.find((n) => n.mount?.area !== first.mount!.area || n.mount?.slug !== first.mount!.slug);
  if (apart) {
    throw new ToolError(
      'INVALID_INPUT',
      `${tool.name} writes into one owner's files per call: ${first.path} and ${apart.path} are not. Split the call.`,
      { field: `${array}[${named.indexOf(apart)}].${field}` },
    );
  }
  const route = await routeMounts(tool, { [field]: first.path }, ctx, named);
  if (route === 'across') throw new Error(`${tool.name} never routes across owners`);
  const owned = items.map((f, i) => ({ ...f, [field]: named[i]!.mount!.ownerPath! }));
  return runRouted(tool, { ...input, [array]: owned }, ctx, route);
}

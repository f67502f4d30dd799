/**
 * The one entry dispatch calls for every tool: a files or versions tool whose paths name a mount
 * runs through it (mounts.ts); everything else runs as it is. Kept apart from mounts.ts so the
 * skeleton directories (mount-dirs.ts) and copies across owners (copy-across.ts) can use it.
 */
import { ToolError } from '../core/errors.js';
import { copyAcross } from './copy-across.js';
import { answerMountDirectory } from './mount-dirs.js';
import { historyGate } from './mount-history.js';
import { errorToCaller, nameKeyRefs, namedPaths, reboundAuth, routeMounts, toCaller } from './mounts.js';
import type { AnyTool, ToolContext } from './registry.js';

export async function runHandler(tool: AnyTool, input: unknown, ctx: ToolContext): Promise<object> {
  if (tool.family !== 'files' && tool.family !== 'versions') return tool.handler(input, ctx);
  const fields = input as Record<string, unknown>;
  const named = namedPaths(ctx, fields);
  if (!named) return tool.handler(input, ctx);
  if ((tool.name === 'list' || tool.name === 'stat') && named.length === 1) {
    const dir = await answerMountDirectory(tool.name, ctx, named[0]!, fields);
    if (dir) return dir;
  }
  const route = await routeMounts(tool, fields, ctx, named);
  if (route === 'across') return copyAcross(ctx, fields, named);
  const inner = ctx.rebind(reboundAuth(ctx.auth, route.view, route.grant));
  const gate = await historyGate(tool.name, route, inner);
  let result: object;
  try {
    result = await tool.handler(route.input, inner);
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    await nameKeyRefs(inner, err.details);
    throw gate.hidden(err) ?? errorToCaller(route, gate.scrub(err));
  }
  const shown = await gate.after(result);
  await nameKeyRefs(inner, shown);
  return toCaller(route, shown);
}

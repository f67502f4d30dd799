/**
 * MCP's toolsets: the family pages of the reference, and `core`, the set tools/list shows by
 * default (the served mcp.md lists them). Here so that mcp.md and the MCP endpoint read one definition.
 */
import type { AnyTool, ToolRegistry } from '../tools/registry.js';
import { pagesOf } from './family-pages.js';

/** The sets listed by default, and the one tool of another page that belongs with them. */
export const CORE_PAGES = ['files', 'history', 'bash', 'search'];
const CORE_TOOLS = ['get_home'];

const cache = new WeakMap<ToolRegistry, Map<string, AnyTool[]>>();

/** The toolsets of a registry: `core`, then each family page (skill.json's `page` of each tool). */
export function toolsets(registry: ToolRegistry): Map<string, AnyTool[]> {
  const known = cache.get(registry);
  if (known) return known;
  const pages = pagesOf(registry);
  const sets = new Map<string, AnyTool[]>();
  sets.set(
    'core',
    registry.all().filter((t) => CORE_TOOLS.includes(t.name) || pages.some((p) => CORE_PAGES.includes(p.def.page) && p.tools.includes(t))),
  );
  for (const p of pages) sets.set(p.def.page, p.tools);
  cache.set(registry, sets);
  return sets;
}

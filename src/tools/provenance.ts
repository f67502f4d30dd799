/** Where copied versions came from (copy from /shared or /published), as list_versions shows it. */
import type { Provenance } from '../store/published.js';
import type { VersionRecord } from '../store/types.js';
import type { ToolContext } from './registry.js';

export /** Provenance of the versions of a page (a page may span paths: a file's history follows its moves). */
async function provenanceOf(ctx: ToolContext, page: VersionRecord[]): Promise<Map<string, Provenance>> {
  const out = new Map<string, Provenance>();
  const byPath = new Map<string, number[]>();
  for (const v of page) byPath.set(v.path, [...(byPath.get(v.path) ?? []), v.version]);
  for (const [p, versions] of byPath) {
    for (const [version, from] of await ctx.store.getProvenance(ctx.auth.agentId, p, versions)) out.set(`${p}\u0000${version}`, from);
  }
  return out;
}

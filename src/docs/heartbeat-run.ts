/**
 * heartbeat.md's examples are real: the three-agent scenario (src/heartbeat/scenario.ts) runs on
 * a scratch service while the reference files are generated, and the document shows the calls it
 * made. skill.json does not exist yet at that point (its hashes cover heartbeat.md), so the
 * routine reads a stand-in with placeholder version and hashes, as get_home's example shows them.
 */
import type { Config } from '../config.js';
import { callTool } from '../tools/dispatch.js';
import type { AuthContext, ToolRegistry } from '../tools/registry.js';
import { MIN_HEARTBEAT_INTERVAL_HOURS } from '../heartbeat/routine.js';
import { playHeartbeatScenario, type CallRecord } from '../heartbeat/scenario.js';
import { withScratch } from './scratch.js';

export interface HeartbeatRun {
  calls: CallRecord[];
}

/** The reference files skill.json hashes (all but itself). */
export const HASHED_FILES = ['skill.md', 'heartbeat.md', 'mcp.md', 'openapi.json'] as const;

export const PLACEHOLDER_VERSION = '0.0.0+EXAMPLE';

export function skillJsonStandIn(config: Config): string {
  const files = Object.fromEntries(HASHED_FILES.map((name) => [name, { url: `${config.baseUrl}/${name}`, sha256: `<sha256 of ${name}>` }]));
  return JSON.stringify({ version: PLACEHOLDER_VERSION, minHeartbeatIntervalHours: MIN_HEARTBEAT_INTERVAL_HOURS, files });
}

export async function runHeartbeatExample(registry: ToolRegistry, config: Config): Promise<HeartbeatRun> {
  return withScratch(registry, config, 'afs-heartbeat-', async ({ deps, agent }) => {
    const auths = new Map<string, AuthContext>();
    const { calls } = await playHeartbeatScenario({
      // Names are plain slugs here ('alice'): the scratch store is empty and the reference reads better.
      async register(name) {
        auths.set(name, await agent(name, name));
        return { slug: name, key: name };
      },
      async call(key, tool, input) {
        const outcome = await callTool(deps, tool, input, auths.get(key)!, 'heartbeat-example');
        return outcome.ok
          ? { ok: true, result: outcome.result as Record<string, unknown> }
          : { ok: false, error: { code: outcome.error.code, message: outcome.error.message, details: outcome.error.details } };
      },
      async fetchText(path) {
        if (path === '/skill.json') return skillJsonStandIn(config);
        throw new Error(`the heartbeat example fetched ${path}: only skill.json exists while the reference is generated`);
      },
    });
    return { calls };
  });
}

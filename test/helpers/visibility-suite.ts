/**
 * The model-based visibility suite, shared by test/visibility-model.test.ts (npm test) and
 * test/slow/visibility-model-many.test.ts (npm run test:slow, many more worlds): per backend one
 * server, worlds played on it a few at a time (distinct agents per world), each world's checks
 * (visibility-checks.ts) run against its model (visibility-model.ts). A failure names the check,
 * the viewer and the seed; `VIS_SEED=n` replays that one world.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from './backends.js';
import { startServer, type TestServer } from './server.js';
import { CHECKS } from './visibility-checks.js';
import { model } from './visibility-model.js';
import { Probe } from './visibility-probe.js';
import { makeCommunity, playWorld, type Community, type Failure } from './visibility-run.js';
import { generateWorld } from './visibility-world.js';

/** Worlds played at once on one server (their calls interleave; each world's own calls stay in order). */
const PARALLEL = 4;

export async function runWorld(s: TestServer, seed: number, community: Community): Promise<Failure[]> {
  const world = generateWorld(seed);
  const view = model(world);
  const played = await playWorld(s, world, view, community);
  const probe = new Probe(s, played, view);
  for (const check of Object.values(CHECKS)) await check(probe);
  return probe.failures;
}

/** Seeds first..first+count-1, or the one in VIS_SEED. */
export function seedsOf(first: number, count: number): number[] {
  const one = process.env.VIS_SEED;
  if (one !== undefined) return [Number(one)];
  return Array.from({ length: count }, (_, i) => first + i);
}

export function describeFailures(found: Array<{ seed: number; failures: Failure[] }>): string {
  const byCheck = new Map<string, { seeds: number[]; first: string }>();
  for (const { seed, failures } of found) {
    for (const f of failures) {
      const entry = byCheck.get(f.check) ?? { seeds: [], first: `seed ${seed}: ${f.detail}` };
      if (!entry.seeds.includes(seed)) entry.seeds.push(seed);
      byCheck.set(f.check, entry);
    }
  }
  return [...byCheck]
    .map(
      ([check, e]) => `${check} (${e.seeds.length} worlds, seeds ${e.seeds.slice(0, 8).join(' ')}${e.seeds.length > 8 ? ' …' : ''})\n    ${e.first}`,
    )
    .join('\n');
}

export function visibilitySuite(label: string, seeds: number[]): void {
  for (const backend of backends()) {
    describe(`${label} (${backend})`, () => {
      let s: TestServer;
      let community: Community;
      before(async () => {
        // Each world takes several social actions; the per-agent cooldowns are not what this measures.
        const noCooldowns = Object.fromEntries(
          ['SHARE_PER_HOUR', 'PUBLISH_PER_DAY', 'POST_PER_HOUR', 'COMMUNITY_PER_DAY', 'FOLLOW_PER_HOUR'].map((n) => [`COOLDOWN_${n}`, '0']),
        );
        s = await startServer(backend, noCooldowns, { via: 'inject' });
        community = await makeCommunity(s, 'vis-worlds');
      });
      after(() => s?.close());

      it(`${seeds.length} random worlds: every path shows each reader exactly what the model allows`, async () => {
        const found: Array<{ seed: number; failures: Failure[] }> = [];
        let next = 0;
        const worker = async () => {
          while (next < seeds.length) {
            const seed = seeds[next++]!;
            const failures = await runWorld(s, seed, community);
            if (failures.length) found.push({ seed, failures });
          }
        };
        await Promise.all(Array.from({ length: PARALLEL }, worker));
        found.sort((a, b) => a.seed - b.seed);
        assert.equal(
          found.length,
          0,
          `${found.length} of ${seeds.length} worlds break the visibility rules (replay one with VIS_SEED=n):\n${describeFailures(found)}`,
        );
      });
    });
  }
}

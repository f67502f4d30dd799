/**
 * The model-based visibility test with many more worlds than npm test plays (VIS_WORLDS, default
 * below), from a seed of its own (VIS_FIRST_SEED, default a fixed one; a failure prints its seed,
 * VIS_SEED=n replays it). See test/helpers/visibility-suite.ts.
 */
import { seedsOf, visibilitySuite } from '../helpers/visibility-suite.js';

const WORLDS = Number(process.env.VIS_WORLDS ?? 1000);
const FIRST = Number(process.env.VIS_FIRST_SEED ?? 100_000);

visibilitySuite('visibility model, many worlds', seedsOf(FIRST, WORLDS));

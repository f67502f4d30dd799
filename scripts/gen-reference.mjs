#!/usr/bin/env node
// Build step (npm run build): runs every tool's example once and writes dist/reference/examples.json,
// which serving processes read instead of running them at start (src/docs/prebuilt.ts).
import { writePrebuilt, PREBUILT_PATH } from '../dist/src/docs/prebuilt.js';
import { examplesScratch } from '../dist/src/scratch.js';
import { buildRegistry } from '../dist/src/tools/index.js';

const started = performance.now();
const registry = buildRegistry();
const bytes = await writePrebuilt(registry, (config) => examplesScratch(registry, config));
console.log(`gen-reference: ${PREBUILT_PATH} (${bytes} bytes, ${Math.round(performance.now() - started)} ms)`);

/**
 * The tools' example runs are made once, at build time (`npm run build` runs
 * scripts/gen-reference.mjs, which writes dist/reference/examples.json): a serving process reads
 * them instead of running every example on a scratch store at start. They are valid for the tools'
 * examples and the settings they ran with; a server whose settings change what a tool answers
 * (a limit, say) runs them again, once, as before. docs/reference.md describes the pages.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type Config } from '../config.js';
import type { ToolRegistry } from '../tools/registry.js';
import { runExamples, type ExampleRun, type WithScratch } from './examples.js';

/** The base URL the examples run with at build time; a server shows its own instead. */
export const BUILD_BASE_URL = 'https://afs-build.invalid';

/** Settings that never change what a tool answers (where the service runs, how it logs and stores). */
const DEPLOYMENT: ReadonlyArray<keyof Config> = [
  'port',
  'host',
  'dataDir',
  'databaseUrl',
  'baseUrl',
  'metricsToken',
  'logLevel',
  'logFormat',
  'validateOutputs',
  'registrationsPerIpPerHour',
  'trustProxy',
  'strictHost',
  'sqliteSynchronous',
  'sqliteBusyTimeoutMs',
  'pgPoolSize',
];

export const PREBUILT_PATH = fileURLToPath(new URL('../../reference/examples.json', import.meta.url));

/** What the runs depend on: the tools' examples in registry order and the settings that shape answers. */
export function examplesFingerprint(registry: ToolRegistry, config: Config): string {
  const settings = Object.fromEntries(Object.entries(config).filter(([k]) => !DEPLOYMENT.includes(k as keyof Config)));
  return JSON.stringify([settings, registry.all().map((t) => [t.name, t.examples])]);
}

/** The settings the build runs the examples with: the defaults. */
export function buildConfig(): Config {
  return loadConfig({ BASE_URL: BUILD_BASE_URL });
}

/** `scratch`: the throwaway service for these settings (src/scratch.ts examplesScratch). */
export async function writePrebuilt(registry: ToolRegistry, scratch: (config: Config) => WithScratch, path = PREBUILT_PATH): Promise<number> {
  const config = buildConfig();
  const examples = await runExamples(registry, scratch(config));
  mkdirSync(dirname(path), { recursive: true });
  const text = JSON.stringify({ fingerprint: examplesFingerprint(registry, config), examples: [...examples] });
  writeFileSync(path, text);
  return text.length;
}

/** The build's runs for this server (its base URL in them), or null when missing or made for other tools or settings. */
export function loadPrebuilt(registry: ToolRegistry, config: Config, path = PREBUILT_PATH): Map<string, ExampleRun[]> | null {
  if (!existsSync(path)) return null;
  const text = readFileSync(path, 'utf8');
  const file = JSON.parse(text) as { fingerprint: string; examples: Array<[string, ExampleRun[]]> };
  if (file.fingerprint !== examplesFingerprint(registry, config)) return null;
  const runs = JSON.parse(JSON.stringify(file.examples).replaceAll(BUILD_BASE_URL, config.baseUrl)) as Array<[string, ExampleRun[]]>;
  return new Map(runs);
}

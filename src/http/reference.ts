/** GET /skill.md, /heartbeat.md, /mcp.md, /skill.json, /openapi.json: generated once, on first request. */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { runExamples } from '../docs/examples.js';
import { runHeartbeatExample } from '../docs/heartbeat-run.js';
import { renderReference, type ReferenceFiles } from '../docs/reference.js';
import type { ToolRegistry } from '../tools/registry.js';

const TYPES: Record<string, string> = {
  'skill.md': 'text/markdown; charset=utf-8',
  'heartbeat.md': 'text/markdown; charset=utf-8',
  'mcp.md': 'text/markdown; charset=utf-8',
  'skill.json': 'application/json; charset=utf-8',
  'openapi.json': 'application/json; charset=utf-8',
};

/**
 * The files are a function of the tools' definitions and the settings (where the store lives
 * aside): generated once per process for each such pair. Running every example on two scratch
 * stores costs ~1.5 s of CPU; a process that builds many apps (the test suite builds hundreds,
 * and each app's first get_home or skill.md paid it) pays it once.
 */
const generated = new Map<string, Promise<ReferenceFiles>>();

function fingerprint(registry: ToolRegistry, config: Config): string {
  const { dataDir: _dataDir, databaseUrl: _databaseUrl, ...settings } = config;
  const tools = registry.all().map((t) => [t.name, t.scopes, t.description, t.examples]);
  return JSON.stringify([settings, tools]);
}

function generate(registry: ToolRegistry, config: Config): Promise<ReferenceFiles> {
  const key = fingerprint(registry, config);
  let pending = generated.get(key);
  if (!pending) {
    // Two scratch stores, run side by side: the tools' examples and heartbeat.md's scenario.
    pending = Promise.all([runExamples(registry, config), runHeartbeatExample(registry, config)]).then(([examples, heartbeat]) =>
      renderReference(registry, config, examples, heartbeat),
    );
    generated.set(key, pending);
    pending.catch(() => generated.delete(key));
  }
  return pending;
}

/** Registers the routes; returns a function that generates the files ahead of the first request. */
export function referenceRoutes(app: FastifyInstance, deps: { registry: ToolRegistry; config: Config }): () => Promise<ReferenceFiles> {
  const reference = () => generate(deps.registry, deps.config);
  for (const name of Object.keys(TYPES) as Array<keyof ReferenceFiles['files']>) {
    app.get(`/${name}`, async (req, reply) => {
      const ref = await reference();
      const etag = `"${ref.version}"`;
      reply.header('etag', etag).header('cache-control', 'public, max-age=300').type(TYPES[name]!);
      if (req.headers['if-none-match'] === etag) return reply.code(304).send();
      return ref.files[name];
    });
  }
  return reference;
}

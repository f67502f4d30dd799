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

/** Registers the routes; returns a function that generates the files ahead of the first request. */
export function referenceRoutes(app: FastifyInstance, deps: { registry: ToolRegistry; config: Config }): () => Promise<ReferenceFiles> {
  let pending: Promise<ReferenceFiles> | null = null;
  const reference = () => {
    // Two scratch stores, run side by side: the tools' examples and heartbeat.md's scenario.
    pending ??= Promise.all([runExamples(deps.registry, deps.config), runHeartbeatExample(deps.registry, deps.config)]).then(
      ([examples, heartbeat]) => renderReference(deps.registry, deps.config, examples, heartbeat),
    );
    pending.catch(() => (pending = null));
    return pending;
  };
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

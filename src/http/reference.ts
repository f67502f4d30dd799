/** GET /skill.md, /skill/{family}.md, /heartbeat.md, /mcp.md, /skill.json, /openapi.json: rendered once per process. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { runExamples } from '../docs/examples.js';
import { loadPrebuilt } from '../docs/prebuilt.js';
import { renderReference, type ReferenceFiles } from '../docs/reference.js';
import { examplesScratch } from '../scratch.js';
import type { ToolRegistry } from '../tools/registry.js';

const type = (name: string) => (name.endsWith('.json') ? 'application/json; charset=utf-8' : 'text/markdown; charset=utf-8');

/**
 * The files are a function of the tools' definitions, their example runs and the settings: rendered
 * once per process for each such pair. The runs come from the build (dist/reference, see
 * src/docs/prebuilt.ts); only a server whose tools or settings differ from the build's runs them
 * itself, once (~1 s of CPU on a scratch store).
 */
const generated = new Map<string, Promise<ReferenceFiles>>();

function fingerprint(registry: ToolRegistry, config: Config): string {
  const { dataDir: _dataDir, databaseUrl: _databaseUrl, ...settings } = config;
  const tools = registry.all().map((t) => [t.name, t.scopes, t.summary, t.description, t.examples]);
  return JSON.stringify([settings, tools]);
}

function generate(registry: ToolRegistry, config: Config): Promise<ReferenceFiles> {
  const key = fingerprint(registry, config);
  let pending = generated.get(key);
  if (!pending) {
    const prebuilt = loadPrebuilt(registry, config);
    const examples = prebuilt ? Promise.resolve(prebuilt) : runExamples(registry, examplesScratch(registry, config));
    pending = examples.then((runs) => renderReference(registry, config, runs));
    generated.set(key, pending);
    pending.catch(() => generated.delete(key));
  }
  return pending;
}

/** Registers the routes; returns a function that renders the files ahead of the first request. */
export function referenceRoutes(app: FastifyInstance, deps: { registry: ToolRegistry; config: Config }): () => Promise<ReferenceFiles> {
  const reference = () => generate(deps.registry, deps.config);
  const serve = async (name: string, req: FastifyRequest, reply: FastifyReply) => {
    const ref = await reference();
    const text = ref.files[name];
    if (text === undefined) return reply.callNotFound();
    // Each file's ETag is its own content hash (skill.json's sha256): unchanged files answer 304.
    const etag = `"${ref.hashes[name]}"`;
    reply.header('etag', etag).header('cache-control', 'public, max-age=300').type(type(name));
    if (req.headers['if-none-match'] === etag) return reply.code(304).send();
    return text;
  };
  for (const name of ['skill.md', 'heartbeat.md', 'mcp.md', 'skill.json', 'openapi.json']) {
    app.get(`/${name}`, (req, reply) => serve(name, req, reply));
  }
  app.get<{ Params: { page: string } }>('/skill/:page', (req, reply) => serve(`skill/${req.params.page}`, req, reply));
  return reference;
}

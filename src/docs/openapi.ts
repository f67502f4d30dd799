/** openapi.json: every tool as POST /api/tools/{name}, with its input schema and result schema. */
import type { Config } from '../config.js';
import type { ToolRegistry } from '../tools/registry.js';
import { okResponse, outputComponents } from './output-docs.js';
import { toolDescription } from '../tools/describe.js';
import { inputSchema } from './schemas.js';
import { SERVICE_DESCRIPTION } from '../version.js';

/** The reference files served at the root (family pages are under /skill/). */
export const ROOT_FILES = ['skill.md', 'heartbeat.md', 'mcp.md', 'skill.json', 'openapi.json'];

/** The registration body's fields (docs/contract/http.md, Register). */
const REGISTER_FIELDS = {
  name: { type: 'string', minLength: 1, maxLength: 64 },
  idempotencyKey: { type: 'string', minLength: 1, maxLength: 128, description: 'A retry with it returns the same agent (200, no apiKey).' },
};

export function openApi(registry: ToolRegistry, config: Config, version: string, pages: string[]): Record<string, unknown> {
  // Transport errors come in the same envelope, with their HTTP status.
  const failure = (code: string) => ({
    description: code,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ToolErrorEnvelope' } } },
  });
  const paths: Record<string, unknown> = {
    '/api/users/register': {
      post: {
        operationId: 'register',
        summary: 'Register an agent; returns its first API key once.',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name'],
                properties: REGISTER_FIELDS,
                additionalProperties: false,
              },
            },
          },
        },
        responses: {
          '201': { description: 'The agent and its key (apiKey shown once), plain JSON; 200: a retry with its idempotencyKey (no apiKey).' },
          '400': {
            description: 'INVALID_INPUT or INVALID_JSON',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ToolErrorEnvelope' } } },
          },
          '429': { description: 'RATE_LIMITED', content: { 'application/json': { schema: { $ref: '#/components/schemas/ToolErrorEnvelope' } } } },
        },
      },
    },
  };
  for (const tool of registry.all()) {
    paths[`/api/tools/${tool.name}`] = {
      post: {
        operationId: tool.name,
        summary: tool.summary,
        description: toolDescription(tool),
        tags: [tool.family],
        security: [{ bearer: [] }],
        'x-scopes': tool.scopes.filter((s) => registry.scopesInUse().includes(s)),
        ...(tool.fullAccess ? { 'x-full-access': true } : {}),
        requestBody: { required: true, content: { 'application/json': { schema: inputSchema(tool) } } },
        responses: {
          '200': okResponse(tool),
          '400': failure('INVALID_JSON'),
          '401': failure('UNAUTHORIZED'),
          '404': failure('UNKNOWN_TOOL'),
          '413': failure('PAYLOAD_TOO_LARGE'),
          '429': failure('RATE_LIMITED'),
          '500': failure('INTERNAL_ERROR'),
        },
      },
    };
  }
  paths['/'] = {
    get: {
      operationId: 'front_page',
      summary: 'Where the reference files and endpoints are: markdown, or JSON with Accept: application/json',
      responses: { '200': { description: 'The front page' } },
    },
  };
  for (const file of [...ROOT_FILES, ...pages.map((p) => `skill/${p}.md`)]) {
    paths[`/${file}`] = {
      get: { operationId: `get_${file.replace(/[./]/g, '_')}`, summary: `Reference file ${file}`, responses: { '200': { description: file } } },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Agent File Service', version, description: SERVICE_DESCRIPTION },
    servers: [{ url: config.baseUrl }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'mk_… API key' } },
      schemas: outputComponents(registry.all()),
    },
    paths,
  };
}

/**
 * POST /mcp: MCP Streamable HTTP (stateless, JSON responses). tools/list shows the tools the
 * calling key may use; tools/call goes through the same registry, auth, scopes and envelope as
 * the REST endpoint. A server and transport per request (the SDK's stateless pattern).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { TransportError } from '../core/errors.js';
import { missingScopes } from '../core/scopes.js';
import { inputSchema } from '../docs/reference.js';
import { callTool, type DispatchDeps } from '../tools/dispatch.js';
import type { Authenticator } from './auth.js';
import { errorBody } from './envelope.js';

export function mcpRoutes(
  app: FastifyInstance,
  deps: DispatchDeps,
  auth: Authenticator,
  rateLimit: (keyId: string, reply: import('fastify').FastifyReply) => Promise<void>,
): void {
  const { registry } = deps;

  app.post('/mcp', async (req, reply) => {
    reply.header('x-request-id', req.id);
    const identity = await auth.authenticate(req.headers.authorization);
    await rateLimit(identity.keyId, reply);
    const server = new Server({ name: 'agent-file-service', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: registry
        .all()
        .filter((t) => missingScopes(t.scopes, identity.scopes).length === 0)
        .map((t) => ({
          name: t.name,
          title: t.summary,
          description: t.description,
          inputSchema: inputSchema(t) as { type: 'object'; properties?: Record<string, object> },
          annotations: {
            title: t.summary,
            readOnlyHint: t.annotations.readOnly,
            destructiveHint: t.annotations.destructive,
            idempotentHint: t.annotations.idempotent,
            openWorldHint: false,
          },
        })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      try {
        const outcome = await callTool(deps, request.params.name, args, identity, req.id);
        if (outcome.ok) return { content: [{ type: 'text' as const, text: JSON.stringify(outcome.result) }] };
        const e = outcome.error;
        return { content: [{ type: 'text' as const, text: JSON.stringify(errorBody(e.code, e.message, e.details)) }], isError: true };
      } catch (err) {
        if (err instanceof TransportError) {
          return { content: [{ type: 'text' as const, text: JSON.stringify(errorBody(err.code, err.message, err.details)) }], isError: true };
        }
        throw err;
      }
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req.raw, reply.raw, req.body);
  });

  const notAllowed = async (_req: unknown, reply: import('fastify').FastifyReply) =>
    reply.code(405).header('allow', 'POST').send(errorBody('METHOD_NOT_ALLOWED', 'This MCP endpoint is stateless: send JSON-RPC requests with POST /mcp.'));
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
}

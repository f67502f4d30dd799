/**
 * `afs mcp`: a stdio MCP server for desktop clients (Claude Desktop, Claude Code, Cursor) that
 * forwards tools/list and tools/call to the service's own MCP endpoint (POST /mcp) with the saved
 * key. Forwarding rather than re-describing the tools keeps one source of truth: the tools, their
 * schemas and the key's scopes are exactly what the service shows, and a new tool needs no edit here.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ListToolsRequestSchema,
  ListToolsResultSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { credentialsPath, readCredentials } from '../client/credentials.js';
import { SERVICE_VERSION } from '../version.js';
import { err } from './context.js';

/** A failure to reach the service, as a tool error the model can read (isError), not a protocol error. */
function errorResult(code: string, message: string): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify({ error: { code, message, details: {} } }) }], isError: true };
}

export async function mcp(): Promise<never> {
  const creds = await readCredentials(credentialsPath());
  const upstream = new Client({ name: 'afs-mcp-bridge', version: SERVICE_VERSION });
  const url = new URL('mcp', creds.baseUrl.endsWith('/') ? creds.baseUrl : `${creds.baseUrl}/`);
  await upstream.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${creds.apiKey}` } } }));
  const instructions = upstream.getInstructions();
  const server = new Server(
    { name: 'agent-file-service', version: SERVICE_VERSION },
    { capabilities: { tools: { listChanged: true } }, ...(instructions ? { instructions } : {}) },
  );
  // enable_toolset changes the service's list for this bridge's session: the desktop client is told too.
  upstream.setNotificationHandler(ToolListChangedNotificationSchema, () => server.sendToolListChanged());
  // request() rather than listTools(): the SDK client would compile a validator for every tool's
  // output schema (seconds on a busy machine), for results this bridge only passes on.
  server.setRequestHandler(ListToolsRequestSchema, async (request) =>
    upstream.request({ method: 'tools/list', params: request.params }, ListToolsResultSchema),
  );
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    try {
      // The result goes back as the service gave it; the desktop client validates what it needs.
      return await upstream.request({ method: 'tools/call', params: request.params }, CallToolResultSchema);
    } catch (e) {
      return errorResult('BRIDGE_ERROR', `afs mcp could not reach ${url.href}: ${(e as Error).message}. Check that the service runs.`);
    }
  });
  const transport = new StdioServerTransport();
  await server.connect(transport);
  err(`afs mcp: serving ${url.href} as @${creds.slug ?? '?'} on stdio`);
  await untilDone(transport);
  await upstream.close().catch(() => undefined);
  // Nothing more can come, every answer is written, and open HTTP sockets must not keep the
  // process (and the client waiting for it to end) alive.
  process.exit(0);
}

type Id = string | number;

/**
 * Resolves once stdin has ended (or the transport closed) and every request read before that is
 * answered: a client that pipes its requests and closes stdin still gets every answer.
 */
function untilDone(transport: StdioServerTransport): Promise<void> {
  const pending = new Set<Id>();
  let ended = false;
  return new Promise<void>((resolve) => {
    const check = () => {
      if (ended && pending.size === 0) resolve();
    };
    const onmessage = transport.onmessage;
    transport.onmessage = (message) => {
      if ('method' in message && 'id' in message) pending.add(message.id);
      onmessage?.(message);
    };
    const send = transport.send.bind(transport);
    transport.send = async (message) => {
      await send(message);
      if (!('method' in message) && 'id' in message) {
        pending.delete(message.id as Id);
        check();
      }
    };
    const finish = () => {
      ended = true;
      // The last data event's requests reach onmessage before 'end'; their handlers run after.
      setImmediate(check);
    };
    const onclose = transport.onclose;
    transport.onclose = () => {
      onclose?.();
      pending.clear();
      finish();
    };
    process.stdin.once('end', finish);
  });
}

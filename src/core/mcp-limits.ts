/** Limits of the MCP endpoint (http/mcp-exchange.ts), here so that the reference (docs/) states them too. */

/** The SDK's transport answers 400 to a JSON-RPC batch of more messages than this. */
export const MAX_BATCH = 100;
/**
 * Characters of answers one request gets: a message whose turn comes once the answers so far
 * reached this is not run (a JSON-RPC error says so), so 100 tools/list cannot answer 20 MB.
 */
export const MAX_BATCH_ANSWER_CHARS = 8 * 1024 * 1024;
/** JSON-RPC's "server error" range: a message of a batch left out, not run. */
export const NOT_RUN = -32001;

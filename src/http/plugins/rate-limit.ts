/** The per-agent tool-call budget as a preHandler (REST counts one per call; MCP counts per message itself). */
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { rateLimited, type RateLimiter } from '../rate-limit.js';

/** Counts `count` calls of the agent; sets X-RateLimit-*; throws 429 RATE_LIMITED (with Retry-After) over the limit. */
export async function applyRateLimit(limiter: RateLimiter, agentId: string, reply: FastifyReply, count = 1): Promise<void> {
  // One check per unit: stops at the first refusal, so the loop runs at most limit + 1 times.
  let d = await limiter.check(agentId);
  for (let i = 1; i < count && d.allowed; i++) d = await limiter.check(agentId);
  reply.header('x-ratelimit-limit', String(d.limit));
  reply.header('x-ratelimit-remaining', String(d.remaining));
  reply.header('x-ratelimit-reset', String(Math.ceil(d.resetAtMs / 1000)));
  if (!d.allowed) throw rateLimited(d);
}

/** One call per request, after `authenticate` (the budget is the agent's). */
export function limitPerCall(limiter: RateLimiter): preHandlerAsyncHookHandler {
  return async (req: FastifyRequest, reply: FastifyReply) => applyRateLimit(limiter, req.identity.agentId, reply);
}

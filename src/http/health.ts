/** GET /healthz (the process answers) and GET /readyz (the store answers within 2 s). */
import type { FastifyInstance } from 'fastify';
import type { Store } from '../store/types.js';

export function healthRoutes(app: FastifyInstance, store: Store): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    try {
      await Promise.race([store.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref())]);
      return { status: 'ready', store: store.kind };
    } catch (err) {
      return reply.code(503).send({ status: 'unavailable', store: store.kind, reason: (err as Error).message });
    }
  });
}

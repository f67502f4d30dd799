/**
 * GET /exports/{token}: the archive export_my_data made a link for (tools/export.ts), streamed from
 * the store as it is sent (transfer/export.ts), with no key: the token is the secret (stored as its
 * sha256, scrubbed from logs). Unknown token: 404; expired, or its key revoked: 410, both JSON like /l/ links.
 * The response is not cacheable and not indexable. A failure while streaming (the store went away,
 * a content purged meanwhile, the size limit) aborts the connection: the client sees a truncated
 * download, and the archive's missing end blocks and end.json tell an import it is incomplete.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { iso } from '../core/time.js';
import type { Store } from '../store/types.js';
import { exportTokenHash } from '../tools/export.js';
import { exportArchive } from '../transfer/export.js';

function fail(reply: FastifyReply, status: 404 | 410, message: string, details?: Record<string, unknown>) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('x-robots-tag', 'noindex')
    .send({ error: { code: status === 404 ? 'NOT_FOUND' : 'GONE', message, ...(details ? { details } : {}) } });
}

const NOT_FOUND = 'No export answers at this URL. Call export_my_data for a new link.';

export function exportRoutes(app: FastifyInstance, store: Store, config: Config): void {
  app.get('/exports/:token', async (req: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply) => {
    const token = req.params.token;
    if (!/^ex_[A-Za-z0-9_-]{20,100}$/.test(token)) return fail(reply, 404, NOT_FOUND);
    const exp = await store.getExportByTokenHash(exportTokenHash(token));
    if (!exp) return fail(reply, 404, NOT_FOUND);
    // A leaked key's exports die with it: revoking the key that made the link revokes the link.
    if (exp.keyRevokedAtMs !== null && exp.keyRevokedAtMs <= Date.now()) {
      return fail(reply, 410, 'The key that made this export link was revoked, and the link with it. Call export_my_data with a live key.', {
        reason: 'key_revoked',
      });
    }
    if (exp.expiresAtMs <= Date.now()) {
      return fail(reply, 410, `This export link expired at ${iso(exp.expiresAtMs)}. Call export_my_data for a new one.`, { reason: 'expired' });
    }
    const stamp = iso(exp.createdAtMs).replace(/[:.]/g, '-');
    const stream = Readable.from(
      exportArchive({ store, agent: exp.agent, asOfSeq: exp.asOfSeq, baseUrl: config.baseUrl, maxBytes: config.maxExportBytes }),
      {
        objectMode: false,
      },
    );
    stream.on('error', (err) => req.log.warn({ err, exportId: exp.id }, 'export stream failed'));
    return reply
      .header('content-type', 'application/x-tar')
      .header('content-disposition', `attachment; filename="afs-${exp.agent.slug}-${stamp}.tar"`)
      .header('cache-control', 'no-store')
      .header('x-robots-tag', 'noindex')
      .header('x-content-type-options', 'nosniff')
      .send(stream);
  });
}

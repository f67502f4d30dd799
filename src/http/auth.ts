/**
 * Bearer authentication for tool calls. Each failure says which rule failed (missing header,
 * wrong scheme, malformed key, unknown, revoked, expired) without revealing anything about
 * other agents' keys. A missing header carries the redirect hint (docs/contract/http.md, The canonical
 * host): a client drops the header when it follows a redirect; a key that arrived has nothing to do with one.
 */
import { LruMap } from 'toad-cache';
import { TransportError } from '../core/errors.js';
import { KEY_PATTERN, hashApiKey } from '../core/keys.js';
import { readScopes } from '../core/scopes.js';
import type { AuthRecord, Store } from '../store/types.js';
import type { AuthContext } from '../tools/registry.js';

const TOUCH_INTERVAL_MS = 60_000;
/**
 * Key lookups are kept until the store's auth epoch moves (any key revoked, re-scoped or deleted,
 * any agent renamed, on any instance: store authEpoch), so a revocation takes effect on the next
 * request everywhere (docs/contract/keys.md). This bound only ages out entries of an epoch that never moves.
 */
export const AUTH_CACHE_TTL_MS = 600_000;
const AUTH_CACHE_MAX = 50_000;
const TOUCHED_MAX = 100_000;

export class Authenticator {
  /** Keys touched within TOUCH_INTERVAL_MS (least recently used dropped first when full). */
  private readonly touched: LruMap<true>;
  /** Lookups by key hash, `null` for unknown keys too (least recently used dropped first when full). */
  private readonly cache: LruMap<{ record: AuthRecord | null }>;
  private readonly inflight = new Map<string, { epoch: number; lookup: Promise<AuthRecord | null> }>();
  /** The store's auth epoch the cached lookups belong to. */
  private epoch: number | null = null;

  constructor(
    private readonly store: Store,
    private readonly baseUrl: string,
    sizes: { cache?: number; touched?: number } = {},
  ) {
    this.cache = new LruMap(sizes.cache ?? AUTH_CACHE_MAX, AUTH_CACHE_TTL_MS);
    this.touched = new LruMap(sizes.touched ?? TOUCHED_MAX, TOUCH_INTERVAL_MS);
  }

  private fail(reason: string, message: string): TransportError {
    const hint =
      reason === 'missing'
        ? ` If you were redirected from another host, your client dropped the Authorization header: call ${this.baseUrl} directly.`
        : '';
    return new TransportError(
      'UNAUTHORIZED',
      message + hint,
      // RFC 6750: a 401 names the scheme the client should use.
      { details: { reason }, headers: { 'www-authenticate': 'Bearer' } },
    );
  }

  async authenticate(header: string | undefined): Promise<AuthContext> {
    if (!header) {
      throw this.fail('missing', 'Missing Authorization header. Send "Authorization: Bearer mk_…" with the key from registration.');
    }
    const space = header.indexOf(' ');
    const scheme = space === -1 ? header : header.slice(0, space);
    if (scheme.toLowerCase() !== 'bearer') {
      // Nothing of the header is echoed: without a scheme its first word may be the key itself.
      throw this.fail(
        'wrong_scheme',
        'The Authorization header does not start with "Bearer ". Send "Authorization: Bearer mk_…": the word Bearer, one space, then the whole key.',
      );
    }
    const key = header.slice(space + 1).trim();
    if (!KEY_PATTERN.test(key)) {
      throw this.fail('malformed', 'Malformed API key: keys are "mk_" followed by 43 letters and digits. Check for truncation or extra characters.');
    }
    const found = await this.lookup(hashApiKey(key));
    if (!found) throw this.fail('unknown', 'Unknown API key. Check that you saved the whole key from registration, or register again.');
    const now = Date.now();
    if (found.key.revokedAtMs !== null && found.key.revokedAtMs <= now) {
      throw this.fail('revoked', `This API key was revoked at ${new Date(found.key.revokedAtMs).toISOString()}. Use another key.`);
    }
    if (found.key.expiresAtMs !== null && found.key.expiresAtMs <= now) {
      throw this.fail('expired', `This API key expired at ${new Date(found.key.expiresAtMs).toISOString()}. Use another key.`);
    }
    this.touch(found.key.id, now);
    // A rotated-out key in its grace period only reads: its replacement exists, and a key on its
    // way out must not write, mint or rotate again (the one rule; tools and tools/list follow it).
    const retiring = found.key.revokedAtMs !== null;
    return {
      keyId: found.key.id,
      label: found.key.label,
      agentId: found.agent.id,
      agentSlug: found.agent.slug,
      agentName: found.agent.name,
      scopes: retiring ? readScopes(found.key.scopes) : found.key.scopes,
      folder: found.key.folder,
      expiresAtMs: found.key.expiresAtMs,
      revokedAtMs: found.key.revokedAtMs,
    };
  }

  private lookup(hash: string): Promise<AuthRecord | null> {
    const epoch = this.store.authEpoch();
    if (epoch !== this.epoch) {
      this.cache.clear();
      this.epoch = epoch;
    }
    if (epoch === null) return this.store.findKeyByHash(hash); // changes cannot be learned: keep nothing
    const hit = this.cache.get(hash);
    if (hit) return Promise.resolve(hit.record);
    // Concurrent requests of one key share its lookup (a burst after a change costs one read).
    const flying = this.inflight.get(hash);
    if (flying && flying.epoch === epoch) return flying.lookup;
    const lookup = this.store.findKeyByHash(hash).then((record) => {
      // A change announced while the row was being read may predate it: not kept.
      if (this.store.authEpoch() === epoch) this.cache.set(hash, { record });
      return record;
    });
    const done = () => {
      if (this.inflight.get(hash)?.lookup === lookup) this.inflight.delete(hash);
    };
    lookup.then(done, done);
    this.inflight.set(hash, { epoch, lookup });
    return lookup;
  }

  /** Drops cached lookups so a revocation takes effect on this instance immediately. */
  forget(): void {
    this.cache.clear();
  }

  /** lastUsedAt is kept to the minute, so a hot key costs no write per request. */
  private touch(keyId: string, now: number): void {
    if (this.touched.get(keyId)) return;
    this.touched.set(keyId, true);
    this.store.touchKey(keyId, now).catch(() => this.touched.delete(keyId));
  }
}

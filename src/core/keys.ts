/** API keys: 'mk_' + base62 of 32 random bytes. Only the SHA-256 hex digest is ever stored. */
import { hash, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PREFIX = 'mk_';
const KEY_BODY_LENGTH = 43; // ceil(256 / log2(62)) = 43 base62 digits carry 32 random bytes
export const KEY_PATTERN = /^mk_[0-9A-Za-z]{43}$/;

// Random base62 strings are drawn from a pooled buffer of random bytes: one getrandom call per
// few hundred ids instead of one each (ids are minted on every write). Bytes >= 248 are skipped
// so each of the 62 digits stays equally likely (248 = 4 × 62).
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolPos = POOL_SIZE;

function randomByte(): number {
  if (poolPos === POOL_SIZE) {
    randomFillSync(pool);
    poolPos = 0;
  }
  return pool[poolPos++]!;
}

export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < 248) out += ALPHABET[b % 62];
  }
  return out;
}

export function generateApiKey(): string {
  return KEY_PREFIX + randomBase62(KEY_BODY_LENGTH);
}

export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** A short non-secret preview for listings: 'mk_AbCd…wxYz'. */
export function keyPreview(key: string): string {
  return `${key.slice(0, 7)}…${key.slice(-4)}`;
}

/**
 * Identifiers that sort by creation time: 8 base62 digits of epoch milliseconds (good until the
 * year 8888), then 14 random ones (83 bits). An index on them grows at its right edge, so the
 * commits of one batch share its last page instead of each dirtying a random one.
 */
export function newTimeOrderedId(prefix: string, nowMs = Date.now()): string {
  let t = '';
  for (let n = Math.floor(nowMs), i = 0; i < 8; i++, n = Math.floor(n / 62)) t = ALPHABET[n % 62] + t;
  return `${prefix}_${t}${randomBase62(14)}`;
}

/** Random identifiers with a readable type prefix ('agt_', 'key_', 'cs_'). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(22)}`;
}

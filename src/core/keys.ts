/** API keys: 'mk_' + base62 of 32 random bytes. Only the SHA-256 hex digest is ever stored. */
import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PREFIX = 'mk_';
const KEY_BODY_LENGTH = 43; // ceil(256 / log2(62)) = 43 base62 digits carry 32 random bytes
export const KEY_PATTERN = /^mk_[0-9A-Za-z]{43}$/;

export function base62(bytes: Uint8Array, length: number): string {
  let n = BigInt('0x' + (Buffer.from(bytes).toString('hex') || '0'));
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

export function generateApiKey(): string {
  return KEY_PREFIX + base62(randomBytes(32), KEY_BODY_LENGTH);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A short non-secret preview for listings: 'mk_AbCd…wxYz'. */
export function keyPreview(key: string): string {
  return `${key.slice(0, 7)}…${key.slice(-4)}`;
}

/** Random identifiers with a readable type prefix ('agt_', 'key_', 'cs_'). */
export function newId(prefix: string): string {
  return `${prefix}_${base62(randomBytes(16), 22)}`;
}

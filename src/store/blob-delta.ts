/**
 * A copy/insert delta between two contents, in the manner of git's diff-delta and xdelta: the
 * base is indexed by a hash of each 16-byte block at block boundaries; the target is scanned with
 * a rolling hash of the same window, and a block found in the base is extended forwards and
 * backwards as far as the bytes agree. Linear time in base + target (each target byte is hashed
 * once, matched bytes are skipped), memory bounded by the index (at most INDEX_MAX slots, one
 * candidate per slot: repetitive input cannot make a bucket long). Written as a Work generator
 * (core/work.ts) so a 10 MB pair is computed in slices of the event loop.
 *
 * Format (before store/blob-codec.ts deflates it): varint target length, then ops until the end:
 * varint (n·2) followed by n literal bytes (insert), or varint (n·2 + 1) and varint offset (copy n
 * bytes of the base from offset). Varints are LEB128 with multiplication, so lengths past 2^31 work.
 */
import type { Work } from '../core/work.js';

const BLOCK = 16;
/** Hash slots of the base's index: 2^20 Int32 = 4 MB at most (a 16 MB base has 2^20 blocks). */
const INDEX_MAX = 1 << 20;
/** Work units (bytes hashed or compared) between checkpoints: ~1-3 ms here. */
const CHECKPOINT = 256 * 1024;
const MUL = 0x01000193;

/** MUL^(BLOCK-1) mod 2^32: what the byte leaving the window weighed. */
const OUT_WEIGHT = (() => {
  let w = 1;
  for (let i = 0; i < BLOCK - 1; i++) w = Math.imul(w, MUL);
  return w;
})();

function blockHash(buf: Uint8Array, at: number): number {
  let h = 0;
  for (let i = 0; i < BLOCK; i++) h = (Math.imul(h, MUL) + buf[at + i]!) | 0;
  return h;
}

/** A growable output buffer. */
class Out {
  buf: Buffer;
  len = 0;
  constructor(hint: number) {
    this.buf = Buffer.allocUnsafe(Math.max(64, hint));
  }
  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
  varint(v: number): void {
    this.room(10);
    while (v >= 0x80) {
      this.buf[this.len++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.len++] = v;
  }
  bytes(src: Uint8Array, from: number, to: number): void {
    this.room(to - from);
    this.buf.set(src.subarray(from, to), this.len);
    this.len += to - from;
  }
}

/**
 * The delta that turns `base` into `target`, or null once it would be longer than `limit` bytes
 * (the caller then stores the target without a delta: no point finishing).
 */
export function* deltaWork(base: Uint8Array, target: Uint8Array, limit = target.length + 32): Work<Buffer | null> {
  const blocks = Math.floor(base.length / BLOCK);
  let slots = 1;
  while (slots < blocks && slots < INDEX_MAX) slots <<= 1;
  const mask = slots - 1;
  const index = new Int32Array(slots).fill(-1);
  let work = 0;
  // Earlier blocks win a slot: any candidate is as good for extending, and the first keeps copies near.
  for (let b = blocks - 1; b >= 0; b--) {
    index[blockHash(base, b * BLOCK) & mask] = b * BLOCK;
    if ((work += BLOCK) >= CHECKPOINT) {
      work = 0;
      yield;
    }
  }
  const out = new Out(Math.min(target.length, 4096));
  out.varint(target.length);
  let pending = 0; // start of the literal bytes not yet emitted
  let i = 0;
  let h = target.length >= BLOCK ? blockHash(target, 0) : 0;
  while (i + BLOCK <= target.length) {
    const c = blocks ? index[h & mask]! : -1;
    let len = 0;
    if (c >= 0) while (len < BLOCK && base[c + len] === target[i + len]) len++;
    if (len === BLOCK) {
      let from = c;
      let at = i;
      while (at + len < target.length && from + len < base.length && base[from + len] === target[at + len]) len++;
      while (at > pending && from > 0 && base[from - 1] === target[at - 1]) {
        at--;
        from--;
        len++;
      }
      if (at > pending) {
        out.varint((at - pending) * 2);
        out.bytes(target, pending, at);
      }
      out.varint(len * 2 + 1);
      out.varint(from);
      if (out.len > limit) return null;
      work += len;
      i = at + len;
      pending = i;
      if (i + BLOCK <= target.length) h = blockHash(target, i);
    } else {
      if (i + BLOCK < target.length) h = (Math.imul(h - Math.imul(target[i]!, OUT_WEIGHT), MUL) + target[i + BLOCK]!) | 0;
      i++;
      work++;
      if (i - pending > limit) return null;
    }
    if (work >= CHECKPOINT) {
      work = 0;
      yield;
    }
  }
  if (pending < target.length) {
    out.varint((target.length - pending) * 2);
    out.bytes(target, pending, target.length);
  }
  return out.len > limit ? null : out.buf.subarray(0, out.len);
}

export class CorruptDelta extends Error {
  constructor(what: string) {
    super(`corrupt delta: ${what}`);
    this.name = 'CorruptDelta';
  }
}

/**
 * Applies a delta to its base: a copy of each op's bytes, ~memcpy speed (100 KB: ~20 µs). Into
 * `into` when it is big enough (a chain's intermediate versions reuse two buffers: 63 fresh
 * 100 KB buffers per read cost more in allocation and GC than the copies).
 */
export function applyDelta(base: Uint8Array, delta: Uint8Array, into?: Buffer): Buffer {
  let at = 0;
  const varint = (): number => {
    let v = 0;
    let scale = 1;
    for (;;) {
      if (at >= delta.length) throw new CorruptDelta('truncated');
      const b = delta[at++]!;
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 0x80;
      if (scale > 2 ** 49) throw new CorruptDelta('varint too long');
    }
  };
  const size = varint();
  const out = into && into.length >= size ? into.subarray(0, size) : Buffer.allocUnsafe(size);
  let pos = 0;
  while (at < delta.length) {
    const op = varint();
    const n = Math.floor(op / 2);
    if (pos + n > size) throw new CorruptDelta('longer than its target');
    if (op % 2 === 1) {
      const from = varint();
      if (from + n > base.length) throw new CorruptDelta('copy past its base');
      out.set(base.subarray(from, from + n), pos);
    } else {
      if (at + n > delta.length) throw new CorruptDelta('insert past its end');
      out.set(delta.subarray(at, at + n), pos);
      at += n;
    }
    pos += n;
  }
  if (pos !== size) throw new CorruptDelta('shorter than its target');
  return out;
}

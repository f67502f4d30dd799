/** grep: decoding input bytes (lossless UTF-8, encoding errors, raw output). */
import { Buffer } from 'node:buffer';

/** UTF-8 to a JS string, every byte of an invalid sequence mapped to a lone U+DC80+byte. */
export function decodeLossless(b: Uint8Array): string {
  const parts: string[] = [];
  let codes: number[] = [];
  const n = b.length;
  let i = 0;
  while (i < n) {
    const c = b[i]!;
    let cp = -1;
    let len = 1;
    if (c < 0x80) cp = c;
    else if (c >= 0xc2 && c <= 0xdf) {
      const c1 = b[i + 1];
      if (c1 !== undefined && (c1 & 0xc0) === 0x80) {
        cp = ((c & 0x1f) << 6) | (c1 & 0x3f);
        len = 2;
      }
    } else if (c >= 0xe0 && c <= 0xef) {
      const c1 = b[i + 1];
      const c2 = b[i + 2];
      const lo = c === 0xe0 ? 0xa0 : 0x80;
      const hi = c === 0xed ? 0x9f : 0xbf;
      if (c1 !== undefined && c2 !== undefined && c1 >= lo && c1 <= hi && (c2 & 0xc0) === 0x80) {
        cp = ((c & 0x0f) << 12) | ((c1 & 0x3f) << 6) | (c2 & 0x3f);
        len = 3;
      }
    } else if (c >= 0xf0 && c <= 0xf4) {
      const c1 = b[i + 1];
      const c2 = b[i + 2];
      const c3 = b[i + 3];
      const lo = c === 0xf0 ? 0x90 : 0x80;
      const hi = c === 0xf4 ? 0x8f : 0xbf;
      if (c1 !== undefined && c2 !== undefined && c3 !== undefined && c1 >= lo && c1 <= hi && (c2 & 0xc0) === 0x80 && (c3 & 0xc0) === 0x80) {
        cp = ((c & 0x07) << 18) | ((c1 & 0x3f) << 12) | ((c2 & 0x3f) << 6) | (c3 & 0x3f);
        len = 4;
      }
    }
    if (cp < 0) cp = 0xdc00 + c;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      codes.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
    } else codes.push(cp);
    i += len;
    if (codes.length >= 8192) {
      parts.push(String.fromCharCode(...codes));
      codes = [];
    }
  }
  parts.push(String.fromCharCode(...codes));
  return parts.join('');
}

/** Does text[from, to) hold a byte that was not valid UTF-8 (a lone U+DC80..U+DCFF)? */
export function hasEncodingError(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc80 && c <= 0xdcff) {
      const p = i > 0 ? text.charCodeAt(i - 1) : 0;
      if (!(p >= 0xd800 && p <= 0xdbff)) return true;
    }
  }
  return false;
}

/** Output text back to bytes (latin1-shaped), lone U+DC80+b surrogates becoming byte b. */
export function toRawBytes(s: string): string {
  const out: string[] = [];
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc80 && c <= 0xdcff) {
      const p = i > 0 ? s.charCodeAt(i - 1) : 0;
      if (p >= 0xd800 && p <= 0xdbff) continue;
      out.push(Buffer.from(s.slice(last, i), 'utf8').toString('latin1'), String.fromCharCode(c - 0xdc00));
      last = i + 1;
    }
  }
  out.push(Buffer.from(s.slice(last), 'utf8').toString('latin1'));
  return out.join('');
}

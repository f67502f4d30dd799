/**
 * Byte strings: a latin1 string holds one byte per char (char code = byte), so GNU's byte
 * semantics (C-locale sorting, `head -c`, binary data passing through) are string operations.
 */
import { Buffer } from 'node:buffer';
import type { Result } from './command.js';

/** The UTF-8 bytes of a string, as a byte string. */
export const utf8ToLatin1 = (s: string): string => Buffer.from(s, 'utf8').toString('latin1');

/** A byte string read back as UTF-8. */
export const latin1ToUtf8 = (s: string): string => Buffer.from(s, 'latin1').toString('utf8');

/** A result whose stdout is a byte string (one char per byte), passed through unchanged. */
export function bytesResult(stdout: string, stderr: string, exitCode: number): Result {
  return { stdout, stderr, exitCode, stdoutKind: 'bytes', stdoutEncoding: 'binary' } as Result;
}

export function isValidUtf8(b: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
}

/** Byte-order comparison (UTF-8 byte order = code point order), like strcmp in the C locale. */
export function byteCmp(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length - b.length < 0 ? -1 : a.length === b.length ? 0 : 1;
}

/**
 * Output of a byte cut (`head -c`, `tail -c`): bytes, unless it is UTF-8 text whose first or
 * last character was cut, which just-bash would show as Latin-1 — then text with U+FFFD.
 */
export function cutResult(stdout: string, stderr: string, exitCode: number): Result {
  const buf = Buffer.from(stdout, 'latin1');
  if (isValidUtf8(buf)) return bytesResult(stdout, stderr, exitCode);
  let s = 0;
  while (s < 3 && s < buf.length && (buf[s]! & 0xc0) === 0x80) s++;
  let e = buf.length;
  for (let k = 0; k < 3 && e > s; k++) {
    const c = buf[e - 1]!;
    if ((c & 0xc0) === 0x80) e--;
    else {
      if (c >= 0xc0) e--;
      break;
    }
  }
  if (isValidUtf8(buf.subarray(s, e))) return { stdout: buf.toString('utf8'), stderr, exitCode, stdoutKind: 'text' } as Result;
  return bytesResult(stdout, stderr, exitCode);
}

/** The C locale's ctype on a byte (char code). */
export const isDigit = (c: number): boolean => c >= 48 && c <= 57;
export const isAlpha = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
export const isAlnum = (c: number): boolean => isDigit(c) || isAlpha(c);

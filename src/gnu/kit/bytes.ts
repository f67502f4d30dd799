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

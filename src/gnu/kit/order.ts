/**
 * The order in which a command wrote to stdout and stderr, so that `2>&1` interleaves them as a
 * process writing to one descriptor would (`cat missing a.txt 2>&1`: the error, then a.txt).
 * A result carries it under OUTPUT_ORDER as chunks `[1 | 2, text]` whose stdout texts join to
 * its stdout and stderr texts to its stderr; the patched interpreter checks that before using
 * it (src/sandbox/just-bash/order.ts), so a result without it, or with a stale one, reads as
 * stdout then stderr, as before.
 */
import type { Result } from './command.js';

export const OUTPUT_ORDER = Symbol.for('afs.order');

export type OrderChunk = [1 | 2, string];

/**
 * A command's error messages, each remembered with how many pieces of its output (`out`, the
 * array the command builds stdout in) were written before it.
 */
export class OrderedErrors {
  private readonly texts: string[] = [];
  private readonly at: number[] = [];

  constructor(private readonly out: readonly string[]) {}

  push(...messages: string[]): number {
    for (const m of messages) {
      this.texts.push(m);
      this.at.push(this.out.length);
    }
    return this.texts.length;
  }

  join(separator = ''): string {
    return this.texts.join(separator);
  }

  get length(): number {
    return this.texts.length;
  }

  /**
   * The output and the messages in the order a process writing them would leave them in one
   * file: `stdout` is the command's stdout as bytes (one char per byte), `bytesOf` the length a
   * piece of `out` has in it. GNU tools print through stdio, fully buffered into a file or a
   * pipe, but they report through error(), which flushes stdout first: every message comes
   * after all the output written before it (`grep x a missing b 2>&1`: a's lines, the message,
   * b's lines).
   */
  chunks(stdout: string, bytesOf: (piece: string) => number = (s) => s.length): OrderChunk[] {
    const chunks: OrderChunk[] = [];
    let piece = 0;
    let done = 0;
    this.texts.forEach((text, i) => {
      let bytes = done;
      for (; piece < this.at[i]!; piece++) bytes += bytesOf(this.out[piece]!);
      if (bytes > done) chunks.push([1, stdout.slice(done, bytes)]);
      done = bytes;
      chunks.push([2, text]);
    });
    if (done < stdout.length) chunks.push([1, stdout.slice(done)]);
    return chunks;
  }
}

/** The result with its writing order, when it wrote to both streams. */
export function inOrder(r: Result, chunks: () => OrderChunk[]): Result {
  if (r.stdout && r.stderr) (r as Result & { [OUTPUT_ORDER]?: OrderChunk[] })[OUTPUT_ORDER] = chunks();
  return r;
}

/** The result with its errors written before its output (a command that reports before it prints, as `sort` or `ls`). */
export function errorsFirst(r: Result): Result {
  return inOrder(r, () => [
    [2, r.stderr],
    [1, r.stdout],
  ]);
}

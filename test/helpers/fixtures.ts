/** Deterministic inputs for the cost suites (edit-cost*, and their slow variants). */

/** Deterministic pseudo-random numbers (tests must not depend on luck). */
export function rng(seed: number): (n: number) => number {
  let s = seed;
  return (n: number) => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s % n;
  };
}

/** `n` letters drawn from `alphabet`. */
export const words = (rnd: (n: number) => number, n: number, alphabet = 'abcdefghijklmnopqrstuvwxyz'): string =>
  Array.from({ length: n }, () => alphabet[rnd(alphabet.length)]).join('');

/** The diff without the trailing notes (truncation, approximation), to be applied as a patch. */
export const patchOf = (diff: string): string =>
  diff
    .split('\n')
    .filter((l) => !l.startsWith('... '))
    .join('\n');

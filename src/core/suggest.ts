/** "Did you mean" helpers: edit distance over short strings. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

/** Candidates closest to `word`, best first, within a distance that scales with length. */
export function closest(word: string, candidates: Iterable<string>, max = 3): string[] {
  const w = word.toLowerCase();
  const scored: Array<{ c: string; d: number }> = [];
  for (const c of candidates) {
    const lc = c.toLowerCase();
    let d = editDistance(w, lc);
    if (lc.includes(w) || w.includes(lc)) d = Math.min(d, 1);
    const limit = Math.max(2, Math.floor(Math.max(w.length, lc.length) / 3));
    if (d <= limit) scored.push({ c, d });
  }
  scored.sort((x, y) => x.d - y.d || x.c.localeCompare(y.c));
  return scored.slice(0, max).map((s) => s.c);
}

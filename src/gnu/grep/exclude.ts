/** grep: globs for --include / --exclude / --exclude-dir (fnmatch without flags, gnulib exclude). */

import { fnmatchRegExp, hasWildcards } from '../kit/fnmatch.js';
import { posixClass } from './classes.js';

/** grep matches names by character, with its Unicode classes. */
const nameClass = (name: string): string | null => posixClass(name, false);

interface ExcludePattern {
  include: boolean;
  wild: boolean;
  re: RegExp | null;
  literal: string;
}

/** One list of gnulib exclude patterns (for command-line names or for names met recursing). */
export class ExcludeList {
  readonly pats: ExcludePattern[] = [];
  constructor(private readonly anchored: boolean) {}

  add(pattern: string, include: boolean): void {
    const wild = hasWildcards(pattern);
    const literal = wild ? pattern : pattern.replace(/\\(.)/gs, '$1');
    this.pats.push({ include, wild, re: wild ? fnmatchRegExp(pattern, nameClass) : null, literal });
  }

  private matchOne(p: ExcludePattern, f: string): boolean {
    const test = (s: string) => (p.re ? p.re.test(s) : s === p.literal);
    if (test(f)) return true;
    if (!this.anchored) {
      for (let i = 0; i < f.length; i++) if (f[i] === '/' && f[i + 1] !== '/' && i + 1 < f.length && test(f.slice(i + 1))) return true;
    }
    return false;
  }

  /** gnulib excluded_file_name: the last matching group of options decides. */
  excluded(f: string): boolean {
    if (!this.pats.length) return false;
    // Group consecutive patterns into segments like gnulib (same kind and include flag).
    const segs: ExcludePattern[][] = [];
    for (const p of this.pats) {
      const last = segs[segs.length - 1];
      if (last && last[0]!.wild === p.wild && last[0]!.include === p.include) last.push(p);
      else segs.push([p]);
    }
    for (let s = segs.length - 1; s >= 0; s--) {
      const seg = segs[s]!;
      if (seg.some((p) => this.matchOne(p, f))) return !seg[0]!.include;
    }
    return !!segs[0]![0]!.include;
  }
}

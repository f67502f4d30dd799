/**
 * Regex searches that run away: V8 matches by backtracking, so nested repetition (`^(a+)+$` on
 * `aaa…a!`) takes exponential time and a repetition over one long line quadratic (`x+y` over a
 * 64 KB line of `x`: ~4 s), where GNU grep's DFA is linear. A search is one synchronous call
 * that nothing inside the worker can interrupt, so the worker marks each search it starts in a
 * cell shared with the pool, and the pool stops a worker whose search has run past its budget
 * (pool.ts), long before the command's deadline, and answers with the reason. Marking costs two
 * atomic writes per search (a file, a name): nothing next to the search itself. A budget inside
 * the worker (a `vm` timeout, which V8 honours inside a regex) cost ~0.1 ms per search: +0.9 to
 * +3.4 s on a `grep -rnE` over 10,000 files.
 *
 * Covered: grep's searches (every pattern that is not a plain literal) and find -regex. Not
 * covered: just-bash's own sed, awk and expr; their runaways end at the command's deadline.
 */

import { SEARCH } from '../gnu/kit/search-watch.js';

export { SEARCH, watchSearches, watched, type SearchKind } from '../gnu/kit/search-watch.js';

/** The budget of one search: 2 s, or a quarter of the command's wall-time limit if that is shorter. */
export function searchBudgetMs(timeoutMs: number): number {
  return Math.max(50, Math.min(2000, timeoutMs / 4));
}

/** What the command says when the pool stopped its search (stderr, exit code). */
export function stoppedSearch(kind: number, budgetMs: number): { stderr: string; exitCode: number } {
  const why =
    `ran over ${budgetMs} ms on one input and was stopped (backtracking: nested repetition such as (a+)+ takes exponential time, ` +
    'repetition over a very long line quadratic); the whole command was stopped and nothing it did was saved.';
  if (kind === SEARCH.findRegex)
    return { stderr: `find: -regex: the pattern ${why} Simplify the pattern (e.g. (a+)+ to a+), or use -name or -path.\n`, exitCode: 1 };
  return { stderr: `grep: the pattern ${why} Simplify the pattern (e.g. (a+)+ to a+), or use -F for fixed strings.\n`, exitCode: 2 };
}

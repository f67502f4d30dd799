/**
 * Search text, the same on both backends (docs/contract/community.md#search): documents and queries are cut into
 * tokens here, in JS, and the engines (SQLite FTS5, PostgreSQL tsvector) only match the tokens we
 * give them. Their own parsers disagree (PostgreSQL reads `foo.bar` as a host name and, under a C
 * locale, drops non-ASCII letters), so neither sees raw text.
 *
 * A token is a run of letters and digits, lower-cased, accents removed (NFKD without marks): so
 * `foo_bar`, `foo.bar` and `src/app.ts` are runs of tokens, found by the phrase of their parts. An
 * identifier with inner capitals (`fooBar`, `HTTPServer`) is one token, and its parts are added once
 * after the text (`foo bar`, `http server`), so `bar` finds `fooBar` while phrases of whole words
 * still match where they stand. Work is linear in the text: one regex pass, a map of positions.
 */

/** Letters and digits (a token), after NFKD and without marks. */
const WORD = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;
const ASCII_WORD = /[A-Za-z0-9]+/g;
const NON_ASCII = /[^\x00-\x7f]/;
/** Inner capital boundaries: fooBar → foo|Bar, HTTPServer → HTTP|Server, parseJSON → parse|JSON. */
const CAMEL = /[\p{Lu}]?[\p{Ll}\p{N}]+|[\p{Lu}]+(?![\p{Ll}])|[\p{Lu}]+(?=[\p{Lu}][\p{Ll}])/gu;
/** PostgreSQL keeps at most 256 positions per lexeme and numbers positions up to 16,383. */
const PG_MAX_POSITIONS = 256;
const PG_MAX_POSITION = 16_383;
/** PostgreSQL refuses lexemes of 2 KB and more; a longer run of letters is no word anyone searches. */
export const MAX_TOKEN_CHARS = 200;

const fold = (s: string) => s.normalize('NFKD').replace(MARKS, '').toLowerCase();

/** The tokens of a text, in order: each word, then the parts of the words with inner capitals. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const parts: string[] = [];
  const seenCamel = new Set<string>();
  // ASCII words need no Unicode folding (3x faster on code and English prose).
  const ascii = !NON_ASCII.test(text);
  for (const m of text.matchAll(ascii ? ASCII_WORD : WORD)) {
    const word = m[0];
    if (ascii) {
      if (word.length <= MAX_TOKEN_CHARS) out.push(word.toLowerCase());
    } else for (const t of fold(word).match(WORD) ?? []) if (t.length <= MAX_TOKEN_CHARS) out.push(t);
    if (word.length > MAX_TOKEN_CHARS || !/\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u.test(word) || seenCamel.has(word)) continue;
    seenCamel.add(word);
    for (const p of word.match(CAMEL) ?? []) parts.push(...(fold(p).match(WORD) ?? []));
  }
  return parts.length ? out.concat(parts) : out;
}

/** The tokens of a query word (no camel parts: the document side has them). */
export const queryTokens = (word: string): string[] => (fold(word).match(WORD) ?? []).filter((t) => t.length <= MAX_TOKEN_CHARS);

/** What SQLite's FTS5 indexes: the tokens, space-separated (its unicode61 tokenizer splits them back). */
export const ftsText = (tokens: readonly string[]) => tokens.join(' ');

/** Where an ASCII word has an inner capital (fooBar, HTTPServer): fixed-length, so one linear pass. */
const ASCII_CAMEL_AT = /[a-z][A-Z]|[A-Z][A-Z][a-z]/g;
const ASCII_ALNUM = /[A-Za-z0-9]/;
const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * What SQLite's FTS5 indexes for a document (null: no token). ASCII text goes as it is, with the
 * camel parts after it: FTS5's unicode61 cuts and lower-cases the same letter and digit runs
 * `tokenize` would (test/search-text.test.ts compares them in a real FTS5 table), in C, so the
 * indexer skips tokenizing in JS (17 of ~80 µs a 1 KB file). The one difference: a run of more
 * than MAX_TOKEN_CHARS letters is kept, and no query can name it. Other text goes as its tokens.
 */
export function ftsDocText(text: string): string | null {
  if (NON_ASCII.test(text)) {
    const tokens = tokenize(text);
    return tokens.length ? ftsText(tokens) : null;
  }
  if (!ASCII_ALNUM.test(text)) return null;
  let parts: string[] | null = null;
  const seen = new Set<string>();
  const at = new RegExp(ASCII_CAMEL_AT);
  for (let m = at.exec(text); m; m = at.exec(text)) {
    // The whole word around the boundary; the search goes on after it (each word read once).
    let start = m.index;
    while (start > 0 && isAlnum(text.charCodeAt(start - 1))) start--;
    let end = m.index + m[0].length;
    while (end < text.length && isAlnum(text.charCodeAt(end))) end++;
    at.lastIndex = end;
    const word = text.slice(start, end);
    if (word.length > MAX_TOKEN_CHARS || seen.has(word)) continue;
    seen.add(word);
    for (const p of word.match(CAMEL) ?? []) (parts ??= []).push(p.toLowerCase());
  }
  return parts ? `${text}\n${parts.join(' ')}` : text;
}

/** A PostgreSQL tsvector literal of the tokens with their positions (no parser involved). */
export function tsvectorLiteral(tokens: readonly string[]): string {
  const positions = new Map<string, number[]>();
  tokens.forEach((t, i) => {
    let list = positions.get(t);
    if (!list) positions.set(t, (list = []));
    if (list.length < PG_MAX_POSITIONS) list.push(Math.min(i + 1, PG_MAX_POSITION));
  });
  const parts: string[] = [];
  for (const [t, list] of positions) parts.push(`'${t}':${[...new Set(list)].join(',')}`);
  return parts.join(' ');
}

// ---- queries --------------------------------------------------------------------------------

export interface QueryTerm {
  /** One token, or a phrase of several in order. */
  tokens: string[];
  /** The last token is a prefix (`word*`). */
  prefix: boolean;
}

export interface ParsedQuery {
  include: QueryTerm[];
  exclude: QueryTerm[];
}

export class QueryError extends Error {}

/** Query terms beyond this are refused (each is a lookup in the index). */
export const MAX_QUERY_TERMS = 32;

/**
 * `words are ANDed`, `"a phrase"`, `-word` or `-"a phrase"` excludes, `word*` a prefix. A word
 * that is several tokens (`foo_bar`, `app.ts`) is the phrase of them. `AND` between words is
 * allowed and changes nothing; `OR` is refused (one search per alternative).
 */
export function parseQuery(query: string): ParsedQuery {
  const include: QueryTerm[] = [];
  const exclude: QueryTerm[] = [];
  const re = /(-?)(?:"([^"]*)"?|(\S+))/g;
  for (const m of query.matchAll(re)) {
    const negative = m[1] === '-';
    const phrase = m[2];
    let raw = phrase ?? m[3]!;
    if (phrase === undefined && !negative && raw === 'AND') continue;
    if (phrase === undefined && raw === 'OR') throw new QueryError('OR is not supported: words are ANDed. Search once per alternative.');
    let prefix = false;
    if (raw.endsWith('*')) {
      prefix = true;
      raw = raw.replace(/\*+$/, '');
    }
    const tokens = queryTokens(raw);
    if (!tokens.length) continue; // punctuation alone, or a lone '-'
    (negative ? exclude : include).push({ tokens, prefix });
  }
  if (!include.length) {
    throw new QueryError(
      exclude.length
        ? 'The query only excludes: add at least one word to find.'
        : 'The query has no word to find (letters or digits). Example: "parse config" or "fooBar".',
    );
  }
  if (include.length + exclude.length > MAX_QUERY_TERMS) throw new QueryError(`At most ${MAX_QUERY_TERMS} words and phrases per query.`);
  return { include, exclude };
}

const ftsTerm = (t: QueryTerm) => `"${t.tokens.join(' ')}"${t.prefix ? '*' : ''}`;

/** The FTS5 MATCH expression (tokens hold only letters and digits: nothing to escape). */
export function ftsQuery(q: ParsedQuery): string {
  const positive = q.include.map(ftsTerm).join(' AND ');
  return q.exclude.length ? `(${positive})${q.exclude.map((t) => ` NOT ${ftsTerm(t)}`).join('')}` : positive;
}

const tsTerm = (t: QueryTerm) => {
  const last = t.tokens.length - 1;
  const inner = t.tokens.map((k, i) => `'${k}'${t.prefix && i === last ? ':*' : ''}`).join(' <-> ');
  return t.tokens.length > 1 ? `(${inner})` : inner;
};

/** The tsquery literal. */
export function tsQuery(q: ParsedQuery): string {
  return [...q.include.map(tsTerm), ...q.exclude.map((t) => `!${tsTerm(t)}`)].join(' & ');
}

// ---- snippets -------------------------------------------------------------------------------

/** Characters of context a snippet shows around its first hit (before, after). */
const BEFORE = 60;
const AFTER = 140;
/** Substring candidates checked for a first hit, and text read word by word when that finds none. */
const MAX_CANDIDATES = 2000;
const SLOW_SCAN_CHARS = 64 * 1024;
const WORD_CHAR = /[\p{L}\p{N}]/u;

type Matcher = (word: string) => boolean;

function matcherOf(q: ParsedQuery): { hits: Matcher; needles: string[] } {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const t of q.include) t.tokens.forEach((k, i) => (t.prefix && i === t.tokens.length - 1 ? prefixes.push(k) : exact.add(k)));
  const hits = (word: string) => {
    if (word.length > MAX_TOKEN_CHARS) return false; // never indexed
    for (const k of wordTokens(word)) if (exact.has(k) || prefixes.some((p) => k.startsWith(p))) return true;
    return false;
  };
  return { hits, needles: [...exact, ...prefixes] };
}

/** The word around index `at` (bounded: longer runs are no indexed word anyway). */
function wordAt(text: string, at: number): [number, number] {
  let a = at;
  let b = at;
  while (a > 0 && at - a < MAX_TOKEN_CHARS && WORD_CHAR.test(text[a - 1]!)) a--;
  while (b < text.length && b - at < MAX_TOKEN_CHARS && WORD_CHAR.test(text[b]!)) b++;
  return [a, b];
}

/**
 * Where the first hit starts, or -1. Tokens are searched as substrings first (a regex scan, fast
 * on any size) and each candidate checked as a word; text whose hits are not found that way
 * (accented or otherwise folded spellings) is read word by word, its first 64 KB only.
 */
function firstHit(text: string, m: ReturnType<typeof matcherOf>): number {
  const ascii = m.needles.filter((n) => /^[a-z0-9]+$/.test(n));
  if (ascii.length) {
    let seen = 0;
    for (const c of text.matchAll(new RegExp(ascii.join('|'), 'gi'))) {
      const [a, b] = wordAt(text, c.index!);
      if (m.hits(text.slice(a, b))) return a;
      if (++seen >= MAX_CANDIDATES) break;
    }
  }
  for (const w of text.slice(0, SLOW_SCAN_CHARS).matchAll(WORD)) if (m.hits(w[0])) return w.index!;
  return -1;
}

/**
 * The matching text with `«…»` around the hits: a window around the first hit of an included term,
 * the text as written. Bounded work whatever the text's size (see firstHit).
 */
export function snippet(text: string, q: ParsedQuery, maxChars = BEFORE + AFTER): string {
  const m = matcherOf(q);
  const first = firstHit(text, m);
  if (first < 0) return oneLine(text.slice(0, maxChars)) + (text.length > maxChars ? '…' : '');
  let start = Math.max(0, first - Math.min(BEFORE, Math.floor(maxChars / 3)));
  // Start at a word boundary: skip the cut word's tail.
  while (start > 0 && start < first && WORD_CHAR.test(text[start - 1]!)) start++;
  const end = Math.min(text.length, start + maxChars);
  const window = text.slice(start, end);
  let out = start > 0 ? '…' : '';
  let at = 0;
  for (const w of window.matchAll(WORD)) {
    const a = w.index!;
    const b = a + w[0].length;
    if (b === window.length && end < text.length) break; // a word cut by the window's end
    if (!m.hits(w[0])) continue;
    out += `${oneLine(window.slice(at, a))}«${w[0]}»`;
    at = b;
  }
  return out + oneLine(window.slice(at)) + (end < text.length ? '…' : '');
}

/** A word's tokens, with its camel parts (what the index holds for it). */
function* wordTokens(word: string): Generator<string> {
  // An ASCII word folds to itself lower-cased (NFKD and the marks regex cost ~3 µs a word: most of
  // a snippet's time).
  const ascii = !NON_ASCII.test(word);
  const folded = (w: string) => (ascii ? [w.toLowerCase()] : (fold(w).match(WORD) ?? []));
  yield* folded(word);
  if (/\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u.test(word)) for (const p of word.match(CAMEL) ?? []) yield* folded(p);
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ');

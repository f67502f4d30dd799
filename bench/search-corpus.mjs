// What bench/search.mjs searches: the bench:bash tree (its generator lives here, bench/bash.mjs
// imports it: 10,000 files in 100 directories, ~20 MB, 15 words and numbers, "needle" in 10
// files) and 100,000 community posts written from a 2,000-word vocabulary with Zipf-like word
// frequencies (a few words in a third of the posts, most in a handful), plus a few rare tokens.

import { prng } from './common.mjs';

export const FILES = 10_000;
export const DIRS = 100;
const TREE_WORDS = 'alpha beta gamma delta epsilon zeta theta lambda sigma omega function return const value index'.split(' ');

/** The tree's generator (bench/bash.mjs and bench/search.mjs search the same files). */
function rng(seed) {
  return () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
}

/** The bench tree: [{ path, content }]. */
export function makeTree() {
  const r = rng(42);
  const files = [];
  for (let i = 0; i < FILES; i++) {
    const ext = ['md', 'ts', 'txt', 'json'][i % 4];
    const lines = [];
    let size = 0;
    while (size < 2000) {
      const line = Array.from({ length: 8 }, () => TREE_WORDS[Math.floor(r() * TREE_WORDS.length)]).join(' ') + ` ${Math.floor(r() * 1000)}`;
      lines.push(line);
      size += line.length + 1;
    }
    if (i % 1000 === 7) lines[3] = 'here is the needle we look for';
    files.push({ path: `/t/d${String(i % DIRS).padStart(2, '0')}/f${i}.${ext}`, content: lines.join('\n') + '\n' });
  }
  return files;
}

/** 1 KB of the tree's words (a new text per i): what the write load writes. */
export function wordsText(i, bytes = 1024) {
  const r = prng(i);
  let s = `${i}:`;
  while (s.length < bytes) s += `${TREE_WORDS[Math.floor(r() * TREE_WORDS.length)]}${r() < 0.12 ? '\n' : ' '}`;
  return s.slice(0, bytes);
}

const SYLLABLES = 'ka lo mi ter van sol rim pe dra nu zo fel gor bi tan qu ex ris mon ab ul cre ost ip'.split(' ');

/** 2,000 distinct pseudo-words, index = frequency rank (0 the most frequent). */
export const VOCAB = (() => {
  const r = prng(7);
  const seen = new Set();
  const out = [];
  while (out.length < 2000) {
    const n = 2 + Math.floor(r() * 2);
    let w = '';
    for (let k = 0; k < n; k++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)];
    if (!seen.has(w) && !TREE_WORDS.includes(w)) {
      seen.add(w);
      out.push(w);
    }
  }
  return out;
})();

/** Rare tokens planted in posts: every 5,000th post names HttpRetryPolicy, every 10,000th a needle. */
export const RARE_IDENTIFIER = 'HttpRetryPolicy';
const rareIn = (i) => i % 5000 === 17;
const needleIn = (i) => i % 10_000 === 3;

/** [{ title, body }] for `count` posts: a word of rank k (0-based) has probability ~ 1/(k+1). */
export function makePosts(count) {
  const r = prng(11);
  const word = () => VOCAB[Math.min(VOCAB.length - 1, Math.floor(Math.exp(r() * Math.log(VOCAB.length + 1))) - 1)];
  const words = (n) => Array.from({ length: n }, word).join(' ');
  const posts = [];
  for (let i = 0; i < count; i++) {
    const title = words(4 + Math.floor(r() * 5));
    let body = `${words(10 + Math.floor(r() * 30))}. ${words(10 + Math.floor(r() * 30))}.`;
    if (rareIn(i)) body += ` Configure the ${RARE_IDENTIFIER} before ${words(3)}.`;
    if (needleIn(i)) body += ` A needle in ${words(3)}.`;
    posts.push({ title, body });
  }
  return posts;
}

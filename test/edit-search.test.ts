/**
 * The bounded building blocks of the edit engine and the diff, checked against simple
 * reference implementations (the code as it was before the bounded versions, or brute force):
 * - scan (core/find.ts) finds exactly the overlapping occurrences, also past its switch to KMP;
 * - collapse and diagnose (core/nomatch.ts) give what the regex versions gave;
 * - unifiedDiff (core/diff.ts) prints exactly what it printed with jsdiff's structuredPatch
 *   (over the lines between the common ends), and its approximate diffs still apply as patches;
 * - closest (core/suggest.ts) answers as the unbounded version did for names up to 64 characters.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { structuredPatch } from 'diff';
import fc from 'fast-check';
import { unifiedDiff } from '../src/core/diff.js';
import { scan } from '../src/core/find.js';
import { collapse, diagnose } from '../src/core/nomatch.js';
import { closest, editDistance } from '../src/core/suggest.js';
import { runSync } from '../src/core/work.js';
import { applyPatch } from './helpers/patch.js';

function occurrences(text: string, needle: string): number[] {
  const out: number[] = [];
  runSync(scan(text, needle, (at) => void out.push(at)));
  return out;
}

function bruteForce(text: string, needle: string): number[] {
  const out: number[] = [];
  if (needle.length === 0) return out;
  for (let i = 0; i + needle.length <= text.length; i++) if (text.startsWith(needle, i)) out.push(i);
  return out;
}

describe('scan: every occurrence, overlapping ones included', () => {
  it('agrees with brute force on small texts over a tiny alphabet', () => {
    const s = fc.stringMatching(/^[ab]{0,60}$/);
    fc.assert(
      fc.property(s, fc.stringMatching(/^[ab]{1,8}$/), (text, needle) => {
        assert.deepEqual(occurrences(text, needle), bruteForce(text, needle));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with brute force when dense matches send it to KMP, and for needles over 250 characters', () => {
    const cases: Array<[string, string]> = [
      ['a'.repeat(20_000), 'a'],
      ['a'.repeat(20_000), 'aaaa'],
      ['a'.repeat(20_000), 'a'.repeat(300)],
      ['ab'.repeat(10_000), 'abab'],
      ['ab'.repeat(10_000), 'ab'.repeat(200)],
      ['a'.repeat(20_000), 'a'.repeat(250) + 'b'],
      [('a'.repeat(299) + 'b').repeat(70), 'a'.repeat(299) + 'b' + 'a'.repeat(299)],
      ['x'.repeat(5000) + 'needle' + 'x'.repeat(5000), 'needle'],
    ];
    for (const [text, needle] of cases)
      assert.deepEqual(occurrences(text, needle), bruteForce(text, needle), `${needle.slice(0, 20)}… (${needle.length})`);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 0, max: 3 }), (period, len, flips) => {
        const unit = 'ab'.repeat(period).slice(0, period) + 'a';
        const text = unit.repeat(Math.ceil(12_000 / unit.length));
        const chars = unit
          .repeat(Math.ceil((len + period) / unit.length))
          .slice(1, 1 + len)
          .split('');
        for (let k = 0; k < flips; k++) chars[(k * 7919) % chars.length] = 'b';
        const needle = chars.join('');
        assert.deepEqual(occurrences(text, needle), bruteForce(text, needle));
      }),
      { numRuns: 200 },
    );
  });

  it('stops when the visitor says so', () => {
    const seen: number[] = [];
    runSync(scan('aaaa', 'a', (at) => seen.push(at) >= 2));
    assert.deepEqual(seen, [0, 1]);
  });
});

// ---------------------------------------------------------------- the diagnosis as it was

const CURLY: Record<string, string> = { '\u2018': "'", '\u2019': "'", '\u201c': '"', '\u201d': '"' };
const straighten = (s: string) => s.replace(/[\u2018\u2019\u201c\u201d]/g, (c) => CURLY[c]!);
const collapseRef = (s: string) =>
  s
    .replace(/[ \t]+/g, ' ')
    .replace(/ ?\r?\n ?/g, '\n')
    .trim();

function diagnoseRef(text: string, old: string): string[] {
  const reasons: string[] = [];
  if (!old.includes('\r\n') && old.includes('\n') && text.includes('\r\n') && text.includes(old.replace(/\n/g, '\r\n'))) {
    reasons.push('line_endings: the file uses CRLF (\\r\\n) line endings and old_string uses LF (\\n)');
  } else if (old.includes('\r\n') && !text.includes('\r\n') && text.includes(old.replace(/\r\n/g, '\n'))) {
    reasons.push('line_endings: the file uses LF (\\n) line endings and old_string uses CRLF (\\r\\n)');
  }
  if (straighten(old) !== old || straighten(text).includes(straighten(old))) {
    if (straighten(text).includes(straighten(old)) && !text.includes(old)) {
      reasons.push('quotes: the text matches if curly and straight quotes are treated alike; copy the quotes exactly as the file has them');
    }
  }
  const detab = (s: string) => s.replace(/\t/g, '    ');
  if (reasons.length === 0 && (old.includes('\t') || text.includes('\t')) && detab(text).includes(detab(old))) {
    reasons.push(
      'tabs_vs_spaces: the text matches if tabs and spaces are treated alike; the file indents with ' + (text.includes('\t') ? 'tabs' : 'spaces'),
    );
  }
  if (reasons.length === 0 && collapseRef(text).includes(collapseRef(old))) {
    reasons.push('whitespace: the text matches if spaces and indentation are ignored; copy the whitespace exactly (indentation, trailing spaces)');
  }
  return reasons;
}

const PIECES = ['a', 'b', 'ab', 'x = 1;', 'foo()', ' ', '  ', '\t', '\n', '\r\n', '\r', '"', "'", '\u201c', '\u201d', '\u2019', '\u00a0', 'é', '😀'];
const pieces = (max: number) => fc.array(fc.constantFrom(...PIECES), { maxLength: max }).map((p) => p.join(''));

describe('collapse and diagnose: the same answers as the regex versions', () => {
  it('collapse equals s.replace(/[ \\t]+/g, " ").replace(/ ?\\r?\\n ?/g, "\\n").trim()', () => {
    fc.assert(
      fc.property(pieces(60), (s) => assert.equal(runSync(collapse(s)), collapseRef(s))),
      { numRuns: 3000 },
    );
    // Long stretches of whitespace (the character loop) and window boundaries (every 256 Ki).
    const bits = ['a', ' ', '\t', '\n', '\r\n', '\r', ' \n', '\n '];
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
    for (let t = 0; t < 12; t++) {
      let s = '';
      while (s.length < 300_000 + rnd(300_000)) {
        const p = bits[rnd(bits.length)]!;
        s += rnd(40) === 0 ? p.repeat(1 + rnd(9000)) : p;
      }
      assert.equal(runSync(collapse(s)), collapseRef(s), `long case ${t}`);
    }
  });

  it('diagnose gives the reasons the unbounded version gave', () => {
    fc.assert(
      fc.property(pieces(40), pieces(8), fc.nat(), (text, extra, at) => {
        // Mostly a slice of the text with its whitespace or quotes changed: the near-misses diagnose is for.
        const start = text.length ? at % text.length : 0;
        const old =
          text.slice(start, start + 12).replace(/ |\t|"|\r\n/g, (c) => ({ ' ': '\t', '\t': '  ', '"': '\u201c', '\r\n': '\n' })[c]!) || extra;
        assert.deepEqual(runSync(diagnose(text, old)), diagnoseRef(text, old));
        assert.deepEqual(runSync(diagnose(text, extra)), diagnoseRef(text, extra));
      }),
      { numRuns: 3000 },
    );
  });

  it('the whitespace check around a few occurrences and over the whole file agree', () => {
    const line = (i: number) => `  call(x${i % 40},   y)\n`;
    const text = Array.from({ length: 2000 }, (_, i) => line(i)).join('');
    // 'call(x7,' occurs 50 times (the whole file is collapsed), 'y)' 2000 times, 'x1234' never.
    for (const old of ['call(x7, y)', 'call(x7,\ty)', '\ncall(x7, y)\n call', 'call(x1234, y)', 'y)\n  call(x3,', '   ']) {
      assert.deepEqual(runSync(diagnose(text, old)), diagnoseRef(text, old), JSON.stringify(old));
    }
    const few = 'head\n' + 'filler line\n'.repeat(500) + '  unique_token(1,   2)\n' + 'tail\n';
    for (const old of [
      'unique_token(1, 2)',
      'unique_token(1,2)',
      ' unique_token(1,\n2)',
      'filler line unique_token(1, 2)',
      'line\n  unique_token(1, 2)\ntail',
    ]) {
      assert.deepEqual(runSync(diagnose(few, old)), diagnoseRef(few, old), JSON.stringify(old));
    }
  });
});

// ---------------------------------------------------------------- the diff as it was

function linesOf(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
    out.push(text.slice(start, i + 1));
    start = i + 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** unifiedDiff before it was bounded: jsdiff's structuredPatch over the lines between the common ends (and 3 of them). */
function diffRef(a: string | null, b: string | null, maxLines: number) {
  const [la, lb] = [linesOf(a ?? ''), linesOf(b ?? '')];
  let prefix = 0;
  while (prefix < la.length && prefix < lb.length && la[prefix] === lb[prefix]) prefix++;
  let suffix = 0;
  while (suffix < la.length - prefix && suffix < lb.length - prefix && la[la.length - 1 - suffix] === lb[lb.length - 1 - suffix]) suffix++;
  const cutStart = Math.max(0, prefix - 3);
  const cutEnd = Math.max(0, suffix - 3);
  const patch = structuredPatch('a', 'b', la.slice(cutStart, la.length - cutEnd).join(''), lb.slice(cutStart, lb.length - cutEnd).join(''), '', '', {
    context: 3,
  });
  for (const h of patch.hunks) {
    h.oldStart += cutStart;
    h.newStart += cutStart;
  }
  const header = [a === null ? '--- /dev/null' : `--- a/p\t(o)`, b === null ? '+++ /dev/null' : `+++ b/p\t(n)`];
  const body: string[] = [];
  let [added, removed] = [0, 0];
  for (const h of patch.hunks) {
    body.push(
      `@@ -${h.oldLines === 0 ? h.oldStart - 1 : h.oldStart}${h.oldLines === 1 ? '' : `,${h.oldLines}`} +${h.newLines === 0 ? h.newStart - 1 : h.newStart}${h.newLines === 1 ? '' : `,${h.newLines}`} @@`,
    );
    for (const line of h.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
      body.push(line);
    }
  }
  const stats = { hunks: patch.hunks.length, added, removed };
  if (body.length === 0) return { diff: '', truncated: false, stats };
  let lines = body;
  if (body.length > maxLines) {
    lines = body.slice(0, maxLines);
    lines.push(
      `... diff truncated: ${body.length - maxLines} more lines (${added} added, ${removed} removed in ${patch.hunks.length} hunks). Use the diff tool or read the file for the rest.`,
    );
  }
  return { diff: [...header, ...lines].join('\n') + '\n', truncated: body.length > maxLines, stats };
}

const labels = { path: '/p', oldLabel: 'o', newLabel: 'n' };

describe('unifiedDiff: the same text as jsdiff, bounded', () => {
  const lineArb = fc.constantFrom('a\n', 'b\n', 'c\n', 'a\r\n', '\n', 'x', ' \n', 'dd\n', 'a long line of text\n');
  const textArb = (max: number) => fc.array(lineArb, { maxLength: max }).map((l) => l.join(''));

  it('prints exactly what structuredPatch printed (random pairs, /dev/null sides, caps)', () => {
    fc.assert(
      fc.property(textArb(40), textArb(40), fc.integer({ min: 1, max: 30 }), fc.boolean(), fc.boolean(), (a, b, cap, nullA, nullB) => {
        const maxLines = cap > 25 ? Number.MAX_SAFE_INTEGER : cap;
        assert.deepEqual(unifiedDiff(a, b, labels, maxLines), diffRef(a, b, maxLines));
        const [na, nb] = [nullA ? null : a, nullB ? null : b];
        assert.deepEqual(unifiedDiff(na, nb, labels), diffRef(na, nb, 400));
      }),
      { numRuns: 3000 },
    );
  });

  it('prints exactly what structuredPatch printed for edits inside long texts (the cut-off ends)', () => {
    fc.assert(
      fc.property(textArb(300), fc.array(fc.tuple(fc.nat(), fc.nat({ max: 3 }), textArb(4)), { minLength: 1, maxLength: 8 }), (a, edits) => {
        const lines = a.split(/(?<=\n)/);
        for (const [at, del, ins] of edits) lines.splice(at % (lines.length + 1), del, ...ins.split(/(?<=\n)/).filter(Boolean));
        const b = lines.join('');
        assert.deepEqual(unifiedDiff(a, b, labels, Number.MAX_SAFE_INTEGER), diffRef(a, b, Number.MAX_SAFE_INTEGER));
      }),
      { numRuns: 500 },
    );
  });

  it('a diff too costly to be exact is marked approximate and still applies as a patch', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e9 }), (seed) => {
        let s = seed;
        const rnd = (n: number) => ((s = (s * 1103515245 + 12345) & 0x7fffffff), s % n);
        const lines = Array.from({ length: 3000 }, (_, i) => (rnd(5) === 0 ? 'common\n' : `line ${i}\n`));
        // Blocks moved, inserted and removed: thousands of changes, past the exact diff's budget.
        const b = lines.slice();
        for (let k = 0; k < 40; k++) {
          const from = rnd(b.length);
          const block = b.splice(from, rnd(200));
          if (rnd(3)) b.splice(rnd(b.length + 1), 0, ...block);
          b.splice(rnd(b.length + 1), 0, ...Array.from({ length: rnd(30) }, (_, i) => `new ${k} ${i}\n`));
        }
        const [ta, tb] = [lines.join(''), b.join('').replace(/\n$/, rnd(2) ? '' : '\n')];
        const d = unifiedDiff(ta, tb, labels, Number.MAX_SAFE_INTEGER);
        const body = d.diff
          .split('\n')
          .filter((l) => !l.startsWith('... '))
          .join('\n');
        assert.equal(applyPatch(ta, body), tb);
        if (d.stats.approximate) assert.match(d.diff, /\n\.\.\. the files differ too much for an exact diff/);
      }),
      { numRuns: 25 },
    );
  });
});

// ---------------------------------------------------------------- suggestions as they were

function closestRef(word: string, candidates: Iterable<string>, max = 3): string[] {
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

describe('closest: the same suggestions, bounded', () => {
  it('agrees with the unbounded version for names up to 64 characters (up to 100 candidates)', () => {
    const name = fc.stringMatching(/^[a-cA-C_]{1,20}$/);
    fc.assert(
      fc.property(name, fc.array(name, { maxLength: 60 }), (word, candidates) => {
        assert.deepEqual(closest(word, candidates), closestRef(word, candidates));
      }),
      { numRuns: 3000 },
    );
    const tools = ['read', 'write', 'edit', 'append', 'list', 'stat', 'move', 'copy', 'delete', 'diff', 'restore', 'bash', 'list_versions'];
    for (const typo of ['raed', 'wirte', 'edti', 'lst', 'rstore', 'list_version', 'bsh', 'delet'])
      assert.deepEqual(closest(typo, tools), closestRef(typo, tools), typo);
  });

  it('never compares names over 64 characters, nor more than 100 candidates by distance', () => {
    assert.deepEqual(closest('a'.repeat(65), ['a'.repeat(65)]), []);
    assert.deepEqual(closest('abc', ['abd'.padEnd(65, 'x'), 'abd']), ['abd']);
    // 150 candidates of the word's length that all need a distance: only the first 100 are scored.
    const many = Array.from({ length: 150 }, (_, i) => `zz${String(i).padStart(3, '0')}`);
    assert.deepEqual(closest('zy149', many), closestRef('zy149', many.slice(0, 100)));
    assert.equal(closestRef('zy149', many)[0], 'zz149');
    // An exact or containing match needs no distance and is never skipped.
    assert.deepEqual(closest('zz149', many, 1), ['zz149']);
  });
});

/**
 * `grep`, `egrep` and `fgrep` for the bash tool, faithful to GNU grep 3.8 as packaged by
 * Debian (3.8-5: no stray-backslash warnings, egrep/fgrep run `grep -E`/`grep -F` silently)
 * under LC_ALL=C.UTF-8: the same options (GNU getopt_long parsing, with permutation and
 * abbreviations), output layout, colours, diagnostics and exit codes. Tested against the real
 * grep in test/slow/bash-grep.test.ts.
 *
 * Patterns are translated to native JavaScript regular expressions (`v` flag; an ASCII-only
 * variant without it for pure-ASCII buffers, where V8 is faster), so matching is done by V8
 * over whole file buffers and lines are only cut out around matches; a literal every match
 * must contain is searched with indexOf first. POSIX basic/extended syntax follows glibc's
 * parser (which reports the errors), and, where GNU grep's DFA reads a pattern differently
 * (repetition operators at the start or after an anchor, -x pasted around the text), what
 * GNU actually does: the DFA decides unless the pattern has something it cannot do in UTF-8
 * (word anchors, \w \s, back-references, most brackets, -w), then glibc decides after the
 * DFA's superset screened the line; -o and --color always use glibc's reading, with POSIX
 * leftmost-longest matches. Character classes use glibc's C.UTF-8 tables ([[:alpha:]],
 * [[:alnum:]], \w and -w exactly; the others from V8's Unicode properties). `-P` maps PCRE
 * syntax onto JS (\d \w \b ASCII like PCRE2 without UCP).
 *
 * Known differences from GNU:
 * - directories are walked in the filesystem's order (ours: byte order; GNU: readdir order);
 * - binary files: a NUL anywhere makes the whole file binary (GNU decides per 96 KiB buffer);
 * - `-a` on invalid UTF-8 returns the raw bytes, but the shell's final stdout is text, so the
 *   tool shows them as Latin-1 (redirections and pipes get the bytes);
 * - `-P`: no \K, recursion, conditionals or backtracking verbs; atomic groups and possessive
 *   quantifiers act as ordinary ones; inline flags other than (?i) are ignored, (?i) applies
 *   to the whole pattern; error messages exist for the common PCRE2 errors only;
 * - a back-reference to a group that did not take part matches the empty string (POSIX: fails);
 * - GNU's -o -w retries shorter matches in a wrongly truncated buffer after the first match
 *   on a line; we do not reproduce that;
 * - case folding and the classes other than alpha/alnum use V8's Unicode data (newer than
 *   glibc 2.36: characters assigned since are classified; ı/İ fold differently);
 * - "input file is also the output" (grep pat f > f) is not detected; GREP_COLORS is ignored.
 * - Catastrophic patterns backtrack (V8 is not a DFA): a search of one file that runs over its
 *   budget (2 s) stops the command with exit 2 and advice (search-watch.ts); GNU would finish it.
 */
import { Buffer, isUtf8 } from 'node:buffer';
import { latin1FromBytes, type Command, type Ctx, type IFileSystem, type Result } from '../kit/command.js';
import { errnoMessage } from '../kit/errno.js';
import { fnmatchRegExp, hasWildcards } from '../kit/fnmatch.js';
import { GetoptError, longOpts, tokens, type LongOpt } from '../kit/getopt.js';
import { SEARCH, watched } from '../kit/search-watch.js';

// ---------------------------------------------------------------------------------------
// Texts
// ---------------------------------------------------------------------------------------

const USAGE_TAIL = "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n";

const HELP = `Usage: grep [OPTION]... PATTERNS [FILE]...
Search for PATTERNS in each FILE.
Example: grep -i 'hello world' menu.h main.c
PATTERNS can contain multiple patterns separated by newlines.

Pattern selection and interpretation:
  -E, --extended-regexp     PATTERNS are extended regular expressions
  -F, --fixed-strings       PATTERNS are strings
  -G, --basic-regexp        PATTERNS are basic regular expressions
  -P, --perl-regexp         PATTERNS are Perl regular expressions
  -e, --regexp=PATTERNS     use PATTERNS for matching
  -f, --file=FILE           take PATTERNS from FILE
  -i, --ignore-case         ignore case distinctions in patterns and data
      --no-ignore-case      do not ignore case distinctions (default)
  -w, --word-regexp         match only whole words
  -x, --line-regexp         match only whole lines
  -z, --null-data           a data line ends in 0 byte, not newline

Miscellaneous:
  -s, --no-messages         suppress error messages
  -v, --invert-match        select non-matching lines
  -V, --version             display version information and exit
      --help                display this help text and exit

Output control:
  -m, --max-count=NUM       stop after NUM selected lines
  -b, --byte-offset         print the byte offset with output lines
  -n, --line-number         print line number with output lines
      --line-buffered       flush output on every line
  -H, --with-filename       print file name with output lines
  -h, --no-filename         suppress the file name prefix on output
      --label=LABEL         use LABEL as the standard input file name prefix
  -o, --only-matching       show only nonempty parts of lines that match
  -q, --quiet, --silent     suppress all normal output
      --binary-files=TYPE   assume that binary files are TYPE;
                            TYPE is 'binary', 'text', or 'without-match'
  -a, --text                equivalent to --binary-files=text
  -I                        equivalent to --binary-files=without-match
  -d, --directories=ACTION  how to handle directories;
                            ACTION is 'read', 'recurse', or 'skip'
  -D, --devices=ACTION      how to handle devices, FIFOs and sockets;
                            ACTION is 'read' or 'skip'
  -r, --recursive           like --directories=recurse
  -R, --dereference-recursive  likewise, but follow all symlinks
      --include=GLOB        search only files that match GLOB (a file pattern)
      --exclude=GLOB        skip files that match GLOB
      --exclude-from=FILE   skip files that match any file pattern from FILE
      --exclude-dir=GLOB    skip directories that match GLOB
  -L, --files-without-match  print only names of FILEs with no selected lines
  -l, --files-with-matches  print only names of FILEs with selected lines
  -c, --count               print only a count of selected lines per FILE
  -T, --initial-tab         make tabs line up (if needed)
  -Z, --null                print 0 byte after FILE name

Context control:
  -B, --before-context=NUM  print NUM lines of leading context
  -A, --after-context=NUM   print NUM lines of trailing context
  -C, --context=NUM         print NUM lines of output context
  -NUM                      same as --context=NUM
      --group-separator=SEP  print SEP on line between matches with context
      --no-group-separator  do not print separator for matches with context
      --color[=WHEN],
      --colour[=WHEN]       use markers to highlight the matching strings;
                            WHEN is 'always', 'never', or 'auto'
  -U, --binary              do not strip CR characters at EOL (MSDOS/Windows)

When FILE is '-', read standard input.  With no FILE, read '.' if
recursive, '-' otherwise.  With fewer than two FILEs, assume -h.
Exit status is 0 if any line is selected, 1 otherwise;
if any error occurs and -q is not given, the exit status is 2.

Report bugs to: bug-grep@gnu.org
GNU grep home page: <https://www.gnu.org/software/grep/>
General help using GNU software: <https://www.gnu.org/gethelp/>
`;

const VERSION = `grep (GNU grep) 3.8
Copyright (C) 2022 Free Software Foundation, Inc.
License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.
This is free software: you are free to change and redistribute it.
There is NO WARRANTY, to the extent permitted by law.

Written by Mike Haertel and others; see
<https://git.sv.gnu.org/cgit/grep.git/tree/AUTHORS>.
`;

// GNU's default GREP_COLORS (ms=01;31:mc=01;31:sl=:cx=:fn=35:ln=32:bn=32:se=36).
const MATCH_COLOR = '01;31';
const FN_COLOR = '35';
const NUM_COLOR = '32';
const SEP_COLOR = '36';

/** Ends the whole command with an exit status (after what was already written). */
class GrepExit {
  constructor(readonly code: number) {}
}

// ---------------------------------------------------------------------------------------
// Character classes of glibc's C.UTF-8 locale, as `v`-mode class contents
// ---------------------------------------------------------------------------------------

/** [[:alpha:]] of glibc 2.36 C.UTF-8 (ranges as base-36 gap.length pairs, measured). */
const ALPHA_TABLE =
  '1t.p,7.p,1c.0,b.0,5.0,6.m,2.u,2.cp,5.b,f.4,8.0,2.0,2f.0,17.4,2.1,3.3,2.0,7.0,2.2,2.0,2.j,2.2a,2.3u,9.4l,2.11,3' +
  '.0,7.14,14.d,2.0,2.1,2.1,2.0,9.q,5.3,u.a,6.1j,2.g,5.2t,2.7,5.7,5.f,3.0,h.1b,e.2s,f.16,a.1,5.0,6.n,3.i,k.o,8.a,' +
  '6.n,2.5,i.15,b.b,4.6,7.23,2.f,2.2,5.e,3.9,2.i,2.7,3.1,3.l,2.6,2.0,4.3,4.7,3.1,3.1,2.0,9.0,5.1,2.4,3.b,b.0,5.2,' +
  '2.5,5.1,3.l,2.6,2.1,2.1,2.1,5.4,5.1,3.1,5.0,8.3,2.0,8.f,c.2,2.8,2.2,2.l,2.6,2.1,2.4,4.8,2.2,2.1,4.0,g.3,3.9,a.' +
  '3,5.2,2.7,3.1,3.l,2.6,2.1,2.4,4.7,3.1,3.1,a.1,5.1,2.4,3.9,2.0,h.1,2.5,4.2,2.3,4.1,2.0,2.1,4.1,4.2,4.b,5.4,4.2,' +
  '2.2,4.0,7.0,f.9,h.3,2.7,2.2,2.m,2.f,4.7,2.2,2.2,9.1,2.2,3.0,3.3,3.9,h.3,2.7,2.2,2.m,2.9,2.4,4.7,2.2,2.2,9.1,7.' +
  '1,2.3,3.9,2.1,e.c,2.2,2.14,3.7,2.2,2.2,2.0,6.3,8.4,3.9,b.5,2.2,2.h,4.n,2.8,2.0,3.6,9.5,2.0,2.7,7.9,3.1,e.1l,6.' +
  '6,7.0,3.9,14.1,2.0,2.4,2.n,2.0,2.i,2.2,3.4,2.0,7.0,3.9,3.3,x.0,w.9,n.7,2.z,5.g,7.f,2.z,1w.1i,2.0,3.e,7.25,3.11' +
  ',2.0,6.0,3.16,2.98,2.3,3.6,2.0,2.3,3.14,2.3,3.w,2.3,3.6,2.0,2.3,3.e,2.1k,2.3,3.1u,12.f,h.2d,3.5,4.h7,3.g,2.p,6' +
  '.22,4.a,8.j,c.k,d.j,d.c,2.2,2.1,d.1f,3.i,f.0,5.0,4.9,13.9,7.2g,8.16,6.1x,b.u,2.b,5.8,e.13,3.4,c.17,5.p,7.9,13.' +
  'r,5.1q,3.j,c.9,7.9,e.0,o.1,c.2,1e.1f,2.e,2.7,4.9,13.15,3.1l,2.a,f.1i,a.9,4.1c,3.8,8.16,3.2,16.3,2.5,2.1,4.0,6.' +
  '5b,14.d,c.7p,3.5,3.11,3.5,3.7,2.0,2.0,2.0,2.u,3.1g,2.6,2.0,4.2,2.6,4.3,3.5,5.c,6.2,2.6,39.0,e.0,h.c,2u.0,5.0,3' +
  '.9,2.0,4.4,7.0,2.0,2.0,2.3,2.a,3.3,6.4,5.0,i.14,mm.1f,1ef.6c,7.3,4.1,d.11,2.0,6.0,3.1j,8.0,h.m,a.6,2.6,2.6,2.6' +
  ',2.6,2.6,2.6,2.6,2.v,1c.0,d2.2,q.8,8.4,3.4,5.2d,7.2,2.2h,2.3,6.16,2.2l,i.v,1d.f,e9.533,1t.h3g,1w.19,3.7g,4.r,l' +
  '.1a,6.7,4.34,14.8,3.2u,3.1r,6.1,2.0,2.4,p.j,2.w,p.1f,d.1v,2.0,b.9,p.5,4.0,2.19,6.y,e.s,4.1e,2.b,g.a,7.u,2.1i,a' +
  '.d,3.9,7.m,4.1w,2.0,2.0,p.2,3.f,3.3,c.5,3.5,3.5,a.6,2.6,2.16,2.d,7.3e,6.9,7.8mb,d.m,5.1c,6it.a5,3.2x,13.6,d.4,' +
  '6.b,2.c,2.4,2.0,2.1,2.1,2.2z,y.a2,j.1r,3.1h,15.b,39.4,2.3q,k.9,8.p,7.p,c.2g,4.5,3.5,3.5,3.2,10.b,2.p,2.i,2.1,2' +
  '.e,3.d,z.3e,1y.1g,7g.s,4.1c,1c.v,e.t,6.16,6.t,3.z,5.7,2.4,17.4d,3.9,7.z,5.z,5.13,9.1f,d.a,2.e,2.6,2.1,2.a,2.e,' +
  '2.6,2.1,1w.8m,a.l,b.7,p.5,2.15,2.8,1y.5,3.0,2.17,2.1,4.0,3.m,b.m,a.u,1u.i,2.1,b.l,b.p,1z.1j,7.1,1t.3,2.1,6.7,2' +
  '.2,2.s,17.s,4.s,10.7,2.r,s.1h,b.l,b.i,e.h,33.20,1k.1e,e.1e,e.13,9.9,93.15,2.1,4.1,27.s,b.0,9.l,17.h,1b.k,s.m,a' +
  '.1x,x.9,2.4,d.1i,a.0,e.o,8.9,7.1e,4.9,5.3,9.y,4.0,a.1r,2.3,a.c,2.0,10.h,2.x,3.0,7.0,1u.6,2.0,2.3,2.e,2.9,8.1k,' +
  '8.9,7.3,2.7,3.1,3.l,2.6,2.1,2.4,4.7,3.1,3.1,4.0,7.0,6.6,4d.1t,2.2,2.3,6.9,6.2,v.1t,3.1,2.0,9.9,4n.1h,3.6,q.5,z' +
  '.1q,2.0,4.0,c.9,13.1h,3.0,8.9,1j.q,3.d,6.9,7.6,56.1k,2w.21,m.7,3.0,3.7,2.1,2.t,2.1,3.1,3.3,e.9,1z.7,3.19,3.5,2' +
  '.0,2.1,s.1e,3.9,i.1z,6.0,j.20,7c.8,2.18,2.6,2.0,g.9,p.t,3.l,2.d,22.6,2.1,2.17,4.0,2.1,2.2,2.0,3.1,9.9,7.5,2.1,' +
  '2.10,2.1,2.3,2.0,8.9,8n.m,56.0,28.pl,2v.32,i.5f,219.2o,g.tq,34i.g6,6nu.fs,8.u,2.9,7.26,2.9,7.t,j.1b,h.3,d.9,a.' +
  'k,6.i,j5.1r,3l.22,5.1k,8.g,1t.1,2.0,d.1,f.4qf,9.yd,17.8,6w8.3,2.6,2.1,2.82,1a.2,i.3,9.az,1s5.2y,6.c,4.8,8.9,5.' +
  '0,4ma.2c,2.1y,2.1,3.0,3.1,3.3,2.b,2.0,2.6,2.1s,2.3,3.7,2.6,2.r,2.3,2.4,2.0,4.6,2.9f,3.o,2.o,2.u,2.o,2.u,2.o,2.' +
  'u,2.o,2.u,2.o,2.7,3.1d,1dt.u,6a.6,2.g,3.6,2.1,2.4,5y.18,b.6,3.9,5.0,8y.t,j.17,5.9,yv.6,2.3,2.1,2.e,2.5g,1o.1v,' +
  '4.0,4.0,5.9,x3.3,2.q,2.1,2.0,3.0,2.9,2.3,2.0,2.0,7.0,5.0,2.0,2.0,2.2,2.1,2.0,3.0,2.0,2.0,2.0,2.0,2.1,2.0,3.3,2' +
  '.6,2.3,2.3,2.0,2.9,2.g,6.2,2.4,2.g,hh.p,7.p,7.p,21z.9,sn.wyn,x.37c,8.65,3.4g1,f.5rk,2e8.f1,15v.3t6';

let alphaRanges: string | null = null;
function hex(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}
/** Escapes one code point for use anywhere in a `v`-mode pattern (inside or outside classes). */
function esc(ch: string): string {
  const c = ch.codePointAt(0)!;
  if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) return ch;
  return hex(c);
}
function alpha(): string {
  if (alphaRanges === null) {
    let prev = 0;
    const parts: string[] = [];
    for (const pair of ALPHA_TABLE.split(',')) {
      const dot = pair.indexOf('.');
      const a = prev + parseInt(pair.slice(0, dot), 36);
      const b = a + parseInt(pair.slice(dot + 1), 36);
      parts.push(a === b ? hex(a) : `${hex(a)}-${hex(b)}`);
      prev = b;
    }
    alphaRanges = parts.join('');
  }
  return alphaRanges;
}
const SPACE_SET = '\\t-\\r \\u{1680}\\u{2000}-\\u{2006}\\u{2008}-\\u{200a}\\u{2028}\\u{2029}\\u{205f}\\u{3000}';
/** Invalid UTF-8 bytes are decoded to lone U+DC80..U+DCFF; like GNU, no class matches them. */
const BADBYTES = '\\u{dc80}-\\u{dcff}';

/** The class (a complete `[...]`) for a POSIX class name, or null if the name is invalid. */
function posixClass(name: string, icase: boolean): string | null {
  const graph = `[[^\\p{Cc}\\p{Cn}\\p{Cs}${BADBYTES}]--[${SPACE_SET}]]`;
  switch (icase && (name === 'upper' || name === 'lower') ? 'alpha' : name) {
    case 'alpha':
      return `[${alpha()}]`;
    case 'alnum':
      return `[${alpha()}0-9]`;
    case 'digit':
      return '[0-9]';
    case 'xdigit':
      return '[0-9A-Fa-f]';
    case 'upper':
      return '[\\p{Uppercase}\\p{Lt}]';
    case 'lower':
      return '[\\p{Lowercase}\\u{1c5}\\u{1c8}\\u{1cb}\\u{1f2}\\u{295}]';
    case 'space':
      return `[${SPACE_SET}]`;
    case 'blank':
      return '[\\t \\u{1680}\\u{2000}-\\u{2006}\\u{2008}-\\u{200a}\\u{205f}\\u{3000}]';
    case 'cntrl':
      return '[\\p{Cc}\\u{2028}\\u{2029}]';
    case 'graph':
      return graph;
    case 'print':
      return `[[^\\p{Cc}\\p{Cn}\\p{Cs}${BADBYTES}]--[\\t-\\r\\u{2028}\\u{2029}]]`;
    case 'punct':
      return `[${graph}--[${alpha()}0-9]]`;
    default:
      return null;
  }
}
function wordClass(): string {
  return `[${alpha()}0-9_]`;
}

// ---------------------------------------------------------------------------------------
// POSIX basic/extended regular expressions -> JavaScript
// ---------------------------------------------------------------------------------------

class PatternError {
  constructor(readonly message: string) {}
}

const enum T {
  CHAR,
  ALT,
  BACKREF,
  ANCHOR,
  WORD,
  NOTWORD,
  SPACE,
  NOTSPACE,
  OPEN,
  CLOSE,
  STAR,
  PLUS,
  QMARK,
  OPEN_DUP,
  CLOSE_DUP,
  BRACKET,
  PERIOD,
  BACKSLASH,
  END,
}
interface Tok {
  t: T;
  c: string;
  len: number;
}
interface Atom {
  src: string;
  /** A superset stand-in (`[^EOL]*`): a following *, + or ? is absorbed. */
  relaxed?: boolean;
  /** Can take a quantifier without a wrapping group. */
  single: boolean;
  /** The literal character this atom is, if it is one (for the required-literal prefilter). */
  lit: string | null;
}

const RE_DUP_MAX = 0x7fff;

export interface Translation {
  src: string;
  groups: number;
  /** Some match may not be the longest at its start (alternation or several quantifiers). */
  ambiguous: boolean;
  /** A literal every match contains, or null. */
  lit: string | null;
  /** The pattern is exactly `lit`: no metacharacters. */
  pure: boolean;
  /** DFA diagnostics in order: warnings, or a fatal error (last). */
  dfa: Array<{ warn: string } | { error: string }>;
  /**
   * The pattern uses something GNU's DFA cannot do in a UTF-8 locale (word anchors, \w \s,
   * back-references, brackets other than plain ASCII characters and digit ranges): GNU then
   * lets glibc's regex decide which lines match, not the DFA.
   */
  unsupported: boolean;
  /** An ERE ')' without its '(' (an ordinary character, but it closes a -w/-x wrapper). */
  unmatchedClose: boolean;
}

/**
 * Translates one POSIX pattern (BRE, or ERE with `ere`) following glibc's regcomp parser
 * (whose errors GNU grep reports first) and the DFA's choices where they differ.
 */
class PosixTranslator {
  private readonly cs: string[];
  private i = 0;
  private tok!: Tok;
  private nsub = 0;
  private readonly completed = new Set<number>();
  private laststart = true;
  private quants = 0;
  private alt = false;
  private unsupported = false;
  private unmatchedClose = false;
  private readonly dfa: Translation['dfa'] = [];
  private readonly notEol: string;

  constructor(
    pattern: string,
    private readonly ere: boolean,
    private readonly icase: boolean,
    private readonly eol: string,
    private readonly groupBase: number,
    /** Follow glibc's regex rather than the DFA where they differ (what -o reports). */
    private readonly glibc = false,
    /**
     * The DFA's superset (what GNU uses to skip lines before asking glibc when the DFA cannot
     * decide): what the DFA cannot do matches anything (word anchors, nothing).
     */
    private readonly superset = false,
  ) {
    this.cs = Array.from(pattern);
    this.notEol = `[^${esc(eol)}${BADBYTES}]`;
  }

  translate(): Translation {
    this.fetch(true);
    const top = this.parseRegExp(0);
    if (this.tok.t !== T.END) throw new PatternError('Unmatched ) or \\)');
    const lit = this.alt ? null : top.lit;
    return {
      src: top.src,
      groups: this.nsub,
      ambiguous: this.alt || this.quants > 1,
      lit: lit && lit.length ? lit : null,
      pure: !this.alt && top.pure,
      dfa: this.dfa,
      unsupported: this.unsupported,
      unmatchedClose: this.unmatchedClose,
    };
  }

  // ---- tokens (glibc peek_token) ----

  private peek(i: number, caretHere: boolean): Tok {
    const cs = this.cs;
    if (i >= cs.length) return { t: T.END, c: '', len: 0 };
    const c = cs[i]!;
    if (c === '\\') {
      if (i + 1 >= cs.length) return { t: T.BACKSLASH, c: '\\', len: 1 };
      const c2 = cs[i + 1]!;
      const tok = (t: T): Tok => ({ t, c: c2, len: 2 });
      switch (c2) {
        case '|':
          return tok(this.ere ? T.CHAR : T.ALT);
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
        case '6':
        case '7':
        case '8':
        case '9':
          return tok(T.BACKREF);
        case '<':
        case '>':
        case 'b':
        case 'B':
        case '`':
        case "'":
          return tok(T.ANCHOR);
        case 'w':
          return tok(T.WORD);
        case 'W':
          return tok(T.NOTWORD);
        case 's':
          return tok(T.SPACE);
        case 'S':
          return tok(T.NOTSPACE);
        case '(':
          return tok(this.ere ? T.CHAR : T.OPEN);
        case ')':
          return tok(this.ere ? T.CHAR : T.CLOSE);
        case '+':
          return tok(this.ere ? T.CHAR : T.PLUS);
        case '?':
          return tok(this.ere ? T.CHAR : T.QMARK);
        case '{':
          return tok(this.ere ? T.CHAR : T.OPEN_DUP);
        case '}':
          return tok(this.ere ? T.CHAR : T.CLOSE_DUP);
        default:
          return tok(T.CHAR);
      }
    }
    const tok = (t: T): Tok => ({ t, c, len: 1 });
    switch (c) {
      case '|':
        return tok(this.ere ? T.ALT : T.CHAR);
      case '*':
        return tok(T.STAR);
      case '+':
        return tok(this.ere ? T.PLUS : T.CHAR);
      case '?':
        return tok(this.ere ? T.QMARK : T.CHAR);
      case '{':
        return tok(this.ere ? T.OPEN_DUP : T.CHAR);
      case '}':
        return tok(this.ere ? T.CLOSE_DUP : T.CHAR);
      case '(':
        return tok(this.ere ? T.OPEN : T.CHAR);
      case ')':
        return tok(this.ere ? T.CLOSE : T.CHAR);
      case '[':
        return tok(T.BRACKET);
      case '.':
        return tok(T.PERIOD);
      case '^':
        if (!this.ere && i !== 0 && !caretHere) return tok(T.CHAR);
        return tok(T.ANCHOR);
      case '$':
        if (!this.ere && i + 1 !== cs.length) {
          const next = this.peek(i + 1, false);
          if (next.t !== T.ALT && next.t !== T.CLOSE) return tok(T.CHAR);
        }
        return tok(T.ANCHOR);
      default:
        return tok(T.CHAR);
    }
  }

  /** The current token's type (a method, so TypeScript does not narrow it across calls). */
  private cur(): T {
    return this.tok.t;
  }

  private fetch(caretHere = false): void {
    this.tok = this.peek(this.i, caretHere);
    this.i += this.tok.len;
  }

  // ---- grammar (glibc parse_reg_exp / parse_branch / parse_expression) ----

  private parseRegExp(nest: number): { src: string; lit: string | null; pure: boolean } {
    // Groups closed in one alternative cannot be referred to from the next (glibc).
    const initial = new Set(this.completed);
    const first = this.parseBranch(nest);
    if (this.tok.t !== T.ALT) return first;
    const alts = [first.src];
    while (this.tok.t === T.ALT) {
      this.alt = true;
      this.laststart = true;
      this.fetch(true);
      if (this.tok.t !== T.ALT && this.tok.t !== T.END && (nest === 0 || this.tok.t !== T.CLOSE)) {
        const accumulated = new Set(this.completed);
        this.completed.clear();
        for (const n of initial) this.completed.add(n);
        alts.push(this.parseBranch(nest).src);
        for (const n of accumulated) this.completed.add(n);
      } else {
        alts.push('');
      }
    }
    return { src: alts.join('|'), lit: null, pure: false };
  }

  private parseBranch(nest: number): { src: string; lit: string | null; pure: boolean } {
    let src = '';
    let run = '';
    let best = '';
    let pure = true;
    while (this.tok.t !== T.ALT && this.tok.t !== T.END && !(nest > 0 && this.tok.t === T.CLOSE)) {
      const a = this.parseExpression(nest);
      src += a.src;
      if (a.lit !== null) {
        run += a.lit;
      } else {
        pure = false;
        if (run.length > best.length) best = run;
        run = '';
      }
    }
    if (run.length > best.length) best = run;
    return { src, lit: best, pure };
  }

  private literal(c: string): Atom {
    this.laststart = false;
    return { src: esc(c), single: true, lit: c };
  }

  private anchorSrc(c: string): string {
    const W = wordClass();
    const E = esc(this.eol);
    switch (c) {
      case '^':
      case '`':
        return `(?<=^|${E})`;
      case '$':
      case "'":
        return `(?=${E}|$)`;
      case '<':
        return `(?<!${W})(?=${W})`;
      case '>':
        return `(?<=${W})(?!${W})`;
      case 'b':
        return `(?:(?<!${W})(?=${W})|(?<=${W})(?!${W}))`;
      default:
        return `(?:(?<=${W})(?=${W})|(?<!${W})(?!${W}))`;
    }
  }

  private isDup(t: T): boolean {
    return t === T.STAR || t === T.PLUS || t === T.QMARK || t === T.OPEN_DUP;
  }

  private parseExpression(nest: number): Atom {
    const tok = this.tok;
    let atom: Atom;
    switch (tok.t) {
      case T.CHAR:
        atom = this.literal(tok.c);
        this.fetch();
        break;
      case T.OPEN:
        atom = this.parseSubExp(nest + 1);
        break;
      case T.BRACKET: {
        const before = this.unsupported;
        this.unsupported = false;
        atom = this.parseBracket();
        if (this.superset && this.unsupported) atom = this.relaxedAtom();
        this.unsupported ||= before;
        break;
      }
      case T.BACKREF: {
        this.unsupported = true;
        const n = Number(tok.c);
        if (!this.completed.has(n) && !this.superset) throw new PatternError('Invalid back reference');
        this.laststart = false;
        atom = this.superset ? this.relaxedAtom() : { src: `\\${this.groupBase + n}`, single: true, lit: null };
        this.fetch();
        break;
      }
      case T.OPEN_DUP:
      case T.STAR:
      case T.PLUS:
      case T.QMARK:
        // A repetition operator with nothing to repeat.
        if (!this.ere) {
          atom = this.literal(tok.c);
          this.fetch();
          break;
        }
        if (this.glibc) {
          // glibc skips the operator token alone and parses what follows as an expression.
          this.fetch();
          if (this.cur() === T.ALT || this.cur() === T.END || this.cur() === T.CLOSE) return { src: '', single: false, lit: null };
          return this.parseExpression(nest);
        }
        // ERE: the DFA repeats the empty string: it matches as if the operator were absent.
        {
          let brace = false;
          while (this.isDup(this.tok.t)) {
            if (!this.startDup()) {
              brace = true;
              break;
            }
          }
          if (!brace) return { src: '', single: false, lit: null };
          atom = this.literalBrace();
          break;
        }
      case T.CLOSE:
        if (!this.ere) throw new PatternError('Unmatched ) or \\)');
        this.unmatchedClose = true;
        atom = this.literal(')');
        this.fetch();
        break;
      case T.CLOSE_DUP:
        atom = this.literal('}');
        this.fetch();
        break;
      case T.ANCHOR: {
        if (!"^$`'".includes(tok.c)) this.unsupported = true;
        // glibc makes a repetition after an anchor literal (BRE) or ignores it (ERE); the DFA,
        // which decides what matches, repeats the anchor unless the BRE is at its start.
        let src = this.superset && !"^$`'".includes(tok.c) ? '' : this.anchorSrc(tok.c);
        this.fetch();
        if (this.glibc) return { src, single: false, lit: null };
        while (this.isDup(this.tok.t) && !(!this.ere && this.laststart)) {
          if (this.ere && this.laststart && (this.tok.t !== T.OPEN_DUP || this.intervalValid())) this.warnStart(this.tok);
          const q = this.parseDup();
          if (q === null) break;
          src = `(?:${src})${q}`;
        }
        return { src, single: false, lit: null };
      }
      case T.PERIOD:
        this.laststart = false;
        atom = this.superset ? this.relaxedAtom() : { src: this.notEol, single: true, lit: null };
        this.fetch();
        break;
      case T.WORD:
      case T.NOTWORD:
      case T.SPACE:
      case T.NOTSPACE: {
        this.unsupported = true;
        this.laststart = false;
        const E = esc(this.eol);
        const src =
          tok.t === T.WORD
            ? wordClass()
            : tok.t === T.NOTWORD
              ? `[^${alpha()}0-9_${E}${BADBYTES}]`
              : tok.t === T.SPACE
                ? `[[${SPACE_SET}]--[${E}]]`
                : `[^${SPACE_SET}${E}${BADBYTES}]`;
        atom = this.superset ? this.relaxedAtom() : { src, single: true, lit: null };
        this.fetch();
        break;
      }
      case T.BACKSLASH:
        throw new PatternError('Trailing backslash');
      default:
        return { src: '', single: false, lit: null };
    }
    if (atom.relaxed && (this.tok.t === T.STAR || this.tok.t === T.PLUS || this.tok.t === T.QMARK)) this.fetch();
    while (this.isDup(this.tok.t)) {
      const q = this.parseDup();
      if (q === null) {
        // ERE: an invalid interval is an ordinary '{', which ends this expression.
        return { src: atom.src, single: false, lit: null };
      }
      if (q !== '{1}' && q !== '{1,1}') {
        atom = { src: atom.single ? atom.src + q : `(?:${atom.src})${q}`, single: false, lit: null };
      } else {
        atom = { src: atom.src, single: atom.single, lit: null };
      }
    }
    return atom;
  }

  private relaxedAtom(): Atom {
    return { src: `[^${esc(this.eol)}]*`, single: false, lit: null, relaxed: true };
  }

  /** A literal '{' for an ERE interval that is not one (the tokenizer sits on the '{'). */
  private literalBrace(): Atom {
    const a = this.literal('{');
    this.fetch();
    return { ...a, lit: null };
  }

  private warnStart(tok: Tok): void {
    const what = tok.t === T.STAR ? '*' : tok.t === T.PLUS ? '+' : tok.t === T.QMARK ? '?' : '{...}';
    this.dfa.push({ warn: `${what} at start of expression` });
  }

  /** Consumes a repetition operator at the start of an ERE expression; false if it is a literal '{'. */
  private startDup(): boolean {
    const tok = this.tok;
    if (tok.t === T.OPEN_DUP) {
      const save = this.i;
      const interval = this.scanInterval();
      if (interval === null) {
        // Not an interval: an ordinary '{' (the tokenizer already stands after it).
        this.i = save;
        this.tok = { t: T.CHAR, c: '{', len: 1 };
        return false;
      }
      if (this.laststart) this.dfa.push({ warn: '{...} at start of expression' });
      if (interval.tooBig) this.dfa.push({ error: 'regular expression too big' });
      this.laststart = false;
      this.fetch();
      return true;
    }
    if (this.laststart) this.warnStart(tok);
    this.fetch();
    return true;
  }

  /**
   * The DFA's reading of an interval at the current position (just after '{'): valid or not,
   * without glibc's error reporting (used where only the DFA looks at it).
   */
  private scanInterval(): { tooBig: boolean } | null {
    const cs = this.cs;
    let p = this.i;
    let min = -1;
    let max = -1;
    for (; p < cs.length && /[0-9]/.test(cs[p]!); p++) min = min < 0 ? Number(cs[p]) : Math.min(RE_DUP_MAX + 1, min * 10 + Number(cs[p]));
    if (p < cs.length) {
      if (cs[p] !== ',') max = min;
      else {
        if (min < 0) min = 0;
        while (++p < cs.length && /[0-9]/.test(cs[p]!)) max = max < 0 ? Number(cs[p]) : Math.min(RE_DUP_MAX + 1, max * 10 + Number(cs[p]));
      }
    }
    let ok = true;
    if (!this.ere) {
      if (!(p < cs.length && cs[p++] === '\\')) ok = false;
    }
    if (ok && !(p < cs.length && cs[p++] === '}')) ok = false;
    if (ok && !(min >= 0 && (max < 0 || min <= max))) ok = false;
    if (!ok) return null;
    this.i = p;
    return { tooBig: RE_DUP_MAX < max };
  }

  /** Would the DFA read an interval here (the tokenizer just after a '{')? */
  private intervalValid(): boolean {
    const save = this.i;
    const ok = this.scanInterval() !== null;
    this.i = save;
    return ok;
  }

  /** glibc fetch_number. */
  private fetchNumber(): number {
    let num = -1;
    for (;;) {
      this.fetch();
      const c = this.tok.c;
      if (this.tok.t === T.END) return -2;
      if (this.tok.t === T.CLOSE_DUP || c === ',') break;
      num = this.tok.t !== T.CHAR || c < '0' || c > '9' || num === -2 ? -2 : num === -1 ? Number(c) : Math.min(RE_DUP_MAX + 1, num * 10 + Number(c));
    }
    return num;
  }

  /**
   * glibc parse_dup_op: returns the JS quantifier, or null when an ERE '{' is not an interval
   * (the tokenizer is then positioned on that '{' as an ordinary character).
   */
  private parseDup(): string | null {
    const tok = this.tok;
    if (tok.t !== T.OPEN_DUP) {
      this.quants++;
      this.fetch();
      return tok.t === T.STAR ? '*' : tok.t === T.PLUS ? '+' : '?';
    }
    const startIdx = this.i;
    let start = this.fetchNumber();
    let end = 0;
    if (start === -1) {
      if (this.tok.t === T.CHAR && this.tok.c === ',') start = 0;
      else throw new PatternError('Invalid content of \\{\\}');
    }
    if (start !== -2) {
      end = this.tok.t === T.CLOSE_DUP ? start : this.tok.t === T.CHAR && this.tok.c === ',' ? this.fetchNumber() : -2;
    }
    if (start === -2 || end === -2) {
      if (!this.ere) throw new PatternError(this.tok.t === T.END ? 'Unmatched \\{' : 'Invalid content of \\{\\}');
      // ERE: not an interval; the '{' is an ordinary character, read next.
      this.i = startIdx;
      this.tok = { t: T.CHAR, c: '{', len: 1 };
      return null;
    }
    if ((end !== -1 && start > end) || this.tok.t !== T.CLOSE_DUP) throw new PatternError('Invalid content of \\{\\}');
    if (RE_DUP_MAX < (end === -1 ? start : end)) throw new PatternError('Regular expression too big');
    this.fetch();
    this.laststart = false;
    if (end === -1) {
      this.quants++;
      return `{${start},}`;
    }
    if (start !== end) this.quants++;
    return start === end ? `{${start}}` : `{${start},${end}}`;
  }

  private parseSubExp(nest: number): Atom {
    const n = ++this.nsub;
    this.laststart = true;
    this.fetch(true);
    let inner = '';
    if (this.tok.t !== T.CLOSE) {
      inner = this.parseRegExp(nest).src;
      if (this.cur() !== T.CLOSE) throw new PatternError('Unmatched ( or \\(');
    }
    this.completed.add(n);
    this.laststart = false;
    this.fetch();
    return { src: `(${inner})`, single: true, lit: null };
  }

  // ---- bracket expressions (glibc parse_bracket_exp, DFA's [:space:] check) ----

  private parseBracket(): Atom {
    const cs = this.cs;
    let i = this.i;
    type BTok = { t: 'END' | 'CHAR' | 'RANGE' | 'CLOSE' | 'COLL' | 'EQUIV' | 'CLASS'; c: string; len: number };
    const peekB = (j: number): BTok => {
      if (j >= cs.length) return { t: 'END', c: '', len: 0 };
      const c = cs[j]!;
      if (c === '[') {
        const c2 = cs[j + 1];
        if (c2 === '.') return { t: 'COLL', c: '.', len: 2 };
        if (c2 === '=') return { t: 'EQUIV', c: '=', len: 2 };
        if (c2 === ':') return { t: 'CLASS', c: ':', len: 2 };
        return { t: 'CHAR', c, len: 1 };
      }
      if (c === '-') return { t: 'RANGE', c, len: 1 };
      if (c === ']') return { t: 'CLOSE', c, len: 1 };
      return { t: 'CHAR', c, len: 1 };
    };
    type Elem = { type: 'char' | 'coll' | 'equiv' | 'class'; v: string };
    const parseElem = (tok: BTok, acceptHyphen: boolean): Elem => {
      i += tok.len;
      if (tok.t === 'COLL' || tok.t === 'EQUIV' || tok.t === 'CLASS') {
        let name = '';
        if (i >= cs.length) throw new PatternError('Unmatched [, [^, [:, [., or [=');
        for (;;) {
          if (Buffer.byteLength(name) >= 32) throw new PatternError('Unmatched [, [^, [:, [., or [=');
          const ch = cs[i++]!;
          if (i >= cs.length) throw new PatternError('Unmatched [, [^, [:, [., or [=');
          if (ch === tok.c && cs[i] === ']') break;
          name += ch;
        }
        i++;
        return { type: tok.t === 'COLL' ? 'coll' : tok.t === 'EQUIV' ? 'equiv' : 'class', v: name };
      }
      if (tok.t === 'RANGE' && !acceptHyphen) {
        if (peekB(i).t !== 'CLOSE') throw new PatternError('Invalid range end');
      }
      return { type: 'char', v: tok.c };
    };
    const single = (e: Elem): string => {
      // A collating symbol or equivalence class must name one single-byte character.
      if (e.type !== 'char' && Buffer.byteLength(e.v) !== 1) throw new PatternError('Invalid collation character');
      return e.v;
    };

    let tok = peekB(i);
    if (tok.t === 'END') throw new PatternError('Invalid regular expression');
    let neg = false;
    if (cs[i] === '^') {
      neg = true;
      i++;
      tok = peekB(i);
      if (tok.t === 'END') throw new PatternError('Invalid regular expression');
    }
    if (tok.t === 'CLOSE') tok = { t: 'CHAR', c: ']', len: 1 };
    // The DFA's "[:space:]" check: bit 1 first is ':', 2 last is ':', 4 other chars, 8 ranges/classes.
    let colon = cs[i] === ':' ? 1 : 0;
    const items: string[] = [];
    let complex = false;
    let firstRound = true;
    for (;;) {
      colon &= ~2;
      const start = parseElem(tok, firstRound);
      firstRound = false;
      tok = peekB(i);
      let rangeEnd: Elem | null = null;
      if (start.type !== 'class' && start.type !== 'equiv') {
        if (tok.t === 'END') throw new PatternError('Unmatched [, [^, [:, [., or [=');
        if (tok.t === 'RANGE') {
          const save = i;
          i += tok.len;
          const tok2 = peekB(i);
          if (tok2.t === 'END') throw new PatternError('Unmatched [, [^, [:, [., or [=');
          if (tok2.t === 'CLOSE') {
            i = save;
            tok = { t: 'CHAR', c: '-', len: 1 };
          } else {
            rangeEnd = parseElem(tok2, true);
            tok = peekB(i);
          }
        }
      }
      if (neg || start.type !== 'char' || /[^\x00-\x7f]/.test(start.v)) this.unsupported = true;
      if (start.type === 'class' && start.v === 'digit') this.unsupported = neg || this.unsupported;
      if (rangeEnd) {
        if (!/^[0-9]$/.test(start.v) || !/^[0-9]$/.test(rangeEnd.v)) this.unsupported = true;
        if (rangeEnd.type === 'class' || rangeEnd.type === 'equiv') throw new PatternError('Invalid range end');
        const a = single(start);
        const b = single(rangeEnd);
        // C.UTF-8 has no collation order beyond single bytes: multibyte endpoints are refused.
        if (Buffer.byteLength(a) > 1 || Buffer.byteLength(b) > 1) throw new PatternError('Invalid collation character');
        if (a.codePointAt(0)! > b.codePointAt(0)!) throw new PatternError('Invalid range end');
        items.push(`${esc(a)}-${esc(b)}`);
        complex = true;
        colon |= 8;
      } else if (start.type === 'class') {
        const cls = posixClass(start.v, this.icase);
        if (cls === null) throw new PatternError('Invalid character class name');
        items.push(cls);
        complex = true;
        colon |= 8;
      } else {
        const ch = single(start);
        items.push(esc(ch));
        if (start.type !== 'char') colon |= 8;
        else colon |= ch === ':' ? 2 : 4;
      }
      if (tok.t === 'END') throw new PatternError('Unmatched [, [^, [:, [., or [=');
      if (tok.t === 'CLOSE') break;
    }
    i += 1;
    this.i = i;
    if (colon === 7) this.dfa.push({ error: 'character class syntax is [[:space:]], not [:space:]' });
    this.laststart = false;
    this.fetch();
    const E = esc(this.eol);
    let src: string;
    if (neg) src = `[^${items.join('')}${E}${BADBYTES}]`;
    else if (complex) src = `[[${items.join('')}]--[${E}]]`;
    else src = `[${items.join('')}]`;
    return { src, single: true, lit: null };
  }
}

// ---------------------------------------------------------------------------------------
// Perl-compatible patterns (-P) -> JavaScript
// ---------------------------------------------------------------------------------------

const PCRE_CLASSES: Record<string, string> = {
  alpha: 'A-Za-z',
  digit: '0-9',
  alnum: 'A-Za-z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  space: '\\t-\\r\\u{20}',
  blank: '\\t\\u{20}',
  punct: '\\u{21}-\\u{2f}\\u{3a}-\\u{40}\\u{5b}-\\u{60}\\u{7b}-\\u{7e}',
  xdigit: '0-9A-Fa-f',
  word: 'A-Za-z0-9_',
  cntrl: '\\u{0}-\\u{1f}\\u{7f}',
  graph: '\\u{21}-\\u{7e}',
  print: '\\u{20}-\\u{7e}',
  ascii: '\\u{0}-\\u{7f}',
};

function translatePerl(pattern: string, eol: string): { src: string; icase: boolean } {
  const cs = Array.from(pattern);
  const E = esc(eol);
  let out = '';
  let i = 0;
  let icase = false;
  if (pattern.startsWith('(?i)')) {
    icase = true;
    i = 4;
  }
  const escapeChar = (d: string, inClass: boolean): string => {
    switch (d) {
      case 'd':
      case 'w':
        return `\\${d}`;
      case 'D':
        return inClass ? '\\D' : `[^0-9${E}]`;
      case 'W':
        return inClass ? '\\W' : `[^A-Za-z0-9_${E}]`;
      case 's':
        return '\\t\\u{b}\\f\\r\\u{20}';
      case 'S':
        return inClass ? '\\S' : `[^\\t\\n\\u{b}\\f\\r ${E}]`;
      case 'h':
        return '\\t\\u{20}\\u{a0}\\u{1680}\\u{180e}\\u{2000}-\\u{200a}\\u{202f}\\u{205f}\\u{3000}';
      case 'v':
        return '\\u{b}\\f\\r\\u{85}\\u{2028}\\u{2029}';
      case 'n':
        return '\\n';
      case 't':
        return '\\t';
      case 'r':
        return '\\r';
      case 'f':
        return '\\f';
      case 'e':
        return '\\u{1b}';
      case 'a':
        return '\\u{7}';
      default:
        return '';
    }
  };
  while (i < cs.length) {
    const c = cs[i]!;
    if (c === '\\') {
      const d = cs[i + 1];
      if (d === undefined) throw new PatternError('\\ at end of pattern');
      i += 2;
      switch (d) {
        case 's':
          out += `[${escapeChar('s', false)}]`;
          continue;
        case 'h':
          out += `[${escapeChar('h', false)}]`;
          continue;
        case 'v':
          out += `[${escapeChar('v', false)}]`;
          continue;
        case 'H':
          out += `[^${escapeChar('h', false)}${E}]`;
          continue;
        case 'V':
          out += `[^${escapeChar('v', false)}${E}]`;
          continue;
        case 'N':
          out += `[^${E}]`;
          continue;
        case 'R':
          out += '[\\u{b}\\f\\r\\u{85}\\u{2028}\\u{2029}]';
          continue;
        case 'A':
        case 'G':
          out += `(?<=^|${E})`;
          continue;
        case 'Z':
        case 'z':
          out += `(?=${E}|$)`;
          continue;
        case 'Q': {
          while (i < cs.length && !(cs[i] === '\\' && cs[i + 1] === 'E')) out += esc(cs[i++]!);
          if (i < cs.length) i += 2;
          continue;
        }
        case 'E':
          continue;
        case 'x': {
          let h = '';
          if (cs[i] === '{') {
            const close = cs.indexOf('}', i);
            if (close < 0) throw new PatternError('missing terminating } in \\x{}');
            h = cs.slice(i + 1, close).join('');
            i = close + 1;
          } else {
            while (h.length < 2 && i < cs.length && /[0-9a-fA-F]/.test(cs[i]!)) h += cs[i++];
          }
          out += hex(h ? parseInt(h, 16) : 0);
          continue;
        }
        case 'o': {
          const close = cs.indexOf('}', i);
          if (cs[i] !== '{' || close < 0) throw new PatternError('missing opening brace after \\o');
          out += hex(parseInt(cs.slice(i + 1, close).join(''), 8));
          i = close + 1;
          continue;
        }
        case '0': {
          let o = '';
          while (o.length < 2 && i < cs.length && /[0-7]/.test(cs[i]!)) o += cs[i++];
          out += hex(o ? parseInt(o, 8) : 0);
          continue;
        }
        case 'g': {
          let ref = '';
          if (cs[i] === '{') {
            const close = cs.indexOf('}', i);
            ref = cs.slice(i + 1, close).join('');
            i = close + 1;
          } else {
            while (i < cs.length && /[0-9]/.test(cs[i]!)) ref += cs[i++];
          }
          out += /^[0-9]+$/.test(ref) ? `\\${ref}` : `\\k<${ref}>`;
          continue;
        }
        case 'k': {
          const open = cs[i];
          const closeCh = open === '<' ? '>' : open === '{' ? '}' : "'";
          const close = cs.indexOf(closeCh, i + 1);
          out += `\\k<${cs.slice(i + 1, close).join('')}>`;
          i = close + 1;
          continue;
        }
        case 'p':
        case 'P': {
          if (cs[i] === '{') {
            const close = cs.indexOf('}', i);
            let name = cs.slice(i + 1, close).join('');
            let neg = d === 'P';
            if (name.startsWith('^')) {
              neg = !neg;
              name = name.slice(1);
            }
            out += `\\${neg ? 'P' : 'p'}{${name}}`;
            i = close + 1;
          } else {
            out += `\\${d}{${cs[i] ?? ''}}`;
            i++;
          }
          continue;
        }
        case 'K':
          throw new PatternError('\\K is not supported');
        default:
          if (/[1-9]/.test(d)) {
            let n = d;
            while (i < cs.length && /[0-9]/.test(cs[i]!)) n += cs[i++];
            out += `\\${n}`;
          } else if (/[dwbB]/.test(d)) {
            out += `\\${d}`;
          } else if (/[DWS]/.test(d)) {
            out += escapeChar(d, false);
          } else if (/[ntrfea]/.test(d)) {
            out += `[${escapeChar(d, false)}]`;
          } else if (/[A-Za-z0-9]/.test(d)) {
            throw new PatternError('unrecognized character follows \\');
          } else {
            out += esc(d);
          }
          continue;
      }
    }
    if (c === '[') {
      // A character class: copied with its contents escaped for the `v` flag.
      let j = i + 1;
      let neg = false;
      if (cs[j] === '^') {
        neg = true;
        j++;
      }
      const items: string[] = [];
      let first = true;
      let closed = false;
      while (j < cs.length) {
        const ch = cs[j]!;
        if (ch === ']' && !first) {
          closed = true;
          j++;
          break;
        }
        first = false;
        let item: string;
        if (ch === '[' && cs[j + 1] === ':') {
          const end = cs.indexOf(']', j + 2);
          const name = end > 0 && cs[end - 1] === ':' ? cs.slice(j + 2, end - 1).join('') : '';
          let negc = false;
          let nm = name;
          if (nm.startsWith('^')) {
            negc = true;
            nm = nm.slice(1);
          }
          const set = Object.hasOwn(PCRE_CLASSES, nm) ? PCRE_CLASSES[nm] : undefined;
          if (name && set === undefined) throw new PatternError('unknown POSIX class name');
          if (set !== undefined) {
            items.push(negc ? `[^${set}]` : `[${set}]`);
            j = end + 1;
            continue;
          }
          item = esc(ch);
          j++;
        } else if (ch === '\\') {
          const d = cs[j + 1];
          if (d === undefined) break;
          j += 2;
          if (/[dwDWS]/.test(d)) item = `\\${d}`;
          else if (d === 's' || d === 'h' || d === 'v') item = escapeChar(d, true);
          else if (/[ntrfea]/.test(d)) item = escapeChar(d, true);
          else if (d === 'x') {
            let h = '';
            if (cs[j] === '{') {
              const close = cs.indexOf('}', j);
              h = cs.slice(j + 1, close).join('');
              j = close + 1;
            } else while (h.length < 2 && j < cs.length && /[0-9a-fA-F]/.test(cs[j]!)) h += cs[j++];
            item = hex(h ? parseInt(h, 16) : 0);
          } else if (d === 'p' || d === 'P') {
            if (cs[j] === '{') {
              const close = cs.indexOf('}', j);
              item = `\\${d}{${cs.slice(j + 1, close).join('')}}`;
              j = close + 1;
            } else item = `\\${d}{${cs[j++] ?? ''}}`;
          } else if (d === 'b') item = '\\u{8}';
          else item = esc(d);
        } else {
          item = esc(ch);
          j++;
        }
        // Ranges: item '-' item.
        if (cs[j] === '-' && cs[j + 1] !== undefined && cs[j + 1] !== ']') {
          const hi = cs[j + 1]!;
          let hiItem: string;
          if (hi === '\\') {
            const d = cs[j + 2] ?? '';
            hiItem = /[ntrfea]/.test(d) ? escapeChar(d, true) : esc(d);
            j += 3;
          } else {
            hiItem = esc(hi);
            j += 2;
          }
          items.push(`${item}-${hiItem}`);
          continue;
        }
        items.push(item);
      }
      if (!closed) throw new PatternError('missing terminating ] for character class');
      out += neg ? `[^${items.join('')}${E}]` : `[[${items.join('')}]--[${E}]]`;
      i = j;
      continue;
    }
    if (c === '.') {
      out += `[^${E}]`;
      i++;
      continue;
    }
    if (c === '^') {
      out += `(?<=^|${E})`;
      i++;
      continue;
    }
    if (c === '$') {
      out += `(?=${E}|$)`;
      i++;
      continue;
    }
    if (c === '(') {
      if (cs[i + 1] === '*' && /[A-Z:]/.test(cs[i + 2] ?? '')) {
        const verb = /^\(\*(UTF8?|UCP|NO_AUTO_POSSESS|NO_START_OPT|NO_DOTSTAR_ANCHOR|NO_JIT)\)/.exec(cs.slice(i, i + 24).join(''));
        if (!verb) throw new PatternError('(*VERB) not recognized or malformed');
        i += verb[0].length;
        continue;
      }
      if (cs[i + 1] === '?') {
        const rest = cs.slice(i + 2, i + 5).join('');
        if (rest.startsWith('#')) {
          const close = cs.indexOf(')', i);
          i = close < 0 ? cs.length : close + 1;
          continue;
        }
        if (rest.startsWith('P<') || /^<[A-Za-z_]/.test(rest)) {
          // A named group: the name is copied as is.
          const from = rest.startsWith('P') ? i + 4 : i + 3;
          const close = cs.indexOf('>', from);
          if (close < 0) throw new PatternError('syntax error in subpattern name (missing terminator?)');
          out += `(?<${cs.slice(from, close).join('')}>`;
          i = close + 1;
          continue;
        }
        if (rest.startsWith('P=')) {
          const close = cs.indexOf(')', i);
          out += `\\k<${cs.slice(i + 4, close).join('')}>`;
          i = close + 1;
          continue;
        }
        if (rest.startsWith("'")) {
          const close = cs.indexOf("'", i + 3);
          out += `(?<${cs.slice(i + 3, close).join('')}>`;
          i = close + 1;
          continue;
        }
        if (rest.startsWith('>') || rest.startsWith('|')) {
          out += '(?:';
          i += 3;
          continue;
        }
        if (/^[:=!]/.test(rest)) {
          out += `(?${rest[0]}`;
          i += 3;
          continue;
        }
        if (/^<[=!]/.test(rest)) {
          out += `(?<${rest[1]}`;
          i += 4;
          continue;
        }
        if (
          /^[a-zA-Z-]+\)/.test(
            cs
              .slice(i + 2)
              .join('')
              .slice(0, 12),
          )
        ) {
          // Inline option settings other than a leading (?i): only (?i) can be honoured.
          const close = cs.indexOf(')', i);
          const flags = cs.slice(i + 2, close).join('');
          if (flags.includes('i') && !flags.startsWith('-')) icase = true;
          i = close + 1;
          continue;
        }
        throw new PatternError('unrecognized character after (? or (?-');
      }
      out += '(';
      i++;
      continue;
    }
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(cs.slice(i, i + 24).join(''));
      if (m) {
        out += m[0];
        i += m[0].length;
        if (cs[i] === '+') i++;
        continue;
      }
      out += esc('{');
      i++;
      continue;
    }
    if (c === '}' || c === ']') {
      out += esc(c);
      i++;
      continue;
    }
    if ((c === '*' || c === '+' || c === '?') && cs[i + 1] === '+') {
      out += c;
      i += 2;
      continue;
    }
    if (c === '*' || c === '+' || c === '?' || c === '|' || c === ')') {
      out += c;
      i++;
      continue;
    }
    out += esc(c);
    i++;
  }
  return { src: out, icase };
}

function pcreMessage(jsMessage: string): string {
  const m = jsMessage.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
  if (/Unterminated group/i.test(m)) return 'missing closing parenthesis';
  if (/Unmatched '\)'/i.test(m)) return 'unmatched closing parenthesis';
  if (/Unterminated character class/i.test(m)) return 'missing terminating ] for character class';
  if (/Nothing to repeat/i.test(m)) return 'quantifier does not follow a repeatable item';
  if (/numbers out of order/i.test(m)) return 'numbers out of order in {} quantifier';
  if (/Invalid named capture referenced|Invalid named reference/i.test(m)) return 'reference to non-existent subpattern';
  if (/Invalid escape|Invalid Unicode escape|Invalid decimal escape/i.test(m)) return 'reference to non-existent subpattern';
  if (/Invalid property name/i.test(m)) return 'unknown property name after \\P or \\p';
  if (/Invalid capture group name|Duplicate capture group name/i.test(m)) return 'two named subpatterns have the same name (PCRE2_DUPNAMES not set)';
  if (/Lone quantifier brackets|Incomplete quantifier|Invalid quantifier/i.test(m)) return 'quantifier does not follow a repeatable item';
  if (/Range out of order/i.test(m)) return 'range out of order in character class';
  if (/Invalid group/i.test(m)) return 'unrecognized character after (? or (?-';
  return m;
}

// ---------------------------------------------------------------------------------------
// The compiled matcher
// ---------------------------------------------------------------------------------------

/** One compiled form of the pattern. */
interface Engine {
  /** Global: scans a whole buffer; a match never crosses an end of line. */
  re: RegExp;
  /** Global, for -o: glibc's reading of the pattern (same as `re` unless they differ). */
  oRe: RegExp;
  oSrc: string;
  /** Sticky: `[^EOL]*?(?:…)`, tests the line starting at lastIndex. */
  lineRe: RegExp | null;
  flags: string;
  /** For -o: `(?:…)(?<=^[\s\S]{n,})` by n, to look for longer matches. */
  extend: Map<number, RegExp>;
  /** For -w with a pattern that can match empty: [non-empty at lastIndex, same and word-bounded], by prefix length. */
  nonEmpty: Map<number, [RegExp, RegExp]>;
  /** Sticky `[^EOL]*?(?:filter)` for Matcher.filter. */
  filterRe: RegExp | null;
}

interface Matcher {
  /** Unicode (`v` flag) form: right for any text. */
  uni: Engine;
  /** Lazily built form without the `v` flag, for pure-ASCII buffers, where V8 is faster. */
  ascii: Engine | null;
  /** A literal (case-exact) every match contains, for an indexOf prefilter. */
  lit: string | null;
  /** The whole pattern is `lit`: indexOf alone decides. */
  pure: boolean;
  /** -o must search for a longer match at the same start (POSIX leftmost-longest). */
  longest: boolean;
  src: string;
  oSrc: string;
  icase: boolean;
  eol: string;
  /** -w and the bare pattern (this source) can match the empty string. */
  wordEmpty: string | null;
  /** The DFA superset every selected line must also match, if it can differ. */
  filter: string | null;
}

interface PatternLoc {
  text: string;
  file: string;
  line: number;
}

function buildEngine(src: string, oSrc: string, flags: string, withLineRe: boolean, eol: string): Engine {
  const re = new RegExp(src, `g${flags}`);
  const oRe = oSrc === src ? re : new RegExp(oSrc, `g${flags}`);
  const e = flags.includes('v') ? esc(eol) : eol === '\n' ? '\\n' : '\\x00';
  const lineRe = withLineRe ? new RegExp(`[^${e}]*?(?:${src})`, `y${flags}`) : null;
  return { re, oRe, oSrc, lineRe, flags, extend: new Map(), nonEmpty: new Map(), filterRe: null };
}

function buildMatcher(src: string, icase: boolean, lit: string | null, pure: boolean, longest: boolean, eol: string, oSrc = src): Matcher {
  const uni = buildEngine(src, oSrc, `v${icase ? 'i' : ''}`, lit !== null && !pure, eol);
  return { uni, ascii: null, lit, pure, longest, src, oSrc, icase, eol, wordEmpty: null, filter: null };
}

/**
 * Rewrites a `v`-flag source produced by this module into an equivalent one without the flag,
 * valid for text made only of ASCII characters: every class (or class escape, or non-ASCII
 * character) is replaced by the ASCII characters it matches.
 */
function asciiSource(src: string, icase: boolean): string {
  const flags = `v${icase ? 'i' : ''}`;
  const project = (cls: string): string => {
    const re = new RegExp(`^${cls}$`, flags);
    let out = '';
    for (let c = 0; c < 128; c++) {
      if (!re.test(String.fromCharCode(c))) continue;
      let d = c;
      while (d + 1 < 128 && re.test(String.fromCharCode(d + 1))) d++;
      const x = (n: number) => `\\x${n.toString(16).padStart(2, '0')}`;
      out += d === c ? x(c) : d === c + 1 ? x(c) + x(d) : `${x(c)}-${x(d)}`;
      c = d;
    }
    return out ? `[${out}]` : '[]';
  };
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\\') {
      const d = src[i + 1]!;
      if ((d === 'u' || d === 'p' || d === 'P') && src[i + 2] === '{') {
        const close = src.indexOf('}', i);
        const atom = src.slice(i, close + 1);
        out += d === 'u' && parseInt(src.slice(i + 3, close), 16) < 128 && !icase ? `\\x${src.slice(i + 3, close).padStart(2, '0')}` : project(atom);
        i = close + 1;
        continue;
      }
      if (d === 'k') {
        const close = src.indexOf('>', i);
        out += src.slice(i, close + 1);
        i = close + 1;
        continue;
      }
      out += c + d;
      i += 2;
      continue;
    }
    if (c === '[') {
      let depth = 0;
      let j = i;
      for (; j < src.length; j++) {
        const ch = src[j];
        if (ch === '\\') {
          if (src[j + 2] === '{' && /[upP]/.test(src[j + 1]!)) j = src.indexOf('}', j);
          else j++;
        } else if (ch === '[') depth++;
        else if (ch === ']' && --depth === 0) break;
      }
      out += project(src.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    const cp = src.codePointAt(i)!;
    if (cp >= 128) {
      const ch = String.fromCodePoint(cp);
      out += project(`[${esc(ch)}]`);
      i += ch.length;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

function asciiEngine(m: Matcher): Engine {
  if (!m.ascii) {
    const src = asciiSource(m.src, m.icase);
    const oSrc = m.oSrc === m.src ? src : asciiSource(m.oSrc, m.icase);
    m.ascii = buildEngine(src, oSrc, m.icase ? 'i' : '', m.lit !== null && !m.pure, m.eol);
    if (m.filter !== null)
      m.ascii.filterRe = new RegExp(`[^${m.eol === '\n' ? '\\n' : '\\x00'}]*?(?:${asciiSource(m.filter, m.icase)})`, `y${m.icase ? 'i' : ''}`);
  }
  return m.ascii;
}

// ---------------------------------------------------------------------------------------
// Globs for --include / --exclude / --exclude-dir (fnmatch without flags, gnulib exclude)
// ---------------------------------------------------------------------------------------

/** grep matches names by character, with its Unicode classes. */
const nameClass = (name: string): string | null => posixClass(name, false);

interface ExcludePattern {
  include: boolean;
  wild: boolean;
  re: RegExp | null;
  literal: string;
}

/** One list of gnulib exclude patterns (for command-line names or for names met recursing). */
class ExcludeList {
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

// ---------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------

const LONG_OPTIONS: LongOpt[] = longOpts([
  ['basic-regexp', 'G'],
  ['extended-regexp', 'E'],
  ['fixed-regexp', 'F'],
  ['fixed-strings', 'F'],
  ['perl-regexp', 'P'],
  ['after-context', 'A', 'required'],
  ['before-context', 'B', 'required'],
  ['binary-files', 'binary-files', 'required'],
  ['byte-offset', 'b'],
  ['context', 'C', 'required'],
  ['color', 'color', 'optional'],
  ['colour', 'color', 'optional'],
  ['count', 'c'],
  ['devices', 'D', 'required'],
  ['directories', 'd', 'required'],
  ['exclude', 'exclude', 'required'],
  ['exclude-from', 'exclude-from', 'required'],
  ['exclude-dir', 'exclude-dir', 'required'],
  ['file', 'f', 'required'],
  ['files-with-matches', 'l'],
  ['files-without-match', 'L'],
  ['group-separator', 'group-separator', 'required'],
  ['help', 'help'],
  ['include', 'include', 'required'],
  ['ignore-case', 'i'],
  ['no-ignore-case', 'no-ignore-case'],
  ['initial-tab', 'T'],
  ['label', 'label', 'required'],
  ['line-buffered', 'line-buffered'],
  ['line-number', 'n'],
  ['line-regexp', 'x'],
  ['max-count', 'm', 'required'],
  ['no-filename', 'h'],
  ['no-group-separator', 'no-group-separator'],
  ['no-messages', 's'],
  ['null', 'Z'],
  ['null-data', 'z'],
  ['only-matching', 'o'],
  ['quiet', 'q'],
  ['recursive', 'r'],
  ['dereference-recursive', 'R'],
  ['regexp', 'e', 'required'],
  ['invert-match', 'v'],
  ['silent', 'q'],
  ['text', 'a'],
  ['binary', 'U'],
  ['unix-byte-offsets', 'u'],
  ['version', 'V'],
  ['with-filename', 'H'],
  ['word-regexp', 'w'],
]);
const SHORT_OPTIONS = '0123456789A:B:C:D:EFGHIPTUVX:abcd:e:f:hiLlm:noqRrsuvwxyZz';

interface Options {
  matcher: 'G' | 'E' | 'F' | 'P' | null;
  keys: PatternLoc[] | null;
  after: number;
  before: number;
  context: number;
  icase: boolean;
  words: boolean;
  lines: boolean;
  invert: boolean;
  count: boolean;
  list: 0 | 1 | 2; // none, -l, -L
  lineNumbers: boolean;
  byteOffset: boolean;
  onlyMatching: boolean;
  quiet: boolean;
  suppress: boolean;
  filenameOpt: -1 | 0 | 1;
  binaryFiles: 'binary' | 'text' | 'without-match';
  directories: 'read' | 'recurse' | 'skip';
  deref: boolean;
  lastRecursive: boolean;
  maxCount: number;
  nullName: boolean;
  nullData: boolean;
  label: string | null;
  groupSeparator: string | null;
  color: boolean;
  alignTabs: boolean;
  files: ExcludeList[]; // [recursion (anchored), command line]
  dirs: ExcludeList[];
}

/** Parses a context length like xstrtoimax; null if invalid. */
function parseCount(s: string): number | null {
  const m = /^[ \t\n\v\f\r]*([+-]?)([0-9]+)$/.exec(s);
  if (!m) return null;
  const v = Number(m[2]);
  if (m[1] === '-' && v !== 0) return -Math.min(v, Number.MAX_SAFE_INTEGER);
  return Math.min(v, Number.MAX_SAFE_INTEGER);
}

// ---------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------

/** UTF-8 to a JS string, every byte of an invalid sequence mapped to a lone U+DC80+byte. */
function decodeLossless(b: Uint8Array): string {
  const parts: string[] = [];
  let codes: number[] = [];
  const n = b.length;
  let i = 0;
  while (i < n) {
    const c = b[i]!;
    let cp = -1;
    let len = 1;
    if (c < 0x80) cp = c;
    else if (c >= 0xc2 && c <= 0xdf) {
      const c1 = b[i + 1];
      if (c1 !== undefined && (c1 & 0xc0) === 0x80) {
        cp = ((c & 0x1f) << 6) | (c1 & 0x3f);
        len = 2;
      }
    } else if (c >= 0xe0 && c <= 0xef) {
      const c1 = b[i + 1];
      const c2 = b[i + 2];
      const lo = c === 0xe0 ? 0xa0 : 0x80;
      const hi = c === 0xed ? 0x9f : 0xbf;
      if (c1 !== undefined && c2 !== undefined && c1 >= lo && c1 <= hi && (c2 & 0xc0) === 0x80) {
        cp = ((c & 0x0f) << 12) | ((c1 & 0x3f) << 6) | (c2 & 0x3f);
        len = 3;
      }
    } else if (c >= 0xf0 && c <= 0xf4) {
      const c1 = b[i + 1];
      const c2 = b[i + 2];
      const c3 = b[i + 3];
      const lo = c === 0xf0 ? 0x90 : 0x80;
      const hi = c === 0xf4 ? 0x8f : 0xbf;
      if (c1 !== undefined && c2 !== undefined && c3 !== undefined && c1 >= lo && c1 <= hi && (c2 & 0xc0) === 0x80 && (c3 & 0xc0) === 0x80) {
        cp = ((c & 0x07) << 18) | ((c1 & 0x3f) << 12) | ((c2 & 0x3f) << 6) | (c3 & 0x3f);
        len = 4;
      }
    }
    if (cp < 0) cp = 0xdc00 + c;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      codes.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
    } else codes.push(cp);
    i += len;
    if (codes.length >= 8192) {
      parts.push(String.fromCharCode(...codes));
      codes = [];
    }
  }
  parts.push(String.fromCharCode(...codes));
  return parts.join('');
}

/** Does text[from, to) hold a byte that was not valid UTF-8 (a lone U+DC80..U+DCFF)? */
function hasEncodingError(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc80 && c <= 0xdcff) {
      const p = i > 0 ? text.charCodeAt(i - 1) : 0;
      if (!(p >= 0xd800 && p <= 0xdbff)) return true;
    }
  }
  return false;
}

/** Output text back to bytes (latin1-shaped), lone U+DC80+b surrogates becoming byte b. */
function toRawBytes(s: string): string {
  const out: string[] = [];
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc80 && c <= 0xdcff) {
      const p = i > 0 ? s.charCodeAt(i - 1) : 0;
      if (p >= 0xd800 && p <= 0xdbff) continue;
      out.push(Buffer.from(s.slice(last, i), 'utf8').toString('latin1'), String.fromCharCode(c - 0xdc00));
      last = i + 1;
    }
  }
  out.push(Buffer.from(s.slice(last), 'utf8').toString('latin1'));
  return out.join('');
}

// ---------------------------------------------------------------------------------------
// The search
// ---------------------------------------------------------------------------------------

class Grep {
  private readonly out: string[] = [];
  private outBytes = 0;
  private readonly err: string[] = [];
  private errseen = false;
  private rawOutput = false;
  private used = false;
  private readonly maxOutput: number;

  private o!: Options;
  private m!: Matcher;
  /** The engine for the current buffer. */
  private eng!: Engine;
  private eol = '\n';
  private outQuiet = false;
  private doneOnMatch = false;
  private outFile = 0;
  private omitDotSlash = false;
  private stdinUsed = false;

  // per file
  private text = '';
  private filename = '';
  private lastout = -1;
  private pending = 0;
  private outleft = 0;
  private lnPos = 0;
  private lnCount = 0;
  private bytePos = 0;
  private byteIdx = 0;
  private ascii = true;
  private encErrors = false;
  private encodingErrorOutput = false;
  private offsetWidth = 0;

  private readonly fs: IFileSystem;

  constructor(
    private readonly ctx: Ctx,
    direct?: IFileSystem,
  ) {
    this.maxOutput = ctx.limits?.maxOutputSize ?? 0;
    this.fs = direct ?? ctx.fs;
  }

  private write(s: string): void {
    this.out.push(s);
    this.outBytes += s.length;
  }

  private error(msg: string): void {
    this.err.push(`grep: ${msg}\n`);
  }

  private suppressible(name: string, msg: string): void {
    if (!this.o.suppress) this.error(`${name}: ${msg}`);
    this.errseen = true;
  }

  private usageError(msg: string | null): never {
    if (msg !== null) this.error(msg);
    this.err.push(USAGE_TAIL);
    throw new GrepExit(2);
  }

  /**
   * stdout is returned as bytes: that is what grep writes, and just-bash handles byte output
   * much faster than text (it measures text by walking it in JavaScript, several times).
   */
  result(code: number): Result {
    const text = this.out.join('');
    const stdout = this.rawOutput ? toRawBytes(text) : Buffer.from(text, 'utf8').toString('latin1');
    return { stdout, stderr: this.err.join(''), exitCode: code, stdoutKind: 'bytes', stdoutEncoding: 'binary' } as Result;
  }

  // ---- option parsing (getopt_long with permutation) ----

  private async parseArgs(argv: string[]): Promise<{ o: Options; operands: string[] }> {
    const o: Options = {
      matcher: null,
      keys: null,
      after: -1,
      before: -1,
      context: -1,
      icase: false,
      words: false,
      lines: false,
      invert: false,
      count: false,
      list: 0,
      lineNumbers: false,
      byteOffset: false,
      onlyMatching: false,
      quiet: false,
      suppress: false,
      filenameOpt: 0,
      binaryFiles: 'binary',
      directories: 'read',
      deref: false,
      lastRecursive: false,
      maxCount: Infinity,
      nullName: false,
      nullData: false,
      label: null,
      groupSeparator: '--',
      color: false,
      alignTabs: false,
      files: [new ExcludeList(true), new ExcludeList(false)],
      dirs: [new ExcludeList(true), new ExcludeList(false)],
    };
    this.o = o;
    const operands: string[] = [];
    let showHelp = false;
    let showVersion = false;
    let digits = '';
    let digitElem = -1;
    const flushDigits = () => {
      if (digits) {
        const v = parseCount(digits);
        if (v === null || v < 0) {
          this.error(`${digits}: invalid context length argument`);
          throw new GrepExit(2);
        }
        o.context = v;
        digits = '';
      }
    };
    const setMatcher = (m: 'G' | 'E' | 'F' | 'P') => {
      if (o.matcher !== null && o.matcher !== m) {
        this.error('conflicting matchers specified');
        throw new GrepExit(2);
      }
      o.matcher = m;
    };
    const ctxArg = (s: string): number => {
      const v = parseCount(s);
      if (v === null || v < 0) {
        this.error(`${s}: invalid context length argument`);
        throw new GrepExit(2);
      }
      return v;
    };
    const addKeys = (text: string, file: string) => {
      const pats = text.split('\n');
      pats.pop();
      o.keys ??= [];
      pats.forEach((p, k) => o.keys!.push({ text: p, file, line: k + 1 }));
    };

    const apply = async (key: string, arg: string | undefined): Promise<void> => {
      if (key !== 'digit') flushDigits();
      switch (key) {
        case 'A':
          o.after = ctxArg(arg!);
          break;
        case 'B':
          o.before = ctxArg(arg!);
          break;
        case 'C':
          o.context = ctxArg(arg!);
          break;
        case 'D':
          if (arg !== 'read' && arg !== 'skip') {
            this.error('unknown devices method');
            throw new GrepExit(2);
          }
          break;
        case 'E':
          setMatcher('E');
          break;
        case 'F':
          setMatcher('F');
          break;
        case 'P':
          setMatcher('P');
          break;
        case 'G':
          setMatcher('G');
          break;
        case 'X': {
          const map: Record<string, 'G' | 'E' | 'F' | 'P'> = { grep: 'G', egrep: 'E', fgrep: 'F', perl: 'P' };
          const m = Object.hasOwn(map, arg!) ? map[arg!] : undefined;
          if (!m) {
            this.error(`invalid matcher ${arg}`);
            throw new GrepExit(2);
          }
          setMatcher(m);
          break;
        }
        case 'H':
          o.filenameOpt = 1;
          break;
        case 'I':
          o.binaryFiles = 'without-match';
          break;
        case 'T':
          o.alignTabs = true;
          break;
        case 'U':
          break;
        case 'u':
          this.error('warning: --unix-byte-offsets (-u) is obsolete');
          break;
        case 'V':
          showVersion = true;
          break;
        case 'a':
          o.binaryFiles = 'text';
          break;
        case 'b':
          o.byteOffset = true;
          break;
        case 'c':
          o.count = true;
          break;
        case 'd': {
          const v = arg!;
          const choices = ['read', 'recurse', 'skip'];
          const hits = choices.filter((c) => c.startsWith(v));
          const pick = choices.includes(v) ? v : hits.length === 1 ? hits[0]! : null;
          if (pick === null || v === '') {
            this.err.push(
              `grep: ${hits.length > 1 ? 'ambiguous' : 'invalid'} argument \u2018${v}\u2019 for \u2018--directories\u2019\nValid arguments are:\n  - \u2018read\u2019\n  - \u2018recurse\u2019\n  - \u2018skip\u2019\n${USAGE_TAIL}`,
            );
            throw new GrepExit(1);
          }
          o.directories = pick as Options['directories'];
          if (pick === 'recurse') o.lastRecursive = true;
          break;
        }
        case 'e':
          addKeys(arg! + '\n', '');
          break;
        case 'f': {
          let content: string;
          if (arg === '-') {
            content = Buffer.from(latin1FromBytes(this.ctx.stdin), 'latin1').toString('utf8');
            this.stdinUsed = true;
          } else {
            try {
              const abs = this.fs.resolvePath(this.ctx.cwd, arg!);
              const st = await this.fs.stat(abs);
              if (st.isDirectory) {
                // fopen succeeds on a directory; reading it fails.
                this.error(`${arg}: Is a directory`);
                throw new GrepExit(2);
              }
              content = Buffer.from(await this.fs.readFileBuffer(abs)).toString('utf8');
            } catch (e) {
              if (e instanceof GrepExit) throw e;
              this.error(`${arg}: ${errnoMessage(e, null)}`);
              throw new GrepExit(2);
            }
          }
          if (content.length && !content.endsWith('\n')) content += '\n';
          addKeys(content, arg!);
          if (o.keys === null) o.keys = [];
          break;
        }
        case 'h':
          o.filenameOpt = -1;
          break;
        case 'i':
          o.icase = true;
          break;
        case 'no-ignore-case':
          o.icase = false;
          break;
        case 'L':
          o.list = 2;
          break;
        case 'l':
          o.list = 1;
          break;
        case 'm': {
          const v = parseCount(arg!);
          if (v === null) {
            this.error('invalid max count');
            throw new GrepExit(2);
          }
          o.maxCount = v;
          break;
        }
        case 'n':
          o.lineNumbers = true;
          break;
        case 'o':
          o.onlyMatching = true;
          break;
        case 'q':
          o.quiet = true;
          break;
        case 'R':
          o.deref = true;
          o.directories = 'recurse';
          o.lastRecursive = true;
          break;
        case 'r':
          o.directories = 'recurse';
          o.lastRecursive = true;
          break;
        case 's':
          o.suppress = true;
          break;
        case 'v':
          o.invert = true;
          break;
        case 'w':
          o.words = true;
          break;
        case 'x':
          o.lines = true;
          break;
        case 'y':
          o.icase = true;
          break;
        case 'Z':
          o.nullName = true;
          break;
        case 'z':
          o.nullData = true;
          break;
        case 'binary-files':
          if (arg === 'binary' || arg === 'text' || arg === 'without-match') o.binaryFiles = arg;
          else {
            this.error('unknown binary-files type');
            throw new GrepExit(2);
          }
          break;
        case 'color':
          if (arg === undefined) break;
          if (/^(always|yes|force)$/i.test(arg)) o.color = true;
          else if (/^(never|no|none|auto|tty|if-tty)$/i.test(arg)) o.color = false;
          else showHelp = true;
          break;
        case 'exclude':
        case 'include':
          o.files[0]!.add(arg!, key === 'include');
          o.files[1]!.add(arg!, key === 'include');
          break;
        case 'exclude-from': {
          let content: string;
          try {
            content = Buffer.from(await this.fs.readFileBuffer(this.fs.resolvePath(this.ctx.cwd, arg!))).toString('utf8');
          } catch (e) {
            this.error(`${arg}: ${errnoMessage(e, null)}`);
            throw new GrepExit(2);
          }
          for (const line of content.split('\n')) {
            if (!line) continue;
            o.files[0]!.add(line, false);
            o.files[1]!.add(line, false);
          }
          break;
        }
        case 'exclude-dir': {
          let v = arg!;
          while (v.length > 1 && v.endsWith('/')) v = v.slice(0, -1);
          o.dirs[0]!.add(v, false);
          o.dirs[1]!.add(v, false);
          break;
        }
        case 'group-separator':
          o.groupSeparator = arg!;
          break;
        case 'no-group-separator':
          o.groupSeparator = null;
          break;
        case 'line-buffered':
          break;
        case 'label':
          o.label = arg!;
          break;
        case 'help':
          showHelp = true;
          break;
      }
    };

    try {
      for (const t of tokens(argv, SHORT_OPTIONS, LONG_OPTIONS)) {
        if (t.kind === 'operand') operands.push(t.value);
        else if (t.key >= '0' && t.key <= '9' && t.key.length === 1) {
          // -NUM: the digits of one argument make one context length (`-1 -5` is 5, `-15` 15).
          if (digitElem !== t.index || !digits) digits = '';
          if (digits === '0') digits = '';
          digits += t.key;
          digitElem = t.index;
        } else await apply(t.key, t.arg);
      }
    } catch (e) {
      if (!(e instanceof GetoptError)) throw e;
      if (!e.long) flushDigits();
      this.usageError(e.message);
    }
    flushDigits();

    if (showVersion) {
      this.write(VERSION);
      throw new GrepExit(0);
    }
    if (showHelp) {
      this.write(HELP);
      throw new GrepExit(0);
    }
    return { o, operands };
  }

  // ---- main ----

  async run(argv: string[]): Promise<number> {
    const { o, operands } = await this.parseArgs(argv);
    let keys: PatternLoc[];
    if (o.keys !== null) {
      keys = o.keys;
    } else if (operands.length) {
      let pat = operands.shift()!;
      if (o.matcher !== 'F' && pat.startsWith('\\-')) pat = pat.slice(1);
      keys = pat.split('\n').map((text, k) => ({ text, file: '', line: k + 1 }));
    } else {
      this.usageError(null);
    }
    // Duplicate patterns are dropped (the first one stays).
    const seen = new Set<string>();
    keys = keys.filter((k) => (seen.has(k.text) ? false : (seen.add(k.text), true)));
    if (keys.length === 0) {
      // No pattern at all (e.g. -f /dev/null): the empty pattern, inverted, matches nothing.
      o.invert = !o.invert;
      o.lines = o.words = false;
      keys = [{ text: '', file: '', line: 1 }];
    }

    if (o.quiet) o.list = 0;
    if (o.quiet || o.list) {
      o.count = false;
      this.doneOnMatch = true;
    }
    this.outQuiet = o.count || this.doneOnMatch;
    if (o.after < 0) o.after = o.context;
    if (o.before < 0) o.before = o.context;
    this.eol = o.nullData ? '\0' : '\n';

    // Nothing can be selected: GNU fails without reading any input.
    if ((o.maxCount === 0 || (keys.length === 1 && keys[0]!.text === '' && o.invert && !o.lines && !o.words)) && o.list !== 2) {
      return 1;
    }

    this.m = this.compile(keys, o);

    const numOperands = operands.length;
    this.outFile = o.filenameOpt === 0 && numOperands <= 1 ? -(o.directories === 'recurse' ? 1 : 0) : o.filenameOpt >= 0 ? 1 : 0;

    let files: string[];
    if (numOperands > 0) files = operands;
    else if (o.directories === 'recurse' && o.lastRecursive) {
      files = ['.'];
      this.omitDotSlash = true;
    } else files = ['-'];

    let status = true;
    for (const f of files) {
      status = (await this.commandLineArg(f)) && status;
      if (this.outputFull()) break;
    }
    return this.errseen ? 2 : status ? 1 : 0;
  }

  private outputFull(): boolean {
    return this.maxOutput > 0 && this.outBytes > this.maxOutput;
  }

  // ---- pattern compilation ----

  private compile(keys: PatternLoc[], o: Options): Matcher {
    const eol = this.eol;
    const matcher = o.matcher ?? 'G';
    if (matcher === 'P') {
      if (keys.length > 1) {
        this.error('the -P option only supports a single pattern');
        throw new GrepExit(2);
      }
      let t: { src: string; icase: boolean };
      try {
        // -w is pasted around the pattern as text (so a trailing backslash escapes its ')').
        const text = keys[0]?.text ?? '';
        t = translatePerl(o.words && !o.lines ? `(?<!\\w)(?:${text})(?!\\w)` : text, eol);
      } catch (e) {
        if (e instanceof PatternError) {
          this.error(e.message);
          throw new GrepExit(2);
        }
        throw e;
      }
      let src = t.src;
      if (o.lines) src = `(?<=^|${esc(eol)})(?:${src})(?=${esc(eol)}|$)`;
      try {
        return buildMatcher(src, o.icase || t.icase, null, false, false, eol);
      } catch (e) {
        this.error(pcreMessage(String((e as Error).message)));
        throw new GrepExit(2);
      }
    }

    const parts: string[] = [];
    const oParts: string[] = [];
    let wrappedLines: string | null = null;
    let filter: string | null = null;
    let lit: string | null = null;
    let pure = false;
    let ambiguous = keys.length > 1;
    if (matcher === 'F') {
      for (const k of keys) parts.push(Array.from(k.text).map(esc).join(''));
      oParts.push(...parts);
      if (keys.length === 1) {
        lit = keys[0]!.text;
        pure = true;
      }
    } else {
      // glibc checks every pattern first and reports each error; then the DFA parses them all.
      const results: Translation[] = [];
      let failed = false;
      let groups = 0;
      for (const k of keys) {
        try {
          const t = new PosixTranslator(k.text, matcher === 'E', o.icase, eol, groups).translate();
          groups += t.groups;
          results.push(t);
        } catch (e) {
          if (!(e instanceof PatternError)) throw e;
          failed = true;
          this.error(k.file ? `${k.file}:${k.line}: ${e.message}` : e.message);
        }
      }
      if (failed) throw new GrepExit(2);
      // Where the DFA gives up, glibc's regex decides what matches, and it reads a few odd
      // patterns (repetitions after anchors or at the start) differently; -o always uses it.
      const glibc: Translation[] = [];
      // -w wraps the patterns in [^[:alnum:]_] brackets, which the DFA cannot do in UTF-8.
      const useGlibc = o.words || results.some((t) => t.unsupported);
      if (useGlibc || o.onlyMatching || o.color) {
        let g = 0;
        for (const k of keys) {
          const t = new PosixTranslator(k.text, matcher === 'E', o.icase, eol, g, true).translate();
          g += t.groups;
          glibc.push(t);
        }
      }
      for (const t of results) {
        for (const ev of t.dfa) {
          if ('warn' in ev) this.error(`warning: ${ev.warn}`);
          else {
            this.error(ev.error);
            throw new GrepExit(2);
          }
        }
      }
      const sel = useGlibc ? glibc : results;
      for (const t of sel) {
        parts.push(t.src);
        if (t.ambiguous) ambiguous = true;
      }
      for (const t of glibc) {
        oParts.push(t.src);
        if (t.ambiguous) ambiguous = true;
      }
      if (sel.length === 1) {
        lit = sel[0]!.lit;
        pure = sel[0]!.pure;
      }
      // The DFA's superset still screens lines first: it matters where the DFA reads the
      // patterns differently (odd repetitions, or a ')' closing the -w/-x wrapper early).
      if (useGlibc && (results.some((t, k) => t.src !== glibc[k]!.src) || ((o.words || o.lines) && results.some((t) => t.unmatchedClose)))) {
        const ere = matcher === 'E';
        const alt = ere ? '|' : '\\|';
        let text = keys.map((k) => k.text).join(alt);
        if (o.words) text = ere ? `(^|[^[:alnum:]_])(${text})([^[:alnum:]_]|$)` : `\\(^\\|[^[:alnum:]_]\\)\\(${text}\\)\\([^[:alnum:]_]\\|$\\)`;
        else if (o.lines) text = ere ? `^(${text})$` : `^\\(${text}\\)$`;
        try {
          filter = new PosixTranslator(text, ere, o.icase, eol, 0, false, true).translate().src;
        } catch {
          /* no screening */
        }
      }
      if (o.lines && !useGlibc) {
        // The DFA reads -x as the text `^(PATTERNS)$`, so an unmatched ')' in an ERE closes
        // that group early ('a|)|' then matches every line): translate exactly that text.
        const ere = matcher === 'E';
        const text = (ere ? '^(' : '^\\(') + keys.map((k) => k.text).join(ere ? '|' : '\\|') + (ere ? ')$' : '\\)$');
        try {
          wrappedLines = new PosixTranslator(text, ere, o.icase, eol, 0).translate().src;
          lit = null;
        } catch {
          /* keep the plain wrapping */
        }
      }
    }
    const E = esc(eol);
    const W = wordClass();
    const join = (ps: string[]): string => (ps.length === 1 ? ps[0]! : ps.map((p) => `(?:${p})`).join('|'));
    const combine = (ps: string[]): string => {
      const s = join(ps);
      return o.lines ? `(?<=^|${E})(?:${s})(?=${E}|$)` : o.words ? `(?<!${W})(?:${s})(?!${W})` : s;
    };
    const src = wrappedLines ?? combine(parts);
    const oSrc = oParts.length ? combine(oParts) : combine(parts);
    // GNU's -w accepts an empty match only where no longer match starts (see Grep.wordEmptyOk).
    let wordEmpty: string | null = null;
    if (o.words) {
      const inner = join(parts);
      const probe = new RegExp(inner, `gv${o.icase ? 'i' : ''}`);
      for (const t of ['', 'a', ' ', ' a', 'a ', 'a a']) {
        probe.lastIndex = 0;
        let r: RegExpExecArray | null;
        while ((r = probe.exec(t)) !== null && r[0].length) probe.lastIndex = r.index + r[0].length;
        if (r !== null) {
          wordEmpty = inner;
          break;
        }
      }
    }
    if (o.lines || o.words) pure = false;
    if (o.icase && lit !== null) {
      // The prefilter is case-exact: only usable when case folding cannot change the literal.
      if (!/^[\x00-\x40\x5b-\x60\x7b-\x7f]*$/.test(lit)) lit = null;
      pure = false;
    }
    if (lit === '' && !pure) lit = null;
    const m = buildMatcher(src, o.icase, lit, pure && lit !== null, ambiguous && (o.onlyMatching || o.color), eol, oSrc);
    m.wordEmpty = wordEmpty;
    if (filter !== null) {
      m.filter = filter;
      m.uni.filterRe = new RegExp(`[^${E}]*?(?:${filter})`, `y${m.uni.flags}`);
    }
    return m;
  }

  // ---- files ----

  private async commandLineArg(arg: string): Promise<boolean> {
    if (arg === '-') {
      this.filename = this.o.label ?? '(standard input)';
      const bytes = this.stdinUsed ? Buffer.alloc(0) : Buffer.from(latin1FromBytes(this.ctx.stdin), 'latin1');
      this.stdinUsed = true;
      if (this.outFile < 0) this.outFile = 0;
      return this.grepBytes(bytes, Number.MAX_SAFE_INTEGER, true);
    }
    this.filename = arg;
    return this.grepFile(arg, arg, true);
  }

  private async grepFile(display: string, path: string, commandLine: boolean): Promise<boolean> {
    const fs = this.fs;
    const abs = fs.resolvePath(this.ctx.cwd, path);
    this.filename = display;
    let st;
    try {
      st = await fs.stat(abs);
    } catch (e) {
      this.suppressible(display, errnoMessage(e, null));
      return true;
    }
    if (!st.isDirectory && /\/$/.test(path)) {
      this.suppressible(display, 'Not a directory');
      return true;
    }
    const isDir = st.isDirectory;
    if (commandLine && this.skipped(display, true, isDir)) return true;
    if (this.outFile < 0) this.outFile = isDir ? 1 : 0;
    if (isDir && this.o.directories === 'recurse') {
      // Walk the real directory (a symlink operand is followed; not every filesystem
      // resolves symlinks in the middle of a path).
      let real = abs;
      try {
        real = await fs.realpath(abs);
      } catch {
        /* keep the path */
      }
      await (fs as IFileSystem & { prefetchSubtree?: (d: string) => Promise<void> }).prefetchSubtree?.(real);
      return this.walk(display, real, new Set([real]));
    }
    if (isDir && this.o.directories === 'skip') return true;
    if (isDir) {
      // Reading a directory fails inside the search: it still counts as a file without matches.
      this.suppressible(display, 'Is a directory');
      return this.finishFile(0);
    }
    let bytes: Uint8Array;
    try {
      bytes = await fs.readFileBuffer(abs);
    } catch (e) {
      this.suppressible(display, errnoMessage(e, null));
      return true;
    }
    this.filename = display;
    return this.grepBytes(bytes, st.size, false);
  }

  /** gnulib fts order: the directory's entries in the filesystem's order, depth first. */
  private async walk(display: string, abs: string, ancestors: Set<string>): Promise<boolean> {
    const fs = this.fs;
    let entries: Array<{ name: string; isFile: boolean; isDirectory: boolean; isSymbolicLink: boolean }>;
    try {
      if (fs.readdirWithFileTypes) entries = await fs.readdirWithFileTypes(abs);
      else {
        entries = [];
        for (const name of await fs.readdir(abs)) {
          const st = await fs.lstat(fs.resolvePath(abs, name));
          entries.push({ name, isFile: st.isFile, isDirectory: st.isDirectory, isSymbolicLink: st.isSymbolicLink });
        }
      }
    } catch (e) {
      this.suppressible(this.shown(display), errnoMessage(e, null));
      return true;
    }
    // fts trims a run of trailing slashes on the root to one, and joins without doubling it.
    let base = display;
    if (base.length > 2 && base.endsWith('/')) while (base.length > 1 && base[base.length - 2] === '/') base = base.slice(0, -1);
    const prefix = base.endsWith('/') ? base : `${base}/`;
    let status = true;
    for (const ent of entries) {
      if (this.ctx.signal?.aborted || this.outputFull()) break;
      const childDisplay = prefix + ent.name;
      let childAbs = abs === '/' ? `/${ent.name}` : `${abs}/${ent.name}`;
      let isDir = ent.isDirectory;
      if (ent.isSymbolicLink) {
        if (!this.o.deref) continue;
        try {
          const st = await fs.stat(childAbs);
          isDir = st.isDirectory;
        } catch {
          isDir = false;
        }
      }
      if (this.skipped(ent.name, false, isDir)) continue;
      if (isDir) {
        let key = childAbs;
        if (this.o.deref) {
          try {
            key = await fs.realpath(childAbs);
          } catch {
            /* keep the path */
          }
          childAbs = key;
          if (ancestors.has(key)) {
            if (!this.o.suppress) this.error(`${this.shown(childDisplay)}: warning: recursive directory loop`);
            continue;
          }
        }
        ancestors.add(key);
        status = (await this.walk(childDisplay, childAbs, ancestors)) && status;
        ancestors.delete(key);
        continue;
      }
      const shown = this.shown(childDisplay);
      let bytes: Uint8Array;
      let size = 0;
      try {
        bytes = await fs.readFileBuffer(childAbs);
        size = bytes.length;
      } catch (e) {
        this.suppressible(shown, errnoMessage(e, null));
        continue;
      }
      this.filename = shown;
      status = this.grepBytes(bytes, size, false) && status;
    }
    return status;
  }

  private shown(path: string): string {
    return this.omitDotSlash && path.startsWith('./') && path.length > 2 ? path.slice(2) : path;
  }

  private skipped(name: string, commandLine: boolean, isDir: boolean): boolean {
    const o = this.o;
    if (!isDir) return o.files[commandLine ? 1 : 0]!.excluded(name);
    if (o.directories === 'skip') return true;
    if (commandLine && this.omitDotSlash) return false;
    return o.dirs[commandLine ? 1 : 0]!.excluded(name);
  }

  // ---- one file ----

  /** Searches one input; returns GNU's status (true: nothing selected). */
  private grepBytes(bytes: Uint8Array, size: number, isStdin: boolean): boolean {
    const o = this.o;
    const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const eol = this.eol;
    let binary = false;
    if (o.binaryFiles !== 'text' && eol === '\n' && buf.indexOf(0) >= 0) {
      if (o.binaryFiles === 'without-match') return this.finishFile(0);
      binary = true;
    }
    let text: string;
    const valid = isUtf8(buf);
    if (valid) {
      text = buf.toString('utf8');
      this.encErrors = false;
    } else {
      text = decodeLossless(buf);
      this.encErrors = o.binaryFiles !== 'text';
      if (!this.encErrors) this.rawOutput = true;
    }
    this.ascii = text.length === buf.length && valid;
    this.eng = this.ascii && !this.m.pure ? asciiEngine(this.m) : this.m.uni;
    if (binary) text = text.replaceAll('\0', '\n');
    this.text = text;

    const doneOnMatch0 = this.doneOnMatch;
    const outQuiet0 = this.outQuiet;
    if (binary && !o.count) this.doneOnMatch = this.outQuiet = true;
    this.lastout = -1;
    this.pending = 0;
    this.outleft = o.maxCount;
    this.lnPos = 0;
    this.lnCount = 0;
    this.bytePos = 0;
    this.byteIdx = 0;
    this.encodingErrorOutput = false;
    if (o.alignTabs) {
      let num = isStdin ? Number.MAX_SAFE_INTEGER : size;
      if (o.lineNumbers && !isStdin) num += 1;
      this.offsetWidth = isStdin ? 19 : String(num).length;
    } else this.offsetWidth = 0;

    let nlines: number;
    try {
      // A regex search may backtrack for long: the pool watches it (search-watch.ts). A literal cannot.
      nlines = this.m.pure ? this.search() : watched(SEARCH.grep, () => this.search());
    } finally {
      this.doneOnMatch = doneOnMatch0;
      this.outQuiet = outQuiet0;
    }
    if (o.binaryFiles === 'binary' && !this.outQuiet && (this.encodingErrorOutput || (binary && nlines > 0))) {
      this.err.push(`grep: ${this.filename}: binary file matches\n`);
    }
    return this.finishFile(nlines);
  }

  private finishFile(count: number): boolean {
    const o = this.o;
    if (o.count) {
      if (this.outFile) this.write(`${this.sgr(FN_COLOR, this.filename)}${o.nullName ? '\0' : this.sgr(SEP_COLOR, ':')}`);
      this.write(`${count}\n`);
    }
    const status = count === 0;
    if (o.list && o.list === (status ? 2 : 1)) this.write(`${this.sgr(FN_COLOR, this.filename)}${o.nullName ? '\0' : '\n'}`);
    return status;
  }

  /** Wraps text in GNU's default --color=always escapes. */
  private sgr(color: string, text: string): string {
    return this.o.color ? `\x1b[${color}m\x1b[K${text}\x1b[m\x1b[K` : text;
  }

  /** The first line start at or after pos holding a match, or -1. pos is a line start. */
  private nextMatchLine(pos: number): number {
    const filter = this.eng.filterRe;
    for (;;) {
      const ls = this.rawNextMatchLine(pos);
      if (ls < 0 || filter === null) return ls;
      filter.lastIndex = ls;
      if (filter.test(this.text)) return ls;
      pos = this.lineEnd(ls) + 1;
      if (pos > this.text.length) return -1;
    }
  }

  private rawNextMatchLine(pos: number): number {
    const m = this.m;
    const text = this.text;
    const eol = this.eol;
    let at: number;
    if (m.pure) {
      at = text.indexOf(m.lit!, pos);
    } else if (m.lit !== null) {
      const lineRe = this.eng.lineRe!;
      for (;;) {
        const i = text.indexOf(m.lit, pos);
        if (i < 0) return -1;
        const ls = i === 0 ? 0 : text.lastIndexOf(eol, i - 1) + 1;
        lineRe.lastIndex = ls;
        if (lineRe.test(text)) return ls;
        const le = text.indexOf(eol, i);
        if (le < 0) return -1;
        pos = le + 1;
      }
    } else {
      const re = this.eng.re;
      re.lastIndex = pos;
      for (;;) {
        const r = re.exec(text);
        if (r === null) return -1;
        at = r.index;
        if (r[0].length || this.m.wordEmpty === null || this.wordEmptyOk(at)) break;
        if (at >= text.length) return -1;
        const c = text.charCodeAt(at);
        re.lastIndex = at + (c >= 0xd800 && c <= 0xdbff ? 2 : 1);
      }
    }
    if (at < 0) return -1;
    const len = text.length;
    if (at >= len && (len === 0 || text.charCodeAt(len - 1) === eol.charCodeAt(0))) return -1;
    return at === 0 ? 0 : text.lastIndexOf(eol, at - 1) + 1;
  }

  /**
   * GNU's -w loop takes, at each start, the longest match and then shorter non-empty ones: an
   * empty word-bounded match at s counts only if nothing longer matches at s, or if a
   * non-empty match at s is word-bounded too.
   */
  private wordEmptyOk(s: number): boolean {
    const text = this.text;
    const eng = this.eng;
    let prev = 0;
    if (s > 0) {
      const c = text.charCodeAt(s - 1);
      prev = s > 1 && c >= 0xdc00 && c <= 0xdfff && text.charCodeAt(s - 2) >= 0xd800 && text.charCodeAt(s - 2) <= 0xdbff ? 2 : 1;
    }
    const unicode = eng.flags.includes('v');
    const need = (unicode ? Math.min(prev, 1) : prev) + 1;
    let pair = eng.nonEmpty.get(need);
    if (!pair) {
      const inner = unicode ? this.m.wordEmpty! : asciiSource(this.m.wordEmpty!, this.m.icase);
      const W = unicode ? wordClass() : asciiSource(wordClass(), this.m.icase);
      const body = `(?:${inner})(?<=^[\\s\\S]{${need},})`;
      pair = [new RegExp(body, `y${eng.flags}`), new RegExp(`${body}(?!${W})`, `y${eng.flags}`)];
      eng.nonEmpty.set(need, pair);
    }
    const sub = text.slice(s - prev);
    pair[0].lastIndex = prev;
    if (!pair[0].test(sub)) return true;
    pair[1].lastIndex = prev;
    return pair[1].test(sub);
  }

  private lineEnd(ls: number): number {
    const e = this.text.indexOf(this.eol, ls);
    return e < 0 ? this.text.length : e;
  }

  /** grep(): the selection loop over one buffer. Returns the number of selected lines. */
  private search(): number {
    const o = this.o;
    const text = this.text;
    const len = text.length;
    const terminated = len > 0 && text.charCodeAt(len - 1) === this.eol.charCodeAt(0);
    const dataEnd = terminated ? len : len === 0 ? 0 : len + 1; // start of the line after the last
    let nlines = 0;
    if (this.outleft !== 0) {
      let p = 0;
      if (!o.invert) {
        while (p < dataEnd) {
          const ls = this.nextMatchLine(p);
          if (ls < 0) break;
          const le = this.lineEnd(ls);
          nlines += this.prtext(ls, le + 1);
          if (!this.outleft || this.doneOnMatch) break;
          p = le + 1;
        }
      } else {
        while (p < dataEnd) {
          const ms = this.nextMatchLine(p);
          const stop = ms < 0 ? dataEnd : ms;
          if (p < stop) {
            nlines += this.prtext(p, stop);
            if (!this.outleft || this.doneOnMatch) break;
          }
          if (ms < 0) break;
          p = this.lineEnd(ms) + 1;
        }
      }
    }
    if (this.pending > 0) this.prpending(dataEnd);
    return nlines;
  }

  /** Output the selected lines [beg, lim) with their context; returns how many were selected. */
  private prtext(beg: number, lim: number): number {
    const o = this.o;
    const text = this.text;
    const eol = this.eol;
    if (!this.outQuiet && this.pending > 0) this.prpending(beg);
    let p = beg;
    if (!this.outQuiet) {
      const bp = this.lastout >= 0 ? this.lastout : 0;
      for (let i = 0; i < o.before; i++) {
        if (p > bp) p = p - 2 < 0 ? 0 : text.lastIndexOf(eol, p - 2) + 1;
        else break;
      }
      if ((o.before >= 0 || o.after >= 0) && this.used && p !== this.lastout && o.groupSeparator !== null) {
        this.write(`${this.sgr(SEP_COLOR, o.groupSeparator)}\n`);
      }
      while (p < beg) {
        const nl = this.lineEnd(p);
        this.prline(p, nl, '-');
        p = nl + 1;
      }
    }
    let n: number;
    if (o.invert) {
      n = 0;
      while (p < lim && n < this.outleft) {
        const nl = this.lineEnd(p);
        if (!this.outQuiet) this.prline(p, nl, ':');
        p = nl + 1;
        n++;
      }
    } else {
      if (!this.outQuiet) this.prline(beg, this.lineEnd(beg), ':');
      n = 1;
    }
    if (o.quiet && n > 0) throw new GrepExit(0);
    this.pending = this.outQuiet ? 0 : Math.max(0, o.after);
    this.used = true;
    this.outleft -= n;
    return n;
  }

  private prpending(lim: number): void {
    if (this.lastout < 0) this.lastout = 0;
    while (this.pending > 0 && this.lastout < lim) {
      this.prline(this.lastout, this.lineEnd(this.lastout), '-');
      this.pending--;
    }
  }

  private lineNumber(at: number): number {
    const text = this.text;
    const eol = this.eol;
    let pos = this.lnPos;
    let n = this.lnCount;
    for (;;) {
      const i = text.indexOf(eol, pos);
      if (i < 0 || i >= at) break;
      n++;
      pos = i + 1;
    }
    this.lnPos = pos;
    this.lnCount = n;
    return n + 1;
  }

  private byteOffset(at: number): number {
    if (this.ascii) return at;
    if (at < this.byteIdx) {
      this.byteIdx = 0;
      this.bytePos = 0;
    }
    this.bytePos += Buffer.byteLength(this.text.slice(this.byteIdx, at));
    this.byteIdx = at;
    return this.bytePos;
  }

  private num(n: number): string {
    const s = String(n);
    return this.offsetWidth > s.length ? ' '.repeat(this.offsetWidth - s.length) + s : s;
  }

  /** print_line_head; false if the line (or match) is suppressed for an encoding error. */
  private head(beg: number, len: number, lineStart: number, sep: string): string | null {
    const o = this.o;
    if (this.encErrors && hasEncodingError(this.text, beg, beg + len)) {
      this.encodingErrorOutput = true;
      return null;
    }
    let h = '';
    const s = this.sgr(SEP_COLOR, sep);
    if (this.outFile) h += this.sgr(FN_COLOR, this.filename) + (o.nullName ? '\0' : s);
    if (o.lineNumbers) h += this.sgr(NUM_COLOR, this.num(this.lineNumber(lineStart))) + s;
    if (o.byteOffset) h += this.sgr(NUM_COLOR, this.num(this.byteOffset(beg))) + s;
    if (o.alignTabs && (this.outFile || o.lineNumbers || o.byteOffset) && len !== 0) h += '\t';
    return h;
  }

  private prline(beg: number, nl: number, sep: string): void {
    const o = this.o;
    const text = this.text;
    if (!o.onlyMatching) {
      const h = this.head(beg, nl - beg, beg, sep);
      if (h === null) return;
      if (o.color && (sep === ':') !== o.invert) this.write(h + this.colorMatches(beg, nl) + this.eol);
      else this.write(h + text.slice(beg, nl) + this.eol);
    } else if ((sep === ':') !== o.invert) {
      if (!this.printMatches(beg, nl, o.invert ? '-' : ':')) return;
    }
    this.lastout = nl + 1;
  }

  /** print_line_middle for -o: each non-empty leftmost(-longest) match on its own line. */
  private printMatches(beg: number, nl: number, sep: string): boolean {
    const line = this.text.slice(beg, nl);
    const re = this.eng.oRe;
    let cur = 0;
    while (cur < line.length) {
      re.lastIndex = cur;
      const r = re.exec(line);
      if (r === null) break;
      const b = r.index;
      let e = b + r[0].length;
      if (this.m.longest) e = this.extend(line, b, e);
      if (e === b) {
        const c = line.charCodeAt(b);
        cur = b + (c >= 0xd800 && c <= 0xdbff ? 2 : 1);
        continue;
      }
      const h = this.head(beg + b, e - b, beg, sep);
      if (h === null) return false;
      this.write(h + this.sgr(MATCH_COLOR, line.slice(b, e)) + this.eol);
      cur = e;
    }
    return true;
  }

  /** print_line_middle with --color: the line with each non-empty match highlighted. */
  private colorMatches(beg: number, nl: number): string {
    const line = this.text.slice(beg, nl);
    const re = this.eng.oRe;
    let out = '';
    let done = 0;
    let cur = 0;
    while (cur < line.length) {
      re.lastIndex = cur;
      const r = re.exec(line);
      if (r === null) break;
      const b = r.index;
      let e = b + r[0].length;
      if (this.m.longest) e = this.extend(line, b, e);
      if (e === b) {
        const c = line.charCodeAt(b);
        cur = b + (c >= 0xd800 && c <= 0xdbff ? 2 : 1);
        continue;
      }
      out += line.slice(done, b) + this.sgr(MATCH_COLOR, line.slice(b, e));
      done = cur = e;
    }
    return out + line.slice(done);
  }

  /**
   * The longest match starting at b (POSIX), given one ending at e: asks the engine for a
   * match at b ending later, until there is none. The search runs on the rest of the line
   * with one character of left context (all a translated pattern's lookbehinds need), and
   * "ends later" is a lookbehind over that short prefix, so each try costs about the match.
   */
  private extend(line: string, b: number, e: number): number {
    const m = this.eng;
    const off = b > 0 ? 1 : 0;
    const sub = line.slice(b - off);
    const unicode = m.flags.includes('v');
    for (;;) {
      if (e >= line.length) return e;
      // Required end, in code points (the `v` flag counts those) of sub, plus one.
      let need = off + (e - b) + 1;
      if (unicode) {
        need = 1;
        for (let i = 0; i < off + (e - b); i++) {
          const c = sub.charCodeAt(i);
          if (!(c >= 0xdc00 && c <= 0xdfff && i > 0 && sub.charCodeAt(i - 1) >= 0xd800 && sub.charCodeAt(i - 1) <= 0xdbff)) need++;
        }
      }
      let rx = m.extend.get(need);
      if (!rx) {
        if (m.extend.size > 256) m.extend.clear();
        rx = new RegExp(`(?:${m.oSrc})(?<=^[\\s\\S]{${need},})`, `y${m.flags}`);
        m.extend.set(need, rx);
      }
      rx.lastIndex = off;
      const r = rx.exec(sub);
      if (r === null) return e;
      e = b + r[0].length;
    }
  }
}

// ---------------------------------------------------------------------------------------
// The commands
// ---------------------------------------------------------------------------------------

async function grepMain(argv: string[], ctx: Ctx, direct?: () => IFileSystem): Promise<Result> {
  const g = new Grep(ctx, direct?.());
  try {
    return g.result(await g.run(argv));
  } catch (e) {
    if (e instanceof GrepExit) return g.result(e.code);
    throw e;
  }
}

/**
 * The commands. `direct`, if given, returns the filesystem the Bash instance runs on now (taken
 * once per command, when it starts), read directly: just-bash hands commands a membrane over
 * `ctx.fs` that copies every buffer and wraps every listing entry, which costs more than the
 * search itself on large trees.
 */
export function grepCommands(direct?: () => IFileSystem): Command[] {
  return [
    { name: 'grep', execute: (args, ctx) => grepMain(args, ctx, direct) },
    { name: 'egrep', execute: (args, ctx) => grepMain(['-E', ...args], ctx, direct) },
    { name: 'fgrep', execute: (args, ctx) => grepMain(['-F', ...args], ctx, direct) },
  ];
}

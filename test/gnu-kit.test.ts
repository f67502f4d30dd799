/**
 * The GNU commands' kit (src/gnu/kit), tested directly: getopt with glibc's abbreviations and
 * messages, gnulib's shell quoting, the errno table, fnmatch with character classes. Expected
 * values are what GNU coreutils 9.1 / grep 3.8 / glibc 2.36 print.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GetoptError, getopt, longOpts, parseOptions, tokens } from '../src/gnu/kit/getopt.js';
import { quote, quotef, shellQuote } from '../src/gnu/kit/quote.js';
import { ERRNO_TEXT, errnoCode, errnoMessage, gnuErrnoMessages, lackedScope } from '../src/gnu/kit/errno.js';
import { fnmatch, fnmatchRegExp, hasWildcards } from '../src/gnu/kit/fnmatch.js';
import { byteCmp, isValidUtf8, utf8ToLatin1 } from '../src/gnu/kit/bytes.js';
import { filevercmp } from '../src/gnu/kit/version-sort.js';

// ls's order: --color before --colour before --context, as in coreutils.
const LS = longOpts([
  ['all', 'a'],
  ['block-size', 'block-size', 'required'],
  ['color', 'color', 'optional'],
  ['colour', 'color', 'optional'],
  ['context', 'Z'],
  ['width', 'w', 'required'],
]);
// grep's order: --context, --color, --colour, --count.
const GREP = longOpts([
  ['context', 'C', 'required'],
  ['color', 'color', 'optional'],
  ['colour', 'color', 'optional'],
  ['count', 'c'],
]);

const errorOf = (args: string[], short: string, longs = LS) => {
  const p = getopt('ls', args, short, longs);
  return 'error' in p ? p.error : null;
};

describe('getopt', () => {
  it('clusters short options, takes attached or separate arguments, permutes operands', () => {
    assert.deepEqual(parseOptions(['-al', 'x', '-w5', '-w', '7', 'y'], 'alw:', LS), {
      opts: [
        ['a', undefined],
        ['l', undefined],
        ['w', '5'],
        ['w', '7'],
      ],
      operands: ['x', 'y'],
    });
  });

  it('ends options at --, and takes - as an operand', () => {
    assert.deepEqual(parseOptions(['-a', '-', '--', '-l', '--all'], 'al', LS), { opts: [['a', undefined]], operands: ['-', '-l', '--all'] });
  });

  it('takes long options exact, abbreviated, with =value or a separate argument', () => {
    assert.deepEqual(parseOptions(['--all', '--bl=4K', '--block-size', '1M', '--wid', '9', '--col', '--colo=never'], '', LS).opts, [
      ['a', undefined],
      ['block-size', '4K'],
      ['block-size', '1M'],
      ['w', '9'],
      ['color', undefined],
      ['color', 'never'],
    ]);
  });

  it('treats aliases with the same key and argument as one option (--col is --color, not ambiguous)', () => {
    assert.deepEqual(parseOptions(['--colou'], '', LS).opts, [['color', undefined]]);
  });

  it("words ambiguity as glibc: the first candidate and those differing from it, with the argument's =value", () => {
    assert.equal(errorOf(['--co'], ''), "ls: option '--co' is ambiguous; possibilities: '--color' '--context'\n");
    assert.equal(errorOf(['--co=x'], ''), "ls: option '--co=x' is ambiguous; possibilities: '--color' '--context'\n");
    assert.equal(errorOf(['--co'], '', GREP), "ls: option '--co' is ambiguous; possibilities: '--context' '--color' '--colour' '--count'\n");
  });

  it('words every other error as glibc', () => {
    assert.equal(errorOf(['--foo=bar'], ''), "ls: unrecognized option '--foo=bar'\n");
    assert.equal(errorOf(['--all=x'], ''), "ls: option '--all' doesn't allow an argument\n");
    assert.equal(errorOf(['--block-size'], ''), "ls: option '--block-size' requires an argument\n");
    assert.equal(errorOf(['-k'], 'a'), "ls: invalid option -- 'k'\n");
    assert.equal(errorOf(['-:'], 'w:'), "ls: invalid option -- ':'\n");
    assert.equal(errorOf(['-aw'], 'aw:'), "ls: option requires an argument -- 'w'\n");
  });

  it('streams tokens with the index of their argument, and says whether a long option failed', () => {
    const seen = [...tokens(['-15', 'p', '--count'], '0123456789c', GREP)].map((t) => (t.kind === 'option' ? `${t.key}@${t.index}` : t.value));
    assert.deepEqual(seen, ['1@0', '5@0', 'p', 'c@2']);
    assert.throws(
      () => [...tokens(['--nope'], '', GREP)],
      (e: unknown) => e instanceof GetoptError && e.long && e.message === "unrecognized option '--nope'",
    );
    assert.throws(
      () => [...tokens(['-x'], '', GREP)],
      (e: unknown) => e instanceof GetoptError && !e.long,
    );
  });
});

describe('shell quoting', () => {
  // What `ls --quoting-style=shell-escape` (quotef) and `shell-escape-always` (quote) print.
  const CASES: Array<[string, string, string]> = [
    ['9x', '9x', "'9x'"],
    ['@at', '@at', "'@at'"],
    ['a,b+c', 'a,b+c', "'a,b+c'"],
    ['x%y', 'x%y', "'x%y'"],
    ['a#h', 'a#h', "'a#h'"],
    ['a}b', 'a}b', "'a}b'"],
    ['x~', 'x~', "'x~'"],
    ['#h', "'#h'", "'#h'"],
    ['~x', "'~x'", "'~x'"],
    ['{', "'{'", "'{'"],
    ['a b', "'a b'", "'a b'"],
    ['x=y', "'x=y'", "'x=y'"],
    ['t^x', "'t^x'", "'t^x'"],
    ['a!b', "'a!b'", "'a!b'"],
    ['a?b', "'a?b'", "'a?b'"],
    ['a\\b', "'a\\b'", "'a\\b'"],
    ["it's", '"it\'s"', '"it\'s"'],
    ["'", '"\'"', '"\'"'],
    ["#it's", '"#it\'s"', '"#it\'s"'],
    ["x@y'", '"x@y\'"', '"x@y\'"'],
    ["a]b'", '"a]b\'"', '"a]b\'"'],
    ["it's~", "'it'\\''s~'", "'it'\\''s~'"],
    ["a{b'", "'a{b'\\'''", "'a{b'\\'''"],
    ["a'b#", "'a'\\''b#'", "'a'\\''b#'"],
    ["it's&", "'it'\\''s&'", "'it'\\''s&'"],
    ['café.md', "'caf'$'\\303\\251''.md'", "'caf'$'\\303\\251''.md'"],
    ['nl\nx', "'nl'$'\\n''x'", "'nl'$'\\n''x'"],
    ["it's\ty", "'it'\\''s'$'\\t''y'", "'it'\\''s'$'\\t''y'"],
    ['', "''", "''"],
  ];
  for (const [name, f, always] of CASES) {
    it(JSON.stringify(name), () => {
      assert.equal(quotef(name), f);
      assert.equal(quote(name), always);
      assert.equal(shellQuote(name), always);
    });
  }
});

describe('errno', () => {
  it('reads the code, not the text, when there is one', () => {
    assert.equal(errnoCode({ code: 'EISDIR', message: 'ENOENT: no such file' }), 'EISDIR');
    assert.equal(errnoCode(new Error('ENOTDIR: not a directory, scandir /x')), 'ENOTDIR');
    assert.equal(errnoCode(new Error('boom')), undefined);
  });

  it('words errors as the C library, naming a scope the key lacks', () => {
    assert.equal(errnoMessage({ code: 'EROFS' }), 'Read-only file system');
    assert.equal(errnoMessage({ code: 'EACCES', lacks: 'files:write' }), 'Permission denied (this key lacks files:write)');
    assert.equal(lackedScope(new Error('EACCES: permission denied (this key lacks files:delete), rm /x')), 'files:delete');
    assert.equal(errnoMessage({ code: 'EWHAT' }), ERRNO_TEXT.ENOENT);
    assert.equal(errnoMessage(new Error('EWHAT: something odd'), null), 'something odd');
  });

  it("rewrites just-bash's Node-style messages", () => {
    assert.equal(
      gnuErrnoMessages("mkdir: cannot create directory '/d': EACCES: permission denied (this key lacks files:write), mkdir '/d'\n"),
      "mkdir: cannot create directory '/d': Permission denied (this key lacks files:write)\n",
    );
  });
});

describe('fnmatch', () => {
  it('matches *, ?, ranges, negation, escapes; an unterminated [ is literal', () => {
    assert.ok(fnmatch('*.md', 'a.md'));
    assert.ok(!fnmatch('*.md', 'a.mdx'));
    assert.ok(fnmatch('?.txt', 'a.txt'));
    assert.ok(fnmatch('[a-c]x', 'bx'));
    assert.ok(!fnmatch('[!a-c]x', 'bx'));
    assert.ok(fnmatch('[^a-c]x', 'dx'));
    assert.ok(fnmatch('\\*', '*'));
    assert.ok(!fnmatch('\\*', 'a'));
    assert.ok(fnmatch('[', '['));
    assert.ok(fnmatch('a[', 'a['));
    assert.ok(fnmatch('[]]', ']'));
    assert.ok(fnmatch('[z-a]x', 'x') === false);
  });

  it('knows the POSIX character classes', () => {
    assert.ok(fnmatch('[[:upper:]]*', 'README'));
    assert.ok(!fnmatch('[[:upper:]]*', 'readme'));
    assert.ok(fnmatch('[[:digit:]][[:digit:]]', '42'));
    assert.ok(fnmatch('*[[:punct:]]*', 'a.b'));
    assert.ok(!fnmatch('*[[:punct:]]*', 'ab'));
    assert.ok(fnmatch('[[:alpha:][:digit:]_]', '_'));
    assert.ok(fnmatch('[![:space:]]', 'x'));
    assert.ok(!fnmatch('[![:space:]]', ' '));
    assert.ok(fnmatch('[[:xdigit:]]', 'F'));
    assert.ok(fnmatch('[[:blank:]]', '\t'));
    assert.ok(fnmatch('[[:cntrl:]]', '\x7f'));
    assert.ok(fnmatch('[[:alnum:]]', 'z'));
    assert.ok(fnmatch('[[:lower:]]', 'z'));
    assert.ok(fnmatch('[[:print:]]', ' '));
    assert.ok(!fnmatch('[[:graph:]]', ' '));
    // An unknown class name makes the bracket literal text up to its first ']'.
    assert.ok(fnmatch('[[:nope:]]', ':]'));
  });

  it('matches bytes in the C locale: ? is one byte of a UTF-8 name', () => {
    assert.ok(fnmatch('caf??.md', 'café.md'));
    assert.ok(!fnmatch('caf?.md', 'café.md'));
    assert.ok(!fnmatch('[[:alpha:]]', 'é'));
  });

  it('takes a class resolver, for matching by character', () => {
    const re = fnmatchRegExp('caf?', (n) => (n === 'alpha' ? '[\\p{L}]' : null));
    assert.ok(re.test('café'));
    assert.ok(fnmatchRegExp('[[:alpha:]]', (n) => (n === 'alpha' ? '[\\p{L}]' : null)).test('é'));
  });

  it('tells wildcards from escaped ones', () => {
    assert.ok(hasWildcards('a*'));
    assert.ok(!hasWildcards('a\\*'));
    assert.ok(!hasWildcards('plain'));
  });
});

describe('bytes', () => {
  it('orders by bytes, checks UTF-8, converts', () => {
    assert.ok(byteCmp('B', 'a') < 0);
    assert.ok(byteCmp('é', 'z') > 0);
    assert.equal(byteCmp('x', 'x'), 0);
    assert.equal(utf8ToLatin1('é'), '\xc3\xa9');
    assert.ok(isValidUtf8(Buffer.from('é')));
    assert.ok(!isValidUtf8(Buffer.from([0xc3])));
  });
});

describe('filevercmp', () => {
  it('orders names as LC_ALL=C ls -v -A does (GNU coreutils 9.1)', () => {
    const gnu =
      '.hidden 007 7 B Z9 a.b.c a.txt a1 a1.txt a2 a2.txt a10 a10.txt abc-1.0 abc-1.0a abc-1.0.1 b file~ file file.tar.gz file-1.2.9 file-1.2.10 file-1.10 v1.2 v1.10 x.1~ x.1 z'.split(
        ' ',
      );
    const shuffled = [...gnu].reverse();
    assert.deepEqual(
      shuffled.sort((a, b) => filevercmp(a, b) || byteCmp(a, b)),
      gnu,
    );
  });
});
